/* SPDX-License-Identifier: Apache-2.0
 * cudnnSoftmaxBackward.
 *
 * cuDNN 8.9 semantics (BAD_PARAM): invalid algo or mode; y, dy and dx with
 * different dims or data types; y and dy with different strides.  In place
 * (dy == dx) needs identical strides. */
#include "api_impl.h"
#include "api/ops_infer/activation_common.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "cpu/softmax/softmax.h"

static bool
same_strides(const fdnn_tensor_t *a, const fdnn_tensor_t *b)
{
    for (int i = 0; i < a->ndim; i++)
        if (a->dims[i] > 1 && a->strides[i] != b->strides[i])
            return false;
    return true;
}

cudnnStatus_t
fdnn_api_cudnnSoftmaxBackward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                              const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                              const cudnnTensorDescriptor_t dyDesc, const void *dy, const void *beta,
                              const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_softmax_check_enums(algo, mode));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    fdnn_tensor_t yt, dyt, dxt;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(yDesc, "yDesc", &yt));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(dyDesc, "dyDesc", &dyt));
    RETURN_IF_ERROR(fdnn_output_from_desc(dxDesc, "dxDesc", &dxt));
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(dx);
    if (yt.dtype != dyt.dtype || yt.dtype != dxt.dtype)
        return FDNN_BAD_PARAM("yDesc, dyDesc and dxDesc must have one data type");
    RETURN_IF_ERROR(fdnn_activation_check_dtype(yt.dtype, "yDesc"));
    if (!fdnn_tensor_same_dims(&yt, &dyt) || !fdnn_tensor_same_dims(&yt, &dxt))
        return FDNN_BAD_PARAM("yDesc, dyDesc and dxDesc must have the same dims");
    if (!same_strides(&yt, &dyt))
        return FDNN_BAD_PARAM("yDesc and dyDesc have different strides");
    if (dy == dx && !same_strides(&dyt, &dxt))
        return FDNN_BAD_PARAM("in-place softmax backward (dy == dx) needs identical strides in dyDesc and dxDesc");
    RETURN_IF_ERROR(fdnn_check_data_ptr(y, yt.dtype, "y"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dy, yt.dtype, "dy"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dx, yt.dtype, "dx"));
    return fdnn_softmax_backward(handle, algo, mode, fdnn_scaling_value(alpha, yt.dtype), &yt, y, &dyt, dy,
                                 fdnn_scaling_value(beta, yt.dtype), &dxt, dx);
}
