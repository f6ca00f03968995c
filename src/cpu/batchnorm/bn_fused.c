/* SPDX-License-Identifier: Apache-2.0
 * The fused FP32 batch-norm paths: layout detection, the task structure and
 * the statistics.  Contract: bn_fused.h.
 *
 * Planes: one task per channel, or per group of channels on short planes
 * (statistics of its N planes, then their normalisation; for inference one
 * task per plane).  Rows: R = N * spatial
 * rows of C channels; statistics in row_blocks(R) fixed blocks, each summed
 * into its own partials and the partials added in block order; the
 * normalisation in tiles of APPLY_TILE rows (in x order: walking the tiles
 * backwards to find the rows read last still cached measured no better, and
 * breaks the forward prefetch). */
#include "cpu/batchnorm/bn_fused.h"

#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/tensor.h"
#include "cpu/batchnorm/bn_stats.h"
#include "cpu/config/config.h"

#define MAX_ROW_BLOCKS 64
#define APPLY_TILE 64
/* Below this many elements the work runs on the calling thread (waking the
 * pool costs more; the partition, hence the result, is the same). */
#define PARALLEL_MIN_ELEMENTS 32768

typedef struct layout {
    bool planes;
    int64_t N, C, S;
    int64_t xn, xc, yn, yc, zn, zc; /* planes: the N and C strides */
    int64_t xr, yr, zr;     /* rows: the row stride (rows R = N * S) */
} layout_t;

/* Whether dims 2.. of t are packed with the innermost stride `inner`, and
 * the extent they cover. */
static bool
spatial_packed(const fdnn_tensor_t *t, int64_t inner, int64_t *extent)
{
    int64_t e = inner;
    for (int d = t->ndim - 1; d >= 2; d--) {
        if (t->dims[d] > 1 && t->strides[d] != e)
            return false;
        e *= t->dims[d];
    }
    *extent = e;
    return true;
}

static bool
rows_of(const fdnn_tensor_t *t, int64_t *rs)
{
    if (t->dims[1] > 1 && t->strides[1] != 1)
        return false;
    /* the row stride: that of the innermost spatial dim that is not 1 */
    int64_t r = -1, ext;
    for (int d = t->ndim - 1; d >= 2 && r < 0; d--)
        if (t->dims[d] > 1)
            r = t->strides[d];
    if (r < 0)
        r = t->dims[0] > 1 ? t->strides[0] : t->dims[1];
    if (r < t->dims[1] || !spatial_packed(t, r, &ext))
        return false;
    if (t->dims[0] > 1 && t->strides[0] != ext)
        return false;
    *rs = r;
    return true;
}

static bool
layout_of(const fdnn_bn_problem_t *p, layout_t *L)
{
    memset(L, 0, sizeof(*L));
    const fdnn_tensor_t *x = &p->x, *y = &p->y;
    if (p->per_activation || x->dtype != CUDNN_DATA_FLOAT || y->dtype != CUDNN_DATA_FLOAT || x->ndim < 3 ||
        (p->add && p->z.dtype != CUDNN_DATA_FLOAT))
        return false;
    L->N = x->dims[0];
    L->C = x->dims[1];
    L->S = 1;
    for (int d = 2; d < x->ndim; d++)
        L->S *= x->dims[d];
    int64_t ext;
    bool planes = spatial_packed(x, 1, &ext) && spatial_packed(y, 1, &ext) &&
                  (!p->add || spatial_packed(&p->z, 1, &ext));
    bool rows = rows_of(x, &L->xr) && rows_of(y, &L->yr) && (!p->add || rows_of(&p->z, &L->zr));
    if (rows && (!planes || L->S < 32))
        return true;
    if (!planes)
        return false;
    L->planes = true;
    L->xn = x->strides[0];
    L->xc = x->strides[1];
    L->yn = y->strides[0];
    L->yc = y->strides[1];
    if (p->add) {
        L->zn = p->z.strides[0];
        L->zc = p->z.strides[1];
    }
    return true;
}

bool
fdnn_bn_fused_applies(const fdnn_bn_problem_t *p)
{
    layout_t L;
    return layout_of(p, &L);
}

