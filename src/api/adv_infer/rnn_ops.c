/* SPDX-License-Identifier: Apache-2.0
 * The v8 RNN operations of adv_infer: cudnnGetRNNWeightSpaceSize,
 * cudnnGetRNNTempSpaceSizes, cudnnGetRNNWeightParams, cudnnRNNForward.
 * FP32, FP64, and HALF/BFLOAT16 staged through FP32 (src/cpu/rnn/rnn_stage.c), with the LSTM recurrent
 * projection and dropout between layers in training.  The weight-space layout is in
 * src/cpu/rnn/rnn.h; docs/rnn.md has the semantics. */
#include <string.h>

#include "api/adv_infer/rnn_common.h"
#include "api_impl.h"
#include "core/ckd.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"

cudnnStatus_t
fdnn_api_cudnnGetRNNWeightSpaceSize(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, size_t *weightSpaceSize)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    RETURN_IF_ERROR(fdnn_rnn_problem_init(rnnDesc, 0, &p));
    RETURN_IF_NULL(weightSpaceSize);
    *weightSpaceSize = fdnn_rnn_weight_bytes(&p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetRNNTempSpaceSizes(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fMode,
                                   cudnnRNNDataDescriptor_t xDesc, size_t *workSpaceSize, size_t *reserveSpaceSize)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    RETURN_IF_ERROR(fdnn_rnn_problem_init(rnnDesc, 0, &p));
    if (fMode != CUDNN_FWD_MODE_INFERENCE && fMode != CUDNN_FWD_MODE_TRAINING)
        return FDNN_BAD_PARAM("fMode is %d, not a cudnnForwardMode_t", (int)fMode);
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(xDesc, "xDesc"));
    RETURN_IF_ERROR(fdnn_rnn_problem_seq_x(rnnDesc, xDesc, &p));
    if (workSpaceSize == NULL && reserveSpaceSize == NULL)
        return FDNN_BAD_PARAM("workSpaceSize and reserveSpaceSize are both NULL");
    bool training = fMode == CUDNN_FWD_MODE_TRAINING;
    if (workSpaceSize)
        *workSpaceSize = fdnn_rnn_workspace_bytes(&p, training);
    if (reserveSpaceSize)
        *reserveSpaceSize = training ? fdnn_rnn_reserve_bytes(&p) : 0;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
