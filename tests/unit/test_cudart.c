/* SPDX-License-Identifier: Apache-2.0
 * The host CUDA runtime (compat/cudart): errors and the last-error state,
 * the device description, memory (allocation, copies, sets, the registry
 * that refuses wrong-side and out-of-range accesses), streams and events.
 * Host-side buffers are guarded, so a copy that wrote outside them would
 * fault; every refused call is checked to have written nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_runtime.h"
#include "testutil.h"

#define CHECK_CUDA(expr, expected)                                                            \
    do {                                                                                      \
        cudaError_t got_ = (expr);                                                            \
        CHECK_MSG(got_ == (expected), "%s returned %s, expected %s", #expr,                   \
                  cudaGetErrorName(got_), cudaGetErrorName(expected));                        \
    } while (0)
#define CHECK_CUDA_OK(expr) CHECK_CUDA(expr, cudaSuccess)

/* ---- errors ------------------------------------------------------------------------ */

#define ROW(e) {e, #e}
static const struct {
    cudaError_t code;
    const char *name;
} error_names[] = {
    ROW(cudaSuccess), ROW(cudaErrorInvalidValue), ROW(cudaErrorMemoryAllocation),
    ROW(cudaErrorInitializationError), ROW(cudaErrorCudartUnloading), ROW(cudaErrorProfilerDisabled),
    ROW(cudaErrorProfilerNotInitialized), ROW(cudaErrorProfilerAlreadyStarted),
    ROW(cudaErrorProfilerAlreadyStopped), ROW(cudaErrorInvalidConfiguration), ROW(cudaErrorInvalidPitchValue),
    ROW(cudaErrorInvalidSymbol), ROW(cudaErrorInvalidHostPointer), ROW(cudaErrorInvalidDevicePointer),
    ROW(cudaErrorInvalidTexture), ROW(cudaErrorInvalidTextureBinding), ROW(cudaErrorInvalidChannelDescriptor),
    ROW(cudaErrorInvalidMemcpyDirection), ROW(cudaErrorAddressOfConstant), ROW(cudaErrorTextureFetchFailed),
    ROW(cudaErrorTextureNotBound), ROW(cudaErrorSynchronizationError), ROW(cudaErrorInvalidFilterSetting),
    ROW(cudaErrorInvalidNormSetting), ROW(cudaErrorMixedDeviceExecution), ROW(cudaErrorNotYetImplemented),
    ROW(cudaErrorMemoryValueTooLarge), ROW(cudaErrorStubLibrary), ROW(cudaErrorInsufficientDriver),
    ROW(cudaErrorCallRequiresNewerDriver), ROW(cudaErrorInvalidSurface), ROW(cudaErrorDuplicateVariableName),
    ROW(cudaErrorDuplicateTextureName), ROW(cudaErrorDuplicateSurfaceName), ROW(cudaErrorDevicesUnavailable),
    ROW(cudaErrorIncompatibleDriverContext), ROW(cudaErrorMissingConfiguration), ROW(cudaErrorPriorLaunchFailure),
    ROW(cudaErrorLaunchMaxDepthExceeded), ROW(cudaErrorLaunchFileScopedTex), ROW(cudaErrorLaunchFileScopedSurf),
    ROW(cudaErrorSyncDepthExceeded), ROW(cudaErrorLaunchPendingCountExceeded),
    ROW(cudaErrorInvalidDeviceFunction), ROW(cudaErrorNoDevice), ROW(cudaErrorInvalidDevice),
    ROW(cudaErrorDeviceNotLicensed), ROW(cudaErrorSoftwareValidityNotEstablished), ROW(cudaErrorStartupFailure),
    ROW(cudaErrorInvalidKernelImage), ROW(cudaErrorDeviceUninitialized), ROW(cudaErrorMapBufferObjectFailed),
    ROW(cudaErrorUnmapBufferObjectFailed), ROW(cudaErrorArrayIsMapped), ROW(cudaErrorAlreadyMapped),
    ROW(cudaErrorNoKernelImageForDevice), ROW(cudaErrorAlreadyAcquired), ROW(cudaErrorNotMapped),
    ROW(cudaErrorNotMappedAsArray), ROW(cudaErrorNotMappedAsPointer), ROW(cudaErrorECCUncorrectable),
    ROW(cudaErrorUnsupportedLimit), ROW(cudaErrorDeviceAlreadyInUse), ROW(cudaErrorPeerAccessUnsupported),
    ROW(cudaErrorInvalidPtx), ROW(cudaErrorInvalidGraphicsContext), ROW(cudaErrorNvlinkUncorrectable),
    ROW(cudaErrorJitCompilerNotFound), ROW(cudaErrorUnsupportedPtxVersion), ROW(cudaErrorJitCompilationDisabled),
    ROW(cudaErrorUnsupportedExecAffinity), ROW(cudaErrorUnsupportedDevSideSync), ROW(cudaErrorInvalidSource),
    ROW(cudaErrorFileNotFound), ROW(cudaErrorSharedObjectSymbolNotFound), ROW(cudaErrorSharedObjectInitFailed),
    ROW(cudaErrorOperatingSystem), ROW(cudaErrorInvalidResourceHandle), ROW(cudaErrorIllegalState),
    ROW(cudaErrorLossyQuery), ROW(cudaErrorSymbolNotFound), ROW(cudaErrorNotReady), ROW(cudaErrorIllegalAddress),
    ROW(cudaErrorLaunchOutOfResources), ROW(cudaErrorLaunchTimeout), ROW(cudaErrorLaunchIncompatibleTexturing),
    ROW(cudaErrorPeerAccessAlreadyEnabled), ROW(cudaErrorPeerAccessNotEnabled), ROW(cudaErrorSetOnActiveProcess),
    ROW(cudaErrorContextIsDestroyed), ROW(cudaErrorAssert), ROW(cudaErrorTooManyPeers),
    ROW(cudaErrorHostMemoryAlreadyRegistered), ROW(cudaErrorHostMemoryNotRegistered),
    ROW(cudaErrorHardwareStackError), ROW(cudaErrorIllegalInstruction), ROW(cudaErrorMisalignedAddress),
    ROW(cudaErrorInvalidAddressSpace), ROW(cudaErrorInvalidPc), ROW(cudaErrorLaunchFailure),
    ROW(cudaErrorCooperativeLaunchTooLarge), ROW(cudaErrorNotPermitted), ROW(cudaErrorNotSupported),
    ROW(cudaErrorSystemNotReady), ROW(cudaErrorSystemDriverMismatch), ROW(cudaErrorCompatNotSupportedOnDevice),
    ROW(cudaErrorMpsConnectionFailed), ROW(cudaErrorMpsRpcFailure), ROW(cudaErrorMpsServerNotReady),
    ROW(cudaErrorMpsMaxClientsReached), ROW(cudaErrorMpsMaxConnectionsReached), ROW(cudaErrorMpsClientTerminated),
    ROW(cudaErrorCdpNotSupported), ROW(cudaErrorCdpVersionMismatch), ROW(cudaErrorStreamCaptureUnsupported),
    ROW(cudaErrorStreamCaptureInvalidated), ROW(cudaErrorStreamCaptureMerge), ROW(cudaErrorStreamCaptureUnmatched),
    ROW(cudaErrorStreamCaptureUnjoined), ROW(cudaErrorStreamCaptureIsolation), ROW(cudaErrorStreamCaptureImplicit),
    ROW(cudaErrorCapturedEvent), ROW(cudaErrorStreamCaptureWrongThread), ROW(cudaErrorTimeout),
    ROW(cudaErrorGraphExecUpdateFailure), ROW(cudaErrorExternalDevice), ROW(cudaErrorInvalidClusterSize),
    ROW(cudaErrorUnknown), ROW(cudaErrorApiFailureBase),
};

