/* SPDX-License-Identifier: Apache-2.0
 * Memory of the host CUDA runtime.
 *
 * Device, pinned-host and managed allocations are all host memory aligned to
 * 256 bytes (what cudaMalloc guarantees on a GPU).  Every allocation is kept
 * in a registry, sorted by address, so that the runtime can do what a GPU's
 * unified address space does: tell device memory from pageable host memory,
 * reject cudaFree of a pointer it never gave out, and refuse a copy or a set
 * that would run past the end of an allocation instead of corrupting the
 * heap.  Copies are synchronous: the *Async variants only check the stream. */
#define _GNU_SOURCE
#include "cudart_internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_os.h"

/* cudaMalloc's alignment guarantee on NVIDIA GPUs. */
#define FDNN_CUDART_ALIGN ((size_t)256)

/* ---- the registry ------------------------------------------------------------------ */

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static fdnn_cudart_alloc_t *registry;   /* sorted by base, no overlaps */
static size_t registry_count;
static size_t registry_capacity;

/* Index of the last entry whose base is <= p, or SIZE_MAX.  Caller holds
 * the lock. */
static size_t
registry_floor(uintptr_t p)
{
    size_t lo = 0, hi = registry_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)registry[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? SIZE_MAX : lo - 1;
}

static bool
registry_insert(char *base, size_t size, enum cudaMemoryType type)
{
    bool ok = true;
    pthread_mutex_lock(&registry_lock);
    if (registry_count == registry_capacity) {
        size_t cap = registry_capacity ? 2 * registry_capacity : 64;
        fdnn_cudart_alloc_t *grown = realloc(registry, cap * sizeof(*grown));
        if (!grown) {
            ok = false;
            goto out_unlock;
        }
        registry = grown;
        registry_capacity = cap;
    }
    size_t at = registry_floor((uintptr_t)base) + 1; /* SIZE_MAX + 1 == 0 */
    memmove(&registry[at + 1], &registry[at], (registry_count - at) * sizeof(*registry));
    registry[at] = (fdnn_cudart_alloc_t){base, size, type};
    registry_count++;
out_unlock:
    pthread_mutex_unlock(&registry_lock);
    return ok;
}

/* Removes the allocation that starts exactly at p if its type is one of
 * `types` (a bit mask of 1 << cudaMemoryType).  Returns false otherwise. */
static bool
registry_remove(const void *p, unsigned types)
{
    bool found = false;
    pthread_mutex_lock(&registry_lock);
    size_t i = registry_floor((uintptr_t)p);
    if (i != SIZE_MAX && registry[i].base == p && (types & (1u << registry[i].type))) {
        memmove(&registry[i], &registry[i + 1], (registry_count - i - 1) * sizeof(*registry));
        registry_count--;
        found = true;
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

bool
fdnn_cudart_alloc_find(const void *p, fdnn_cudart_alloc_t *out)
{
    bool found = false;
    pthread_mutex_lock(&registry_lock);
    size_t i = registry_floor((uintptr_t)p);
    if (i != SIZE_MAX && (uintptr_t)p - (uintptr_t)registry[i].base < registry[i].size) {
        *out = registry[i];
        found = true;
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

void
fdnn_cudart_alloc_release_all(void)
{
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_count; i++)
        fdnn_cudart_aligned_free(registry[i].base);
    registry_count = 0;
    pthread_mutex_unlock(&registry_lock);
}

/* ---- allocation -------------------------------------------------------------------- */

static size_t
physical_memory(void)
{
    size_t bytes = fdnn_cudart_physical_bytes();
    return bytes > 0 ? bytes : SIZE_MAX; /* unknown: let the allocator decide */
}

/* Allocates and registers `size` bytes.  Size 0 gives NULL and success, as
 * cudaMalloc does.  On failure *out is not written. */
static cudaError_t
allocate(void **out, size_t size, enum cudaMemoryType type)
{
    if (!out)
        return cudaErrorInvalidValue;
    if (size == 0) {
        *out = NULL;
        return cudaSuccess;
    }
    /* A device cannot hold more than its memory: more than the physical
     * memory (cudaDeviceProp.totalGlobalMem) is refused up front, as a GPU
     * refuses more than it has, instead of relying on overcommit. */
    if (size > physical_memory() || size > SIZE_MAX - FDNN_CUDART_ALIGN)
        return cudaErrorMemoryAllocation;
    size_t rounded = (size + FDNN_CUDART_ALIGN - 1) & ~(FDNN_CUDART_ALIGN - 1);
    void *p = fdnn_cudart_aligned_alloc(FDNN_CUDART_ALIGN, rounded);
    if (p == NULL)
        return cudaErrorMemoryAllocation;
    /* The registry records the requested size: a copy past it is refused
     * even though the rounding would make it harmless. */
    if (!registry_insert(p, size, type)) {
        fdnn_cudart_aligned_free(p);
        return cudaErrorMemoryAllocation;
    }
    *out = p;
    return cudaSuccess;
}

cudaError_t
cudaMalloc(void **devPtr, size_t size)
{
    return fdnn_cudart_record(allocate(devPtr, size, cudaMemoryTypeDevice));
}

/* Rows padded to a multiple of the alignment, like a GPU's pitched layout. */
cudaError_t
cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!devPtr || !pitch)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (width > SIZE_MAX - FDNN_CUDART_ALIGN)
        return fdnn_cudart_record(cudaErrorMemoryAllocation);
    size_t row = (width + FDNN_CUDART_ALIGN - 1) & ~(FDNN_CUDART_ALIGN - 1);
    if (height != 0 && row > SIZE_MAX / height)
        return fdnn_cudart_record(cudaErrorMemoryAllocation);
    cudaError_t err = allocate(devPtr, row * height, cudaMemoryTypeDevice);
    if (err == cudaSuccess)
        *pitch = row;
    return fdnn_cudart_record(err);
}

cudaError_t
cudaMallocHost(void **ptr, size_t size)
{
    return fdnn_cudart_record(allocate(ptr, size, cudaMemoryTypeHost));
}

cudaError_t
cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    const unsigned known = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
    if (flags & ~known)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    return fdnn_cudart_record(allocate(pHost, size, cudaMemoryTypeHost));
}

