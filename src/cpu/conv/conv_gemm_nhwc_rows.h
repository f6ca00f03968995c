/* SPDX-License-Identifier: Apache-2.0
 * The batch 1x1 GEMM's forward and backward data (conv_gemm_nhwc.h) as one
 * parallel step over runs of positions: an unpadded 1x1 convolution on
 * channels-last tensors whose reduction (Cg forward, Kg backward data) is at
 * most 512 deep and whose filter matrix is at most 512 KiB, backward data
 * only with dx in place (stride 1, uniform positions),
 *
 *   forward:        y[NP][Kg]  = alpha x[NP][Cg] W_g^T + beta y (+ bias, ReLU)
 *   backward data:  dx[NP][Cg] = alpha dy[NP][Kg] W_g + beta dx
 *
 * W_g is packed once per group into the tile's B strips (it stays in L2);
 * each task takes a fixed run of positions (about 128 KiB of A rows) and
 * runs the level's arows kernel (A, the user's x or dy, read in place) over
 * every strip, with the whole reduction in one k block: alpha, beta, bias
 * and ReLU in the kernel's epilogue, a large C written with streaming
 * stores.
 *
 * Why: the general GEMM driver cuts such products into passes of 16 row
 * tiles (2016 rows for 14x16 at k <= 512), one parallel step each: the
 * 112x112 MobileNet v2 layers (401408 positions) made 200 steps of a few
 * microseconds of work per thread each (docs/performance.md, "NHWC 1x1
 * narrow layers").  Bitwise identical for any thread count: each element of
 * C is one kernel call whatever task computes it.
 *
 * Forward with x not in place (strides, or lines of x further apart than
 * their positions) runs by lines of output positions: task t takes a fixed
 * run of whole lines (about the same A bytes), each line's x rows read in
 * place (stride * x's W stride apart) in kernel calls of at most MR rows
 * that never span two lines.  That replaces the general path's gather of
 * x's rows and its A pack (ResNet-50's res3 28x28 stride-2 layer: 25 MB
 * copied per call and a third of the conv's CPU time, docs/performance.md,
 * "NHWC 1x1 strided forward").  Lines so short that the level's MR pads
 * them by more than a sixth (7 positions at MR 14) run the general path.
 * FLOAT only, no
 * workspace (the packed filter lives in the handle's scratch); a level
 * whose tile has no arows kernel (portable C), or alpha 0, runs the
 * general batch 1x1 GEMM instead. */
#ifndef FDNN_CPU_CONV_GEMM_NHWC_ROWS_H
#define FDNN_CPU_CONV_GEMM_NHWC_ROWS_H

#include "core/conv_solver.h"

cudnnStatus_t fdnn_conv_gemm_nhwc_rows_applicable(const fdnn_conv_problem_t *p);
cudnnStatus_t fdnn_conv_gemm_nhwc_rows_execute(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_GEMM_NHWC_ROWS_H */
