/* SPDX-License-Identifier: Apache-2.0
 * Convolution forward: execution, workspace size, algorithm queries. */
#include "api/cnn_infer/conv_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/scaling.h"

cudnnStatus_t
fdnn_api_cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                                 const void *x, const cudnnFilterDescriptor_t wDesc, const void *w,
                                 const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
                                 void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
                                 const cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(w);
    RETURN_IF_NULL(y);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, xDesc, wDesc, convDesc, yDesc, &p));
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workSpace, workSpaceSizeInBytes));
    fdnn_conv_log(&p, (int)algo);
    fdnn_conv_exec_t e = {
        .handle = handle,
        .p = &p,
        .x_in = x,
        .w_in = w,
        .out = y,
        .alpha = fdnn_scaling_value(alpha, p.dtype),
        .beta = fdnn_scaling_value(beta, p.dtype),
        .workspace = workSpace,
        .workspace_bytes = workSpaceSizeInBytes,
    };
    return fdnn_conv_run(&e, (int)algo);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                 const cudnnFilterDescriptor_t wDesc,
                                                 const cudnnConvolutionDescriptor_t convDesc,
                                                 const cudnnTensorDescriptor_t yDesc, cudnnConvolutionFwdAlgo_t algo,
                                                 size_t *sizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(sizeInBytes);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, xDesc, wDesc, convDesc, yDesc, &p));
    size_t bytes = 0;
    RETURN_IF_ERROR(fdnn_conv_algo_check(&p, (int)algo, &bytes));
    *sizeInBytes = bytes;
    return CUDNN_STATUS_SUCCESS;
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
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, srcDesc, filterDesc, convDesc, destDesc, &p));
    return fdnn_conv_get_v7(handle, &p, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t
fdnn_api_cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                              const cudnnFilterDescriptor_t wDesc,
                                              const cudnnConvolutionDescriptor_t convDesc,
                                              const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
                                              int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, xDesc, wDesc, convDesc, yDesc, &p));
    return fdnn_conv_find(handle, &p, NULL, requestedAlgoCount, returnedAlgoCount, perfResults);
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
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(w);
    RETURN_IF_NULL(y);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, xDesc, wDesc, convDesc, yDesc, &p));
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workSpace, workSpaceSizeInBytes));
    fdnn_conv_exec_t io = {
        .x_in = x, .w_in = w, .out = y, .workspace = workSpace, .workspace_bytes = workSpaceSizeInBytes};
    return fdnn_conv_find(handle, &p, &io, requestedAlgoCount, returnedAlgoCount, perfResults);
}
