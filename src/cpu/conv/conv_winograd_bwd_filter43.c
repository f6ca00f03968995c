/* SPDX-License-Identifier: Apache-2.0
 * WINOGRAD_NONFUSED backward filter of 3x3 filters on 4x4 dy tiles:
 * F(3x3 filter, 4x4 dy), n = 6, 36 products per 144 direct multiply-adds
 * (the 2x2 tiles of conv_winograd_bwd_filter.c take 16 per 36).
 *
 * dw[k][c] = G^T [ sum over tiles of (A dy A^T) .* (B^T x B) ] G with the
 * F(4,3) matrices of conv_winograd_tf.h (conv_winograd_engine.h,
 * fdnn_wino_bwdf_t).  Per group, the tiles of the whole batch are cut into
 * blocks of FDNN_WINO_BWDF_TB; each block's x patches and dy tiles are
 * transformed into the workspace (X tile-major with channels contiguous,
 * D channel-major with tiles contiguous) and the 36 products
 *   S[e][k][c] += sum_{t in block} D[e][k][t] X[e][t][c]
 * are added into S, which holds every group's sums.  G^T S G goes to dw
 * once at the end, through alpha and beta.
 *
 * Threads, the first applicable of `schedules`: where the batch has at
 * least 2 x CHUNK_MIN_BLOCKS blocks (res2, res3), the blocks are cut into
 * 12, 6, 4 or 2 chunks by the shape (chunk_task: each chunk's transforms
 * and products with its own S, no patch gathered twice, no barrier; the
 * chunks' S then added in chunk order).  Otherwise up to 3 threads and S
 * of up to ROWS_MAX_S_BYTES, one task per range of the 6 transform rows
 * runs the whole call for its e (rows_task: its operands and sums stay in
 * one core's cache, no barrier per block; the patches are gathered by
 * every task); otherwise, inside each block the transforms run in parallel
 * over channels and the products over e.  Each S element is written by
 * one task with a fixed order of summation (tiles in order within a
 * block, blocks in order, chunks in order), the chunks are a function of
 * the shape, and the kernels compute each transformed element the same
 * way whatever the row range, so the result does not depend on the thread
 * count.
 *
 * Error: the transformed operands are up to ~10x the magnitude of x and
 * dy (B^T, A of F(4,3)), and G^T has 1/N_j fractions; the sums over N*H*W
 * are blocked (TB tiles in registers, then into S), so the error grows
 * with the number of blocks, not of products (measured: see
 * docs/performance.md, "backward-filter Winograd on 4x4 dy tiles"). */
#include <stdint.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/tensor.h"
#include "core/pool_slots.h"
#include "cpu/config/config.h"
#include "cpu/conv/conv_partials.h"
#include "cpu/conv/conv_winograd_engine.h"
#include "cpu/conv/conv_winograd_prof.h"

#define NN 36
#define TB FDNN_WINO_BWDF_TB
#define MAX_WORKSPACE ((double)(1ull << 46))
/* The row tasks pay (each gathers every patch) by keeping their part of S
 * in cache from block to block; past this S streams from memory either
 * way (res5: 38 MB) and the per-block steps, claimed dynamically, balance
 * better on a busy machine (a static split waits for a descheduled
 * thread: measured 2x slower on res4-res5 with one competing process). */
#define ROWS_MAX_S_BYTES ((size_t)16 << 20)

/* Tile chunks (chunk_task): the blocks cut into `chunks` runs, each one
 * task with its own S (X and D: scratch of the running task); the chunks'
 * S added in chunk order (conv_partials.h).  The count is a function of the shape only (the bits depend
 * on it, so it cannot follow the thread count): the largest of 12, 6, 4, 2
 * that leaves each chunk CHUNK_MIN_BLOCKS blocks and all the chunks'
 * buffers within CHUNKS_MAX_BYTES, else 1 (no chunks: the row tasks or the
 * per-block steps).  12 and 6 spread evenly over 1, 2, 3, 4 and 6
 * threads. */