static int64_t
row_blocks(int64_t R)
{
    int64_t k = R / 64; /* at least 64 rows a block */
    return k < 1 ? 1 : k > MAX_ROW_BLOCKS ? MAX_ROW_BLOCKS : k;
}

size_t
fdnn_bn_fused_scratch(const fdnn_bn_problem_t *p)
{
    layout_t L;
    if (!layout_of(p, &L) || L.planes)
        return 0;
    /* shift, a, b, two partial rows per block, and a, b as floats (the
     * space of one more double row) */
    return (size_t)(4 + 2 * row_blocks(L.N * L.S)) * (size_t)L.C * sizeof(double);
}

static const fdnn_bn_fused_kernels_t *
kernels_for(fdnn_isa_t isa)
{
    return fdnn_isa_config(isa)->bn_fused;
}

typedef struct job {
    const layout_t *L;
    const fdnn_bn_fused_kernels_t *k;
    const float *x, *z; /* z: the added tensor (Ex), else NULL */
    float *y;
    uint8_t *mask;      /* the ReLU mask (training with the ReLU), else NULL */
    bool relu, relu_nan;
    double alpha, beta, eps;
    bool stream;
    const double *scale, *bias; /* training: per channel */
    const double *a, *b;        /* the normalisation: y = a * x + b */
    float *af, *bf;             /* rows: a and b rounded to float */
    float alpha_f, beta_f;
    double *mean, *var, *inv;
    float *shift;             /* rows: per channel */
    double *partials;         /* rows */
    int64_t blocks, tiles;
    int64_t group;            /* planes: channels per task */
} job_t;

/* The float blocks of the sums (bn_fused.h) overflow where float64 does
 * not: (x - shift)^2 beyond 3.4e38, |x - shift| > 1.8e19.  A channel whose
 * sums come out non-finite is summed again here in float64, element by
 * element in a fixed order (the same for any thread count), so finite data
 * keeps the float64 formula's finite result; a NaN or Inf in the data gives
 * the same non-finite sums again.  Elements: outer runs of `inner`
 * contiguous floats, run k at x + k * xs. */
static void
sums_f64(const float *x, int64_t xs, int64_t outer, int64_t inner, double shift, double *t1, double *t2)
{
    double s1 = 0.0, s2 = 0.0;
    for (int64_t k = 0; k < outer; k++)
        for (int64_t i = 0; i < inner; i++) {
            double d = (double)x[k * xs + i] - shift;
            s1 += d;
            s2 += d * d;
        }
    *t1 = s1;
    *t2 = s2;
}

/* The backward's sums (of dy, dy * (x - mean)) in the same way; mask (run k
 * at mask + k * ms) NULL or the ReLU mask. */
static void
bsums_f64(const float *dy, int64_t ds, const float *x, int64_t xs, const uint8_t *mask, int64_t ms, int64_t outer,
          int64_t inner, double mean, double *t1, double *t2)
{
    double s1 = 0.0, s2 = 0.0;
    for (int64_t k = 0; k < outer; k++)
        for (int64_t i = 0; i < inner; i++) {
            double g = mask != NULL && mask[k * ms + i] == 0 ? 0.0 : (double)dy[k * ds + i];
            s1 += g;
            s2 += g * ((double)x[k * xs + i] - mean);
        }
    *t1 = s1;
    *t2 = s2;
}

static bool
sums_finite(double t1, double t2)
{
    return isfinite(t1) && isfinite(t2);
}

/* mean, biased variance and inverse deviation from the shifted sums. */
static void
finish_stats(const job_t *j, int64_t c, double shift, double t1, double t2, double M)
{
    double d = t1 / M;
    double v = t2 / M - d * d;
    j->mean[c] = shift + d;
    j->var[c] = fdnn_bn_biased_variance(v);
    j->inv[c] = 1.0 / sqrt(j->var[c] + j->eps);
}

static fdnn_pool_t
pool_for(cudnnHandle_t handle, const layout_t *L)
{
    return L->N * L->C * L->S >= PARALLEL_MIN_ELEMENTS ? fdnn_handle_pool(handle) : NULL;
}

/* ---- planes ----------------------------------------------------------------- */

