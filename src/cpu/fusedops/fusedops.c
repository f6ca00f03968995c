/* SPDX-License-Identifier: Apache-2.0
 * The passes of the fused-ops patterns (fusedops.h): the per-channel
 * scale/bias/residual/ReLU pass with its bitmask, the per-channel sums, the
 * ReLU backward from a bitmask, and the two BN finalize computations.
 *
 * One task per image.  Inside it the walk follows the layout: channels
 * innermost when they are contiguous (NHWC), W innermost otherwise (NCHW
 * and the rest), so the inner loop reads memory in order either way.
 * Elements are FLOAT or HALF, widened to float64 for the arithmetic. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "cpu/fusedops/fusedops.h"
#include "cpu/simd/cvt.h"
#include "cpu/simd/rowio.h"

/* A 4-D or 5-D tensor seen as N, C, D, H, W (D = 1 with stride 0 for 4-D). */
typedef struct view5 {
    int64_t d[5], s[5];
} view5_t;

static view5_t
view5(const fdnn_tensor_t *t)
{
    assert(t->ndim == 4 || t->ndim == 5);
    view5_t v;
    if (t->ndim == 5) {
        for (int i = 0; i < 5; i++) {
            v.d[i] = t->dims[i];
            v.s[i] = t->strides[i];
        }
        return v;
    }
    const int map[5] = {0, 1, -1, 2, 3};
    for (int i = 0; i < 5; i++) {
        v.d[i] = map[i] < 0 ? 1 : t->dims[map[i]];
        v.s[i] = map[i] < 0 ? 0 : t->strides[map[i]];
    }
    return v;
}

static int64_t
off5(const view5_t *v, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w)
{
    return n * v->s[0] + c * v->s[1] + d * v->s[2] + h * v->s[3] + w * v->s[4];
}

/* Channels innermost: they are contiguous and W is not. */
static bool
channels_inner(const view5_t *v)
{
    return v->s[1] == 1 && v->d[1] > 1 && v->d[4] > 1;
}

