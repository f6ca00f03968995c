/* SPDX-License-Identifier: Apache-2.0
 * The smallest cuDNN program: it is built against an installed FreeDNN tree
 * (plain flags, pkg-config, find_package(CUDNN), static archives) by
 * test_install.sh.  Exit 0 and "consumer ok" when the headers and the
 * libraries it was linked with agree and work. */
#include <cuda_runtime.h>
#include <cudnn.h>
#include <stdio.h>

int
main(void)
{
    cudnnHandle_t handle;
    cudnnTensorDescriptor_t desc;
    size_t bytes = 0;
    void *dev = NULL;
    if (cudnnGetVersion() != CUDNN_VERSION || CUDNN_VERSION != 8904) {
        fprintf(stderr, "library version %zu, header %d\n", cudnnGetVersion(), CUDNN_VERSION);
        return 1;
    }
    if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS || cudnnCreateTensorDescriptor(&desc) != CUDNN_STATUS_SUCCESS ||
        cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 3, 4) != CUDNN_STATUS_SUCCESS ||
        cudnnGetTensorSizeInBytes(desc, &bytes) != CUDNN_STATUS_SUCCESS || bytes != 96) {
        fprintf(stderr, "cudnn calls failed\n");
        return 1;
    }
    if (cudaMalloc(&dev, bytes) != cudaSuccess || cudaMemset(dev, 0, bytes) != cudaSuccess ||
        cudaFree(dev) != cudaSuccess) {
        fprintf(stderr, "cudart calls failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    cudnnDestroyTensorDescriptor(desc);
    cudnnDestroy(handle);
    printf("consumer ok: cuDNN %zu, cudart %d\n", cudnnGetVersion(), (int)cudnnGetCudartVersion());
    return 0;
}
