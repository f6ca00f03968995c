/* SPDX-License-Identifier: Apache-2.0
 * Batch normalization, training side: forward training and backward, their
 * Ex forms with the fused add and ReLU, and the Ex size queries.
 *
 * Workspace: none (the per-call scratch lives in the handle), so both
 * workspace queries answer 0.  Reserve space: with an activation, one byte
 * per element of x recording where the ReLU passed; the forward writes it and
 * the backward reads it. */
#include "api/ops_infer/batchnorm_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "cpu/batchnorm/bn.h"

/* Both pointers of an optional pair given, or neither. */
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
    if (need == 0)
        return CUDNN_STATUS_SUCCESS;
    if (reserve == NULL)
        return FDNN_BAD_PARAM("reserveSpace is NULL; the fused activation needs %zu bytes", need);
    if (bytes < need)
        return FDNN_BAD_PARAM("reserveSpaceSizeInBytes is %zu, the fused activation needs %zu", bytes, need);
    return CUDNN_STATUS_SUCCESS;
}

/* The checks of the training forward common to the plain and Ex forms. */
static cudnnStatus_t
check_forward_training(cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
                       cudnnTensorDescriptor_t xDesc, const void *x, cudnnTensorDescriptor_t yDesc, void *y,
                       cudnnTensorDescriptor_t bnDesc, const void *scale, const void *bias, double factor,
                       void *runMean, void *runVar, double epsilon, void *saveMean, void *saveInvVar,
                       fdnn_bn_problem_t *p)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_bn_check_mode(mode, &p->per_activation));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    if (x == NULL)
        return FDNN_BAD_PARAM("x is NULL");
    if (y == NULL)
        return FDNN_BAD_PARAM("y is NULL");
    if (scale == NULL)
        return FDNN_BAD_PARAM("bnScale is NULL");
    if (bias == NULL)
        return FDNN_BAD_PARAM("bnBias is NULL");
    RETURN_IF_ERROR(check_pair(runMean, "resultRunningMean", runVar, "resultRunningVariance"));
    RETURN_IF_ERROR(check_pair(saveMean, "resultSaveMean", saveInvVar, "resultSaveInvVariance"));
    RETURN_IF_ERROR(fdnn_bn_check_data(xDesc, "xDesc", &p->x));
    RETURN_IF_ERROR(fdnn_bn_check_output(yDesc, "yDesc", &p->x, &p->y));
    RETURN_IF_ERROR(fdnn_bn_check_param(bnDesc, "bnScaleBiasMeanVarDesc", &p->x, p->per_activation, &p->param));
    /* (it also describes the running and saved outputs) */
    RETURN_IF_ERROR(fdnn_tensor_check_output(&p->param, "bnScaleBiasMeanVarDesc"));
    RETURN_IF_ERROR(fdnn_bn_check_epsilon(epsilon));
    if (runMean != NULL && !(factor >= 0.0 && factor <= 1.0))
        return FDNN_BAD_PARAM("exponentialAverageFactor is %g, expected 0 to 1", factor);
    p->epsilon = epsilon;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance)
{
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(check_forward_training(handle, mode, alpha, beta, xDesc, x, yDesc, y, bnScaleBiasMeanVarDesc,
                                           bnScale, bnBias, exponentialAverageFactor, resultRunningMean,
                                           resultRunningVariance, epsilon, resultSaveMean, resultSaveInvVariance,
                                           &p));
    return fdnn_bn_forward_training(handle, &p, fdnn_scaling_value(alpha, p.x.dtype), fdnn_scaling_value(beta, p.x.dtype),
                                    x, NULL, y, bnScale, bnBias, exponentialAverageFactor, resultRunningMean,
                                    resultRunningVariance, resultSaveMean, resultSaveInvVariance, NULL);
}