static void *
peek_in_thread(void *arg)
{
    *(cudaError_t *)arg = cudaPeekAtLastError();
    return NULL;
}

static void
test_errors(void)
{
    size_t n = sizeof(error_names) / sizeof(error_names[0]);
    for (size_t i = 0; i < n; i++) {
        const char *name = cudaGetErrorName(error_names[i].code);
        const char *text = cudaGetErrorString(error_names[i].code);
        CHECK_MSG(strcmp(name, error_names[i].name) == 0, "name of %d is %s, expected %s",
                  (int)error_names[i].code, name, error_names[i].name);
        CHECK_MSG(text[0] != '\0' && strcmp(text, "unrecognized error code") != 0, "no text for %s",
                  error_names[i].name);
    }
    CHECK(strcmp(cudaGetErrorName((cudaError_t)12345), "unrecognized error code") == 0);
    CHECK(strcmp(cudaGetErrorString((cudaError_t)-1), "unrecognized error code") == 0);
    CHECK(cudaSuccess == 0 && cudaErrorInvalidValue == 1 && cudaErrorMemoryAllocation == 2);
    CHECK(cudaErrorInvalidDevice == 101 && cudaErrorInvalidResourceHandle == 400 && cudaErrorNotReady == 600);

    /* The last error: set by a failing call, kept by successful ones, read
     * and cleared by cudaGetLastError, per thread. */
    (void)cudaGetLastError();
    CHECK_CUDA_OK(cudaPeekAtLastError());
    CHECK_CUDA(cudaSetDevice(1), cudaErrorInvalidDevice);
    int count = 0;
    CHECK_CUDA_OK(cudaGetDeviceCount(&count));
    CHECK_CUDA(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    CHECK_CUDA(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    cudaError_t other = cudaErrorUnknown;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, peek_in_thread, &other) == 0);
    pthread_join(t, NULL);
    CHECK_CUDA(other, cudaSuccess);
    CHECK_CUDA(cudaGetLastError(), cudaErrorInvalidDevice);
    CHECK_CUDA_OK(cudaGetLastError());
}

