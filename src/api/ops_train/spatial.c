/* SPDX-License-Identifier: Apache-2.0
 * Spatial transformer backward: grid generator (dtheta) and sampler (dx,
 * dgrid). */
#include "api/ops_infer/spatial_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/scaling.h"
#include "core/handle.h"
#include "cpu/spatial/spatial.h"

cudnnStatus_t
fdnn_api_cudnnSpatialTfGridGeneratorBackward(cudnnHandle_t handle, const cudnnSpatialTransformerDescriptor_t stDesc,
                                             const void *dgrid, void *dtheta)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_spatial_check_desc(stDesc));
    RETURN_IF_NULL(dgrid);
    RETURN_IF_NULL(dtheta);
    fdnn_spatial_grid_backward(handle, stDesc->dtype, stDesc->dims[0], stDesc->dims[2], stDesc->dims[3], dgrid,
                               dtheta);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSpatialTfSamplerBackward(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                                       const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                       const void *beta, const cudnnTensorDescriptor_t dxDesc, void *dx,
                                       const void *alphaDgrid, const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                       const void *grid, const void *betaDgrid, void *dgrid)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_spatial_check_desc(stDesc));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_NULL(alphaDgrid);
    RETURN_IF_NULL(betaDgrid);
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(dx);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(grid);
    RETURN_IF_NULL(dgrid);
    fdnn_tensor_t xt, dxt, dyt;
    RETURN_IF_ERROR(fdnn_spatial_check_input(stDesc, xDesc, "xDesc", &xt));
    RETURN_IF_ERROR(fdnn_spatial_check_input(stDesc, dxDesc, "dxDesc", &dxt));
    RETURN_IF_ERROR(fdnn_tensor_check_output(&dxt, "dxDesc"));
    if (!fdnn_tensor_same_dims(&xt, &dxt))
        return FDNN_BAD_PARAM("dxDesc dims differ from xDesc's");
    RETURN_IF_ERROR(fdnn_spatial_check_output(stDesc, dyDesc, "dyDesc", &dyt));
    cudnnDataType_t t = xt.dtype;
    return fdnn_spatial_sampler_backward(handle, fdnn_scaling_value(alpha, t), &xt, x, fdnn_scaling_value(beta, t),
                                         &dxt, dx, fdnn_scaling_value(alphaDgrid, t), &dyt, dy, grid,
                                         fdnn_scaling_value(betaDgrid, t), dgrid);
}
