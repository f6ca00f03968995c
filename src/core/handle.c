/* SPDX-License-Identifier: Apache-2.0
 * Handle life cycle and scratch memory.  See handle.h. */
#include "core/handle.h"

#include <stdlib.h>
#include <string.h>

#include "core/fail.h"
#include "core/memory.h"

cudnnStatus_t
fdnn_handle_check(cudnnHandle_t handle)
{
    if (handle == NULL)
        return FDNN_BAD_PARAM("handle is NULL");
    if (handle->magic != FDNN_HANDLE_MAGIC)
        return FDNN_BAD_PARAM("handle %p was not created by cudnnCreate or was destroyed", (void *)handle);
    return CUDNN_STATUS_SUCCESS;
}

void *
fdnn_handle_scratch(cudnnHandle_t handle, size_t bytes)
{
    if (bytes > handle->scratch_bytes) {
        fdnn_aligned_free(handle->scratch);
        handle->scratch = fdnn_aligned_alloc(bytes);
        handle->scratch_bytes = handle->scratch != NULL ? bytes : 0;
        if (handle->scratch == NULL) {
            FDNN_ALLOC_FAILED("cannot allocate %zu bytes of scratch memory", bytes);
            return NULL;
        }
    }
    /* For the tests: a solver that reads scratch it did not write this call
     * (left over from an earlier call) sees NaNs instead of stale values
     * that may happen to be right. */
    if (handle->poison_scratch)
        memset(handle->scratch, 0xff, bytes);
    return handle->scratch;
}

void *
fdnn_handle_stage(cudnnHandle_t handle, size_t bytes)
{
    if (bytes > handle->stage_bytes) {
        fdnn_aligned_free(handle->stage);
        handle->stage = fdnn_aligned_alloc(bytes);
        handle->stage_bytes = handle->stage != NULL ? bytes : 0;
        if (handle->stage == NULL) {
            FDNN_ALLOC_FAILED("cannot allocate %zu bytes of staging memory", bytes);
            return NULL;
        }
    }
    if (handle->poison_scratch)
        memset(handle->stage, 0xff, bytes);
    return handle->stage;
}

cudaStream_t
fdnn_handle_stream_or_null(cudnnHandle_t handle)
{
    if (handle == NULL || handle->magic != FDNN_HANDLE_MAGIC)
        return NULL;
    return handle->stream;
}

void
fdnn_handle_park_workers(cudnnHandle_t handle)
{
    if (handle == NULL || handle->magic != FDNN_HANDLE_MAGIC || handle->pool == NULL || !handle->park_at_return ||
        !handle->pool_used)
        return;
    handle->pool_used = false;
    fdnn_pool_park(handle->pool);
}

cudnnStatus_t
fdnn_handle_set_threads(cudnnHandle_t handle, size_t threads)
{
    if (threads == handle->num_threads)
        return CUDNN_STATUS_SUCCESS;
    fdnn_pool_t pool = NULL;
    if (threads > 1) {
        pool = fdnn_pool_create(threads);
        if (pool == NULL)
            return FDNN_ALLOC_FAILED("cannot start a pool of %zu threads", threads);
        fdnn_pool_set_linger(pool, handle->linger_us);
    }
    fdnn_pool_destroy(handle->pool);
    handle->pool = pool;
    handle->num_threads = threads;
    return CUDNN_STATUS_SUCCESS;
}