/* The Ex checks beyond the plain form: ops, z, activation. */
static cudnnStatus_t
check_ex_ops(cudnnBatchNormOps_t bnOps, cudnnActivationDescriptor_t activationDesc, cudnnTensorDescriptor_t zDesc,
             const char *zname, fdnn_bn_problem_t *p)
{
    RETURN_IF_ERROR(fdnn_bn_check_ops(bnOps, activationDesc, p));
    if (p->add)
        RETURN_IF_ERROR(fdnn_bn_check_like_x(zDesc, zname, &p->x, &p->z));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *xData, const cudnnTensorDescriptor_t zDesc, const void *zData,
    const cudnnTensorDescriptor_t yDesc, void *yData, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const void *bnScale, const void *bnBias, double exponentialAverageFactor, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes)
{
    (void)workspace; /* no workspace is needed */
    (void)workSpaceSizeInBytes;
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(check_forward_training(handle, mode, alpha, beta, xDesc, xData, yDesc, yData,
                                           bnScaleBiasMeanVarDesc, bnScale, bnBias, exponentialAverageFactor,
                                           resultRunningMean, resultRunningVariance, epsilon, resultSaveMean,
                                           resultSaveInvVariance, &p));
    RETURN_IF_ERROR(check_ex_ops(bnOps, activationDesc, zDesc, "zDesc", &p));
    if (p.add && zData == NULL)
        return FDNN_BAD_PARAM("zData is NULL with CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION");
    RETURN_IF_ERROR(check_reserve(&p, reserveSpace, reserveSpaceSizeInBytes));
    return fdnn_bn_forward_training(handle, &p, fdnn_scaling_value(alpha, p.x.dtype), fdnn_scaling_value(beta, p.x.dtype),
                                    xData, zData, yData, bnScale, bnBias, exponentialAverageFactor,
                                    resultRunningMean, resultRunningVariance, resultSaveMean,
                                    resultSaveInvVariance, reserveSpace);
}

/* The checks of the backward common to the plain and Ex forms. */
static cudnnStatus_t
check_backward(cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *ad, const void *bd, const void *ap,
               const void *bp, cudnnTensorDescriptor_t xDesc, const void *x, cudnnTensorDescriptor_t dyDesc,
               const void *dy, cudnnTensorDescriptor_t dxDesc, void *dx, cudnnTensorDescriptor_t dBnDesc,
               const void *scale, void *dScale, void *dBias, double epsilon, const void *savedMean,
               const void *savedInvVar, fdnn_bn_problem_t *p)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_bn_check_mode(mode, &p->per_activation));
    RETURN_IF_NULL(ad);
    RETURN_IF_NULL(bd);
    RETURN_IF_NULL(ap);
    RETURN_IF_NULL(bp);
    if (x == NULL)
        return FDNN_BAD_PARAM("x is NULL");
    if (dy == NULL)
        return FDNN_BAD_PARAM("dy is NULL");
    if (dx == NULL)
        return FDNN_BAD_PARAM("dx is NULL");
    if (scale == NULL)
        return FDNN_BAD_PARAM("bnScale is NULL");
    if (dScale == NULL)
        return FDNN_BAD_PARAM("dBnScaleResult is NULL");
    if (dBias == NULL)
        return FDNN_BAD_PARAM("dBnBiasResult is NULL");
    RETURN_IF_ERROR(check_pair(savedMean, "savedMean", savedInvVar, "savedInvVariance"));
    RETURN_IF_ERROR(fdnn_bn_check_data(xDesc, "xDesc", &p->x));
    RETURN_IF_ERROR(fdnn_bn_check_like_x(dyDesc, "dyDesc", &p->x, &p->dy));
    RETURN_IF_ERROR(fdnn_bn_check_output(dxDesc, "dxDesc", &p->x, &p->dx));
    RETURN_IF_ERROR(fdnn_bn_check_param(dBnDesc, "dBnScaleBiasDesc", &p->x, p->per_activation, &p->param));
    RETURN_IF_ERROR(fdnn_tensor_check_output(&p->param, "dBnScaleBiasDesc")); /* dscale, dbias */
    RETURN_IF_ERROR(fdnn_bn_check_epsilon(epsilon));
    p->epsilon = epsilon;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnBatchNormalizationBackward(cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alphaDataDiff,
                                         const void *betaDataDiff, const void *alphaParamDiff,
                                         const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc,
                                         const void *x, const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                         const cudnnTensorDescriptor_t dxDesc, void *dx,
                                         const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale,
                                         void *dBnScaleResult, void *dBnBiasResult, double epsilon,
                                         const void *savedMean, const void *savedInvVariance)
{
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(check_backward(handle, mode, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc,
                                   x, dyDesc, dy, dxDesc, dx, dBnScaleBiasDesc, bnScale, dBnScaleResult,
                                   dBnBiasResult, epsilon, savedMean, savedInvVariance, &p));
    cudnnDataType_t t = p.x.dtype;
    return fdnn_bn_backward(handle, &p, fdnn_scaling_value(alphaDataDiff, t), fdnn_scaling_value(betaDataDiff, t),
                            fdnn_scaling_value(alphaParamDiff, t), fdnn_scaling_value(betaParamDiff, t), x, dy, NULL, dx,
                            bnScale, dBnScaleResult, dBnBiasResult, savedMean, savedInvVariance, NULL);
}

