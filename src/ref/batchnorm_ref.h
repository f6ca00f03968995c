/* SPDX-License-Identifier: Apache-2.0
 * Batch normalisation, float64 reference: the specification the CPU code and
 * the tests are held to.  Plain loops, two-pass statistics.
 *
 * Arrays are packed NCHW doubles: x[(n*C + c)*S + s] with S the product of
 * the spatial dims.  A feature is a channel c (per channel, M = N*S samples)
 * or a pair (c, s) (per activation, index c*S + s, M = N samples); the
 * per-feature arrays have F = C or C*S entries.
 *
 *   mean[f] = sum x / M;  var[f] = sum (x - mean)^2 / M
 *   inv[f]  = 1 / sqrt(var + eps)
 *   pre     = scale * (x - mean) * inv + bias [+ z];  y = relu ? max(pre, 0) : pre
 *   running_mean = (1 - factor) * running_mean + factor * mean
 *   running_var  = (1 - factor) * running_var + factor * var * M / (M - 1)
 *
 * Backward (g = dy where the ReLU passed, else 0; xhat = (x - mean) * inv):
 *   dbias = sum g;  dscale = sum g * xhat
 *   dx = scale * inv * (g - dbias / M - xhat * dscale / M);  dz = g */
#ifndef FDNN_REF_BATCHNORM_REF_H
#define FDNN_REF_BATCHNORM_REF_H

#include <stdbool.h>
#include <stdint.h>

typedef struct fdnn_ref_bn_shape {
    int64_t n, c, s;
    bool per_activation;
} fdnn_ref_bn_shape_t;

int64_t fdnn_ref_bn_features(const fdnn_ref_bn_shape_t *sh);

/* mean, var (biased) and inv = 1/sqrt(var + eps) of every feature. */
void fdnn_ref_bn_stats(const fdnn_ref_bn_shape_t *sh, const double *x, double eps, double *mean, double *var,
                       double *inv);

/* y from given statistics (inference, or training with computed ones). z may
 * be NULL. */
void fdnn_ref_bn_apply(const fdnn_ref_bn_shape_t *sh, const double *x, const double *z, const double *scale,
                       const double *bias, const double *mean, const double *inv, bool relu, double *y);

/* The running-average update (factor == 1 does not read the old values). */
void fdnn_ref_bn_running(const fdnn_ref_bn_shape_t *sh, const double *mean, const double *var, double factor,
                         double *run_mean, double *run_var);

/* Gradients.  y_fwd (the forward output) gives the ReLU mask when relu; dz
 * may be NULL. */
void fdnn_ref_bn_backward(const fdnn_ref_bn_shape_t *sh, const double *x, const double *dy, const double *y_fwd,
                          bool relu, const double *scale, const double *mean, const double *inv, double *dx,
                          double *dscale, double *dbias, double *dz);

#endif /* FDNN_REF_BATCHNORM_REF_H */
