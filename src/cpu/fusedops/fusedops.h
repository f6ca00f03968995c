/* SPDX-License-Identifier: Apache-2.0
 * The fused-ops patterns of cudnnFusedOps_t on the CPU (docs/fused-ops.md),
 * built from the passes below and the library's convolution solvers and
 * batch-norm backward.  The API layer (src/api/cnn_train/fusedops_plan.c)
 * validates the packs and fills an fdnn_fused_plan_t; everything here trusts
 * it (asserts only).
 *
 * Data tensors are 4-D or 5-D (N, C, [D,] H, W) of FLOAT or HALF with any
 * strides; the passes compute in float64 and round once on the store.
 * Per-channel vectors (equivalent scale and bias, statistics, BN parameters)
 * are C values of their own type (FLOAT, or HALF for the equivalent scale
 * and bias) at their descriptor's channel stride.  Every sum runs in one
 * fixed order and every task writes only its own outputs, so results do not
 * depend on the thread count. */
#ifndef FDNN_CPU_FUSEDOPS_FUSEDOPS_H
#define FDNN_CPU_FUSEDOPS_FUSEDOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fusedops_desc.h"
#include "core/pool.h"
#include "core/tensor.h"
#include "cudnn.h"

/* A per-channel vector: element c at data + c * stride (elements of dtype).
 * data NULL means absent. */
typedef struct fdnn_fused_chan {
    void *data;
    cudnnDataType_t dtype;
    int64_t stride;
} fdnn_fused_chan_t;

/* One element-wise pass, per element of x (channel c):
 *   v = x * scale[c] + bias[c] + z * z_scale[c] + z_bias[c]
 *   y = relu ? max(v, 0) : v     (NaN stays NaN with relu_nan, else 0)
 * Absent scales count as 1, absent biases and z as 0.  With mask, bit c % 32
 * of the INT32 word (n, c / 32, spatial) of the mask tensor is set where v > 0
 * (where the ReLU passes the gradient) and cleared elsewhere, the bits of
 * channels >= C included.  y may be x (same strides). */
typedef struct fdnn_fused_affine {
    const fdnn_tensor_t *x;
    const void *x_data;
    fdnn_fused_chan_t scale, bias;
    const fdnn_tensor_t *z; /* NULL: no residual */
    const void *z_data;
    fdnn_fused_chan_t z_scale, z_bias;
    bool relu, relu_nan;
    const fdnn_tensor_t *y;
    void *y_data;
    const fdnn_tensor_t *mask; /* NULL: no bitmask */
    uint32_t *mask_data;
} fdnn_fused_affine_t;

/* Scratch bytes the passes below need for tensors of x's dims. */
size_t fdnn_fused_scratch_bytes(const fdnn_tensor_t *x);

/* One task per image on pool (NULL: serial). */
void fdnn_fused_affine_act(fdnn_pool_t pool, const fdnn_fused_affine_t *a, void *scratch);

/* sum[c] = sum of t over all but the channel dim, sqsum[c] = sum of squares,
 * both in float64 and stored into the FLOAT vectors (either may be absent). */
void fdnn_fused_channel_sums(fdnn_pool_t pool, const fdnn_tensor_t *t, const void *data, fdnn_fused_chan_t sum,
                             fdnn_fused_chan_t sqsum, void *scratch);

/* dt = dy where the mask bit of the element is set, else 0 (the ReLU
 * backward from the forward's bitmask).  dt may be dy. */
void fdnn_fused_relu_grad(fdnn_pool_t pool, const fdnn_tensor_t *dy, const void *dy_data, const fdnn_tensor_t *mask,
                          const uint32_t *mask_data, const fdnn_tensor_t *dt, void *dt_data, void *scratch);

/* BN finalize over C channels from the partial sums of M = count samples:
 *   mean = sum / M, var = sqsum / M - mean^2, inv = 1 / sqrt(var + eps)
 *   eqscale = scale * inv, eqbias = bias - mean * eqscale
 *   saved_mean = mean, saved_invstd = inv
 *   running_mean = (1 - f) * running_mean + f * mean
 *   running_var  = (1 - f) * running_var + f * var * M / (M - 1)
 * (as cudnnBatchNormalizationForwardTraining: the running variance takes the
 * unbiased estimate, 0 for M == 1).  Absent outputs are skipped. */
typedef struct fdnn_fused_finalize {
    int64_t channels;
    fdnn_fused_chan_t sum, sqsum;      /* training only */
    fdnn_fused_chan_t scale, bias;
    fdnn_fused_chan_t run_mean, run_var; /* read by inference, updated by training */
    fdnn_fused_chan_t saved_mean, saved_invstd;
    fdnn_fused_chan_t eqscale, eqbias;
    int64_t count;
    double epsilon, factor;
} fdnn_fused_finalize_t;

void fdnn_fused_bn_finalize_training(const fdnn_fused_finalize_t *f);

/* Inference: eqscale = scale / sqrt(running_var + eps),
 * eqbias = bias - running_mean * eqscale. */
void fdnn_fused_bn_finalize_inference(const fdnn_fused_finalize_t *f);

/* Runs a made plan: ptr[label] holds the variant pack's pointer for every
 * label the plan uses (the others NULL); workspace holds plan->ws_bytes. */
typedef struct fdnn_fused_args {
    void *ptr[FDNN_FUSED_PTR_LABELS];
    void *workspace;
    int64_t bn_count;
    double bn_factor, bn_epsilon;
} fdnn_fused_args_t;

cudnnStatus_t fdnn_fused_execute(cudnnHandle_t handle, const fdnn_fused_plan_t *plan, const fdnn_fused_args_t *a);

#endif /* FDNN_CPU_FUSEDOPS_FUSEDOPS_H */
