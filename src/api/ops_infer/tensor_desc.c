/* SPDX-License-Identifier: Apache-2.0
 * Tensor descriptors: create, set (4d, 4dEx, Nd, NdEx), get, size, destroy. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "core/ckd.h"
#include "core/fail.h"
#include "core/tensor.h"

/* cuDNN rejects descriptors of more than 2^31 - 1 elements. */
#define MAX_TENSOR_ELEMENTS ((int64_t)INT_MAX)

static cudnnStatus_t
check_desc(cudnnTensorDescriptor_t desc)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("tensorDesc is NULL");
    if (desc->magic != FDNN_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("tensorDesc is not a tensor descriptor (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

/* The checks every Set function shares: the data type, then nbDims.
 * cuDNN: fewer than 2 dims is BAD_PARAM, more than CUDNN_DIM_MAX is
 * NOT_SUPPORTED (the documented "at least 4" is not enforced by the runtime:
 * RNN data uses 3-d descriptors and 2-d ones are accepted). */
static cudnnStatus_t
check_nb_and_type(int nb, cudnnDataType_t dtype)
{
    RETURN_IF_ERROR(fdnn_desc_check_type(FDNN_DESC_TENSOR, dtype));
    if (nb > CUDNN_DIM_MAX)
        return FDNN_NOT_SUPPORTED("nbDims is %d, more than CUDNN_DIM_MAX (%d)", nb, CUDNN_DIM_MAX);
    if (nb < 2)
        return FDNN_BAD_PARAM("nbDims is %d, expected 2 to %d", nb, CUDNN_DIM_MAX);
    return CUDNN_STATUS_SUCCESS;
}

/* Validates dims and strides and stores them.  For NCHW_VECT_C (`vect` > 1)
 * dims[1] counts elements (channels) and strides count vectors of `vect`
 * channels, as cuDNN reports them. */
static cudnnStatus_t
store(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format, cudnnDataType_t dtype, int nb, const int *dims,
      const int *strides, int vect)
{
    RETURN_IF_ERROR(check_nb_and_type(nb, dtype));
    int64_t elements = 1, last = 0;
    for (int i = 0; i < nb; i++) {
        if (dims[i] <= 0)
            return FDNN_BAD_PARAM("dimA[%d] is %d, must be positive", i, dims[i]);
        /* cuDNN rejects a zero stride along a dim of extent > 1 (along an
         * extent-1 dim the stride is never used).  A negative one would
         * address memory before the base pointer: we refuse it as well
         * (cuDNN 9 takes it and computes a meaningless size). */
        if (dims[i] > 1 && strides[i] <= 0)
            return FDNN_BAD_PARAM("strideA[%d] is %d, must be positive", i, strides[i]);
    }
    for (int i = 0; i < nb; i++) {
        if (!fdnn_ckd_mul_i64(elements, dims[i], &elements) || elements > MAX_TENSOR_ELEMENTS)
            return FDNN_NOT_SUPPORTED("the tensor has more than 2^31-1 elements");
        if (!fdnn_ckd_madd_i64(&last, dims[i] - 1, strides[i]))
            return FDNN_NOT_SUPPORTED("the tensor spans more than 2^31-1 elements");
    }
    /* cuDNN also limits the span: the last element's offset must be below
     * 2^31 - 1 (it indexes with 32-bit integers). */
    if (last >= MAX_TENSOR_ELEMENTS)
        return FDNN_NOT_SUPPORTED("the tensor spans more than 2^31-1 elements");
    desc->format = format;
    desc->dtype = dtype;
    desc->nb_dims = nb;
    desc->vect = vect;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        desc->dims[i] = i < nb ? dims[i] : 0;
        desc->strides[i] = i < nb ? strides[i] : 0;
    }
    desc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* Packed strides for `format` over NCHW-ordered dims.  NCHW_VECT_C strides
 * count vectors of `vect` channels. */
static cudnnStatus_t
packed_strides(cudnnTensorFormat_t format, int nb, const int *dims, int vect, int *strides)
{
    int64_t s = 1;
    switch (format) {
    case CUDNN_TENSOR_NCHW:
    case CUDNN_TENSOR_NCHW_VECT_C:
        /* NCHW_VECT_C is N, C/vect, H, W, vect: NCHW order over vectors. */
        for (int i = nb - 1; i >= 0; i--) {
            strides[i] = (int)s;
            s *= i == 1 ? dims[i] / vect : dims[i];
            if (s > INT_MAX)
                s = INT_MAX; /* rejected by store() through the element count */
        }
        return CUDNN_STATUS_SUCCESS;
    case CUDNN_TENSOR_NHWC: {
        /* Channels innermost, then the spatial dims, then N.  With two dims
         * there is no spatial dim and NHWC is the same as NCHW. */
        strides[1] = 1;
        s = dims[1];
        for (int i = nb - 1; i >= 2; i--) {
            strides[i] = (int)s;
            s *= dims[i];
            if (s > INT_MAX)
                s = INT_MAX;
        }
        strides[0] = (int)s;
        return CUDNN_STATUS_SUCCESS;
    }
    }
    return FDNN_BAD_PARAM("format is %d, not a cudnnTensorFormat_t", (int)format);
}

static cudnnStatus_t
set_with_format(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format, cudnnDataType_t dtype, int nb,
                const int *dims)
{
    /* cuDNN's order: data type, format, the NCHW_VECT_C rules, nbDims,
     * dims. */
    /* The table of src/core/tensor.h.  cuDNN 9 also takes NCHW_VECT_C with
     * the plain types in cudnnSetTensorNdDescriptorEx (as vectors of 4); we
     * refuse that, as cudnnSetTensor4dDescriptor does. */
    RETURN_IF_ERROR(fdnn_desc_check_type_format(FDNN_DESC_TENSOR, dtype, format, nb >= 2 ? dims[1] : 0));
    int vect = format == CUDNN_TENSOR_NCHW_VECT_C && nb >= 2 ? fdnn_dtype_vect(dtype) : 1;
    RETURN_IF_ERROR(check_nb_and_type(nb, dtype));
    for (int i = 0; i < nb; i++)
        if (dims[i] <= 0)
            return FDNN_BAD_PARAM("dimA[%d] is %d, must be positive", i, dims[i]);
    int strides[CUDNN_DIM_MAX];
    RETURN_IF_ERROR(packed_strides(format, nb, dims, vect, strides));
    return store(desc, format, dtype, nb, dims, strides, vect);
}

cudnnStatus_t
fdnn_tensor_set_packed(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format, cudnnDataType_t dtype, int nb,
                       const int *dims)
{
    RETURN_IF_ERROR(check_desc(desc));
    return set_with_format(desc, format, dtype, nb, dims);
}

cudnnStatus_t
fdnn_api_cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc)
{
    RETURN_IF_NULL(tensorDesc);
    struct cudnnTensorStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a tensor descriptor");
    d->magic = FDNN_TENSOR_MAGIC;
    *tensorDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc)
{
    if (tensorDesc == NULL)
        return CUDNN_STATUS_SUCCESS; /* as cuDNN: destroying NULL is a no-op */
    RETURN_IF_ERROR(check_desc(tensorDesc));
    tensorDesc->magic = 0;
    free(tensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                    cudnnDataType_t dataType, int n, int c, int h, int w)
{
    RETURN_IF_ERROR(check_desc(tensorDesc));
    const int dims[4] = {n, c, h, w};
    return set_with_format(tensorDesc, format, dataType, 4, dims);
}

cudnnStatus_t
fdnn_api_cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int n, int c,
                                      int h, int w, int nStride, int cStride, int hStride, int wStride)
{
    RETURN_IF_ERROR(check_desc(tensorDesc));
    const int dims[4] = {n, c, h, w};
    const int strides[4] = {nStride, cStride, hStride, wStride};
    return store(tensorDesc, CUDNN_TENSOR_NCHW, dataType, 4, dims, strides, 1);
}

cudnnStatus_t
fdnn_api_cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int nbDims,
                                    const int *dimA, const int *strideA)
{
    RETURN_IF_ERROR(check_desc(tensorDesc));
    RETURN_IF_NULL(dimA);
    RETURN_IF_NULL(strideA);
    return store(tensorDesc, CUDNN_TENSOR_NCHW, dataType, nbDims, dimA, strideA, 1);
}

