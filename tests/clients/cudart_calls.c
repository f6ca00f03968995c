/* SPDX-License-Identifier: Apache-2.0
 * A sample-style program that exercises the CUDA runtime calls cuDNN
 * programs make around the library: pinned and managed allocations, 2D and
 * asynchronous copies and sets on non-blocking streams, events with flags,
 * pointer attributes, free memory, and the last-error pair.  Written for
 * NVIDIA's runtime; test_client_programs.sh builds it against compat/cudart
 * with gcc, g++ and clang (-Wall -Wextra -Werror) and runs it.  Prints
 * "Test passed!" (exit 0) or the failed check (exit 1). */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define checkCUDA(expr)                                                                          \
    do {                                                                                         \
        cudaError_t e_ = (expr);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr,             \
                    cudaGetErrorName(e_), cudaGetErrorString(e_));                               \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#define require(cond)                                                                            \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                  \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

enum { W = 13, HGT = 7 };

int
main(void)
{
    /* Free and total memory: the host's. */
    size_t free_b = 0, total_b = 0;
    checkCUDA(cudaMemGetInfo(&free_b, &total_b));
    require(total_b > 0 && free_b <= total_b);
    printf("memory: %zu MiB free of %zu MiB\n", free_b >> 20, total_b >> 20);

    /* Pinned host buffers, both spellings. */
    float *pinned = NULL, *mapped = NULL;
    checkCUDA(cudaMallocHost((void **)&pinned, W * HGT * sizeof(float)));
    checkCUDA(cudaHostAlloc((void **)&mapped, W * HGT * sizeof(float), cudaHostAllocMapped | cudaHostAllocPortable));
    for (int i = 0; i < W * HGT; i++)
        pinned[i] = (float)i;

    /* A pitched device image filled by a 2D copy through a non-blocking stream. */
    cudaStream_t stream;
    checkCUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    unsigned int sflags = 0;
    checkCUDA(cudaStreamGetFlags(stream, &sflags));
    require(sflags == cudaStreamNonBlocking);
    float *image = NULL;
    size_t pitch = 0;
    checkCUDA(cudaMallocPitch((void **)&image, &pitch, W * sizeof(float), HGT));
    require(pitch >= W * sizeof(float));
    checkCUDA(cudaMemcpy2D(image, pitch, pinned, W * sizeof(float), W * sizeof(float), HGT, cudaMemcpyHostToDevice));

    /* Timed asynchronous copy back, with events created with flags. */
    cudaEvent_t start, stop, marker;
    checkCUDA(cudaEventCreateWithFlags(&start, cudaEventDefault));
    checkCUDA(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    checkCUDA(cudaEventCreateWithFlags(&marker, cudaEventDisableTiming));
    checkCUDA(cudaEventRecord(start, stream));
    checkCUDA(cudaMemcpy2DAsync(mapped, W * sizeof(float), image, pitch, W * sizeof(float), HGT,
                                cudaMemcpyDeviceToHost, stream));
    checkCUDA(cudaEventRecord(marker, stream));
    checkCUDA(cudaStreamWaitEvent(stream, marker, 0));
    checkCUDA(cudaEventRecord(stop, stream));
    checkCUDA(cudaEventSynchronize(stop));
    float ms = -1.0f;
    checkCUDA(cudaEventElapsedTime(&ms, start, stop));
    require(ms >= 0.0f);
    require(memcmp(mapped, pinned, W * HGT * sizeof(float)) == 0);

    /* Managed memory, written by the "device" (a memset on the stream) and
     * read by the host after synchronising. */
    unsigned char *managed = NULL;
    checkCUDA(cudaMallocManaged((void **)&managed, 4096, cudaMemAttachGlobal));
    checkCUDA(cudaMemsetAsync(managed, 0x5a, 4096, stream));
    checkCUDA(cudaStreamSynchronize(stream));
    for (int i = 0; i < 4096; i++)
        require(managed[i] == 0x5a);
    float *dev = NULL;
    checkCUDA(cudaMalloc((void **)&dev, 64 * sizeof(float)));
    checkCUDA(cudaMemcpyAsync(dev, pinned, 64 * sizeof(float), cudaMemcpyHostToDevice, stream));
    checkCUDA(cudaMemcpyAsync(managed, dev, 64 * sizeof(float), cudaMemcpyDefault, stream));
    checkCUDA(cudaStreamQuery(stream));
    require(memcmp(managed, pinned, 64 * sizeof(float)) == 0);

    /* Hints on managed memory, and the stream-ordered allocator. */
    checkCUDA(cudaMemAdvise(managed, 4096, cudaMemAdviseSetReadMostly, 0));
    checkCUDA(cudaMemAdvise(managed, 1024, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId));
    checkCUDA(cudaMemPrefetchAsync(managed, 4096, 0, stream));
    checkCUDA(cudaMemPrefetchAsync(managed + 100, 100, cudaCpuDeviceId, stream));
    require(cudaMemPrefetchAsync(managed, 4097, 0, stream) == cudaErrorInvalidValue); /* past the end */
    require(cudaMemPrefetchAsync(dev, 64, 0, stream) == cudaErrorInvalidValue);      /* not managed */
    (void)cudaGetLastError();
    float *scratch = NULL;
    checkCUDA(cudaMallocAsync((void **)&scratch, 256 * sizeof(float), stream));
    checkCUDA(cudaMemsetAsync(scratch, 0, 256 * sizeof(float), stream));
    checkCUDA(cudaFreeAsync(scratch, stream));
    checkCUDA(cudaProfilerStart());
    checkCUDA(cudaProfilerStop());

    /* Pointer attributes of each kind of memory. */
    struct cudaPointerAttributes attr;
    checkCUDA(cudaPointerGetAttributes(&attr, dev + 3));
    require(attr.type == cudaMemoryTypeDevice && attr.device == 0);
    checkCUDA(cudaPointerGetAttributes(&attr, managed));
    require(attr.type == cudaMemoryTypeManaged);
    checkCUDA(cudaPointerGetAttributes(&attr, pinned));
    require(attr.type == cudaMemoryTypeHost);
    int on_stack = 0;
    checkCUDA(cudaPointerGetAttributes(&attr, &on_stack));
    require(attr.type == cudaMemoryTypeUnregistered);

    /* The last-error pair: a failed call is remembered until read. */
    require(cudaGetLastError() == cudaSuccess);
    require(cudaMemcpy(dev, pinned, 65 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    require(cudaPeekAtLastError() == cudaErrorInvalidValue);
    require(cudaPeekAtLastError() == cudaErrorInvalidValue);
    require(cudaGetLastError() == cudaErrorInvalidValue);
    require(cudaGetLastError() == cudaSuccess);
    require(cudaFree(pinned) == cudaErrorInvalidValue); /* pinned memory goes to cudaFreeHost */
    (void)cudaGetLastError();

    checkCUDA(cudaEventDestroy(start));
    checkCUDA(cudaEventDestroy(stop));
    checkCUDA(cudaEventDestroy(marker));
    checkCUDA(cudaStreamDestroy(stream));
    checkCUDA(cudaFree(image));
    checkCUDA(cudaFree(dev));
    checkCUDA(cudaFree(managed));
    checkCUDA(cudaFreeHost(pinned));
    checkCUDA(cudaFreeHost(mapped));
    checkCUDA(cudaDeviceSynchronize());
    printf("Test passed!\n");
    return 0;
}
