/* SPDX-License-Identifier: Apache-2.0
 * Batch normalisation: the three operations in terms of the pass engine.
 * See bn.h for the formulas.
 *
 * Statistics are taken in one pass over x: each feature's values are summed
 * after subtracting a shift (the feature's first element), in float64, which
 * keeps the one-pass variance free of cancellation for any data whose mean
 * is not many orders of magnitude larger than its spread. */
#include "cpu/batchnorm/bn.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/fail.h"
#include "core/memory.h"
#include "cpu/batchnorm/bn_engine.h"
#include "cpu/batchnorm/bn_fused.h"
#include "cpu/batchnorm/bn_stats.h"
#include "cpu/simd/cvt.h"

enum { F_A, F_B, F_C, F_S1, F_S2, F_MEAN, F_INV, F_SCALE, F_COUNT };

/* The reserve space of the fused ReLU: a header of MASK_HEADER bytes, then
 * one byte per element of x, 1 where the ReLU passed.  The bytes are in
 * packed NCHW order, or in packed channels-last order (n, spatial..., c)
 * when the forward's x has unit channel stride, so that an NHWC mask row
 * lies next to its x row.  The header records the order: the backward
 * follows it even when its descriptors' strides differ from the forward's
 * (and takes NCHW for a reserve space the forward did not write, whose
 * bytes cuDNN leaves undefined too). */
#define MASK_HEADER 64
static const char mask_tag_channels_last[8] = "FDBN-CL";

typedef enum mask_order { MASK_NCHW, MASK_CHANNELS_LAST } mask_order_t;

/* The order the forward writes for x (see above). */
static mask_order_t
mask_order_for(const fdnn_tensor_t *x)
{
    return x->ndim >= 3 && x->dims[1] > 1 && x->strides[1] == 1 ? MASK_CHANNELS_LAST : MASK_NCHW;
}

static mask_order_t
mask_order_read(const void *reserve)
{
    return memcmp(reserve, mask_tag_channels_last, sizeof(mask_tag_channels_last)) == 0 ? MASK_CHANNELS_LAST
                                                                                            : MASK_NCHW;
}

typedef struct setup {
    bn_walk_t w;
    int64_t F; /* features */
    int64_t M; /* samples per feature */
    double *f[F_COUNT];
    void *engine;
    void *fused; /* the fused paths' scratch (bn_fused.h) */
} setup_t;

static int64_t
spatial_size(const fdnn_tensor_t *x)
{
    int64_t s = 1;
    for (int d = 2; d < x->ndim; d++)
        s *= x->dims[d];
    return s;
}

/* Element offset, under `strides`, of feature f's first element (n = 0 and,
 * in spatial mode, spatial index 0). */
static int64_t
feature_offset(const fdnn_bn_problem_t *p, int64_t f, const int64_t *strides)
{
    if (!p->per_activation)
        return f * strides[1];
    int64_t off = 0;
    for (int d = p->x.ndim - 1; d >= 2; d--) {
        off += (f % p->x.dims[d]) * strides[d];
        f /= p->x.dims[d];
    }
    return off + f * strides[1];
}

static void
set_strides(bn_walk_t *w, int t, const fdnn_tensor_t *tensor)
{
    for (int d = 0; d < w->nd; d++)
        w->stride[t][d] = tensor->strides[d];
}

