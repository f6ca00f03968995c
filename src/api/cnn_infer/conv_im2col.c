/* SPDX-License-Identifier: Apache-2.0
 * cudnnIm2Col: the A matrix of a GEMM forward convolution, N*OH*OW rows of
 * C*R*S elements, fully packed (see src/cpu/conv/conv_im2col.h for the
 * element order).  One group only: with groups the matrix of one GEMM is not
 * defined by the API, so groupCount > 1 gives NOT_SUPPORTED. */
#include "api_impl.h"
#include "core/conv.h"
#include "core/fail.h"
#include "core/handle.h"
#include "cpu/conv/conv_im2col.h"

cudnnStatus_t
fdnn_api_cudnnIm2Col(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x,
                     const cudnnFilterDescriptor_t wDesc, const cudnnConvolutionDescriptor_t convDesc,
                     void *colBuffer)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(colBuffer);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_without_y(xDesc, wDesc, convDesc, &p));
    /* (The vector types' strides count vectors, the matrix's columns
     * channels: not defined here yet.) */
    if (fdnn_dtype_vect(p.x_dtype) > 0)
        return FDNN_GAP("cudnnIm2Col of %s data (vectorized) is not implemented", fdnn_dtype_name(p.x_dtype));
    if (p.g != 1)
        return FDNN_GAP("cudnnIm2Col with groupCount %lld: only one group is supported", (long long)p.g);
    fdnn_conv_im2col_matrix(fdnn_handle_pool(handle), &p, x, colBuffer);
    return CUDNN_STATUS_SUCCESS;
}
