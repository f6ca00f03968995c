/* SPDX-License-Identifier: Apache-2.0
 * Winograd convolution, non-fused (WINOGRAD_NONFUSED, forward and backward
 * data), and what every Winograd solver shares: applicability, geometry,
 * filter transform.
 *
 * For each m x m output tile and each input channel (Lavin & Gray, 2015):
 *   U = G g G^T          (filter, n x n from r x r)
 *   V = B^T d B          (input, n x n from the n x n patch d)
 *   M[e] = sum_i U[e][o][i] * V[e][i][tile]   for each of the n*n entries e
 *   Y = A^T M A          (output, m x m from n x n)
 * (matrices in conv_winograd_tf.h).  3x3 filters use F(2x2,3x3), whose
 * coefficients are 0, +-1 and +-1/2: on small integers the result is exact.
 * 5x5 filters use F(2x2,5x5), n = 6.
 *
 * Non-fused: the filter is transformed once per call into the workspace;
 * tiles go in blocks of about BLOCK_BYTES of V, and the n*n products of a
 * block are GEMMs on the GEMM core (M = U V).  Images run in fixed chunks as
 * in the GEMM engine, chunks in parallel when there are at least as many as
 * threads, else the GEMMs parallel inside: the results do not depend on the
 * thread count. */
#include <stdint.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_winograd.h"
#include "cpu/conv/conv_winograd_engine.h"
#include "cpu/gemm/gemm.h"

#define MAX_CHUNKS 8
/* Tiles per block: V for one block (n*n x cin x tiles) is kept near this
 * many bytes. */
#define BLOCK_BYTES (2u * 1024u * 1024u)
/* Largest workspace a Winograd solver agrees to describe (bytes). */
#define MAX_WORKSPACE ((double)(1ull << 46))

