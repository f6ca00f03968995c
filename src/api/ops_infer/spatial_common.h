/* SPDX-License-Identifier: Apache-2.0
 * Checks the spatial-transformer entry points share (ops_infer forward,
 * ops_train backward). */
#ifndef FDNN_API_SPATIAL_COMMON_H
#define FDNN_API_SPATIAL_COMMON_H

#include "core/spatial.h"
#include "core/tensor.h"
#include "cudnn.h"

/* BAD_PARAM unless stDesc is a created, set descriptor. */
cudnnStatus_t fdnn_spatial_check_desc(cudnnSpatialTransformerDescriptor_t stDesc);

/* The sampler's input: 4-D, stDesc's type, N and C of stDesc. */
cudnnStatus_t fdnn_spatial_check_input(cudnnSpatialTransformerDescriptor_t stDesc, cudnnTensorDescriptor_t desc,
                                       const char *what, fdnn_tensor_t *out);

/* The sampler's output: stDesc's dims and type. */
cudnnStatus_t fdnn_spatial_check_output(cudnnSpatialTransformerDescriptor_t stDesc, cudnnTensorDescriptor_t desc,
                                        const char *what, fdnn_tensor_t *out);

#endif /* FDNN_API_SPATIAL_COMMON_H */
