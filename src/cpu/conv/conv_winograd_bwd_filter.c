/* SPDX-License-Identifier: Apache-2.0
 * Winograd backward filter, non-fused (BWD_FILTER_ALGO_WINOGRAD_NONFUSED),
 * on 2x2 dy tiles: the 5x5 filters (3x3 ones take 4x4 dy tiles,
 * conv_winograd_bwd_filter43.c).
 *
 * The filter gradient of one group is a correlation of x with dy:
 *   dw[k][c][ky][kx] = sum_{b, y, x} dy[b, k, y, x] * x[b, c, y - pad + ky, x - pad + kx]
 * (cross-correlation; CONVOLUTION mode stores it with ky, kx reversed).
 * Cutting dy into 2x2 tiles, each tile contributes an r x r correlation of a
 * 2x2 "filter" (the dy tile) with an n x n patch of x, n = r + 1: F(r, 2),
 * which uses the matrices of F(2, r) with the roles of A and G swapped
 * (conv_winograd_tf.h):
 *   dw += G^T [ (A dy A^T) .* (B^T x B) ] G
 * The products are summed over tiles and images in the Winograd domain,
 * one GEMM per entry e of a tile block:
 *   S[e][k][c] += D[e][k][t] * X[e][c][t]
 * and the n x n sums go back to r x r once at the end.
 *
 * Threads and determinism as in the GEMM engine: images in min(N, 8) fixed
 * chunks, each with its own S; chunks run in parallel when there are at
 * least as many as threads, else one after another with the GEMMs and
 * transforms parallel inside; the chunk sums are added in chunk order. */
#include <stdint.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_winograd_engine.h"
#include "cpu/gemm/gemm.h"

#define MAX_CHUNKS 8
#define BLOCK_BYTES (2u * 1024u * 1024u)
#define MAX_WORKSPACE ((double)(1ull << 46))
#define TILE 2 /* dy tile: F(2x2, rxr) */

typedef struct bplan {
    fdnn_wino_geom_t g; /* in = x, cin = C/g, cout = K/g; tiles over dy */
    int nn;
    int64_t block;
    int nchunks;
    size_t s_bytes, x_bytes, d_bytes, chunk_bytes, total;
    double total_d;
} bplan_t;

static void
make_plan(const fdnn_conv_problem_t *p, bplan_t *w)
{
    memset(w, 0, sizeof(*w));
    fdnn_wino_geom_t *g = &w->g;
    fdnn_wino_tf_init(&g->tf, TILE, (int)p->ker[1]);
    g->batch = p->n;
    g->groups = p->g;
    g->cin = fdnn_conv_cg(p);
    g->cout = fdnn_conv_kg(p);
    g->ih = p->in[1], g->iw = p->in[2];
    g->oh = p->out[1], g->ow = p->out[2];
    g->ph = p->pad[1], g->pw = p->pad[2];
    g->in_sn = p->x.strides[0], g->in_sc = p->x.strides[1], g->in_sh = p->x.strides[3];
    g->in_sw = p->x.strides[4];
    g->th = (g->oh + TILE - 1) / TILE;
    g->tw = (g->ow + TILE - 1) / TILE;
    g->tiles = g->th * g->tw;
    w->nn = g->tf.n * g->tf.n;
    int64_t b = (int64_t)BLOCK_BYTES / (w->nn * (g->cin + g->cout) * 4);
    b = b < 16 ? 16 : b - b % 16;
    w->block = b < g->tiles ? b : g->tiles;
    w->nchunks = (int)(g->batch < MAX_CHUNKS ? g->batch : MAX_CHUNKS);
    double s = (double)w->nn * (double)p->k * (double)g->cin * 4;
    double x = (double)w->nn * (double)g->cin * (double)w->block * 4;
    double d = (double)w->nn * (double)g->cout * (double)w->block * 4;
    w->total_d = (s + x + d) * w->nchunks;
    if (w->total_d > MAX_WORKSPACE)
        return;
    w->s_bytes = fdnn_align_up((size_t)s);
    w->x_bytes = fdnn_align_up((size_t)x);
    w->d_bytes = fdnn_align_up((size_t)d);
    w->chunk_bytes = w->s_bytes + w->x_bytes + w->d_bytes;
    w->total = w->chunk_bytes * (size_t)w->nchunks;
}

cudnnStatus_t
fdnn_wino_bwd_filter_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    if (p->ker[1] == 3) /* 4x4 dy tiles (conv_winograd_bwd_filter43.c) */
        return fdnn_wino_bwdf43_workspace(p, bytes);
    bplan_t w;
    make_plan(p, &w);
    if (w.total_d > MAX_WORKSPACE)
        return FDNN_NOT_SUPPORTED("WINOGRAD_NONFUSED would need %.3g bytes of workspace", w.total_d);
    *bytes = w.total;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct bctx {
    const fdnn_conv_exec_t *e;
    const bplan_t *w;
    const float *dy;
    fdnn_pool_t pool; /* inside a chunk; NULL when chunks run in parallel */
    volatile int failed;
} bctx_t;

