/* SPDX-License-Identifier: Apache-2.0
 * The one device of the host CUDA runtime: the CPU.
 *
 * cudaGetDeviceProperties describes the machine in CUDA's vocabulary.  The
 * rule for each field: what can be measured on the host is measured (name,
 * memory, cores, clock, last-level cache); what describes memory semantics
 * says the truth about host memory (integrated, unified addressing, managed
 * and pageable memory all accessible); what only makes sense for kernel
 * launches (block and grid limits, shared memory, registers) carries the
 * values of compute capability 8.0, the capability we report, so that host
 * code that sizes launches from them computes ordinary numbers; textures and
 * surfaces do not exist and are 0.
 *
 * Compute capability 8.0: FreeDNN accepts the cuDNN 8.9 data types and math
 * modes of an sm_80 device (FP16, BF16, TF32 math, INT8), so programs that
 * pick features by capability choose paths FreeDNN implements.  It does not
 * claim sm_80 instructions: no kernel can be launched on this runtime. */
#define _GNU_SOURCE
#include "cuda_profiler_api.h"
#include "cudart_internal.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_os.h"

/* cudaGetDeviceProperties is #defined to the _v2 name by the header; the
 * plain symbol is exported too, for binaries built against CUDA 11 headers. */
#undef cudaGetDeviceProperties
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);

static pthread_once_t props_once = PTHREAD_ONCE_INIT;
static struct cudaDeviceProp props;
static unsigned int device_flags;

/* The value of "key : value" lines of /proc/cpuinfo, first match. */
static bool
cpuinfo_value(const char *key, char *out, size_t out_size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    size_t klen = strlen(key);
    while (!found && fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, klen) != 0)
            continue;
        char *colon = strchr(line + klen, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t n = strcspn(v, "\n");
        if (n >= out_size)
            n = out_size - 1;
        memcpy(out, v, n);
        out[n] = '\0';
        found = n > 0;
    }
    fclose(f);
    return found;
}

