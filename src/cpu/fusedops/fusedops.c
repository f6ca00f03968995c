/* SPDX-License-Identifier: Apache-2.0
 * The passes of the fused-ops patterns (fusedops.h): the per-channel
 * scale/bias/residual/ReLU pass with its bitmask, the per-channel sums, the
 * ReLU backward from a bitmask, and the two BN finalize computations.
 *
 * Tensors are walked as rows along W: (n, c, d, h) outer, w inner, which
 * keeps a channel's parameters fixed over a row whatever the layout.  Rows
 * go through float64 buffers (cpu/simd/rowio.h gathers any stride and
 * converts FLOAT and HALF). */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "cpu/fusedops/fusedops.h"
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
row_off(const view5_t *v, int64_t n, int64_t c, int64_t d, int64_t h)
{
    return n * v->s[0] + c * v->s[1] + d * v->s[2] + h * v->s[3];
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

/* Scratch: 4 C parameters, then 3 rows of W per task (a task is an image
 * n, or a channel c for the sums). */
size_t
fdnn_fused_scratch_bytes(const fdnn_tensor_t *x)
{
    view5_t v = view5(x);
    int64_t tasks = v.d[0] > v.d[1] ? v.d[0] : v.d[1];
    return (size_t)(4 * v.d[1] + 3 * v.d[4] * tasks) * sizeof(double);
}

typedef struct affine_ctx {
    const fdnn_fused_affine_t *a;
    view5_t vx, vy, vz, vm;
    const double *s, *b, *zs, *zb;
    double *rows; /* 3 W per image */
} affine_ctx_t;

/* The pass over image n: its mask words, then its rows. */
static void
affine_image(void *ctx, size_t i)
{
    const affine_ctx_t *t = ctx;
    const fdnn_fused_affine_t *a = t->a;
    const view5_t *vx = &t->vx, *vy = &t->vy, *vz = &t->vz, *vm = &t->vm;
    const int64_t n = (int64_t)i, C = vx->d[1], W = vx->d[4];
    const double *s = t->s, *b = t->b, *zs = t->zs, *zb = t->zb;
    double *rx = t->rows + (size_t)n * 3 * (size_t)W, *rz = rx + W, *ry = rz + W;
    if (a->mask != NULL) {
        /* Clear every word first: the pass sets bits channel by channel. */
        for (int64_t cw = 0; cw < vm->d[1]; cw++)
            for (int64_t d = 0; d < vm->d[2]; d++)
                for (int64_t h = 0; h < vm->d[3]; h++)
                    for (int64_t w = 0; w < vm->d[4]; w++)
                        a->mask_data[row_off(vm, n, cw, d, h) + w * vm->s[4]] = 0;
    }
    {
        for (int64_t c = 0; c < C; c++)
            for (int64_t d = 0; d < vx->d[2]; d++)
                for (int64_t h = 0; h < vx->d[3]; h++) {
                    fdnn_row_load_f64(a->x->dtype, a->x_data, row_off(vx, n, c, d, h), vx->s[4], W, rx);
                    if (a->z != NULL)
                        fdnn_row_load_f64(a->z->dtype, a->z_data, row_off(vz, n, c, d, h), vz->s[4], W, rz);
                    uint32_t *m = a->mask != NULL ? a->mask_data + row_off(vm, n, c / 32, d, h) : NULL;
                    const uint32_t bit = UINT32_C(1) << (c % 32);
                    for (int64_t w = 0; w < W; w++) {
                        double v = rx[w] * s[c] + b[c] + zb[c];
                        if (a->z != NULL)
                            v += rz[w] * zs[c];
                        bool pass = v > 0;
                        if (a->relu && !pass)
                            v = (v != v && a->relu_nan) ? v : 0.0;
                        ry[w] = v;
                        if (m != NULL && pass)
                            m[w * vm->s[4]] |= bit;
                    }
                    fdnn_row_store_f64(a->y->dtype, a->y_data, row_off(vy, n, c, d, h), vy->s[4], W, ry);
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
    t.s = s, t.b = b, t.zs = zs, t.zb = zb, t.rows = zb + C;
    /* One task per image: each writes only its own rows and mask words. */
    fdnn_parallelize_1d(pool, affine_image, &t, (size_t)t.vx.d[0], 0);
}

typedef struct sums_ctx {
    const fdnn_tensor_t *t;
    const void *data;
    view5_t v;
    fdnn_fused_chan_t sum, sqsum;
    double *rows;
} sums_ctx_t;

/* Channel c's sums, in one order whatever the thread count. */
static void
sums_channel(void *ctx, size_t i)
{
    const sums_ctx_t *x = ctx;
    const view5_t v = x->v;
    const int64_t c = (int64_t)i;
    double *row = x->rows + (size_t)c * (size_t)v.d[4];
    {
        double s1 = 0, s2 = 0;
        for (int64_t n = 0; n < v.d[0]; n++)
            for (int64_t d = 0; d < v.d[2]; d++)
                for (int64_t h = 0; h < v.d[3]; h++) {
                    fdnn_row_load_f64(x->t->dtype, x->data, row_off(&v, n, c, d, h), v.s[4], v.d[4], row);
                    for (int64_t w = 0; w < v.d[4]; w++) {
                        s1 += row[w];
                        s2 += row[w] * row[w];
                    }
                }
        chan_put(&x->sum, c, s1);
        chan_put(&x->sqsum, c, s2);
    }
}

void
fdnn_fused_channel_sums(fdnn_pool_t pool, const fdnn_tensor_t *t, const void *data, fdnn_fused_chan_t sum,
                        fdnn_fused_chan_t sqsum, void *scratch)
{
    sums_ctx_t x = {.t = t, .data = data, .v = view5(t), .sum = sum, .sqsum = sqsum, .rows = scratch};
    fdnn_parallelize_1d(pool, sums_channel, &x, (size_t)x.v.d[1], 0);
}

typedef struct grad_ctx {
    const fdnn_tensor_t *dy, *dt;
    const void *dy_data;
    const uint32_t *mask_data;
    void *dt_data;
    view5_t vy, vm, vt;
    double *rows;
} grad_ctx_t;

static void
grad_image(void *ctx, size_t i)
{
    const grad_ctx_t *x = ctx;
    const view5_t vy = x->vy, vm = x->vm, vt = x->vt;
    const int64_t n = (int64_t)i;
    double *row = x->rows + (size_t)n * (size_t)vy.d[4];
    const fdnn_tensor_t *dy = x->dy, *dt = x->dt;
    const void *dy_data = x->dy_data;
    const uint32_t *mask_data = x->mask_data;
    void *dt_data = x->dt_data;
    {
        for (int64_t c = 0; c < vy.d[1]; c++)
            for (int64_t d = 0; d < vy.d[2]; d++)
                for (int64_t h = 0; h < vy.d[3]; h++) {
                    fdnn_row_load_f64(dy->dtype, dy_data, row_off(&vy, n, c, d, h), vy.s[4], vy.d[4], row);
                    const uint32_t *m = mask_data + row_off(&vm, n, c / 32, d, h);
                    const uint32_t bit = UINT32_C(1) << (c % 32);
                    for (int64_t w = 0; w < vy.d[4]; w++)
                        if (!(m[w * vm.s[4]] & bit))
                            row[w] = 0.0;
                    fdnn_row_store_f64(dt->dtype, dt_data, row_off(&vt, n, c, d, h), vt.s[4], vy.d[4], row);
                }
    }
}

void
fdnn_fused_relu_grad(fdnn_pool_t pool, const fdnn_tensor_t *dy, const void *dy_data, const fdnn_tensor_t *mask,
                     const uint32_t *mask_data, const fdnn_tensor_t *dt, void *dt_data, void *scratch)
{
    grad_ctx_t x = {.dy = dy, .dt = dt, .dy_data = dy_data, .mask_data = mask_data, .dt_data = dt_data,
                    .vy = view5(dy), .vm = view5(mask), .vt = view5(dt), .rows = scratch};
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
