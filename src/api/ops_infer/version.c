/* SPDX-License-Identifier: Apache-2.0
 * Version queries and the per-sub-library version checks.  Every part of
 * FreeDNN is built from one tree, so the sub-libraries always agree. */
#include "api_impl.h"
#include "core/fail.h"

size_t
fdnn_api_cudnnGetVersion(void)
{
    return CUDNN_VERSION;
}

size_t
fdnn_api_cudnnGetMaxDeviceVersion(void)
{
    return CUDNN_MAX_DEVICE_VERSION;
}

/* The runtime FreeDNN is built against: the host runtime in compat/cudart,
 * which stands in for CUDA 12.2, as the cuda12 build of cuDNN 8.9.4 would
 * report. */
size_t
fdnn_api_cudnnGetCudartVersion(void)
{
    return CUDART_VERSION;
}

cudnnStatus_t
fdnn_api_cudnnGetProperty(libraryPropertyType type, int *value)
{
    RETURN_IF_NULL(value);
    switch (type) {
    case MAJOR_VERSION: *value = CUDNN_MAJOR; return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUDNN_MINOR; return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUDNN_PATCHLEVEL; return CUDNN_STATUS_SUCCESS;
    }
    return FDNN_BAD_PARAM("type is %d, expected MAJOR_VERSION, MINOR_VERSION or PATCH_LEVEL", (int)type);
}

cudnnStatus_t
fdnn_api_cudnnOpsInferVersionCheck(void)
{
    return CUDNN_STATUS_SUCCESS;
}