static cudnnStatus_t
prepare(cudnnHandle_t handle, const fdnn_bn_problem_t *p, mask_order_t order, bool y, bool z, bool dy, bool dx,
        setup_t *s)
{
    memset(s, 0, sizeof(*s));
    const fdnn_tensor_t *x = &p->x;
    bn_walk_t *w = &s->w;
    w->nd = x->ndim;
    int64_t S = spatial_size(x);
    s->F = p->per_activation ? x->dims[1] * S : x->dims[1];
    s->M = p->per_activation ? x->dims[0] : x->dims[0] * S;
    w->features = s->F;
    int64_t packed = 1, fpacked = 1;
    if (p->relu && order == MASK_CHANNELS_LAST) {
        w->stride[BN_MASK][1] = 1;
        packed = x->dims[1];
    }
    for (int d = w->nd - 1; d >= 0; d--) {
        w->dims[d] = x->dims[d];
        /* The ReLU mask in the order of the reserve space (MASK_HEADER). */
        if (p->relu && !(order == MASK_CHANNELS_LAST && d == 1)) {
            w->stride[BN_MASK][d] = packed;
            packed *= x->dims[d];
        }
        if (d == 0 || (d >= 2 && !p->per_activation)) {
            w->fstride[d] = 0;
        } else {
            w->fstride[d] = fpacked;
            fpacked *= x->dims[d];
        }
    }
    set_strides(w, BN_X, x);
    if (y)
        set_strides(w, BN_Y, &p->y);
    if (z)
        set_strides(w, BN_Z, &p->z);
    if (dy)
        set_strides(w, BN_DY, &p->dy);
    if (dx)
        set_strides(w, BN_DX, &p->dx);

    fdnn_carver_t c = {NULL, 0};
    for (int i = 0; i < F_COUNT; i++)
        fdnn_carve(&c, (size_t)s->F * sizeof(double));
    fdnn_carve(&c, fdnn_bn_engine_scratch(w));
    size_t fused = fdnn_bn_fused_scratch(p), bfused = dx ? fdnn_bn_fused_backward_scratch(p) : 0;
    fused = fused > bfused ? fused : bfused;
    fdnn_carve(&c, fused);
    c.base = fdnn_handle_scratch(handle, c.used);
    if (c.base == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    c.used = 0;
    for (int i = 0; i < F_COUNT; i++)
        s->f[i] = fdnn_carve(&c, (size_t)s->F * sizeof(double));
    s->engine = fdnn_carve(&c, fdnn_bn_engine_scratch(w));
    s->fused = fdnn_carve(&c, fused);
    return CUDNN_STATUS_SUCCESS;
}

static void
gather(const fdnn_bn_problem_t *p, int64_t F, const void *src, double *dst)
{
    for (int64_t f = 0; f < F; f++) {
        int64_t off = feature_offset(p, f, p->param.strides);
        dst[f] = p->param.dtype == CUDNN_DATA_DOUBLE ? ((const double *)src)[off] : ((const float *)src)[off];
    }
}

/* dst = alpha * v + beta * dst; beta == 0 never reads dst. */
static void
scatter(const fdnn_bn_problem_t *p, int64_t F, void *dst, const double *v, double alpha, double beta)
{
    for (int64_t f = 0; f < F; f++) {
        int64_t off = feature_offset(p, f, p->param.strides);
        if (p->param.dtype == CUDNN_DATA_DOUBLE) {
            double *d = (double *)dst + off;
            *d = beta == 0.0 ? alpha * v[f] : alpha * v[f] + beta * *d;
        } else {
            float *d = (float *)dst + off;
            *d = (float)(beta == 0.0 ? alpha * v[f] : alpha * v[f] + beta * (double)*d);
        }
    }
}

static double
load_one(const void *base, cudnnDataType_t dt, int64_t off)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: return ((const double *)base)[off];
    case CUDNN_DATA_HALF: return fdnn_f16_to_f32(((const uint16_t *)base)[off]);
    case CUDNN_DATA_BFLOAT16: return fdnn_bf16_to_f32(((const uint16_t *)base)[off]);
    default: return ((const float *)base)[off];
    }
}

/* Mean and inverse standard deviation of every feature of x, in one pass. */
static void
statistics(cudnnHandle_t handle, const fdnn_bn_problem_t *p, const setup_t *s, const void *x, double *mean,
           double *var, double *inv)
{
    double *shift = s->f[F_A];
    for (int64_t f = 0; f < s->F; f++)
        shift[f] = fdnn_bn_stats_shift(load_one(x, p->x.dtype, feature_offset(p, f, p->x.strides)));
    bn_pass_t pass = {.kind = BN_PASS_STATS, .x = x, .fa = shift, .s1 = s->f[F_S1], .s2 = s->f[F_S2]};
    pass.dtype[BN_X] = p->x.dtype;
    fdnn_bn_engine_run(handle, &s->w, &pass, s->engine);
    for (int64_t f = 0; f < s->F; f++) {
        double d = s->f[F_S1][f] / (double)s->M;
        double v = s->f[F_S2][f] / (double)s->M - d * d;
        mean[f] = shift[f] + d;
        var[f] = fdnn_bn_biased_variance(v);
        inv[f] = 1.0 / sqrt(var[f] + p->epsilon);
    }
}

size_t
fdnn_bn_reserve_bytes(const fdnn_bn_problem_t *p)
{
    return p->relu ? MASK_HEADER + (size_t)fdnn_tensor_elements(&p->x) : 0;
}

