/* SPDX-License-Identifier: Apache-2.0
 * Convolution descriptors: create, set/get (2d, Nd), group count, math type,
 * reorder type, destroy, and the forward output size queries. */
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "core/conv.h"
#include "core/fail.h"

static cudnnStatus_t
check_mode(cudnnConvolutionMode_t mode)
{
    if (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION)
        return FDNN_BAD_PARAM("mode is %d, not a cudnnConvolutionMode_t", (int)mode);
    return CUDNN_STATUS_SUCCESS;
}

/* The compute types a convolution descriptor takes: FLOAT, DOUBLE, HALF
 * and INT32 (the accumulator of INT8 convolutions), as cuDNN 9's runtime;
 * BFLOAT16 data computes in FLOAT (docs/descriptors.md). */
static cudnnStatus_t
check_compute_type(cudnnDataType_t t)
{
    if (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE && t != CUDNN_DATA_HALF && t != CUDNN_DATA_INT32)
        return FDNN_BAD_PARAM("computeType is %d, not FLOAT, DOUBLE, HALF or INT32", (int)t);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc)
{
    RETURN_IF_NULL(convDesc);
    struct cudnnConvolutionStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a convolution descriptor");
    d->magic = FDNN_CONV_MAGIC;
    d->group_count = 1;
    d->math_type = CUDNN_DEFAULT_MATH;
    d->reorder = CUDNN_DEFAULT_REORDER;
    d->compute_type = CUDNN_DATA_FLOAT;
    d->mode = CUDNN_CROSS_CORRELATION;
    *convDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc)
{
    if (convDesc == NULL)
        return CUDNN_STATUS_SUCCESS; /* as cuDNN: destroying NULL is a no-op */
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", false));
    convDesc->magic = 0;
    free(convDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", false));
    if ((int)mathType < CUDNN_DEFAULT_MATH || (int)mathType > CUDNN_FMA_MATH)
        return FDNN_BAD_PARAM("mathType is %d, not a cudnnMathType_t", (int)mathType);
    /* Every math type computes in full FP32/FP64 on the CPU (there are no
     * tensor cores to down-convert for), so the value is only recorded. */
    convDesc->math_type = mathType;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t *mathType)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", false));
    RETURN_IF_NULL(mathType);
    *mathType = convDesc->math_type;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", false));
    if (groupCount < 1)
        return FDNN_BAD_PARAM("groupCount is %d, must be at least 1", groupCount);
    convDesc->group_count = groupCount;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int *groupCount)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", false));
    RETURN_IF_NULL(groupCount);
    *groupCount = convDesc->group_count;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc, cudnnReorderType_t reorderType)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", false));
    if (reorderType != CUDNN_DEFAULT_REORDER && reorderType != CUDNN_NO_REORDER)
        return FDNN_BAD_PARAM("reorderType is %d, not a cudnnReorderType_t", (int)reorderType);
    convDesc->reorder = reorderType;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc, cudnnReorderType_t *reorderType)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", false));
    RETURN_IF_NULL(reorderType);
    *reorderType = convDesc->reorder;
    return CUDNN_STATUS_SUCCESS;
}

/* Validates and stores an Nd setting (the 2d setter is the Nd one with two
 * entries). */
