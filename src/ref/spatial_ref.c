/* SPDX-License-Identifier: Apache-2.0
 * Spatial transformer reference.  See spatial_ref.h. */
#include "ref/spatial_ref.h"

#include <math.h>

static double
coord(int64_t i, int64_t n)
{
    return n == 1 ? 0.0 : -1.0 + 2.0 * (double)i / (double)(n - 1);
}

void
fdnn_ref_st_grid(int64_t n, int64_t h, int64_t w, const double *theta, double *grid)
{
    for (int64_t b = 0; b < n; b++)
        for (int64_t i = 0; i < h; i++)
            for (int64_t j = 0; j < w; j++)
                for (int k = 0; k < 2; k++) {
                    const double *t = theta + b * 6 + k * 3;
                    grid[((b * h + i) * w + j) * 2 + k] = t[0] * coord(j, w) + t[1] * coord(i, h) + t[2];
                }
}

void
fdnn_ref_st_grid_backward(int64_t n, int64_t h, int64_t w, const double *dgrid, double *dtheta)
{
    for (int64_t b = 0; b < n; b++)
        for (int k = 0; k < 2; k++) {
            double *t = dtheta + b * 6 + k * 3;
            t[0] = t[1] = t[2] = 0.0;
            for (int64_t i = 0; i < h; i++)
                for (int64_t j = 0; j < w; j++) {
                    double g = dgrid[((b * h + i) * w + j) * 2 + k];
                    t[0] += g * coord(j, w);
                    t[1] += g * coord(i, h);
                    t[2] += g;
                }
        }
}

/* Bilinear weight of integer point (p, q) for the sampling point (iy, ix):
 * the hat function, nonzero for the four neighbours only. */
static double
weight(double iy, double ix, int64_t p, int64_t q)
{
    double wy = 1.0 - fabs(iy - (double)p), wx = 1.0 - fabs(ix - (double)q);
    return wy > 0.0 && wx > 0.0 ? wy * wx : 0.0;
}

void
fdnn_ref_st_sample(int64_t n, int64_t c, int64_t hin, int64_t win, int64_t h, int64_t w, const double *x,
                   const double *grid, double *y)
{
    for (int64_t b = 0; b < n; b++)
        for (int64_t i = 0; i < h; i++)
            for (int64_t j = 0; j < w; j++) {
                const double *g = grid + ((b * h + i) * w + j) * 2;
                double ix = (g[0] + 1.0) * (double)(win - 1) / 2.0, iy = (g[1] + 1.0) * (double)(hin - 1) / 2.0;
                for (int64_t ch = 0; ch < c; ch++) {
                    /* A NaN coordinate makes every weight NaN: the sample is
                     * NaN (docs/numerics.md); weight() alone would give 0. */
                    double v = isnan(ix) || isnan(iy) ? NAN : 0.0;
                    for (int64_t p = 0; p < hin; p++)
                        for (int64_t q = 0; q < win; q++)
                            v += weight(iy, ix, p, q) * x[((b * c + ch) * hin + p) * win + q];
                    y[((b * c + ch) * h + i) * w + j] = v;
                }
            }
}

void
fdnn_ref_st_sample_backward(int64_t n, int64_t c, int64_t hin, int64_t win, int64_t h, int64_t w,
                            const double *x, const double *grid, const double *dy, double *dx, double *dgrid)
{
    for (int64_t k = 0; k < n * c * hin * win; k++)
        dx[k] = 0.0;
    for (int64_t b = 0; b < n; b++)
        for (int64_t i = 0; i < h; i++)
            for (int64_t j = 0; j < w; j++) {
                const double *g = grid + ((b * h + i) * w + j) * 2;
                double ix = (g[0] + 1.0) * (double)(win - 1) / 2.0, iy = (g[1] + 1.0) * (double)(hin - 1) / 2.0;
                double gx = 0.0, gy = 0.0;
                /* The neighbours are floor(ix) and floor(ix) + 1 (likewise y);
                 * at an integer coordinate the derivative is the one towards
                 * +1 (the convention of PyTorch and cuDNN). */
                double q0 = floor(ix), p0 = floor(iy);
                for (int64_t ch = 0; ch < c; ch++) {
                    double d = dy[((b * c + ch) * h + i) * w + j];
                    for (int dp = 0; dp < 2; dp++)
                        for (int dq = 0; dq < 2; dq++) {
                            double pp = p0 + dp, qq = q0 + dq;
                            if (!(pp >= 0 && pp < (double)hin && qq >= 0 && qq < (double)win))
                                continue;
                            int64_t p = (int64_t)pp, q = (int64_t)qq;
                            double wy = 1.0 - fabs(iy - pp), wx = 1.0 - fabs(ix - qq);
                            double xv = x[((b * c + ch) * hin + p) * win + q];
                            dx[((b * c + ch) * hin + p) * win + q] += wy * wx * d;
                            gx += d * xv * wy * (dq ? 1.0 : -1.0);
                            gy += d * xv * wx * (dp ? 1.0 : -1.0);
                        }
                }
                dgrid[((b * h + i) * w + j) * 2] = gx * (double)(win - 1) / 2.0;
                dgrid[((b * h + i) * w + j) * 2 + 1] = gy * (double)(hin - 1) / 2.0;
            }
}
