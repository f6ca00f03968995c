/* SPDX-License-Identifier: Apache-2.0
 * Pooling forward and backward on the CPU, 1 to 3 spatial dims.
 *
 * Windows (per spatial dim): output o covers inputs o * stride - pad ...
 * o * stride - pad + window - 1, clipped to the input.  The caller has
 * checked that no window lies entirely in the padding (pad < window).
 *   MAX, MAX_DETERMINISTIC  y = max over the window.  NOT_PROPAGATE_NAN
 *       skips NaN (an all-NaN window gives -Inf); PROPAGATE_NAN gives NaN
 *       when the window holds one.
 *   AVERAGE_COUNT_INCLUDE_PADDING  sum / (window volume)
 *   AVERAGE_COUNT_EXCLUDE_PADDING  sum / (number of inside elements)
 * Backward: dx = alpha * sum over the windows containing the element of
 * their share of dy + beta * dx.  For MAX the share goes to one element per
 * window: the first maximum in window order (depth, then rows, then
 * columns); with PROPAGATE_NAN the first NaN if the window holds one; an
 * all-NaN window under NOT_PROPAGATE_NAN passes nothing.  The argmax is
 * recomputed from x (cuDNN passes x and y for this; y is not needed).
 * Average windows share dy / divisor with every inside element.
 *
 * Results are identical for any thread count: each (n, c) plane (or group
 * of channels) is accumulated by one task, in output order. */
#ifndef FDNN_CPU_POOLING_H
#define FDNN_CPU_POOLING_H

#include <stdbool.h>
#include <stdint.h>

#include "core/handle.h"
#include "core/pooling.h"
#include "core/tensor.h"

/* The problem with spatial dims mapped to (D, H, W): 2-D pooling has D = 1,
 * 1-D pooling D = H = 1.  Strides in elements, index 0 N, 1 C, 2 D, 3 H,
 * 4 W. */
typedef struct fdnn_pool_problem {
    cudnnPoolingMode_t mode;
    bool propagate_nan;
    bool is_max;
    int64_t N, C;
    int64_t in[3], out[3];
    int k[3], pad[3], str[3];
    int64_t xs[5], ys[5]; /* x; y (or dy) */
    int64_t dxs[5];       /* dx in backward */
    /* y (forward) or dx (backward) may go out with non-temporal stores
     * (FLOAT, beta == 0, far larger than the caches); the kernels that
     * use them do so where the output is vector-aligned */
    bool stream;
} fdnn_pool_problem_t;

/* Fills *p from the tensors and the descriptor (shapes already checked). */
void fdnn_pool_problem_init(fdnn_pool_problem_t *p, const fdnn_pooling_t *pool, const fdnn_tensor_t *xt,
                            const fdnn_tensor_t *yt);

cudnnStatus_t fdnn_pooling_forward(cudnnHandle_t handle, const fdnn_pooling_t *pool, double alpha,
                                   const fdnn_tensor_t *xt, const void *x, double beta, const fdnn_tensor_t *yt,
                                   void *y);

cudnnStatus_t fdnn_pooling_backward(cudnnHandle_t handle, const fdnn_pooling_t *pool, double alpha,
                                    const fdnn_tensor_t *dyt, const void *dy, const fdnn_tensor_t *xt,
                                    const void *x, double beta, const fdnn_tensor_t *dxt, void *dx);

/* Per-ISA f32 kernels (pool_f32.inc) for channels-last tensors (C stride 1
 * in x and y): vectors run along C.
 * fwd_cl: one output row (n, od, oh), all ow and all C.
 * bwd_cl: image n, channels [c0, c0 + nc): with beta == 0 and !use_acc
 *         sums the shares in dx itself (acc unused, may be NULL); otherwise
 *         in acc (D*H*W rows of 64 floats, zeroed by the kernel), then
 *         blends into dx. */
typedef struct fdnn_pool_f32_kernels {
    void (*fwd_cl)(const fdnn_pool_problem_t *p, const float *x, float *y, int64_t n, int64_t od, int64_t oh,
                   float alpha, float beta);
    void (*bwd_cl)(const fdnn_pool_problem_t *p, const float *dy, const float *x, float *dx, float *acc, int64_t n,
                   int64_t c0, int64_t nc, float alpha, float beta, bool use_acc);
    /* bwd_cl by rows for D = 1: the same sums in a ring of k[1] rows of
     * W * 64 floats (ring), each input row blended into dx as soon as no
     * later window reads it; any beta, dx may be x. */
    void (*bwd_cl_rows)(const fdnn_pool_problem_t *p, const float *dy, const float *x, float *dx, float *ring,
                        int64_t n, int64_t c0, int64_t nc, float alpha, float beta);
    /* NCHW-like tensors (unit W stride in x, y and dx): one (n, c) plane;
     * vectors along the output row (gathers for strides > 1), scalar code
     * for the border columns.  bwd_nchw accumulates in acc (D*H*W floats). */
    void (*fwd_nchw)(const fdnn_pool_problem_t *p, const float *x, float *y, int64_t n, int64_t c, float alpha,
                     float beta);
    void (*bwd_nchw)(const fdnn_pool_problem_t *p, const float *dy, const float *x, float *dx, float *acc, int64_t n,
                     int64_t c, float alpha, float beta);
    /* Global average pooling (window = input, no padding; order of the sums
     * in pool_global_f32.inc).  NCHW-like: planes [q0, q1) of the N * C,
     * each D*H*W contiguous floats in x (dx).  Channels last: image n,
     * channels [c0, c1) (at most 2048), C stride 1 in the
     * operands read and written.  x is not read by the backward. */
    void (*gap_fwd_nchw)(const fdnn_pool_problem_t *p, const float *x, float *y, int64_t q0, int64_t q1, float alpha,
                         float beta);
    void (*gap_bwd_nchw)(const fdnn_pool_problem_t *p, const float *dy, float *dx, int64_t q0, int64_t q1,
                         float alpha, float beta);
    void (*gap_fwd_cl)(const fdnn_pool_problem_t *p, const float *x, float *y, int64_t n, int64_t c0, int64_t c1,
                       float alpha, float beta);
    void (*gap_bwd_cl)(const fdnn_pool_problem_t *p, const float *dy, float *dx, int64_t n, int64_t c0, int64_t c1,
                       float alpha, float beta);
} fdnn_pool_f32_kernels_t;

extern const fdnn_pool_f32_kernels_t fdnn_pool_f32__scalar;
extern const fdnn_pool_f32_kernels_t fdnn_pool_f32__avx2;
extern const fdnn_pool_f32_kernels_t fdnn_pool_f32__avx512;
extern const fdnn_pool_f32_kernels_t fdnn_pool_f32__neon;

#endif /* FDNN_CPU_POOLING_H */
