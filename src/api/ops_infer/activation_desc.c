/* SPDX-License-Identifier: Apache-2.0
 * Activation descriptors: create, set, get, swish beta, destroy.
 *
 * As in cuDNN (checked against cuDNN 9), a created descriptor already holds
 * usable defaults (SIGMOID, NOT_PROPAGATE_NAN, coef 0, swish beta 1), coef
 * and swish beta take any value, and only the enumerators are validated. */
#include <stdlib.h>

#include "api_impl.h"
#include "core/activation.h"
#include "core/fail.h"

static cudnnStatus_t
check_desc(cudnnActivationDescriptor_t desc)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("activationDesc is NULL");
    if (desc->magic != FDNN_ACTIVATION_MAGIC)
        return FDNN_BAD_PARAM("activationDesc is not an activation descriptor (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *activationDesc)
{
    RETURN_IF_NULL(activationDesc);
    cudnnActivationDescriptor_t d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("no memory for an activation descriptor");
    d->magic = FDNN_ACTIVATION_MAGIC;
    d->is_set = true;
    d->mode = CUDNN_ACTIVATION_SIGMOID;
    d->relu_nan = CUDNN_NOT_PROPAGATE_NAN;
    d->coef = 0.0;
    d->swish_beta = 1.0;
    *activationDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc, cudnnActivationMode_t mode,
                                      cudnnNanPropagation_t reluNanOpt, double coef)
{
    RETURN_IF_ERROR(check_desc(activationDesc));
    if ((int)mode < CUDNN_ACTIVATION_SIGMOID || (int)mode > CUDNN_ACTIVATION_SWISH)
        return FDNN_BAD_PARAM("mode is %d, not a cudnnActivationMode_t", (int)mode);
    if (reluNanOpt != CUDNN_NOT_PROPAGATE_NAN && reluNanOpt != CUDNN_PROPAGATE_NAN)
        return FDNN_BAD_PARAM("reluNanOpt is %d, not a cudnnNanPropagation_t", (int)reluNanOpt);
    activationDesc->mode = mode;
    activationDesc->relu_nan = reluNanOpt;
    activationDesc->coef = coef;
    activationDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t activationDesc, cudnnActivationMode_t *mode,
                                      cudnnNanPropagation_t *reluNanOpt, double *coef)
{
    RETURN_IF_ERROR(check_desc(activationDesc));
    RETURN_IF_NULL(mode);
    RETURN_IF_NULL(reluNanOpt);
    RETURN_IF_NULL(coef);
    *mode = activationDesc->mode;
    *reluNanOpt = activationDesc->relu_nan;
    *coef = activationDesc->coef;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc, double swish_beta)
{
    RETURN_IF_ERROR(check_desc(activationDesc));
    activationDesc->swish_beta = swish_beta;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc, double *swish_beta)
{
    RETURN_IF_ERROR(check_desc(activationDesc));
    RETURN_IF_NULL(swish_beta);
    *swish_beta = activationDesc->swish_beta;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc)
{
    if (activationDesc == NULL)
        return CUDNN_STATUS_SUCCESS; /* as cuDNN: destroying NULL is a no-op */
    RETURN_IF_ERROR(check_desc(activationDesc));
    activationDesc->magic = 0;
    free(activationDesc);
    return CUDNN_STATUS_SUCCESS;
}