/* Channels per planes task.  On planes shorter than PLANES_GROUP_MAX_S
 * floats (7x7: 196 bytes, 3-4 lines) a task takes a group of channels,
 * as many as keep the data it reads twice within PLANES_TASK_BYTES (so the
 * normalisation, or the backward's dx, reads it back from L2), at most
 * MAX_GROUP and at most C / MIN_TASKS (at least one), and reads plane n
 * of each in turn: one contiguous run of G * S floats per sample instead
 * of N runs of S floats 4 * C * S bytes apart (32x2048x7x7, 1 thread, CPU
 * time: forward 2.5 -> 2.1 ms, backward 3.6 -> 3.1 ms).  On 14x14
 * planes the groups measured slower (32x1024x14x14: 2.6 -> 3.1 ms), so
 * longer planes keep one channel a task.  Each channel's sums keep their
 * order: the results do not depend on the grouping (or the thread
 * count). */
#define PLANES_GROUP_MAX_S 128
#define PLANES_TASK_BYTES ((int64_t)256 << 10)
#define MAX_GROUP 32
#define MIN_TASKS 16

static int64_t
planes_group(int64_t N, int64_t C, int64_t S, int64_t bytes_per_element)
{
    int64_t per_channel = N * S * bytes_per_element;
    if (S >= PLANES_GROUP_MAX_S)
        return 1;
    int64_t g = per_channel > 0 ? PLANES_TASK_BYTES / per_channel : 1;
    int64_t cap = C / MIN_TASKS;
    if (g > cap)
        g = cap;
    if (g > MAX_GROUP)
        g = MAX_GROUP;
    return g < 1 ? 1 : g;
}

/* The statistics of channel c from its lane sums, and its coefficients;
 * acc as run_stats left it. */
static void
plane_finish_channel(const job_t *j, int64_t c, float shift, const double *acc, float *a, float *b)
{
    const layout_t *L = j->L;
    double t1 = 0.0, t2 = 0.0;
    for (int l = 0; l < BN_FUSED_LANES; l++) {
        t1 += acc[l];
        t2 += acc[BN_FUSED_LANES + l];
    }
    if (!sums_finite(t1, t2))
        sums_f64(j->x + c * L->xc, L->xn, L->N, L->S, shift, &t1, &t2);
    finish_stats(j, c, shift, t1, t2, (double)(L->N * L->S));
    double ad = j->scale[c] * j->inv[c];
    *a = (float)ad;
    *b = (float)(j->bias[c] - j->mean[c] * ad);
}

/* Task g: the channels [g * group, +group) (the last group shorter). */
static void
plane_train_group(void *ctx, size_t g)
{
    const job_t *j = ctx;
    const layout_t *L = j->L;
    const int64_t c0 = (int64_t)g * j->group;
    const int64_t gn = L->C - c0 < j->group ? L->C - c0 : j->group;
    double acc[MAX_GROUP][2 * BN_FUSED_LANES];
    float shift[MAX_GROUP], a[MAX_GROUP], b[MAX_GROUP];
    memset(acc, 0, sizeof(acc[0]) * (size_t)gn);
    for (int64_t k = 0; k < gn; k++)
        shift[k] = (float)fdnn_bn_stats_shift(j->x[(c0 + k) * L->xc]);
    for (int64_t n = 0; n < L->N; n++)
        for (int64_t k = 0; k < gn; k++)
            j->k->run_stats(j->x + n * L->xn + (c0 + k) * L->xc, L->S, shift[k], acc[k]);
    for (int64_t k = 0; k < gn; k++)
        plane_finish_channel(j, c0 + k, shift[k], acc[k], &a[k], &b[k]);
    /* last plane first: the planes read last are the ones still in L2
     * (planes C * S apart alias in its sets; measured 7% faster) */
    for (int64_t n = L->N - 1; n >= 0; n--)
        for (int64_t k = 0; k < gn; k++) {
            const int64_t c = c0 + k;
            const float *xp = j->x + n * L->xn + c * L->xc;
            float *yp = j->y + n * L->yn + c * L->yc;
            if (j->relu)
                j->k->run_apply_relu(yp, xp, j->z ? j->z + n * L->zn + c * L->zc : NULL, L->S, a[k], b[k],
                                     j->alpha_f, j->beta_f, j->relu_nan,
                                     j->mask ? j->mask + (n * L->C + c) * L->S : NULL, j->stream);
            else
                j->k->run_apply(yp, xp, L->S, a[k], b[k], j->alpha_f, j->beta_f, j->stream);
        }
}

