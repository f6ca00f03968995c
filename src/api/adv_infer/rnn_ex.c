/* SPDX-License-Identifier: Apache-2.0
 * The *Ex RNN interface of adv_infer (deprecated in 8.x, removed in 9):
 * cudnnRNNForwardInferenceEx and the forward it shares with
 * cudnnRNNForwardTrainingEx (adv_train/rnn_ex_bwd.c).
 *
 * The *Ex calls are the legacy calls with RNN data descriptors for x and y
 * (so every layout, per-sequence lengths and a padding fill) and are the v8
 * cudnnRNNForward underneath: hx/cx/hy/cy are 3-D tensor descriptors, w is a
 * filter descriptor over the weight space.  The minimum workspace and
 * reserve are those of cudnnGetRNNTempSpaceSizes for xDesc; the legacy
 * cudnnGetRNNWorkspaceSize / TrainingReserveSize give at least as much when
 * their per-step descriptors describe the same maxSeqLength and batch (both
 * depend only on those, not on the lengths or the layout).  The attention
 * hooks (kDesc/keys, cDesc/cAttn, iDesc/iAttn, qDesc/queries) are reserved
 * in cuDNN 8.9: anything but NULL is NOT_SUPPORTED. */
#include "api/adv_infer/rnn_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"

cudnnStatus_t
fdnn_rnn_check_reserved(const void *desc, const void *data, const char *what)
{
    if (desc != NULL || data != NULL)
        return FDNN_NOT_SUPPORTED("%s is reserved for attention in cuDNN 8.9 and must be NULL", what);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_rnn_problem_ex(cudnnRNNDescriptor_t rnnDesc, cudnnRNNDataDescriptor_t xDesc, const char *xname,
                    cudnnRNNDataDescriptor_t yDesc, fdnn_rnn_problem_t *p)
{
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(xDesc, xname));
    /* A v6 descriptor has no input size: xDesc gives it. */
    if (rnnDesc->input_size > 0 && rnnDesc->input_size != xDesc->vector_size)
        return FDNN_BAD_PARAM("%s vectorSize is %d, the RNN descriptor's input size is %d", xname,
                              xDesc->vector_size, rnnDesc->input_size);
    RETURN_IF_ERROR(fdnn_rnn_problem_init(rnnDesc, xDesc->vector_size, p));
    /* The descriptor's own lengths stand for devSeqLengths, which the *Ex
     * calls do not take. */
    return fdnn_rnn_problem_seq(rnnDesc, xDesc->seq_lengths, xDesc, yDesc, p);
}

/* Order of the checks: the reserved hooks (in the callers), the RNN and data
 * descriptors, the state descriptors, wDesc, the buffers, the spaces. */
cudnnStatus_t
fdnn_rnn_ex_forward(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const cudnnRNNDataDescriptor_t xDesc,
                    const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx,
                    const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc,
                    const void *w, const cudnnRNNDataDescriptor_t yDesc, void *y,
                    const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy,
                    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes,
                    bool training)
{
    fdnn_rnn_problem_t p;
    RETURN_IF_ERROR(fdnn_rnn_problem_ex(rnnDesc, xDesc, "xDesc", yDesc, &p));
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(yDesc, "yDesc"));
    RETURN_IF_ERROR(fdnn_rnn_check_states(&p, hxDesc, cxDesc, true));
    RETURN_IF_ERROR(fdnn_rnn_check_states(&p, hyDesc, cyDesc, true));
    RETURN_IF_ERROR(fdnn_rnn_check_wdesc(&p, wDesc, "wDesc"));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(w);
    size_t need_ws = fdnn_rnn_workspace_bytes(&p, training);
    if (workSpaceSizeInBytes < need_ws)
        return FDNN_BAD_PARAM("workSpaceSizeInBytes is %zu, needs %zu (cudnnGetRNNWorkspaceSize)",
                              workSpaceSizeInBytes, need_ws);
    RETURN_IF_NULL(workSpace);
    if (training) {
        size_t need_rs = fdnn_rnn_reserve_bytes(&p);
        if (reserveSpaceSizeInBytes < need_rs)
            return FDNN_BAD_PARAM("reserveSpaceSizeInBytes is %zu, needs %zu (cudnnGetRNNTrainingReserveSize)",
                                  reserveSpaceSizeInBytes, need_rs);
        RETURN_IF_NULL(reserveSpace);
        RETURN_IF_ERROR(fdnn_rnn_training_dropout(rnnDesc, &p));
    }
    bool lstm = p.cell == CUDNN_LSTM;
    fdnn_rnn_ctx_t ctx = {fdnn_handle_pool(handle), handle->isa, handle};
    if (!fdnn_rnn_forward(&ctx, &p, x, y, hx, hy, lstm ? cx : NULL, lstm ? cy : NULL, w, workSpace,
                          training ? reserveSpace : NULL))
        return FDNN_ALLOC_FAILED("out of memory for the GEMM packing buffers");
    fdnn_rnn_fill_padding(&p, yDesc, y);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnRNNForwardInferenceEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
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
                                    size_t workSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(kDesc, keys, "kDesc/keys"));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(cDesc, cAttn, "cDesc/cAttn"));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(iDesc, iAttn, "iDesc/iAttn"));
    RETURN_IF_ERROR(fdnn_rnn_check_reserved(qDesc, queries, "qDesc/queries"));
    return fdnn_rnn_ex_forward(handle, rnnDesc, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w, yDesc, y, hyDesc, hy,
                               cyDesc, cy, workSpace, workSpaceSizeInBytes, NULL, 0, false);
}
