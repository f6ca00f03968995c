/* SPDX-License-Identifier: Apache-2.0
 * Softmax forward and backward on the CPU.
 *
 * A tensor of dims (N, C, S1, S2, ...) is normalised over groups:
 *   INSTANCE mode: one group per n, all C * S elements;
 *   CHANNEL mode:  one group per (n, spatial position), the C elements.
 * Per group (m = max of x over the group for ACCURATE and LOG, 0 for FAST,
 * which is cuDNN's "straightforward" formula and may overflow):
 *   FAST, ACCURATE  y  = alpha * e^(x - m) / sum e^(x - m) + beta * y
 *   LOG             y  = alpha * (x - m - log sum e^(x - m)) + beta * y
 *   backward (FAST, ACCURATE)  dx = alpha * y * (dy - sum(y * dy)) + beta * dx
 *   backward (LOG)             dx = alpha * (dy - e^y * sum(dy)) + beta * dx
 * beta == 0 never reads y (dx).  A group is reduced by one task in a fixed
 * order, so results do not depend on the thread count.  FLOAT, HALF and
 * BFLOAT16 compute in float, DOUBLE in double. */
#ifndef FDNN_CPU_SOFTMAX_H
#define FDNN_CPU_SOFTMAX_H

#include <stddef.h>
#include <stdint.h>

#include "core/handle.h"
#include "core/tensor.h"

cudnnStatus_t fdnn_softmax_forward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                                   double alpha, const fdnn_tensor_t *xt, const void *x, double beta,
                                   const fdnn_tensor_t *yt, void *y);

cudnnStatus_t fdnn_softmax_backward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                                    double alpha, const fdnn_tensor_t *yt, const void *y, const fdnn_tensor_t *dyt,
                                    const void *dy, double beta, const fdnn_tensor_t *dxt, void *dx);

/* Largest `lanes` the lanes kernels take (their per-lane state is on the
 * stack). */
#define FDNN_SOFTMAX_MAX_LANES 256

/* Per-ISA f32 kernels (softmax_f32.inc).
 * row: one group of n contiguous elements.
 * lanes: `lanes` independent groups side by side; element r of lane k is at
 *        p[r * rs + k] (lanes contiguous, reduction strided by rs). */
typedef struct fdnn_softmax_f32_params {
    cudnnSoftmaxAlgorithm_t algo;
    float alpha, beta;
} fdnn_softmax_f32_params_t;

typedef struct fdnn_softmax_f32_kernels {
    void (*row_fwd)(const fdnn_softmax_f32_params_t *p, const float *x, float *y, size_t n);
    void (*row_bwd)(const fdnn_softmax_f32_params_t *p, const float *y, const float *dy, float *dx, size_t n);
    void (*lanes_fwd)(const fdnn_softmax_f32_params_t *p, const float *x, float *y, size_t n, int64_t rs,
                      size_t lanes);
    void (*lanes_bwd)(const fdnn_softmax_f32_params_t *p, const float *y, const float *dy, float *dx, size_t n,
                      int64_t rs, size_t lanes);
} fdnn_softmax_f32_kernels_t;

extern const fdnn_softmax_f32_kernels_t fdnn_softmax_f32__scalar;
extern const fdnn_softmax_f32_kernels_t fdnn_softmax_f32__avx2;
extern const fdnn_softmax_f32_kernels_t fdnn_softmax_f32__avx512;
extern const fdnn_softmax_f32_kernels_t fdnn_softmax_f32__neon;

#endif /* FDNN_CPU_SOFTMAX_H */
