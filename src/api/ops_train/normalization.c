/* SPDX-License-Identifier: Apache-2.0
 * The generic normalization API, training side: forward training, backward
 * and the size queries.  Batch normalisation with optional fused add and
 * ReLU; workspace 0, reserve space as the batch-norm Ex forms (one byte per
 * element with an activation). */
#include "api/ops_infer/batchnorm_common.h"
#include "api/ops_infer/normalization_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "cpu/batchnorm/bn.h"

static cudnnStatus_t
check_pair(const void *a, const char *an, const void *b, const char *bn)
{
    if ((a == NULL) != (b == NULL))
        return FDNN_BAD_PARAM("%s is %s but %s is %s; give both or neither", an, a ? "set" : "NULL", bn,
                              b ? "set" : "NULL");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_reserve(const fdnn_bn_problem_t *p, const void *reserve, size_t bytes)
{
    size_t need = fdnn_bn_reserve_bytes(p);
    if (need > 0 && reserve == NULL)
        return FDNN_BAD_PARAM("reserveSpace is NULL; the fused activation needs %zu bytes", need);
    if (bytes < need)
        return FDNN_BAD_PARAM("reserveSpaceSizeInBytes is %zu, the fused activation needs %zu", bytes, need);
    return CUDNN_STATUS_SUCCESS;
}

/* Shapes of a training problem: x, y (or dy/dx), z (or dz), parameters. */
static cudnnStatus_t
check_shapes(cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t ops, cudnnNormAlgo_t algo, int groupCnt,
             cudnnActivationDescriptor_t act, cudnnTensorDescriptor_t xDesc, cudnnTensorDescriptor_t paramDesc,
             const char *paramName, cudnnTensorDescriptor_t meanVarDesc, cudnnTensorDescriptor_t zDesc,
             const char *zName, fdnn_bn_problem_t *p)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_norm_check_mode(mode, algo, groupCnt, &p->per_activation));
    RETURN_IF_ERROR(fdnn_norm_check_ops(ops, act, p));
    RETURN_IF_ERROR(fdnn_bn_check_data(xDesc, "xDesc", &p->x));
    if (p->add)
        RETURN_IF_ERROR(fdnn_bn_check_like_x(zDesc, zName, &p->x, &p->z));
    RETURN_IF_ERROR(fdnn_bn_check_param(paramDesc, paramName, &p->x, p->per_activation, &p->param));
    /* training: the parameter descriptors also describe outputs (running
     * and saved values, dscale / dbias) */
    RETURN_IF_ERROR(fdnn_tensor_check_output(&p->param, paramName));
    if (meanVarDesc != NULL) {
        fdnn_tensor_t mv;
        RETURN_IF_ERROR(fdnn_bn_check_param(meanVarDesc, "normMeanVarDesc", &p->x, p->per_activation, &mv));
        RETURN_IF_ERROR(fdnn_norm_check_same_layout(&mv, &p->param));
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetNormalizationForwardTrainingWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt)
{
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(check_shapes(handle, mode, normOps, algo, groupCnt, activationDesc, xDesc, normScaleBiasDesc,
                                 "normScaleBiasDesc", normMeanVarDesc, zDesc, "zDesc", &p));
    RETURN_IF_ERROR(fdnn_bn_check_output(yDesc, "yDesc", &p.x, &p.y));
    RETURN_IF_NULL(sizeInBytes);
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetNormalizationBackwardWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnTensorDescriptor_t dzDesc, const cudnnTensorDescriptor_t dxDesc,
    const cudnnTensorDescriptor_t dNormScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt)
{
    (void)yDesc;
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(check_shapes(handle, mode, normOps, algo, groupCnt, activationDesc, xDesc, dNormScaleBiasDesc,
                                 "dNormScaleBiasDesc", normMeanVarDesc, dzDesc, "dzDesc", &p));
    RETURN_IF_ERROR(fdnn_bn_check_like_x(dyDesc, "dyDesc", &p.x, &p.dy));
    RETURN_IF_ERROR(fdnn_bn_check_output(dxDesc, "dxDesc", &p.x, &p.dx));
    RETURN_IF_NULL(sizeInBytes);
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetNormalizationTrainingReserveSpaceSize(cudnnHandle_t handle, cudnnNormMode_t mode,
                                                       cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
                                                       const cudnnActivationDescriptor_t activationDesc,
                                                       const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
                                                       int groupCnt)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(fdnn_norm_check_mode(mode, algo, groupCnt, &p.per_activation));
    RETURN_IF_ERROR(fdnn_norm_check_ops(normOps, activationDesc, &p));
    RETURN_IF_ERROR(fdnn_bn_check_data(xDesc, "xDesc", &p.x));
    RETURN_IF_NULL(sizeInBytes);
    *sizeInBytes = fdnn_bn_reserve_bytes(&p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void *alpha,
    const void *beta, const cudnnTensorDescriptor_t xDesc, const void *xData,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    double exponentialAverageFactor, const cudnnTensorDescriptor_t normMeanVarDesc, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t zDesc, const void *zData,
    const cudnnTensorDescriptor_t yDesc, void *yData, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt)
{
    (void)workspace;
    (void)workSpaceSizeInBytes;
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(check_shapes(handle, mode, normOps, algo, groupCnt, activationDesc, xDesc, normScaleBiasDesc,
                                 "normScaleBiasDesc", normMeanVarDesc, zDesc, "zDesc", &p));
    RETURN_IF_ERROR(fdnn_bn_check_output(yDesc, "yDesc", &p.x, &p.y));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_NULL(xData);
    RETURN_IF_NULL(yData);
    RETURN_IF_NULL(normScale);
    RETURN_IF_NULL(normBias);
    if (p.add)
        RETURN_IF_NULL(zData);
    RETURN_IF_ERROR(check_pair(resultRunningMean, "resultRunningMean", resultRunningVariance,
                               "resultRunningVariance"));
    RETURN_IF_ERROR(check_pair(resultSaveMean, "resultSaveMean", resultSaveInvVariance, "resultSaveInvVariance"));
    if ((resultRunningMean != NULL || resultSaveMean != NULL) && normMeanVarDesc == NULL)
        return FDNN_BAD_PARAM("normMeanVarDesc is NULL but mean/variance outputs are given");
    RETURN_IF_ERROR(fdnn_bn_check_epsilon(epsilon));
    if (resultRunningMean != NULL && !(exponentialAverageFactor >= 0.0 && exponentialAverageFactor <= 1.0))
        return FDNN_BAD_PARAM("exponentialAverageFactor is %g, expected 0 to 1", exponentialAverageFactor);
    RETURN_IF_ERROR(check_reserve(&p, reserveSpace, reserveSpaceSizeInBytes));
    p.epsilon = epsilon;
    return fdnn_bn_forward_training(handle, &p, fdnn_scaling_value(alpha, p.x.dtype), fdnn_scaling_value(beta, p.x.dtype),
                                    xData, zData, yData, normScale, normBias, exponentialAverageFactor,
                                    resultRunningMean, resultRunningVariance, resultSaveMean, resultSaveInvVariance,
                                    reserveSpace);
}

cudnnStatus_t
fdnn_api_cudnnNormalizationBackward(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void *xData, const cudnnTensorDescriptor_t yDesc, const void *yData,
    const cudnnTensorDescriptor_t dyDesc, const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData,
    const cudnnTensorDescriptor_t dxDesc, void *dxData, const cudnnTensorDescriptor_t dNormScaleBiasDesc,
    const void *normScaleData, const void *normBiasData, void *dNormScaleData, void *dNormBiasData, double epsilon,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void *savedMean, const void *savedInvVariance,
    cudnnActivationDescriptor_t activationDesc, void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes, int groupCnt)
{
    /* y and the bias let cuDNN recompute the activation; the reserve-space
     * mask replaces them here. */
    (void)yDesc;
    (void)yData;
    (void)normBiasData;
    (void)workSpace;
    (void)workSpaceSizeInBytes;
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(check_shapes(handle, mode, normOps, algo, groupCnt, activationDesc, xDesc, dNormScaleBiasDesc,
                                 "dNormScaleBiasDesc", savedMean != NULL ? normMeanVarDesc : NULL, dzDesc, "dzDesc",
                                 &p));
    RETURN_IF_ERROR(fdnn_bn_check_like_x(dyDesc, "dyDesc", &p.x, &p.dy));
    RETURN_IF_ERROR(fdnn_bn_check_output(dxDesc, "dxDesc", &p.x, &p.dx));
    RETURN_IF_NULL(alphaDataDiff);
    RETURN_IF_NULL(betaDataDiff);
    RETURN_IF_NULL(alphaParamDiff);
    RETURN_IF_NULL(betaParamDiff);
    RETURN_IF_NULL(xData);
    RETURN_IF_NULL(dyData);
    RETURN_IF_NULL(dxData);
    RETURN_IF_NULL(normScaleData);
    RETURN_IF_NULL(dNormScaleData);
    RETURN_IF_NULL(dNormBiasData);
    if (p.add)
        RETURN_IF_NULL(dzData);
    RETURN_IF_ERROR(check_pair(savedMean, "savedMean", savedInvVariance, "savedInvVariance"));
    if (savedMean != NULL && normMeanVarDesc == NULL)
        return FDNN_BAD_PARAM("normMeanVarDesc is NULL but savedMean is given");
    RETURN_IF_ERROR(fdnn_bn_check_epsilon(epsilon));
    RETURN_IF_ERROR(check_reserve(&p, reserveSpace, reserveSpaceSizeInBytes));
    p.epsilon = epsilon;
    cudnnDataType_t t = p.x.dtype;
    return fdnn_bn_backward(handle, &p, fdnn_scaling_value(alphaDataDiff, t), fdnn_scaling_value(betaDataDiff, t),
                            fdnn_scaling_value(alphaParamDiff, t), fdnn_scaling_value(betaParamDiff, t), xData, dyData,
                            dzData, dxData, normScaleData, dNormScaleData, dNormBiasData, savedMean,
                            savedInvVariance, reserveSpace);
}
