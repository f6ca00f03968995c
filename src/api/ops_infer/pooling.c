/* SPDX-License-Identifier: Apache-2.0
 * cudnnPoolingForward, and the shape checks it shares with the backward
 * function (src/api/ops_train/pooling_bwd.c).
 *
 * Checks, in order: handle; descriptor (set); alpha, beta; tensors; data
 * pointers; equal data types (BAD_PARAM) of FLOAT, DOUBLE, HALF or BFLOAT16
 * (NOT_SUPPORTED otherwise); the tensor rank matches the descriptor's
 * spatial dims + 2 (BAD_PARAM), 1 to 3 spatial dims run (NOT_SUPPORTED
 * beyond); equal N and C (BAD_PARAM); the output dims are the ones
 * cudnnGetPoolingNdForwardOutputDim gives (BAD_PARAM).  A window that can
 * lie entirely in the padding (pad >= window) is NOT_SUPPORTED: cuDNN does
 * not define its value. */
#include "api_impl.h"
#include "api/ops_infer/activation_common.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "core/pooling.h"
#include "core/tensor.h"
#include "cpu/pooling/pooling.h"

cudnnStatus_t
fdnn_pooling_check_shapes(const fdnn_pooling_t *pool, const fdnn_tensor_t *xt, const char *xname,
                          const fdnn_tensor_t *yt, const char *yname)
{
    if (xt->dtype != yt->dtype)
        return FDNN_BAD_PARAM("%s is %s but %s is %s", xname, fdnn_dtype_name(xt->dtype), yname,
                              fdnn_dtype_name(yt->dtype));
    RETURN_IF_ERROR(fdnn_activation_check_dtype(xt->dtype, xname));
    if (xt->ndim != pool->nsp + 2)
        return FDNN_BAD_PARAM("%s has %d dims, the pooling descriptor has %d spatial dims", xname, xt->ndim,
                              pool->nsp);
    if (yt->ndim != xt->ndim)
        return FDNN_BAD_PARAM("%s has %d dims, %s has %d", yname, yt->ndim, xname, xt->ndim);
    if (pool->nsp > FDNN_POOL_MAX_SPATIAL)
        return FDNN_NOT_SUPPORTED("pooling over %d spatial dims (1 to %d are supported)", pool->nsp,
                                  FDNN_POOL_MAX_SPATIAL);
    if (xt->dims[0] != yt->dims[0] || xt->dims[1] != yt->dims[1])
        return FDNN_BAD_PARAM("%s and %s differ in N or C", xname, yname);
    for (int i = 0; i < pool->nsp; i++) {
        if (pool->padding[i] >= pool->window[i])
            return FDNN_NOT_SUPPORTED("padding %d >= window %d in spatial dim %d: windows inside the padding",
                                      pool->padding[i], pool->window[i], i);
        int64_t o = fdnn_pooling_out_dim(xt->dims[2 + i], pool->window[i], pool->padding[i], pool->stride[i]);
        if (xt->dims[2 + i] + 2 * (int64_t)pool->padding[i] < pool->window[i] || o < 1)
            return FDNN_BAD_PARAM("window %d does not fit the padded input in spatial dim %d", pool->window[i], i);
        if (yt->dims[2 + i] != o)
            return FDNN_BAD_PARAM("%s spatial dim %d is %lld, the pooling output is %lld", yname, i,
                                  (long long)yt->dims[2 + i], (long long)o);
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc, const void *alpha,
                             const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                             const cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_pooling_t pool;
    RETURN_IF_ERROR(fdnn_pooling_from_desc(poolingDesc, "poolingDesc", &pool));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(xDesc, "xDesc", &xt));
    RETURN_IF_ERROR(fdnn_output_from_desc(yDesc, "yDesc", &yt));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    RETURN_IF_ERROR(fdnn_pooling_check_shapes(&pool, &xt, "xDesc", &yt, "yDesc"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(x, xt.dtype, "x"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(y, xt.dtype, "y"));
    return fdnn_pooling_forward(handle, &pool, fdnn_scaling_value(alpha, xt.dtype), &xt, x,
                                fdnn_scaling_value(beta, xt.dtype), &yt, y);
}
