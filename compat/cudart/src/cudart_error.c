/* SPDX-License-Identifier: Apache-2.0
 * Errors of the host CUDA runtime: the last error of each thread, and the
 * name and description of every CUDA 12 error code.  The names are CUDA's;
 * the descriptions are ours. */
#include "cudart_internal.h"

#include <stddef.h>

/* CUDA keeps the last error per host thread; so do we. */
static _Thread_local cudaError_t last_error = cudaSuccess;

cudaError_t
fdnn_cudart_record(cudaError_t err)
{
    if (err != cudaSuccess)
        last_error = err;
    return err;
}

cudaError_t
cudaGetLastError(void)
{
    cudaError_t err = last_error;
    last_error = cudaSuccess;
    return err;
}

cudaError_t
cudaPeekAtLastError(void)
{
    return last_error;
}

/* One row per code: the table drives both cudaGetErrorName and
 * cudaGetErrorString (tests/unit/test_cudart_errors.c checks every
 * enumerator of driver_types.h against it). */
#define FDNN_CUDART_ERRORS(X)                                                                  \
    X(cudaSuccess, "no error")                                                                 \
    X(cudaErrorInvalidValue, "invalid argument")                                               \
    X(cudaErrorMemoryAllocation, "out of memory")                                              \
    X(cudaErrorInitializationError, "initialization error")                                    \
    X(cudaErrorCudartUnloading, "the runtime is being unloaded")                               \
    X(cudaErrorProfilerDisabled, "profiler disabled")                                          \
    X(cudaErrorProfilerNotInitialized, "profiler not initialized")                             \
    X(cudaErrorProfilerAlreadyStarted, "profiler already started")                             \
    X(cudaErrorProfilerAlreadyStopped, "profiler already stopped")                             \
    X(cudaErrorInvalidConfiguration, "invalid launch configuration")                           \
    X(cudaErrorInvalidPitchValue, "invalid pitch argument")                                    \
    X(cudaErrorInvalidSymbol, "invalid device symbol")                                         \
    X(cudaErrorInvalidHostPointer, "invalid host pointer")                                     \
    X(cudaErrorInvalidDevicePointer, "invalid device pointer")                                 \
    X(cudaErrorInvalidTexture, "invalid texture")                                              \
    X(cudaErrorInvalidTextureBinding, "invalid texture binding")                               \
    X(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor")                         \
    X(cudaErrorInvalidMemcpyDirection, "invalid copy direction (cudaMemcpyKind)")              \
    X(cudaErrorAddressOfConstant, "address of a constant variable taken")                      \
    X(cudaErrorTextureFetchFailed, "texture fetch failed")                                     \
    X(cudaErrorTextureNotBound, "texture not bound")                                           \
    X(cudaErrorSynchronizationError, "synchronization error")                                  \
    X(cudaErrorInvalidFilterSetting, "invalid filter setting")                                 \
    X(cudaErrorInvalidNormSetting, "invalid normalization setting")                            \
    X(cudaErrorMixedDeviceExecution, "mixed device execution")                                 \
    X(cudaErrorNotYetImplemented, "feature not yet implemented")                               \
    X(cudaErrorMemoryValueTooLarge, "memory size or pointer value too large")                  \
    X(cudaErrorStubLibrary, "stub library loaded instead of the real one")                     \
    X(cudaErrorInsufficientDriver, "driver older than the runtime")                            \
    X(cudaErrorCallRequiresNewerDriver, "call needs a newer driver")                           \
    X(cudaErrorInvalidSurface, "invalid surface")                                              \
    X(cudaErrorDuplicateVariableName, "duplicate global variable name")                        \
    X(cudaErrorDuplicateTextureName, "duplicate texture name")                                 \
    X(cudaErrorDuplicateSurfaceName, "duplicate surface name")                                 \
    X(cudaErrorDevicesUnavailable, "all devices busy or unavailable")                          \
    X(cudaErrorIncompatibleDriverContext, "incompatible driver context")                       \
    X(cudaErrorMissingConfiguration, "launch configuration missing")                           \
    X(cudaErrorPriorLaunchFailure, "an earlier launch failed")                                 \
    X(cudaErrorLaunchMaxDepthExceeded, "launch nesting too deep")                              \
    X(cudaErrorLaunchFileScopedTex, "file-scoped texture used in a device launch")             \
    X(cudaErrorLaunchFileScopedSurf, "file-scoped surface used in a device launch")            \
    X(cudaErrorSyncDepthExceeded, "device synchronization nesting too deep")                   \
    X(cudaErrorLaunchPendingCountExceeded, "too many pending launches")                        \
    X(cudaErrorInvalidDeviceFunction, "invalid device function")                               \
    X(cudaErrorNoDevice, "no device")                                                          \
    X(cudaErrorInvalidDevice, "invalid device ordinal")                                        \
    X(cudaErrorDeviceNotLicensed, "device not licensed")                                       \
    X(cudaErrorSoftwareValidityNotEstablished, "software validity not established")            \
    X(cudaErrorStartupFailure, "runtime start-up failed")                                      \
    X(cudaErrorInvalidKernelImage, "invalid kernel image")                                     \
    X(cudaErrorDeviceUninitialized, "device context not initialized")                          \
    X(cudaErrorMapBufferObjectFailed, "mapping a buffer object failed")                        \
    X(cudaErrorUnmapBufferObjectFailed, "unmapping a buffer object failed")                    \
    X(cudaErrorArrayIsMapped, "array is mapped")                                               \
    X(cudaErrorAlreadyMapped, "resource already mapped")                                       \
    X(cudaErrorNoKernelImageForDevice, "no kernel image for this device")                      \
    X(cudaErrorAlreadyAcquired, "resource already acquired")                                   \
    X(cudaErrorNotMapped, "resource not mapped")                                               \
    X(cudaErrorNotMappedAsArray, "resource not mapped as an array")                            \
    X(cudaErrorNotMappedAsPointer, "resource not mapped as a pointer")                         \
    X(cudaErrorECCUncorrectable, "uncorrectable ECC error")                                    \
    X(cudaErrorUnsupportedLimit, "limit not supported")                                        \
    X(cudaErrorDeviceAlreadyInUse, "device already in use")                                    \
    X(cudaErrorPeerAccessUnsupported, "peer access not supported")                             \
    X(cudaErrorInvalidPtx, "invalid PTX")                                                      \
    X(cudaErrorInvalidGraphicsContext, "invalid graphics context")                             \
    X(cudaErrorNvlinkUncorrectable, "uncorrectable NVLink error")                              \
    X(cudaErrorJitCompilerNotFound, "JIT compiler not found")                                  \
    X(cudaErrorUnsupportedPtxVersion, "PTX version not supported")                             \
    X(cudaErrorJitCompilationDisabled, "JIT compilation disabled")                             \
    X(cudaErrorUnsupportedExecAffinity, "execution affinity not supported")                    \
    X(cudaErrorUnsupportedDevSideSync, "device-side synchronization not supported")            \
    X(cudaErrorInvalidSource, "invalid source")                                                \
    X(cudaErrorFileNotFound, "file not found")                                                 \
    X(cudaErrorSharedObjectSymbolNotFound, "shared object symbol not found")                   \
    X(cudaErrorSharedObjectInitFailed, "shared object initialization failed")                  \
    X(cudaErrorOperatingSystem, "operating system call failed")                                \
    X(cudaErrorInvalidResourceHandle, "invalid resource handle")                               \
    X(cudaErrorIllegalState, "operation not valid in the current state")                       \
    X(cudaErrorLossyQuery, "query result would lose information")                              \
    X(cudaErrorSymbolNotFound, "named symbol not found")                                       \
    X(cudaErrorNotReady, "work not finished yet")                                              \
    X(cudaErrorIllegalAddress, "illegal memory access")                                        \
    X(cudaErrorLaunchOutOfResources, "too many resources requested for launch")                \
    X(cudaErrorLaunchTimeout, "launch timed out")                                              \
    X(cudaErrorLaunchIncompatibleTexturing, "launch uses incompatible texturing")              \
    X(cudaErrorPeerAccessAlreadyEnabled, "peer access already enabled")                        \
    X(cudaErrorPeerAccessNotEnabled, "peer access not enabled")                                \
    X(cudaErrorSetOnActiveProcess, "cannot set while the device is active")                    \
    X(cudaErrorContextIsDestroyed, "context destroyed")                                        \
    X(cudaErrorAssert, "device-side assertion failed")                                         \
    X(cudaErrorTooManyPeers, "too many peers")                                                 \
    X(cudaErrorHostMemoryAlreadyRegistered, "host memory already registered")                  \
    X(cudaErrorHostMemoryNotRegistered, "host memory not registered")                          \
    X(cudaErrorHardwareStackError, "hardware stack error")                                     \
    X(cudaErrorIllegalInstruction, "illegal instruction")                                      \
    X(cudaErrorMisalignedAddress, "misaligned address")                                        \
    X(cudaErrorInvalidAddressSpace, "operation on the wrong address space")                    \
    X(cudaErrorInvalidPc, "invalid program counter")                                           \
    X(cudaErrorLaunchFailure, "unspecified launch failure")                                    \
    X(cudaErrorCooperativeLaunchTooLarge, "cooperative launch too large")                      \
    X(cudaErrorNotPermitted, "operation not permitted")                                        \
    X(cudaErrorNotSupported, "operation not supported")                                        \
    X(cudaErrorSystemNotReady, "system not ready")                                             \
    X(cudaErrorSystemDriverMismatch, "driver and kernel module versions differ")               \
    X(cudaErrorCompatNotSupportedOnDevice, "forward compatibility not supported on device")    \
    X(cudaErrorMpsConnectionFailed, "MPS connection failed")                                   \
    X(cudaErrorMpsRpcFailure, "MPS remote call failed")                                        \
    X(cudaErrorMpsServerNotReady, "MPS server not ready")                                      \
    X(cudaErrorMpsMaxClientsReached, "MPS client limit reached")                               \
    X(cudaErrorMpsMaxConnectionsReached, "MPS connection limit reached")                       \
    X(cudaErrorMpsClientTerminated, "MPS client terminated")                                   \
    X(cudaErrorCdpNotSupported, "dynamic parallelism not supported")                           \
    X(cudaErrorCdpVersionMismatch, "dynamic parallelism version mismatch")                     \
    X(cudaErrorStreamCaptureUnsupported, "operation not allowed during stream capture")        \
    X(cudaErrorStreamCaptureInvalidated, "stream capture invalidated")                         \
    X(cudaErrorStreamCaptureMerge, "stream captures would merge")                              \
    X(cudaErrorStreamCaptureUnmatched, "capture not started in this stream")                   \
    X(cudaErrorStreamCaptureUnjoined, "capture forked but not joined")                         \
    X(cudaErrorStreamCaptureIsolation, "dependency across capture boundary")                   \
    X(cudaErrorStreamCaptureImplicit, "implicit dependency on a capturing stream")             \
    X(cudaErrorCapturedEvent, "operation on an event recorded by capture")                     \
    X(cudaErrorStreamCaptureWrongThread, "capture ended from another thread")                  \
    X(cudaErrorTimeout, "wait timed out")                                                      \
    X(cudaErrorGraphExecUpdateFailure, "graph update not allowed")                             \
    X(cudaErrorExternalDevice, "error in an external device")                                  \
    X(cudaErrorInvalidClusterSize, "invalid cluster size")                                     \
    X(cudaErrorUnknown, "unknown error")                                                       \
    X(cudaErrorApiFailureBase, "API failure base")

typedef struct error_row {
    cudaError_t code;
    const char *name;
    const char *text;
} error_row_t;

#define FDNN_ERROR_ROW(code, text) {code, #code, text},
static const error_row_t error_rows[] = {FDNN_CUDART_ERRORS(FDNN_ERROR_ROW)};

static const char unrecognized[] = "unrecognized error code";

static const error_row_t *
find_row(cudaError_t error)
{
    for (size_t i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++)
        if (error_rows[i].code == error)
            return &error_rows[i];
    return NULL;
}

const char *
cudaGetErrorName(cudaError_t error)
{
    const error_row_t *row = find_row(error);
    return row ? row->name : unrecognized;
}

const char *
cudaGetErrorString(cudaError_t error)
{
    const error_row_t *row = find_row(error);
    return row ? row->text : unrecognized;
}
