/* SPDX-License-Identifier: Apache-2.0
 * The blocked direct convolution (FP32 forward), the fast path of the
 * DIRECT solver (conv_direct.c):
 *
 *   1. the filter is reordered once per call into the workspace as
 *      [g][K/16][C/cin][kd][kh][kw][cin][16] (cin = min(C/g, 16); channels
 *      past K/g or C/g are zeros, CONVOLUTION mode reverses the taps here);
 *   2. per image, the input is reordered into [g][C/cin][D'][H'][W'][cin]
 *      with the padding materialised as zeros, so the kernel has no bounds
 *      checks (W' also covers the last, partly used pixel tile);
 *   3. tasks (group, pair of output-channel blocks, output row) run the
 *      register-tiled microkernels of src/cpu/kernels/conv_direct.h over
 *      tiles of up to 14 output pixels, then blend the tile into y (alpha,
 *      beta, bias, ReLU) in y's own layout (any strides).
 *
 * Every output element is one kernel sum in a fixed order; the task
 * partition depends on the problem and the ISA, never on the thread count.
 *
 * The reordered filter and image live in the handle's scratch memory, not
 * in the caller's workspace: DIRECT stays the forward algorithm that runs
 * with no workspace at all (the one the _v7 list offers first under
 * CUDNN_CONV_WSCAP_DBG=0, as IMPLICIT_GEMM does in cuDNN).  Its size is the
 * filter (K x C x taps, rounded up to blocks) plus one padded image, never
 * the batch. */
#ifndef FDNN_CPU_CONV_DIRECT_BLOCKED_H
#define FDNN_CPU_CONV_DIRECT_BLOCKED_H

#include <stdbool.h>

#include "core/conv_solver.h"

/* True when the blocked path runs p (FP32 forward); otherwise the DIRECT
 * solver uses its formula loops. */
bool fdnn_conv_direct_blocked_applies(const fdnn_conv_problem_t *p);

/* True when p is a forward problem whose x, w and y are all HALF or all
 * BFLOAT16 (PSEUDO_HALF / PSEUDO_BFLOAT16 with FP32 math, no rounding to
 * BF16: the caller's to decide): fdnn_conv_direct_blocked_execute then runs
 * it on the FP32 kernels, x and w converted to FP32 inside their reorders
 * and each output tile blended in FP32 and rounded to y's type (bias in
 * y's type) while in L1 — bitwise the FP32 convolution of the converted
 * operands blended and rounded as conv_lowp.c's write pass does, without
 * the staging passes.  The caller checks the FP32 problem is one
 * fdnn_conv_direct_blocked_applies takes (and no depthwise one). */
bool fdnn_conv_direct_blocked_converts(const fdnn_conv_problem_t *p);

/* Runs p (no workspace; ALLOC_FAILED when the scratch cannot grow). */
cudnnStatus_t fdnn_conv_direct_blocked_execute(const fdnn_conv_exec_t *e);

/* Backward data (FP32), any stride, padding and dilation, as forward
 * convolutions on the same kernels: one per polyphase component of dx (the
 * positions a, a+s, a+2s, ... per dimension), each the stride-1 correlation
 * of dy with the taps reaching that component, transposed and reversed.
 * Every phase's plan is made and the scratch sized before dx is written, so
 * a failure (ALLOC_FAILED, NOT_SUPPORTED for sizes too large) leaves dx
 * untouched. */
bool fdnn_conv_direct_blocked_bwd_data_applies(const fdnn_conv_problem_t *p);

/* Most phases (product of the strides) the blocked backward data takes;
 * beyond, the DIRECT solver's formula loops run it. */
#define FDNN_CONV_DIRECT_MAX_PHASES 64
cudnnStatus_t fdnn_conv_direct_blocked_bwd_data(const fdnn_conv_exec_t *e);

/* Backward filter (FP32) as a forward convolution of x with dy, the batch
 * as the channels (conv_direct_bwd_filter.c). */
bool fdnn_conv_direct_blocked_bwd_filter_applies(const fdnn_conv_problem_t *p);
cudnnStatus_t fdnn_conv_direct_blocked_bwd_filter(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_DIRECT_BLOCKED_H */
