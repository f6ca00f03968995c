/* SPDX-License-Identifier: Apache-2.0
 * Channels-last backward filter written into the KRSC filter in place:
 * FLOAT backward filter with x and dy channels-last and dw stored KRSC
 * (NHWC filter format) runs, per group, as
 *
 *   dW_g[Kg][taps*Cg] = dy_g^T[Kg][P] * col[P][taps*Cg]
 *
 * over the P output positions of the batch, with dW_g the user's filter
 * rows (the microkernel's C, alpha and beta in its epilogue: no gradient
 * buffer and no transposing store).  dy^T is packed in row tiles per panel
 * of at most 2048 positions (MR channels of each dy pixel, a copy); col in
 * column strips per column block and k block (each x pixel read once per
 * tap as one run of the block's channels, zeros for padding).  Lanes claim
 * column blocks, whose C stays in L2 across the panel's k blocks.  2-D
 * problems over more than 2048 positions over the batch are declined (the
 * per-image engine's stride phases ran faster there); 3-D ones are taken.
 *
 * Why: the per-image engine's rows path computes the gradient in (c, tap)
 * rows and then scatters it into KRSC, which on ResNet-50's res5 3x3 layer
 * at mb=1 (dw 9.4 MB, 49 positions) cost twice its product.
 *
 * FLOAT only; no workspace (the packs live in the handle's scratch): it
 * serves backward filter ALGO_1, listed ahead of the per-image engine.
 * Bitwise identical for any thread count: every element of dW is one
 * fixed sequence of k blocks (panel after panel), whichever lane runs it. */
#ifndef FDNN_CPU_CONV_GEMM_NHWC_KRSC_WGRAD_H
#define FDNN_CPU_CONV_GEMM_NHWC_KRSC_WGRAD_H

#include "core/conv_solver.h"

cudnnStatus_t fdnn_conv_gemm_nhwc_krsc_wgrad_applicable(const fdnn_conv_problem_t *p);
cudnnStatus_t fdnn_conv_gemm_nhwc_krsc_wgrad_workspace(const fdnn_conv_problem_t *p, size_t *bytes);
cudnnStatus_t fdnn_conv_gemm_nhwc_krsc_wgrad_execute(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_GEMM_NHWC_KRSC_WGRAD_H */
