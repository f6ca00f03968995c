/* SPDX-License-Identifier: Apache-2.0
 * LRN descriptors: create (with cuDNN's defaults n 5, alpha 1e-4, beta 0.75,
 * k 2), set (within CUDNN_LRN_MIN_N..MAX_N, k >= CUDNN_LRN_MIN_K, beta >=
 * CUDNN_LRN_MIN_BETA; alpha and an even n are accepted, as by cuDNN), get,
 * destroy. */
#include <math.h>
#include <stdlib.h>

#include "api_impl.h"
#include "core/fail.h"
#include "core/lrn.h"

static cudnnStatus_t
check_desc(cudnnLRNDescriptor_t desc)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("normDesc is NULL");
    if (desc->magic != FDNN_LRN_MAGIC)
        return FDNN_BAD_PARAM("normDesc is not an LRN descriptor (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t *normDesc)
{
    RETURN_IF_NULL(normDesc);
    cudnnLRNDescriptor_t d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("no memory for an LRN descriptor");
    d->magic = FDNN_LRN_MAGIC;
    d->is_set = true;
    d->n = 5;
    d->alpha = 1e-4;
    d->beta = 0.75;
    d->k = 2.0;
    *normDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned int lrnN, double lrnAlpha, double lrnBeta,
                               double lrnK)
{
    RETURN_IF_ERROR(check_desc(normDesc));
    if (lrnN < CUDNN_LRN_MIN_N || lrnN > CUDNN_LRN_MAX_N)
        return FDNN_BAD_PARAM("lrnN is %u, expected %d to %d", lrnN, CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N);
    if (!(lrnK >= CUDNN_LRN_MIN_K))
        return FDNN_BAD_PARAM("lrnK is %g, must be at least CUDNN_LRN_MIN_K (%g)", lrnK, CUDNN_LRN_MIN_K);
    if (!(lrnBeta >= CUDNN_LRN_MIN_BETA))
        return FDNN_BAD_PARAM("lrnBeta is %g, must be at least CUDNN_LRN_MIN_BETA (%g)", lrnBeta,
                              CUDNN_LRN_MIN_BETA);
    if (!isfinite(lrnAlpha) || !isfinite(lrnBeta) || !isfinite(lrnK))
        return FDNN_BAD_PARAM("lrnAlpha, lrnBeta and lrnK must be finite");
    normDesc->n = lrnN;
    normDesc->alpha = lrnAlpha;
    normDesc->beta = lrnBeta;
    normDesc->k = lrnK;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned int *lrnN, double *lrnAlpha, double *lrnBeta,
                               double *lrnK)
{
    RETURN_IF_ERROR(check_desc(normDesc));
    RETURN_IF_NULL(lrnN);
    RETURN_IF_NULL(lrnAlpha);
    RETURN_IF_NULL(lrnBeta);
    RETURN_IF_NULL(lrnK);
    *lrnN = normDesc->n;
    *lrnAlpha = normDesc->alpha;
    *lrnBeta = normDesc->beta;
    *lrnK = normDesc->k;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t lrnDesc)
{
    if (lrnDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    if (lrnDesc->magic != FDNN_LRN_MAGIC)
        return FDNN_BAD_PARAM("lrnDesc is not an LRN descriptor (destroyed or never created)");
    lrnDesc->magic = 0;
    free(lrnDesc);
    return CUDNN_STATUS_SUCCESS;
}