cudnnStatus_t
fdnn_wino_check(const fdnn_conv_problem_t *p, const char *algo, const int *sizes, int count)
{
    if (p->nsp != 2)
        return FDNN_NOT_SUPPORTED("%s handles 2-D convolutions only", algo);
    if (p->dtype != CUDNN_DATA_FLOAT)
        return FDNN_NOT_SUPPORTED("%s supports FLOAT only (cuDNN 8.9 lists no DOUBLE configuration for it)", algo);
    if (p->stride[1] != 1 || p->stride[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1)
        return FDNN_NOT_SUPPORTED("%s needs stride 1 and dilation 1", algo);
    bool ok = false;
    for (int i = 0; i < count; i++)
        ok |= p->ker[1] == sizes[i] && p->ker[2] == sizes[i];
    if (!ok)
        return FDNN_NOT_SUPPORTED("%s needs a %s filter, not %lldx%lld", algo,
                                  count > 1 ? "3x3 or 5x5" : "3x3", (long long)p->ker[1], (long long)p->ker[2]);
    return CUDNN_STATUS_SUCCESS;
}

void
fdnn_wino_geom_init(fdnn_wino_geom_t *g, const fdnn_conv_problem_t *p, int m, const fdnn_conv_exec_t *e)
{
    memset(g, 0, sizeof(*g));
    int r = (int)p->ker[1];
    fdnn_wino_tf_init(&g->tf, m, r);
    int64_t cg = fdnn_conv_cg(p), kg = fdnn_conv_kg(p);
    const fdnn_tensor_t *wt = &p->w;
    g->batch = p->n;
    g->groups = p->g;
    g->w_sh = wt->strides[3];
    g->w_sw = wt->strides[4];
    g->w_sg = kg * wt->strides[0];
    g->alpha = 1;
    if (p->dir == FDNN_CONV_FWD) {
        g->cin = cg;
        g->cout = kg;
        g->ih = p->in[1], g->iw = p->in[2];
        g->oh = p->out[1], g->ow = p->out[2];
        g->ph = p->pad[1], g->pw = p->pad[2];
        g->in_sn = p->x.strides[0], g->in_sc = p->x.strides[1], g->in_sh = p->x.strides[3];
        g->in_sw = p->x.strides[4];
        g->out_sn = p->y.strides[0], g->out_sc = p->y.strides[1], g->out_sh = p->y.strides[3];
        g->out_sw = p->y.strides[4];
        g->w_so = wt->strides[0];
        g->w_si = wt->strides[1];
        g->w_flip = p->flip;
    } else { /* backward data: dx = dy correlated with the rotated, transposed filter */
        g->cin = kg;
        g->cout = cg;
        g->ih = p->out[1], g->iw = p->out[2];
        g->oh = p->in[1], g->ow = p->in[2];
        g->ph = r - 1 - p->pad[1], g->pw = r - 1 - p->pad[2];
        g->in_sn = p->y.strides[0], g->in_sc = p->y.strides[1], g->in_sh = p->y.strides[3];
        g->in_sw = p->y.strides[4];
        g->out_sn = p->x.strides[0], g->out_sc = p->x.strides[1], g->out_sh = p->x.strides[3];
        g->out_sw = p->x.strides[4];
        g->w_so = wt->strides[1];
        g->w_si = wt->strides[0];
        g->w_flip = !p->flip;
    }
    g->th = (g->oh + m - 1) / m;
    g->tw = (g->ow + m - 1) / m;
    g->tiles = g->th * g->tw;
    if (e != NULL) {
        bool fwd = p->dir == FDNN_CONV_FWD;
        g->in = fwd ? e->x_in : e->y_in;
        g->out = e->out;
        g->w = e->w_in;
        g->alpha = (float)e->alpha;
        g->beta = (float)e->beta;
        g->bias = fwd ? e->bias : NULL;
        g->relu = fwd && e->relu;
    }
}

typedef struct ftask {
    const fdnn_wino_geom_t *g;
    float *u;
} ftask_t;

/* Input channels transformed together, one per lane. */
#define FL 16

/* All filter matrices of one output channel (global index oc), FL input
 * channels at a time (the loops over lanes vectorise; zero coefficients of
 * G are skipped, the same ones for every lane). */
static void
filter_channel(void *arg, size_t oc)
{
    const ftask_t *t = arg;
    const fdnn_wino_geom_t *g = t->g;
    const fdnn_wino_tf_t *tf = &g->tf;
    int n = tf->n, r = tf->r;
    int64_t cout_all = g->groups * g->cout, grp = (int64_t)oc / g->cout, o = (int64_t)oc % g->cout;
    int64_t wo = grp * g->w_sg + o * g->w_so; /* in g->w, or g->w16 (half storage) */
    for (int64_t i0 = 0; i0 < g->cin; i0 += FL) {
        int lanes = (int)(g->cin - i0 < FL ? g->cin - i0 : FL);
        float k[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N][FL], tmp[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N][FL];
        for (int y = 0; y < r; y++)
            for (int x = 0; x < r; x++) {
                int fy = g->w_flip ? r - 1 - y : y, fx = g->w_flip ? r - 1 - x : x;
                int64_t src = wo + i0 * g->w_si + fy * g->w_sh + fx * g->w_sw;
                if (g->w16 != NULL)
                    for (int l = 0; l < FL; l++)
                        k[y][x][l] = l < lanes ? fdnn_f16_to_f32(g->w16[src + l * g->w_si]) : 0.0f;
                else
                    for (int l = 0; l < FL; l++)
                        k[y][x][l] = l < lanes ? g->w[src + l * g->w_si] : 0.0f;
            }
        for (int a = 0; a < n; a++) /* tmp = G k */
            for (int x = 0; x < r; x++) {
                float acc[FL] = {0};
                for (int y = 0; y < r; y++) {
                    float c = tf->g[a][y];
                    if (c == 0)
                        continue;
                    for (int l = 0; l < FL; l++)
                        acc[l] += c * k[y][x][l];
                }
                memcpy(tmp[a][x], acc, sizeof(acc));
            }
        for (int a = 0; a < n; a++) /* tmp G^T */
            for (int b = 0; b < n; b++) {
                float acc[FL] = {0};
                for (int x = 0; x < r; x++) {
                    float c = tf->g[b][x];
                    if (c == 0)
                        continue;
                    for (int l = 0; l < FL; l++)
                        acc[l] += c * tmp[a][x][l];
                }
                float *dst = t->u + ((int64_t)(a * n + b) * cout_all + (int64_t)oc) * g->cin + i0;
                for (int l = 0; l < lanes; l++)
                    dst[l] = acc[l];
            }
    }
}

void
fdnn_wino_filter_transform(const fdnn_wino_geom_t *g, float *u, fdnn_pool_t pool)
{
    ftask_t t = {g, u};
    size_t channels = (size_t)(g->groups * g->cout);
    if (pool != NULL)
        fdnn_parallelize_1d(pool, filter_channel, &t, channels, 0);
    else
        for (size_t oc = 0; oc < channels; oc++)
            filter_channel(&t, oc);
}

/* ---- non-fused forward / backward data ----------------------------------- */

typedef struct wplan {
    fdnn_wino_geom_t g;
    int nn;
    int64_t block;
    int nchunks;
    size_t off_chunks, v_bytes, m_bytes, chunk_bytes, total;
    double total_d; /* the same in floating point, for the overflow check */
} wplan_t;

static const int nonfused_sizes[] = {3, 5};

static void
make_plan(const fdnn_conv_problem_t *p, const fdnn_conv_exec_t *e, wplan_t *w)
{
    memset(w, 0, sizeof(*w));
    fdnn_wino_geom_init(&w->g, p, 2, e);
    const fdnn_wino_geom_t *g = &w->g;
    w->nn = g->tf.n * g->tf.n;
    int64_t b = (int64_t)BLOCK_BYTES / (w->nn * g->cin * 4);
    b = b < 16 ? 16 : b - b % 16;
    w->block = b < g->tiles ? b : g->tiles;
    w->nchunks = (int)(g->batch < MAX_CHUNKS ? g->batch : MAX_CHUNKS);
    double u = (double)w->nn * (double)(g->groups * g->cout) * (double)g->cin * 4;
    double v = (double)w->nn * (double)g->cin * (double)w->block * 4;
    double mm = (double)w->nn * (double)g->cout * (double)w->block * 4;
    w->total_d = u + (v + mm) * w->nchunks;
    if (w->total_d > MAX_WORKSPACE)
        return;
    w->off_chunks = fdnn_align_up((size_t)u);
    w->v_bytes = fdnn_align_up((size_t)v);
    w->m_bytes = fdnn_align_up((size_t)mm);
    w->chunk_bytes = w->v_bytes + w->m_bytes;
    w->total = w->off_chunks + w->chunk_bytes * (size_t)w->nchunks;
}

cudnnStatus_t
fdnn_conv_winograd_applicable(const fdnn_conv_problem_t *p)
{
    return fdnn_wino_check(p, "WINOGRAD_NONFUSED", nonfused_sizes, 2);
}

cudnnStatus_t
fdnn_conv_winograd_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    RETURN_IF_ERROR(fdnn_conv_winograd_applicable(p));
    if (p->dir == FDNN_CONV_BWD_FILTER)
        return fdnn_wino_bwd_filter_workspace(p, bytes);
    wplan_t w;
    make_plan(p, NULL, &w);
    if (w.total_d > MAX_WORKSPACE)
        return FDNN_NOT_SUPPORTED("WINOGRAD_NONFUSED would need %.3g bytes of workspace", w.total_d);
    *bytes = w.total;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct wctx {
    const fdnn_conv_exec_t *e;
    const wplan_t *w;
    const float *u;
    fdnn_pool_t pool; /* inside a chunk; NULL when chunks run in parallel */
    volatile int failed;
} wctx_t;

typedef struct in_task {
    const wctx_t *c;
    int64_t b, grp, t0, tb;
    float *v;
} in_task_t;

void
fdnn_wino_input_block(const fdnn_wino_geom_t *g, int64_t b, int64_t ci, int64_t t0, int64_t tb, float *v,
                      int64_t es)
{
    int n = g->tf.n;
    const float *src = g->in + b * g->in_sn + ci * g->in_sc;
    for (int64_t t = 0; t < tb; t += FDNN_WINO_LANES) {
        int cnt = (int)(tb - t < FDNN_WINO_LANES ? tb - t : FDNN_WINO_LANES);
        float d[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N][FDNN_WINO_LANES] = {{{0}}};
        float tv[FDNN_WINO_MAX_N * FDNN_WINO_MAX_N][FDNN_WINO_LANES];
        for (int l = 0; l < cnt; l++) {
            int64_t tile = t0 + t + l;
            int64_t y0 = (tile / g->tw) * g->tf.m - g->ph, x0 = (tile % g->tw) * g->tf.m - g->pw;
            bool inside = y0 >= 0 && x0 >= 0 && y0 + n <= g->ih && x0 + n <= g->iw;
            for (int y = 0; y < n; y++)
                for (int x = 0; x < n; x++) {
                    int64_t yy = y0 + y, xx = x0 + x;
                    if (inside || (yy >= 0 && yy < g->ih && xx >= 0 && xx < g->iw))
                        d[y][x][l] = src[yy * g->in_sh + xx * g->in_sw];
                }
        }
        fdnn_wino_input_lanes(&g->tf, d, tv);
        for (int e = 0; e < n * n; e++)
            for (int l = 0; l < cnt; l++)
                v[e * es + t + l] = tv[e][l];
    }
}

/* V[e][i][t] = (B^T d B)[e] for the tiles [t0, t0 + tb) of input channel i. */
static void
input_channel(void *arg, size_t i)
{
    const in_task_t *a = arg;
    const fdnn_wino_geom_t *g = &a->c->w->g;
    fdnn_wino_input_block(g, a->b, a->grp * g->cin + (int64_t)i, a->t0, a->tb, a->v + (int64_t)i * a->tb,
                          g->cin * a->tb);
}

/* Output tiles [t0, t0 + tb) of every channel of group grp = A^T M A. */
static void
output_block(const wctx_t *c, int64_t b, int64_t grp, int64_t t0, int64_t tb, const float *m)
{
    const fdnn_wino_geom_t *g = &c->w->g;
    int n = g->tf.n, mt = g->tf.m;
    int64_t es = g->cout * tb;
    for (int64_t o = 0; o < g->cout; o++)
        for (int64_t t = 0; t < tb; t += FDNN_WINO_LANES) {
            int cnt = (int)(tb - t < FDNN_WINO_LANES ? tb - t : FDNN_WINO_LANES);
            float mm[FDNN_WINO_MAX_N * FDNN_WINO_MAX_N][FDNN_WINO_LANES] = {{0}};
            float y[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N][FDNN_WINO_LANES];
            const float *src = m + o * tb + t;
            for (int e = 0; e < n * n; e++)
                for (int l = 0; l < cnt; l++)
                    mm[e][l] = src[e * es + l];
            fdnn_wino_output_lanes(&g->tf, mm, y);
            for (int l = 0; l < cnt; l++) {
                float yt[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N];
                for (int i = 0; i < mt; i++)
                    for (int j = 0; j < mt; j++)
                        yt[i][j] = y[i][j][l];
                fdnn_wino_store_tile(g, b, grp * g->cout + o, t0 + t + l, yt);
            }
        }
}

static void
chunk(void *arg, size_t ci)
{
    wctx_t *c = arg;
    const wplan_t *w = c->w;
    const fdnn_wino_geom_t *g = &w->g;
    const fdnn_conv_exec_t *e = c->e;
    char *buf = (char *)e->workspace + w->off_chunks + ci * w->chunk_bytes;
    float *v = (float *)buf, *m = (float *)(buf + w->v_bytes);
    int64_t cout_all = g->groups * g->cout;
    int64_t n0 = g->batch * (int64_t)ci / w->nchunks, n1 = g->batch * (int64_t)(ci + 1) / w->nchunks;
    for (int64_t b = n0; b < n1; b++)
        for (int64_t grp = 0; grp < g->groups; grp++)
            for (int64_t t0 = 0; t0 < g->tiles; t0 += w->block) {
                int64_t tb = g->tiles - t0 < w->block ? g->tiles - t0 : w->block;
                in_task_t a = {c, b, grp, t0, tb, v};
                if (c->pool != NULL && g->cin > 1)
                    fdnn_parallelize_1d(c->pool, input_channel, &a, (size_t)g->cin, 0);
                else
                    for (int64_t i = 0; i < g->cin; i++)
                        input_channel(&a, (size_t)i);
                for (int ee = 0; ee < w->nn; ee++) {
                    fdnn_sgemm_args_t ga = {
                        .m = (size_t)g->cout,
                        .n = (size_t)tb,
                        .k = (size_t)g->cin,
                        .alpha = 1,
                        .a = c->u + (ee * cout_all + grp * g->cout) * g->cin,
                        .lda = (size_t)g->cin,
                        .b = v + ee * g->cin * tb,
                        .ldb = (size_t)tb,
                        .beta = 0,
                        .c = m + ee * g->cout * tb,
                        .ldc = (size_t)tb,
                    };
                    if (!fdnn_sgemm(&ga, c->pool, e->handle->isa, NULL, 0))
                        c->failed = 1;
                }
                output_block(c, b, grp, t0, tb, m);
            }
}

cudnnStatus_t
fdnn_conv_winograd_execute(const fdnn_conv_exec_t *e)
{
    RETURN_IF_ERROR(fdnn_conv_winograd_applicable(e->p));
    if (e->p->dir == FDNN_CONV_BWD_FILTER)
        return fdnn_wino_bwd_filter_execute(e);
    wplan_t w;
    make_plan(e->p, e, &w);
    if (w.total_d > MAX_WORKSPACE)
        return FDNN_NOT_SUPPORTED("WINOGRAD_NONFUSED would need %.3g bytes of workspace", w.total_d);
    if (e->workspace_bytes < w.total || e->workspace == NULL)
        return FDNN_BAD_PARAM("workspace is %zu bytes, WINOGRAD_NONFUSED needs %zu", e->workspace_bytes, w.total);
    wctx_t c = {e, &w, (const float *)e->workspace, NULL, 0};
    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    bool par = threads > 1 && (size_t)w.nchunks >= threads;
    c.pool = par ? NULL : e->pool;
    fdnn_wino_filter_transform(&w.g, (float *)e->workspace, e->pool);
    if (par)
        fdnn_parallelize_1d(e->pool, chunk, &c, (size_t)w.nchunks, 0);
    else
        for (int i = 0; i < w.nchunks; i++)
            chunk(&c, (size_t)i);
    if (c.failed)
        return FDNN_ALLOC_FAILED("the GEMM core could not allocate its buffers");
    return CUDNN_STATUS_SUCCESS;
}