static void
plane_apply(void *ctx, size_t plane)
{
    const job_t *j = ctx;
    const layout_t *L = j->L;
    int64_t n = (int64_t)plane / L->C, c = (int64_t)plane % L->C;
    if (j->relu)
        j->k->run_apply_relu(j->y + n * L->yn + c * L->yc, j->x + n * L->xn + c * L->xc,
                             j->z ? j->z + n * L->zn + c * L->zc : NULL, L->S, (float)j->a[c], (float)j->b[c],
                             j->alpha_f, j->beta_f, j->relu_nan, NULL, j->stream);
    else
        j->k->run_apply(j->y + n * L->yn + c * L->yc, j->x + n * L->xn + c * L->xc, L->S, (float)j->a[c],
                        (float)j->b[c], j->alpha_f, j->beta_f, j->stream);
}

/* ---- rows ------------------------------------------------------------------- */

static void
rows_stats_block(void *ctx, size_t blk)
{
    const job_t *j = ctx;
    const layout_t *L = j->L;
    const int64_t R = L->N * L->S, k = (int64_t)blk;
    int64_t r0 = R * k / j->blocks, r1 = R * (k + 1) / j->blocks;
    double *s1 = j->partials + 2 * k * L->C, *s2 = s1 + L->C;
    memset(s1, 0, 2 * (size_t)L->C * sizeof(double));
    j->k->rows_stats(j->x + r0 * L->xr, L->xr, r1 - r0, L->C, j->shift, s1, s2);
}

static void
rows_apply_tile(void *ctx, size_t t)
{
    const job_t *j = ctx;
    const layout_t *L = j->L;
    const int64_t R = L->N * L->S;
    int64_t r0 = (int64_t)t * APPLY_TILE;
    int64_t n = R - r0 < APPLY_TILE ? R - r0 : APPLY_TILE;
    if (j->relu)
        j->k->rows_apply_relu(j->y + r0 * L->yr, L->yr, j->x + r0 * L->xr, L->xr, j->z ? j->z + r0 * L->zr : NULL,
                              L->zr, n, L->C, j->af, j->bf, j->alpha_f, j->beta_f, j->relu_nan,
                              j->mask ? j->mask + r0 * L->C : NULL, j->stream);
    else
        j->k->rows_apply(j->y + r0 * L->yr, L->yr, j->x + r0 * L->xr, L->xr, n, L->C, j->af, j->bf, j->alpha_f,
                         j->beta_f, j->stream);
}

/* The rows normalisation; af, bf: room for C floats each. */
static void
run_rows_apply(cudnnHandle_t handle, job_t *j, float *af, float *bf)
{
    const layout_t *L = j->L;
    for (int64_t c = 0; c < L->C; c++) {
        af[c] = (float)j->a[c];
        bf[c] = (float)j->b[c];
    }
    j->af = af;
    j->bf = bf;
    j->tiles = (L->N * L->S + APPLY_TILE - 1) / APPLY_TILE;
    fdnn_parallelize_1d(pool_for(handle, L), rows_apply_tile, j, (size_t)j->tiles, 0);
}

/* ---- entry points ------------------------------------------------------------ */

static bool
want_stream(const layout_t *L, double beta)
{
    if (L->planes && L->S < BN_STREAM_MIN_PLANE)
        return false;
    return beta == 0.0 && (size_t)(L->N * L->C * L->S) * sizeof(float) >= BN_STREAM_MIN_BYTES;
}

