/* SPDX-License-Identifier: Apache-2.0
 * Convolution backward filter: execution, workspace size, algorithm
 * queries. */
#include "api/cnn_infer/conv_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"

cudnnStatus_t
fdnn_api_cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                                        const void *x, const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                        const cudnnConvolutionDescriptor_t convDesc,
                                        cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace,
                                        size_t workSpaceSizeInBytes, const void *beta,
                                        const cudnnFilterDescriptor_t dwDesc, void *dw)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_FILTER, xDesc, dwDesc, convDesc, dyDesc);
    c.x = x;
    c.y = dy;
    c.out = dw;
    return fdnn_conv_entry_execute(&c, alpha, beta, (int)algo, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                        const cudnnTensorDescriptor_t dyDesc,
                                                        const cudnnConvolutionDescriptor_t convDesc,
                                                        const cudnnFilterDescriptor_t gradDesc,
                                                        cudnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_FILTER, xDesc, gradDesc, convDesc, dyDesc);
    return fdnn_conv_entry_workspace(&c, (int)algo, sizeInBytes);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(count);
    *count = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
                                                       const cudnnTensorDescriptor_t diffDesc,
                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                       const cudnnFilterDescriptor_t gradDesc,
                                                       const int requestedAlgoCount, int *returnedAlgoCount,
                                                       cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_FILTER, srcDesc, gradDesc, convDesc, diffDesc);
    return fdnn_conv_entry_get_v7(&c, requestedAlgoCount, returnedAlgoCount, (fdnn_conv_perf_t *)perfResults);
}

cudnnStatus_t
fdnn_api_cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                     const cudnnTensorDescriptor_t dyDesc,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnFilterDescriptor_t dwDesc,
                                                     const int requestedAlgoCount, int *returnedAlgoCount,
                                                     cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_FILTER, xDesc, dwDesc, convDesc, dyDesc);
    return fdnn_conv_entry_find(&c, false, NULL, 0, requestedAlgoCount, returnedAlgoCount,
                                (fdnn_conv_perf_t *)perfResults);
}

cudnnStatus_t
fdnn_api_cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                       const void *x, const cudnnTensorDescriptor_t dyDesc,
                                                       const void *y, const cudnnConvolutionDescriptor_t convDesc,
                                                       const cudnnFilterDescriptor_t dwDesc, void *dw,
                                                       const int requestedAlgoCount, int *returnedAlgoCount,
                                                       cudnnConvolutionBwdFilterAlgoPerf_t *perfResults,
                                                       void *workSpace, size_t workSpaceSizeInBytes)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_BWD_FILTER, xDesc, dwDesc, convDesc, dyDesc);
    c.x = x;
    c.y = y;
    c.out = dw;
    return fdnn_conv_entry_find(&c, true, workSpace, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount,
                                (fdnn_conv_perf_t *)perfResults);
}