typedef struct tf_task {
    const bctx_t *c;
    int64_t b, grp, t0, tb;
    float *x, *d;
} tf_task_t;

/* X[e][i][t] = (B^T x B)[e] over the tiles of the block, channel i. */
static void
x_channel(void *arg, size_t i)
{
    const tf_task_t *a = arg;
    const fdnn_wino_geom_t *g = &a->c->w->g;
    fdnn_wino_input_block(g, a->b, a->grp * g->cin + (int64_t)i, a->t0, a->tb, a->x + (int64_t)i * a->tb,
                          g->cin * a->tb);
}

/* D[e][k][t] = (A dy A^T)[e] over the tiles of the block, channel k,
 * FDNN_WINO_LANES tiles at a time (zero coefficients skipped). */
static void
dy_channel(void *arg, size_t k)
{
    enum { L = FDNN_WINO_LANES };
    const tf_task_t *a = arg;
    const bctx_t *c = a->c;
    const fdnn_wino_geom_t *g = &c->w->g;
    const fdnn_conv_problem_t *p = c->e->p;
    const fdnn_wino_tf_t *tf = &g->tf;
    int n = tf->n;
    int64_t es = g->cout * a->tb;
    const float *src = c->dy + a->b * p->y.strides[0] + (a->grp * g->cout + (int64_t)k) * p->y.strides[1];
    float *out = a->d + (int64_t)k * a->tb;
    for (int64_t t = 0; t < a->tb; t += L) {
        int cnt = (int)(a->tb - t < L ? a->tb - t : L);
        float dy[TILE][TILE][L] = {{{0}}}, tmp[FDNN_WINO_MAX_N][TILE][L];
        for (int l = 0; l < cnt; l++) {
            int64_t tile = a->t0 + t + l, y0 = (tile / g->tw) * TILE, x0 = (tile % g->tw) * TILE;
            for (int i = 0; i < TILE; i++)
                for (int j = 0; j < TILE; j++) {
                    int64_t y = y0 + i, x = x0 + j;
                    if (y < g->oh && x < g->ow)
                        dy[i][j][l] = src[y * p->y.strides[3] + x * p->y.strides[4]];
                }
        }
        for (int u = 0; u < n; u++) /* tmp = A dy */
            for (int j = 0; j < TILE; j++) {
                float acc[L] = {0};
                for (int i = 0; i < TILE; i++) {
                    float cf = tf->at[i][u];
                    if (cf == 0)
                        continue;
                    for (int l = 0; l < L; l++)
                        acc[l] += cf * dy[i][j][l];
                }
                memcpy(tmp[u][j], acc, sizeof(acc));
            }
        for (int u = 0; u < n; u++) /* tmp A^T */
            for (int v = 0; v < n; v++) {
                float acc[L] = {0};
                for (int j = 0; j < TILE; j++) {
                    float cf = tf->at[j][v];
                    if (cf == 0)
                        continue;
                    for (int l = 0; l < L; l++)
                        acc[l] += cf * tmp[u][j][l];
                }
                float *dst = out + (u * n + v) * es + t;
                for (int l = 0; l < cnt; l++)
                    dst[l] = acc[l];
            }
    }
}

static void
chunk(void *arg, size_t ci)
{
    bctx_t *c = arg;
    const bplan_t *w = c->w;
    const fdnn_wino_geom_t *g = &w->g;
    const fdnn_conv_exec_t *e = c->e;
    int64_t kall = g->groups * g->cout;
    char *buf = (char *)e->workspace + ci * w->chunk_bytes;
    float *s = (float *)buf, *x = (float *)(buf + w->s_bytes), *d = (float *)(buf + w->s_bytes + w->x_bytes);
    int64_t n0 = g->batch * (int64_t)ci / w->nchunks, n1 = g->batch * (int64_t)(ci + 1) / w->nchunks;
    for (int64_t b = n0; b < n1; b++)
        for (int64_t grp = 0; grp < g->groups; grp++)
            for (int64_t t0 = 0; t0 < g->tiles; t0 += w->block) {
                int64_t tb = g->tiles - t0 < w->block ? g->tiles - t0 : w->block;
                tf_task_t a = {c, b, grp, t0, tb, x, d};
                if (c->pool != NULL) {
                    fdnn_parallelize_1d(c->pool, x_channel, &a, (size_t)g->cin, 0);
                    fdnn_parallelize_1d(c->pool, dy_channel, &a, (size_t)g->cout, 0);
                } else {
                    for (int64_t i = 0; i < g->cin; i++)
                        x_channel(&a, (size_t)i);
                    for (int64_t k = 0; k < g->cout; k++)
                        dy_channel(&a, (size_t)k);
                }
                bool first = b == n0 && t0 == 0;
                for (int ee = 0; ee < w->nn; ee++) {
                    fdnn_sgemm_args_t ga = {
                        .trans_b = true,
                        .m = (size_t)g->cout,
                        .n = (size_t)g->cin,
                        .k = (size_t)tb,
                        .alpha = 1,
                        .a = d + ee * g->cout * tb,
                        .lda = (size_t)tb,
                        .b = x + ee * g->cin * tb,
                        .ldb = (size_t)tb,
                        .beta = first ? 0.0f : 1.0f,
                        .c = s + (ee * kall + grp * g->cout) * g->cin,
                        .ldc = (size_t)g->cin,
                    };
                    if (!fdnn_sgemm(&ga, c->pool, e->handle->isa, NULL, 0))
                        c->failed = 1;
                }
            }
}

