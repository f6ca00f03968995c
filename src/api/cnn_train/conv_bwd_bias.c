/* SPDX-License-Identifier: Apache-2.0
 * cudnnConvolutionBackwardBias: db = alpha * sum over N and space of dy +
 * beta * db. */
#include "api/cnn_infer/conv_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/scaling.h"
#include "cpu/conv/conv_bias.h"
#include "cpu/conv/conv_lowp.h"

cudnnStatus_t
fdnn_api_cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t dyDesc,
                                      const void *dy, const void *beta, const cudnnTensorDescriptor_t dbDesc,
                                      void *db)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(db);
    fdnn_tensor_t t, b;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(dyDesc, "dyDesc", &t));
    RETURN_IF_ERROR(fdnn_output_from_desc(dbDesc, "dbDesc", &b));
    if (t.ndim != b.ndim)
        return FDNN_BAD_PARAM("dyDesc has %d dims but dbDesc has %d", t.ndim, b.ndim);
    if (t.ndim < 3)
        return FDNN_BAD_PARAM("dyDesc has %d dims, expected at least 3", t.ndim);
    if (b.dims[1] != t.dims[1])
        return FDNN_BAD_PARAM("dbDesc has %lld channels but dyDesc has %lld", (long long)b.dims[1],
                              (long long)t.dims[1]);
    for (int i = 0; i < b.ndim; i++)
        if (i != 1 && b.dims[i] != 1)
            return FDNN_BAD_PARAM("dbDesc dim %d is %lld, expected 1 (db is 1xKx1x1)", i, (long long)b.dims[i]);
    if (t.dtype != b.dtype)
        return FDNN_BAD_PARAM("dyDesc is %s but dbDesc is %s", fdnn_dtype_name(t.dtype), fdnn_dtype_name(b.dtype));
    if (t.dtype != CUDNN_DATA_FLOAT && t.dtype != CUDNN_DATA_DOUBLE && t.dtype != CUDNN_DATA_HALF &&
        t.dtype != CUDNN_DATA_BFLOAT16)
        return FDNN_NOT_SUPPORTED("%s data: the backward bias takes FLOAT, DOUBLE, HALF and BFLOAT16",
                                  fdnn_dtype_name(t.dtype));
    if (t.ndim > 5)
        return FDNN_NOT_SUPPORTED("dyDesc has %d dims; 4-D and 5-D tensors are supported", t.ndim);
    if (t.dtype == CUDNN_DATA_HALF || t.dtype == CUDNN_DATA_BFLOAT16) /* scaling values are float */
        return fdnn_conv_lowp_bwd_bias(fdnn_handle_pool(handle), &t, dy, fdnn_scaling_value(alpha, t.dtype),
                                       fdnn_scaling_value(beta, t.dtype), db, b.strides[1]);
    fdnn_conv_bwd_bias(fdnn_handle_pool(handle), &t, dy, fdnn_scaling_value(alpha, t.dtype), fdnn_scaling_value(beta, t.dtype),
                       db, b.strides[1]);
    return CUDNN_STATUS_SUCCESS;
}
