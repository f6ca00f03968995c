/* SPDX-License-Identifier: Apache-2.0
 * cudnnCreate, cudnnDestroy, cudnnSetStream, cudnnGetStream. */
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"

/* How idle workers wait (core/handle.h), from FREEDNN_WORKER_WAIT: a
 * number of microseconds they look for the next step before sleeping,
 * "spin" (SPIN_LINGER_US), "sleep" (put to sleep as each call returns), or
 * unset: DEFAULT_LINGER_US. */
#define DEFAULT_LINGER_US 1000
#define SPIN_LINGER_US 100000
static void
worker_wait_default(struct cudnnContext *h)
{
    const char *env = getenv("FREEDNN_WORKER_WAIT");
    h->park_at_return = false;
    h->linger_us = DEFAULT_LINGER_US;
    if (env == NULL)
        return;
    if (strcmp(env, "spin") == 0) {
        h->linger_us = SPIN_LINGER_US;
    } else if (strcmp(env, "sleep") == 0) {
        h->park_at_return = true;
    } else {
        char *end;
        long us = strtol(env, &end, 10);
        if (*end == '\0' && end != env && us >= 0 && us <= 1000000)
            h->linger_us = (uint32_t)us;
    }
}

cudnnStatus_t
fdnn_api_cudnnCreate(cudnnHandle_t *handle)
{
    RETURN_IF_NULL(handle);
    struct cudnnContext *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a handle");
    h->magic = FDNN_HANDLE_MAGIC;
    h->isa = fdnn_cpu_max_isa();
    const char *poison = getenv("FREEDNN_POISON_SCRATCH");
    h->poison_scratch = poison != NULL && strcmp(poison, "1") == 0;
    h->num_threads = 1;
    worker_wait_default(h);
    cudnnStatus_t status = fdnn_handle_set_threads(h, fdnn_cpu_default_threads());
    if (status != CUDNN_STATUS_SUCCESS) {
        free(h);
        return status;
    }
    *handle = h;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroy(cudnnHandle_t handle)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_pool_destroy(handle->pool);
    fdnn_aligned_free(handle->scratch);
    fdnn_aligned_free(handle->stage);
    handle->magic = 0;
    free(handle);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    handle->stream = streamId;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(streamId);
    *streamId = handle->stream;
    return CUDNN_STATUS_SUCCESS;
}
