/* SPDX-License-Identifier: Apache-2.0
 * Handle life cycle, handle settings, versions, status names and logging
 * switches of the host cuBLAS (the transfer helpers are in
 * cublas_transfer.c). */
#include <stdint.h>
#include <stdlib.h>

#include "cublas_internal.h"
#include "cuda_runtime_api.h"

/* ---- live handles --------------------------------------------------------------------
 * Kept in a set so that a destroyed or made-up handle is refused
 * (CUBLAS_STATUS_NOT_INITIALIZED) instead of dereferenced. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static cublasHandle_t *live;
static size_t live_count, live_capacity;

static bool
live_add(cublasHandle_t h)
{
    bool ok = true;
    pthread_mutex_lock(&live_lock);
    if (live_count == live_capacity) {
        size_t cap = live_capacity ? 2 * live_capacity : 8;
        cublasHandle_t *grown = realloc(live, cap * sizeof(*grown));
        if (grown == NULL) {
            ok = false;
        } else {
            live = grown;
            live_capacity = cap;
        }
    }
    if (ok)
        live[live_count++] = h;
    pthread_mutex_unlock(&live_lock);
    return ok;
}

static bool
live_remove(cublasHandle_t h)
{
    bool found = false;
    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < live_count; i++) {
        if (live[i] == h) {
            live[i] = live[--live_count];
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&live_lock);
    return found;
}

cublasStatus_t
fdnn_cublas_check(cublasHandle_t h)
{
    bool found = false;
    if (h == NULL)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < live_count && !found; i++)
        found = live[i] == h;
    pthread_mutex_unlock(&live_lock);
    return found ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t
cublasCreate_v2(cublasHandle_t *handle)
{
    if (handle == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasHandle_t h = calloc(1, sizeof(*h));
    if (h == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->pointer_mode = CUBLAS_POINTER_MODE_HOST;
    h->atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
    h->math_mode = CUBLAS_DEFAULT_MATH;
    h->isa = fdnn_cpu_max_isa();
    h->num_threads = fdnn_cpu_default_threads();
    if (h->num_threads > 1) {
        h->pool = fdnn_pool_create(h->num_threads);
        if (h->pool == NULL)
            h->num_threads = 1;
    }
    pthread_mutex_init(&h->lock, NULL);
    if (!live_add(h)) {
        if (h->pool != NULL)
            fdnn_pool_destroy(h->pool);
        pthread_mutex_destroy(&h->lock);
        free(h);
        return CUBLAS_STATUS_ALLOC_FAILED;
    }
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasDestroy_v2(cublasHandle_t handle)
{
    if (handle == NULL || !live_remove(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (handle->pool != NULL)
        fdnn_pool_destroy(handle->pool);
    pthread_mutex_destroy(&handle->lock);
    free(handle->scratch);
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    /* cuBLAS answers without a handle too. */
    (void)handle;
    if (version == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasGetProperty(libraryPropertyType type, int *value)
{
    if (value == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

size_t
cublasGetCudartVersion(void)
{
    return CUDART_VERSION;
}

cublasStatus_t
cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes)
{
    /* The GEMM core keeps its own scratch; a user workspace is accepted
     * and not needed.  cuBLAS refuses a size without memory. */
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (workspace == NULL && workspaceSizeInBytes > 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st == CUBLAS_STATUS_SUCCESS)
        handle->stream = streamId;
    return st;
}

cublasStatus_t
cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (streamId == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (mode == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (mode == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->atomics_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (mode != CUBLAS_ATOMICS_NOT_ALLOWED && mode != CUBLAS_ATOMICS_ALLOWED)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->atomics_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (mode == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    cublasStatus_t st = fdnn_cublas_check(handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    /* One of the four modes, optionally with the reduction flag. */
    unsigned base = (unsigned)mode & ~(unsigned)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if (base > CUBLAS_TF32_TENSOR_OP_MATH)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

const char *
cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *
cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "an error was detected when checking the current licensing";
    }
    return "unknown error";
}

/* ---- logging: accepted; the host cuBLAS logs nothing --------------------------------- */
static cublasLogCallback log_callback;

cublasStatus_t
cublasLoggerConfigure(int logIsOn, int logToStdOut, int logToStdErr, const char *logFileName)
{
    (void)logIsOn;
    (void)logToStdOut;
    (void)logToStdErr;
    (void)logFileName;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasSetLoggerCallback(cublasLogCallback userCallback)
{
    log_callback = userCallback;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasGetLoggerCallback(cublasLogCallback *userCallback)
{
    if (userCallback == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *userCallback = log_callback;
    return CUBLAS_STATUS_SUCCESS;
}
