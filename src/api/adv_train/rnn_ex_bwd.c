/* SPDX-License-Identifier: Apache-2.0
 * The *Ex RNN training interface (deprecated in 8.x, removed in 9):
 * cudnnRNNForwardTrainingEx, cudnnRNNBackwardDataEx,
 * cudnnRNNBackwardWeightsEx: the legacy training calls with RNN data
 * descriptors for x, y, dx, dy, on the v8 implementation (see
 * adv_infer/rnn_ex.c for the sizes and the reserved attention hooks).
 *
 * As the v8 calls, backward data must follow a training forward with the
 * same inputs and writes the gate gradients into the reserve space, which
 * backward weights then reads.  cudnnRNNBackwardWeightsEx adds to dw, as the
 * legacy cudnnRNNBackwardWeights does (CUDNN_WGRAD_MODE_ADD). */
#include "api/adv_infer/rnn_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"

cudnnStatus_t
fdnn_api_cudnnRNNForwardTrainingEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                   const cudnnRNNDataDescriptor_t xDesc, const void *x,
                                   const cudnnTensorDescriptor_t hxDesc, const void *hx,
                                   const cudnnTensorDescriptor_t cxDesc, const void *cx,
                                   const cudnnFilterDescriptor_t wDesc, const void *w,
                                   const cudnnRNNDataDescriptor_t yDesc, void *y,
                                   const cudnnTensorDescriptor_t hyDesc, void *hy,
                                   const cudnnTensorDescriptor_t cyDesc, void *cy,
                                   const cudnnRNNDataDescriptor_t kDesc, const void *keys,
                                   const cudnnRNNDataDescriptor_t cDesc, void *cAttn,
                                   const cudnnRNNDataDescriptor_t iDesc, void *iAttn,
                                   const cudnnRNNDataDescriptor_t qDesc, void *queries, void *workSpace,
                                   size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(kDesc, keys, "kDesc/keys"));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(cDesc, cAttn, "cDesc/cAttn"));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(iDesc, iAttn, "iDesc/iAttn"));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(qDesc, queries, "qDesc/queries"));
    return fdnn_rnn_ex_forward(handle, rnnDesc, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w, yDesc, y, hyDesc, hy,
                               cyDesc, cy, workSpace, workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes,
                               true);
}

/* The training workspace and the reserve of the problem (the sizes of
 * cudnnGetRNNTempSpaceSizes, TRAINING). */
static cudnnStatus_t
check_spaces(const fdnn_rnn_problem_t *p, const void *workSpace, size_t workSpaceSizeInBytes,
             const void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    size_t need_ws = fdnn_rnn_workspace_bytes(p, true), need_rs = fdnn_rnn_reserve_bytes(p);
    if (workSpaceSizeInBytes < need_ws)
        return FDNN_BAD_PARAM("workSpaceSizeInBytes is %zu, needs %zu (cudnnGetRNNWorkspaceSize)",
                              workSpaceSizeInBytes, need_ws);
    RETURN_IF_NULL(workSpace);
    if (reserveSpaceSizeInBytes < need_rs)
        return FDNN_BAD_PARAM("reserveSpaceSizeInBytes is %zu, needs %zu (cudnnGetRNNTrainingReserveSize)",
                              reserveSpaceSizeInBytes, need_rs);
    RETURN_IF_NULL(reserveSpace);
    return CUDNN_STATUS_SUCCESS;
}

/* dyDesc describes the same sequences as yDesc. */
static cudnnStatus_t
check_dy(cudnnRNNDataDescriptor_t dyDesc, cudnnRNNDataDescriptor_t yDesc)
{
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(dyDesc, "dyDesc"));
    if (dyDesc->data_type != yDesc->data_type || dyDesc->layout != yDesc->layout ||
        dyDesc->max_seq_length != yDesc->max_seq_length || dyDesc->batch_size != yDesc->batch_size ||
        dyDesc->vector_size != yDesc->vector_size)
        return FDNN_BAD_PARAM("dyDesc differs from yDesc in data type, layout, maxSeqLength, batchSize or "
                              "vectorSize");
    for (int b = 0; b < yDesc->batch_size; b++)
        if (dyDesc->seq_lengths[b] != yDesc->seq_lengths[b])
            return FDNN_BAD_PARAM("dyDesc seqLengthArray[%d] is %d, yDesc's %d", b, dyDesc->seq_lengths[b],
                                  yDesc->seq_lengths[b]);
    return CUDNN_STATUS_SUCCESS;
}

