/* SPDX-License-Identifier: Apache-2.0
 * The legacy RNN interface of adv_infer (deprecated in 8.x, removed in 9,
 * still imported by PyTorch builds against 8.9): cudnnGetRNNParamsSize,
 * cudnnGetRNNWorkspaceSize, cudnnGetRNNTrainingReserveSize,
 * cudnnGetRNNLinLayerMatrixParams / BiasParams and cudnnRNNForwardInference,
 * mapped onto the v8 implementation (src/cpu/rnn): per-step descriptors form
 * a SEQ_MAJOR_PACKED sequence set, the weights are the same weight space. */
#include <stdlib.h>

#include "api/adv_infer/rnn_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"

cudnnStatus_t
fdnn_api_cudnnGetRNNParamsSize(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                               const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes, cudnnDataType_t dataType)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    int *lens;
    RETURN_IF_ERROR(fdnn_rnn_problem_legacy_x(rnnDesc, 1, &xDesc, &p, &lens));
    free(lens);
    RETURN_IF_NULL(sizeInBytes);
    if (dataType != p.dtype)
        return FDNN_BAD_PARAM("dataType %s differs from the RNN data type %s", fdnn_dtype_name(dataType),
                              fdnn_dtype_name(p.dtype));
    *sizeInBytes = fdnn_rnn_weight_bytes(&p);
    return CUDNN_STATUS_SUCCESS;
}

/* Both legacy forward calls share this workspace: the larger of the
 * inference and training needs. */
