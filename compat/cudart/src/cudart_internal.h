/* SPDX-License-Identifier: Apache-2.0
 * Internals shared by the host CUDA runtime's files: the per-thread last
 * error, the registry of allocations and the check of stream handles. */
#ifndef FDNN_CUDART_INTERNAL_H
#define FDNN_CUDART_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cuda_runtime_api.h"

/* Every public function returns through this: a failure is remembered for
 * cudaGetLastError / cudaPeekAtLastError of the calling thread. */
cudaError_t fdnn_cudart_record(cudaError_t err);

/* What the allocation registry knows about an address. */
typedef struct fdnn_cudart_alloc {
    char *base;
    size_t size;
    enum cudaMemoryType type;
} fdnn_cudart_alloc_t;

/* Finds the allocation that contains p (base <= p < base + size).  Returns
 * false, leaving *out untouched, for an address the runtime did not give out. */
bool fdnn_cudart_alloc_find(const void *p, fdnn_cudart_alloc_t *out);

/* Frees every allocation (cudaDeviceReset). */
void fdnn_cudart_alloc_release_all(void);

/* True for the NULL stream, cudaStreamLegacy, cudaStreamPerThread and every
 * stream created and not yet destroyed. */
bool fdnn_cudart_stream_valid(cudaStream_t stream);

/* Destroys every stream and event (cudaDeviceReset). */
void fdnn_cudart_streams_release_all(void);

#endif /* FDNN_CUDART_INTERNAL_H */
