/* SPDX-License-Identifier: Apache-2.0
 * Row kernels of batch normalisation, one table per ISA level.
 *
 * The engine (bn_engine.c) walks a tensor as rows: runs of elements with a
 * constant step in every tensor involved.  Each row segment is loaded into
 * a float64 buffer, the arithmetic runs on those buffers and the result is
 * stored back in the tensor's type.  Working in float64 costs nothing that
 * matters for a memory-bound operation and makes the statistics accurate
 * for every storage type.
 *
 * Along a row the feature (the statistics slot: channel, or channel and
 * position in per-activation mode) advances by `fs` per element; fs == 0
 * means the whole row belongs to one feature.  Per-feature arrays (shift,
 * a, b, c, s1, s2) are passed already offset to the row's first feature.
 *
 * Sums are accumulated in 8 fixed lanes combined in a fixed order, so the
 * result does not depend on the ISA either.  Preconditions (asserted by the
 * caller): n > 0, buffers hold n doubles, no aliasing between outputs and
 * inputs except where stated. */
#ifndef FDNN_CPU_BATCHNORM_BN_KERNELS_H
#define FDNN_CPU_BATCHNORM_BN_KERNELS_H

#include <stdint.h>

#include "core/cpu.h"
#include "cudnn.h"

typedef struct fdnn_bn_kernels {
    /* dst[i] = src[i*stride] converted from dt (FLOAT, DOUBLE, HALF, BFLOAT16). */
    void (*load)(double *dst, const void *src, cudnnDataType_t dt, int64_t n, int64_t stride);
    /* dst[i*stride] = alpha*v[i] + beta*dst[i*stride], rounded to dt; with
     * beta == 0 dst is not read (it may hold NaN). */
    void (*store)(void *dst, cudnnDataType_t dt, int64_t stride, const double *v, int64_t n, double alpha,
                  double beta);
    /* s1[f] += x[i] - shift[f]; s2[f] += (x[i] - shift[f])^2, f = i*fs. */
    void (*stats)(const double *x, int64_t n, const double *shift, int64_t fs, double *s1, double *s2);
    /* v[i] = a[f]*x[i] + b[f]. */
    void (*affine)(double *v, const double *x, int64_t n, const double *a, const double *b, int64_t fs);
    /* s1[f] += dy[i]; s2[f] += dy[i]*(x[i] - mean[f]). */
    void (*bstats)(const double *dy, const double *x, int64_t n, const double *mean, int64_t fs, double *s1,
                   double *s2);
    /* v[i] = a[f]*dy[i] + b[f]*x[i] + c[f]. */
    void (*affine3)(double *v, const double *dy, const double *x, int64_t n, const double *a, const double *b,
                    const double *c, int64_t fs);

    /* FP32 fast path: the same arithmetic (in float64, in registers, the
     * same lane order, so bitwise the same results) reading x/dy and writing
     * y/dx as floats with element strides, without the float64 buffers.
     * stats_f32: stats() of x[i*xs].  affine_f32: y[i*ys] = alpha*(a*x+b) +
     * beta*y as store().  bstats_f32: bstats() of dy[i*ds], x[i*xs].
     * affine3_f32: dx[i*os] = alpha*(a*dy+b*x+c) + beta*dx as store(). */
    void (*stats_f32)(const float *x, int64_t xs, int64_t n, const double *shift, int64_t fs, double *s1,
                      double *s2);
    void (*affine_f32)(float *y, int64_t ys, const float *x, int64_t xs, int64_t n, const double *a,
                       const double *b, int64_t fs, double alpha, double beta);
    void (*bstats_f32)(const float *dy, int64_t ds, const float *x, int64_t xs, int64_t n, const double *mean,
                       int64_t fs, double *s1, double *s2);
    void (*affine3_f32)(float *dx, int64_t os, const float *dy, int64_t ds, const float *x, int64_t xs, int64_t n,
                        const double *a, const double *b, const double *c, int64_t fs, double alpha, double beta);
} fdnn_bn_kernels_t;

extern const fdnn_bn_kernels_t fdnn_bn_kernels_scalar;
#if defined(__x86_64__) || defined(__i386__)
extern const fdnn_bn_kernels_t fdnn_bn_kernels_avx2;
extern const fdnn_bn_kernels_t fdnn_bn_kernels_avx512;
#endif

/* The table for an ISA level (the best one at or below it). */
const fdnn_bn_kernels_t *fdnn_bn_kernels_for(fdnn_isa_t isa);

#endif /* FDNN_CPU_BATCHNORM_BN_KERNELS_H */
