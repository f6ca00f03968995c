/* SPDX-License-Identifier: Apache-2.0
 * The freednn.h extensions. */
#include "freednn.h"

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"

cudnnStatus_t
freednnSetNumThreads(cudnnHandle_t handle, int threads)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    if (threads < 1 || threads > 1024)
        return FDNN_BAD_PARAM("threads is %d, expected 1 to 1024", threads);
    return fdnn_handle_set_threads(handle, (size_t)threads);
}

cudnnStatus_t
freednnGetNumThreads(cudnnHandle_t handle, int *threads)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(threads);
    *threads = (int)handle->num_threads;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
freednnSetIsa(cudnnHandle_t handle, const char *isa)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(isa);
    int level = fdnn_isa_from_name(isa);
    if (level < 0)
        return FDNN_BAD_PARAM("isa is \"%s\", expected scalar, avx2, avx512 or neon", isa);
    if ((fdnn_isa_t)level > fdnn_cpu_max_isa())
        return FDNN_NOT_SUPPORTED("isa %s is above what this CPU allows (%s)", isa,
                                  fdnn_isa_name(fdnn_cpu_max_isa()));
    handle->isa = (fdnn_isa_t)level;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
freednnGetIsa(cudnnHandle_t handle, const char **isa)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(isa);
    *isa = fdnn_isa_name(handle->isa);
    return CUDNN_STATUS_SUCCESS;
}
