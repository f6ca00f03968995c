/* SPDX-License-Identifier: Apache-2.0
 * Reduced-precision convolutions: HALF and BFLOAT16 data (PSEUDO_HALF,
 * TRUE_HALF, PSEUDO_BFLOAT16 configurations) and the math types that round
 * operands to BF16 (TENSOR_OP_MATH on HALF/BF16 data,
 * TENSOR_OP_MATH_ALLOW_CONVERSION on FLOAT data), in every direction.
 *
 * The path runs the FP32 solvers on an FP32 shadow of the problem: the
 * operands read are converted to FP32 (rounded to BF16 precision when the
 * math type says so: the products are then those of vdpbf16ps, exact in
 * FP32, accumulated in FP32) into staging buffers with the user's strides,
 * the chosen algorithm runs on them, and the result is blended with
 * alpha/beta (and bias, ReLU) in FP32 and rounded to nearest even on write.
 * Since the shadow has the user's layout, every algorithm applies exactly
 * where it applies to FLOAT data.  Staging buffers are part of the workspace
 * that the Get*WorkspaceSize / _v7 / Find queries report, except for the
 * zero-workspace fallbacks (fdnn_conv_is_zero_workspace_fallback), which
 * allocate them per call so that they still need no workspace.
 * docs/numerics.md gives the tolerances. */
#ifndef FDNN_CPU_CONV_LOWP_H
#define FDNN_CPU_CONV_LOWP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conv_solver.h"
#include "core/pool.h"
#include "core/tensor.h"

/* Whether p runs on this path: a HALF or BFLOAT16 configuration, or FLOAT
 * data whose math type rounds the operands to BF16. */
bool fdnn_conv_lowp_applies(const fdnn_conv_problem_t *p);

/* Whether the operands of p are rounded to BF16 before the products:
 * TENSOR_OP_MATH or TENSOR_OP_MATH_ALLOW_CONVERSION on HALF/BF16 data;
 * TENSOR_OP_MATH_ALLOW_CONVERSION on FLOAT data unless the environment has
 * NVIDIA_TF32_OVERRIDE=0 (which disables the down-conversion as it disables
 * TF32 on NVIDIA's GPUs). */
bool fdnn_conv_lowp_rounds_to_bf16(const fdnn_conv_problem_t *p);

/* The math type the algorithms run p with, as the _v7 and Find results
 * report it: the descriptor's TENSOR_OP type when the operands are rounded
 * to BF16, FMA_MATH when the descriptor asks for it, DEFAULT_MATH
 * otherwise. */
cudnnMathType_t fdnn_conv_math_used(const fdnn_conv_problem_t *p);

/* The FP32 problem the solvers see for p: the same shapes and strides,
 * FLOAT storage, FLOAT_CONFIG, DEFAULT_MATH. */
void fdnn_conv_lowp_shadow(const fdnn_conv_problem_t *p, fdnn_conv_problem_t *shadow);

/* fdnn_conv_algo_check for a problem of this path: the FP32 algorithm's
 * applicability, and its workspace plus the staging buffers. */
cudnnStatus_t fdnn_conv_lowp_algo_check(const fdnn_conv_problem_t *p, int algo, size_t *workspace_bytes);

/* fdnn_conv_run for a problem of this path (same checks, same contract). */
cudnnStatus_t fdnn_conv_lowp_run(const fdnn_conv_exec_t *e, int algo);

/* PSEUDO_HALF forward 1x1 convolutions (one group, no padding, any stride,
 * NCHW-packed x, y and filter), run without staging (conv_lowp_1x1.c): per
 * image and per block of output positions (sized so the FP32 result block
 * stays in L2) one fdnn_sgemm_f16, which converts the half filter and
 * input as it packs them, then the block blended, rounded to half and
 * written.  Strided filters first gather each image's positions read (as
 * half).  Its scratch fits in the workspace fdnn_conv_lowp_algo_check
 * reports, or comes from the handle. */
bool fdnn_conv_lowp_1x1_applies(const fdnn_conv_problem_t *p);
cudnnStatus_t fdnn_conv_lowp_1x1_run(const fdnn_conv_exec_t *e);

/* The same run (fdnn_conv_lowp_1x1_run) for a 2-D PSEUDO_HALF forward
 * convolution with a larger filter (any padding, stride, dilation, mode;
 * one group, NCHW-packed tensors) taken by a GEMM algorithm (IMPLICIT_GEMM,
 * IMPLICIT_PRECOMP_GEMM, GEMM) when the filter has at least as many output
 * channels as the image has output positions: each image's im2col is
 * gathered as half, then the same GEMM.  Sums in the GEMM core's order
 * (not the FP32 solver's): within the FP32 error bound of its result. */
bool fdnn_conv_lowp_im2col_applies(const fdnn_conv_problem_t *p, int algo);

/* cudnnConvolutionBackwardBias for HALF and BFLOAT16 dy/db: the FP32 (double
 * accumulated) backward bias of the converted dy, blended in FP32 and
 * rounded on write.  db: K elements of stride db_stride. */
cudnnStatus_t fdnn_conv_lowp_bwd_bias(fdnn_pool_t pool, const fdnn_tensor_t *dy, const void *dy_data, double alpha,
                                      double beta, void *db, int64_t db_stride);

#endif /* FDNN_CPU_CONV_LOWP_H */
