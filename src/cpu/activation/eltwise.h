/* SPDX-License-Identifier: Apache-2.0
 * Iteration plan for element-wise operations over 1 to 4 tensors of the
 * same dims but possibly different strides.
 *
 * The dims are reordered by the strides of operand 0 (largest first), dims
 * of extent 1 dropped, and neighbouring dims merged where every operand is
 * contiguous across them; packed NCHW or NHWC tensors with equal layouts
 * collapse to one row.  The last dim of the plan is the row walked by the
 * kernels; the others are the outer loop. */
#ifndef FDNN_CPU_ELTWISE_H
#define FDNN_CPU_ELTWISE_H

#include <stdint.h>

#include "core/tensor.h"

#define FDNN_EW_MAX_OPS 4

typedef struct fdnn_ew_plan {
    int nops;
    int ndim; /* >= 1 */
    int64_t dims[CUDNN_DIM_MAX];
    int64_t strides[FDNN_EW_MAX_OPS][CUDNN_DIM_MAX];
    int64_t rows; /* product of dims[0..ndim-1) */
    int64_t len;  /* dims[ndim-1] */
} fdnn_ew_plan_t;

/* ts[0..nops) must all have the dims of ts[0]. */
void fdnn_ew_plan_init(fdnn_ew_plan_t *plan, int nops, const fdnn_tensor_t *const *ts);

/* Element offsets of row `row` (0 <= row < plan->rows) for each operand. */
void fdnn_ew_row_offsets(const fdnn_ew_plan_t *plan, int64_t row, int64_t *offs);

#endif /* FDNN_CPU_ELTWISE_H */
