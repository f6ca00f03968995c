/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention descriptors.
 *
 * Check order, as cuDNN's: the mode bits, math type, data types, head count
 * and softmax scaler (BAD_PARAM); then the data type pair (NOT_SUPPORTED);
 * then vector and projection sizes and the maxima (BAD_PARAM); last the
 * query map against the beam size (NOT_SUPPORTED). */
#include <math.h>
#include <stdlib.h>

#include "api_impl.h"
#include "core/attn_desc.h"
#include "core/fail.h"
#include "core/tensor.h"

#define ATTN_MODE_BITS (CUDNN_ATTN_QUERYMAP_ONE_TO_ONE | CUDNN_ATTN_ENABLE_PROJ_BIASES)

cudnnStatus_t
fdnn_attn_desc_check(cudnnAttnDescriptor_t desc, const char *what)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_ATTN_MAGIC)
        return FDNN_BAD_PARAM("%s is not an attention descriptor (destroyed or never created)", what);
    if (!desc->is_set)
        return FDNN_BAD_PARAM("%s was never set (cudnnSetAttnDescriptor)", what);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_created(cudnnAttnDescriptor_t desc)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("attnDesc is NULL");
    if (desc->magic != FDNN_ATTN_MAGIC)
        return FDNN_BAD_PARAM("attnDesc is not an attention descriptor (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateAttnDescriptor(cudnnAttnDescriptor_t *attnDesc)
{
    RETURN_IF_NULL(attnDesc);
    struct cudnnAttnStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate an attention descriptor");
    d->magic = FDNN_ATTN_MAGIC;
    *attnDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyAttnDescriptor(cudnnAttnDescriptor_t attnDesc)
{
    if (attnDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(check_created(attnDesc));
    attnDesc->magic = 0;
    free(attnDesc);
    return CUDNN_STATUS_SUCCESS;
}

/* Supported pairs: FLOAT/FLOAT, HALF/HALF, HALF/FLOAT, DOUBLE/DOUBLE,
 * BFLOAT16/FLOAT. */
static bool
types_supported(cudnnDataType_t dataType, cudnnDataType_t computePrec)
{
    switch (dataType) {
    case CUDNN_DATA_FLOAT: return computePrec == CUDNN_DATA_FLOAT;
    case CUDNN_DATA_HALF: return computePrec == CUDNN_DATA_HALF || computePrec == CUDNN_DATA_FLOAT;
    case CUDNN_DATA_DOUBLE: return computePrec == CUDNN_DATA_DOUBLE;
    case CUDNN_DATA_BFLOAT16: return computePrec == CUDNN_DATA_FLOAT;
    default: return false;
    }
}

static cudnnStatus_t
check_sizes(int qSize, int kSize, int vSize, int qProjSize, int kProjSize, int vProjSize, int oProjSize,
            int qoMaxSeqLength, int kvMaxSeqLength, int maxBatchSize, int maxBeamSize)
{
    if (qSize <= 0)
        return FDNN_BAD_PARAM("qSize is %d, must be positive", qSize);
    if (kSize <= 0)
        return FDNN_BAD_PARAM("kSize is %d, must be positive", kSize);
    if (vSize <= 0)
        return FDNN_BAD_PARAM("vSize is %d, must be positive", vSize);
    if (qProjSize < 0 || kProjSize < 0 || vProjSize < 0 || oProjSize < 0)
        return FDNN_BAD_PARAM("projection sizes (q %d, k %d, v %d, o %d) must not be negative", qProjSize,
                              kProjSize, vProjSize, oProjSize);
    /* Queries and keys meet in a dot product: both projected to the same
     * size, or both unprojected with the same size. */
    if (qProjSize != kProjSize)
        return FDNN_BAD_PARAM("qProjSize (%d) and kProjSize (%d) must be equal", qProjSize, kProjSize);
    if (qProjSize == 0 && qSize != kSize)
        return FDNN_BAD_PARAM("without Q/K projections qSize (%d) and kSize (%d) must be equal", qSize, kSize);
    if (qoMaxSeqLength <= 0)
        return FDNN_BAD_PARAM("qoMaxSeqLength is %d, must be positive", qoMaxSeqLength);
    if (kvMaxSeqLength <= 0)
        return FDNN_BAD_PARAM("kvMaxSeqLength is %d, must be positive", kvMaxSeqLength);
    if (maxBatchSize <= 0)
        return FDNN_BAD_PARAM("maxBatchSize is %d, must be positive", maxBatchSize);
    if (maxBeamSize <= 0)
        return FDNN_BAD_PARAM("maxBeamSize is %d, must be positive", maxBeamSize);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetAttnDescriptor(cudnnAttnDescriptor_t attnDesc, unsigned attnMode, int nHeads, double smScaler,
                                cudnnDataType_t dataType, cudnnDataType_t computePrec, cudnnMathType_t mathType,
                                cudnnDropoutDescriptor_t attnDropoutDesc, cudnnDropoutDescriptor_t postDropoutDesc,
                                int qSize, int kSize, int vSize, int qProjSize, int kProjSize, int vProjSize,
                                int oProjSize, int qoMaxSeqLength, int kvMaxSeqLength, int maxBatchSize,
                                int maxBeamSize)
{
    RETURN_IF_ERROR(check_created(attnDesc));
    if ((attnMode & ~(unsigned)ATTN_MODE_BITS) != 0)
        return FDNN_BAD_PARAM("attnMode is 0x%x, only the QUERYMAP (0x1) and PROJ_BIASES (0x2) bits are defined",
                              attnMode);
    if ((unsigned)mathType > CUDNN_FMA_MATH)
        return FDNN_BAD_PARAM("mathType is %d, not a cudnnMathType_t", (int)mathType);
    if (dataType != CUDNN_DATA_FLOAT && dataType != CUDNN_DATA_HALF && dataType != CUDNN_DATA_DOUBLE &&
        dataType != CUDNN_DATA_BFLOAT16)
        return FDNN_BAD_PARAM("dataType is %d, expected HALF, BFLOAT16, FLOAT or DOUBLE", (int)dataType);
    if (computePrec != CUDNN_DATA_FLOAT && computePrec != CUDNN_DATA_HALF && computePrec != CUDNN_DATA_DOUBLE)
        return FDNN_BAD_PARAM("computePrec is %d, expected HALF, FLOAT or DOUBLE", (int)computePrec);
    if (nHeads <= 0)
        return FDNN_BAD_PARAM("nHeads is %d, must be positive", nHeads);
    if (!(smScaler >= 0.0))
        return FDNN_BAD_PARAM("smScaler is %g, must be a non-negative number", smScaler);
    if (!types_supported(dataType, computePrec))
        return FDNN_NOT_SUPPORTED("dataType %s with computePrec %s is not supported", fdnn_dtype_name(dataType),
                                  fdnn_dtype_name(computePrec));
    RETURN_IF_ERROR(check_sizes(qSize, kSize, vSize, qProjSize, kProjSize, vProjSize, oProjSize, qoMaxSeqLength,
                                kvMaxSeqLength, maxBatchSize, maxBeamSize));
    if ((attnMode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) && maxBeamSize > 1)
        return FDNN_NOT_SUPPORTED("CUDNN_ATTN_QUERYMAP_ONE_TO_ONE with maxBeamSize %d (> 1) is not supported",
                                  maxBeamSize);

    struct cudnnAttnStruct *d = attnDesc;
    d->attn_mode = attnMode;
    d->n_heads = nHeads;
    d->sm_scaler = smScaler;
    d->data_type = dataType;
    d->compute_prec = computePrec;
    d->math_type = mathType;
    d->attn_dropout = attnDropoutDesc;
    d->post_dropout = postDropoutDesc;
    d->q_size = qSize;
    d->k_size = kSize;
    d->v_size = vSize;
    d->q_proj_size = qProjSize;
    d->k_proj_size = kProjSize;
    d->v_proj_size = vProjSize;
    d->o_proj_size = oProjSize;
    d->qo_max_seq_length = qoMaxSeqLength;
    d->kv_max_seq_length = kvMaxSeqLength;
    d->max_batch_size = maxBatchSize;
    d->max_beam_size = maxBeamSize;
    d->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

#define PUT(ptr, value)          \
    do {                         \
        if ((ptr) != NULL)       \
            *(ptr) = (value);    \
    } while (0)

/* Any output may be NULL (not returned). */
cudnnStatus_t
fdnn_api_cudnnGetAttnDescriptor(cudnnAttnDescriptor_t attnDesc, unsigned *attnMode, int *nHeads, double *smScaler,
                                cudnnDataType_t *dataType, cudnnDataType_t *computePrec, cudnnMathType_t *mathType,
                                cudnnDropoutDescriptor_t *attnDropoutDesc, cudnnDropoutDescriptor_t *postDropoutDesc,
                                int *qSize, int *kSize, int *vSize, int *qProjSize, int *kProjSize, int *vProjSize,
                                int *oProjSize, int *qoMaxSeqLength, int *kvMaxSeqLength, int *maxBatchSize,
                                int *maxBeamSize)
{
    RETURN_IF_ERROR(fdnn_attn_desc_check(attnDesc, "attnDesc"));
    const struct cudnnAttnStruct *d = attnDesc;
    PUT(attnMode, d->attn_mode);
    PUT(nHeads, d->n_heads);
    PUT(smScaler, d->sm_scaler);
    PUT(dataType, d->data_type);
    PUT(computePrec, d->compute_prec);
    PUT(mathType, d->math_type);
    PUT(attnDropoutDesc, d->attn_dropout);
    PUT(postDropoutDesc, d->post_dropout);
    PUT(qSize, d->q_size);
    PUT(kSize, d->k_size);
    PUT(vSize, d->v_size);
    PUT(qProjSize, d->q_proj_size);
    PUT(kProjSize, d->k_proj_size);
    PUT(vProjSize, d->v_proj_size);
    PUT(oProjSize, d->o_proj_size);
    PUT(qoMaxSeqLength, d->qo_max_seq_length);
    PUT(kvMaxSeqLength, d->kv_max_seq_length);
    PUT(maxBatchSize, d->max_batch_size);
    PUT(maxBeamSize, d->max_beam_size);
    return CUDNN_STATUS_SUCCESS;
}
