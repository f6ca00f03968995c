/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the types of the runtime API that cuDNN programs
 * use.  Streams and events are opaque pointers as in CUDA; on the CPU a stream
 * is only an ordering token because every call completes before it returns. */
#ifndef FDNN_COMPAT_DRIVER_TYPES_H
#define FDNN_COMPAT_DRIVER_TYPES_H

#include <stddef.h>

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

/* The numeric values are CUDA's; only the codes the host runtime can return
 * are listed. */
typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorNotSupported = 801,
    cudaErrorUnknown = 999
} cudaError_t;

typedef enum cudaError cudaError;

#endif /* FDNN_COMPAT_DRIVER_TYPES_H */