#define CHUNK_MIN_BLOCKS 6
#define CHUNKS_MAX_BYTES ((size_t)32 << 20)

typedef struct plan43 {
    fdnn_wino_bwdf_t g;
    int64_t gtiles, blocks; /* tiles over the batch, blocks of TB of them */
    int64_t chunks;         /* tile chunks, each with its own S, X, D (1: none) */
    size_t s_bytes, x_bytes, d_bytes, chunk_bytes, total;
    double total_d;
} plan43_t;

static void
make_plan(const fdnn_conv_problem_t *p, plan43_t *w)
{
    memset(w, 0, sizeof(*w));
    fdnn_wino_bwdf_t *g = &w->g;
    fdnn_wino_tf_init(&g->tf, 4, 3);
    g->batch = p->n;
    g->groups = p->g;
    g->cin = fdnn_conv_cg(p);
    g->cout = fdnn_conv_kg(p);
    g->cp = (g->cin + FDNN_WINO_BWDF_CPAD - 1) / FDNN_WINO_BWDF_CPAD * FDNN_WINO_BWDF_CPAD;
    g->ih = p->in[1], g->iw = p->in[2];
    g->oh = p->out[1], g->ow = p->out[2];
    g->ph = p->pad[1], g->pw = p->pad[2];
    g->x_sn = p->x.strides[0], g->x_sc = p->x.strides[1], g->x_sh = p->x.strides[3], g->x_sw = p->x.strides[4];
    g->x_span = fdnn_tensor_span(&p->x);
    g->y_span = fdnn_tensor_span(&p->y);
    g->y_sn = p->y.strides[0], g->y_sc = p->y.strides[1], g->y_sh = p->y.strides[3], g->y_sw = p->y.strides[4];
    g->th = (g->oh + 3) / 4;
    g->tw = (g->ow + 3) / 4;
    g->tiles = g->th * g->tw;
    w->gtiles = g->batch * g->tiles;
    w->blocks = (w->gtiles + TB - 1) / TB;
    double s = (double)NN * (double)(g->groups * g->cout) * (double)g->cp * 4;
    double x = (double)NN * TB * (double)g->cp * 4;
    double d = (double)NN * (double)g->cout * TB * 4;
    w->total_d = s + x + d;
    if (w->total_d > MAX_WORKSPACE)
        return;
    w->s_bytes = fdnn_align_up((size_t)s);
    w->x_bytes = fdnn_align_up((size_t)x);
    w->d_bytes = fdnn_align_up((size_t)d);
    w->chunk_bytes = w->s_bytes + w->x_bytes + w->d_bytes;
    static const int64_t counts[] = {12, 6, 4, 2};
    w->chunks = 1;
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        if (w->blocks >= counts[i] * CHUNK_MIN_BLOCKS && w->chunk_bytes <= CHUNKS_MAX_BYTES / (size_t)counts[i]) {
            w->chunks = counts[i];
            break;
        }
    w->total = (size_t)w->chunks * w->chunk_bytes;
}

cudnnStatus_t
fdnn_wino_bwdf43_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    plan43_t w;
    make_plan(p, &w);
    if (w.total_d > MAX_WORKSPACE)
        return FDNN_NOT_SUPPORTED("WINOGRAD_NONFUSED would need %.3g bytes of workspace", w.total_d);
    *bytes = w.total;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct ctx43 {
    const fdnn_conv_exec_t *e;
    const plan43_t *w;
    const fdnn_wino_bwdf_kernels_t *kern;
    float *s, *x, *d;  /* chunk 0's; chunk i's lie i * chunk_floats further */
    size_t chunk_floats;
    fdnn_pool_slots_t *slots; /* run_chunks: the X and D regions in use */
    int64_t grp, tb;
    int row_tasks; /* run_rows: tasks, each owning a range of transform rows */
    bool first;
    fdnn_wino_bwdf_block_t blk;
} ctx43_t;

