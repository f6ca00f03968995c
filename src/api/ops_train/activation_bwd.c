/* SPDX-License-Identifier: Apache-2.0
 * cudnnActivationBackward: dx = alpha * f'(x) dy + beta * dx.
 *
 * cuDNN 8.9 semantics: all four tensors have the same dims and data type
 * (else NOT_SUPPORTED, as the 8.9 reference lists these under
 * NOT_SUPPORTED); x and dx must share strides, y and dy must share strides
 * (NOT_SUPPORTED); in place (dy == dx) needs identical strides (BAD_PARAM).
 * IDENTITY is rejected as in the forward function. */
#include "api_impl.h"
#include "api/ops_infer/activation_common.h"
#include "core/activation.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "cpu/activation/activation.h"

static bool
same_strides(const fdnn_tensor_t *a, const fdnn_tensor_t *b)
{
    for (int i = 0; i < a->ndim; i++)
        if (a->dims[i] > 1 && a->strides[i] != b->strides[i])
            return false;
    return true;
}

cudnnStatus_t
fdnn_api_cudnnActivationBackward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                 const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                                 const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                 const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                 const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_activation_t act;
    RETURN_IF_ERROR(fdnn_activation_from_desc(activationDesc, "activationDesc", &act));
    if (act.mode == CUDNN_ACTIVATION_IDENTITY)
        return FDNN_BAD_PARAM("activation mode IDENTITY does not work with cudnnActivationBackward (cuDNN 8.9)");
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
    if (yt.dtype != xt.dtype || dyt.dtype != xt.dtype || dxt.dtype != xt.dtype)
        return FDNN_NOT_SUPPORTED("y, dy, x and dx must have one data type");
    RETURN_IF_ERROR(fdnn_activation_check_dtype(xt.dtype, "xDesc"));
    if (!fdnn_tensor_same_dims(&xt, &yt) || !fdnn_tensor_same_dims(&xt, &dyt) || !fdnn_tensor_same_dims(&xt, &dxt))
        return FDNN_NOT_SUPPORTED("yDesc, dyDesc, xDesc and dxDesc must have the same dims");
    if (dy == dx && !same_strides(&dyt, &dxt))
        return FDNN_BAD_PARAM("in-place activation backward (dy == dx) needs identical strides in dyDesc and dxDesc");
    if (!same_strides(&xt, &dxt))
        return FDNN_NOT_SUPPORTED("xDesc and dxDesc have different strides");
    if (!same_strides(&yt, &dyt))
        return FDNN_NOT_SUPPORTED("yDesc and dyDesc have different strides");
    RETURN_IF_ERROR(fdnn_check_data_ptr(y, xt.dtype, "y"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dy, xt.dtype, "dy"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(x, xt.dtype, "x"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dx, xt.dtype, "dx"));
    if (fdnn_tensor_elements(&xt) == 0)
        return CUDNN_STATUS_SUCCESS;
    return fdnn_activation_backward(handle, &act, fdnn_scaling_value(alpha, xt.dtype), &yt, y, &dyt, dy, &xt, x,
                                    fdnn_scaling_value(beta, xt.dtype), &dxt, dx);
}
