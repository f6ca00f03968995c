/* SPDX-License-Identifier: Apache-2.0
 * Sequence data descriptors for multi-head attention: four axes (TIME,
 * BATCH, BEAM, VECT) in a caller-chosen order with VECT innermost, and
 * batch * beam sequence lengths. */
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "core/ckd.h"
#include "core/fail.h"
#include "core/seqdata_desc.h"
#include "core/tensor.h"

static const char *const AXIS_NAMES[CUDNN_SEQDATA_DIM_COUNT] = {"TIME", "BATCH", "BEAM", "VECT"};

cudnnStatus_t
fdnn_seqdata_desc_check(cudnnSeqDataDescriptor_t desc, const char *what)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_SEQDATA_MAGIC)
        return FDNN_BAD_PARAM("%s is not a sequence data descriptor (destroyed or never created)", what);
    if (!desc->is_set)
        return FDNN_BAD_PARAM("%s was never set (cudnnSetSeqDataDescriptor)", what);
    return CUDNN_STATUS_SUCCESS;
}

int64_t
fdnn_seqdata_stride(const struct cudnnSeqDataStruct *d, cudnnSeqDataAxis_t axis)
{
    int64_t stride = 1;
    for (int i = CUDNN_SEQDATA_DIM_COUNT - 1; i >= 0; i--) {
        if (d->axes[i] == axis)
            return stride;
        stride *= d->dims[d->axes[i]];
    }
    return 0; /* unreachable for a set descriptor: every axis appears once */
}