static void
x_task(void *arg, size_t i)
{
    const ctx43_t *c = arg;
    WPROF_BEGIN(t_x);
    c->kern->x_channels(&c->w->g, &c->blk, c->grp, (int64_t)i * FDNN_WINO_BWDF_CPAD, 0, 6, c->x);
    WPROF_END(t_x, WPROF_B_X);
}

static void
dy_task(void *arg, size_t k)
{
    const ctx43_t *c = arg;
    WPROF_BEGIN(t_dy);
    c->kern->dy_channel(&c->w->g, &c->blk, c->grp, (int64_t)k, 0, 6, c->d);
    WPROF_END(t_dy, WPROF_B_DY);
}

static void
product_task(void *arg, size_t e)
{
    const ctx43_t *c = arg;
    WPROF_BEGIN(t_prod);
    c->kern->product(&c->w->g, c->grp, (int64_t)e, 0, c->w->g.cout, c->tb, c->d, c->x, c->s, c->first);
    WPROF_END(t_prod, WPROF_B_PRODUCT);
}

/* Output channel k (global): G^T S G of every input channel, FIN_CH input
 * channels at a time, each of the 36 S rows read as one run of FIN_CH
 * floats (res5: S is 38 MB, its 36 rows of one k lie 1 MB apart; read 16
 * channels at a time, 36 interleaved line streams, this took 15 ms of the
 * 47 of a 1-thread call), through alpha and beta (CONVOLUTION mode stores
 * the taps reversed).  Every element gets the same operations in the same
 * order whatever the chunk. */
#define FIN_CH 256
static void
finish_task(void *arg, size_t ks)
{
    enum { V = FDNN_WINO_BWDF_CPAD };
    const ctx43_t *c = arg;
    const fdnn_wino_bwdf_t *g = &c->w->g;
    const fdnn_wino_tf_t *tf = &g->tf;
    const fdnn_conv_exec_t *e = c->e;
    const fdnn_tensor_t *wt = &e->p->w;
    int64_t k = (int64_t)ks, kall = g->groups * g->cout;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    bool flip = e->p->flip;
    float *dw = (float *)e->out + k * wt->strides[0];
    for (int64_t i0 = 0; i0 < g->cin; i0 += FIN_CH) {
        int64_t nc = g->cin - i0 < FIN_CH ? g->cin - i0 : FIN_CH;
        int64_t np = (nc + V - 1) / V * V; /* inside cp */
        float tmp[3][6][FIN_CH], out[3][3][FIN_CH];
        for (int y = 0; y < 3; y++) /* tmp = G^T S */
            for (int v = 0; v < 6; v++) {
                float *acc = tmp[y][v];
                for (int64_t l = 0; l < np; l++)
                    acc[l] = 0;
                for (int u = 0; u < 6; u++) {
                    const float *row = c->s + ((u * 6 + v) * kall + k) * g->cp + i0;
                    float cf = tf->g[u][y];
                    for (int64_t l = 0; l < np; l++)
                        acc[l] += cf * row[l];
                }
            }
        for (int y = 0; y < 3; y++) /* tmp G */
            for (int x = 0; x < 3; x++) {
                float *acc = out[y][x];
                for (int64_t l = 0; l < np; l++)
                    acc[l] = 0;
                for (int v = 0; v < 6; v++) {
                    float cf = tf->g[v][x];
                    for (int64_t l = 0; l < np; l++)
                        acc[l] += tmp[y][v][l] * cf;
                }
            }
        for (int64_t l = 0; l < nc; l++)
            for (int y = 0; y < 3; y++)
                for (int x = 0; x < 3; x++) {
                    int fy = flip ? 2 - y : y, fx = flip ? 2 - x : x;
                    float *dst = dw + (i0 + l) * wt->strides[1] + fy * wt->strides[3] + fx * wt->strides[4];
                    float val = alpha * out[y][x][l];
                    if (beta != 0)
                        val += beta * *dst;
                    *dst = val;
                }
    }
}

