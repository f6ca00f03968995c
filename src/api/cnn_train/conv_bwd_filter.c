/* SPDX-License-Identifier: Apache-2.0
 * Convolution backward filter: execution, workspace size, algorithm
 * queries. */
#include "api/cnn_infer/conv_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/scaling.h"

cudnnStatus_t
fdnn_api_cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                                        const void *x, const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                        const cudnnConvolutionDescriptor_t convDesc,
                                        cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace,
                                        size_t workSpaceSizeInBytes, const void *beta,
                                        const cudnnFilterDescriptor_t dwDesc, void *dw)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(dw);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_FILTER, xDesc, dwDesc, convDesc, dyDesc, &p));
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workSpace, workSpaceSizeInBytes));
    fdnn_conv_log(&p, (int)algo);
    fdnn_conv_exec_t e = {
        .handle = handle,
        .p = &p,
        .x_in = x,
        .y_in = dy,
        .out = dw,
        .alpha = fdnn_scaling_value(alpha, p.dtype),
        .beta = fdnn_scaling_value(beta, p.dtype),
        .workspace = workSpace,
        .workspace_bytes = workSpaceSizeInBytes,
    };
    return fdnn_conv_run(&e, (int)algo);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                        const cudnnTensorDescriptor_t dyDesc,
                                                        const cudnnConvolutionDescriptor_t convDesc,
                                                        const cudnnFilterDescriptor_t gradDesc,
                                                        cudnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(sizeInBytes);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_FILTER, xDesc, gradDesc, convDesc, dyDesc, &p));
    size_t bytes = 0;
    RETURN_IF_ERROR(fdnn_conv_algo_check(&p, (int)algo, &bytes));
    *sizeInBytes = bytes;
    return CUDNN_STATUS_SUCCESS;
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
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_FILTER, srcDesc, gradDesc, convDesc, diffDesc, &p));
    return fdnn_conv_get_v7(handle, &p, requestedAlgoCount, returnedAlgoCount, (fdnn_conv_perf_t *)perfResults);
}

cudnnStatus_t
fdnn_api_cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                     const cudnnTensorDescriptor_t dyDesc,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnFilterDescriptor_t dwDesc,
                                                     const int requestedAlgoCount, int *returnedAlgoCount,
                                                     cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_FILTER, xDesc, dwDesc, convDesc, dyDesc, &p));
    return fdnn_conv_find(handle, &p, NULL, requestedAlgoCount, returnedAlgoCount, (fdnn_conv_perf_t *)perfResults);
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
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(dw);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_FILTER, xDesc, dwDesc, convDesc, dyDesc, &p));
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workSpace, workSpaceSizeInBytes));
    fdnn_conv_exec_t io = {
        .x_in = x, .y_in = y, .out = dw, .workspace = workSpace, .workspace_bytes = workSpaceSizeInBytes};
    return fdnn_conv_find(handle, &p, &io, requestedAlgoCount, returnedAlgoCount, (fdnn_conv_perf_t *)perfResults);
}
