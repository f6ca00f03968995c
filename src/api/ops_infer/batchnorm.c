/* SPDX-License-Identifier: Apache-2.0
 * Batch normalization, inference side: cudnnDeriveBNTensorDescriptor and
 * cudnnBatchNormalizationForwardInference.  The op is in
 * src/cpu/batchnorm/bn.h. */
#include "api/ops_infer/batchnorm_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "cpu/batchnorm/bn.h"

cudnnStatus_t
fdnn_api_cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derivedBnDesc, const cudnnTensorDescriptor_t xDesc,
                                       cudnnBatchNormMode_t mode)
{
    bool per_activation;
    RETURN_IF_ERROR(fdnn_bn_check_mode(mode, &per_activation));
    return fdnn_bn_derive(derivedBnDesc, xDesc, per_activation, "derivedBnDesc");
}

cudnnStatus_t
fdnn_api_cudnnBatchNormalizationForwardInference(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                                 const void *alpha, const void *beta,
                                                 const cudnnTensorDescriptor_t xDesc, const void *x,
                                                 const cudnnTensorDescriptor_t yDesc, void *y,
                                                 const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
                                                 const void *bnScale, const void *bnBias,
                                                 const void *estimatedMean, const void *estimatedVariance,
                                                 double epsilon)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(fdnn_bn_check_mode(mode, &p.per_activation));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(bnScale);
    RETURN_IF_NULL(bnBias);
    RETURN_IF_NULL(estimatedMean);
    RETURN_IF_NULL(estimatedVariance);
    RETURN_IF_ERROR(fdnn_bn_check_data(xDesc, "xDesc", &p.x));
    RETURN_IF_ERROR(fdnn_bn_check_output(yDesc, "yDesc", &p.x, &p.y));
    RETURN_IF_ERROR(fdnn_bn_check_param(bnScaleBiasMeanVarDesc, "bnScaleBiasMeanVarDesc", &p.x, p.per_activation,
                                        &p.param));
    RETURN_IF_ERROR(fdnn_bn_check_epsilon(epsilon));
    p.epsilon = epsilon;
    return fdnn_bn_forward_inference(handle, &p, fdnn_scaling_value(alpha, p.x.dtype), fdnn_scaling_value(beta, p.x.dtype),
                                     x, NULL, y, bnScale, bnBias, estimatedMean, estimatedVariance);
}