/* The table of the tiles gt0, gt0 + 1, ..., gt0 + tb - 1. */
static void
block_table(const fdnn_wino_bwdf_t *g, int64_t gt0, int64_t tb, fdnn_wino_bwdf_block_t *blk)
{
    blk->tb = tb;
    for (int64_t t = 0; t < tb; t++) {
        int64_t gt = gt0 + t, b = gt / g->tiles, tt = gt % g->tiles;
        int64_t ty = tt / g->tw, tx = tt % g->tw, y0 = ty * 4 - g->ph, x0 = tx * 4 - g->pw;
        blk->b[t] = b;
        blk->y0[t] = y0;
        blk->x0[t] = x0;
        blk->x_in[t] = y0 >= 0 && x0 >= 0 && y0 + 6 <= g->ih && x0 + 6 <= g->iw;
        unsigned cols = 0;
        for (int c = 0; c < 6; c++)
            if (x0 + c >= 0 && x0 + c < g->iw)
                cols |= 1u << c;
        int64_t r0 = y0 < 0 ? -y0 : 0, r1 = g->ih - y0 < 6 ? g->ih - y0 : 6;
        blk->x_cols[t] = (uint8_t)cols;
        blk->x_r0[t] = (uint8_t)(r0 < 6 ? r0 : 6);
        blk->x_r1[t] = (uint8_t)(r1 > 0 ? r1 : 0);
        blk->x_off[t] = b * g->x_sn + y0 * g->x_sh + x0 * g->x_sw;
        blk->y_in[t] = ty * 4 + 4 <= g->oh && tx * 4 + 4 <= g->ow;
        int64_t yl = g->oh - ty * 4, xl = g->ow - tx * 4;
        blk->y_rows[t] = (uint8_t)(yl < 4 ? yl : 4);
        blk->y_cols[t] = (uint8_t)((1u << (xl < 4 ? xl : 4)) - 1);
        blk->y_off[t] = b * g->y_sn + ty * 4 * g->y_sh + tx * 4 * g->y_sw;
    }
}

/* Task r of row_tasks: the whole call (every group, every block in order)
 * for the e = 6 i + j of the transform rows [6r / n, 6(r + 1) / n): its
 * x and dy transforms of those rows (the patches are gathered by every
 * task: the price of the split), then its products into S[e].  The X[e],
 * D[e] and S[e] a task writes are its own and stay in its core's caches
 * from block to block; no other task reads them until finish_task.
 * Each S element gets the same sums in the same order as in the
 * per-block steps of fdnn_wino_bwdf43_execute. */
static void
rows_task(void *arg, size_t r)
{
    const ctx43_t *c = arg;
    const fdnn_wino_bwdf_t *g = &c->w->g;
    int n = c->row_tasks, r0 = (int)(6 * r / (size_t)n), r1 = (int)(6 * (r + 1) / (size_t)n);
    fdnn_wino_bwdf_block_t blk;
    for (int64_t grp = 0; grp < g->groups; grp++)
        for (int64_t b = 0; b < c->w->blocks; b++) {
            int64_t gt0 = b * TB, tb = c->w->gtiles - gt0 < TB ? c->w->gtiles - gt0 : TB;
            WPROF_BEGIN(t_x);
            block_table(g, gt0, tb, &blk);
            for (int64_t i0 = 0; i0 < g->cp; i0 += FDNN_WINO_BWDF_CPAD)
                c->kern->x_channels(g, &blk, grp, i0, r0, r1, c->x);
            WPROF_END(t_x, WPROF_B_X);
            WPROF_BEGIN(t_dy);
            for (int64_t k = 0; k < g->cout; k++)
                c->kern->dy_channel(g, &blk, grp, k, r0, r1, c->d);
            WPROF_END(t_dy, WPROF_B_DY);
            WPROF_BEGIN(t_prod);
            for (int64_t e = 6 * r0; e < 6 * r1; e++)
                c->kern->product(g, grp, e, 0, g->cout, tb, c->d, c->x, c->s, b == 0);
            WPROF_END(t_prod, WPROF_B_PRODUCT);
        }
}