static inline double
ld(cudnnDataType_t dt, const void *p, int64_t i)
{
    return dt == CUDNN_DATA_HALF ? fdnn_f16_to_f32(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

static inline void
st(cudnnDataType_t dt, void *p, int64_t i, double v)
{
    if (dt == CUDNN_DATA_HALF)
        ((uint16_t *)p)[i] = fdnn_f32_to_f16((float)v);
    else
        ((float *)p)[i] = (float)v;
}

static double
chan_get(const fdnn_fused_chan_t *p, int64_t c, double absent)
{
    if (p->data == NULL)
        return absent;
    double v;
    fdnn_row_load_f64(p->dtype, p->data, c * p->stride, 1, 1, &v);
    return v;
}

static void
chan_put(const fdnn_fused_chan_t *p, int64_t c, double v)
{
    if (p->data != NULL)
        fdnn_row_store_f64(p->dtype, p->data, c * p->stride, 1, 1, &v);
}

/* Scratch: 4 C parameters, then 2 C partial sums per image. */
size_t
fdnn_fused_scratch_bytes(const fdnn_tensor_t *x)
{
    view5_t v = view5(x);
    return (size_t)(4 * v.d[1] + 2 * v.d[1] * v.d[0]) * sizeof(double);
}

typedef struct affine_ctx {
    const fdnn_fused_affine_t *a;
    view5_t vx, vy, vz, vm;
    const double *s, *b, *zs, *zb;
} affine_ctx_t;

/* The element (n, c, d, h, w). */
static inline void
affine_elem(const affine_ctx_t *t, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w)
{
    const fdnn_fused_affine_t *a = t->a;
    double v = ld(a->x->dtype, a->x_data, off5(&t->vx, n, c, d, h, w)) * t->s[c] + t->b[c] + t->zb[c];
    if (a->z != NULL)
        v += ld(a->z->dtype, a->z_data, off5(&t->vz, n, c, d, h, w)) * t->zs[c];
    bool pass = v > 0;
    if (a->relu && !pass)
        v = (v != v && a->relu_nan) ? v : 0.0;
    st(a->y->dtype, a->y_data, off5(&t->vy, n, c, d, h, w), v);
    if (a->mask != NULL && pass)
        a->mask_data[off5(&t->vm, n, c / 32, d, h, w)] |= UINT32_C(1) << (c % 32);
}

/* FLOAT x and y, no residual and no mask (the input pass of ops 0 and 1,
 * the epilogue of op 4 without z): `len` elements from (n, c0, d, h, w0)
 * along the channels (cinner) or along W, pointer steps instead of
 * offsets.  Same arithmetic as affine_elem. */
static bool
affine_row_f32(const affine_ctx_t *t, int64_t n, int64_t c0, int64_t d, int64_t h, int64_t w0, bool cinner,
               int64_t len)
{
    const fdnn_fused_affine_t *a = t->a;
    if (a->x->dtype != CUDNN_DATA_FLOAT || a->y->dtype != CUDNN_DATA_FLOAT || a->z != NULL || a->mask != NULL)
        return false;
    const float *xp = (const float *)a->x_data + off5(&t->vx, n, c0, d, h, w0);
    float *yp = (float *)a->y_data + off5(&t->vy, n, c0, d, h, w0);
    const int64_t sx = cinner ? t->vx.s[1] : t->vx.s[4], sy = cinner ? t->vy.s[1] : t->vy.s[4];
    const bool relu = a->relu, keep_nan = a->relu_nan;
    if (sx == 1 && sy == 1 && !keep_nan) {
        /* Contiguous rows (packed NCHW along W, NHWC along C): plain
         * indexing the compiler vectorises; NaN -> 0 as below. */
        const double *sc = t->s + c0, *bc = t->b + c0, *zc = t->zb + c0;
        const int64_t step = cinner ? 1 : 0;
        for (int64_t j = 0; j < len; j++) {
            double v = xp[j] * sc[j * step] + bc[j * step] + zc[j * step];
            if (relu)
                v = v > 0 ? v : 0.0;
            yp[j] = (float)v;
        }
        return true;
    }
    for (int64_t j = 0; j < len; j++) {
        const int64_t c = cinner ? c0 + j : c0;
        double v = xp[j * sx] * t->s[c] + t->b[c] + t->zb[c];
        if (relu && !(v > 0))
            v = (v != v && keep_nan) ? v : 0.0;
        yp[j * sy] = (float)v;
    }
    return true;
}

/* The pass over image n: its mask words, then its elements. */
static void
affine_image(void *ctx, size_t i)
{
    const affine_ctx_t *t = ctx;
    const view5_t *vx = &t->vx, *vm = &t->vm;
    const int64_t n = (int64_t)i;
    if (t->a->mask != NULL) {
        /* Clear every word first: the pass sets bits channel by channel. */
        for (int64_t cw = 0; cw < vm->d[1]; cw++)
            for (int64_t d = 0; d < vm->d[2]; d++)
                for (int64_t h = 0; h < vm->d[3]; h++)
                    for (int64_t w = 0; w < vm->d[4]; w++)
                        t->a->mask_data[off5(vm, n, cw, d, h, w)] = 0;
    }
    if (channels_inner(vx)) {
        for (int64_t d = 0; d < vx->d[2]; d++)
            for (int64_t h = 0; h < vx->d[3]; h++)
                for (int64_t w = 0; w < vx->d[4]; w++) {
                    if (affine_row_f32(t, n, 0, d, h, w, true, vx->d[1]))
                        continue;
                    for (int64_t c = 0; c < vx->d[1]; c++)
                        affine_elem(t, n, c, d, h, w);
                }
    } else {
        for (int64_t c = 0; c < vx->d[1]; c++)
            for (int64_t d = 0; d < vx->d[2]; d++)
                for (int64_t h = 0; h < vx->d[3]; h++) {
                    if (affine_row_f32(t, n, c, d, h, 0, false, vx->d[4]))
                        continue;
                    for (int64_t w = 0; w < vx->d[4]; w++)
                        affine_elem(t, n, c, d, h, w);
                }
    }
}

void
fdnn_fused_affine_act(fdnn_pool_t pool, const fdnn_fused_affine_t *a, void *scratch)
{
    affine_ctx_t t = {.a = a, .vx = view5(a->x), .vy = view5(a->y)};
    const int64_t C = t.vx.d[1];
    t.vz = a->z != NULL ? view5(a->z) : t.vx;
    t.vm = a->mask != NULL ? view5(a->mask) : t.vx;
    double *s = scratch, *b = s + C, *zs = b + C, *zb = zs + C;
    for (int64_t c = 0; c < C; c++) {
        s[c] = chan_get(&a->scale, c, 1.0);
        b[c] = chan_get(&a->bias, c, 0.0);
        zs[c] = chan_get(&a->z_scale, c, 1.0);
        zb[c] = chan_get(&a->z_bias, c, 0.0);
    }
    t.s = s, t.b = b, t.zs = zs, t.zb = zb;
    /* One task per image: each writes only its own elements and mask words. */
    fdnn_parallelize_1d(pool, affine_image, &t, (size_t)t.vx.d[0], 0);
}

typedef struct sums_ctx {
    const fdnn_tensor_t *t;
    const void *data;
    view5_t v;
    double *part; /* per image: C sums, then C sums of squares */
} sums_ctx_t;

/* Image n's per-channel partial sums, each in one order. */
static void
sums_image(void *ctx, size_t i)
{
    const sums_ctx_t *x = ctx;
    const view5_t *v = &x->v;
    const int64_t n = (int64_t)i, C = v->d[1];
    double *s1 = x->part + (size_t)n * 2 * (size_t)C, *s2 = s1 + C;
    for (int64_t c = 0; c < C; c++)
        s1[c] = s2[c] = 0;
    const cudnnDataType_t dt = x->t->dtype;
    if (dt == CUDNN_DATA_FLOAT) {
        /* The same order as below, with pointer steps. */
        const float *base = (const float *)x->data + n * v->s[0];
        if (channels_inner(v)) {
            for (int64_t d = 0; d < v->d[2]; d++)
                for (int64_t h = 0; h < v->d[3]; h++)
                    for (int64_t w = 0; w < v->d[4]; w++) {
                        const float *p = base + d * v->s[2] + h * v->s[3] + w * v->s[4];
                        for (int64_t c = 0; c < C; c++) {
                            double e = p[c];
                            s1[c] += e;
                            s2[c] += e * e;
                        }
                    }
        } else {
            for (int64_t c = 0; c < C; c++) {
                double a1 = 0, a2 = 0;
                for (int64_t d = 0; d < v->d[2]; d++)
                    for (int64_t h = 0; h < v->d[3]; h++) {
                        const float *p = base + c * v->s[1] + d * v->s[2] + h * v->s[3];
                        for (int64_t w = 0; w < v->d[4]; w++) {
                            double e = p[w * v->s[4]];
                            a1 += e;
                            a2 += e * e;
                        }
                    }
                s1[c] = a1;
                s2[c] = a2;
            }
        }
        return;
    }
    if (channels_inner(v)) {
        for (int64_t d = 0; d < v->d[2]; d++)
            for (int64_t h = 0; h < v->d[3]; h++)
                for (int64_t w = 0; w < v->d[4]; w++)
                    for (int64_t c = 0; c < C; c++) {
                        double e = ld(dt, x->data, off5(v, n, c, d, h, w));
                        s1[c] += e;
                        s2[c] += e * e;
                    }
    } else {
        for (int64_t c = 0; c < C; c++)
            for (int64_t d = 0; d < v->d[2]; d++)
                for (int64_t h = 0; h < v->d[3]; h++)
                    for (int64_t w = 0; w < v->d[4]; w++) {
                        double e = ld(dt, x->data, off5(v, n, c, d, h, w));
                        s1[c] += e;
                        s2[c] += e * e;
                    }
    }
}

void
fdnn_fused_channel_sums(fdnn_pool_t pool, const fdnn_tensor_t *t, const void *data, fdnn_fused_chan_t sum,
                        fdnn_fused_chan_t sqsum, void *scratch)
{
    sums_ctx_t x = {.t = t, .data = data, .v = view5(t), .part = scratch};
    fdnn_parallelize_1d(pool, sums_image, &x, (size_t)x.v.d[0], 0);
    /* The images' partials, added in image order. */
    const int64_t N = x.v.d[0], C = x.v.d[1];
    for (int64_t c = 0; c < C; c++) {
        double s1 = 0, s2 = 0;
        for (int64_t n = 0; n < N; n++) {
            s1 += x.part[(size_t)n * 2 * (size_t)C + (size_t)c];
            s2 += x.part[(size_t)n * 2 * (size_t)C + (size_t)(C + c)];
        }
        chan_put(&sum, c, s1);
        chan_put(&sqsum, c, s2);
    }
}

typedef struct grad_ctx {
    const fdnn_tensor_t *dy, *dt;
    const void *dy_data;
    const uint32_t *mask_data;
    void *dt_data;
    view5_t vy, vm, vt;
} grad_ctx_t;

static inline void
grad_elem(const grad_ctx_t *x, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w)
{
    bool pass = (x->mask_data[off5(&x->vm, n, c / 32, d, h, w)] >> (c % 32)) & 1u;
    double g = pass ? ld(x->dy->dtype, x->dy_data, off5(&x->vy, n, c, d, h, w)) : 0.0;
    st(x->dt->dtype, x->dt_data, off5(&x->vt, n, c, d, h, w), g);
}

static void
grad_image(void *ctx, size_t i)
{
    const grad_ctx_t *x = ctx;
    const view5_t *v = &x->vy;
    const int64_t n = (int64_t)i;
    if (channels_inner(v)) {
        for (int64_t d = 0; d < v->d[2]; d++)
            for (int64_t h = 0; h < v->d[3]; h++)
                for (int64_t w = 0; w < v->d[4]; w++)
                    for (int64_t c = 0; c < v->d[1]; c++)
                        grad_elem(x, n, c, d, h, w);
    } else {
        for (int64_t c = 0; c < v->d[1]; c++)
            for (int64_t d = 0; d < v->d[2]; d++)
                for (int64_t h = 0; h < v->d[3]; h++)
                    for (int64_t w = 0; w < v->d[4]; w++)
                        grad_elem(x, n, c, d, h, w);
    }
}

void
fdnn_fused_relu_grad(fdnn_pool_t pool, const fdnn_tensor_t *dy, const void *dy_data, const fdnn_tensor_t *mask,
                     const uint32_t *mask_data, const fdnn_tensor_t *dt, void *dt_data, void *scratch)
{
    (void)scratch;
    grad_ctx_t x = {.dy = dy, .dt = dt, .dy_data = dy_data, .mask_data = mask_data, .dt_data = dt_data,
                    .vy = view5(dy), .vm = view5(mask), .vt = view5(dt)};
    fdnn_parallelize_1d(pool, grad_image, &x, (size_t)x.vy.d[0], 0);
}

void
fdnn_fused_bn_finalize_training(const fdnn_fused_finalize_t *f)
{
    assert(f->count > 0);
    const double M = (double)f->count;
    const double unbias = f->count > 1 ? M / (M - 1.0) : 0.0;
    /* factor == 1 starts a cumulative average: the old running values are
     * not read (they may be uninitialised), as in the batch-norm forward. */
    const double keep = f->factor == 1.0 ? 0.0 : 1.0 - f->factor;
    for (int64_t c = 0; c < f->channels; c++) {
        double mean = chan_get(&f->sum, c, 0.0) / M;
        double var = chan_get(&f->sqsum, c, 0.0) / M - mean * mean;
        if (var < 0)
            var = 0; /* rounding of the partial sums */
        double inv = 1.0 / sqrt(var + f->epsilon);
        double eqs = chan_get(&f->scale, c, 1.0) * inv;
        chan_put(&f->eqscale, c, eqs);
        chan_put(&f->eqbias, c, chan_get(&f->bias, c, 0.0) - mean * eqs);
        chan_put(&f->saved_mean, c, mean);
        chan_put(&f->saved_invstd, c, inv);
        if (f->run_mean.data != NULL) {
            double old = keep != 0 ? keep * chan_get(&f->run_mean, c, 0.0) : 0.0;
            chan_put(&f->run_mean, c, old + f->factor * mean);
        }
        if (f->run_var.data != NULL) {
            double old = keep != 0 ? keep * chan_get(&f->run_var, c, 0.0) : 0.0;
            chan_put(&f->run_var, c, old + f->factor * var * unbias);
        }
    }
}

void
fdnn_fused_bn_finalize_inference(const fdnn_fused_finalize_t *f)
{
    for (int64_t c = 0; c < f->channels; c++) {
        double inv = 1.0 / sqrt(chan_get(&f->run_var, c, 0.0) + f->epsilon);
        double eqs = chan_get(&f->scale, c, 1.0) * inv;
        chan_put(&f->eqscale, c, eqs);
        chan_put(&f->eqbias, c, chan_get(&f->bias, c, 0.0) - chan_get(&f->run_mean, c, 0.0) * eqs);
    }
}
