/* SPDX-License-Identifier: Apache-2.0
 * Error strings, runtime-error queries and the logging callback. */
#include "api_impl.h"
#include "core/api_log.h"
#include "core/fail.h"
#include "core/handle.h"
#include "enum_names.h"

const char *
fdnn_api_cudnnGetErrorString(cudnnStatus_t status)
{
    const char *name = fdnn_enum_name_cudnnStatus_t((int)status);
    return name != NULL ? name : "CUDNN_UNKNOWN_STATUS";
}

/* Kernels on the CPU report every failure through their return status, so
 * there is never a deferred runtime error to report. */
cudnnStatus_t
fdnn_api_cudnnQueryRuntimeError(cudnnHandle_t handle, cudnnStatus_t *rstatus, cudnnErrQueryMode_t mode,
                                cudnnRuntimeTag_t *tag)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(rstatus);
    if (tag != NULL)
        return FDNN_BAD_PARAM("tag must be NULL");
    if (mode != CUDNN_ERRQUERY_RAWCODE && mode != CUDNN_ERRQUERY_NONBLOCKING && mode != CUDNN_ERRQUERY_BLOCKING)
        return FDNN_BAD_PARAM("mode is %d, not a cudnnErrQueryMode_t", (int)mode);
    *rstatus = CUDNN_STATUS_SUCCESS;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetCallback(unsigned int mask, void *udata, cudnnCallback_t fptr)
{
    return fdnn_log_set_callback(mask, udata, fptr);
}

cudnnStatus_t
fdnn_api_cudnnGetCallback(unsigned int *mask, void **udata, cudnnCallback_t *fptr)
{
    RETURN_IF_NULL(mask);
    RETURN_IF_NULL(udata);
    RETURN_IF_NULL(fptr);
    fdnn_log_get_callback(mask, udata, fptr);
    return CUDNN_STATUS_SUCCESS;
}
