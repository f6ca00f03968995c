/* SPDX-License-Identifier: Apache-2.0
 * Batch normalisation on the CPU: forward inference, forward training and
 * backward, in per-channel ("spatial") and per-activation modes, with the
 * optional fused residual add and ReLU of the cuDNN Ex / normalization APIs.
 *
 * The API layer validates everything and fills an fdnn_bn_problem_t; the
 * functions here trust it (asserts only).  Notation: x has dims N, C,
 * spatial...; a "feature" is one statistics slot: a channel (M = N * spatial
 * samples each) or, per activation, a channel and spatial position (M = N).
 *
 *   mean = sum(x) / M,  var = sum((x - mean)^2) / M   (biased)
 *   y    = alpha * act(scale * (x - mean) / sqrt(var + eps) + bias [+ z]) + beta * y
 *   running_mean = (1 - f) * running_mean + f * mean
 *   running_var  = (1 - f) * running_var  + f * var * M / (M - 1)   (unbiased)
 *   saved_mean = mean, saved_inv_var = 1 / sqrt(var + eps)
 *
 * Parameter arrays (scale, bias, means, variances, their gradients) have the
 * strides of `param` and the type param.dtype (FLOAT, or DOUBLE for DOUBLE
 * data).  Data tensors may be FLOAT, DOUBLE, HALF or BFLOAT16 with any
 * strides. */
#ifndef FDNN_CPU_BATCHNORM_BN_H
#define FDNN_CPU_BATCHNORM_BN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/handle.h"
#include "core/tensor.h"

typedef struct fdnn_bn_problem {
    bool per_activation;
    bool relu;      /* ReLU after the normalisation (and the add) */
    bool relu_nan;  /* the ReLU passes NaN (CUDNN_PROPAGATE_NAN); else NaN -> 0 */
    bool add;       /* forward: z is added; backward: dz is written */
    fdnn_tensor_t x, y, z, dy, dx; /* same dims; the ones not used are ignored */
    fdnn_tensor_t param;
    double epsilon;
} fdnn_bn_problem_t;

/* Reserve bytes the training forward and the backward share: a 64-byte
 * header naming the order of the mask, then one byte per element of x
 * recording where the ReLU passed (0 without activation; layout: bn.c). */
size_t fdnn_bn_reserve_bytes(const fdnn_bn_problem_t *p);

/* y = alpha * act(scale * (x - mean) / sqrt(var + eps) + bias [+ z]) + beta * y */
cudnnStatus_t fdnn_bn_forward_inference(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha,
                                        double beta, const void *x, const void *z, void *y, const void *scale,
                                        const void *bias, const void *mean, const void *var);

/* The training forward.  run_mean/run_var may both be NULL (not updated),
 * save_mean/save_inv_var may both be NULL (not saved); reserve is needed when
 * p->relu and then receives fdnn_bn_reserve_bytes(p) bytes.  With factor == 1
 * the running values are not read (cumulative average from scratch). */
cudnnStatus_t fdnn_bn_forward_training(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha, double beta,
                                       const void *x, const void *z, void *y, const void *scale, const void *bias,
                                       double factor, void *run_mean, void *run_var, void *save_mean,
                                       void *save_inv_var, void *reserve);

/* The backward.  With saved_mean == NULL the statistics are recomputed from
 * x with p->epsilon.  dx = ad * dx' + bd * dx, dscale = ap * dscale' + bp *
 * dscale (dbias alike), where the primed values are the exact gradients; dz
 * (when p->add) receives the gradient after the activation. */
cudnnStatus_t fdnn_bn_backward(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double ad, double bd, double ap,
                               double bp, const void *x, const void *dy, void *dz, void *dx, const void *scale,
                               void *dscale, void *dbias, const void *saved_mean, const void *saved_inv_var,
                               const void *reserve);

#endif /* FDNN_CPU_BATCHNORM_BN_H */