static cudnnStatus_t
set_nd(cudnnConvolutionDescriptor_t d, int n, const int *pad, const int *stride, const int *dil,
       cudnnConvolutionMode_t mode, cudnnDataType_t compute_type)
{
    RETURN_IF_ERROR(check_mode(mode));
    RETURN_IF_ERROR(check_compute_type(compute_type));
    for (int i = 0; i < n; i++) {
        if (pad[i] < 0)
            return FDNN_BAD_PARAM("padding %d is %d, must not be negative", i, pad[i]);
        if (stride[i] <= 0)
            return FDNN_BAD_PARAM("stride %d is %d, must be positive", i, stride[i]);
        if (dil[i] <= 0)
            return FDNN_BAD_PARAM("dilation %d is %d, must be positive", i, dil[i]);
    }
    d->array_length = n;
    for (int i = 0; i < FDNN_CONV_MAX_ARRAY; i++) {
        d->pad[i] = i < n ? pad[i] : 0;
        d->stride[i] = i < n ? stride[i] : 1;
        d->dilation[i] = i < n ? dil[i] : 1;
    }
    d->mode = mode;
    d->compute_type = compute_type;
    d->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w, int u, int v,
                                         int dilation_h, int dilation_w, cudnnConvolutionMode_t mode,
                                         cudnnDataType_t computeType)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", false));
    const int pad[2] = {pad_h, pad_w};
    const int stride[2] = {u, v};
    const int dil[2] = {dilation_h, dilation_w};
    return set_nd(convDesc, 2, pad, stride, dil, mode, computeType);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t convDesc, int *pad_h, int *pad_w,
                                         int *u, int *v, int *dilation_h, int *dilation_w,
                                         cudnnConvolutionMode_t *mode, cudnnDataType_t *computeType)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", true));
    /* A descriptor of another rank is not an error (cuDNN 8.9 documents
     * only a NULL descriptor; cuDNN 9 answers with the first two entries):
     * the first two spatial entries are returned. */
    RETURN_IF_NULL(pad_h);
    RETURN_IF_NULL(pad_w);
    RETURN_IF_NULL(u);
    RETURN_IF_NULL(v);
    RETURN_IF_NULL(dilation_h);
    RETURN_IF_NULL(dilation_w);
    RETURN_IF_NULL(mode);
    RETURN_IF_NULL(computeType);
    *pad_h = convDesc->pad[0];
    *pad_w = convDesc->pad[1];
    *u = convDesc->stride[0];
    *v = convDesc->stride[1];
    *dilation_h = convDesc->dilation[0];
    *dilation_w = convDesc->dilation[1];
    *mode = convDesc->mode;
    *computeType = convDesc->compute_type;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc, int arrayLength, const int *padA,
                                         const int *filterStrideA, const int *dilationA,
                                         cudnnConvolutionMode_t mode, cudnnDataType_t computeType)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", false));
    if (arrayLength < 0)
        return FDNN_BAD_PARAM("arrayLength is %d, must not be negative", arrayLength);
    if (arrayLength > FDNN_CONV_MAX_ARRAY)
        return FDNN_NOT_SUPPORTED("arrayLength is %d, at most %d spatial dims are supported", arrayLength,
                                  FDNN_CONV_MAX_ARRAY);
    if (arrayLength > 0) {
        RETURN_IF_NULL(padA);
        RETURN_IF_NULL(filterStrideA);
        RETURN_IF_NULL(dilationA);
    }
    return set_nd(convDesc, arrayLength, padA, filterStrideA, dilationA, mode, computeType);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc, int arrayLengthRequested,
                                         int *arrayLength, int *padA, int *strideA, int *dilationA,
                                         cudnnConvolutionMode_t *mode, cudnnDataType_t *computeType)
{
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", true));
    if (arrayLengthRequested < 0)
        return FDNN_BAD_PARAM("arrayLengthRequested is %d, must not be negative", arrayLengthRequested);
    if (arrayLengthRequested > FDNN_CONV_MAX_ARRAY)
        return FDNN_NOT_SUPPORTED("arrayLengthRequested is %d, at most %d", arrayLengthRequested,
                                  FDNN_CONV_MAX_ARRAY);
    RETURN_IF_NULL(arrayLength);
    RETURN_IF_NULL(mode);
    RETURN_IF_NULL(computeType);
    int n = arrayLengthRequested < convDesc->array_length ? arrayLengthRequested : convDesc->array_length;
    if (n > 0) {
        RETURN_IF_NULL(padA);
        RETURN_IF_NULL(strideA);
        RETURN_IF_NULL(dilationA);
    }
    *arrayLength = convDesc->array_length;
    for (int i = 0; i < n; i++) {
        padA[i] = convDesc->pad[i];
        strideA[i] = convDesc->stride[i];
        dilationA[i] = convDesc->dilation[i];
    }
    *mode = convDesc->mode;
    *computeType = convDesc->compute_type;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                               const cudnnTensorDescriptor_t inputTensorDesc,
                                               const cudnnFilterDescriptor_t filterDesc, int *n, int *c, int *h,
                                               int *w)
{
    int nb = 0;
    int dims[CUDNN_DIM_MAX];
    RETURN_IF_ERROR(fdnn_conv_output_dims(convDesc, inputTensorDesc, filterDesc, &nb, dims));
    if (nb != 4)
        return FDNN_BAD_PARAM("inputTensorDesc has %d dims, the 2d query needs 4", nb);
    RETURN_IF_NULL(n);
    RETURN_IF_NULL(c);
    RETURN_IF_NULL(h);
    RETURN_IF_NULL(w);
    *n = dims[0];
    *c = dims[1];
    *h = dims[2];
    *w = dims[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                               const cudnnTensorDescriptor_t inputTensorDesc,
                                               const cudnnFilterDescriptor_t filterDesc, int nbDims,
                                               int *tensorOuputDimA)
{
    int nb = 0;
    int dims[CUDNN_DIM_MAX];
    RETURN_IF_ERROR(fdnn_conv_output_dims(convDesc, inputTensorDesc, filterDesc, &nb, dims));
    if (nbDims != nb)
        return FDNN_BAD_PARAM("nbDims is %d but inputTensorDesc has %d dims", nbDims, nb);
    RETURN_IF_NULL(tensorOuputDimA);
    memcpy(tensorOuputDimA, dims, sizeof(int) * (size_t)nb);
    return CUDNN_STATUS_SUCCESS;
}
