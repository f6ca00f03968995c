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
 * partial strip packed).  The positions are cut into a fixed number of
 * chunks (12, 6, 4 or 2 by NP, at least 256 positions each), one task
 * each: its sums T_c (Kg x Cg, or Cg x Kg when Kg > Cg) over its k blocks
 * in a scratch matrix of its own; then T = T_0 + T_1 + ... in chunk order,
 * and alpha, beta and the transpose are applied into dW_g in one pass.
 *
 * The general GEMM driver packed both operands: on ResNet-50's 56x56 1x1
 * layers that copy (dy, 103 MB per call, through narrow strips) took more
 * time than the products.  A split of T's columns over the threads (the
 * first version) made every thread pack all of the small operand, and a
 * narrow layer (MobileNet v2's 32 -> 16: one 48-wide strip) ran on one
 * thread.  Bitwise identical for any thread count: the chunks and k blocks
 * depend on NP only, and the sums are added in a fixed order. */
#ifndef FDNN_CPU_CONV_GEMM_NHWC_WGRAD_H
#define FDNN_CPU_CONV_GEMM_NHWC_WGRAD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conv_solver.h"

/* Whether this path runs e (backward filter, NP = rows > 0, alpha != 0,
 * min(Kg, Cg) <= 128 and max(Kg, Cg) <= 512, the level's tile has a
 * packed-A kernel), and the scratch bytes it needs (each chunk's sums and
 * packing lane; the shape's, not the thread count's). */
bool fdnn_conv_gemm_nhwc_wgrad_plan(const fdnn_conv_exec_t *e, size_t rows, size_t *bytes);

/* Runs it, with x's rows (ldx) and dy's rows (ldy) of every position (x
 * possibly gathered), dW's rows ldw apart, and the scratch of _plan. */
cudnnStatus_t fdnn_conv_gemm_nhwc_wgrad(const fdnn_conv_exec_t *e, const float *x, size_t ldx, const float *dy,
                                        size_t ldy, size_t ldw, size_t rows, char *scratch);

#endif /* FDNN_CPU_CONV_GEMM_NHWC_WGRAD_H */
