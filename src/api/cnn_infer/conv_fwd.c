/* SPDX-License-Identifier: Apache-2.0
 * Convolution forward: execution, workspace size, algorithm queries.  The
 * bodies are the role-based fdnn_conv_entry_* of conv_entry.c. */
#include "api/cnn_infer/conv_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"

cudnnStatus_t
fdnn_api_cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                                 const void *x, const cudnnFilterDescriptor_t wDesc, const void *w,
                                 const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
                                 void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
                                 const cudnnTensorDescriptor_t yDesc, void *y)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_FWD, xDesc, wDesc, convDesc, yDesc);
    c.x = x;
    c.w = w;
    c.out = y;
    return fdnn_conv_entry_execute(&c, alpha, beta, (int)algo, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                 const cudnnFilterDescriptor_t wDesc,
                                                 const cudnnConvolutionDescriptor_t convDesc,
                                                 const cudnnTensorDescriptor_t yDesc, cudnnConvolutionFwdAlgo_t algo,
                                                 size_t *sizeInBytes)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_FWD, xDesc, wDesc, convDesc, yDesc);
    return fdnn_conv_entry_workspace(&c, (int)algo, sizeInBytes);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(count);
    *count = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
                                                const cudnnFilterDescriptor_t filterDesc,
                                                const cudnnConvolutionDescriptor_t convDesc,
                                                const cudnnTensorDescriptor_t destDesc, const int requestedAlgoCount,
                                                int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_FWD, srcDesc, filterDesc, convDesc, destDesc);
    return fdnn_conv_entry_get_v7(&c, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t
fdnn_api_cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                              const cudnnFilterDescriptor_t wDesc,
                                              const cudnnConvolutionDescriptor_t convDesc,
                                              const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
                                              int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_FWD, xDesc, wDesc, convDesc, yDesc);
    return fdnn_conv_entry_find(&c, false, NULL, 0, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t
fdnn_api_cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                const void *x, const cudnnFilterDescriptor_t wDesc, const void *w,
                                                const cudnnConvolutionDescriptor_t convDesc,
                                                const cudnnTensorDescriptor_t yDesc, void *y,
                                                const int requestedAlgoCount, int *returnedAlgoCount,
                                                cudnnConvolutionFwdAlgoPerf_t *perfResults, void *workSpace,
                                                size_t workSpaceSizeInBytes)
{
    fdnn_conv_call_t c = fdnn_conv_call(handle, FDNN_CONV_FWD, xDesc, wDesc, convDesc, yDesc);
    c.x = x;
    c.w = w;
    c.out = y;
    return fdnn_conv_entry_find(&c, true, workSpace, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount,
                                perfResults);
}
