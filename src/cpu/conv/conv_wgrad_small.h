/* SPDX-License-Identifier: Apache-2.0
 * FP32 backward filter of 2-D convolutions with few input channels per
 * group (the RGB stems: MobileNet v2's 3x3 3->32 stride 2, ResNet's 7x7
 * 3->64 stride 2), listed under BWD_FILTER ALGO_1 ahead of the GEMM engine:
 *
 *   T_g[crs][k] = sum_n sum_p col_n[crs][p] * dy[n][g*Kg + k][p]
 *
 * over the group's CRS = Cg*R*S im2col rows, as one GEMM per block of
 * whole output rows of one image: col's rows gathered from x into a
 * [CRS][positions] block (the microkernel's A, read in place by its
 * `arows` kernel, or packed where the level has none), dy's block as B
 * (channels-last dy read in place, otherwise copied into [positions][K]).
 *
 * Work is cut into slabs fixed by the problem (one image, or a band of
 * its rows when the batch is small), never by the thread count: each slab
 * sums its blocks into a partial T of its own, the threads take slabs in
 * turn, and the partials are added in slab order before alpha / beta go
 * into dw.  So every dw element is the same sum for any thread count.
 *
 * The GEMM engine's wide path ran these layers with a parallel call per
 * block of positions on a CRS x K product of 27 x 32 or 147 x 64: too
 * little work per call to split (measured in docs/performance.md, "Stem
 * backward filter"). */
#ifndef FDNN_CPU_CONV_WGRAD_SMALL_H
#define FDNN_CPU_CONV_WGRAD_SMALL_H

#include "core/conv_solver.h"

/* SUCCESS for FP32 2-D backward filter with at most
 * FDNN_WGRAD_SMALL_MAX_CG input channels per group (and bounded CRS, Kg);
 * NOT_SUPPORTED with the reason otherwise. */
cudnnStatus_t fdnn_conv_wgrad_small_applicable(const fdnn_conv_problem_t *p);

/* 0: the buffers come from the handle's scratch (ALGO_1 is a
 * zero-workspace algorithm). */
cudnnStatus_t fdnn_conv_wgrad_small_workspace(const fdnn_conv_problem_t *p, size_t *bytes);

cudnnStatus_t fdnn_conv_wgrad_small_execute(const fdnn_conv_exec_t *e);

#define FDNN_WGRAD_SMALL_MAX_CG 4

#endif /* FDNN_CPU_CONV_WGRAD_SMALL_H */
