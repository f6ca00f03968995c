/* SPDX-License-Identifier: Apache-2.0
 * CTC loss descriptors: the compute type, the normalization of the input
 * probabilities, NaN handling of the gradients and (_v8) the longest label.
 *
 * The three setters are cumulative versions of one another: a shorter setter
 * puts the defaults in the fields it does not take (normMode NONE, gradMode
 * NOT_PROPAGATE, maxLabelLength 0 meaning "not given"), as cuDNN does. */
#include <stdlib.h>

#include "api_impl.h"
#include "core/ctc_desc.h"
#include "core/fail.h"
#include "core/tensor.h"

cudnnStatus_t
fdnn_ctc_desc_check(cudnnCTCLossDescriptor_t desc, const char *what)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_CTC_MAGIC)
        return FDNN_BAD_PARAM("%s is not a CTC loss descriptor (destroyed or never created)", what);
    if (!desc->is_set)
        return FDNN_BAD_PARAM("%s was never set (cudnnSetCTCLossDescriptor*)", what);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_created(cudnnCTCLossDescriptor_t desc)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("ctcLossDesc is NULL");
    if (desc->magic != FDNN_CTC_MAGIC)
        return FDNN_BAD_PARAM("ctcLossDesc is not a CTC loss descriptor (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
set(cudnnCTCLossDescriptor_t d, cudnnDataType_t compType, cudnnLossNormalizationMode_t normMode,
    cudnnNanPropagation_t gradMode, int maxLabelLength)
{
    RETURN_IF_ERROR(check_created(d));
    if (!fdnn_dtype_is_valid(compType))
        return FDNN_BAD_PARAM("compType is %d, not a cudnnDataType_t", (int)compType);
    if ((unsigned)normMode > CUDNN_LOSS_NORMALIZATION_SOFTMAX)
        return FDNN_BAD_PARAM("normMode is %d, not a cudnnLossNormalizationMode_t", (int)normMode);
    if ((unsigned)gradMode > CUDNN_PROPAGATE_NAN)
        return FDNN_BAD_PARAM("gradMode is %d, not a cudnnNanPropagation_t", (int)gradMode);
    if (maxLabelLength < 0)
        return FDNN_BAD_PARAM("maxLabelLength is %d, must not be negative", maxLabelLength);
    if (compType != CUDNN_DATA_FLOAT && compType != CUDNN_DATA_DOUBLE)
        return FDNN_NOT_SUPPORTED("compType %s is not supported (FLOAT or DOUBLE)", fdnn_dtype_name(compType));
    d->comp_type = compType;
    d->norm_mode = normMode;
    d->grad_mode = gradMode;
    d->max_label_length = maxLabelLength;
    d->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateCTCLossDescriptor(cudnnCTCLossDescriptor_t *ctcLossDesc)
{
    RETURN_IF_NULL(ctcLossDesc);
    struct cudnnCTCLossStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a CTC loss descriptor");
    d->magic = FDNN_CTC_MAGIC;
    *ctcLossDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc)
{
    if (ctcLossDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(check_created(ctcLossDesc));
    ctcLossDesc->magic = 0;
    free(ctcLossDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType)
{
    return set(ctcLossDesc, compType, CUDNN_LOSS_NORMALIZATION_NONE, CUDNN_NOT_PROPAGATE_NAN, 0);
}

cudnnStatus_t
fdnn_api_cudnnSetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                                     cudnnLossNormalizationMode_t normMode, cudnnNanPropagation_t gradMode)
{
    return set(ctcLossDesc, compType, normMode, gradMode, 0);
}

cudnnStatus_t
fdnn_api_cudnnSetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                                      cudnnLossNormalizationMode_t normMode, cudnnNanPropagation_t gradMode,
                                      int maxLabelLength)
{
    return set(ctcLossDesc, compType, normMode, gradMode, maxLabelLength);
}

/* The getters return what they name; any output pointer may be NULL. */
cudnnStatus_t
fdnn_api_cudnnGetCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType)
{
    RETURN_IF_ERROR(fdnn_ctc_desc_check(ctcLossDesc, "ctcLossDesc"));
    if (compType != NULL)
        *compType = ctcLossDesc->comp_type;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                                     cudnnLossNormalizationMode_t *normMode, cudnnNanPropagation_t *gradMode)
{
    RETURN_IF_ERROR(fdnn_ctc_desc_check(ctcLossDesc, "ctcLossDesc"));
    if (compType != NULL)
        *compType = ctcLossDesc->comp_type;
    if (normMode != NULL)
        *normMode = ctcLossDesc->norm_mode;
    if (gradMode != NULL)
        *gradMode = ctcLossDesc->grad_mode;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                                      cudnnLossNormalizationMode_t *normMode, cudnnNanPropagation_t *gradMode,
                                      int *maxLabelLength)
{
    RETURN_IF_ERROR(fdnn_api_cudnnGetCTCLossDescriptorEx(ctcLossDesc, compType, normMode, gradMode));
    if (maxLabelLength != NULL)
        *maxLabelLength = ctcLossDesc->max_label_length;
    return CUDNN_STATUS_SUCCESS;
}
