/* SPDX-License-Identifier: Apache-2.0
 * Spatial transformer: grid generator and bilinear sampler.  See spatial.h. */
#include "cpu/spatial/spatial.h"

#include <math.h>
#include <string.h>

#include "core/fail.h"
#include "core/memory.h"
#include "cpu/simd/cvt.h"

static double
ld(const void *base, cudnnDataType_t dt, int64_t off)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: return ((const double *)base)[off];
    case CUDNN_DATA_HALF: return fdnn_f16_to_f32(((const uint16_t *)base)[off]);
    default: return ((const float *)base)[off];
    }
}

static void
st(void *base, cudnnDataType_t dt, int64_t off, double v)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: ((double *)base)[off] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)base)[off] = fdnn_f32_to_f16((float)v); break;
    default: ((float *)base)[off] = (float)v; break;
    }
}

/* dst = alpha * v + beta * dst; beta == 0 never reads dst. */
static void
blend(void *base, cudnnDataType_t dt, int64_t off, double v, double alpha, double beta)
{
    st(base, dt, off, beta == 0.0 ? alpha * v : alpha * v + beta * ld(base, dt, off));
}

/* The normalised coordinate of index i of n points: -1 .. 1, 0 when n == 1. */
/* The pool for `work` element operations: small problems stay on the
 * calling thread (waking the pool costs more); results are the same. */
static fdnn_pool_t
pool_for(cudnnHandle_t handle, int64_t work)
{
    return work >= 32768 ? fdnn_handle_pool(handle) : NULL;
}

static double
linspace(int64_t i, int64_t n)
{
    return n > 1 ? -1.0 + 2.0 * (double)i / (double)(n - 1) : 0.0;
}

typedef struct grid_task {
    cudnnDataType_t dt;
    int64_t h, w;
    const void *src;
    void *dst;
} grid_task_t;

static void
grid_fwd_one(void *ctx, size_t n)
{
    const grid_task_t *T = ctx;
    double th[6];
    for (int k = 0; k < 6; k++)
        th[k] = ld(T->src, T->dt, (int64_t)n * 6 + k);
    for (int64_t i = 0; i < T->h; i++)
        for (int64_t j = 0; j < T->w; j++) {
            double u = linspace(j, T->w), v = linspace(i, T->h);
            int64_t o = (((int64_t)n * T->h + i) * T->w + j) * 2;
            st(T->dst, T->dt, o, th[0] * u + th[1] * v + th[2]);
            st(T->dst, T->dt, o + 1, th[3] * u + th[4] * v + th[5]);
        }
}

static void
grid_bwd_one(void *ctx, size_t n)
{
    const grid_task_t *T = ctx;
    double acc[6] = {0};
    for (int64_t i = 0; i < T->h; i++)
        for (int64_t j = 0; j < T->w; j++) {
            double u = linspace(j, T->w), v = linspace(i, T->h);
            int64_t o = (((int64_t)n * T->h + i) * T->w + j) * 2;
            double gx = ld(T->src, T->dt, o), gy = ld(T->src, T->dt, o + 1);
            acc[0] += gx * u, acc[1] += gx * v, acc[2] += gx;
            acc[3] += gy * u, acc[4] += gy * v, acc[5] += gy;
        }
    for (int k = 0; k < 6; k++)
        st(T->dst, T->dt, (int64_t)n * 6 + k, acc[k]);
}

void
fdnn_spatial_grid_forward(cudnnHandle_t handle, cudnnDataType_t dt, int64_t n, int64_t h, int64_t w,
                          const void *theta, void *grid)
{
    grid_task_t T = {dt, h, w, theta, grid};
    fdnn_parallelize_1d(pool_for(handle, n * h * w), grid_fwd_one, &T, (size_t)n, 0);
}

void
fdnn_spatial_grid_backward(cudnnHandle_t handle, cudnnDataType_t dt, int64_t n, int64_t h, int64_t w,
                           const void *dgrid, void *dtheta)
{
    grid_task_t T = {dt, h, w, dgrid, dtheta};
    fdnn_parallelize_1d(pool_for(handle, n * h * w), grid_bwd_one, &T, (size_t)n, 0);
}

/* The four neighbours of a sampling point and their weights.  Points far
 * outside the image (including NaN or infinite coordinates) have none, so no
 * huge or undefined value is ever converted to an index.  A NaN coordinate
 * makes the bilinear weights NaN, so the forward sample and the grid
 * gradient of that point are NaN (IEEE arithmetic of the formula, as
 * PyTorch's grid_sample); dx receives nothing from it (docs/numerics.md). */
typedef struct taps {
    int64_t x0, y0;
    double fx, fy;
    double ix, iy;
    bool any;
    bool nan; /* a coordinate is NaN */
} taps_t;

