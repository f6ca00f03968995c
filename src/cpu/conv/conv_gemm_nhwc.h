/* SPDX-License-Identifier: Apache-2.0
 * The batch 1x1 GEMM: an unpadded 1x1 convolution whose x and y are
 * channels-last (NHWC, NDHWC: channels dense, every position of the batch a
 * constant stride apart) is one GEMM over all N*D*H*W positions on the
 * user's buffers, with the filter W[K][Cg] (KCRS and KRSC store a 1x1
 * filter alike) read in place, per group:
 *
 *   forward:         y[NP][Kg]  = alpha x[NP][Cg] W_g^T + beta y (+ bias, ReLU)
 *   backward data:   dx[NP][Cg] = alpha dy[NP][Kg] W_g + beta dx
 *   backward filter: dW_g[Kg][Cg] = alpha dy^T x + beta dW_g
 *
 * Strided (or irregularly laid out) x: forward and backward filter gather
 * x's rows of the output positions into a [NP][C] scratch buffer first (one
 * pass); backward data computes dx's rows of the reached positions there
 * and a scatter writes dx (alpha rows + beta dx there, beta dx elsewhere,
 * dx not read when beta is 0).  Padding stays with the per-image engine.
 *
 * The per-image engine (conv_gemm.h) runs N short products of HW rows there
 * and, backward filter, re-reads a K x C accumulator once per image.  FLOAT
 * only; no workspace (the GEMM core's packing buffers come from the handle's
 * scratch), so it serves the zero-workspace algorithms (IMPLICIT_GEMM,
 * backward ALGO_1).  Bitwise identical for any thread count: the GEMM core's
 * split does not depend on it. */
#ifndef FDNN_CPU_CONV_GEMM_NHWC_H
#define FDNN_CPU_CONV_GEMM_NHWC_H

#include "core/conv_solver.h"

cudnnStatus_t fdnn_conv_gemm_nhwc_applicable(const fdnn_conv_problem_t *p);
cudnnStatus_t fdnn_conv_gemm_nhwc_workspace(const fdnn_conv_problem_t *p, size_t *bytes);
cudnnStatus_t fdnn_conv_gemm_nhwc_execute(const fdnn_conv_exec_t *e);

/* For a problem _applicable accepts: the leading dimensions (elements
 * between positions) of y and of the filter's rows, and of x when it is
 * read (dx written) in place; returns whether it is (stride 1 and x's
 * positions uniformly strided; otherwise *ldx is not set). */
bool fdnn_conv_gemm_nhwc_lds(const fdnn_conv_problem_t *p, size_t *ldx, size_t *ldy, size_t *ldw);

#endif /* FDNN_CPU_CONV_GEMM_NHWC_H */
