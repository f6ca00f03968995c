/* SPDX-License-Identifier: Apache-2.0
 * Spatial transformer: the descriptor, the grid generator and the bilinear
 * sampler (forward).  The op is src/cpu/spatial. */
#include <stdlib.h>
#include <string.h>

#include "api/ops_infer/spatial_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "cpu/spatial/spatial.h"

cudnnStatus_t
fdnn_spatial_check_desc(cudnnSpatialTransformerDescriptor_t stDesc)
{
    if (stDesc == NULL)
        return FDNN_BAD_PARAM("stDesc is NULL");
    if (stDesc->magic != FDNN_SPATIAL_TF_MAGIC)
        return FDNN_BAD_PARAM("stDesc is not a spatial transformer descriptor (destroyed or never created)");
    if (!stDesc->is_set)
        return FDNN_BAD_PARAM("stDesc was created but never set");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_spatial_check_input(cudnnSpatialTransformerDescriptor_t stDesc, cudnnTensorDescriptor_t desc, const char *what,
                         fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, out));
    if (out->ndim != 4)
        return FDNN_BAD_PARAM("%s has %d dims, the spatial transformer takes 4", what, out->ndim);
    if (out->dtype != stDesc->dtype)
        return FDNN_BAD_PARAM("%s has data type %s, stDesc has %s", what, fdnn_dtype_name(out->dtype),
                              fdnn_dtype_name(stDesc->dtype));
    if (out->dims[0] != stDesc->dims[0] || out->dims[1] != stDesc->dims[1])
        return FDNN_BAD_PARAM("%s is %lldx%lld in N and C, stDesc is %dx%d", what, (long long)out->dims[0],
                              (long long)out->dims[1], stDesc->dims[0], stDesc->dims[1]);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_spatial_check_output(cudnnSpatialTransformerDescriptor_t stDesc, cudnnTensorDescriptor_t desc,
                          const char *what, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(fdnn_spatial_check_input(stDesc, desc, what, out));
    if (out->dims[2] != stDesc->dims[2] || out->dims[3] != stDesc->dims[3])
        return FDNN_BAD_PARAM("%s is %lldx%lld in H and W, stDesc is %dx%d", what, (long long)out->dims[2],
                              (long long)out->dims[3], stDesc->dims[2], stDesc->dims[3]);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateSpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t *stDesc)
{
    RETURN_IF_NULL(stDesc);
    struct cudnnSpatialTransformerStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a spatial transformer descriptor");
    d->magic = FDNN_SPATIAL_TF_MAGIC;
    *stDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroySpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t stDesc)
{
    if (stDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    if (stDesc->magic != FDNN_SPATIAL_TF_MAGIC)
        return FDNN_BAD_PARAM("stDesc is not a spatial transformer descriptor (destroyed or never created)");
    stDesc->magic = 0;
    free(stDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetSpatialTransformerNdDescriptor(cudnnSpatialTransformerDescriptor_t stDesc,
                                                cudnnSamplerType_t samplerType, cudnnDataType_t dataType,
                                                const int nbDims, const int *dimA)
{
    if (stDesc == NULL)
        return FDNN_BAD_PARAM("stDesc is NULL");
    if (stDesc->magic != FDNN_SPATIAL_TF_MAGIC)
        return FDNN_BAD_PARAM("stDesc is not a spatial transformer descriptor (destroyed or never created)");
    RETURN_IF_NULL(dimA);
    /* As cuDNN 9: FLOAT, DOUBLE and HALF; INT8 is a known type without a
     * sampler (checked first, as cuDNN 9 does); anything else is rejected as
     * a bad type. */
    if (dataType == CUDNN_DATA_INT8)
        return FDNN_NOT_SUPPORTED("dataType INT8 is not supported by the spatial transformer");
    if (samplerType != CUDNN_SAMPLER_BILINEAR)
        return FDNN_BAD_PARAM("samplerType is %d, not a cudnnSamplerType_t", (int)samplerType);
    if (dataType != CUDNN_DATA_FLOAT && dataType != CUDNN_DATA_DOUBLE && dataType != CUDNN_DATA_HALF)
        return FDNN_BAD_PARAM("dataType %s is not FLOAT, DOUBLE or HALF", fdnn_dtype_name(dataType));
    /* 8.9 documents 2-D transforms only: NOT_SUPPORTED above 4 dims.  (cuDNN
     * 9 accepts any nbDims here and fails later.) */
    if (nbDims != 4)
        return FDNN_NOT_SUPPORTED("nbDims is %d; only 4 (2-D transforms) is supported", nbDims);
    for (int d = 0; d < 4; d++)
        if (dimA[d] <= 0)
            return FDNN_BAD_PARAM("dimA[%d] is %d, must be positive", d, dimA[d]);
    stDesc->sampler = samplerType;
    stDesc->dtype = dataType;
    stDesc->nb_dims = nbDims;
    memset(stDesc->dims, 0, sizeof(stDesc->dims));
    memcpy(stDesc->dims, dimA, sizeof(int) * 4);
    stDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSpatialTfGridGeneratorForward(cudnnHandle_t handle, const cudnnSpatialTransformerDescriptor_t stDesc,
                                            const void *theta, void *grid)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_spatial_check_desc(stDesc));
    RETURN_IF_NULL(theta);
    RETURN_IF_NULL(grid);
    fdnn_spatial_grid_forward(handle, stDesc->dtype, stDesc->dims[0], stDesc->dims[2], stDesc->dims[3], theta, grid);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSpatialTfSamplerForward(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                                      const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                      const void *grid, const void *beta, cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_spatial_check_desc(stDesc));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(grid);
    RETURN_IF_NULL(y);
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(fdnn_spatial_check_input(stDesc, xDesc, "xDesc", &xt));
    RETURN_IF_ERROR(fdnn_spatial_check_output(stDesc, yDesc, "yDesc", &yt));
    RETURN_IF_ERROR(fdnn_tensor_check_output(&yt, "yDesc"));
    fdnn_spatial_sampler_forward(handle, fdnn_scaling_value(alpha, xt.dtype), &xt, x, grid,
                                 fdnn_scaling_value(beta, xt.dtype), &yt, y);
    return CUDNN_STATUS_SUCCESS;
}
