/* SPDX-License-Identifier: Apache-2.0
 * Cross-channel LRN and spatial divisive normalization on the CPU.
 *
 * Window of width n around index i (cuDNN's definition, asymmetric for even
 * n): [i - lb, i + la] with lb = (n - 1) / 2 (floor) and la = n - 1 - lb,
 * clipped to the tensor.  (PyTorch's LocalResponseNorm puts the extra
 * element before i instead: the two agree for odd n only.)
 *
 * LRN across channels (dim 1), per (n, spatial position):
 *     s_c = k + (alpha / n) * sum_{j in W(c)} x_j^2
 *     y_c = x_c * s_c^-beta
 *     dx_c = dy_c s_c^-beta - (2 alpha beta / n) x_c sum_{i: c in W(i)} dy_i x_i s_i^(-beta-1)
 * Divisive normalization, per (n, c) plane over the d spatial dims, the box
 * W(p) = the window above in every spatial dim, m = means (0 when NULL):
 *     u_p = x_p - m_p
 *     s_p = k + (alpha / n^d) * sum_{q in W(p)} u_q^2
 *     y_p = x_p * s_p^-beta
 *     dx_q = dy_q s_q^-beta - (2 alpha beta / n^d) u_q sum_{p: q in W(p)} dy_p x_p s_p^(-beta-1)
 *     dmeans_q = (2 alpha beta / n^d) u_q sum_{p: q in W(p)} dy_p x_p s_p^(-beta-1)
 * Every output is blended as out = alphaS * value + betaS * out (betaS == 0
 * never reads out).  FLOAT LRN on NCHW-like tensors runs the vector kernels
 * below (float arithmetic, tasks over (n, 256 positions)); everything else
 * computes in double, one task per image (LRN) or a fixed set of tasks over
 * planes (divisive normalization).  Results do not depend on the thread
 * count. */
#ifndef FDNN_CPU_LRN_H
#define FDNN_CPU_LRN_H

#include <stdint.h>

#include "core/handle.h"
#include "core/lrn.h"
#include "core/tensor.h"

cudnnStatus_t fdnn_lrn_forward(cudnnHandle_t handle, const fdnn_lrn_t *lrn, double alpha, const fdnn_tensor_t *xt,
                               const void *x, double beta, const fdnn_tensor_t *yt, void *y);

cudnnStatus_t fdnn_lrn_backward(cudnnHandle_t handle, const fdnn_lrn_t *lrn, double alpha, const fdnn_tensor_t *dyt,
                                const void *dy, const fdnn_tensor_t *xt, const void *x, double beta,
                                const fdnn_tensor_t *dxt, void *dx);

/* means may be NULL (zeros); it has x's layout (xt).  backward: dmeans may
 * be NULL (not computed); dx and dmeans have dxt's layout. */
cudnnStatus_t fdnn_divnorm_forward(cudnnHandle_t handle, const fdnn_lrn_t *lrn, double alpha,
                                   const fdnn_tensor_t *xt, const void *x, const void *means, double beta,
                                   const fdnn_tensor_t *yt, void *y);

cudnnStatus_t fdnn_divnorm_backward(cudnnHandle_t handle, const fdnn_lrn_t *lrn, double alpha,
                                    const fdnn_tensor_t *xt, const void *x, const void *means, const void *dy,
                                    double beta, const fdnn_tensor_t *dxt, void *dx, void *dmeans);

/* The f32 cross-channel kernels for NCHW-like tensors (lrn_f32.inc): `lanes`
 * contiguous spatial positions, channel stride cs.  bwd keeps two C x FV_N
 * float arrays on the stack: C <= FDNN_LRN_F32_MAX_C. */
#define FDNN_LRN_F32_MAX_C 256

typedef struct fdnn_lrn_f32_params {
    float a_n, beta, k;       /* alpha / n, beta, k */
    int64_t lb, la;           /* window: [c - lb, c + la] */
    float alpha_s, beta_s;    /* output blending */
} fdnn_lrn_f32_params_t;

typedef struct fdnn_lrn_f32_kernels {
    void (*fwd)(const fdnn_lrn_f32_params_t *p, const float *x, float *y, int64_t C, int64_t cs, int64_t lanes);
    void (*bwd)(const fdnn_lrn_f32_params_t *p, const float *x, const float *dy, float *dx, int64_t C, int64_t cs,
                int64_t lanes);
} fdnn_lrn_f32_kernels_t;

extern const fdnn_lrn_f32_kernels_t fdnn_lrn_f32__scalar;
extern const fdnn_lrn_f32_kernels_t fdnn_lrn_f32__avx2;
extern const fdnn_lrn_f32_kernels_t fdnn_lrn_f32__avx512;
extern const fdnn_lrn_f32_kernels_t fdnn_lrn_f32__neon;

#endif /* FDNN_CPU_LRN_H */
