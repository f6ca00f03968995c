/* SPDX-License-Identifier: Apache-2.0
 * Filter descriptors: create, set/get (4d, Nd), size in bytes, destroy.
 * Dimensions are always stored in K, C, [D,] H, W order; the format says how
 * they lie in memory (NCHW: KCRS; NHWC: KRSC; NCHW_VECT_C: vectors of C). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "core/ckd.h"
#include "core/fail.h"
#include "core/tensor.h"

static cudnnStatus_t
check_desc(cudnnFilterDescriptor_t desc, bool need_set)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("filterDesc is NULL");
    if (desc->magic != FDNN_FILTER_MAGIC)
        return FDNN_BAD_PARAM("filterDesc is not a filter descriptor (destroyed or never created)");
    if (need_set && !desc->is_set)
        return FDNN_BAD_PARAM("filterDesc was created but never set");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
store(cudnnFilterDescriptor_t d, cudnnDataType_t dtype, cudnnTensorFormat_t format, int nb, const int *dims)
{
    /* The table of src/core/tensor.h, shared with tensor descriptors. */
    RETURN_IF_ERROR(fdnn_desc_check_type(FDNN_DESC_FILTER, dtype));
    if (format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC && format != CUDNN_TENSOR_NCHW_VECT_C)
        return FDNN_BAD_PARAM("format is %d, not a cudnnTensorFormat_t", (int)format);
    if (nb > CUDNN_DIM_MAX)
        return FDNN_NOT_SUPPORTED("nbDims is %d, at most %d", nb, CUDNN_DIM_MAX);
    if (nb < 3)
        return FDNN_BAD_PARAM("nbDims is %d, a filter has at least 3 dims (K, C, spatial)", nb);
    int64_t elements = 1;
    for (int i = 0; i < nb; i++) {
        if (dims[i] <= 0)
            return FDNN_BAD_PARAM("filter dim %d is %d, must be positive", i, dims[i]);
        if (!fdnn_ckd_mul_i64(elements, dims[i], &elements) || elements > INT_MAX)
            return FDNN_NOT_SUPPORTED("the filter has more than 2^31-1 elements");
    }
    RETURN_IF_ERROR(fdnn_desc_check_type_format(FDNN_DESC_FILTER, dtype, format, dims[1]));
    d->dtype = dtype;
    d->format = format;
    d->nb_dims = nb;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        d->dims[i] = i < nb ? dims[i] : 0;
    d->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc)
{
    RETURN_IF_NULL(filterDesc);
    struct cudnnFilterStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a filter descriptor");
    d->magic = FDNN_FILTER_MAGIC;
    *filterDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc)
{
    if (filterDesc == NULL)
        return CUDNN_STATUS_SUCCESS; /* as cuDNN: destroying NULL is a no-op */
    RETURN_IF_ERROR(check_desc(filterDesc, false));
    filterDesc->magic = 0;
    free(filterDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                    cudnnTensorFormat_t format, int k, int c, int h, int w)
{
    RETURN_IF_ERROR(check_desc(filterDesc, false));
    const int dims[4] = {k, c, h, w};
    return store(filterDesc, dataType, format, 4, dims);
}

cudnnStatus_t
fdnn_api_cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t filterDesc, cudnnDataType_t *dataType,
                                    cudnnTensorFormat_t *format, int *k, int *c, int *h, int *w)
{
    RETURN_IF_ERROR(check_desc(filterDesc, true));
    if (filterDesc->nb_dims != 4)
        return FDNN_BAD_PARAM("filterDesc has %d dims, expected 4", filterDesc->nb_dims);
    RETURN_IF_NULL(dataType);
    RETURN_IF_NULL(format);
    RETURN_IF_NULL(k);
    RETURN_IF_NULL(c);
    RETURN_IF_NULL(h);
    RETURN_IF_NULL(w);
    *dataType = filterDesc->dtype;
    *format = filterDesc->format;
    *k = filterDesc->dims[0];
    *c = filterDesc->dims[1];
    *h = filterDesc->dims[2];
    *w = filterDesc->dims[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                    cudnnTensorFormat_t format, int nbDims, const int *filterDimA)
{
    RETURN_IF_ERROR(check_desc(filterDesc, false));
    RETURN_IF_NULL(filterDimA);
    return store(filterDesc, dataType, format, nbDims, filterDimA);
}

cudnnStatus_t
fdnn_api_cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                    cudnnDataType_t *dataType, cudnnTensorFormat_t *format, int *nbDims,
                                    int *filterDimA)
{
    RETURN_IF_ERROR(check_desc(filterDesc, true));
    if (nbDimsRequested < 0)
        return FDNN_BAD_PARAM("nbDimsRequested is %d, must not be negative", nbDimsRequested);
    RETURN_IF_NULL(dataType);
    RETURN_IF_NULL(format);
    RETURN_IF_NULL(nbDims);
    int n = nbDimsRequested < filterDesc->nb_dims ? nbDimsRequested : filterDesc->nb_dims;
    if (n > 0)
        RETURN_IF_NULL(filterDimA);
    *dataType = filterDesc->dtype;
    *format = filterDesc->format;
    *nbDims = filterDesc->nb_dims;
    for (int i = 0; i < n; i++)
        filterDimA[i] = filterDesc->dims[i];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t *size)
{
    RETURN_IF_ERROR(check_desc(filterDesc, true));
    RETURN_IF_NULL(size);
    size_t elements = 1;
    for (int i = 0; i < filterDesc->nb_dims; i++)
        elements *= (size_t)filterDesc->dims[i];
    int vect = fdnn_dtype_vect(filterDesc->dtype);
    /* fdnn_dtype_size counts one vector for the vectorised types. */
    *size = vect ? elements / (size_t)vect * fdnn_dtype_size(filterDesc->dtype)
                 : elements * fdnn_dtype_size(filterDesc->dtype);
    return CUDNN_STATUS_SUCCESS;
}