/* Pinned memory is mapped at the same address for the "device". */
cudaError_t
cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    fdnn_cudart_alloc_t a;
    if (!pDevice || flags != 0)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (!fdnn_cudart_alloc_find(pHost, &a) || a.type != cudaMemoryTypeHost)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    *pDevice = pHost;
    return cudaSuccess;
}

/* Managed memory is documented to refuse size 0, unlike cudaMalloc. */
cudaError_t
cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
        return fdnn_cudart_record(cudaErrorInvalidValue);
    return fdnn_cudart_record(allocate(devPtr, size, cudaMemoryTypeManaged));
}

cudaError_t
cudaFree(void *devPtr)
{
    if (!devPtr)
        return cudaSuccess;
    if (!registry_remove(devPtr, (1u << cudaMemoryTypeDevice) | (1u << cudaMemoryTypeManaged)))
        return fdnn_cudart_record(cudaErrorInvalidValue);
    fdnn_cudart_aligned_free(devPtr);
    return cudaSuccess;
}

cudaError_t
cudaFreeHost(void *ptr)
{
    if (!ptr)
        return cudaSuccess;
    if (!registry_remove(ptr, 1u << cudaMemoryTypeHost))
        return fdnn_cudart_record(cudaErrorInvalidValue);
    fdnn_cudart_aligned_free(ptr);
    return cudaSuccess;
}

/* Total: the machine's physical memory.  Free: what the kernel reports as
 * available (MemAvailable), or the free pages where /proc is missing. */
cudaError_t
cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (!free_bytes || !total_bytes)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    size_t total = fdnn_cudart_physical_bytes();
    if (total == 0)
        return fdnn_cudart_record(cudaErrorOperatingSystem);
    size_t free_now = fdnn_cudart_available_bytes();
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kib;
        while (fgets(line, sizeof(line), f))
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
                free_now = (size_t)kib * 1024;
                break;
            }
        fclose(f);
    }
    *free_bytes = free_now < total ? free_now : total;
    *total_bytes = total;
    return cudaSuccess;
}

cudaError_t
cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    fdnn_cudart_alloc_t a;
    if (!attributes)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (!fdnn_cudart_alloc_find(ptr, &a)) {
        *attributes = (struct cudaPointerAttributes){cudaMemoryTypeUnregistered, cudaInvalidDeviceId, NULL, NULL};
        return cudaSuccess;
    }
    void *p = (void *)(uintptr_t)ptr;
    attributes->type = a.type;
    attributes->device = 0;
    attributes->devicePointer = p;
    attributes->hostPointer = a.type == cudaMemoryTypeDevice ? NULL : p;
    return cudaSuccess;
}

/* ---- copies and sets ----------------------------------------------------------------- */

/* The bytes [p, p + extent) as one side of a copy.  A range that starts in a
 * registered allocation must end inside it, whatever the side: a GPU would
 * fault, we refuse.  If `must_be_device`, p must be runtime memory at all
 * (device, managed or pinned; with unified addressing all three are visible
 * to the device); pageable host memory there is the classic wrong-direction
 * bug that CUDA reports as an invalid argument. */
static cudaError_t
check_range(const void *p, size_t extent, bool must_be_device)
{
    fdnn_cudart_alloc_t a;
    if (!p)
        return cudaErrorInvalidValue;
    if (!fdnn_cudart_alloc_find(p, &a))
        return must_be_device ? cudaErrorInvalidValue : cudaSuccess;
    size_t offset = (size_t)((const char *)p - a.base);
    return extent <= a.size - offset ? cudaSuccess : cudaErrorInvalidValue;
}