static taps_t
taps_at(double gx, double gy, int64_t hin, int64_t win)
{
    taps_t t = {0};
    t.ix = (gx + 1.0) * (double)(win - 1) / 2.0;
    t.iy = (gy + 1.0) * (double)(hin - 1) / 2.0;
    t.nan = isnan(t.ix) || isnan(t.iy);
    t.any = t.ix > -1.0 && t.ix < (double)win && t.iy > -1.0 && t.iy < (double)hin;
    if (!t.any)
        return t;
    double fx0 = floor(t.ix), fy0 = floor(t.iy);
    t.x0 = (int64_t)fx0;
    t.y0 = (int64_t)fy0;
    t.fx = t.ix - fx0;
    t.fy = t.iy - fy0;
    return t;
}

static bool
inside(int64_t y, int64_t x, int64_t hin, int64_t win)
{
    return y >= 0 && y < hin && x >= 0 && x < win;
}

typedef struct sampler_task {
    double alpha, beta, alpha_g, beta_g;
    const fdnn_tensor_t *xt, *yt, *dxt, *dyt;
    const void *x, *grid, *dy;
    void *y, *dx, *dgrid;
    double *acc; /* dx' accumulators, packed N x C x Hin x Win */
} sampler_task_t;

static double
pixel(const sampler_task_t *T, int64_t n, int64_t c, int64_t yy, int64_t xx)
{
    const fdnn_tensor_t *t = T->xt;
    if (!inside(yy, xx, t->dims[2], t->dims[3]))
        return 0.0;
    return ld(T->x, t->dtype, n * t->strides[0] + c * t->strides[1] + yy * t->strides[2] + xx * t->strides[3]);
}

/* One output row (n, h) of the forward. */
static void
sample_row(void *ctx, size_t n, size_t h)
{
    const sampler_task_t *T = ctx;
    const fdnn_tensor_t *xt = T->xt, *yt = T->yt;
    int64_t C = yt->dims[1], Hout = yt->dims[2], Wout = yt->dims[3];
    for (int64_t w = 0; w < Wout; w++) {
        int64_t g = (((int64_t)n * Hout + (int64_t)h) * Wout + w) * 2;
        taps_t t = taps_at(ld(T->grid, xt->dtype, g), ld(T->grid, xt->dtype, g + 1), xt->dims[2], xt->dims[3]);
        for (int64_t c = 0; c < C; c++) {
            double v = t.nan ? NAN : 0.0;
            if (t.any)
                v = pixel(T, (int64_t)n, c, t.y0, t.x0) * (1 - t.fx) * (1 - t.fy) +
                    pixel(T, (int64_t)n, c, t.y0, t.x0 + 1) * t.fx * (1 - t.fy) +
                    pixel(T, (int64_t)n, c, t.y0 + 1, t.x0) * (1 - t.fx) * t.fy +
                    pixel(T, (int64_t)n, c, t.y0 + 1, t.x0 + 1) * t.fx * t.fy;
            int64_t o = (int64_t)n * yt->strides[0] + c * yt->strides[1] + (int64_t)h * yt->strides[2] +
                        w * yt->strides[3];
            blend(T->y, yt->dtype, o, v, T->alpha, T->beta);
        }
    }
}

void
fdnn_spatial_sampler_forward(cudnnHandle_t handle, double alpha, const fdnn_tensor_t *xt, const void *x,
                             const void *grid, double beta, const fdnn_tensor_t *yt, void *y)
{
    sampler_task_t T = {.alpha = alpha, .beta = beta, .xt = xt, .yt = yt, .x = x, .grid = grid, .y = y};
    fdnn_parallelize_2d(pool_for(handle, fdnn_tensor_elements(yt)), sample_row, &T, (size_t)yt->dims[0],
                               (size_t)yt->dims[2], 0);
}

/* dx' of plane (n, c): scatter of dy through the bilinear weights.  Only
 * this task writes the plane's accumulators. */