/* NVIDIA's runtime, when installed, settles the names and values: each code
 * of driver_types.h must have the same name there (codes added after 12.2
 * are simply absent here).  Loaded by absolute path and looked up through
 * its own handle, so its symbols never stand in for ours. */
static void
test_errors_against_nvidia(void)
{
    static const char *paths[] = {"/usr/local/cuda/lib64/libcudart.so.13", "/usr/local/cuda/lib64/libcudart.so.12",
                                  "/usr/local/cuda/lib64/libcudart.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !lib; i++)
        lib = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("NVIDIA's libcudart not found: error-name cross-check skipped\n");
        return;
    }
    typedef const char *(*name_fn)(cudaError_t);
    name_fn nvidia_name = (name_fn)dlsym(lib, "cudaGetErrorName");
    CHECK(nvidia_name != NULL && nvidia_name != cudaGetErrorName);
    if (!nvidia_name || nvidia_name == cudaGetErrorName)
        return;
    size_t n = sizeof(error_names) / sizeof(error_names[0]);
    for (size_t i = 0; i < n; i++) {
        const char *theirs = nvidia_name(error_names[i].code);
        CHECK_MSG(strcmp(theirs, error_names[i].name) == 0, "%s = %d, NVIDIA's runtime names it %s",
                  error_names[i].name, (int)error_names[i].code, theirs);
    }
    /* The library stays loaded: CUDA runtimes are not made to be unloaded. */
}

/* ---- device ------------------------------------------------------------------------ */

#undef cudaGetDeviceProperties
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);

static void
test_device(void)
{
    int count = -1, dev = -1;
    CHECK_CUDA_OK(cudaGetDeviceCount(&count));
    CHECK(count == 1);
    CHECK_CUDA(cudaGetDeviceCount(NULL), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaSetDevice(0));
    CHECK_CUDA(cudaSetDevice(-1), cudaErrorInvalidDevice);
    CHECK_CUDA_OK(cudaGetDevice(&dev));
    CHECK(dev == 0);

    /* CUDA 12's layout: 1032 bytes, the fields where NVIDIA's headers put
     * them (offsets on LP64). */
    CHECK(sizeof(struct cudaDeviceProp) == 1032);
    CHECK(offsetof(struct cudaDeviceProp, totalGlobalMem) == 288);
    CHECK(offsetof(struct cudaDeviceProp, major) == 360);
    CHECK(offsetof(struct cudaDeviceProp, multiProcessorCount) == 388);

    struct cudaDeviceProp p, q;
    memset(&p, 0xAB, sizeof(p));
    CHECK_CUDA_OK(cudaGetDeviceProperties_v2(&p, 0));
    CHECK(memchr(p.name, '\0', sizeof(p.name)) != NULL && p.name[0] != '\0');
    long page = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_PHYS_PAGES);
    CHECK(p.totalGlobalMem == (size_t)page * (size_t)pages);
    CHECK(p.multiProcessorCount == (int)sysconf(_SC_NPROCESSORS_ONLN));
    CHECK(p.major == 8 && p.minor == 0);
    CHECK(p.warpSize == 32 && p.maxThreadsPerBlock == 1024);
    CHECK(p.integrated == 1 && p.unifiedAddressing == 1 && p.managedMemory == 1);
    CHECK(p.asyncEngineCount == 0);
    CHECK(p.l2CacheSize >= 0 && p.clockRate >= 0);
    int reserved_zero = 1;
    for (int i = 0; i < 60; i++)
        reserved_zero &= p.reserved[i] == 0;
    CHECK(reserved_zero);
    memset(&q, 0, sizeof(q));
    CHECK_CUDA_OK(cudaGetDeviceProperties(&q, 0));
    CHECK(memcmp(&p, &q, sizeof(p)) == 0);
    CHECK_CUDA(cudaGetDeviceProperties_v2(&q, 1), cudaErrorInvalidDevice);
    CHECK_CUDA(cudaGetDeviceProperties_v2(NULL, 0), cudaErrorInvalidValue);

    int v = -7;
    CHECK_CUDA_OK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
    CHECK(v == p.major);
    CHECK_CUDA_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    CHECK(v == p.multiProcessorCount);
    CHECK_CUDA_OK(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0));
    CHECK(v == p.l2CacheSize);
    v = -7;
    CHECK_CUDA(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)9999, 0), cudaErrorInvalidValue);
    CHECK(v == -7);
    CHECK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 2), cudaErrorInvalidDevice);

    unsigned flags = 99;
    CHECK_CUDA_OK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    CHECK_CUDA_OK(cudaGetDeviceFlags(&flags));
    CHECK((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);
    CHECK_CUDA(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield), cudaErrorInvalidValue);
    CHECK_CUDA(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaSetDeviceFlags(0));

    int drv = 0, rt = 0;
    CHECK_CUDA_OK(cudaDriverGetVersion(&drv));
    CHECK_CUDA_OK(cudaRuntimeGetVersion(&rt));
    CHECK(rt == CUDART_VERSION && rt == 12020 && drv >= rt);
    CHECK_CUDA(cudaRuntimeGetVersion(NULL), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaDeviceSynchronize());
    (void)cudaGetLastError();
}

