/* SPDX-License-Identifier: Apache-2.0
 * cudnnActivationForward: y = alpha * f(x) + beta * y.
 *
 * cuDNN 8.9 semantics: x and y have the same dims and data type (else
 * BAD_PARAM); in place (x == y) needs identical strides (else BAD_PARAM);
 * CUDNN_ACTIVATION_IDENTITY is documented as not working with this function
 * (BAD_PARAM); FLOAT, DOUBLE, HALF and BFLOAT16 data; alpha and beta point
 * to double for DOUBLE data, float otherwise. */
#include <stdint.h>

#include "api_impl.h"
#include "api/ops_infer/activation_common.h"
#include "core/activation.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "cpu/activation/activation.h"

cudnnStatus_t
fdnn_activation_check_dtype(cudnnDataType_t dtype, const char *what)
{
    switch (dtype) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return CUDNN_STATUS_SUCCESS;
    default: return FDNN_NOT_SUPPORTED("%s data type %s is not supported (FLOAT, DOUBLE, HALF, BFLOAT16)", what,
                                       fdnn_dtype_name(dtype));
    }
}

/* Data pointers must be aligned to their element size (the kernels load
 * whole elements); BAD_PARAM otherwise.  NULL is checked by the caller. */
cudnnStatus_t
fdnn_check_data_ptr(const void *ptr, cudnnDataType_t dtype, const char *what)
{
    size_t size = fdnn_dtype_size(dtype);
    if (size > 1 && ((uintptr_t)ptr % size) != 0)
        return FDNN_BAD_PARAM("%s (%p) is not aligned to its %zu-byte elements", what, ptr, size);
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
fdnn_api_cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_activation_t act;
    RETURN_IF_ERROR(fdnn_activation_from_desc(activationDesc, "activationDesc", &act));
    if (act.mode == CUDNN_ACTIVATION_IDENTITY)
        return FDNN_BAD_PARAM("activation mode IDENTITY does not work with cudnnActivationForward (cuDNN 8.9)");
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
        return FDNN_BAD_PARAM("in-place activation (x == y) needs identical strides in xDesc and yDesc");
    RETURN_IF_ERROR(fdnn_check_data_ptr(x, xt.dtype, "x"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(y, yt.dtype, "y"));
    if (fdnn_tensor_elements(&xt) == 0)
        return CUDNN_STATUS_SUCCESS;
    return fdnn_activation_forward(handle, &act, fdnn_scaling_value(alpha, xt.dtype), &xt, x,
                                   fdnn_scaling_value(beta, xt.dtype), &yt, y);
}