cudnnStatus_t
fdnn_api_cudnnGetRNNWorkspaceSize(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                                  const cudnnTensorDescriptor_t *xDesc, size_t *sizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    int *lens;
    RETURN_IF_ERROR(fdnn_rnn_problem_legacy_x(rnnDesc, seqLength, xDesc, &p, &lens));
    size_t a = fdnn_rnn_workspace_bytes(&p, false), b = fdnn_rnn_workspace_bytes(&p, true);
    free(lens);
    RETURN_IF_NULL(sizeInBytes);
    *sizeInBytes = a > b ? a : b;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetRNNTrainingReserveSize(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                        const int seqLength, const cudnnTensorDescriptor_t *xDesc,
                                        size_t *sizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    int *lens;
    RETURN_IF_ERROR(fdnn_rnn_problem_legacy_x(rnnDesc, seqLength, xDesc, &p, &lens));
    size_t r = fdnn_rnn_reserve_bytes(&p);
    free(lens);
    RETURN_IF_NULL(sizeInBytes);
    *sizeInBytes = r;
    return CUDNN_STATUS_SUCCESS;
}

/* Shared by the matrix and bias queries: offset in elements of the matrix (or
 * bias) of linLayerID, -1 when it does not exist; rows/cols of it. */
static cudnnStatus_t
lin_layer(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int pseudoLayer, cudnnTensorDescriptor_t xDesc,
          cudnnFilterDescriptor_t wDesc, const void *w, int linLayerID, cudnnFilterDescriptor_t outDesc,
          const char *outName, void **out, bool bias)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    int *lens;
    RETURN_IF_ERROR(fdnn_rnn_problem_legacy_x(rnnDesc, 1, &xDesc, &p, &lens));
    free(lens);
    RETURN_IF_ERROR(fdnn_rnn_check_wdesc(&p, wDesc, "wDesc"));
    RETURN_IF_NULL(w);
    int64_t pseudo_layers = (int64_t)p.layers * p.dirs; /* past INT_MAX for INT_MAX bidirectional layers */
    if (pseudoLayer < 0 || pseudoLayer >= pseudo_layers)
        return FDNN_BAD_PARAM("pseudoLayer is %d, expected 0 to %lld", pseudoLayer, (long long)pseudo_layers - 1);
    int max_id = p.cell == CUDNN_LSTM ? 8 : 2 * p.gates - 1;
    if (linLayerID < 0 || linLayerID > max_id)
        return FDNN_BAD_PARAM("linLayerID is %d, expected 0 to %d for this cell", linLayerID, max_id);
    if (outDesc == NULL || outDesc->magic != FDNN_FILTER_MAGIC)
        return FDNN_BAD_PARAM("%s is not a created filter descriptor", outName);
    RETURN_IF_NULL(out);
    fdnn_rnn_wofs_t o;
    fdnn_rnn_weight_offsets(&p, pseudoLayer, &o);
    int g = p.gates, H = (int)p.hidden, rows = H, cols = bias ? 1 : (int)p.proj;
    int64_t ofs = -1;
    if (linLayerID < g) {
        ofs = bias ? (o.bw >= 0 ? o.bw + (int64_t)linLayerID * H : -1)
                   : (o.w >= 0 ? o.w + (int64_t)linLayerID * H * o.in : -1);
        cols = bias ? 1 : (int)o.in;
    } else if (linLayerID < 2 * g) {
        ofs = bias ? (o.br >= 0 ? o.br + (int64_t)(linLayerID - g) * H : -1)
                   : o.r + (int64_t)(linLayerID - g) * H * p.proj;
    } else if (!bias) { /* LSTM 8: the recurrent projection [P][H], no bias */
        ofs = o.pm;
        rows = (int)p.proj, cols = H;
    }
    /* [1, rows, cols] (all zero for a matrix or bias that does not exist). */
    outDesc->dtype = p.dtype;
    outDesc->format = CUDNN_TENSOR_NCHW;
    outDesc->nb_dims = 3;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        outDesc->dims[i] = 0;
    if (ofs >= 0)
        outDesc->dims[0] = 1, outDesc->dims[1] = rows, outDesc->dims[2] = cols;
    outDesc->is_set = true;
    *out = ofs >= 0 ? (void *)((const char *)w + (size_t)ofs * fdnn_dtype_size(p.dtype)) : NULL;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetRNNLinLayerMatrixParams(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                         const int pseudoLayer, const cudnnTensorDescriptor_t xDesc,
                                         const cudnnFilterDescriptor_t wDesc, const void *w, const int linLayerID,
                                         cudnnFilterDescriptor_t linLayerMatDesc, void **linLayerMat)
{
    return lin_layer(handle, rnnDesc, pseudoLayer, xDesc, wDesc, w, linLayerID, linLayerMatDesc, "linLayerMatDesc",
                     linLayerMat, false);
}

cudnnStatus_t
fdnn_api_cudnnGetRNNLinLayerBiasParams(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                       const int pseudoLayer, const cudnnTensorDescriptor_t xDesc,
                                       const cudnnFilterDescriptor_t wDesc, const void *w, const int linLayerID,
                                       cudnnFilterDescriptor_t linLayerBiasDesc, void **linLayerBias)
{
    return lin_layer(handle, rnnDesc, pseudoLayer, xDesc, wDesc, w, linLayerID, linLayerBiasDesc,
                     "linLayerBiasDesc", linLayerBias, true);
}

cudnnStatus_t
fdnn_rnn_legacy_forward(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                        const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
                        const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx,
                        const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t *yDesc,
                        void *y, const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc,
                        void *cy, void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
                        size_t reserveSpaceSizeInBytes, bool training)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_problem_t p;
    int *lens;
    RETURN_IF_ERROR(fdnn_rnn_problem_legacy(rnnDesc, seqLength, xDesc, yDesc, &p, &lens));
    cudnnStatus_t st = fdnn_rnn_check_states(&p, hxDesc, cxDesc, true);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_rnn_check_states(&p, hyDesc, cyDesc, true);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_rnn_check_wdesc(&p, wDesc, "wDesc");
    if (st == CUDNN_STATUS_SUCCESS && (x == NULL || y == NULL || w == NULL || workSpace == NULL))
        st = FDNN_BAD_PARAM("%s is NULL", x == NULL ? "x" : y == NULL ? "y" : w == NULL ? "w" : "workSpace");
    size_t need_ws = fdnn_rnn_workspace_bytes(&p, training);
    if (st == CUDNN_STATUS_SUCCESS && workSpaceSizeInBytes < need_ws)
        st = FDNN_BAD_PARAM("workSpaceSizeInBytes is %zu, needs %zu (cudnnGetRNNWorkspaceSize)", workSpaceSizeInBytes,
                            need_ws);
    size_t need_rs = fdnn_rnn_reserve_bytes(&p);
    if (st == CUDNN_STATUS_SUCCESS && training && (reserveSpace == NULL || reserveSpaceSizeInBytes < need_rs))
        st = FDNN_BAD_PARAM("reserveSpace is NULL or reserveSpaceSizeInBytes (%zu) below %zu", reserveSpaceSizeInBytes,
                            need_rs);
    if (st == CUDNN_STATUS_SUCCESS && training)
        st = fdnn_rnn_training_dropout(rnnDesc, &p);
    if (st == CUDNN_STATUS_SUCCESS) {
        bool lstm = p.cell == CUDNN_LSTM;
        fdnn_rnn_ctx_t ctx = {fdnn_handle_pool(handle), handle->isa, handle};
        if (!fdnn_rnn_forward(&ctx, &p, x, y, hx, hy, lstm ? cx : NULL, lstm ? cy : NULL, w, workSpace,
                              training ? reserveSpace : NULL))
            st = FDNN_ALLOC_FAILED("out of memory for the GEMM packing buffers");
    }
    free(lens);
    return st;
}

cudnnStatus_t
fdnn_api_cudnnRNNForwardInference(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                                  const cudnnTensorDescriptor_t *xDesc, const void *x,
                                  const cudnnTensorDescriptor_t hxDesc, const void *hx,
                                  const cudnnTensorDescriptor_t cxDesc, const void *cx,
                                  const cudnnFilterDescriptor_t wDesc, const void *w,
                                  const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc,
                                  void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy, void *workSpace,
                                  size_t workSpaceSizeInBytes)
{
    return fdnn_rnn_legacy_forward(handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w, yDesc, y,
                                   hyDesc, hy, cyDesc, cy, workSpace, workSpaceSizeInBytes, NULL, 0, false);
}
