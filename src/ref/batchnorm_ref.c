/* SPDX-License-Identifier: Apache-2.0
 * Batch normalisation, float64 reference.  See batchnorm_ref.h. */
#include "ref/batchnorm_ref.h"

#include <math.h>
#include <stdlib.h>

int64_t
fdnn_ref_bn_features(const fdnn_ref_bn_shape_t *sh)
{
    return sh->per_activation ? sh->c * sh->s : sh->c;
}

static int64_t
feature(const fdnn_ref_bn_shape_t *sh, int64_t c, int64_t s)
{
    return sh->per_activation ? c * sh->s + s : c;
}

static double
samples(const fdnn_ref_bn_shape_t *sh)
{
    return (double)(sh->per_activation ? sh->n : sh->n * sh->s);
}

void
fdnn_ref_bn_stats(const fdnn_ref_bn_shape_t *sh, const double *x, double eps, double *mean, double *var,
                  double *inv)
{
    int64_t F = fdnn_ref_bn_features(sh);
    double M = samples(sh);
    for (int64_t f = 0; f < F; f++)
        mean[f] = var[f] = 0.0;
    for (int64_t n = 0; n < sh->n; n++)
        for (int64_t c = 0; c < sh->c; c++)
            for (int64_t s = 0; s < sh->s; s++)
                mean[feature(sh, c, s)] += x[(n * sh->c + c) * sh->s + s];
    for (int64_t f = 0; f < F; f++)
        mean[f] /= M;
    for (int64_t n = 0; n < sh->n; n++)
        for (int64_t c = 0; c < sh->c; c++)
            for (int64_t s = 0; s < sh->s; s++) {
                int64_t f = feature(sh, c, s);
                double d = x[(n * sh->c + c) * sh->s + s] - mean[f];
                var[f] += d * d;
            }
    for (int64_t f = 0; f < F; f++) {
        var[f] /= M;
        inv[f] = 1.0 / sqrt(var[f] + eps);
    }
}

void
fdnn_ref_bn_apply(const fdnn_ref_bn_shape_t *sh, const double *x, const double *z, const double *scale,
                  const double *bias, const double *mean, const double *inv, bool relu, double *y)
{
    for (int64_t n = 0; n < sh->n; n++)
        for (int64_t c = 0; c < sh->c; c++)
            for (int64_t s = 0; s < sh->s; s++) {
                int64_t i = (n * sh->c + c) * sh->s + s, f = feature(sh, c, s);
                double v = scale[f] * (x[i] - mean[f]) * inv[f] + bias[f];
                if (z != NULL)
                    v += z[i];
                y[i] = relu && !(v > 0.0) ? 0.0 : v;
            }
}

void
fdnn_ref_bn_running(const fdnn_ref_bn_shape_t *sh, const double *mean, const double *var, double factor,
                    double *run_mean, double *run_var)
{
    int64_t F = fdnn_ref_bn_features(sh);
    double M = samples(sh);
    for (int64_t f = 0; f < F; f++) {
        double unbiased = M > 1 ? var[f] * M / (M - 1) : 0.0;
        double old_m = factor == 1.0 ? 0.0 : run_mean[f];
        double old_v = factor == 1.0 ? 0.0 : run_var[f];
        run_mean[f] = (1.0 - factor) * old_m + factor * mean[f];
        run_var[f] = (1.0 - factor) * old_v + factor * unbiased;
    }
}

void
fdnn_ref_bn_backward(const fdnn_ref_bn_shape_t *sh, const double *x, const double *dy, const double *y_fwd,
                     bool relu, const double *scale, const double *mean, const double *inv, double *dx,
                     double *dscale, double *dbias, double *dz)
{
    int64_t F = fdnn_ref_bn_features(sh);
    double M = samples(sh);
    for (int64_t f = 0; f < F; f++)
        dscale[f] = dbias[f] = 0.0;
#define G(i) (relu && !(y_fwd[i] > 0.0) ? 0.0 : dy[i])
    for (int64_t n = 0; n < sh->n; n++)
        for (int64_t c = 0; c < sh->c; c++)
            for (int64_t s = 0; s < sh->s; s++) {
                int64_t i = (n * sh->c + c) * sh->s + s, f = feature(sh, c, s);
                double g = G(i);
                dbias[f] += g;
                dscale[f] += g * (x[i] - mean[f]) * inv[f];
                if (dz != NULL)
                    dz[i] = g;
            }
    for (int64_t n = 0; n < sh->n; n++)
        for (int64_t c = 0; c < sh->c; c++)
            for (int64_t s = 0; s < sh->s; s++) {
                int64_t i = (n * sh->c + c) * sh->s + s, f = feature(sh, c, s);
                double xhat = (x[i] - mean[f]) * inv[f];
                dx[i] = scale[f] * inv[f] * (G(i) - dbias[f] / M - xhat * dscale[f] / M);
            }
#undef G
}
