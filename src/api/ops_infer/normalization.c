/* SPDX-License-Identifier: Apache-2.0
 * The generic normalization API, inference side:
 * cudnnDeriveNormTensorDescriptor and cudnnNormalizationForwardInference
 * (batch normalisation with optional fused add and ReLU). */
#include "api/ops_infer/batchnorm_common.h"
#include "api/ops_infer/normalization_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "cpu/batchnorm/bn.h"

cudnnStatus_t
fdnn_api_cudnnDeriveNormTensorDescriptor(cudnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                         cudnnTensorDescriptor_t derivedNormMeanVarDesc,
                                         const cudnnTensorDescriptor_t xDesc, cudnnNormMode_t mode, int groupCnt)
{
    bool per_activation;
    RETURN_IF_ERROR(fdnn_norm_check_mode(mode, CUDNN_NORM_ALGO_STANDARD, groupCnt, &per_activation));
    RETURN_IF_ERROR(fdnn_bn_derive(derivedNormScaleBiasDesc, xDesc, per_activation, "derivedNormScaleBiasDesc"));
    return fdnn_bn_derive(derivedNormMeanVarDesc, xDesc, per_activation, "derivedNormMeanVarDesc");
}

cudnnStatus_t
fdnn_api_cudnnNormalizationForwardInference(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void *alpha,
    const void *beta, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void *estimatedMean, const void *estimatedVariance,
    const cudnnTensorDescriptor_t zDesc, const void *z, cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t yDesc, void *y, double epsilon, int groupCnt)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(fdnn_norm_check_mode(mode, algo, groupCnt, &p.per_activation));
    RETURN_IF_ERROR(fdnn_norm_check_ops(normOps, activationDesc, &p));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(normScale);
    RETURN_IF_NULL(normBias);
    RETURN_IF_NULL(estimatedMean);
    RETURN_IF_NULL(estimatedVariance);
    RETURN_IF_ERROR(fdnn_bn_check_data(xDesc, "xDesc", &p.x));
    RETURN_IF_ERROR(fdnn_bn_check_output(yDesc, "yDesc", &p.x, &p.y));
    if (p.add) {
        RETURN_IF_ERROR(fdnn_bn_check_like_x(zDesc, "zDesc", &p.x, &p.z));
        RETURN_IF_NULL(z);
    }
    fdnn_tensor_t mv;
    RETURN_IF_ERROR(fdnn_bn_check_param(normScaleBiasDesc, "normScaleBiasDesc", &p.x, p.per_activation, &p.param));
    RETURN_IF_ERROR(fdnn_bn_check_param(normMeanVarDesc, "normMeanVarDesc", &p.x, p.per_activation, &mv));
    RETURN_IF_ERROR(fdnn_norm_check_same_layout(&mv, &p.param));
    RETURN_IF_ERROR(fdnn_bn_check_epsilon(epsilon));
    p.epsilon = epsilon;
    return fdnn_bn_forward_inference(handle, &p, fdnn_scaling_value(alpha, p.x.dtype), fdnn_scaling_value(beta, p.x.dtype),
                                     x, z, y, normScale, normBias, estimatedMean, estimatedVariance);
}
