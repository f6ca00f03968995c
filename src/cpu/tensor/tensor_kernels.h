/* SPDX-License-Identifier: Apache-2.0
 * The plans the tensor engines (eltwise.c, reduce.c) hand to their per-ISA
 * task functions (tensor_kernels.inc, compiled once per ISA).  A plan is
 * fully checked and flattened; a task is one independent unit of a parallel
 * loop, so results never depend on how tasks are spread over threads. */
#ifndef FDNN_CPU_TENSOR_TENSOR_KERNELS_H
#define FDNN_CPU_TENSOR_TENSOR_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/tensor/tensor_ops.h"

/* Elements per block: rows are processed BLK elements at a time through
 * stack buffers of the compute type. */
#define FDNN_TENSOR_BLK 256

/* Elementwise: dims[nd-1] is the row (the dim where c has its smallest
 * stride).  Rows are taken `group` at a time along dims[nd-2]: a task is
 * piece `task % pieces` of a group of rows, and runs block by block over
 * the group (group > 1 when a is contiguous along dims[nd-2] and not along
 * the row, a transpose: the rows of a group share a's cache lines). */
typedef struct fdnn_elt_plan {
    const fdnn_eltwise_t *p;
    int nd;
    int64_t dims[CUDNN_DIM_MAX];
    int64_t sc[CUDNN_DIM_MAX], sa[CUDNN_DIM_MAX], sb[CUDNN_DIM_MAX]; /* in elements */
    size_t ec, ea, eb;                                                /* element sizes */
    int64_t piece, pieces;
    int64_t group;
} fdnn_elt_plan_t;

/* A partial result of one chunk of a split reduction. */
typedef struct fdnn_red_partial {
    double value;
    int64_t index; /* -1: no element seen that counts (all NaN) */
} fdnn_red_partial_t;

/* Reduction: outputs run over the kept dims (row-major in a's dim order,
 * which is also the packed index of the indices array); each output reduces
 * the reduced dims, flattened row-major, in chunks of `chunk` elements.
 *
 * Horizontal (kv < 0): one task per output (and chunk) walks the reduced
 * elements.  Vertical (kv >= 0): when a kept dim kv is contiguous in a, a
 * task takes up to FDNN_TENSOR_BLK outputs along it and walks the reduced
 * positions once, adding whole rows: unit-stride loads instead of gathers. */
typedef struct fdnn_red_plan {
    const fdnn_reduce_t *p;
    int nk, nr;
    int64_t kdims[CUDNN_DIM_MAX], ka[CUDNN_DIM_MAX], kc[CUDNN_DIM_MAX];
    int64_t kpack[CUDNN_DIM_MAX]; /* row-major stride of each kept dim in the output index */
    int kv;                       /* the vertical dim among the kept ones, or -1 */
    int64_t groups, columns;      /* vertical: output rows and BLK-wide column blocks */
    int64_t rdims[CUDNN_DIM_MAX], ra[CUDNN_DIM_MAX];
    int64_t outputs, rcount, chunk, nchunks;
    size_t ea, ec;
    fdnn_red_partial_t *partials; /* outputs * nchunks when nchunks > 1 */
} fdnn_red_plan_t;

#define FDNN_DECLARE_TENSOR_KERNELS(isa)                                               \
    void fdnn_elt_task__##isa(const fdnn_elt_plan_t *plan, size_t task);               \
    void fdnn_red_chunk_task__##isa(const fdnn_red_plan_t *plan, size_t task);         \
    void fdnn_red_output_task__##isa(const fdnn_red_plan_t *plan, size_t output);      \
    void fdnn_red_vertical_task__##isa(const fdnn_red_plan_t *plan, size_t task);

FDNN_DECLARE_TENSOR_KERNELS(scalar)
FDNN_DECLARE_TENSOR_KERNELS(avx2)
FDNN_DECLARE_TENSOR_KERNELS(avx512)

#endif /* FDNN_CPU_TENSOR_TENSOR_KERNELS_H */
