/* SPDX-License-Identifier: Apache-2.0
 * The legacy RNN training interface (deprecated in 8.x, removed in 9):
 * cudnnRNNForwardTraining, cudnnRNNBackwardData, cudnnRNNBackwardWeights,
 * on the v8 implementation (per-step descriptors = SEQ_MAJOR_PACKED).  As in
 * cuDNN, the legacy cudnnRNNBackwardWeights adds to dw (WGRAD_MODE_ADD). */
#include <stdlib.h>

#include "api/adv_infer/rnn_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"

cudnnStatus_t
fdnn_api_cudnnRNNForwardTraining(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                                 const cudnnTensorDescriptor_t *xDesc, const void *x,
                                 const cudnnTensorDescriptor_t hxDesc, const void *hx,
                                 const cudnnTensorDescriptor_t cxDesc, const void *cx,
                                 const cudnnFilterDescriptor_t wDesc, const void *w,
                                 const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc,
                                 void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy, void *workSpace,
                                 size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    return fdnn_rnn_legacy_forward(handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w, yDesc, y,
                                   hyDesc, hy, cyDesc, cy, workSpace, workSpaceSizeInBytes, reserveSpace,
                                   reserveSpaceSizeInBytes, true);
}

static cudnnStatus_t
check_spaces(const fdnn_rnn_problem_t *p, const void *workSpace, size_t workSpaceSizeInBytes,
             const void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    size_t need_ws = fdnn_rnn_workspace_bytes(p, true), need_rs = fdnn_rnn_reserve_bytes(p);
    if (workSpace == NULL || workSpaceSizeInBytes < need_ws)
        return FDNN_BAD_PARAM("workSpace is NULL or workSpaceSizeInBytes (%zu) below %zu", workSpaceSizeInBytes,
                              need_ws);
    if (reserveSpace == NULL || reserveSpaceSizeInBytes < need_rs)
        return FDNN_BAD_PARAM("reserveSpace is NULL or reserveSpaceSizeInBytes (%zu) below %zu",
                              reserveSpaceSizeInBytes, need_rs);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnRNNBackwardData(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                              const cudnnTensorDescriptor_t *yDesc, const void *y,
                              const cudnnTensorDescriptor_t *dyDesc, const void *dy,
                              const cudnnTensorDescriptor_t dhyDesc, const void *dhy,
                              const cudnnTensorDescriptor_t dcyDesc, const void *dcy,
                              const cudnnFilterDescriptor_t wDesc, const void *w,
                              const cudnnTensorDescriptor_t hxDesc, const void *hx,
                              const cudnnTensorDescriptor_t cxDesc, const void *cx,
                              const cudnnTensorDescriptor_t *dxDesc, void *dx, const cudnnTensorDescriptor_t dhxDesc,
                              void *dhx, const cudnnTensorDescriptor_t dcxDesc, void *dcx, void *workSpace,
                              size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    int *lens;
    RETURN_IF_ERROR(fdnn_rnn_problem_legacy(rnnDesc, seqLength, dxDesc, yDesc, &p, &lens));
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    if (dyDesc == NULL)
        st = FDNN_BAD_PARAM("dyDesc is NULL");
    for (int t = 0; st == CUDNN_STATUS_SUCCESS && t < seqLength; t++) {
        fdnn_tensor_t a, b;
        st = fdnn_tensor_from_desc(dyDesc[t], "dyDesc", &a);
        if (st == CUDNN_STATUS_SUCCESS)
            st = fdnn_tensor_from_desc(yDesc[t], "yDesc", &b);
        if (st == CUDNN_STATUS_SUCCESS && (!fdnn_tensor_same_dims(&a, &b) || a.dtype != b.dtype))
            st = FDNN_BAD_PARAM("dyDesc[%d] differs from yDesc[%d]", t, t);
    }
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_rnn_check_states(&p, hxDesc, cxDesc, true);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_rnn_check_states(&p, dhyDesc, dcyDesc, true);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_rnn_check_states(&p, dhxDesc, dcxDesc, true);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_rnn_check_wdesc(&p, wDesc, "wDesc");
    if (st == CUDNN_STATUS_SUCCESS && (y == NULL || dy == NULL || dx == NULL || w == NULL))
        st = FDNN_BAD_PARAM("%s is NULL", y == NULL ? "y" : dy == NULL ? "dy" : dx == NULL ? "dx" : "w");
    if (st == CUDNN_STATUS_SUCCESS)
        st = check_spaces(&p, workSpace, workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes);
    if (st == CUDNN_STATUS_SUCCESS) {
        bool lstm = p.cell == CUDNN_LSTM;
        fdnn_rnn_ctx_t ctx = {fdnn_handle_pool(handle), handle->isa, handle};
        if (!fdnn_rnn_backward_data(&ctx, &p, dy, dx, hx, dhy, dhx, lstm ? cx : NULL, lstm ? dcy : NULL,
                                    lstm ? dcx : NULL, w, workSpace, reserveSpace))
            st = FDNN_ALLOC_FAILED("out of memory for the GEMM packing buffers");
    }
    free(lens);
    return st;
}

cudnnStatus_t
fdnn_api_cudnnRNNBackwardWeights(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                                 const cudnnTensorDescriptor_t *xDesc, const void *x,
                                 const cudnnTensorDescriptor_t hxDesc, const void *hx,
                                 const cudnnTensorDescriptor_t *yDesc, const void *y, const void *workSpace,
                                 size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
                                 const void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    int *lens;
    RETURN_IF_ERROR(fdnn_rnn_problem_legacy(rnnDesc, seqLength, xDesc, yDesc, &p, &lens));
    cudnnStatus_t st = fdnn_rnn_check_states(&p, hxDesc, NULL, false);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_rnn_check_wdesc(&p, dwDesc, "dwDesc");
    if (st == CUDNN_STATUS_SUCCESS && (x == NULL || y == NULL || dw == NULL))
        st = FDNN_BAD_PARAM("%s is NULL", x == NULL ? "x" : y == NULL ? "y" : "dw");
    if (st == CUDNN_STATUS_SUCCESS)
        st = check_spaces(&p, workSpace, workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes);
    if (st == CUDNN_STATUS_SUCCESS) {
        fdnn_rnn_ctx_t ctx = {fdnn_handle_pool(handle), handle->isa, handle};
        /* The workspace is scratch for the gathers here, as in cuDNN's
         * legacy call whose workSpace is declared const but used. */
        if (!fdnn_rnn_backward_weights(&ctx, &p, true, x, hx, dw, (void *)workSpace, reserveSpace))
            st = FDNN_ALLOC_FAILED("out of memory for the GEMM packing buffers");
    }
    free(lens);
    return st;
}