static void
dx_plane(void *ctx, size_t n, size_t c)
{
    const sampler_task_t *T = ctx;
    const fdnn_tensor_t *xt = T->xt, *dyt = T->dyt;
    int64_t Hin = xt->dims[2], Win = xt->dims[3], Hout = dyt->dims[2], Wout = dyt->dims[3];
    double *acc = T->acc + ((int64_t)n * xt->dims[1] + (int64_t)c) * Hin * Win;
    memset(acc, 0, sizeof(double) * (size_t)(Hin * Win));
    for (int64_t h = 0; h < Hout; h++)
        for (int64_t w = 0; w < Wout; w++) {
            int64_t g = (((int64_t)n * Hout + h) * Wout + w) * 2;
            taps_t t = taps_at(ld(T->grid, xt->dtype, g), ld(T->grid, xt->dtype, g + 1), Hin, Win);
            if (!t.any)
                continue;
            double d = ld(T->dy, dyt->dtype, (int64_t)n * dyt->strides[0] + (int64_t)c * dyt->strides[1] +
                                                 h * dyt->strides[2] + w * dyt->strides[3]);
            const int64_t ys[4] = {t.y0, t.y0, t.y0 + 1, t.y0 + 1}, xs[4] = {t.x0, t.x0 + 1, t.x0, t.x0 + 1};
            const double ws[4] = {(1 - t.fx) * (1 - t.fy), t.fx * (1 - t.fy), (1 - t.fx) * t.fy, t.fx * t.fy};
            for (int k = 0; k < 4; k++)
                if (inside(ys[k], xs[k], Hin, Win))
                    acc[ys[k] * Win + xs[k]] += ws[k] * d;
        }
    const fdnn_tensor_t *dxt = T->dxt;
    for (int64_t i = 0; i < Hin; i++)
        for (int64_t j = 0; j < Win; j++)
            blend(T->dx, dxt->dtype,
                  (int64_t)n * dxt->strides[0] + (int64_t)c * dxt->strides[1] + i * dxt->strides[2] +
                      j * dxt->strides[3],
                  acc[i * Win + j], T->alpha, T->beta);
}

/* dgrid' of one output row (n, h): the derivative of the bilinear sample
 * with respect to the grid point, summed over channels. */
static void
dgrid_row(void *ctx, size_t n, size_t h)
{
    const sampler_task_t *T = ctx;
    const fdnn_tensor_t *xt = T->xt, *dyt = T->dyt;
    int64_t C = xt->dims[1], Hin = xt->dims[2], Win = xt->dims[3], Hout = dyt->dims[2], Wout = dyt->dims[3];
    for (int64_t w = 0; w < Wout; w++) {
        int64_t g = (((int64_t)n * Hout + (int64_t)h) * Wout + w) * 2;
        taps_t t = taps_at(ld(T->grid, xt->dtype, g), ld(T->grid, xt->dtype, g + 1), Hin, Win);
        double gx = t.nan ? NAN : 0.0, gy = gx;
        if (t.any)
            for (int64_t c = 0; c < C; c++) {
                double d = ld(T->dy, dyt->dtype, (int64_t)n * dyt->strides[0] + c * dyt->strides[1] +
                                                     (int64_t)h * dyt->strides[2] + w * dyt->strides[3]);
                double nw = pixel(T, (int64_t)n, c, t.y0, t.x0), ne = pixel(T, (int64_t)n, c, t.y0, t.x0 + 1);
                double sw = pixel(T, (int64_t)n, c, t.y0 + 1, t.x0), se = pixel(T, (int64_t)n, c, t.y0 + 1, t.x0 + 1);
                gx += d * ((ne - nw) * (1 - t.fy) + (se - sw) * t.fy);
                gy += d * ((sw - nw) * (1 - t.fx) + (se - ne) * t.fx);
            }
        /* d ix / d gx = (Win - 1) / 2, d iy / d gy = (Hin - 1) / 2. */
        gx *= (double)(Win - 1) / 2.0;
        gy *= (double)(Hin - 1) / 2.0;
        blend(T->dgrid, xt->dtype, g, gx, T->alpha_g, T->beta_g);
        blend(T->dgrid, xt->dtype, g + 1, gy, T->alpha_g, T->beta_g);
    }
}

size_t
fdnn_spatial_sampler_backward_scratch(const fdnn_tensor_t *xt)
{
    return (size_t)fdnn_tensor_elements(xt) * sizeof(double);
}

cudnnStatus_t
fdnn_spatial_sampler_backward(cudnnHandle_t handle, double alpha, const fdnn_tensor_t *xt, const void *x,
                              double beta, const fdnn_tensor_t *dxt, void *dx, double alpha_g,
                              const fdnn_tensor_t *dyt, const void *dy, const void *grid, double beta_g, void *dgrid)
{
    double *acc = fdnn_handle_scratch(handle, fdnn_spatial_sampler_backward_scratch(xt));
    if (acc == NULL)
        return CUDNN_STATUS_ALLOC_FAILED;
    sampler_task_t T = {.alpha = alpha, .beta = beta, .alpha_g = alpha_g, .beta_g = beta_g, .xt = xt, .dxt = dxt,
                        .dyt = dyt, .x = x, .grid = grid, .dy = dy, .dx = dx, .dgrid = dgrid, .acc = acc};
    /* dgrid first: it reads x, which dx may alias. */
    fdnn_pool_t pool = pool_for(handle, fdnn_tensor_elements(dyt));
    fdnn_parallelize_2d(pool, dgrid_row, &T, (size_t)dyt->dims[0], (size_t)dyt->dims[2], 0);
    fdnn_parallelize_2d(pool, dx_plane, &T, (size_t)xt->dims[0], (size_t)xt->dims[1], 0);
    return CUDNN_STATUS_SUCCESS;
}
