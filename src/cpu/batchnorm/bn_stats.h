/* SPDX-License-Identifier: Apache-2.0
 * The two scalar steps that every statistics path of batch normalisation
 * shares (bn.c's engine path and bn_fused.c's FP32 fast paths), so that NaN
 * and Inf follow IEEE arithmetic of the documented formulas
 *     mean = sum(x) / M,   var = sum((x - mean)^2) / M
 * whatever path computes them (docs/numerics.md). */
#ifndef FDNN_CPU_BATCHNORM_BN_STATS_H
#define FDNN_CPU_BATCHNORM_BN_STATS_H

#include <math.h>

/* The sums are taken of x - shift (shift = one element of the feature) to
 * avoid cancellation.  A non-finite shift would turn every finite element into
 * NaN and an Inf mean into NaN, which the formula does not do (sum(x) of
 * {Inf, 1} is Inf), so such a feature is summed unshifted. */
static inline double
fdnn_bn_stats_shift(double first)
{
    return isfinite(first) ? first : 0.0;
}

/* E[(x-shift)^2] - E[x-shift]^2 can round below 0 for a constant feature;
 * clamp that to 0 but keep NaN (a NaN or Inf in the feature), which a
 * `v > 0 ? v : 0` clamp would turn into 0. */
static inline double
fdnn_bn_biased_variance(double v)
{
    return v < 0.0 ? 0.0 : v;
}

#endif /* FDNN_CPU_BATCHNORM_BN_STATS_H */
