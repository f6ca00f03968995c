/* SPDX-License-Identifier: Apache-2.0
 * Activation forward and backward on the CPU.
 *
 *   forward:  y  = alpha * f(x) + beta * y
 *   backward: dx = alpha * f'(x) * dy + beta * dx, with f' written through
 *             y where that is how cuDNN defines it:
 *     SIGMOID       dy * y * (1 - y)
 *     TANH          dy * (1 - y^2)
 *     RELU          x > 0 ? dy : 0
 *     CLIPPED_RELU  0 < x < coef ? dy : 0
 *     ELU           x > 0 ? dy : dy * (y + coef)    (y + coef = coef * e^x)
 *     SWISH         dy * (s + swish_beta * x * s * (1 - s)), s = sigmoid(swish_beta * x)
 *   With relu_nan == PROPAGATE, a NaN x gives NaN in RELU / CLIPPED_RELU
 *   (both directions); otherwise RELU / CLIPPED_RELU map a NaN x to 0.
 *
 * beta == 0 never reads y (dx).  FLOAT, HALF and BFLOAT16 compute in float,
 * DOUBLE in double.  Tensors have equal dims (checked by the caller); y may
 * alias x (dx may alias dy) with identical strides. */
#ifndef FDNN_CPU_ACTIVATION_H
#define FDNN_CPU_ACTIVATION_H

#include <stddef.h>

#include "core/activation.h"
#include "core/handle.h"
#include "core/tensor.h"

cudnnStatus_t fdnn_activation_forward(cudnnHandle_t handle, const fdnn_activation_t *act, double alpha,
                                      const fdnn_tensor_t *xt, const void *x, double beta, const fdnn_tensor_t *yt,
                                      void *y);

cudnnStatus_t fdnn_activation_backward(cudnnHandle_t handle, const fdnn_activation_t *act, double alpha,
                                       const fdnn_tensor_t *yt, const void *y, const fdnn_tensor_t *dyt,
                                       const void *dy, const fdnn_tensor_t *xt, const void *x, double beta,
                                       const fdnn_tensor_t *dxt, void *dx);

/* The contiguous f32 kernels (one per ISA, from act_f32.inc).  n elements;
 * y (dx) is read only when p->beta != 0. */
typedef struct fdnn_act_f32_params {
    cudnnActivationMode_t mode;
    int propagate_nan;
    float coef, swish_beta, alpha, beta;
    /* Non-temporal stores for the whole vectors of y (dx) where the ISA has
     * them and y is vector-aligned: set (with beta == 0) for outputs far
     * larger than the caches, which a store would only read in to evict. */
    int stream;
} fdnn_act_f32_params_t;

typedef void (*fdnn_act_fwd_f32_fn)(const fdnn_act_f32_params_t *p, const float *x, float *y, size_t n);
typedef void (*fdnn_act_bwd_f32_fn)(const fdnn_act_f32_params_t *p, const float *x, const float *y,
                                    const float *dy, float *dx, size_t n);

void fdnn_act_fwd_f32__scalar(const fdnn_act_f32_params_t *p, const float *x, float *y, size_t n);
void fdnn_act_fwd_f32__avx2(const fdnn_act_f32_params_t *p, const float *x, float *y, size_t n);
void fdnn_act_fwd_f32__avx512(const fdnn_act_f32_params_t *p, const float *x, float *y, size_t n);
void fdnn_act_bwd_f32__scalar(const fdnn_act_f32_params_t *p, const float *x, const float *y, const float *dy,
                              float *dx, size_t n);
void fdnn_act_bwd_f32__avx2(const fdnn_act_f32_params_t *p, const float *x, const float *y, const float *dy,
                            float *dx, size_t n);
void fdnn_act_bwd_f32__avx512(const fdnn_act_f32_params_t *p, const float *x, const float *y, const float *dy,
                              float *dx, size_t n);
void fdnn_act_fwd_f32__neon(const fdnn_act_f32_params_t *p, const float *x, float *y, size_t n);
void fdnn_act_bwd_f32__neon(const fdnn_act_f32_params_t *p, const float *x, const float *y, const float *dy,
                            float *dx, size_t n);

#endif /* FDNN_CPU_ACTIVATION_H */