/* Which side of each kind must be runtime memory. */
static cudaError_t
check_copy(void *dst, size_t dst_extent, const void *src, size_t src_extent, enum cudaMemcpyKind kind)
{
    bool dst_device, src_device;
    switch (kind) {
    case cudaMemcpyHostToHost: dst_device = false; src_device = false; break;
    case cudaMemcpyHostToDevice: dst_device = true; src_device = false; break;
    case cudaMemcpyDeviceToHost: dst_device = false; src_device = true; break;
    case cudaMemcpyDeviceToDevice: dst_device = true; src_device = true; break;
    case cudaMemcpyDefault: dst_device = false; src_device = false; break;
    default: return cudaErrorInvalidMemcpyDirection;
    }
    cudaError_t err = check_range(dst, dst_extent, dst_device);
    if (err == cudaSuccess)
        err = check_range(src, src_extent, src_device);
    return err;
}

static cudaError_t
copy_1d(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (count == 0)
        return cudaSuccess;
    cudaError_t err = check_copy(dst, count, src, count, kind);
    if (err != cudaSuccess)
        return err;
    /* memmove: overlapping device-to-device copies stay defined. */
    memmove(dst, src, count);
    return cudaSuccess;
}

cudaError_t
cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return fdnn_cudart_record(copy_1d(dst, src, count, kind));
}

cudaError_t
cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (!fdnn_cudart_stream_valid(stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return fdnn_cudart_record(copy_1d(dst, src, count, kind));
}

/* Bytes spanned by `height` rows of `width` bytes `pitch` apart, or
 * SIZE_MAX on overflow (which no allocation can hold). */
static size_t
extent_2d(size_t pitch, size_t width, size_t height)
{
    if (height - 1 > 0 && pitch > (SIZE_MAX - width) / (height - 1))
        return SIZE_MAX;
    return (height - 1) * pitch + width;
}

static cudaError_t
copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
        enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (dpitch < width || spitch < width)
        return cudaErrorInvalidPitchValue;
    cudaError_t err = check_copy(dst, extent_2d(dpitch, width, height), src,
                                 extent_2d(spitch, width, height), kind);
    if (err != cudaSuccess)
        return err;
    for (size_t r = 0; r < height; r++)
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return cudaSuccess;
}

cudaError_t
cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
             enum cudaMemcpyKind kind)
{
    return fdnn_cudart_record(copy_2d(dst, dpitch, src, spitch, width, height, kind));
}

cudaError_t
cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                  enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (!fdnn_cudart_stream_valid(stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return fdnn_cudart_record(copy_2d(dst, dpitch, src, spitch, width, height, kind));
}

/* cudaMemset writes device memory only: the target must be runtime memory. */
static cudaError_t
set_2d(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (pitch < width)
        return cudaErrorInvalidPitchValue;
    cudaError_t err = check_range(devPtr, extent_2d(pitch, width, height), true);
    if (err != cudaSuccess)
        return err;
    for (size_t r = 0; r < height; r++)
        memset((char *)devPtr + r * pitch, value, width);
    return cudaSuccess;
}

cudaError_t
cudaMemset(void *devPtr, int value, size_t count)
{
    return fdnn_cudart_record(set_2d(devPtr, count, value, count, 1));
}

cudaError_t
cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    if (!fdnn_cudart_stream_valid(stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return fdnn_cudart_record(set_2d(devPtr, count, value, count, 1));
}

cudaError_t
cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    return fdnn_cudart_record(set_2d(devPtr, pitch, value, width, height));
}

/* ---- stream-ordered allocation and managed-memory hints -------------------------------
 * Every call completes before it returns, so the stream-ordered allocator
 * is the ordinary one (on a valid stream), and prefetches and advice, which
 * only move or place pages on a GPU, have nothing to do: they check their
 * arguments as CUDA does and succeed. */

cudaError_t
cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    if (!fdnn_cudart_stream_valid(hStream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return fdnn_cudart_record(allocate(devPtr, size, cudaMemoryTypeDevice));
}

cudaError_t
cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    if (!fdnn_cudart_stream_valid(hStream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    return cudaFree(devPtr);
}

/* A range inside one managed allocation. */
static cudaError_t
check_managed_range(const void *p, size_t count)
{
    fdnn_cudart_alloc_t a;
    if (!p || count == 0 || !fdnn_cudart_alloc_find(p, &a) || a.type != cudaMemoryTypeManaged)
        return cudaErrorInvalidValue;
    size_t offset = (size_t)((const char *)p - a.base);
    return count <= a.size - offset ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t
cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream)
{
    if (!fdnn_cudart_stream_valid(stream))
        return fdnn_cudart_record(cudaErrorInvalidResourceHandle);
    if (dstDevice != 0 && dstDevice != cudaCpuDeviceId)
        return fdnn_cudart_record(cudaErrorInvalidDevice);
    return fdnn_cudart_record(check_managed_range(devPtr, count));
}

cudaError_t
cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, int device)
{
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    /* Read-mostly advice ignores the device; the others name one. */
    if (advice > cudaMemAdviseUnsetReadMostly && device != 0 && device != cudaCpuDeviceId)
        return fdnn_cudart_record(cudaErrorInvalidDevice);
    return fdnn_cudart_record(check_managed_range(devPtr, count));
}
