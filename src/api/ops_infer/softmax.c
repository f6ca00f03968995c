/* SPDX-License-Identifier: Apache-2.0
 * cudnnSoftmaxForward.
 *
 * cuDNN 8.9 semantics: algo and mode must be valid enumerators, x and y must
 * have the same dims and data type (BAD_PARAM otherwise).  FLOAT, DOUBLE,
 * HALF and BFLOAT16; 4-D tensors as documented, and N-D ones too (the dims
 * after C are the spatial positions).  In place (x == y) needs identical
 * strides (BAD_PARAM). */
#include "api_impl.h"
#include "api/ops_infer/activation_common.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "cpu/softmax/softmax.h"

cudnnStatus_t
fdnn_softmax_check_enums(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode)
{
    if ((int)algo < CUDNN_SOFTMAX_FAST || (int)algo > CUDNN_SOFTMAX_LOG)
        return FDNN_BAD_PARAM("algo is %d, not a cudnnSoftmaxAlgorithm_t", (int)algo);
    if (mode != CUDNN_SOFTMAX_MODE_INSTANCE && mode != CUDNN_SOFTMAX_MODE_CHANNEL)
        return FDNN_BAD_PARAM("mode is %d, not a cudnnSoftmaxMode_t", (int)mode);
    return CUDNN_STATUS_SUCCESS;
}

static bool
same_strides(const fdnn_tensor_t *a, const fdnn_tensor_t *b)
{
    for (int i = 0; i < a->ndim; i++)
        if (a->dims[i] > 1 && a->strides[i] != b->strides[i])
            return false;
    return true;
}

cudnnStatus_t
fdnn_api_cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                             const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                             const cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_softmax_check_enums(algo, mode));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(xDesc, "xDesc", &xt));
    RETURN_IF_ERROR(fdnn_output_from_desc(yDesc, "yDesc", &yt));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    if (xt.dtype != yt.dtype)
        return FDNN_BAD_PARAM("xDesc is %s but yDesc is %s", fdnn_dtype_name(xt.dtype), fdnn_dtype_name(yt.dtype));
    RETURN_IF_ERROR(fdnn_activation_check_dtype(xt.dtype, "xDesc"));
    if (!fdnn_tensor_same_dims(&xt, &yt))
        return FDNN_BAD_PARAM("xDesc and yDesc have different dims");
    if (x == y && !same_strides(&xt, &yt))
        return FDNN_BAD_PARAM("in-place softmax (x == y) needs identical strides in xDesc and yDesc");
    RETURN_IF_ERROR(fdnn_check_data_ptr(x, xt.dtype, "x"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(y, xt.dtype, "y"));
    return fdnn_softmax_forward(handle, algo, mode, fdnn_scaling_value(alpha, xt.dtype), &xt, x,
                                fdnn_scaling_value(beta, xt.dtype), &yt, y);
}
