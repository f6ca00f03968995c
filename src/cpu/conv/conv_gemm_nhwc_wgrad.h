/* SPDX-License-Identifier: Apache-2.0
 * Backward filter of the batch 1x1 GEMM (conv_gemm_nhwc.h) on channels-last
 * operands, both read in place:
 *
 *   dW_g[Kg][Cg] = alpha dy_g^T x_g + beta dW_g
 *
 * over NP positions (rows of x and dy, lds ldx / ldy apart).  As a GEMM
 * over NP that is an outer product per position, and NHWC already stores
 * both operands k-major: the smaller of Kg, Cg is packed, k block by k
 * block, as the microkernel's A panel (one pass over each row), and the
 * larger is the microkernel's B, read in place strip by strip (a last
 * partial strip packed).  The sums T accumulate over the k blocks in a
 * scratch matrix (Kg x Cg, or Cg x Kg when Kg > Cg), then alpha, beta and
 * the transpose are applied into dW_g in one pass.
 *
 * The general GEMM driver packed both operands: on ResNet-50's 56x56 1x1
 * layers that copy (dy, 103 MB per call, through narrow strips) took more
 * time than the products.  Bitwise identical for any thread count: the k
 * blocks depend on NP only, and each element of T gets its kernel calls in
 * k order whichever task computes it. */
#ifndef FDNN_CPU_CONV_GEMM_NHWC_WGRAD_H
#define FDNN_CPU_CONV_GEMM_NHWC_WGRAD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conv_solver.h"

/* Whether this path runs e (backward filter, NP = rows > 0, alpha != 0,
 * min(Kg, Cg) <= 128 and max(Kg, Cg) <= 512, the level's tile has a
 * packed-A kernel), and the scratch bytes it needs. */
bool fdnn_conv_gemm_nhwc_wgrad_plan(const fdnn_conv_exec_t *e, size_t rows, size_t *bytes);

/* Runs it, with x's rows (ldx) and dy's rows (ldy) of every position (x
 * possibly gathered), dW's rows ldw apart, and the scratch of _plan. */
cudnnStatus_t fdnn_conv_gemm_nhwc_wgrad(const fdnn_conv_exec_t *e, const float *x, size_t ldx, const float *dy,
                                        size_t ldy, size_t ldw, size_t rows, char *scratch);

#endif /* FDNN_CPU_CONV_GEMM_NHWC_WGRAD_H */