void
fdnn_bn_fused_training(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha, double beta,
                       const float *x, const float *z, float *y, const double *scale, const double *bias,
                       double *mean, double *var, double *inv, uint8_t *mask, void *scratch)
{
    layout_t L;
    layout_of(p, &L);
    job_t j = {.L = &L, .k = kernels_for(handle->isa), .x = x, .y = y, .alpha = alpha, .beta = beta,
               .z = p->add ? z : NULL, .mask = p->relu ? mask : NULL, .relu = p->relu, .relu_nan = p->relu_nan,
               .eps = p->epsilon, .stream = want_stream(&L, beta), .scale = scale, .bias = bias, .mean = mean,
               .var = var, .inv = inv, .alpha_f = (float)alpha, .beta_f = (float)beta};
    if (L.N * L.C * L.S == 0)
        return;
    if (L.planes) {
        /* the bytes read twice per element: x (and z) */
        j.group = planes_group(L.N, L.C, L.S, p->add ? 8 : 4);
        fdnn_parallelize_1d(pool_for(handle, &L), plane_train_group, &j, (size_t)((L.C + j.group - 1) / j.group), 0);
        return;
    }
    const int64_t C = L.C, R = L.N * L.S;
    /* the shifts are floats in the first row of C doubles */
    double *a = (double *)scratch + C, *b = a + C;
    float *shift = scratch;
    j.shift = shift;
    j.partials = b + C;
    j.blocks = row_blocks(R);
    for (int64_t c = 0; c < C; c++)
        shift[c] = (float)fdnn_bn_stats_shift(x[c]); /* row 0: each channel's first element */
    fdnn_parallelize_1d(pool_for(handle, &L), rows_stats_block, &j, (size_t)j.blocks, 0);
    for (int64_t c = 0; c < C; c++) {
        double t1 = 0.0, t2 = 0.0;
        for (int64_t k = 0; k < j.blocks; k++) {
            t1 += j.partials[2 * k * C + c];
            t2 += j.partials[2 * k * C + C + c];
        }
        if (!sums_finite(t1, t2))
            sums_f64(x + c, L.xr, R, 1, shift[c], &t1, &t2);
        finish_stats(&j, c, shift[c], t1, t2, (double)R);
        a[c] = scale[c] * inv[c];
        b[c] = bias[c] - mean[c] * a[c];
    }
    j.a = a;
    j.b = b;
    float *af = (float *)(j.partials + 2 * j.blocks * C);
    run_rows_apply(handle, &j, af, af + C);
}

void
fdnn_bn_fused_apply(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha, double beta, const float *x,
                    const float *z, float *y, const double *a, const double *b, void *scratch)
{
    layout_t L;
    layout_of(p, &L);
    job_t j = {.L = &L, .k = kernels_for(handle->isa), .x = x, .y = y, .alpha = alpha, .beta = beta,
               .z = p->add ? z : NULL, .relu = p->relu, .relu_nan = p->relu_nan,
               .stream = want_stream(&L, beta), .a = a, .b = b, .alpha_f = (float)alpha, .beta_f = (float)beta};
    if (L.N * L.C * L.S == 0)
        return;
    if (L.planes)
        fdnn_parallelize_1d(pool_for(handle, &L), plane_apply, &j, (size_t)(L.N * L.C), 0);
    else
        run_rows_apply(handle, &j, scratch, (float *)scratch + L.C);
}

/* ---- backward ------------------------------------------------------------------ */

enum { BT_X, BT_DY, BT_DX, BT_DZ, BT_COUNT };

typedef struct blayout {
    bool planes;
    int64_t N, C, S;
    int64_t n[BT_COUNT], c[BT_COUNT]; /* planes: the N and C strides */
    int64_t r[BT_COUNT];              /* rows: the row stride */
} blayout_t;

static bool
blayout_of(const fdnn_bn_problem_t *p, blayout_t *L)
{
    memset(L, 0, sizeof(*L));
    /* dz (the add's gradient) is described by p->z */
    const fdnn_tensor_t *t[BT_COUNT] = {&p->x, &p->dy, &p->dx, p->add ? &p->z : &p->x};
    if (p->per_activation || p->x.ndim < 3)
        return false;
    for (int k = 0; k < BT_COUNT; k++)
        if (t[k]->dtype != CUDNN_DATA_FLOAT)
            return false;
    L->N = p->x.dims[0];
    L->C = p->x.dims[1];
    L->S = 1;
    for (int d = 2; d < p->x.ndim; d++)
        L->S *= p->x.dims[d];
    bool planes = true, rows = true;
    for (int k = 0; k < BT_COUNT; k++) {
        int64_t ext;
        planes = planes && spatial_packed(t[k], 1, &ext);
        rows = rows && rows_of(t[k], &L->r[k]);
        L->n[k] = t[k]->strides[0];
        L->c[k] = t[k]->strides[1];
    }
    if (rows && (!planes || L->S < 32))
        return true;
    L->planes = planes;
    return planes;
}

