/* SPDX-License-Identifier: Apache-2.0
 * cudnnPoolingBackward.  The shape checks of the forward function apply to
 * (x, y), and dy must have y's dims, dx x's dims, all one data type
 * (BAD_PARAM).  y is validated but not read: the argmax of MAX pooling is
 * recomputed from x (src/cpu/pooling/pooling.h). */
#include "api_impl.h"
#include "api/ops_infer/activation_common.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "core/pooling.h"
#include "core/tensor.h"
#include "cpu/pooling/pooling.h"

cudnnStatus_t
fdnn_api_cudnnPoolingBackward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc, const void *alpha,
                              const cudnnTensorDescriptor_t yDesc, const void *y,
                              const cudnnTensorDescriptor_t dyDesc, const void *dy,
                              const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                              const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_pooling_t pool;
    RETURN_IF_ERROR(fdnn_pooling_from_desc(poolingDesc, "poolingDesc", &pool));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    fdnn_tensor_t yt, dyt, xt, dxt;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(yDesc, "yDesc", &yt));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(dyDesc, "dyDesc", &dyt));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(xDesc, "xDesc", &xt));
    RETURN_IF_ERROR(fdnn_output_from_desc(dxDesc, "dxDesc", &dxt));
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(dx);
    RETURN_IF_ERROR(fdnn_pooling_check_shapes(&pool, &xt, "xDesc", &yt, "yDesc"));
    if (dyt.dtype != yt.dtype || dxt.dtype != xt.dtype)
        return FDNN_BAD_PARAM("yDesc, dyDesc, xDesc and dxDesc must have one data type");
    if (!fdnn_tensor_same_dims(&dyt, &yt))
        return FDNN_BAD_PARAM("dyDesc and yDesc have different dims");
    if (!fdnn_tensor_same_dims(&dxt, &xt))
        return FDNN_BAD_PARAM("dxDesc and xDesc have different dims");
    RETURN_IF_ERROR(fdnn_check_data_ptr(y, xt.dtype, "y"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dy, xt.dtype, "dy"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(x, xt.dtype, "x"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dx, xt.dtype, "dx"));
    return fdnn_pooling_backward(handle, &pool, fdnn_scaling_value(alpha, xt.dtype), &dyt, dy, &xt, x,
                                 fdnn_scaling_value(beta, xt.dtype), &dxt, dx);
}