/* Chunk ci of w->chunks: blocks [ci B / chunks, (ci + 1) B / chunks) of
 * every group, in order, into the chunk's own S (every transform row,
 * every e): no patch gathered twice, no operand crossing cores, no
 * barrier until run_chunks adds the chunks' S in chunk order.  The first
 * block of each group sets S, the others add (as the other schedules). */
static void
chunk_task(void *arg, size_t ci)
{
    const ctx43_t *c = arg;
    const fdnn_wino_bwdf_t *g = &c->w->g;
    int64_t nb = c->w->blocks, nc = c->w->chunks;
    int64_t b0 = (int64_t)ci * nb / nc, b1 = ((int64_t)ci + 1) * nb / nc;
    /* S is the chunk's own; X and D, scratch rewritten per block, those of
     * a slot claimed for the task (the same few stay in the caches: by
     * chunk, one thread walked 12 x 1.2 MB of them on res2) */
    size_t slot = fdnn_pool_slot_claim(c->slots, ci);
    float *s = c->s + ci * c->chunk_floats, *x = c->x + slot * c->chunk_floats, *d = c->d + slot * c->chunk_floats;
    fdnn_wino_bwdf_block_t blk;
    for (int64_t grp = 0; grp < g->groups; grp++)
        for (int64_t b = b0; b < b1; b++) {
            int64_t gt0 = b * TB, tb = c->w->gtiles - gt0 < TB ? c->w->gtiles - gt0 : TB;
            WPROF_BEGIN(t_x);
            block_table(g, gt0, tb, &blk);
            for (int64_t i0 = 0; i0 < g->cp; i0 += FDNN_WINO_BWDF_CPAD)
                c->kern->x_channels(g, &blk, grp, i0, 0, 6, x);
            WPROF_END(t_x, WPROF_B_X);
            WPROF_BEGIN(t_dy);
            for (int64_t k = 0; k < g->cout; k++)
                c->kern->dy_channel(g, &blk, grp, k, 0, 6, d);
            WPROF_END(t_dy, WPROF_B_DY);
            WPROF_BEGIN(t_prod);
            for (int64_t e = 0; e < NN; e++)
                c->kern->product(g, grp, e, 0, g->cout, tb, d, x, s, b == b0);
            WPROF_END(t_prod, WPROF_B_PRODUCT);
        }
    fdnn_pool_slot_release(c->slots, slot);
}

static void
run_chunks(ctx43_t *c, size_t threads)
{
    (void)threads;
    fdnn_pool_slots_t slots;
    fdnn_pool_slots_init(&slots, c->e->pool, (size_t)c->w->chunks);
    c->slots = &slots;
    fdnn_parallelize_1d(c->e->pool, chunk_task, c, (size_t)c->w->chunks, 0);
    c->slots = NULL;
    /* The chunks' S added in chunk order, in contiguous runs the
     * prefetchers follow (adding them inside finish_task, 36 rows x chunks
     * of a few hundred bytes per output channel, cost res3 1.6 ms of ~20
     * at one thread). */
    size_t n = (size_t)NN * (size_t)(c->w->g.groups * c->w->g.cout) * (size_t)c->w->g.cp;
    fdnn_conv_sum_partials_f32(c->e->pool, c->s, c->chunk_floats, n, (size_t)c->w->chunks);
}

static void
run_rows(ctx43_t *c, size_t threads)
{
    c->row_tasks = (int)threads;
    fdnn_parallelize_1d(c->e->pool, rows_task, c, threads, 0);
}

static void
run_steps(ctx43_t *c, size_t threads)
{
    (void)threads;
    const plan43_t *w = c->w;
    for (int64_t grp = 0; grp < w->g.groups; grp++)
        for (int64_t blk = 0; blk < w->blocks; blk++) {
            int64_t gt0 = blk * TB;
            c->grp = grp;
            c->tb = w->gtiles - gt0 < TB ? w->gtiles - gt0 : TB;
            c->first = blk == 0;
            block_table(&w->g, gt0, c->tb, &c->blk);
            fdnn_parallelize_1d(c->e->pool, x_task, c, (size_t)(w->g.cp / FDNN_WINO_BWDF_CPAD), 0);
            fdnn_parallelize_1d(c->e->pool, dy_task, c, (size_t)w->g.cout, 0);
            fdnn_parallelize_1d(c->e->pool, product_task, c, NN, 0);
        }
}

