/* SPDX-License-Identifier: Apache-2.0
 * Convolution backward data: execution, workspace size, algorithm queries.
 * (In cuDNN 8 these live in cnn_infer: transposed convolution inference.) */
#include "api/cnn_infer/conv_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"

cudnnStatus_t
fdnn_api_cudnnConvolutionBackwardData(cudnnHandle_t handle, const void *alpha, const cudnnFilterDescriptor_t wDesc,
                                      const void *w, const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                      const cudnnConvolutionDescriptor_t convDesc,
                                      cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                      size_t workSpaceSizeInBytes, const void *beta,
                                      const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc);
    c.w = w;
    c.y = dy;
    c.out = dx;
    return fdnn_conv_entry_execute(&c, alpha, beta, (int)algo, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnTensorDescriptor_t dyDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t dxDesc,
                                                      cudnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc);
    return fdnn_conv_entry_workspace(&c, (int)algo, sizeInBytes);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(count);
    *count = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
                                                     const cudnnTensorDescriptor_t diffDesc,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t gradDesc,
                                                     const int requestedAlgoCount, int *returnedAlgoCount,
                                                     cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_DATA, gradDesc, filterDesc, convDesc, diffDesc);
    return fdnn_conv_entry_get_v7(&c, requestedAlgoCount, returnedAlgoCount, (fdnn_conv_perf_t *)perfResults);
}

cudnnStatus_t
fdnn_api_cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                   const cudnnTensorDescriptor_t dyDesc,
                                                   const cudnnConvolutionDescriptor_t convDesc,
                                                   const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount,
                                                   int *returnedAlgoCount,
                                                   cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc);
    return fdnn_conv_entry_find(&c, false, NULL, 0, requestedAlgoCount, returnedAlgoCount,
                                (fdnn_conv_perf_t *)perfResults);
}

cudnnStatus_t
fdnn_api_cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                     const void *w, const cudnnTensorDescriptor_t dyDesc,
                                                     const void *dy, const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t dxDesc, void *dx,
                                                     const int requestedAlgoCount, int *returnedAlgoCount,
                                                     cudnnConvolutionBwdDataAlgoPerf_t *perfResults, void *workSpace,
                                                     size_t workSpaceSizeInBytes)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc);
    c.w = w;
    c.y = dy;
    c.out = dx;
    return fdnn_conv_entry_find(&c, true, workSpace, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount,
                                (fdnn_conv_perf_t *)perfResults);
}
