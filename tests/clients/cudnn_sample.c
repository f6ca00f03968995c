/* SPDX-License-Identifier: Apache-2.0
 * A cuDNN program written the way programs for NVIDIA's cuDNN 8 are: it
 * includes <cuda_runtime.h> and <cudnn.h>, checks every call with the usual
 * macros, queries the device, moves data with cudaMalloc/cudaMemcpy on a
 * stream, times with events, binds a cuDNN handle to the stream and sets up
 * descriptors.  Nothing in it knows about FreeDNN: test_client_build.sh
 * compiles it (as C and as C++) with only -I include -I compat/cudart/include
 * and runs it.  It prints what mnistCUDNN prints at start-up and ends with
 * "Test passed!" (exit 0) or a message naming the failed call (exit 1). */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>
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

#define checkCUDNN(expr)                                                                         \
    do {                                                                                         \
        cudnnStatus_t s_ = (expr);                                                               \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,                  \
                    cudnnGetErrorString(s_));                                                    \
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

int
main(void)
{
    /* Versions, as mnistCUDNN prints them. */
    int driver = 0, runtime = 0;
    checkCUDA(cudaDriverGetVersion(&driver));
    checkCUDA(cudaRuntimeGetVersion(&runtime));
    printf("cudnnGetVersion() : %d , CUDNN_VERSION from cudnn.h : %d (%s)\n", (int)cudnnGetVersion(),
           CUDNN_VERSION, CUDNN_VERSION == 8904 ? "8.9.4" : "?");
    printf("Host compiler version : GCC %s\n", __VERSION__);
    printf("CUDA driver %d, runtime %d, cudnnGetCudartVersion() %d\n", driver, runtime,
           (int)cudnnGetCudartVersion());
    require(cudnnGetVersion() == CUDNN_VERSION);
    require((int)cudnnGetCudartVersion() == CUDART_VERSION);

    /* The device. */
    int count = 0, dev = -1;
    checkCUDA(cudaGetDeviceCount(&count));
    require(count >= 1);
    checkCUDA(cudaSetDevice(0));
    checkCUDA(cudaGetDevice(&dev));
    struct cudaDeviceProp prop;
    checkCUDA(cudaGetDeviceProperties(&prop, dev));
    printf("There are %d CUDA capable devices on your machine :\n", count);
    printf("device %d : sms %2d  Capabilities %d.%d, SmClock %.1f Mhz, MemSize (Mb) %d, "
           "MemClock %.1f Mhz, Ecc=%d, boardGroupID=%d\n",
           dev, prop.multiProcessorCount, prop.major, prop.minor, prop.clockRate / 1000.0,
           (int)(prop.totalGlobalMem >> 20), prop.memoryClockRate / 1000.0, prop.ECCEnabled,
           prop.multiGpuBoardGroupID);
    printf("Using device %d (%s)\n", dev, prop.name);
    size_t free_mem = 0, total_mem = 0;
    checkCUDA(cudaMemGetInfo(&free_mem, &total_mem));
    require(total_mem > 0 && free_mem <= total_mem);

    /* A stream, events and the handle bound to the stream. */
    cudaStream_t stream;
    cudaEvent_t start, stop;
    checkCUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    checkCUDA(cudaEventCreate(&start));
    checkCUDA(cudaEventCreate(&stop));
    cudnnHandle_t handle;
    checkCUDNN(cudnnCreate(&handle));
    checkCUDNN(cudnnSetStream(handle, stream));
    cudaStream_t bound = NULL;
    checkCUDNN(cudnnGetStream(handle, &bound));
    require(bound == stream);

    /* Descriptors of a small network's first layer: NCHW input, the shape
     * of a 2x2 max-pooling output. */
    const int n = 2, c = 3, h = 8, w = 8;
    cudnnTensorDescriptor_t xDesc, yDesc, hDesc;
    cudnnPoolingDescriptor_t poolDesc;
    checkCUDNN(cudnnCreateTensorDescriptor(&xDesc));
    checkCUDNN(cudnnCreateTensorDescriptor(&yDesc));
    checkCUDNN(cudnnCreateTensorDescriptor(&hDesc));
    checkCUDNN(cudnnCreatePoolingDescriptor(&poolDesc));
    checkCUDNN(cudnnSetTensor4dDescriptor(xDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
    checkCUDNN(cudnnSetPooling2dDescriptor(poolDesc, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    int on = 0, oc = 0, oh = 0, ow = 0;
    checkCUDNN(cudnnGetPooling2dForwardOutputDim(poolDesc, xDesc, &on, &oc, &oh, &ow));
    require(on == n && oc == c && oh == h / 2 && ow == w / 2);
    checkCUDNN(cudnnSetTensor4dDescriptor(yDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, oc, oh, ow));
    checkCUDNN(cudnnSetTensor4dDescriptor(hDesc, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, n, c, h, w));
    size_t xBytes = 0, hBytes = 0;
    checkCUDNN(cudnnGetTensorSizeInBytes(xDesc, &xBytes));
    checkCUDNN(cudnnGetTensorSizeInBytes(hDesc, &hBytes));
    require(xBytes == (size_t)n * c * h * w * sizeof(float));
    require(hBytes == (size_t)n * c * h * w * sizeof(__half));
    /* A caller error gets a status, not a crash. */
    require(cudnnSetTensor4dDescriptor(xDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, c, h, w) ==
            CUDNN_STATUS_BAD_PARAM);

    /* Data to the device and back, on the stream, timed with events. */
    const size_t elems = (size_t)n * c * h * w;
    float *hostIn = (float *)malloc(xBytes), *hostOut = (float *)malloc(xBytes);
    __half *hostHalf = (__half *)malloc(hBytes);
    require(hostIn && hostOut && hostHalf);
    for (size_t i = 0; i < elems; i++) {
        hostIn[i] = (float)i * 0.25f - 10.0f;
        hostHalf[i] = __float2half(hostIn[i]);
    }
    float *devX = NULL, *devY = NULL;
    __half *devH = NULL;
    checkCUDA(cudaMalloc((void **)&devX, xBytes));
    checkCUDA(cudaMalloc((void **)&devY, xBytes));
    checkCUDA(cudaMalloc((void **)&devH, hBytes));
    checkCUDA(cudaEventRecord(start, stream));
    checkCUDA(cudaMemcpyAsync(devX, hostIn, xBytes, cudaMemcpyHostToDevice, stream));
    checkCUDA(cudaMemcpyAsync(devH, hostHalf, hBytes, cudaMemcpyHostToDevice, stream));
    checkCUDA(cudaMemsetAsync(devY, 0, xBytes, stream));
    checkCUDA(cudaMemcpyAsync(devY, devX, xBytes, cudaMemcpyDeviceToDevice, stream));
    checkCUDA(cudaEventRecord(stop, stream));
    checkCUDA(cudaStreamSynchronize(stream));
    checkCUDA(cudaEventSynchronize(stop));
    float ms = -1.0f;
    checkCUDA(cudaEventElapsedTime(&ms, start, stop));
    require(ms >= 0.0f);
    checkCUDA(cudaMemcpy(hostOut, devY, xBytes, cudaMemcpyDeviceToHost));
    require(memcmp(hostOut, hostIn, xBytes) == 0);
    checkCUDA(cudaMemcpy(hostHalf, devH, hBytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < elems; i++)
        require(__half2float(hostHalf[i]) == hostIn[i]); /* these values are exact in half */
    printf("Copies of %zu bytes on the stream took %.3f ms\n", 2 * xBytes + hBytes, ms);

#if defined(__cplusplus)
    /* C++ programs allocate typed pointers without casts, through the
     * overloads of cuda_runtime.h. */
    {
        float *typed = NULL, *pinned = NULL, *managed = NULL;
        cudaEvent_t timed;
        checkCUDA(cudaMalloc(&typed, 64 * sizeof(float)));
        checkCUDA(cudaMallocHost(&pinned, 64 * sizeof(float)));
        checkCUDA(cudaMallocManaged(&managed, 64 * sizeof(float)));
        checkCUDA(cudaEventCreate(&timed, cudaEventDisableTiming));
        checkCUDA(cudaMemcpy(typed, hostIn, 64 * sizeof(float), cudaMemcpyHostToDevice));
        checkCUDA(cudaMemcpy(managed, typed, 64 * sizeof(float), cudaMemcpyDefault));
        require(managed[63] == hostIn[63]);
        checkCUDA(cudaEventDestroy(timed));
        checkCUDA(cudaFree(managed));
        checkCUDA(cudaFreeHost(pinned));
        checkCUDA(cudaFree(typed));
    }
#endif

    /* A wrong-direction copy is reported, as on a GPU. */
    require(cudaMemcpy(hostOut, hostIn, xBytes, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    require(cudaGetLastError() == cudaErrorInvalidValue);
    require(cudaGetLastError() == cudaSuccess);

    checkCUDA(cudaFree(devX));
    checkCUDA(cudaFree(devY));
    checkCUDA(cudaFree(devH));
    free(hostIn);
    free(hostOut);
    free(hostHalf);
    checkCUDNN(cudnnDestroyPoolingDescriptor(poolDesc));
    checkCUDNN(cudnnDestroyTensorDescriptor(hDesc));
    checkCUDNN(cudnnDestroyTensorDescriptor(yDesc));
    checkCUDNN(cudnnDestroyTensorDescriptor(xDesc));
    checkCUDNN(cudnnDestroy(handle));
    checkCUDA(cudaEventDestroy(start));
    checkCUDA(cudaEventDestroy(stop));
    checkCUDA(cudaStreamDestroy(stream));
    checkCUDA(cudaDeviceReset());
    printf("\nTest passed!\n");
    return 0;
}