/* dhy and dcy may be NULL (zero); dhx and dcx may be NULL (not written).  The
 * padding of dx gets dxDesc's padding fill, when it has one. */
cudnnStatus_t
fdnn_api_cudnnRNNBackwardDataEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                const cudnnRNNDataDescriptor_t yDesc, const void *y,
                                const cudnnRNNDataDescriptor_t dyDesc, const void *dy,
                                const cudnnRNNDataDescriptor_t dcDesc, const void *dcAttn,
                                const cudnnTensorDescriptor_t dhyDesc, const void *dhy,
                                const cudnnTensorDescriptor_t dcyDesc, const void *dcy,
                                const cudnnFilterDescriptor_t wDesc, const void *w,
                                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                                const cudnnTensorDescriptor_t cxDesc, const void *cx,
                                const cudnnRNNDataDescriptor_t dxDesc, void *dx,
                                const cudnnTensorDescriptor_t dhxDesc, void *dhx,
                                const cudnnTensorDescriptor_t dcxDesc, void *dcx,
                                const cudnnRNNDataDescriptor_t dkDesc, void *dkeys, void *workSpace,
                                size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(dcDesc, dcAttn, "dcDesc/dcAttn"));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(dkDesc, dkeys, "dkDesc/dkeys"));
    fdnn_rnn_problem_t p;
    RETURN_IF_ERROR(fdnn_rnn_problem_ex(rnnDesc, dxDesc, "dxDesc", yDesc, &p));
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(yDesc, "yDesc"));
    RETURN_IF_ERROR(check_dy(dyDesc, yDesc));
    RETURN_IF_ERROR(fdnn_rnn_check_states(&p, hxDesc, cxDesc, true));
    RETURN_IF_ERROR(fdnn_rnn_check_states(&p, dhyDesc, dcyDesc, true));
    RETURN_IF_ERROR(fdnn_rnn_check_states(&p, dhxDesc, dcxDesc, true));
    RETURN_IF_ERROR(fdnn_rnn_check_wdesc(&p, wDesc, "wDesc"));
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(dy);
    RETURN_IF_NULL(dx);
    RETURN_IF_NULL(w);
    RETURN_IF_ERROR(check_spaces(&p, workSpace, workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes));
    bool lstm = p.cell == CUDNN_LSTM;
    fdnn_rnn_ctx_t ctx = {fdnn_handle_pool(handle), handle->isa, handle};
    if (!fdnn_rnn_backward_data(&ctx, &p, dy, dx, hx, dhy, dhx, lstm ? cx : NULL, lstm ? dcy : NULL,
                                lstm ? dcx : NULL, w, workSpace, reserveSpace))
        return FDNN_ALLOC_FAILED("out of memory for the GEMM packing buffers");
    fdnn_rnn_fill_padding(&p, dxDesc, dx);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnRNNBackwardWeightsEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                   const cudnnRNNDataDescriptor_t xDesc, const void *x,
                                   const cudnnTensorDescriptor_t hxDesc, const void *hx,
                                   const cudnnRNNDataDescriptor_t yDesc, const void *y, void *workSpace,
                                   size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
                                   void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    RETURN_IF_ERROR(fdnn_rnn_problem_ex(rnnDesc, xDesc, "xDesc", yDesc, &p));
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(yDesc, "yDesc"));
    RETURN_IF_ERROR(fdnn_rnn_check_states(&p, hxDesc, NULL, false));
    RETURN_IF_ERROR(fdnn_rnn_check_wdesc(&p, dwDesc, "dwDesc"));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(dw);
    RETURN_IF_ERROR(check_spaces(&p, workSpace, workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes));
    fdnn_rnn_ctx_t ctx = {fdnn_handle_pool(handle), handle->isa, handle};
    if (!fdnn_rnn_backward_weights(&ctx, &p, true, x, hx, dw, workSpace, reserveSpace))
        return FDNN_ALLOC_FAILED("out of memory for the GEMM packing buffers");
    return CUDNN_STATUS_SUCCESS;
}
