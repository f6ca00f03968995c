/* SPDX-License-Identifier: Apache-2.0
 * The GEMM-based convolution engine behind the GEMM solvers of the three
 * directions.  Each image and group is one (or a few) GEMMs on the GEMM
 * core (src/cpu/gemm/gemm.h):
 *
 *   forward:         y_g[Kg][P]    = W_g[Kg][CRS] * col_g[CRS][P]
 *   backward data:   dcol_g[CRS][P] = W_g^T * dy_g[Kg][P], then col2im into dx
 *   backward filter: dW_g[Kg][CRS] += dy_g[Kg][P] * col_g^T
 *
 * where CRS = C/g * kd*kh*kw and col is the im2col matrix of x.  Variants:
 *   FDNN_CONV_GEMM_IMPLICIT  col packed panel by panel (bounded tile width);
 *                            no workspace: buffers in the handle's scratch
 *   FDNN_CONV_GEMM_PRECOMP   same, the gather driven by index tables that are
 *                            precomputed once per call in the workspace
 *   FDNN_CONV_GEMM_EXPLICIT  col of a whole image materialised at once
 * 1x1 stride-1 unpadded problems read x (or dy/dx) in place when its layout
 * allows, and problems whose filter covers the whole input (fully connected
 * as a convolution) become one GEMM over the batch.
 *
 * Threads: images are split into a fixed number of chunks (min(N, 8));
 * chunks run in parallel when there are at least as many as threads (one
 * set of buffers per thread, backward filter one per chunk), else one after
 * another on one set with the GEMM itself parallel.
 * Backward filter sums the chunks' partial filters in chunk order, so the
 * result depends on the problem only, never on the thread count. */
#ifndef FDNN_CPU_CONV_GEMM_H
#define FDNN_CPU_CONV_GEMM_H

#include "core/conv_solver.h"

typedef enum fdnn_conv_gemm_variant {
    FDNN_CONV_GEMM_IMPLICIT = 0,
    FDNN_CONV_GEMM_PRECOMP = 1,
    FDNN_CONV_GEMM_EXPLICIT = 2,
} fdnn_conv_gemm_variant_t;

/* Whether variant v keeps its buffers in the handle's scratch instead of
 * the caller's workspace: IMPLICIT, so that IMPLICIT_GEMM forward and
 * backward data / filter ALGO_1 need no workspace, as cuDNN's zero-workspace
 * fallbacks.  The scratch holds the same layout as the workspace of the
 * other variants, with one set of chunk buffers per chunk running at once
 * (one, or two for backward filter's partial filters, on one thread):
 * filter copies (NHWC / CONVOLUTION-mode filters, W^T for backward data),
 * then per running chunk an im2col panel of about 1 MiB, a panel of
 * outputs and, backward data, one image's accumulator of a group or,
 * backward filter, one partial filter.  Never a buffer per image of the
 * batch. */
static inline bool
fdnn_conv_gemm_in_scratch(fdnn_conv_gemm_variant_t v)
{
    return v == FDNN_CONV_GEMM_IMPLICIT;
}

cudnnStatus_t fdnn_conv_gemm_workspace(const fdnn_conv_problem_t *p, fdnn_conv_gemm_variant_t v, size_t *bytes);
cudnnStatus_t fdnn_conv_gemm_execute(const fdnn_conv_exec_t *e, fdnn_conv_gemm_variant_t v);

/* The direct solver (conv_direct.c): the formula as loops over any strides,
 * parallel over output elements; no workspace. */
cudnnStatus_t fdnn_conv_direct_execute(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_GEMM_H */
