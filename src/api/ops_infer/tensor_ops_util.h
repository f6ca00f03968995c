/* SPDX-License-Identifier: Apache-2.0
 * Checks shared by the tensor-operation shims (tensor_ops.c, op_tensor.c,
 * reduce_tensor.c, transform.c): turning descriptors into views the engines
 * take, broadcasting, scaling factors and aliasing. */
#ifndef FDNN_API_TENSOR_OPS_UTIL_H
#define FDNN_API_TENSOR_OPS_UTIL_H

#include <stdbool.h>

#include "core/tensor.h"
#include "cudnn.h"

/* The view of a tensor operand.  BAD_PARAM for a bad descriptor;
 * NOT_SUPPORTED for NCHW_VECT_C and the vector data types (the tensor
 * operations take none), and for the types outside `allowed` (a bit mask of
 * 1u << cudnnDataType_t). */
cudnnStatus_t fdnn_tops_view(cudnnTensorDescriptor_t desc, const char *what, unsigned allowed, fdnn_tensor_t *out);

/* For the operations that refuse NCHW_VECT_C in their own order, as cuDNN
 * does (cudnnAddTensor and cudnnOpTensor check shapes first; also
 * cudnnReduceTensor): the view of any valid descriptor (BAD_PARAM
 * otherwise), its data type unchecked.  An NCHW_VECT_C descriptor's C counts
 * vectors here, since cuDNN compares shapes in vectors; such a view serves
 * the shape checks only, and fdnn_tops_check_type refuses it next. */
cudnnStatus_t fdnn_tops_view_shape(cudnnTensorDescriptor_t desc, const char *what, fdnn_tensor_t *out);

/* The refusals of fdnn_tops_view, for a view made by fdnn_tops_view_shape:
 * NOT_SUPPORTED for NCHW_VECT_C (`op` names the operation in the logged
 * reason) and for the data types outside `allowed`. */
cudnnStatus_t fdnn_tops_check_type(cudnnTensorDescriptor_t desc, const char *what, unsigned allowed, const char *op);

/* As fdnn_tops_view, but an NCHW_VECT_C descriptor (INT8x4, UINT8x4,
 * INT8x32) becomes the view of its lanes: nb + 1 dims (N, C/v, spatial...,
 * v) of INT8 / UINT8 elements, for the operations that act on each element
 * alone (cudnnSetTensor, cudnnScaleTensor).  NOT_SUPPORTED when nb + 1 is
 * more than CUDNN_DIM_MAX. */
cudnnStatus_t fdnn_tops_view_lanes(cudnnTensorDescriptor_t desc, const char *what, unsigned allowed,
                                   fdnn_tensor_t *out);

#define FDNN_TOPS_FLOAT_TYPES                                                                   \
    ((1u << CUDNN_DATA_FLOAT) | (1u << CUDNN_DATA_DOUBLE) | (1u << CUDNN_DATA_HALF) |             \
     (1u << CUDNN_DATA_BFLOAT16))
#define FDNN_TOPS_ALL_TYPES                                                                     \
    (FDNN_TOPS_FLOAT_TYPES | (1u << CUDNN_DATA_INT8) | (1u << CUDNN_DATA_UINT8) | (1u << CUDNN_DATA_INT32))

/* BAD_PARAM unless x has c's number of dims and each of its dims equals
 * c's or is 1 (`exact`: equals c's).  On success x's broadcast dims get
 * stride 0 and c's extent. */
cudnnStatus_t fdnn_tops_broadcast(fdnn_tensor_t *x, const char *what, const fdnn_tensor_t *c, bool exact);

/* *alpha from a host scaling factor: a double for double compute, else a
 * float.  BAD_PARAM when the pointer is NULL. */
cudnnStatus_t fdnn_tops_scale(const void *ptr, const char *what, bool f64, double *value);

/* BAD_PARAM when the memory of input x overlaps output c, unless both
 * address exactly the same elements in the same order (an in-place
 * elementwise operation, which is safe). */
cudnnStatus_t fdnn_tops_check_alias(const fdnn_tensor_t *x, const void *xp, const char *what,
                                     const fdnn_tensor_t *c, const void *cp);

#endif /* FDNN_API_TENSOR_OPS_UTIL_H */