cudnnStatus_t
fdnn_api_cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                      cudnnDataType_t dataType, int nbDims, const int *dimA)
{
    RETURN_IF_ERROR(check_desc(tensorDesc));
    RETURN_IF_NULL(dimA);
    return set_with_format(tensorDesc, format, dataType, nbDims, dimA);
}

cudnnStatus_t
fdnn_api_cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t *dataType, int *n,
                                    int *c, int *h, int *w, int *nStride, int *cStride, int *hStride,
                                    int *wStride)
{
    RETURN_IF_ERROR(check_desc(tensorDesc));
    if (!tensorDesc->is_set)
        return FDNN_BAD_PARAM("tensorDesc was never set");
    /* cuDNN reports the first four dims of a descriptor with more. */
    if (tensorDesc->nb_dims < 4)
        return FDNN_BAD_PARAM("tensorDesc has %d dimensions, expected at least 4", tensorDesc->nb_dims);
    int *outs[8] = {n, c, h, w, nStride, cStride, hStride, wStride};
    for (int i = 0; i < 8; i++)
        if (outs[i] == NULL)
            return FDNN_BAD_PARAM("output pointer %d of 8 (n, c, h, w, strides) is NULL", i + 1);
    RETURN_IF_NULL(dataType);
    *dataType = tensorDesc->dtype;
    *n = tensorDesc->dims[0];
    *c = tensorDesc->dims[1];
    *h = tensorDesc->dims[2];
    *w = tensorDesc->dims[3];
    *nStride = tensorDesc->strides[0];
    *cStride = tensorDesc->strides[1];
    *hStride = tensorDesc->strides[2];
    *wStride = tensorDesc->strides[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                    cudnnDataType_t *dataType, int *nbDims, int *dimA, int *strideA)
{
    RETURN_IF_ERROR(check_desc(tensorDesc));
    if (!tensorDesc->is_set)
        return FDNN_BAD_PARAM("tensorDesc was never set");
    /* A negative nbDimsRequested asks for no dims (cuDNN returns success). */
    RETURN_IF_NULL(dataType);
    RETURN_IF_NULL(nbDims);
    if (nbDimsRequested > 0) {
        RETURN_IF_NULL(dimA);
        RETURN_IF_NULL(strideA);
    }
    *dataType = tensorDesc->dtype;
    *nbDims = tensorDesc->nb_dims;
    for (int i = 0; i < nbDimsRequested && i < tensorDesc->nb_dims; i++) {
        dimA[i] = tensorDesc->dims[i];
        strideA[i] = tensorDesc->strides[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t *size)
{
    RETURN_IF_NULL(size);
    fdnn_tensor_t t;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(tensorDesc, "tensorDesc", &t));
    /* NCHW_VECT_C strides count vectors: span the vectors, not channels. */
    if (tensorDesc->vect > 1)
        t.dims[1] /= tensorDesc->vect;
    *size = (size_t)fdnn_tensor_span(&t) * fdnn_dtype_size(t.dtype);
    return CUDNN_STATUS_SUCCESS;
}
