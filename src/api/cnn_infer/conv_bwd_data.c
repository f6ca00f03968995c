/* SPDX-License-Identifier: Apache-2.0
 * Convolution backward data: execution, workspace size, algorithm queries.
 * (In cuDNN 8 these live in cnn_infer: transposed convolution inference.) */
#include "api/cnn_infer/conv_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/scaling.h"

cudnnStatus_t
fdnn_api_cudnnConvolutionBackwardData(cudnnHandle_t handle, const void *alpha, const cudnnFilterDescriptor_t wDesc,
                                      const void *w, const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                      const cudnnConvolutionDescriptor_t convDesc,
                                      cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                      size_t workSpaceSizeInBytes, const void *beta,
                                      const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_NULL(w);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(dx);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc, &p));
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workSpace, workSpaceSizeInBytes));
    fdnn_conv_log(&p, (int)algo);
    fdnn_conv_exec_t e = {
        .handle = handle,
        .p = &p,
        .y_in = dy,
        .w_in = w,
        .out = dx,
        .alpha = fdnn_scaling_value(alpha, p.dtype),
        .beta = fdnn_scaling_value(beta, p.dtype),
        .workspace = workSpace,
        .workspace_bytes = workSpaceSizeInBytes,
    };
    return fdnn_conv_run(&e, (int)algo);
}

cudnnStatus_t
fdnn_api_cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnTensorDescriptor_t dyDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t dxDesc,
                                                      cudnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(sizeInBytes);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc, &p));
    size_t bytes = 0;
    RETURN_IF_ERROR(fdnn_conv_algo_check(&p, (int)algo, &bytes));
    *sizeInBytes = bytes;
    return CUDNN_STATUS_SUCCESS;
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
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_DATA, gradDesc, filterDesc, convDesc, diffDesc, &p));
    return fdnn_conv_get_v7(handle, &p, requestedAlgoCount, returnedAlgoCount, (fdnn_conv_perf_t *)perfResults);
}

cudnnStatus_t
fdnn_api_cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                   const cudnnTensorDescriptor_t dyDesc,
                                                   const cudnnConvolutionDescriptor_t convDesc,
                                                   const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount,
                                                   int *returnedAlgoCount,
                                                   cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc, &p));
    return fdnn_conv_find(handle, &p, NULL, requestedAlgoCount, returnedAlgoCount, (fdnn_conv_perf_t *)perfResults);
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
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(w);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(dx);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc, &p));
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workSpace, workSpaceSizeInBytes));
    fdnn_conv_exec_t io = {
        .y_in = dy, .w_in = w, .out = dx, .workspace = workSpace, .workspace_bytes = workSpaceSizeInBytes};
    return fdnn_conv_find(handle, &p, &io, requestedAlgoCount, returnedAlgoCount, (fdnn_conv_perf_t *)perfResults);
}