bool
fdnn_bn_fused_backward_applies(const fdnn_bn_problem_t *p)
{
    blayout_t L;
    return blayout_of(p, &L);
}

size_t
fdnn_bn_fused_backward_scratch(const fdnn_bn_problem_t *p)
{
    blayout_t L;
    if (!blayout_of(p, &L) || L.planes)
        return 0;
    /* kb, kc, two partial rows per block, and ka, kb, kc as floats (the
     * space of two more double rows) */
    return (size_t)(4 + 2 * row_blocks(L.N * L.S)) * (size_t)L.C * sizeof(double);
}

typedef struct bjob {
    const blayout_t *L;
    const fdnn_bn_fused_kernels_t *k;
    const float *x, *dy;
    float *dx;
    const uint8_t *mask; /* the ReLU mask (Ex), else NULL */
    float *dz;           /* the add's gradient (Ex), else NULL */
    double alpha, beta;
    float alpha_f, beta_f;
    bool stream; /* planes: non-temporal dx stores (want_stream) */
    const double *scale, *mean, *inv;
    double *sum_dy, *sum_dyx;
    double *ka, *kb, *kc; /* rows: per-channel coefficients */
    float *kaf, *kbf, *kcf; /* rows: the same rounded to float */
    double *partials;     /* rows */
    float *meanf;         /* rows: bmean_float of each channel's mean */
    int64_t blocks;
    int64_t group;        /* planes: channels per task */
} bjob_t;

/* The float the backward sums subtract in place of the saved mean (their
 * contract: bn_fused.h): the mean rounded, or 0 where that is not finite (a
 * mean beyond the float range; NaN and Inf means make the sums NaN or Inf
 * either way through the correction below). */
static float
bmean_float(double mean)
{
    float m = (float)mean;
    return isfinite(m) ? m : 0.0f;
}

/* sum dy * (x - mean) from the sums of dy (t1) and of dy * (x - mf) (t2):
 * x - mean = (x - mf) + (mf - mean). */
static double
bsum_dyx(double t1, double t2, float mf, double mean)
{
    return t2 + ((double)mf - mean) * t1;
}

/* The coefficients of dx for channel c from its sums (bn_fused.h). */
static void
bcoefficients(const bjob_t *j, int64_t c, double *ka, double *kb, double *kc)
{
    const double M = (double)(j->L->N * j->L->S);
    double k = j->scale[c] * j->inv[c];
    double b = -k * j->inv[c] * j->inv[c] * j->sum_dyx[c] / M;
    *ka = k;
    *kb = b;
    *kc = -k * j->sum_dy[c] / M - b * j->mean[c];
}

/* The sums of channel c from its lane sums (acc as run_bstats left it),
 * and its float coefficients. */
static void
plane_bfinish_channel(const bjob_t *j, int64_t c, float mf, const double *acc, float *ka, float *kb, float *kc)
{
    const blayout_t *L = j->L;
    double t1 = 0.0, t2 = 0.0;
    for (int l = 0; l < BN_FUSED_LANES; l++) {
        t1 += acc[l];
        t2 += acc[BN_FUSED_LANES + l];
    }
    j->sum_dy[c] = t1;
    j->sum_dyx[c] = bsum_dyx(t1, t2, mf, j->mean[c]);
    if (!sums_finite(j->sum_dy[c], j->sum_dyx[c]))
        bsums_f64(j->dy + c * L->c[BT_DY], L->n[BT_DY], j->x + c * L->c[BT_X], L->n[BT_X],
                  j->mask ? j->mask + c * L->S : NULL, L->C * L->S, L->N, L->S, j->mean[c], &j->sum_dy[c],
                  &j->sum_dyx[c]);
    double kad, kbd, kcd;
    bcoefficients(j, c, &kad, &kbd, &kcd);
    *ka = (float)kad;
    *kb = (float)kbd;
    *kc = (float)kcd;
}

/* Task g: the channels [g * group, +group) (the last group shorter), as
 * plane_train_group: their sums over the N planes, then their dx. */
