/* SPDX-License-Identifier: Apache-2.0
 * HALF and BFLOAT16 RNNs: the one place that stages their operands for the
 * FP32 kernels (rnn_t.inc via rnn_f32.c); contract in rnn.h.
 *
 * Workspace of a staged call: the FP32 kernels' workspace (its size for the
 * call's mode, fdnn_rnn_kernel_ws_bytes), then FP32 staging buffers, one
 * bound for every call (the forward, backward data and backward weights
 * each use a subset):
 *   w   weight elements           weights, or dw for backward weights
 *   a   TB * input                x (forward, weights), dx (backward data)
 *   b   TB * dirs * P             y (forward), dy (backward data)
 *   h0..h2  layers*dirs * B * P   hx, hy / dhy, dhx
 *   c0..c2  layers*dirs * B * H   cx, cy / dcy, dcx
 * Inputs are widened into them (an absent input stays NULL), outputs are
 * first loaded from the user's buffer and stored back with
 * fdnn_stage_store, which writes only what the kernel changed.  The
 * reserve space is the FP32 kernels' own. */
#include "cpu/rnn/rnn_internal.h"
#include "cpu/rnn/stage_io.h"

#include "core/ckd.h"

bool
fdnn_rnn_stage_elems(const fdnn_rnn_problem_t *p, int64_t *n)
{
    const int64_t tb = TB(p);
    int64_t states = 0;
    *n = fdnn_rnn_weight_elems(p);
    return fdnn_ckd_madd_i64(n, tb, p->input) && fdnn_ckd_madd_i64(n, tb, p->dirs * p->proj) &&
           fdnn_ckd_mul_i64((int64_t)p->layers * p->dirs, p->B, &states) &&
           fdnn_ckd_madd_i64(n, 3 * states, p->proj + p->hidden);
}

/* Vectors in the user's x/y buffers: the packed layout holds only the
 * active (t, b), the unpacked ones T * B. */