set_desc(cudnnTensorDescriptor_t desc, const char *what, cudnnDataType_t dtype, int nb, int rows, int cols)
{
    if (desc->magic != FDNN_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("%s is not a tensor descriptor (destroyed or never created)", what);
    int32_t elems;
    if (!fdnn_ckd_to_i32((int64_t)rows * cols, &elems))
        return FDNN_NOT_SUPPORTED("%s would describe a %d x %d matrix, more than a tensor descriptor's 2^31-1 "
                                  "elements",
                                  what, rows, cols);
    desc->dtype = dtype;
    desc->format = CUDNN_TENSOR_NCHW;
    desc->vect = 1;
    desc->nb_dims = nb;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        desc->dims[i] = 0, desc->strides[i] = 0;
    if (nb == 3) {
        desc->dims[0] = 1, desc->dims[1] = rows, desc->dims[2] = cols;
        desc->strides[0] = elems, desc->strides[1] = cols, desc->strides[2] = 1;
    }
    desc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* Matrix IDs: gates 0..g-1 input (W, [H][in]), g..2g-1 recurrent (R,
 * [H][P]); LSTM 8 is the recurrent projection [P][H] (0 dims and a NULL
 * address when projSize == hiddenSize, as cuDNN says for a disabled
 * projection).  Biases follow the same IDs: input IDs have bW, recurrent IDs
 * bR, each present or not according to the bias mode; the projection has
 * none. */
cudnnStatus_t
fdnn_api_cudnnGetRNNWeightParams(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer,
                                 size_t weightSpaceSize, const void *weightSpace, int32_t linLayerID,
                                 cudnnTensorDescriptor_t mDesc, void **mAddr, cudnnTensorDescriptor_t bDesc,
                                 void **bAddr)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    RETURN_IF_ERROR(fdnn_rnn_problem_init(rnnDesc, 0, &p));
    int64_t pseudo_layers = (int64_t)p.layers * p.dirs; /* past INT_MAX for INT_MAX bidirectional layers */
    if (pseudoLayer < 0 || pseudoLayer >= pseudo_layers)
        return FDNN_BAD_PARAM("pseudoLayer is %d, expected 0 to %lld", pseudoLayer, (long long)pseudo_layers - 1);
    int max_id = p.cell == CUDNN_LSTM ? 8 : 2 * p.gates - 1;
    if (linLayerID < 0 || linLayerID > max_id)
        return FDNN_BAD_PARAM("linLayerID is %d, expected 0 to %d for this cell", linLayerID, max_id);
    size_t need = fdnn_rnn_weight_bytes(&p);
    if (weightSpaceSize < need)
        return FDNN_BAD_PARAM("weightSpaceSize is %zu, the weight space needs %zu bytes", weightSpaceSize, need);
    RETURN_IF_NULL(weightSpace);
    if ((mDesc == NULL) != (mAddr == NULL) || (bDesc == NULL) != (bAddr == NULL))
        return FDNN_BAD_PARAM("mDesc/mAddr and bDesc/bAddr must be given (or NULL) in pairs");
    if (mDesc && mDesc->magic != FDNN_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("mDesc is not a tensor descriptor (destroyed or never created)");
    if (bDesc && bDesc->magic != FDNN_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("bDesc is not a tensor descriptor (destroyed or never created)");
    fdnn_rnn_wofs_t o;
    fdnn_rnn_weight_offsets(&p, pseudoLayer, &o);
    int g = p.gates, H = (int)p.hidden, rows = H;
    int64_t mofs = -1, bofs = -1;
    int cols = 0;
    if (linLayerID < g) {
        mofs = o.w >= 0 ? o.w + (int64_t)linLayerID * H * o.in : -1;
        cols = (int)o.in;
        bofs = o.bw >= 0 ? o.bw + (int64_t)linLayerID * H : -1;
    } else if (linLayerID < 2 * g) {
        mofs = o.r + (int64_t)(linLayerID - g) * H * p.proj;
        cols = (int)p.proj;
        bofs = o.br >= 0 ? o.br + (int64_t)(linLayerID - g) * H : -1;
    } else {
        mofs = o.pm; /* LSTM 8 */
        rows = (int)p.proj, cols = H;
    }
    const char *base = weightSpace;
    size_t es = fdnn_dtype_size(p.dtype);
    /* The offsets lie inside the weight space, whose size in bytes was
     * checked to fit (fdnn_rnn_problem_init), so the products cannot wrap. */
    if (mDesc) {
        RETURN_IF_ERROR(set_desc(mDesc, "mDesc", p.dtype, mofs >= 0 ? 3 : 0, rows, cols));
        *mAddr = mofs >= 0 ? (void *)(base + (size_t)mofs * es) : NULL;
    }
    if (bDesc) {
        RETURN_IF_ERROR(set_desc(bDesc, "bDesc", p.dtype, bofs >= 0 ? 3 : 0, H, 1));
        *bAddr = bofs >= 0 ? (void *)(base + (size_t)bofs * es) : NULL;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnRNNForward(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                         const int32_t *devSeqLengths, cudnnRNNDataDescriptor_t xDesc, const void *x,
                         cudnnRNNDataDescriptor_t yDesc, void *y, cudnnTensorDescriptor_t hDesc, const void *hx,
                         void *hy, cudnnTensorDescriptor_t cDesc, const void *cx, void *cy, size_t weightSpaceSize,
                         const void *weightSpace, size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
                         void *reserveSpace)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    RETURN_IF_ERROR(fdnn_rnn_problem_init(rnnDesc, 0, &p));
    if (fwdMode != CUDNN_FWD_MODE_INFERENCE && fwdMode != CUDNN_FWD_MODE_TRAINING)
        return FDNN_BAD_PARAM("fwdMode is %d, not a cudnnForwardMode_t", (int)fwdMode);
    bool training = fwdMode == CUDNN_FWD_MODE_TRAINING;
    RETURN_IF_ERROR(fdnn_rnn_problem_seq(rnnDesc, devSeqLengths, xDesc, yDesc, &p));
    RETURN_IF_ERROR(fdnn_rnn_check_states(&p, hDesc, cDesc, true));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    RETURN_IF_NULL(weightSpace);
    size_t need_w = fdnn_rnn_weight_bytes(&p);
    if (weightSpaceSize < need_w)
        return FDNN_BAD_PARAM("weightSpaceSize is %zu, needs %zu bytes", weightSpaceSize, need_w);
    size_t need_ws = fdnn_rnn_workspace_bytes(&p, training);
    if (workSpaceSize < need_ws)
        return FDNN_BAD_PARAM("workSpaceSize is %zu, needs %zu bytes (cudnnGetRNNTempSpaceSizes)", workSpaceSize,
                              need_ws);
    RETURN_IF_NULL(workSpace);
    if (training) {
        size_t need_rs = fdnn_rnn_reserve_bytes(&p);
        if (reserveSpaceSize < need_rs)
            return FDNN_BAD_PARAM("reserveSpaceSize is %zu, training needs %zu bytes", reserveSpaceSize, need_rs);
        RETURN_IF_NULL(reserveSpace);
        RETURN_IF_ERROR(fdnn_rnn_training_dropout(rnnDesc, &p));
    }
    fdnn_rnn_ctx_t ctx = {fdnn_handle_pool(handle), handle->isa, handle};
    if (!fdnn_rnn_forward(&ctx, &p, x, y, hx, hy, p.cell == CUDNN_LSTM ? cx : NULL,
                          p.cell == CUDNN_LSTM ? cy : NULL, weightSpace, workSpace,
                          training ? reserveSpace : NULL))
        return FDNN_ALLOC_FAILED("out of memory for the GEMM packing buffers");
    fdnn_rnn_fill_padding(&p, yDesc, y);
    return CUDNN_STATUS_SUCCESS;
}