static void
plane_backward_group(void *ctx, size_t g)
{
    const bjob_t *j = ctx;
    const blayout_t *L = j->L;
    const int64_t c0 = (int64_t)g * j->group;
    const int64_t gn = L->C - c0 < j->group ? L->C - c0 : j->group;
    double acc[MAX_GROUP][2 * BN_FUSED_LANES];
    float mf[MAX_GROUP], ka[MAX_GROUP], kb[MAX_GROUP], kc[MAX_GROUP];
    memset(acc, 0, sizeof(acc[0]) * (size_t)gn);
    for (int64_t k = 0; k < gn; k++)
        mf[k] = bmean_float(j->mean[c0 + k]);
    for (int64_t n = 0; n < L->N; n++)
        for (int64_t k = 0; k < gn; k++) {
            const int64_t c = c0 + k;
            const float *xp = j->x + n * L->n[BT_X] + c * L->c[BT_X], *gp = j->dy + n * L->n[BT_DY] + c * L->c[BT_DY];
            if (j->mask != NULL)
                j->k->run_bstats_mask(gp, xp, j->mask + (n * L->C + c) * L->S, L->S, mf[k], acc[k],
                                      j->dz ? j->dz + n * L->n[BT_DZ] + c * L->c[BT_DZ] : NULL);
            else
                j->k->run_bstats(gp, xp, L->S, mf[k], acc[k]);
        }
    for (int64_t k = 0; k < gn; k++)
        plane_bfinish_channel(j, c0 + k, mf[k], acc[k], &ka[k], &kb[k], &kc[k]);
    for (int64_t n = L->N - 1; n >= 0; n--) /* last plane first, as the forward */
        for (int64_t k = 0; k < gn; k++) {
            const int64_t c = c0 + k;
            const float *xp = j->x + n * L->n[BT_X] + c * L->c[BT_X], *gp = j->dy + n * L->n[BT_DY] + c * L->c[BT_DY];
            float *op = j->dx + n * L->n[BT_DX] + c * L->c[BT_DX];
            if (j->mask != NULL)
                j->k->run_bapply_mask(op, gp, xp, j->mask + (n * L->C + c) * L->S, L->S, ka[k], kb[k], kc[k],
                                      j->alpha_f, j->beta_f, j->stream);
            else
                j->k->run_bapply(op, gp, xp, L->S, ka[k], kb[k], kc[k], j->alpha_f, j->beta_f, j->stream);
        }
}

static void
rows_bstats_block(void *ctx, size_t blk)
{
    const bjob_t *j = ctx;
    const blayout_t *L = j->L;
    const int64_t R = L->N * L->S, k = (int64_t)blk;
    int64_t r0 = R * k / j->blocks, r1 = R * (k + 1) / j->blocks;
    double *s1 = j->partials + 2 * k * L->C, *s2 = s1 + L->C;
    memset(s1, 0, 2 * (size_t)L->C * sizeof(double));
    if (j->mask != NULL)
        j->k->rows_bstats_mask(j->dy + r0 * L->r[BT_DY], L->r[BT_DY], j->x + r0 * L->r[BT_X], L->r[BT_X],
                               j->mask + r0 * L->C, r1 - r0, L->C, j->meanf, s1, s2,
                               j->dz ? j->dz + r0 * L->r[BT_DZ] : NULL, L->r[BT_DZ]);
    else
        j->k->rows_bstats(j->dy + r0 * L->r[BT_DY], L->r[BT_DY], j->x + r0 * L->r[BT_X], L->r[BT_X], r1 - r0, L->C,
                          j->meanf, s1, s2);
}

static void
rows_bapply_tile(void *ctx, size_t t)
{
    const bjob_t *j = ctx;
    const blayout_t *L = j->L;
    const int64_t R = L->N * L->S;
    int64_t r0 = (int64_t)t * APPLY_TILE;
    int64_t n = R - r0 < APPLY_TILE ? R - r0 : APPLY_TILE;
    if (j->mask != NULL)
        j->k->rows_bapply_mask(j->dx + r0 * L->r[BT_DX], L->r[BT_DX], j->dy + r0 * L->r[BT_DY], L->r[BT_DY],
                               j->x + r0 * L->r[BT_X], L->r[BT_X], j->mask + r0 * L->C, n, L->C, j->kaf, j->kbf,
                               j->kcf, j->alpha_f, j->beta_f);
    else
        j->k->rows_bapply(j->dx + r0 * L->r[BT_DX], L->r[BT_DX], j->dy + r0 * L->r[BT_DY], L->r[BT_DY],
                          j->x + r0 * L->r[BT_X], L->r[BT_X], n, L->C, j->kaf, j->kbf, j->kcf, j->alpha_f,
                          j->beta_f);
}

