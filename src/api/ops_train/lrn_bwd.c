/* SPDX-License-Identifier: Apache-2.0
 * cudnnLRNCrossChannelBackward and cudnnDivisiveNormalizationBackward.
 * Checks as in the forward functions (src/api/ops_infer/lrn.c), over all
 * the tensors.  LRN recomputes the normaliser from x (y is validated but
 * not read); dMeans may be NULL. */
#include "api_impl.h"
#include "api/ops_infer/activation_common.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "core/lrn.h"
#include "core/tensor.h"
#include "cpu/lrn/lrn.h"

cudnnStatus_t
fdnn_api_cudnnLRNCrossChannelBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc, cudnnLRNMode_t lrnMode,
                                      const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                                      const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                      const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                      const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_lrn_t lrn;
    RETURN_IF_ERROR(fdnn_lrn_from_desc(normDesc, "normDesc", &lrn));
    if (lrnMode != CUDNN_LRN_CROSS_CHANNEL_DIM1)
        return FDNN_BAD_PARAM("lrnMode is %d, expected CUDNN_LRN_CROSS_CHANNEL_DIM1", (int)lrnMode);
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
    if (xt.ndim < 3)
        return FDNN_BAD_PARAM("xDesc has %d dims, LRN needs at least 3", xt.ndim);
    RETURN_IF_ERROR(fdnn_activation_check_dtype(xt.dtype, "xDesc"));
    RETURN_IF_ERROR(fdnn_lrn_check_pair(&xt, "xDesc", x, &yt, "yDesc", y));
    RETURN_IF_ERROR(fdnn_lrn_check_pair(&yt, "yDesc", y, &dyt, "dyDesc", dy));
    RETURN_IF_ERROR(fdnn_lrn_check_pair(&dyt, "dyDesc", dy, &dxt, "dxDesc", dx));
    RETURN_IF_ERROR(fdnn_check_data_ptr(y, xt.dtype, "y"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dy, xt.dtype, "dy"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(x, xt.dtype, "x"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dx, xt.dtype, "dx"));
    return fdnn_lrn_backward(handle, &lrn, fdnn_scaling_value(alpha, xt.dtype), &dyt, dy, &xt, x,
                             fdnn_scaling_value(beta, xt.dtype), &dxt, dx);
}

cudnnStatus_t
fdnn_api_cudnnDivisiveNormalizationBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                            cudnnDivNormMode_t mode, const void *alpha,
                                            const cudnnTensorDescriptor_t xDesc, const void *x, const void *means,
                                            const void *dy, void *temp, void *temp2, const void *beta,
                                            const cudnnTensorDescriptor_t dXdMeansDesc, void *dx, void *dMeans)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_lrn_t lrn;
    RETURN_IF_ERROR(fdnn_lrn_from_desc(normDesc, "normDesc", &lrn));
    if (mode != CUDNN_DIVNORM_PRECOMPUTED_MEANS)
        return FDNN_BAD_PARAM("mode is %d, expected CUDNN_DIVNORM_PRECOMPUTED_MEANS", (int)mode);
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    fdnn_tensor_t xt, dxt;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(xDesc, "xDesc", &xt));
    RETURN_IF_ERROR(fdnn_output_from_desc(dXdMeansDesc, "dXdMeansDesc", &dxt));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(temp);
    RETURN_IF_NULL(temp2);
    RETURN_IF_NULL(dx);
    if (xt.ndim < 4 || xt.ndim > 5)
        return FDNN_BAD_PARAM("xDesc has %d dims, expected 4 or 5", xt.ndim);
    RETURN_IF_ERROR(fdnn_activation_check_dtype(xt.dtype, "xDesc"));
    RETURN_IF_ERROR(fdnn_lrn_check_pair(&xt, "xDesc", dy, &dxt, "dXdMeansDesc", dx));
    RETURN_IF_ERROR(fdnn_check_data_ptr(x, xt.dtype, "x"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(means, xt.dtype, "means"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dy, xt.dtype, "dy"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dx, xt.dtype, "dx"));
    RETURN_IF_ERROR(fdnn_check_data_ptr(dMeans, xt.dtype, "dMeans"));
    return fdnn_divnorm_backward(handle, &lrn, fdnn_scaling_value(alpha, xt.dtype), &xt, x, means, dy,
                                 fdnn_scaling_value(beta, xt.dtype), &dxt, dx, dMeans);
}
