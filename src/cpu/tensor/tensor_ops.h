/* SPDX-License-Identifier: Apache-2.0
 * The tensor operations below the API layer: one strided elementwise engine
 * (cudnnSetTensor, ScaleTensor, AddTensor, OpTensor, TransformTensor[Ex])
 * and one reduction engine (cudnnReduceTensor).
 *
 * Callers pass plain views (src/core/tensor.h) that are already checked:
 * every input view has the dims of the output, with stride 0 along the dims
 * it is broadcast over; data types are among FLOAT, DOUBLE, HALF, BFLOAT16,
 * INT8, UINT8, INT32.  Nothing here reads a descriptor or allocates. */
#ifndef FDNN_CPU_TENSOR_TENSOR_OPS_H
#define FDNN_CPU_TENSOR_TENSOR_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tensor.h"
#include "cudnn.h"

typedef enum fdnn_elt_op {
    FDNN_ELT_ADD,  /* c = (alpha1*a + alpha2*b) + beta*c */
    FDNN_ELT_MUL,  /* c = (alpha1*a) * (alpha2*b) + beta*c */
    FDNN_ELT_MIN,  /* c = min(alpha1*a, alpha2*b) + beta*c */
    FDNN_ELT_MAX,  /* c = max(alpha1*a, alpha2*b) + beta*c */
    FDNN_ELT_SQRT, /* c = sqrt(alpha1*a) + beta*c */
    FDNN_ELT_NOT,  /* c = (1 - alpha1*a) + beta*c */
    FDNN_ELT_COPY, /* c = alpha1*a + beta*c */
    FDNN_ELT_SET,  /* c = value */
} fdnn_elt_op_t;

/* One elementwise problem.  `beta == 0` never reads c (NaN in c stays out).
 * MIN/MAX: with propagate_nan a NaN operand gives NaN, without it the other
 * operand (fmin/fmax).  f64: compute in double (all tensors DOUBLE), else in
 * float.  a may alias c when both views address the same elements. */
typedef struct fdnn_eltwise {
    fdnn_elt_op_t op;
    bool propagate_nan;
    bool f64;
    double alpha1, alpha2, beta, value;
    fdnn_tensor_t c;
    void *c_data;
    fdnn_tensor_t a; /* unused for SET */
    const void *a_data;
    fdnn_tensor_t b; /* only for ADD, MUL, MIN, MAX */
    const void *b_data;
} fdnn_eltwise_t;

void fdnn_tensor_eltwise(cudnnHandle_t handle, const fdnn_eltwise_t *p);

/* The fast path of a plain type conversion (src/cpu/tensor/transform.c):
 * when p is a COPY with alpha 1 and beta 0 between FLOAT and HALF or
 * BFLOAT16, and a and c have the same dims and strides and fill their
 * span without gaps, converts with the row kernels of
 * cpu/tensor/convert_row.h (the same bits as fdnn_tensor_eltwise) and
 * returns true; otherwise does nothing and returns false. */
bool fdnn_tensor_convert_dense(cudnnHandle_t handle, const fdnn_eltwise_t *p);

/* One reduction: c = alpha * reduce(a) + beta * c over the dims where c has
 * extent 1 and a does not.  Indices (uint32, flattened over the reduced dims
 * in row-major order of a's dims) are written when `indices` is non-NULL
 * (MIN, MAX, AMAX only): the first position of the result. */
typedef struct fdnn_reduce {
    cudnnReduceTensorOp_t op;
    bool propagate_nan;
    bool f64;
    double alpha, beta;
    fdnn_tensor_t a;
    const void *a_data;
    fdnn_tensor_t c;
    void *c_data;
    uint32_t *indices; /* one per element of c, packed row-major; or NULL */
} fdnn_reduce_t;

/* Workspace bytes fdnn_tensor_reduce needs for this shape: nonzero only when
 * few outputs reduce many elements and the reduction is split into fixed
 * chunks (the split depends on the shape only, never on the threads). */
size_t fdnn_tensor_reduce_workspace(const fdnn_tensor_t *a, const fdnn_tensor_t *c);

void fdnn_tensor_reduce(cudnnHandle_t handle, const fdnn_reduce_t *p, void *workspace);

/* One tensor transform (cudnnTransformTensorEx, cudnnTransformFilter):
 *     dst = alpha * T(src) + beta * dst
 * where T pads (negative pads crop) and folds or unfolds the spatial dims.
 * Dim 1 is the channel dim; fold[d] is 1 for every dim that is not folded
 * (always for dims 0 and 1).  With U the unfolded side and F the folded one
 * (U = src, F = dst for a fold; the reverse for an unfold) and p the pads on
 * U's side (the pads for a fold, the negated pads for an unfold):
 *     F[n + p0][p1 + off * C_U + c][(h + p2) / f2]... = U[n][c][h]...
 * with off the row-major index of the phases ((h + p_d) mod f_d) over the
 * spatial dims and C_U U's channel count.  Every element of dst that no
 * element of src maps to is padding: 0, or beta * dst.  Unfolding is thus
 * the exact inverse of folding with the pads negated.  dst's dims are those
 * cudnnInitTransformDest derives (the caller checks); src and dst do not
 * overlap. */
typedef struct fdnn_transform {
    bool unfold;
    bool f64; /* compute in double (DOUBLE or INT32 on either side) */
    double alpha, beta;
    int32_t pad_before[CUDNN_DIM_MAX];
    uint32_t fold[CUDNN_DIM_MAX];
    fdnn_tensor_t src;
    const void *src_data;
    fdnn_tensor_t dst;
    void *dst_data;
} fdnn_transform_t;

void fdnn_tensor_transform(cudnnHandle_t handle, const fdnn_transform_t *p);

/* The order cudnnReorderFilterAndBias (CUDNN_DEFAULT_REORDER) gives an
 * INT8x32 NCHW_VECT_C filter for the IMMA kernels.  src holds k rows of
 * `row` bytes (row = C * spatial, a multiple of 32: chunks of 32 channels
 * at one tap); dst gets, for each chunk, the k rows in groups of 8 output
 * channels o = 8a + 2b + c (b < 4, c < 2) laid out as (a, c, lane / 4, b,
 * lane % 4): the transpose XLA documents as equivalent
 * (CudnnInferTransposeForFilterReordering: [O/8, 4, 2, I/32, 8, 4, H, W]
 * permuted to [I/32, H, W, O/8, 2, 8, 4, 4]), which VirtualGPU
 * (pantheongpu/pantheonsim, nvidia/tests/e2e/dnn_classic_paths.cu) measured
 * on an RTX 3060.  k must be a multiple of 8. */
void fdnn_reorder_int8x32_filter(const int8_t *src, int8_t *dst, int64_t k, int64_t row);

/* The bias order that goes with it: per block of 32 output channels,
 * channel 8g + 4h + z (g < 4, h < 2, z < 4) moves to 16h + 4g + z (XLA's
 * CudnnInferTransposeForBiasReordering: [O/32, 4, 2, 4] permuted by
 * {0, 2, 1, 3}).  k must be a multiple of 32; elements of `esz` bytes. */
void fdnn_reorder_int8x32_bias(const void *src, void *dst, int64_t k, size_t esz);

#endif /* FDNN_CPU_TENSOR_TENSOR_OPS_H */
