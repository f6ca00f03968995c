/* SPDX-License-Identifier: Apache-2.0
 * Pooling descriptors: create, set/get 2d and Nd, output-dim queries,
 * destroy.
 *
 * Validation follows cuDNN (cross-checked with cuDNN 9 in
 * tests/unit/test_pooling_desc.c): window and stride must be positive;
 * padding may be any value (negative padding shrinks the input);
 * nbDims 1 to CUDNN_DIM_MAX - 2 are accepted by the Nd setter, more than CUDNN_DIM_MAX - 2
 * is NOT_SUPPORTED.  A created descriptor reads back as zeros but cannot be
 * used until set. */
#include <limits.h>
#include <stdlib.h>

#include "api_impl.h"
#include "core/fail.h"
#include "core/pooling.h"
#include "core/tensor.h"

static cudnnStatus_t
check_desc(cudnnPoolingDescriptor_t desc)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("poolingDesc is NULL");
    if (desc->magic != FDNN_POOLING_MAGIC)
        return FDNN_BAD_PARAM("poolingDesc is not a pooling descriptor (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
store(cudnnPoolingDescriptor_t desc, cudnnPoolingMode_t mode, cudnnNanPropagation_t nan_opt, int nb,
      const int *window, const int *padding, const int *stride)
{
    if ((int)mode < CUDNN_POOLING_MAX || (int)mode > CUDNN_POOLING_MAX_DETERMINISTIC)
        return FDNN_BAD_PARAM("mode is %d, not a cudnnPoolingMode_t", (int)mode);
    if (nan_opt != CUDNN_NOT_PROPAGATE_NAN && nan_opt != CUDNN_PROPAGATE_NAN)
        return FDNN_BAD_PARAM("maxpoolingNanOpt is %d, not a cudnnNanPropagation_t", (int)nan_opt);
    for (int i = 0; i < nb; i++) {
        if (window[i] <= 0)
            return FDNN_BAD_PARAM("window dim %d is %d, must be positive", i, window[i]);
        if (stride[i] <= 0)
            return FDNN_BAD_PARAM("stride dim %d is %d, must be positive", i, stride[i]);
    }
    desc->mode = mode;
    desc->nan_opt = nan_opt;
    desc->nb_dims = nb;
    for (int i = 0; i < FDNN_POOL_MAX_DIMS; i++) {
        desc->window[i] = i < nb ? window[i] : 0;
        desc->padding[i] = i < nb ? padding[i] : 0;
        desc->stride[i] = i < nb ? stride[i] : 0;
    }
    desc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *poolingDesc)
{
    RETURN_IF_NULL(poolingDesc);
    cudnnPoolingDescriptor_t d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("no memory for a pooling descriptor");
    d->magic = FDNN_POOLING_MAGIC;
    d->nb_dims = 2;
    *poolingDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t mode,
                                     cudnnNanPropagation_t maxpoolingNanOpt, int windowHeight, int windowWidth,
                                     int verticalPadding, int horizontalPadding, int verticalStride,
                                     int horizontalStride)
{
    RETURN_IF_ERROR(check_desc(poolingDesc));
    int window[2] = {windowHeight, windowWidth};
    int padding[2] = {verticalPadding, horizontalPadding};
    int stride[2] = {verticalStride, horizontalStride};
    return store(poolingDesc, mode, maxpoolingNanOpt, 2, window, padding, stride);
}

cudnnStatus_t
fdnn_api_cudnnGetPooling2dDescriptor(const cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t *mode,
                                     cudnnNanPropagation_t *maxpoolingNanOpt, int *windowHeight, int *windowWidth,
                                     int *verticalPadding, int *horizontalPadding, int *verticalStride,
                                     int *horizontalStride)
{
    RETURN_IF_ERROR(check_desc(poolingDesc));
    RETURN_IF_NULL(mode);
    RETURN_IF_NULL(maxpoolingNanOpt);
    RETURN_IF_NULL(windowHeight);
    RETURN_IF_NULL(windowWidth);
    RETURN_IF_NULL(verticalPadding);
    RETURN_IF_NULL(horizontalPadding);
    RETURN_IF_NULL(verticalStride);
    RETURN_IF_NULL(horizontalStride);
    *mode = poolingDesc->mode;
    *maxpoolingNanOpt = poolingDesc->nan_opt;
    *windowHeight = poolingDesc->window[0];
    *windowWidth = poolingDesc->window[1];
    *verticalPadding = poolingDesc->padding[0];
    *horizontalPadding = poolingDesc->padding[1];
    *verticalStride = poolingDesc->stride[0];
    *horizontalStride = poolingDesc->stride[1];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t poolingDesc, const cudnnPoolingMode_t mode,
                                     const cudnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                     const int *windowDimA, const int *paddingA, const int *strideA)
{
    RETURN_IF_ERROR(check_desc(poolingDesc));
    if (nbDims > CUDNN_DIM_MAX - 2)
        return FDNN_NOT_SUPPORTED("nbDims is %d, more than CUDNN_DIM_MAX - 2 spatial dims", nbDims);
    if (nbDims < 1 || nbDims > FDNN_POOL_MAX_DIMS)
        return FDNN_BAD_PARAM("nbDims is %d, expected 1 to %d", nbDims, FDNN_POOL_MAX_DIMS);
    RETURN_IF_NULL(windowDimA);
    RETURN_IF_NULL(paddingA);
    RETURN_IF_NULL(strideA);
    return store(poolingDesc, mode, maxpoolingNanOpt, nbDims, windowDimA, paddingA, strideA);
}

cudnnStatus_t
fdnn_api_cudnnGetPoolingNdDescriptor(const cudnnPoolingDescriptor_t poolingDesc, int nbDimsRequested,
                                     cudnnPoolingMode_t *mode, cudnnNanPropagation_t *maxpoolingNanOpt, int *nbDims,
                                     int *windowDimA, int *paddingA, int *strideA)
{
    RETURN_IF_ERROR(check_desc(poolingDesc));
    if (nbDimsRequested > CUDNN_DIM_MAX)
        return FDNN_NOT_SUPPORTED("nbDimsRequested is %d, more than CUDNN_DIM_MAX", nbDimsRequested);
    RETURN_IF_NULL(mode);
    RETURN_IF_NULL(maxpoolingNanOpt);
    RETURN_IF_NULL(nbDims);
    int n = nbDimsRequested < poolingDesc->nb_dims ? nbDimsRequested : poolingDesc->nb_dims;
    if (n > 0) {
        RETURN_IF_NULL(windowDimA);
        RETURN_IF_NULL(paddingA);
        RETURN_IF_NULL(strideA);
    }
    *mode = poolingDesc->mode;
    *maxpoolingNanOpt = poolingDesc->nan_opt;
    *nbDims = poolingDesc->nb_dims;
    for (int i = 0; i < n; i++) {
        windowDimA[i] = poolingDesc->window[i];
        paddingA[i] = poolingDesc->padding[i];
        strideA[i] = poolingDesc->stride[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Output dims of pooling `desc` over `in_desc`: dims[0..nb) with N and C kept.
 * BAD_PARAM when the ranks disagree or a window does not fit. */
static cudnnStatus_t
output_dims(cudnnPoolingDescriptor_t desc, cudnnTensorDescriptor_t in_desc, int nb, int *dims)
{
    RETURN_IF_ERROR(check_desc(desc));
    if (!desc->is_set)
        return FDNN_BAD_PARAM("poolingDesc was created but never set");
    fdnn_tensor_t in;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(in_desc, "inputTensorDesc", &in));
    if (in.ndim != desc->nb_dims + 2)
        return FDNN_BAD_PARAM("inputTensorDesc has %d dims, the pooling descriptor needs %d", in.ndim,
                              desc->nb_dims + 2);
    if (nb != in.ndim)
        return FDNN_BAD_PARAM("nbDims is %d, the input tensor has %d dims", nb, in.ndim);
    int out[CUDNN_DIM_MAX];
    out[0] = (int)in.dims[0];
    out[1] = (int)in.dims[1];
    for (int i = 0; i < desc->nb_dims; i++) {
        int64_t o = fdnn_pooling_out_dim(in.dims[i + 2], desc->window[i], desc->padding[i], desc->stride[i]);
        if (in.dims[i + 2] + 2 * (int64_t)desc->padding[i] < desc->window[i] || o < 1)
            return FDNN_BAD_PARAM("window dim %d (%d) is larger than the padded input (%lld + 2 * %d)", i,
                                  desc->window[i], (long long)in.dims[i + 2], desc->padding[i]);
        if (o > INT_MAX)
            return FDNN_NOT_SUPPORTED("output dim %d would be %lld, more than INT_MAX", i, (long long)o);
        out[i + 2] = (int)o;
    }
    for (int i = 0; i < nb; i++)
        dims[i] = out[i];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                           const cudnnTensorDescriptor_t inputTensorDesc, int nbDims,
                                           int *outputTensorDimA)
{
    RETURN_IF_NULL(outputTensorDimA);
    return output_dims(poolingDesc, inputTensorDesc, nbDims, outputTensorDimA);
}

cudnnStatus_t
fdnn_api_cudnnGetPooling2dForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                           const cudnnTensorDescriptor_t inputTensorDesc, int *n, int *c, int *h,
                                           int *w)
{
    RETURN_IF_NULL(n);
    RETURN_IF_NULL(c);
    RETURN_IF_NULL(h);
    RETURN_IF_NULL(w);
    int dims[4];
    RETURN_IF_ERROR(output_dims(poolingDesc, inputTensorDesc, 4, dims));
    *n = dims[0];
    *c = dims[1];
    *h = dims[2];
    *w = dims[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc)
{
    if (poolingDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(check_desc(poolingDesc));
    poolingDesc->magic = 0;
    free(poolingDesc);
    return CUDNN_STATUS_SUCCESS;
}
