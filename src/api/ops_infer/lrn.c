/* SPDX-License-Identifier: Apache-2.0
 * cudnnLRNCrossChannelForward and cudnnDivisiveNormalizationForward, and the
 * checks the backward functions share (src/api/ops_train/lrn_bwd.c).
 *
 * cuDNN 8.9 semantics: lrnMode must be CUDNN_LRN_CROSS_CHANNEL_DIM1 and
 * mode CUDNN_DIVNORM_PRECOMPUTED_MEANS (BAD_PARAM); LRN needs 3 or more
 * dims, divisive normalization 4 or 5 (BAD_PARAM); tensors of different dims
 * or data types are BAD_PARAM; in place with different strides is
 * BAD_PARAM; otherwise different strides are NOT_SUPPORTED (as the 8.9
 * reference says).  Divisive normalization requires the temp and temp2
 * pointers (scratch the caller provides; this implementation does not need
 * them); means may be NULL (zeros). */
#include "api_impl.h"
#include "api/ops_infer/activation_common.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "core/lrn.h"
#include "core/tensor.h"
#include "cpu/lrn/lrn.h"

static bool
same_strides(const fdnn_tensor_t *a, const fdnn_tensor_t *b)
{
    for (int i = 0; i < a->ndim; i++)
        if (a->dims[i] > 1 && a->strides[i] != b->strides[i])
            return false;
    return true;
}

/* b must match a in dims and dtype (BAD_PARAM), strides (in place:
 * BAD_PARAM, else NOT_SUPPORTED). */
cudnnStatus_t
fdnn_lrn_check_pair(const fdnn_tensor_t *a, const char *an, const void *ap, const fdnn_tensor_t *b, const char *bn,
                    const void *bp)
{
    if (a->dtype != b->dtype)
        return FDNN_BAD_PARAM("%s is %s but %s is %s", an, fdnn_dtype_name(a->dtype), bn, fdnn_dtype_name(b->dtype));
    if (!fdnn_tensor_same_dims(a, b))
        return FDNN_BAD_PARAM("%s and %s have different dims", an, bn);
    if (!same_strides(a, b)) {
        if (ap == bp)
            return FDNN_BAD_PARAM("in place (%s == %s) with different strides", an, bn);
        return FDNN_NOT_SUPPORTED("%s and %s have different strides", an, bn);
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnLRNCrossChannelForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc, cudnnLRNMode_t lrnMode,
                                     const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                     const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_lrn_t lrn;
    RETURN_IF_ERROR(fdnn_lrn_from_desc(normDesc, "normDesc", &lrn));
    if (lrnMode != CUDNN_LRN_CROSS_CHANNEL_DIM1)
        return FDNN_BAD_PARAM("lrnMode is %d, expected CUDNN_LRN_CROSS_CHANNEL_DIM1", (int)lrnMode);
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(xDesc, "xDesc", &xt));
    RETURN_IF_ERROR(fdnn_output_from_desc(yDesc, "yDesc", &yt));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    if (xt.ndim < 3)
        return FDNN_BAD_PARAM("xDesc has %d dims, LRN needs at least 3", xt.ndim);
    RETURN_IF_ERROR(fdnn_activation_check_dtype(xt.dtype, "xDesc"));
    RETURN_IF_ERROR(fdnn_lrn_check_pair(&xt, "xDesc", x, &yt, "yDesc", y));
    RETURN_IF_ERROR(fdnn_check_data_ptr(x, xt.dtype, "x"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(y, xt.dtype, "y"));
    return fdnn_lrn_forward(handle, &lrn, fdnn_scaling_value(alpha, xt.dtype), &xt, x, fdnn_scaling_value(beta, xt.dtype),
                            &yt, y);
}

cudnnStatus_t
fdnn_api_cudnnDivisiveNormalizationForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                           cudnnDivNormMode_t mode, const void *alpha,
                                           const cudnnTensorDescriptor_t xDesc, const void *x, const void *means,
                                           void *temp, void *temp2, const void *beta,
                                           const cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_lrn_t lrn;
    RETURN_IF_ERROR(fdnn_lrn_from_desc(normDesc, "normDesc", &lrn));
    if (mode != CUDNN_DIVNORM_PRECOMPUTED_MEANS)
        return FDNN_BAD_PARAM("mode is %d, expected CUDNN_DIVNORM_PRECOMPUTED_MEANS", (int)mode);
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(xDesc, "xDesc", &xt));
    RETURN_IF_ERROR(fdnn_output_from_desc(yDesc, "yDesc", &yt));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(temp);
    RETURN_IF_NULL(temp2);
    RETURN_IF_NULL(y);
    if (xt.ndim < 4 || xt.ndim > 5)
        return FDNN_BAD_PARAM("xDesc has %d dims, expected 4 or 5", xt.ndim);
    RETURN_IF_ERROR(fdnn_activation_check_dtype(xt.dtype, "xDesc"));
    RETURN_IF_ERROR(fdnn_lrn_check_pair(&xt, "xDesc", x, &yt, "yDesc", y));
    RETURN_IF_ERROR(fdnn_check_data_ptr(x, xt.dtype, "x"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(means, xt.dtype, "means"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(y, xt.dtype, "y"));
    return fdnn_divnorm_forward(handle, &lrn, fdnn_scaling_value(alpha, xt.dtype), &xt, x, means,
                                fdnn_scaling_value(beta, xt.dtype), &yt, y);
}
