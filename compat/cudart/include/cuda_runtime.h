/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the header cuDNN programs include.  Like CUDA's,
 * it brings in the host meanings of __host__, __device__, ... (host_defines.h),
 * the runtime API, the driver, library and vector types, make_float2 and the
 * other vector constructors (vector_functions.h), and
 * gives C++ the typed overloads CUDA's header has, so that
 * `float *d; cudaMalloc(&d, bytes);` compiles without a cast. */
#ifndef FDNN_COMPAT_CUDA_RUNTIME_H
#define FDNN_COMPAT_CUDA_RUNTIME_H

#include "host_defines.h"
#include "library_types.h"
#include "vector_types.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"
#include "vector_functions.h"

#if defined(__cplusplus)

/* Event creation with flags, under the plain name. */
static inline cudaError_t
cudaEventCreate(cudaEvent_t *event, unsigned int flags)
{
    return cudaEventCreateWithFlags(event, flags);
}

/* Pinned allocation with flags, under the plain name. */
static inline cudaError_t
cudaMallocHost(void **ptr, size_t size, unsigned int flags)
{
    return cudaHostAlloc(ptr, size, flags);
}

template <class T>
static inline cudaError_t
cudaMalloc(T **devPtr, size_t size)
{
    return ::cudaMalloc((void **)(void *)devPtr, size);
}

template <class T>
static inline cudaError_t
cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height)
{
    return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}

template <class T>
static inline cudaError_t
cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0)
{
    return cudaHostAlloc((void **)(void *)ptr, size, flags);
}

template <class T>
static inline cudaError_t
cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}

template <class T>
static inline cudaError_t
cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{
    return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}

template <class T>
static inline cudaError_t
cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal)
{
    return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}

#endif /* __cplusplus */

#endif /* FDNN_COMPAT_CUDA_RUNTIME_H */