static int64_t
user_rows(const fdnn_rnn_problem_t *p)
{
    if (p->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
        return TB(p);
    int64_t n = 0;
    for (int64_t b = 0; b < p->B; b++)
        n += p->lens[b];
    return n;
}

typedef struct stage {
    fdnn_rnn_problem_t p32; /* the problem the FP32 kernels see */
    float *ws;              /* the kernels' workspace */
    float *w, *a, *b, *h[3], *c[3];
    int64_t nw, na, nb, nh, nc; /* elements of the user's buffers */
} stage_t;

static void
carve(const fdnn_rnn_problem_t *p, void *ws, bool training, stage_t *s)
{
    s->p32 = *p;
    s->p32.dtype = CUDNN_DATA_FLOAT;
    s->p32.round_half = p->dtype == CUDNN_DATA_HALF && p->mprec == CUDNN_DATA_HALF;
    s->ws = ws;
    /* Sizes were checked by fdnn_rnn_seq_sizes_fit (with the staging). */
    const int64_t tb = TB(p), states = (int64_t)p->layers * p->dirs * p->B;
    float *q = (float *)((char *)ws + fdnn_rnn_kernel_ws_bytes(p, training));
    s->nw = fdnn_rnn_weight_elems(p);
    s->w = q, q += s->nw;
    s->a = q, q += tb * p->input;
    s->b = q, q += tb * p->dirs * p->proj;
    for (int i = 0; i < 3; i++)
        s->h[i] = q, q += states * p->proj;
    for (int i = 0; i < 3; i++)
        s->c[i] = q, q += states * p->hidden;
    s->na = user_rows(p) * p->input;
    s->nb = user_rows(p) * p->dirs * p->proj;
    s->nh = states * p->proj;
    s->nc = states * p->hidden;
}

bool
fdnn_rnn_bf16_products(const fdnn_rnn_problem_t *p, fdnn_isa_t isa)
{
    bool allowed = p->dtype == CUDNN_DATA_BFLOAT16 || (p->dtype == CUDNN_DATA_HALF && p->tensor_op);
    return allowed && fdnn_gemm_bf16dot_kernel(isa) == FDNN_BF16DOT_AVX512_BF16;
}

/* With BF16 products, points the FP32 kernels' problem at lp, whose weight
 * operands are the user's w16 (NULL when the call reads no weights). */
static void
set_lowp(stage_t *s, fdnn_isa_t isa, const fdnn_rnn_problem_t *p, const void *w16, fdnn_rnn_lowp_t *lp)
{
    if (!fdnn_rnn_bf16_products(p, isa))
        return;
    *lp = (fdnn_rnn_lowp_t){.w32 = s->w, .w16 = w16, .nw = w16 ? s->nw : 0,
                            .wtype = p->dtype == CUDNN_DATA_HALF ? FDNN_GEMM_F16 : FDNN_GEMM_BF16};
    s->p32.lowp = lp;
}

/* The staging buffer of an input, or NULL when the input is absent. */
static float *
in_pool(fdnn_pool_t pool, cudnnDataType_t dt, const void *user, int64_t n, float *buf)
{
    if (user == NULL)
        return NULL;
    fdnn_stage_load_pool(pool, dt, user, n, buf);
    return buf;
}

#define in(dt, user, n, buf) in_pool(ctx->pool, (dt), (user), (n), (buf))

/* The weights for the FP32 kernels: all widened, or with BF16 products
 * (s->p32.lowp) only the biases, the one part the kernels then read in
 * FP32 (every matrix is a GEMM operand, read from the user's buffer). */
static void
stage_weights(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *w, stage_t *s)
{
    if (s->p32.lowp == NULL || w == NULL) {
        in(p->dtype, w, s->nw, s->w);
        return;
    }
    for (int pseudo = 0; pseudo < p->layers * p->dirs; pseudo++) {
        fdnn_rnn_wofs_t o;
        fdnn_rnn_weight_offsets(p, pseudo, &o);
        const int64_t parts[2] = {o.bw, o.br};
        for (int i = 0; i < 2; i++)
            if (parts[i] >= 0)
                fdnn_stage_load_pool(ctx->pool, p->dtype, (const uint16_t *)w + parts[i], p->gates * p->hidden,
                                     s->w + parts[i]);
    }
}

bool
fdnn_rnn_forward_staged(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *x, void *y,
                        const void *hx, void *hy, const void *cx, void *cy, const void *w, void *ws, void *reserve)
{
    stage_t s;
    const cudnnDataType_t dt = p->dtype;
    carve(p, ws, reserve != NULL, &s);
    fdnn_rnn_lowp_t lp;
    set_lowp(&s, ctx->isa, p, w, &lp);
    stage_weights(ctx, p, w, &s);
    in(dt, x, s.na, s.a);
    float *y32 = in(dt, y, s.nb, s.b);
    float *hx32 = in(dt, hx, s.nh, s.h[0]), *hy32 = in(dt, hy, s.nh, s.h[1]);
    float *cx32 = in(dt, cx, s.nc, s.c[0]), *cy32 = in(dt, cy, s.nc, s.c[1]);
    if (!fdnn_rnn_forward_f32(ctx, &s.p32, s.a, y32, hx32, hy32, cx32, cy32, s.w, s.ws, reserve))
        return false;
    fdnn_stage_store_pool(ctx->pool, dt, y32, s.nb, y);
    fdnn_stage_store_pool(ctx->pool, dt, hy32, s.nh, hy);
    fdnn_stage_store_pool(ctx->pool, dt, cy32, s.nc, cy);
    return true;
}

bool
fdnn_rnn_backward_data_staged(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *dy, void *dx,
                              const void *hx, const void *dhy, void *dhx, const void *cx, const void *dcy, void *dcx,
                              const void *w, void *ws, void *reserve)
{
    stage_t s;
    const cudnnDataType_t dt = p->dtype;
    carve(p, ws, true, &s);
    fdnn_rnn_lowp_t lp;
    set_lowp(&s, ctx->isa, p, w, &lp);
    stage_weights(ctx, p, w, &s);
    in(dt, dy, s.nb, s.b);
    float *dx32 = in(dt, dx, s.na, s.a);
    float *hx32 = in(dt, hx, s.nh, s.h[0]), *dhy32 = in(dt, dhy, s.nh, s.h[1]), *dhx32 = in(dt, dhx, s.nh, s.h[2]);
    float *cx32 = in(dt, cx, s.nc, s.c[0]), *dcy32 = in(dt, dcy, s.nc, s.c[1]), *dcx32 = in(dt, dcx, s.nc, s.c[2]);
    if (!fdnn_rnn_backward_data_f32(ctx, &s.p32, s.b, dx32, hx32, dhy32, dhx32, cx32, dcy32, dcx32, s.w, s.ws,
                                    reserve))
        return false;
    fdnn_stage_store_pool(ctx->pool, dt, dx32, s.na, dx);
    fdnn_stage_store_pool(ctx->pool, dt, dhx32, s.nh, dhx);
    fdnn_stage_store_pool(ctx->pool, dt, dcx32, s.nc, dcx);
    return true;
}

bool
fdnn_rnn_backward_weights_staged(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, bool add, const void *x,
                                 const void *hx, void *dw, void *ws, const void *reserve)
{
    stage_t s;
    const cudnnDataType_t dt = p->dtype;
    carve(p, ws, true, &s);
    /* dw is loaded in both modes (SET overwrites every element the
     * gradients cover; the load keeps the store from touching the rest). */
    in(dt, dw, s.nw, s.w);
    in(dt, x, s.na, s.a);
    float *hx32 = in(dt, hx, s.nh, s.h[0]);
    fdnn_rnn_lowp_t lp;
    set_lowp(&s, ctx->isa, p, NULL, &lp);
    if (!fdnn_rnn_backward_weights_f32(ctx, &s.p32, add, s.a, hx32, s.w, s.ws, reserve))
        return false;
    fdnn_stage_store_pool(ctx->pool, dt, s.w, s.nw, dw);
    return true;
}