typedef struct fin_task {
    const bctx_t *c;
} fin_task_t;

/* Output channel k: adds the chunk sums in chunk order, transforms each
 * n x n sum back to r x r and stores it through alpha/beta. */
static void
finish_channel(void *arg, size_t k)
{
    const fin_task_t *a = arg;
    const bctx_t *c = a->c;
    const bplan_t *w = c->w;
    const fdnn_wino_geom_t *g = &w->g;
    const fdnn_wino_tf_t *tf = &g->tf;
    const fdnn_conv_exec_t *e = c->e;
    const fdnn_tensor_t *wt = &e->p->w;
    int n = tf->n, r = tf->r;
    int64_t kall = g->groups * g->cout;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    bool flip = e->p->flip;
    float *dw = (float *)e->out + (int64_t)k * wt->strides[0];
    for (int64_t i = 0; i < g->cin; i++) {
        float m[FDNN_WINO_MAX_N * FDNN_WINO_MAX_N], tmp[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N];
        for (int ee = 0; ee < w->nn; ee++) {
            int64_t off = (ee * kall + (int64_t)k) * g->cin + i;
            float sum = ((const float *)e->workspace)[off];
            for (int ch = 1; ch < w->nchunks; ch++)
                sum += ((const float *)((const char *)e->workspace + (size_t)ch * w->chunk_bytes))[off];
            m[ee] = sum;
        }
        for (int y = 0; y < r; y++) /* tmp = G^T m */
            for (int v = 0; v < n; v++) {
                float s = 0;
                for (int u = 0; u < n; u++)
                    s += tf->g[u][y] * m[u * n + v];
                tmp[y][v] = s;
            }
        for (int y = 0; y < r; y++) /* tmp G */
            for (int x = 0; x < r; x++) {
                float s = 0;
                for (int v = 0; v < n; v++)
                    s += tmp[y][v] * tf->g[v][x];
                int fy = flip ? r - 1 - y : y, fx = flip ? r - 1 - x : x;
                float *dst = dw + i * wt->strides[1] + fy * wt->strides[3] + fx * wt->strides[4];
                float val = alpha * s;
                if (beta != 0)
                    val += beta * *dst;
                *dst = val;
            }
    }
}

cudnnStatus_t
fdnn_wino_bwd_filter_execute(const fdnn_conv_exec_t *e)
{
    if (e->p->ker[1] == 3)
        return fdnn_wino_bwdf43_execute(e);
    bplan_t w;
    make_plan(e->p, &w);
    if (w.total_d > MAX_WORKSPACE)
        return FDNN_NOT_SUPPORTED("WINOGRAD_NONFUSED would need %.3g bytes of workspace", w.total_d);
    if (e->workspace_bytes < w.total || e->workspace == NULL)
        return FDNN_BAD_PARAM("workspace is %zu bytes, WINOGRAD_NONFUSED needs %zu", e->workspace_bytes, w.total);
    w.g.in = e->x_in;
    bctx_t c = {e, &w, e->y_in, NULL, 0};
    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    bool par = threads > 1 && (size_t)w.nchunks >= threads;
    c.pool = par ? NULL : e->pool;
    if (par)
        fdnn_parallelize_1d(e->pool, chunk, &c, (size_t)w.nchunks, 0);
    else
        for (int i = 0; i < w.nchunks; i++)
            chunk(&c, (size_t)i);
    if (c.failed)
        return FDNN_ALLOC_FAILED("the GEMM core could not allocate its buffers");
    fin_task_t f = {&c};
    size_t kall = (size_t)(w.g.groups * w.g.cout);
    if (e->pool != NULL)
        fdnn_parallelize_1d(e->pool, finish_channel, &f, kall, 0);
    else
        for (size_t k = 0; k < kall; k++)
            finish_channel(&f, k);
    return CUDNN_STATUS_SUCCESS;
}