cudnnStatus_t
fdnn_api_cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void *xData, const cudnnTensorDescriptor_t yDesc, const void *yData,
    const cudnnTensorDescriptor_t dyDesc, const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData,
    const cudnnTensorDescriptor_t dxDesc, void *dxData, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const void *bnScaleData, const void *bnBiasData, void *dBnScaleData, void *dBnBiasData, double epsilon,
    const void *savedMean, const void *savedInvVariance, cudnnActivationDescriptor_t activationDesc,
    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    /* y and bnBias let cuDNN recompute the activation; the reserve-space
     * mask makes them unnecessary here, but their descriptors are checked. */
    (void)yData;
    (void)bnBiasData;
    (void)workSpace;
    (void)workSpaceSizeInBytes;
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(check_backward(handle, mode, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc,
                                   xData, dyDesc, dyData, dxDesc, dxData, dBnScaleBiasDesc, bnScaleData,
                                   dBnScaleData, dBnBiasData, epsilon, savedMean, savedInvVariance, &p));
    RETURN_IF_ERROR(check_ex_ops(bnOps, activationDesc, dzDesc, "dzDesc", &p));
    if (p.add) /* dz is an output of the backward */
        RETURN_IF_ERROR(fdnn_tensor_check_output(&p.z, "dzDesc"));
    if (p.relu && yDesc != NULL)
        RETURN_IF_ERROR(fdnn_bn_check_like_x(yDesc, "yDesc", &p.x, &p.y));
    if (p.add && dzData == NULL)
        return FDNN_BAD_PARAM("dzData is NULL with CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION");
    RETURN_IF_ERROR(check_reserve(&p, reserveSpace, reserveSpaceSizeInBytes));
    cudnnDataType_t t = p.x.dtype;
    return fdnn_bn_backward(handle, &p, fdnn_scaling_value(alphaDataDiff, t), fdnn_scaling_value(betaDataDiff, t),
                            fdnn_scaling_value(alphaParamDiff, t), fdnn_scaling_value(betaParamDiff, t), xData, dyData,
                            dzData, dxData, bnScaleData, dBnScaleData, dBnBiasData, savedMean, savedInvVariance,
                            reserveSpace);
}

cudnnStatus_t
fdnn_api_cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const cudnnActivationDescriptor_t activationDesc,
    size_t *sizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(sizeInBytes);
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(fdnn_bn_check_mode(mode, &p.per_activation));
    RETURN_IF_ERROR(fdnn_bn_check_data(xDesc, "xDesc", &p.x));
    RETURN_IF_ERROR(fdnn_bn_check_output(yDesc, "yDesc", &p.x, &p.y));
    RETURN_IF_ERROR(fdnn_bn_check_param(bnScaleBiasMeanVarDesc, "bnScaleBiasMeanVarDesc", &p.x, p.per_activation,
                                        &p.param));
    RETURN_IF_ERROR(check_ex_ops(bnOps, activationDesc, zDesc, "zDesc", &p));
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc, const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, size_t *sizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(sizeInBytes);
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(fdnn_bn_check_mode(mode, &p.per_activation));
    RETURN_IF_ERROR(fdnn_bn_check_data(xDesc, "xDesc", &p.x));
    RETURN_IF_ERROR(fdnn_bn_check_like_x(dyDesc, "dyDesc", &p.x, &p.dy));
    RETURN_IF_ERROR(fdnn_bn_check_output(dxDesc, "dxDesc", &p.x, &p.dx));
    RETURN_IF_ERROR(fdnn_bn_check_param(dBnScaleBiasDesc, "dBnScaleBiasDesc", &p.x, p.per_activation, &p.param));
    RETURN_IF_ERROR(check_ex_ops(bnOps, activationDesc, dzDesc, "dzDesc", &p));
    if (p.add) /* dz is an output of the backward */
        RETURN_IF_ERROR(fdnn_tensor_check_output(&p.z, "dzDesc"));
    if (p.relu && yDesc != NULL)
        RETURN_IF_ERROR(fdnn_bn_check_like_x(yDesc, "yDesc", &p.x, &p.y));
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetBatchNormalizationTrainingExReserveSpaceSize(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                                              cudnnBatchNormOps_t bnOps,
                                                              const cudnnActivationDescriptor_t activationDesc,
                                                              const cudnnTensorDescriptor_t xDesc,
                                                              size_t *sizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(sizeInBytes);
    fdnn_bn_problem_t p = {0};
    RETURN_IF_ERROR(fdnn_bn_check_mode(mode, &p.per_activation));
    RETURN_IF_ERROR(fdnn_bn_check_data(xDesc, "xDesc", &p.x));
    RETURN_IF_ERROR(fdnn_bn_check_ops(bnOps, activationDesc, &p));
    *sizeInBytes = fdnn_bn_reserve_bytes(&p);
    return CUDNN_STATUS_SUCCESS;
}
