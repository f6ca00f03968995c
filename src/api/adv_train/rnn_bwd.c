/* SPDX-License-Identifier: Apache-2.0
 * cudnnRNNBackwardData_v8 and cudnnRNNBackwardWeights_v8 (FP32, FP64).  Both read
 * the reserve space of a training cudnnRNNForward with the same descriptors
 * and inputs; backward data stores the gate gradients in it, which backward
 * weights then uses (so backward data must run first, as in cuDNN).  The
 * reserve also holds the dropout masks of the forward, so both apply them. */
#include "api/adv_infer/rnn_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"

static cudnnStatus_t
check_spaces(const fdnn_rnn_problem_t *p, size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize,
             void *workSpace, size_t reserveSpaceSize, void *reserveSpace, const char *wname)
{
    size_t need_w = fdnn_rnn_weight_bytes(p);
    if (weightSpaceSize < need_w)
        return FDNN_BAD_PARAM("weightSpaceSize is %zu, needs %zu bytes", weightSpaceSize, need_w);
    if (weightSpace == NULL)
        return FDNN_BAD_PARAM("%s is NULL", wname);
    size_t need_ws = fdnn_rnn_workspace_bytes(p, true);
    if (workSpaceSize < need_ws)
        return FDNN_BAD_PARAM("workSpaceSize is %zu, needs %zu bytes (cudnnGetRNNTempSpaceSizes, TRAINING)",
                              workSpaceSize, need_ws);
    RETURN_IF_NULL(workSpace);
    size_t need_rs = fdnn_rnn_reserve_bytes(p);
    if (reserveSpaceSize < need_rs)
        return FDNN_BAD_PARAM("reserveSpaceSize is %zu, needs %zu bytes", reserveSpaceSize, need_rs);
    RETURN_IF_NULL(reserveSpace);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnRNNBackwardData_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int32_t *devSeqLengths,
                                 cudnnRNNDataDescriptor_t yDesc, const void *y, const void *dy,
                                 cudnnRNNDataDescriptor_t xDesc, void *dx, cudnnTensorDescriptor_t hDesc,
                                 const void *hx, const void *dhy, void *dhx, cudnnTensorDescriptor_t cDesc,
                                 const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize,
                                 const void *weightSpace, size_t workSpaceSize, void *workSpace,
                                 size_t reserveSpaceSize, void *reserveSpace)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    RETURN_IF_ERROR(fdnn_rnn_problem_init(rnnDesc, 0, &p));
    RETURN_IF_ERROR(fdnn_rnn_problem_seq(rnnDesc, devSeqLengths, xDesc, yDesc, &p));
    RETURN_IF_ERROR(fdnn_rnn_check_states(&p, hDesc, cDesc, true));
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(dx);
    RETURN_IF_ERROR(check_spaces(&p, weightSpaceSize, weightSpace, workSpaceSize, workSpace, reserveSpaceSize,
                                 reserveSpace, "weightSpace"));
    bool lstm = p.cell == CUDNN_LSTM;
    fdnn_rnn_ctx_t ctx = {fdnn_handle_pool(handle), handle->isa, handle};
    if (!fdnn_rnn_backward_data(&ctx, &p, dy, dx, hx, dhy, dhx, lstm ? cx : NULL, lstm ? dcy : NULL,
                                lstm ? dcx : NULL, weightSpace, workSpace, reserveSpace))
        return FDNN_ALLOC_FAILED("out of memory for the GEMM packing buffers");
    fdnn_rnn_fill_padding(&p, xDesc, dx);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnRNNBackwardWeights_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnWgradMode_t addGrad,
                                    const int32_t *devSeqLengths, cudnnRNNDataDescriptor_t xDesc, const void *x,
                                    cudnnTensorDescriptor_t hDesc, const void *hx, cudnnRNNDataDescriptor_t yDesc,
                                    const void *y, size_t weightSpaceSize, void *dweightSpace, size_t workSpaceSize,
                                    void *workSpace, size_t reserveSpaceSize, void *reserveSpace)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    RETURN_IF_ERROR(fdnn_rnn_problem_init(rnnDesc, 0, &p));
    if (addGrad != CUDNN_WGRAD_MODE_ADD && addGrad != CUDNN_WGRAD_MODE_SET)
        return FDNN_BAD_PARAM("addGrad is %d, not a cudnnWgradMode_t", (int)addGrad);
    RETURN_IF_ERROR(fdnn_rnn_problem_seq(rnnDesc, devSeqLengths, xDesc, yDesc, &p));
    RETURN_IF_ERROR(fdnn_rnn_check_states(&p, hDesc, NULL, false));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    RETURN_IF_ERROR(check_spaces(&p, weightSpaceSize, dweightSpace, workSpaceSize, workSpace, reserveSpaceSize,
                                 reserveSpace, "dweightSpace"));
    fdnn_rnn_ctx_t ctx = {fdnn_handle_pool(handle), handle->isa, handle};
    if (!fdnn_rnn_backward_weights(&ctx, &p, addGrad == CUDNN_WGRAD_MODE_ADD, x, hx, dweightSpace, workSpace,
                                   reserveSpace))
        return FDNN_ALLOC_FAILED("out of memory for the GEMM packing buffers");
    return CUDNN_STATUS_SUCCESS;
}
