/* SPDX-License-Identifier: Apache-2.0
 * Channels-last backward data of one small image with the KRSC filter read
 * in place: problems whose dx and dy are channels-last, whose filter is
 * stored KRSC (each output channel's taps, each tap's Cg channels
 * contiguous) and that have at most 64 output positions over the batch
 * (ResNet-50's res5 3x3 layers at mb=1: 49) run, per group, as
 *
 *   col[P][taps*Cg] = dy_g[P][Kg] * W_g[Kg][taps*Cg]
 *
 * with dy_g's rows gathered (P x Kg, small), W_g the user's filter rows in
 * place as the GEMM core's B (fdnn_sgemm_args_t.b_read_once: 9.4 MB at
 * res5, which the blocked direct solver reorders on every call and the
 * per-image engine repacks), and col2im as a gather: each dx pixel sums,
 * tap by tap in the filter's order, the col rows of the output positions
 * that reach it, a run of Cg channels at a time, and is written once with
 * alpha and beta.  Spatial filters only (1x1 layers have solvers of their
 * own).
 *
 * FLOAT only; no workspace (the gathered dy, col and the GEMM core's
 * packing come from the handle's scratch): it serves backward data ALGO_1,
 * listed ahead of the per-image engine.  Bitwise identical for any thread
 * count (the GEMM core's split does not depend on it; each dx pixel is one
 * task's fixed-order sum). */
#ifndef FDNN_CPU_CONV_GEMM_NHWC_KRSC_BWD_H
#define FDNN_CPU_CONV_GEMM_NHWC_KRSC_BWD_H

#include "core/conv_solver.h"

cudnnStatus_t fdnn_conv_gemm_nhwc_krsc_bwd_data_applicable(const fdnn_conv_problem_t *p);
cudnnStatus_t fdnn_conv_gemm_nhwc_krsc_bwd_data_workspace(const fdnn_conv_problem_t *p, size_t *bytes);
cudnnStatus_t fdnn_conv_gemm_nhwc_krsc_bwd_data_execute(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_GEMM_NHWC_KRSC_BWD_H */