/* ---- memory ------------------------------------------------------------------------ */

static int
all_bytes(const void *p, int value, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)value)
            return 0;
    return 1;
}

static void
test_alloc(void)
{
    void *d = NULL, *untouched = (void *)(uintptr_t)0x1234;
    size_t sizes[] = {1, 3, 255, 256, 257, 4096, 1 << 20};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        CHECK_CUDA_OK(cudaMalloc(&d, sizes[i]));
        CHECK(d != NULL && ((uintptr_t)d % 256) == 0);
        memset(d, 0x5A, sizes[i]); /* device memory is host memory */
        CHECK_CUDA_OK(cudaFree(d));
    }
    d = untouched;
    CHECK_CUDA_OK(cudaMalloc(&d, 0));
    CHECK(d == NULL);
    CHECK_CUDA(cudaMalloc(NULL, 16), cudaErrorInvalidValue);
    d = untouched;
    CHECK_CUDA(cudaMalloc(&d, SIZE_MAX), cudaErrorMemoryAllocation);
    CHECK(d == untouched);
    d = untouched;
    CHECK_CUDA(cudaMalloc(&d, SIZE_MAX / 2), cudaErrorMemoryAllocation);
    CHECK(d == untouched);
    struct cudaDeviceProp prop;
    CHECK_CUDA_OK(cudaGetDeviceProperties_v2(&prop, 0));
    CHECK_CUDA(cudaMalloc(&d, prop.totalGlobalMem + 1), cudaErrorMemoryAllocation); /* more than the "device" has */
    CHECK(d == untouched);

    /* cudaFree takes exactly what cudaMalloc / cudaMallocManaged gave. */
    CHECK_CUDA_OK(cudaFree(NULL));
    CHECK_CUDA_OK(cudaMalloc(&d, 100));
    CHECK_CUDA(cudaFree((char *)d + 1), cudaErrorInvalidValue);
    CHECK_CUDA(cudaFreeHost(d), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaFree(d));
    CHECK_CUDA(cudaFree(d), cudaErrorInvalidValue); /* double free refused */
    int on_stack;
    CHECK_CUDA(cudaFree(&on_stack), cudaErrorInvalidValue);

    void *h = NULL;
    CHECK_CUDA_OK(cudaMallocHost(&h, 1000));
    CHECK(h != NULL && ((uintptr_t)h % 256) == 0);
    CHECK_CUDA(cudaFree(h), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaFreeHost(h));
    CHECK_CUDA_OK(cudaFreeHost(NULL));
    CHECK_CUDA_OK(cudaHostAlloc(&h, 64, cudaHostAllocMapped | cudaHostAllocPortable));
    void *hd = NULL;
    CHECK_CUDA_OK(cudaHostGetDevicePointer(&hd, h, 0));
    CHECK(hd == h);
    CHECK_CUDA(cudaHostGetDevicePointer(&hd, &on_stack, 0), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaFreeHost(h));
    h = untouched;
    CHECK_CUDA(cudaHostAlloc(&h, 64, 0x8), cudaErrorInvalidValue);
    CHECK(h == untouched);

    void *m = untouched;
    CHECK_CUDA(cudaMallocManaged(&m, 0, cudaMemAttachGlobal), cudaErrorInvalidValue);
    CHECK_CUDA(cudaMallocManaged(&m, 64, cudaMemAttachSingle), cudaErrorInvalidValue);
    CHECK(m == untouched);
    CHECK_CUDA_OK(cudaMallocManaged(&m, 64, cudaMemAttachGlobal));
    CHECK(m != untouched && ((uintptr_t)m % 256) == 0);

    struct cudaPointerAttributes a;
    CHECK_CUDA_OK(cudaPointerGetAttributes(&a, m));
    CHECK(a.type == cudaMemoryTypeManaged && a.device == 0 && a.devicePointer == m && a.hostPointer == m);
    CHECK_CUDA_OK(cudaMalloc(&d, 64));
    CHECK_CUDA_OK(cudaPointerGetAttributes(&a, (char *)d + 10));
    CHECK(a.type == cudaMemoryTypeDevice && a.devicePointer == (char *)d + 10 && a.hostPointer == NULL);
    CHECK_CUDA_OK(cudaPointerGetAttributes(&a, (char *)d + 64)); /* one past the end: not d's */
    CHECK(a.type == cudaMemoryTypeUnregistered);
    CHECK_CUDA_OK(cudaPointerGetAttributes(&a, &on_stack));
    CHECK(a.type == cudaMemoryTypeUnregistered && a.device == cudaInvalidDeviceId);
    CHECK_CUDA(cudaPointerGetAttributes(NULL, d), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaFree(m));
    CHECK_CUDA_OK(cudaFree(d));

    size_t pitch = 0;
    CHECK_CUDA_OK(cudaMallocPitch(&d, &pitch, 100, 7));
    CHECK(pitch >= 100 && pitch % 256 == 0);
    CHECK_CUDA_OK(cudaFree(d));

    size_t free_b = 0, total_b = 0;
    CHECK_CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
    struct cudaDeviceProp p;
    CHECK_CUDA_OK(cudaGetDeviceProperties_v2(&p, 0));
    CHECK(total_b == p.totalGlobalMem && free_b <= total_b && free_b > 0);
    CHECK_CUDA(cudaMemGetInfo(NULL, &total_b), cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

static void
test_copies(void)
{
    const size_t n = 1000;
    unsigned char *host = fdnn_guarded_alloc(n);
    unsigned char *back = fdnn_guarded_alloc(n);
    unsigned char *pageable = fdnn_guarded_alloc(n);
    unsigned char *d = NULL, *d2 = NULL;
    CHECK_CUDA_OK(cudaMalloc((void **)&d, n));
    CHECK_CUDA_OK(cudaMalloc((void **)&d2, n));
    for (size_t i = 0; i < n; i++)
        host[i] = (unsigned char)(i * 7 + 3);

    fdnn_poison_bytes(back, n);
    CHECK_CUDA_OK(cudaMemcpy(d, host, n, cudaMemcpyHostToDevice));
    CHECK_CUDA_OK(cudaMemcpy(d2, d, n, cudaMemcpyDeviceToDevice));
    CHECK_CUDA_OK(cudaMemcpy(back, d2, n, cudaMemcpyDeviceToHost));
    CHECK(memcmp(back, host, n) == 0);
    fdnn_poison_bytes(back, n);
    CHECK_CUDA_OK(cudaMemcpy(back, d, n, cudaMemcpyDefault));
    CHECK(memcmp(back, host, n) == 0);
    CHECK_CUDA_OK(cudaMemcpy(pageable, host, n, cudaMemcpyHostToHost));
    CHECK(memcmp(pageable, host, n) == 0);
    CHECK_CUDA_OK(cudaMemcpy(NULL, NULL, 0, cudaMemcpyDeviceToDevice));

    /* Inside an allocation, at an offset. */
    CHECK_CUDA_OK(cudaMemcpy(d + 500, host, 500, cudaMemcpyHostToDevice));
    CHECK(memcmp(d + 500, host, 500) == 0);

    /* Refused, nothing written: wrong direction, pageable memory on the
     * device side, a range past the end, a bad kind, NULL. */
    fdnn_poison_bytes(back, n);
    memset(d2, 0x11, n);
    CHECK_CUDA(cudaMemcpy(back, d, n, (enum cudaMemcpyKind)5), cudaErrorInvalidMemcpyDirection);
    CHECK_CUDA(cudaMemcpy(pageable, host, n, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    CHECK_CUDA(cudaMemcpy(back, pageable, n, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    CHECK_CUDA(cudaMemcpy(d2, host, n + 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    CHECK_CUDA(cudaMemcpy(d2 + 1, host, n, cudaMemcpyDefault), cudaErrorInvalidValue);
    CHECK_CUDA(cudaMemcpy(back, d + 1, n, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    CHECK_CUDA(cudaMemcpy(d2, NULL, 4, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    CHECK(all_bytes(back, 0xFF, n));
    CHECK(all_bytes(d2, 0x11, n));

    /* 2D: 5 rows of 30 bytes, source pitch 40, destination pitch 64. */
    unsigned char *d3 = NULL;
    CHECK_CUDA_OK(cudaMalloc((void **)&d3, 4 * 64 + 30));
    memset(d3, 0x22, 4 * 64 + 30);
    CHECK_CUDA_OK(cudaMemcpy2D(d3, 64, host, 40, 30, 5, cudaMemcpyHostToDevice));
    int ok2d = 1;
    for (int r = 0; r < 5; r++) {
        ok2d &= memcmp(d3 + r * 64, host + r * 40, 30) == 0;
        if (r < 4)
            ok2d &= all_bytes(d3 + r * 64 + 30, 0x22, 34);
    }
    CHECK(ok2d);
    CHECK_CUDA(cudaMemcpy2D(d3, 20, host, 40, 30, 5, cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
    CHECK_CUDA(cudaMemcpy2D(d3, 64, host, 40, 31, 5, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    CHECK_CUDA(cudaMemcpy2D(d3, 64, host, 40, 30, 6, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaMemcpy2D(d3, 64, host, 40, 0, 5, cudaMemcpyHostToDevice));

    /* Sets: device side only, within the allocation. */
    CHECK_CUDA_OK(cudaMemset(d, 0x3C, n));
    CHECK(all_bytes(d, 0x3C, n));
    CHECK_CUDA_OK(cudaMemset(d + 10, 0x100 + 0x41, 20)); /* the value is converted to a byte */
    CHECK(all_bytes(d + 10, 0x41, 20) && d[9] == 0x3C && d[30] == 0x3C);
    fdnn_poison_bytes(pageable, n);
    CHECK_CUDA(cudaMemset(pageable, 0, n), cudaErrorInvalidValue);
    CHECK(all_bytes(pageable, 0xFF, n));
    CHECK_CUDA(cudaMemset(d + 1, 0, n), cudaErrorInvalidValue);
    CHECK(d[1] == 0x3C);
    CHECK_CUDA_OK(cudaMemset2D(d3, 64, 0x55, 10, 5));
    CHECK(all_bytes(d3 + 4 * 64, 0x55, 10) && d3[4 * 64 + 10] == host[4 * 40 + 10]);
    CHECK_CUDA(cudaMemset2D(d3, 8, 0, 10, 5), cudaErrorInvalidPitchValue);

    /* Asynchronous forms: done on return; the stream is checked. */
    cudaStream_t s;
    CHECK_CUDA_OK(cudaStreamCreate(&s));
    fdnn_poison_bytes(back, n);
    CHECK_CUDA_OK(cudaMemsetAsync(d2, 0x77, n, s));
    CHECK_CUDA_OK(cudaMemcpyAsync(back, d2, n, cudaMemcpyDeviceToHost, cudaStreamPerThread));
    CHECK(all_bytes(back, 0x77, n));
    CHECK_CUDA_OK(cudaMemcpy2DAsync(back, 10, d, 10, 10, 3, cudaMemcpyDeviceToHost, NULL));
    CHECK_CUDA_OK(cudaStreamDestroy(s));
    fdnn_poison_bytes(back, n);
    CHECK_CUDA(cudaMemcpyAsync(back, d2, n, cudaMemcpyDeviceToHost, s), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaMemsetAsync(d2, 0, n, s), cudaErrorInvalidResourceHandle);
    CHECK(all_bytes(back, 0xFF, n) && all_bytes(d2, 0x77, n));

    CHECK_CUDA_OK(cudaFree(d));
    CHECK_CUDA_OK(cudaFree(d2));
    CHECK_CUDA_OK(cudaFree(d3));
    fdnn_guarded_free(host);
    fdnn_guarded_free(back);
    fdnn_guarded_free(pageable);
    (void)cudaGetLastError();
}

/* Two threads allocating and freeing at once: the registry stays whole. */
static void *
churn(void *arg)
{
    int *failures = arg;
    for (int i = 0; i < 2000; i++) {
        void *p = NULL;
        if (cudaMalloc(&p, (size_t)(i % 97) + 1) != cudaSuccess || cudaFree(p) != cudaSuccess)
            (*failures)++;
    }
    return NULL;
}

static void
test_threads(void)
{
    int f1 = 0, f2 = 0;
    pthread_t t1, t2;
    CHECK(pthread_create(&t1, NULL, churn, &f1) == 0);
    CHECK(pthread_create(&t2, NULL, churn, &f2) == 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    CHECK(f1 == 0 && f2 == 0);
}

/* ---- streams and events -------------------------------------------------------------- */

static void
count_call(void *user)
{
    (*(int *)user)++;
}

static void
count_callback(cudaStream_t stream, cudaError_t status, void *user)
{
    (void)stream;
    if (status == cudaSuccess)
        (*(int *)user)++;
}

static void
test_streams(void)
{
    cudaStream_t s = NULL, nb = NULL;
    unsigned flags = 99;
    CHECK_CUDA_OK(cudaStreamCreate(&s));
    CHECK(s != NULL);
    CHECK_CUDA_OK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    CHECK_CUDA_OK(cudaStreamGetFlags(nb, &flags));
    CHECK(flags == cudaStreamNonBlocking);
    CHECK_CUDA_OK(cudaStreamGetFlags(NULL, &flags));
    CHECK(flags == cudaStreamDefault);
    cudaStream_t untouched = (cudaStream_t)(uintptr_t)0x999;
    cudaStream_t bad = untouched;
    CHECK_CUDA(cudaStreamCreateWithFlags(&bad, 2), cudaErrorInvalidValue);
    CHECK(bad == untouched);
    CHECK_CUDA(cudaStreamCreate(NULL), cudaErrorInvalidValue);

    cudaStream_t all[] = {NULL, cudaStreamLegacy, cudaStreamPerThread, s, nb};
    for (int i = 0; i < 5; i++) {
        CHECK_CUDA_OK(cudaStreamSynchronize(all[i]));
        CHECK_CUDA_OK(cudaStreamQuery(all[i]));
    }
    int least = 9, greatest = 9, priority = 9;
    CHECK_CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(least == 0 && greatest == 0);
    CHECK_CUDA_OK(cudaDeviceGetStreamPriorityRange(NULL, &greatest));
    cudaStream_t prio;
    CHECK_CUDA_OK(cudaStreamCreateWithPriority(&prio, cudaStreamNonBlocking, -5));
    CHECK_CUDA_OK(cudaStreamGetPriority(prio, &priority));
    CHECK(priority == 0); /* clamped into the range, as CUDA does */
    CHECK_CUDA(cudaStreamGetPriority(prio, NULL), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaStreamDestroy(prio));
    CHECK_CUDA(cudaStreamGetPriority(prio, &priority), cudaErrorInvalidResourceHandle);

    int calls = 0;
    CHECK_CUDA_OK(cudaLaunchHostFunc(s, count_call, &calls));
    CHECK_CUDA_OK(cudaStreamAddCallback(nb, count_callback, &calls, 0));
    CHECK(calls == 2);
    CHECK_CUDA(cudaLaunchHostFunc(s, NULL, &calls), cudaErrorInvalidValue);

    CHECK_CUDA_OK(cudaStreamDestroy(s));
    CHECK_CUDA(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaLaunchHostFunc(s, count_call, &calls), cudaErrorInvalidResourceHandle);
    CHECK(calls == 2);
    CHECK_CUDA(cudaStreamDestroy(NULL), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaStreamSynchronize(untouched), cudaErrorInvalidResourceHandle);
    CHECK_CUDA_OK(cudaStreamDestroy(nb));
    (void)cudaGetLastError();
}

static void
test_events(void)
{
    cudaEvent_t a, b, nt, never;
    cudaStream_t s;
    float ms = -1.0f;
    CHECK_CUDA_OK(cudaStreamCreate(&s));
    CHECK_CUDA_OK(cudaEventCreate(&a));
    CHECK_CUDA_OK(cudaEventCreateWithFlags(&b, cudaEventBlockingSync));
    CHECK_CUDA_OK(cudaEventCreateWithFlags(&nt, cudaEventDisableTiming));
    CHECK_CUDA_OK(cudaEventCreate(&never));
    cudaEvent_t untouched = (cudaEvent_t)(uintptr_t)0x777, e = untouched;
    CHECK_CUDA(cudaEventCreateWithFlags(&e, cudaEventInterprocess), cudaErrorInvalidValue);
    CHECK_CUDA(cudaEventCreateWithFlags(&e, 0x40), cudaErrorInvalidValue);
    CHECK(e == untouched);

    /* Elapsed time is real time: at least the 10 ms slept between the
     * records (a lower bound the clock guarantees; no upper bound). */
    CHECK_CUDA_OK(cudaEventRecord(a, s));
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    while (nanosleep(&ten_ms, &ten_ms) != 0) {
    }
    CHECK_CUDA_OK(cudaEventRecordWithFlags(b, NULL, cudaEventRecordDefault));
    CHECK_CUDA_OK(cudaEventSynchronize(b));
    CHECK_CUDA_OK(cudaEventQuery(b));
    CHECK_CUDA_OK(cudaEventElapsedTime(&ms, a, b));
    CHECK_MSG(ms >= 10.0f, "elapsed %.3f ms after sleeping 10 ms", ms);
    float back = 1.0f;
    CHECK_CUDA_OK(cudaEventElapsedTime(&back, b, a));
    CHECK(back <= 0.0f && back == -ms);

    CHECK_CUDA_OK(cudaEventQuery(never)); /* never recorded: success, as CUDA */
    CHECK_CUDA_OK(cudaEventSynchronize(never));
    ms = 42.0f;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, never), cudaErrorInvalidResourceHandle);
    CHECK_CUDA_OK(cudaEventRecord(nt, cudaStreamPerThread));
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, nt), cudaErrorInvalidResourceHandle);
    CHECK(ms == 42.0f);
    CHECK_CUDA(cudaEventElapsedTime(NULL, a, b), cudaErrorInvalidValue);
    CHECK_CUDA(cudaEventRecordWithFlags(a, s, 0x4), cudaErrorInvalidValue);
    CHECK_CUDA_OK(cudaStreamWaitEvent(s, a, 0));
    CHECK_CUDA(cudaStreamWaitEvent(s, a, 5), cudaErrorInvalidValue);

    CHECK_CUDA_OK(cudaEventDestroy(never));
    CHECK_CUDA(cudaEventQuery(never), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaEventRecord(never, s), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaEventDestroy(never), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaEventDestroy(NULL), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaStreamWaitEvent(s, never, 0), cudaErrorInvalidResourceHandle);
    CHECK_CUDA_OK(cudaStreamDestroy(s));
    CHECK_CUDA(cudaEventRecord(a, s), cudaErrorInvalidResourceHandle);
    CHECK_CUDA_OK(cudaEventDestroy(a));
    CHECK_CUDA_OK(cudaEventDestroy(b));
    CHECK_CUDA_OK(cudaEventDestroy(nt));
    (void)cudaGetLastError();
}

/* Last: cudaDeviceReset invalidates everything the process holds. */
static void
test_reset(void)
{
    void *d = NULL, *h = NULL;
    cudaStream_t s;
    cudaEvent_t e;
    CHECK_CUDA_OK(cudaMalloc(&d, 128));
    CHECK_CUDA_OK(cudaMallocHost(&h, 128));
    CHECK_CUDA_OK(cudaStreamCreate(&s));
    CHECK_CUDA_OK(cudaEventCreate(&e));
    CHECK_CUDA_OK(cudaDeviceReset());
    CHECK_CUDA(cudaFree(d), cudaErrorInvalidValue);
    CHECK_CUDA(cudaFreeHost(h), cudaErrorInvalidValue);
    CHECK_CUDA(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaEventQuery(e), cudaErrorInvalidResourceHandle);
    CHECK_CUDA_OK(cudaMalloc(&d, 128)); /* usable again */
    CHECK_CUDA_OK(cudaFree(d));
    (void)cudaGetLastError();
}

int
main(void)
{
    test_errors();
    test_errors_against_nvidia();
    test_device();
    test_alloc();
    test_copies();
    test_threads();
    test_streams();
    test_events();
    test_reset();
    return fdnn_test_finish("test_cudart");
}
