/* SPDX-License-Identifier: Apache-2.0
 * The channels-last implicit GEMM with the filter read in place: forward
 * convolutions whose x and y are channels-last and whose filter is stored
 * KRSC (NHWC filter format: each output channel's taps, each tap's Cg
 * channels contiguous) run, per panel of output positions over the batch
 * and per group, as
 *
 *   C[Kg][P] = W_g[Kg][taps*Cg] * col[taps*Cg][P]
 *
 * with W_g the user's filter rows in place (the GEMM core's A, no repack:
 * ResNet-50 res5's 3x3 filter is 9.4 MB, which the per-image engine and
 * the blocked direct solver reorder on every call), col the im2col of the
 * panel in the filter's (tap, channel) row order, built from x by 16 x 16
 * transposes (a pointer per input pixel; padding reads zeros), and C a
 * [Kg][P] buffer that the GEMM's tile hook transposes into y (alpha, bias
 * and ReLU in the GEMM's epilogue when beta is 0; otherwise the whole
 * epilogue in the hook, y read there).  Panels are whole images or, for
 * larger images, runs of positions, so that col and C stay about L2-sized.
 *
 * FLOAT only; no workspace (col, C and the GEMM core's packing come from
 * the handle's scratch): it serves IMPLICIT_GEMM, listed ahead of the
 * per-image engine.  Bitwise identical for any thread count (the GEMM
 * core's split does not depend on it; the transposes are copies). */
#ifndef FDNN_CPU_CONV_GEMM_NHWC_KRSC_H
#define FDNN_CPU_CONV_GEMM_NHWC_KRSC_H

#include "core/conv_solver.h"

/* Whether p's filter is the matrix W[K][taps*Cg] (KRSC: channels dense,
 * then the taps W, H, D in row-major order), rows *lda apart; dims of
 * extent 1 may carry any stride.  Also read by the backward filter of
 * conv_gemm_nhwc_krsc_wgrad.h. */
bool fdnn_conv_krsc_rows(const fdnn_conv_problem_t *p, size_t *lda);

/* The operands the three KRSC solvers (forward here, backward data in
 * conv_gemm_nhwc_krsc_bwd.h, backward filter in conv_gemm_nhwc_krsc_wgrad.h)
 * share: direction dir, FLOAT, x and y channels-last, a packed KRSC filter
 * (*lda: its row stride), at least FDNN_CONV_KRSC_MIN_CHANNELS channels per
 * group (fewer leave the 16-channel transposes and strips mostly empty: the
 * RGB stems and depthwise layers go to other solvers).  NOT_SUPPORTED with
 * a reason that names `who` otherwise. */
#define FDNN_CONV_KRSC_MIN_CHANNELS 8
cudnnStatus_t fdnn_conv_krsc_operands(const fdnn_conv_problem_t *p, fdnn_conv_dir_t dir, const char *who,
                                      size_t *lda);

cudnnStatus_t fdnn_conv_gemm_nhwc_krsc_applicable(const fdnn_conv_problem_t *p);
cudnnStatus_t fdnn_conv_gemm_nhwc_krsc_workspace(const fdnn_conv_problem_t *p, size_t *bytes);
cudnnStatus_t fdnn_conv_gemm_nhwc_krsc_execute(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_GEMM_NHWC_KRSC_H */
