/* SPDX-License-Identifier: Apache-2.0
 * Dropout backward: dx = dy / (1 - p) where the forward kept the element (the
 * reserve-space mask), 0 elsewhere. */
#include "api/ops_infer/dropout_common.h"
#include "api_impl.h"
#include "core/dropout.h"
#include "core/fail.h"
#include "core/handle.h"
#include "cpu/dropout/dropout.h"

cudnnStatus_t
fdnn_api_cudnnDropoutBackward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                              const cudnnTensorDescriptor_t dydesc, const void *dy,
                              const cudnnTensorDescriptor_t dxdesc, void *dx, void *reserveSpace,
                              size_t reserveSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_dropout_check_desc(dropoutDesc, true));
    fdnn_tensor_t dyt, dxt;
    RETURN_IF_ERROR(fdnn_dropout_check_pair(dydesc, "dydesc", dy, dxdesc, "dxdesc", dx, &dyt, &dxt));
    size_t need = fdnn_dropout_reserve_bytes(fdnn_tensor_elements(&dyt));
    RETURN_IF_NULL(reserveSpace);
    if (reserveSpaceSizeInBytes < need)
        return FDNN_BAD_PARAM("reserveSpaceSizeInBytes is %zu, %zu needed", reserveSpaceSizeInBytes, need);
    fdnn_dropout_backward(handle, dropoutDesc->dropout, &dyt, dy, &dxt, dx, reserveSpace);
    return CUDNN_STATUS_SUCCESS;
}