static cudnnStatus_t
check_created(cudnnSeqDataDescriptor_t desc)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("seqDataDesc is NULL");
    if (desc->magic != FDNN_SEQDATA_MAGIC)
        return FDNN_BAD_PARAM("seqDataDesc is not a sequence data descriptor (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateSeqDataDescriptor(cudnnSeqDataDescriptor_t *seqDataDesc)
{
    RETURN_IF_NULL(seqDataDesc);
    struct cudnnSeqDataStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a sequence data descriptor");
    d->magic = FDNN_SEQDATA_MAGIC;
    *seqDataDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroySeqDataDescriptor(cudnnSeqDataDescriptor_t seqDataDesc)
{
    if (seqDataDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(check_created(seqDataDesc));
    free(seqDataDesc->seq_lengths);
    seqDataDesc->magic = 0;
    free(seqDataDesc);
    return CUDNN_STATUS_SUCCESS;
}

/* axes[] must be a permutation of the four axes with VECT last. */
static cudnnStatus_t
check_axes(const cudnnSeqDataAxis_t *axes)
{
    bool seen[CUDNN_SEQDATA_DIM_COUNT] = {false, false, false, false};
    for (int i = 0; i < CUDNN_SEQDATA_DIM_COUNT; i++) {
        if ((unsigned)axes[i] >= CUDNN_SEQDATA_DIM_COUNT)
            return FDNN_BAD_PARAM("axes[%d] is %d, not a cudnnSeqDataAxis_t", i, (int)axes[i]);
        if (seen[axes[i]])
            return FDNN_BAD_PARAM("axes[] names %s twice", AXIS_NAMES[axes[i]]);
        seen[axes[i]] = true;
    }
    if (axes[CUDNN_SEQDATA_DIM_COUNT - 1] != CUDNN_SEQDATA_VECT_DIM)
        return FDNN_BAD_PARAM("axes[3] is %s, the innermost axis must be VECT", AXIS_NAMES[axes[3]]);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetSeqDataDescriptor(cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t dataType, int nbDims,
                                   const int *dimA, const cudnnSeqDataAxis_t *axes, size_t seqLengthArraySize,
                                   const int *seqLengthArray, void *paddingFill)
{
    RETURN_IF_ERROR(check_created(seqDataDesc));
    if (!fdnn_dtype_is_valid(dataType))
        return FDNN_BAD_PARAM("dataType is %d, not a cudnnDataType_t", (int)dataType);
    if (nbDims != CUDNN_SEQDATA_DIM_COUNT)
        return FDNN_NOT_SUPPORTED("nbDims is %d, only CUDNN_SEQDATA_DIM_COUNT (4) is supported", nbDims);
    RETURN_IF_NULL(dimA);
    RETURN_IF_NULL(axes);
    RETURN_IF_NULL(seqLengthArray);
    RETURN_IF_ERROR(check_axes(axes));
    for (int i = 0; i < CUDNN_SEQDATA_DIM_COUNT; i++)
        if (dimA[i] <= 0)
            return FDNN_BAD_PARAM("dimA[%s] is %d, must be positive", AXIS_NAMES[i], dimA[i]);
    /* The buffer must be addressable: every stride and offset derived from
     * the dims (fdnn_seqdata_stride, the attention layouts) is then exact. */
    int64_t elements;
    size_t bytes;
    if (!fdnn_ckd_prod_int(dimA, CUDNN_SEQDATA_DIM_COUNT, &elements) ||
        !fdnn_ckd_bytes(elements, fdnn_dtype_size(dataType), &bytes))
        return FDNN_BAD_PARAM("dimA %d x %d x %d x %d: the sequence data's size overflows", dimA[0], dimA[1],
                              dimA[2], dimA[3]);
    /* Both below 2^31: the product fits. */
    size_t sequences = (size_t)dimA[CUDNN_SEQDATA_BATCH_DIM] * (size_t)dimA[CUDNN_SEQDATA_BEAM_DIM];
    if (seqLengthArraySize != sequences)
        return FDNN_BAD_PARAM("seqLengthArraySize is %zu, expected batch x beam = %zu", seqLengthArraySize,
                              sequences);
    int max_len = dimA[CUDNN_SEQDATA_TIME_DIM];
    for (size_t i = 0; i < sequences; i++)
        if (seqLengthArray[i] <= 0 || seqLengthArray[i] > max_len)
            return FDNN_BAD_PARAM("seqLengthArray[%zu] is %d, expected 1 to dimA[TIME] (%d)", i, seqLengthArray[i],
                                  max_len);
    if (dataType != CUDNN_DATA_FLOAT && dataType != CUDNN_DATA_DOUBLE && dataType != CUDNN_DATA_HALF &&
        dataType != CUDNN_DATA_BFLOAT16)
        return FDNN_NOT_SUPPORTED("dataType %s is not supported for sequence data", fdnn_dtype_name(dataType));

    int *lengths = malloc(sequences * sizeof(int));
    if (lengths == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate %zu sequence lengths", sequences);
    memcpy(lengths, seqLengthArray, sequences * sizeof(int));
    free(seqDataDesc->seq_lengths);
    seqDataDesc->seq_lengths = lengths;
    seqDataDesc->seq_lengths_size = sequences;
    seqDataDesc->data_type = dataType;
    for (int i = 0; i < CUDNN_SEQDATA_DIM_COUNT; i++) {
        seqDataDesc->dims[i] = dimA[i];
        seqDataDesc->axes[i] = axes[i];
    }
    memset(seqDataDesc->padding_fill, 0, sizeof(seqDataDesc->padding_fill));
    seqDataDesc->has_padding_fill = paddingFill != NULL;
    if (paddingFill != NULL)
        memcpy(seqDataDesc->padding_fill, paddingFill, fdnn_dtype_size(dataType));
    seqDataDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* Any output may be NULL (not returned).  dimA and axes receive
 * min(nbDimsRequested, 4) entries, seqLengthArray min(seqLengthSizeRequested,
 * batch x beam). */
cudnnStatus_t
fdnn_api_cudnnGetSeqDataDescriptor(const cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t *dataType,
                                   int *nbDims, int nbDimsRequested, int *dimA, cudnnSeqDataAxis_t *axes,
                                   size_t *seqLengthArraySize, size_t seqLengthSizeRequested, int *seqLengthArray,
                                   void *paddingFill)
{
    RETURN_IF_ERROR(fdnn_seqdata_desc_check(seqDataDesc, "seqDataDesc"));
    if (nbDimsRequested < 0)
        return FDNN_BAD_PARAM("nbDimsRequested is %d, must not be negative", nbDimsRequested);
    const struct cudnnSeqDataStruct *d = seqDataDesc;
    if (dataType != NULL)
        *dataType = d->data_type;
    if (nbDims != NULL)
        *nbDims = CUDNN_SEQDATA_DIM_COUNT;
    int nd = nbDimsRequested < CUDNN_SEQDATA_DIM_COUNT ? nbDimsRequested : CUDNN_SEQDATA_DIM_COUNT;
    for (int i = 0; i < nd; i++) {
        if (dimA != NULL)
            dimA[i] = d->dims[i];
        if (axes != NULL)
            axes[i] = d->axes[i];
    }
    if (seqLengthArraySize != NULL)
        *seqLengthArraySize = d->seq_lengths_size;
    size_t ns = seqLengthSizeRequested < d->seq_lengths_size ? seqLengthSizeRequested : d->seq_lengths_size;
    if (seqLengthArray != NULL && ns > 0)
        memcpy(seqLengthArray, d->seq_lengths, ns * sizeof(int));
    if (paddingFill != NULL)
        memcpy(paddingFill, d->padding_fill, fdnn_dtype_size(d->data_type));
    return CUDNN_STATUS_SUCCESS;
}
