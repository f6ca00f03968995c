/* SPDX-License-Identifier: Apache-2.0
 * The Winograd convolution solvers (the whole picture: docs/convolution.md,
 * "Winograd").  Applicability follows the cuDNN 8.9 API reference tables:
 * 2-D, FLOAT, stride 1, dilation 1, and a 3x3 filter (fused WINOGRAD) or a
 * 3x3 or 5x5 filter (WINOGRAD_NONFUSED); any padding, groups and layouts.
 *
 *   non-fused (fwd, bwd data, bwd filter; conv_winograd.c,
 *   conv_winograd_bwd_filter.c): F(2x2,3x3) or F(2x2,5x5); transformed
 *       tiles of ~2 MiB blocks go through the workspace and the n*n
 *       element-wise products are GEMMs on the GEMM core.
 *   fused (fwd, bwd data; conv_winograd_fused.c): F(4x4,3x3); 16 tiles at a
 *       time are transformed, multiplied and transformed back by one
 *       per-ISA kernel while they stay in cache.
 *   non-fused backward filter of 3x3 filters (conv_winograd_bwd_filter43.c):
 *       4x4 dy tiles with the F(4,3) matrices (in place of F(2x2,3x3)); per
 *       block of 64 tiles, per-ISA transforms and products into 36 x K x C
 *       sums that stay in the workspace until the final G^T S G.
 *
 * Backward data is the forward engine applied to dy with the filter rotated
 * by 180 degrees, K and C swapped, and padding r-1-pad.  The declarations
 * of the forward non-fused entry points (fdnn_conv_winograd_applicable,
 * _workspace, _execute) predate this header and are also in conv_gemm.h;
 * they now serve all three directions, dispatching on p->dir. */
#ifndef FDNN_CPU_CONV_WINOGRAD_H
#define FDNN_CPU_CONV_WINOGRAD_H

#include "core/conv_solver.h"

/* WINOGRAD_NONFUSED of every direction. */
cudnnStatus_t fdnn_conv_winograd_applicable(const fdnn_conv_problem_t *p);
cudnnStatus_t fdnn_conv_winograd_workspace(const fdnn_conv_problem_t *p, size_t *bytes);
cudnnStatus_t fdnn_conv_winograd_execute(const fdnn_conv_exec_t *e);

/* Fused WINOGRAD, forward and backward data. */
cudnnStatus_t fdnn_conv_winograd_fused_applicable(const fdnn_conv_problem_t *p);
cudnnStatus_t fdnn_conv_winograd_fused_workspace(const fdnn_conv_problem_t *p, size_t *bytes);
cudnnStatus_t fdnn_conv_winograd_fused_execute(const fdnn_conv_exec_t *e);
/* Fused WINOGRAD forward or backward data on HALF x, w and y (dx, dy) with
 * FP32 math (PSEUDO_HALF, called by conv_lowp.c): e->p is the HALF
 * problem, shadow its FP32 twin
 * (fdnn_conv_lowp_shadow), whose workspace (fdnn_conv_winograd_fused_workspace)
 * e provides.  The gather converts the input, the filter transform the
 * filter, and the output (y or dx) is blended in FP32 (alpha, beta, bias in
 * half, ReLU) and rounded to half as it is stored: no staging pass, and bitwise
 * the FP32 solver's result on the converted operands, blended and rounded
 * once (what the staged path computes). */
cudnnStatus_t fdnn_conv_winograd_fused_execute_f16(const fdnn_conv_exec_t *e, const fdnn_conv_problem_t *shadow);

#endif /* FDNN_CPU_CONV_WINOGRAD_H */