void
fdnn_bn_fused_backward(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha, double beta, const float *x,
                       const float *dy, float *dx, const double *scale, const double *mean, const double *inv,
                       double *sum_dy, double *sum_dyx, const uint8_t *mask, float *dz, void *scratch)
{
    blayout_t L;
    blayout_of(p, &L);
    bjob_t j = {.L = &L, .k = kernels_for(handle->isa), .x = x, .dy = dy, .dx = dx, .alpha = alpha, .beta = beta,
                .mask = p->relu ? mask : NULL, .dz = p->add ? dz : NULL,
                .scale = scale, .mean = mean, .inv = inv, .sum_dy = sum_dy, .sum_dyx = sum_dyx,
                .alpha_f = (float)alpha, .beta_f = (float)beta};
    const int64_t C = L.C, R = L.N * L.S;
    fdnn_pool_t pool = L.N * L.C * L.S >= PARALLEL_MIN_ELEMENTS ? fdnn_handle_pool(handle) : NULL;
    if (R == 0) {
        for (int64_t c = 0; c < C; c++)
            sum_dy[c] = sum_dyx[c] = 0.0;
        return;
    }
    if (L.planes) {
        /* Non-temporal dx (the kernels take the flag) measured slower on
         * the quiet host (32x64x56x56 + ReLU 5.6 -> 6.6 ms, 32x256x56x56
         * 15.1 -> 16.1 ms, 1 thread, load 2.5): plain stores. */
        j.stream = false;
        /* the bytes read twice per element: x, dy (and the mask) */
        j.group = planes_group(L.N, L.C, L.S, j.mask != NULL ? 9 : 8);
        fdnn_parallelize_1d(pool, plane_backward_group, &j, (size_t)((C + j.group - 1) / j.group), 0);
        return;
    }
    j.kb = scratch;
    j.kc = j.kb + C;
    j.partials = j.kc + C;
    j.blocks = row_blocks(R);
    /* the float means in kb's row until the coefficients replace them */
    j.meanf = (float *)j.kb;
    for (int64_t c = 0; c < C; c++)
        j.meanf[c] = bmean_float(mean[c]);
    fdnn_parallelize_1d(pool, rows_bstats_block, &j, (size_t)j.blocks, 0);
    for (int64_t c = 0; c < C; c++) {
        double t1 = 0.0, t2 = 0.0;
        for (int64_t k = 0; k < j.blocks; k++) {
            t1 += j.partials[2 * k * C + c];
            t2 += j.partials[2 * k * C + C + c];
        }
        sum_dy[c] = t1;
        sum_dyx[c] = bsum_dyx(t1, t2, j.meanf[c], mean[c]);
        if (!sums_finite(sum_dy[c], sum_dyx[c]))
            bsums_f64(dy + c, L.r[BT_DY], x + c, L.r[BT_X], j.mask ? j.mask + c : NULL, C, R, 1, mean[c], &sum_dy[c],
                      &sum_dyx[c]);
    }
    /* ka reuses the first partial row (its sums are taken) */
    j.ka = j.partials;
    j.kaf = (float *)(j.partials + 2 * j.blocks * C);
    j.kbf = j.kaf + C;
    j.kcf = j.kbf + C;
    for (int64_t c = 0; c < C; c++) {
        bcoefficients(&j, c, &j.ka[c], &j.kb[c], &j.kc[c]);
        j.kaf[c] = (float)j.ka[c];
        j.kbf[c] = (float)j.kb[c];
        j.kcf[c] = (float)j.kc[c];
    }
    fdnn_parallelize_1d(pool, rows_bapply_tile, &j, (size_t)((R + APPLY_TILE - 1) / APPLY_TILE), 0);
}