static cudnnStatus_t
chunks_applicable(const plan43_t *w, size_t threads)
{
    (void)threads;
    if (w->chunks < 2)
        return FDNN_NOT_SUPPORTED("Winograd 4x4 backward filter by tile chunks: %lld blocks, %zu bytes per chunk",
                                  (long long)w->blocks, w->chunk_bytes);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
rows_applicable(const plan43_t *w, size_t threads)
{
    if (threads > 3)
        return FDNN_NOT_SUPPORTED("Winograd 4x4 backward filter by rows: %zu threads", threads);
    if (w->s_bytes > ROWS_MAX_S_BYTES)
        return FDNN_NOT_SUPPORTED("Winograd 4x4 backward filter by rows: S is %zu bytes", w->s_bytes);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
steps_applicable(const plan43_t *w, size_t threads)
{
    (void)w, (void)threads;
    return CUDNN_STATUS_SUCCESS;
}

/* The schedules, the first applicable one runs (the last always applies;
 * a declined one leaves its reason, as conv_depthwise_cb.c's).
 * Tile chunks where the plan has them (a function of the shape, as the
 * bits are: their sums are grouped by chunk); otherwise up to 3 threads
 * and S of up to ROWS_MAX_S_BYTES one step of row tasks (rows_task: no
 * barrier per block, no operand crossing cores; 6 rows split 6, 3 + 3,
 * 2 + 2 + 2), else per block three steps over channels and e (more items
 * than rows).  Rows and steps compute every element the same way, so
 * without chunks too the result does not depend on the thread count. */
static const struct schedule43 {
    const char *name;
    cudnnStatus_t (*applicable)(const plan43_t *w, size_t threads);
    void (*run)(ctx43_t *c, size_t threads);
} schedules[] = {
    {"chunks", chunks_applicable, run_chunks},
    {"rows", rows_applicable, run_rows},
    {"steps", steps_applicable, run_steps},
};

cudnnStatus_t
fdnn_wino_bwdf43_execute(const fdnn_conv_exec_t *e)
{
    plan43_t w;
    make_plan(e->p, &w);
    if (w.total_d > MAX_WORKSPACE)
        return FDNN_NOT_SUPPORTED("WINOGRAD_NONFUSED would need %.3g bytes of workspace", w.total_d);
    if (e->workspace_bytes < w.total || e->workspace == NULL)
        return FDNN_BAD_PARAM("workspace is %zu bytes, WINOGRAD_NONFUSED needs %zu", e->workspace_bytes, w.total);
    w.g.x = e->x_in;
    w.g.dy = e->y_in;
    char *ws = e->workspace;
    ctx43_t c = {e,
                 &w,
                 fdnn_isa_config(e->handle->isa)->wino_bwdf,
                 (float *)ws,
                 (float *)(ws + w.s_bytes),
                 (float *)(ws + w.s_bytes + w.x_bytes),
                 w.chunk_bytes / sizeof(float),
                 NULL,
                 0,
                 0,
                 0,
                 true,
                 {0}};
    size_t threads = fdnn_pool_threads(e->pool), si = 0;
    while (schedules[si].applicable(&w, threads) != CUDNN_STATUS_SUCCESS)
        si++;
    WPROF_BEGIN(t_call);
    schedules[si].run(&c, threads);
    WPROF_BEGIN(t_fin);
    fdnn_parallelize_1d(e->pool, finish_task, &c, (size_t)(w.g.groups * w.g.cout), 0);
    WPROF_END(t_fin, WPROF_B_FINISH);
    WPROF_END(t_call, WPROF_B_CALL);
    return CUDNN_STATUS_SUCCESS;
}
