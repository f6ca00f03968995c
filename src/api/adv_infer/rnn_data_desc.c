/* SPDX-License-Identifier: Apache-2.0
 * RNN data descriptors: a batch of variable-length sequences of vectors in
 * one of three layouts, the per-sequence lengths, and the symbol written to
 * the padding of unpacked outputs. */
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "core/fail.h"
#include "core/rnn_desc.h"
#include "core/tensor.h"

/* cuDNN keeps time steps in 16 bits. */
#define FDNN_RNN_MAX_SEQ_LENGTH 65535

cudnnStatus_t
fdnn_rnn_data_desc_check(cudnnRNNDataDescriptor_t desc, const char *what)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_RNN_DATA_MAGIC)
        return FDNN_BAD_PARAM("%s is not an RNN data descriptor (destroyed or never created)", what);
    if (!desc->is_set)
        return FDNN_BAD_PARAM("%s was never set (cudnnSetRNNDataDescriptor)", what);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_created(cudnnRNNDataDescriptor_t desc)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("rnnDataDesc is NULL");
    if (desc->magic != FDNN_RNN_DATA_MAGIC)
        return FDNN_BAD_PARAM("rnnDataDesc is not an RNN data descriptor (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateRNNDataDescriptor(cudnnRNNDataDescriptor_t *rnnDataDesc)
{
    RETURN_IF_NULL(rnnDataDesc);
    struct cudnnRNNDataStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate an RNN data descriptor");
    d->magic = FDNN_RNN_DATA_MAGIC;
    *rnnDataDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc)
{
    if (rnnDataDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(check_created(rnnDataDesc));
    free(rnnDataDesc->seq_lengths);
    rnnDataDesc->magic = 0;
    free(rnnDataDesc);
    return CUDNN_STATUS_SUCCESS;
}

/* seqLengthArray is batchSize host integers.  SEQ_MAJOR_PACKED needs them in
 * non-increasing order (the packed batch shrinks as sequences end).  A NULL
 * paddingFill leaves the padding of outputs untouched. */
cudnnStatus_t
fdnn_api_cudnnSetRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t dataType,
                                   cudnnRNNDataLayout_t layout, int maxSeqLength, int batchSize, int vectorSize,
                                   const int *seqLengthArray, void *paddingFill)
{
    RETURN_IF_ERROR(check_created(rnnDataDesc));
    RETURN_IF_NULL(seqLengthArray);
    if (!fdnn_dtype_is_valid(dataType))
        return FDNN_BAD_PARAM("dataType is %d, not a cudnnDataType_t", (int)dataType);
    if (dataType != CUDNN_DATA_FLOAT && dataType != CUDNN_DATA_DOUBLE && dataType != CUDNN_DATA_HALF &&
        dataType != CUDNN_DATA_BFLOAT16)
        return FDNN_NOT_SUPPORTED("dataType %s is not supported for RNN data", fdnn_dtype_name(dataType));
    if ((unsigned)layout > CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
        return FDNN_BAD_PARAM("layout is %d, not a cudnnRNNDataLayout_t", (int)layout);
    if (maxSeqLength <= 0)
        return FDNN_BAD_PARAM("maxSeqLength is %d, must be positive", maxSeqLength);
    if (batchSize <= 0)
        return FDNN_BAD_PARAM("batchSize is %d, must be positive", batchSize);
    if (vectorSize <= 0)
        return FDNN_BAD_PARAM("vectorSize is %d, must be positive", vectorSize);
    bool packed = layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED;
    for (int i = 0; i < batchSize; i++) {
        if (seqLengthArray[i] < 0 || seqLengthArray[i] > maxSeqLength)
            return FDNN_BAD_PARAM("seqLengthArray[%d] is %d, expected 0 to maxSeqLength (%d)", i, seqLengthArray[i],
                                  maxSeqLength);
        if (packed && seqLengthArray[i] == 0)
            return FDNN_BAD_PARAM("SEQ_MAJOR_PACKED needs non-empty sequences, seqLengthArray[%d] is 0", i);
        if (packed && i > 0 && seqLengthArray[i] > seqLengthArray[i - 1])
            return FDNN_BAD_PARAM("SEQ_MAJOR_PACKED needs non-increasing lengths, seqLengthArray[%d] is %d > %d", i,
                                  seqLengthArray[i], seqLengthArray[i - 1]);
    }
    /* The packed layout has no padding: its first (longest) sequence is the
     * longest the descriptor allows. */
    if (packed && seqLengthArray[0] != maxSeqLength)
        return FDNN_BAD_PARAM("SEQ_MAJOR_PACKED needs seqLengthArray[0] (%d) == maxSeqLength (%d)", seqLengthArray[0],
                              maxSeqLength);
    if (maxSeqLength > FDNN_RNN_MAX_SEQ_LENGTH)
        return FDNN_GAP("maxSeqLength is %d, at most %d is supported", maxSeqLength,
                        FDNN_RNN_MAX_SEQ_LENGTH);

    int *lengths = malloc((size_t)batchSize * sizeof(int));
    if (lengths == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate %d sequence lengths", batchSize);
    memcpy(lengths, seqLengthArray, (size_t)batchSize * sizeof(int));
    free(rnnDataDesc->seq_lengths);
    rnnDataDesc->seq_lengths = lengths;
    rnnDataDesc->data_type = dataType;
    rnnDataDesc->layout = layout;
    rnnDataDesc->max_seq_length = maxSeqLength;
    rnnDataDesc->batch_size = batchSize;
    rnnDataDesc->vector_size = vectorSize;
    memset(rnnDataDesc->padding_fill, 0, sizeof(rnnDataDesc->padding_fill));
    rnnDataDesc->has_padding_fill = paddingFill != NULL;
    if (paddingFill != NULL)
        memcpy(rnnDataDesc->padding_fill, paddingFill, fdnn_dtype_size(dataType));
    rnnDataDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* Returns min(arrayLengthRequested, batchSize) lengths.  paddingFill receives
 * one element of the data type (zero when none was given). */
cudnnStatus_t
fdnn_api_cudnnGetRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t *dataType,
                                   cudnnRNNDataLayout_t *layout, int *maxSeqLength, int *batchSize, int *vectorSize,
                                   int arrayLengthRequested, int *seqLengthArray, void *paddingFill)
{
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(rnnDataDesc, "rnnDataDesc"));
    RETURN_IF_NULL(dataType);
    RETURN_IF_NULL(layout);
    RETURN_IF_NULL(maxSeqLength);
    RETURN_IF_NULL(batchSize);
    RETURN_IF_NULL(vectorSize);
    RETURN_IF_NULL(paddingFill);
    if (arrayLengthRequested < 0)
        return FDNN_BAD_PARAM("arrayLengthRequested is %d, must not be negative", arrayLengthRequested);
    if (arrayLengthRequested > 0 && seqLengthArray == NULL)
        return FDNN_BAD_PARAM("seqLengthArray is NULL with arrayLengthRequested %d", arrayLengthRequested);
    const struct cudnnRNNDataStruct *d = rnnDataDesc;
    *dataType = d->data_type;
    *layout = d->layout;
    *maxSeqLength = d->max_seq_length;
    *batchSize = d->batch_size;
    *vectorSize = d->vector_size;
    int n = arrayLengthRequested < d->batch_size ? arrayLengthRequested : d->batch_size;
    if (n > 0)
        memcpy(seqLengthArray, d->seq_lengths, (size_t)n * sizeof(int));
    memcpy(paddingFill, d->padding_fill, fdnn_dtype_size(d->data_type));
    return CUDNN_STATUS_SUCCESS;
}
