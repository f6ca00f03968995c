/* SPDX-License-Identifier: Apache-2.0
 * The convolution layer of layers.h. */
#include "layers.h"

#include <math.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#define CHECK_CUDNN(expr)                                                                                \
    do {                                                                                                 \
        cudnnStatus_t s_ = (expr);                                                                       \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                                \
            fprintf(stderr, "fashion_mnist: %s failed: %s (%s:%d)\n", #expr, cudnnGetErrorString(s_),    \
                    __FILE__, __LINE__);                                                                 \
            return -1;                                                                                   \
        }                                                                                                \
    } while (0)

static const float one = 1.0f, zero = 0.0f;

int
conv_init(model_t *m, conv_t *cv, int in_c, int out_c, int k, int pad, int stride, int in_hw, int bias,
          size_t *workspace_size, uint64_t *rng)
{
    int n = m->batch;
    cv->in_c = in_c;
    cv->out_c = out_c;
    cv->k = k;
    cv->pad = pad;
    cv->stride = stride;
    cv->in_hw = in_hw;
    CHECK_CUDNN(cudnnCreateFilterDescriptor(&cv->w_desc));
    CHECK_CUDNN(cudnnSetFilter4dDescriptor(cv->w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, out_c, in_c, k, k));
    CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&cv->desc));
    CHECK_CUDNN(cudnnSetConvolution2dDescriptor(cv->desc, pad, pad, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT));
    cudnnTensorDescriptor_t x_desc = model_tensor4d(n, in_c, in_hw, in_hw);
    int on, oc, oh, ow;
    CHECK_CUDNN(cudnnGetConvolution2dForwardOutputDim(cv->desc, x_desc, cv->w_desc, &on, &oc, &oh, &ow));
    cv->out_hw = oh;
    cv->y_desc = model_tensor4d(on, oc, oh, ow);
    cv->y = model_alloc((size_t)on * oc * oh * ow);
    cv->dy = model_alloc((size_t)on * oc * oh * ow);

    /* Choose algorithms the way a GPU program does: the first entry of the
     * heuristic's ranked list that works. */
    int returned = 0;
    cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(m->handle, x_desc, cv->w_desc, cv->desc, cv->y_desc,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, fwd));
    cv->fwd = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    for (int i = 0; i < returned; i++)
        if (fwd[i].status == CUDNN_STATUS_SUCCESS) {
            cv->fwd = fwd[i].algo;
            break;
        }
    cudnnConvolutionBwdDataAlgoPerf_t bd[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(m->handle, cv->w_desc, cv->y_desc, cv->desc, x_desc,
                                                            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, bd));
    cv->bwd_data = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    for (int i = 0; i < returned; i++)
        if (bd[i].status == CUDNN_STATUS_SUCCESS) {
            cv->bwd_data = bd[i].algo;
            break;
        }
    cudnnConvolutionBwdFilterAlgoPerf_t bf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(m->handle, x_desc, cv->y_desc, cv->desc, cv->w_desc,
                                                              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &returned,
                                                              bf));
    cv->bwd_filter = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    for (int i = 0; i < returned; i++)
        if (bf[i].status == CUDNN_STATUS_SUCCESS) {
            cv->bwd_filter = bf[i].algo;
            break;
        }
    size_t ws = 0;
    CHECK_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(m->handle, x_desc, cv->w_desc, cv->desc, cv->y_desc,
                                                        cv->fwd, &ws));
    if (ws > *workspace_size)
        *workspace_size = ws;
    CHECK_CUDNN(cudnnGetConvolutionBackwardDataWorkspaceSize(m->handle, cv->w_desc, cv->y_desc, cv->desc, x_desc,
                                                             cv->bwd_data, &ws));
    if (ws > *workspace_size)
        *workspace_size = ws;
    CHECK_CUDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(m->handle, x_desc, cv->y_desc, cv->desc,
                                                               cv->w_desc, cv->bwd_filter, &ws));
    if (ws > *workspace_size)
        *workspace_size = ws;
    cudnnDestroyTensorDescriptor(x_desc);

    float bound = 1.0f / sqrtf((float)(in_c * k * k));
    if (model_add_param(m, &cv->w, out_c, in_c, k, k, 0, bound, rng) != 0)
        return -1;
    if (bias) {
        if (model_add_param(m, &cv->b, 1, out_c, 1, 1, 0, bound, rng) != 0)
            return -1;
        cv->bias_desc = cv->b.desc;
    }
    return cv->y != NULL && cv->dy != NULL ? 0 : -1;
}

void
conv_free(conv_t *cv)
{
    cudnnDestroyFilterDescriptor(cv->w_desc);
    cudnnDestroyConvolutionDescriptor(cv->desc);
    cudnnDestroyTensorDescriptor(cv->y_desc);
    model_free_param(&cv->w);
    if (cv->b.count)
        model_free_param(&cv->b);
    cudaFree(cv->y);
    cudaFree(cv->dy);
}

int
conv_forward(model_t *m, conv_t *cv, cudnnTensorDescriptor_t x_desc, const float *x, void *ws, size_t ws_size)
{
    CHECK_CUDNN(cudnnConvolutionForward(m->handle, &one, x_desc, x, cv->w_desc, cv->w.value, cv->desc, cv->fwd, ws,
                                        ws_size, &zero, cv->y_desc, cv->y));
    if (cv->b.count)
        CHECK_CUDNN(cudnnAddTensor(m->handle, &one, cv->bias_desc, cv->b.value, &one, cv->y_desc, cv->y));
    return 0;
}

int
conv_backward(model_t *m, conv_t *cv, cudnnTensorDescriptor_t x_desc, const float *x, float *dx, float dx_beta,
              void *ws, size_t ws_size)
{
    CHECK_CUDNN(cudnnConvolutionBackwardFilter(m->handle, &one, x_desc, x, cv->y_desc, cv->dy, cv->desc,
                                               cv->bwd_filter, ws, ws_size, &zero, cv->w_desc, cv->w.grad));
    model_ready(m, cv->w.index);
    if (cv->b.count) {
        CHECK_CUDNN(cudnnConvolutionBackwardBias(m->handle, &one, cv->y_desc, cv->dy, &zero, cv->bias_desc,
                                                 cv->b.grad));
        model_ready(m, cv->b.index);
    }
    if (dx != NULL)
        CHECK_CUDNN(cudnnConvolutionBackwardData(m->handle, &one, cv->w_desc, cv->w.value, cv->y_desc, cv->dy,
                                                 cv->desc, cv->bwd_data, ws, ws_size, &dx_beta, x_desc, dx));
    return 0;
}