static void
run_apply(cudnnHandle_t handle, const fdnn_bn_problem_t *p, const setup_t *s, double alpha, double beta,
          const void *x, const void *z, void *y, uint8_t *mask)
{
    bn_pass_t pass = {
        .kind = BN_PASS_APPLY,
        .x = x,
        .z = p->add ? z : NULL,
        .y = y,
        .mask = p->relu ? mask : NULL,
        .fa = s->f[F_A],
        .fb = s->f[F_B],
        .alpha = alpha,
        .beta = beta,
        .relu = p->relu,
        .relu_nan = p->relu_nan,
    };
    pass.dtype[BN_X] = p->x.dtype;
    pass.dtype[BN_Y] = p->y.dtype;
    pass.dtype[BN_Z] = p->z.dtype;
    fdnn_bn_engine_run(handle, &s->w, &pass, s->engine);
}

cudnnStatus_t
fdnn_bn_forward_inference(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha, double beta,
                          const void *x, const void *z, void *y, const void *scale, const void *bias,
                          const void *mean, const void *var)
{
    setup_t s;
    RETURN_IF_ERROR(prepare(handle, p, MASK_NCHW, true, p->add, false, false, &s));
    double *a = s.f[F_A], *b = s.f[F_B], *m = s.f[F_MEAN], *v = s.f[F_INV];
    gather(p, s.F, scale, a);
    gather(p, s.F, bias, b);
    gather(p, s.F, mean, m);
    gather(p, s.F, var, v);
    for (int64_t f = 0; f < s.F; f++) {
        a[f] = a[f] / sqrt(v[f] + p->epsilon);
        b[f] = b[f] - m[f] * a[f];
    }
    if (fdnn_bn_fused_applies(p))
        fdnn_bn_fused_apply(handle, p, alpha, beta, x, z, y, a, b, s.fused);
    else
        run_apply(handle, p, &s, alpha, beta, x, z, y, NULL);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_bn_forward_training(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha, double beta,
                         const void *x, const void *z, void *y, const void *scale, const void *bias, double factor,
                         void *run_mean, void *run_var, void *save_mean, void *save_inv_var, void *reserve)
{
    assert(!p->relu || reserve != NULL);
    const mask_order_t order = mask_order_for(&p->x);
    uint8_t *mask = NULL;
    if (p->relu) {
        memset(reserve, 0, MASK_HEADER);
        if (order == MASK_CHANNELS_LAST)
            memcpy(reserve, mask_tag_channels_last, sizeof(mask_tag_channels_last));
        mask = (uint8_t *)reserve + MASK_HEADER;
    }
    setup_t s;
    RETURN_IF_ERROR(prepare(handle, p, order, true, p->add, false, false, &s));
    double *mean = s.f[F_MEAN], *inv = s.f[F_INV], *var = s.f[F_C];
    double *a = s.f[F_A], *b = s.f[F_B];
    if (fdnn_bn_fused_applies(p)) {
        /* statistics and normalisation in one go (bn_fused.h) */
        gather(p, s.F, scale, s.f[F_SCALE]);
        gather(p, s.F, bias, b);
        fdnn_bn_fused_training(handle, p, alpha, beta, x, z, y, s.f[F_SCALE], b, mean, var, inv, mask, s.fused);
    } else {
        statistics(handle, p, &s, x, mean, var, inv);
        gather(p, s.F, scale, a);
        gather(p, s.F, bias, b);
        for (int64_t f = 0; f < s.F; f++) {
            a[f] = a[f] * inv[f];
            b[f] = b[f] - mean[f] * a[f];
        }
        run_apply(handle, p, &s, alpha, beta, x, z, y, mask);
    }

    if (run_mean != NULL) {
        /* The running variance takes the unbiased estimate (M / (M - 1)); a
         * single sample per feature has no unbiased estimate and counts as 0. */
        double unbias = s.M > 1 ? (double)s.M / (double)(s.M - 1) : 0.0;
        for (int64_t f = 0; f < s.F; f++)
            var[f] *= unbias;
        /* factor == 1 starts a cumulative average: the old values are not
         * read, so they may be uninitialised. */
        double keep = factor == 1.0 ? 0.0 : 1.0 - factor;
        scatter(p, s.F, run_mean, mean, factor, keep);
        scatter(p, s.F, run_var, var, factor, keep);
    }
    if (save_mean != NULL) {
        scatter(p, s.F, save_mean, mean, 1.0, 0.0);
        scatter(p, s.F, save_inv_var, inv, 1.0, 0.0);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* dscale = sum(dy * xhat) = inv * sum(dy * (x - mean)); dbias = sum(dy). */
static void
finish_backward(const fdnn_bn_problem_t *p, const setup_t *s, void *dscale, void *dbias, double ap, double bp)
{
    double *sum_dy = s->f[F_S1], *sum_dyx = s->f[F_S2], *inv = s->f[F_INV];
    for (int64_t f = 0; f < s->F; f++)
        sum_dyx[f] *= inv[f];
    scatter(p, s->F, dscale, sum_dyx, ap, bp);
    scatter(p, s->F, dbias, sum_dy, ap, bp);
}

cudnnStatus_t
fdnn_bn_backward(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double ad, double bd, double ap, double bp,
                 const void *x, const void *dy, void *dz, void *dx, const void *scale, void *dscale, void *dbias,
                 const void *saved_mean, const void *saved_inv_var, const void *reserve)
{
    assert(!p->relu || reserve != NULL);
    const mask_order_t order = p->relu ? mask_order_read(reserve) : MASK_NCHW;
    const uint8_t *mask = p->relu ? (const uint8_t *)reserve + MASK_HEADER : NULL;
    setup_t s;
    RETURN_IF_ERROR(prepare(handle, p, order, false, p->add, true, true, &s));
    double *mean = s.f[F_MEAN], *inv = s.f[F_INV];
    if (saved_mean != NULL) {
        gather(p, s.F, saved_mean, mean);
        gather(p, s.F, saved_inv_var, inv);
    } else {
        statistics(handle, p, &s, x, mean, s.f[F_C], inv);
    }
    double *sum_dy = s.f[F_S1], *sum_dyx = s.f[F_S2];
    /* the fused paths read the mask in x's own order (bn_fused.h) */
    if (fdnn_bn_fused_backward_applies(p) && (!p->relu || order == mask_order_for(&p->x))) {
        /* the sums and dx channel by channel (bn_fused.h) */
        gather(p, s.F, scale, s.f[F_SCALE]);
        fdnn_bn_fused_backward(handle, p, ad, bd, x, dy, dx, s.f[F_SCALE], mean, inv, sum_dy, sum_dyx, mask, dz,
                               s.fused);
        finish_backward(p, &s, dscale, dbias, ap, bp);
        return CUDNN_STATUS_SUCCESS;
    }
    bn_pass_t pass = {
        .kind = BN_PASS_BSTATS,
        .x = x,
        .dy = dy,
        .dz = p->add ? dz : NULL,
        .mask = (uint8_t *)(uintptr_t)mask,
        .use_mask = p->relu,
        .fa = mean,
        .s1 = s.f[F_S1],
        .s2 = s.f[F_S2],
    };
    pass.dtype[BN_X] = p->x.dtype;
    pass.dtype[BN_DY] = p->dy.dtype;
    pass.dtype[BN_Z] = p->z.dtype;
    pass.dtype[BN_DX] = p->dx.dtype;
    fdnn_bn_engine_run(handle, &s.w, &pass, s.engine);

    double *k = s.f[F_A], *kb = s.f[F_B], *kc = s.f[F_C], *sc = s.f[F_SCALE];
    gather(p, s.F, scale, sc);
    double M = (double)s.M;
    for (int64_t f = 0; f < s.F; f++) {
        /* dx = scale*inv * (dy - sum(dy)/M - (x - mean) * inv^2 * sum(dy*(x - mean))/M) */
        k[f] = sc[f] * inv[f];
        kb[f] = -k[f] * inv[f] * inv[f] * sum_dyx[f] / M;
        kc[f] = -k[f] * sum_dy[f] / M - kb[f] * mean[f];
    }
    pass.kind = BN_PASS_BAPPLY;
    pass.dz = NULL;
    pass.dx = dx;
    pass.fa = k;
    pass.fb = kb;
    pass.fc = kc;
    pass.alpha = ad;
    pass.beta = bd;
    fdnn_bn_engine_run(handle, &s.w, &pass, s.engine);

    finish_backward(p, &s, dscale, dbias, ap, bp);
    return CUDNN_STATUS_SUCCESS;
}