static long
read_long_file(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* Size in bytes of the highest cache level of cpu0 (sysfs), or 0. */
static long
last_level_cache_bytes(void)
{
    long best_level = 0, best_size = 0;
    for (int i = 0; i < 8; i++) {
        char path[128], text[32];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        long level = read_long_file(path);
        if (level < 0)
            break;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        long size = 0;
        if (fgets(text, sizeof(text), f)) {
            char unit = 0;
            if (sscanf(text, "%ld%c", &size, &unit) >= 1)
                size *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
        }
        fclose(f);
        if (level >= best_level && size > 0) {
            best_level = level;
            best_size = size;
        }
    }
    return best_size;
}

/* Peak clock in kHz: cpufreq's maximum, else /proc/cpuinfo's current MHz. */
static int
clock_khz(void)
{
    long khz = read_long_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    if (khz > 0 && khz < INT32_MAX)
        return (int)khz;
    char text[64];
    if (cpuinfo_value("cpu MHz", text, sizeof(text))) {
        double mhz = atof(text);
        if (mhz > 0 && mhz < 1e6)
            return (int)(mhz * 1000.0);
    }
    return 0;
}

/* A stable identifier of this machine: the first 16 bytes of
 * /etc/machine-id (32 hex digits), else zeros. */
static void
machine_uuid(cudaUUID_t *uuid)
{
    FILE *f = fopen("/etc/machine-id", "r");
    if (!f)
        return;
    char hex[40] = {0};
    if (fgets(hex, sizeof(hex), f)) {
        for (int i = 0; i < 16; i++) {
            unsigned byte;
            if (!isxdigit((unsigned char)hex[2 * i]) || !isxdigit((unsigned char)hex[2 * i + 1]) ||
                sscanf(&hex[2 * i], "%2x", &byte) != 1)
                break;
            uuid->bytes[i] = (char)byte;
        }
    }
    fclose(f);
}

static void
describe_device(void)
{
    struct cudaDeviceProp *p = &props;
    memset(p, 0, sizeof(*p));

    /* Measured on the host. */
    if (!cpuinfo_value("model name", p->name, sizeof(p->name)))
        snprintf(p->name, sizeof(p->name), "FreeDNN host CPU");
    machine_uuid(&p->uuid);
    p->totalGlobalMem = fdnn_cudart_physical_bytes();
    p->multiProcessorCount = fdnn_cudart_online_cpus();
    p->clockRate = clock_khz();
    long llc = last_level_cache_bytes();
    p->l2CacheSize = llc > 0 && llc < INT32_MAX ? (int)llc : 0;

    /* The capability we report (see the top of the file). */
    p->major = 8;
    p->minor = 0;

    /* Memory semantics: it is all host memory, one address space, reachable
     * from both "sides" without copies or migration. */
    p->integrated = 1;
    p->canMapHostMemory = 1;
    p->unifiedAddressing = 1;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->pageableMemoryAccess = 1;
    p->pageableMemoryAccessUsesHostPageTables = 1;
    p->directManagedMemAccessFromHost = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->hostNativeAtomicSupported = 1;
    p->memPitch = (size_t)INT32_MAX;
    /* Copies are synchronous: no copy engines run beside the "kernels". */
    p->asyncEngineCount = 0;
    p->deviceOverlap = 0;
    p->concurrentKernels = 0;
    p->streamPrioritiesSupported = 0;
    p->computeMode = 0; /* cudaComputeModeDefault */

    /* Launch limits of compute capability 8.0 (nothing launches here). */
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = INT32_MAX;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->regsPerBlock = 65536;
    p->regsPerMultiprocessor = 65536;
    p->sharedMemPerBlock = 48 * 1024;
    p->sharedMemPerBlockOptin = 163 * 1024;
    p->sharedMemPerMultiprocessor = 164 * 1024;
    p->reservedSharedMemPerBlock = 1024;
    p->totalConstMem = 64 * 1024;
    p->maxThreadsPerMultiProcessor = 2048;
    p->maxBlocksPerMultiProcessor = 32;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->surfaceAlignment = 512;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
}

static cudaError_t
check_device(int device)
{
    return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t
cudaGetDeviceCount(int *count)
{
    if (!count)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t
cudaSetDevice(int device)
{
    return fdnn_cudart_record(check_device(device));
}

cudaError_t
cudaGetDevice(int *device)
{
    if (!device)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

/* Scheduling flags are accepted and remembered; they change nothing. */
cudaError_t
cudaSetDeviceFlags(unsigned int flags)
{
    if (flags & ~(unsigned)cudaDeviceMask)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if ((flags & cudaDeviceScheduleMask) == (cudaDeviceScheduleSpin | cudaDeviceScheduleYield) ||
        (flags & cudaDeviceScheduleMask) > cudaDeviceScheduleBlockingSync)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    device_flags = flags;
    return cudaSuccess;
}

cudaError_t
cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    *flags = device_flags | cudaDeviceMapHost;
    return cudaSuccess;
}

cudaError_t
cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device)
{
    if (!prop)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (check_device(device) != cudaSuccess)
        return fdnn_cudart_record(cudaErrorInvalidDevice);
    pthread_once(&props_once, describe_device);
    *prop = props;
    return cudaSuccess;
}

cudaError_t
cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    return cudaGetDeviceProperties_v2(prop, device);
}

cudaError_t
cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    if (check_device(device) != cudaSuccess)
        return fdnn_cudart_record(cudaErrorInvalidDevice);
    pthread_once(&props_once, describe_device);
    const struct cudaDeviceProp *p = &props;
    int v;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = p->maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: v = p->maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: v = p->maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: v = p->maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: v = p->maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: v = p->maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: v = p->maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = (int)p->sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: v = (int)p->totalConstMem; break;
    case cudaDevAttrWarpSize: v = p->warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: v = p->regsPerBlock; break;
    case cudaDevAttrClockRate: v = p->clockRate; break;
    case cudaDevAttrMultiProcessorCount: v = p->multiProcessorCount; break;
    case cudaDevAttrIntegrated: v = p->integrated; break;
    case cudaDevAttrCanMapHostMemory: v = p->canMapHostMemory; break;
    case cudaDevAttrMemoryClockRate: v = p->memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: v = p->memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: v = p->l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = p->maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: v = p->asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: v = p->unifiedAddressing; break;
    case cudaDevAttrComputeCapabilityMajor: v = p->major; break;
    case cudaDevAttrComputeCapabilityMinor: v = p->minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = (int)p->sharedMemPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: v = p->managedMemory; break;
    case cudaDevAttrPageableMemoryAccess: v = p->pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: v = p->concurrentManagedAccess; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = (int)p->sharedMemPerBlockOptin; break;
    default: return fdnn_cudart_record(cudaErrorInvalidValue);
    }
    *value = v;
    return cudaSuccess;
}

/* All work is complete when its call returns. */
cudaError_t
cudaDeviceSynchronize(void)
{
    return cudaSuccess;
}

/* As on a GPU: every allocation, stream and event of the process is gone
 * afterwards, and the device flags are back to their default. */
cudaError_t
cudaDeviceReset(void)
{
    fdnn_cudart_alloc_release_all();
    fdnn_cudart_streams_release_all();
    device_flags = 0;
    return cudaSuccess;
}

/* There is no driver: the "driver" is this runtime, which supports exactly
 * the version it implements.  Reporting that (not 0, CUDA's "no driver")
 * keeps programs that compare driver and runtime versions running. */
cudaError_t
cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t
cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return fdnn_cudart_record(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

/* No profiler runs on the CPU (cuda_profiler_api.h). */
cudaError_t
cudaProfilerStart(void)
{
    return cudaSuccess;
}

cudaError_t
cudaProfilerStop(void)
{
    return cudaSuccess;
}
