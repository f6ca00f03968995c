/* SPDX-License-Identifier: Apache-2.0
 * cudnnGetMultiHeadAttnBuffers, cudnnGetMultiHeadAttnWeights and
 * cudnnMultiHeadAttnForward, FP32, FP64, and HALF/BFLOAT16 staged through FP32.  Formulas and the weight layout:
 * src/cpu/attn/attn.h; docs/attention.md.
 *
 * Supported: the (dataType, computePrec) pairs of cuDNN 8.9: FLOAT/FLOAT,
 * DOUBLE/DOUBLE, HALF/HALF, HALF/FLOAT, BFLOAT16/FLOAT.  A
 * reserve space asks for training mode: the forward then keeps in it what
 * cudnnMultiHeadAttnBackwardData/Weights (adv_train/attn_bwd.c) need, plus
 * a header naming the descriptors and windows it was filled with and the
 * dropout streams it drew.  Dropout (attnDropoutDesc on the probabilities,
 * postDropoutDesc on the output before the residual) applies in training
 * only; each training forward advances the states of each dropout in use.  K and V must share one layout (axes) and
 * sequence lengths. */
#include <stdint.h>
#include <string.h>

#include "api_impl.h"
#include "core/attn_desc.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/seqdata_desc.h"
#include "core/tensor.h"
#include "api/adv_infer/attn_common.h"
#include "cpu/attn/attn.h"

cudnnStatus_t
fdnn_api_cudnnGetMultiHeadAttnBuffers(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                                      size_t *weightSizeInBytes, size_t *workSpaceSizeInBytes,
                                      size_t *reserveSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_attn_desc_check(attnDesc, "attnDesc"));
    RETURN_IF_NULL(weightSizeInBytes);
    RETURN_IF_NULL(workSpaceSizeInBytes);
    RETURN_IF_ERROR(fdnn_attn_check_magnitudes(attnDesc));
    fdnn_attn_shape_t s;
    fdnn_attn_shape_of(attnDesc, &s);
    *weightSizeInBytes = (size_t)s.total * fdnn_dtype_size(attnDesc->data_type);
    *workSpaceSizeInBytes = fdnn_attn_api_workspace_bytes(handle, attnDesc, &s);
    if (reserveSpaceSizeInBytes != NULL) /* NULL: the caller asks for inference sizes */
        *reserveSpaceSizeInBytes = fdnn_attn_api_reserve_bytes(attnDesc, &s);
    return CUDNN_STATUS_SUCCESS;
}

/* Describes one weight kind in wDesc: dims [H, rows, cols] with the strides
 * of attn.h's layout (biases: [H, P, 1]; O biases: [1, oLen, 1]). */
static cudnnStatus_t
describe(cudnnTensorDescriptor_t wDesc, const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s, int kind)
{
    int H = s->H, dims[3], strides[3];
    int P = kind == CUDNN_MH_ATTN_Q_WEIGHTS || kind == CUDNN_MH_ATTN_K_WEIGHTS || kind == CUDNN_MH_ATTN_Q_BIASES ||
                    kind == CUDNN_MH_ATTN_K_BIASES
                ? s->qP
                : s->vP;
    int S = kind == CUDNN_MH_ATTN_Q_WEIGHTS ? d->q_size : kind == CUDNN_MH_ATTN_K_WEIGHTS ? d->k_size : d->v_size;
    switch (kind) {
    case CUDNN_MH_ATTN_Q_WEIGHTS:
    case CUDNN_MH_ATTN_K_WEIGHTS:
    case CUDNN_MH_ATTN_V_WEIGHTS:
        dims[0] = H, dims[1] = P, dims[2] = S;
        strides[0] = P, strides[1] = 1, strides[2] = H * P;
        break;
    case CUDNN_MH_ATTN_O_WEIGHTS:
        dims[0] = H, dims[1] = s->oLen, dims[2] = s->vP;
        strides[0] = s->vP * s->oLen, strides[1] = 1, strides[2] = s->oLen;
        break;
    case CUDNN_MH_ATTN_O_BIASES:
        dims[0] = 1, dims[1] = s->oLen, dims[2] = 1;
        strides[0] = s->oLen, strides[1] = 1, strides[2] = 1;
        break;
    default: /* Q, K, V biases */
        dims[0] = H, dims[1] = P, dims[2] = 1;
        strides[0] = P, strides[1] = 1, strides[2] = 1;
        break;
    }
    if (wDesc->magic != FDNN_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("wDesc is not a tensor descriptor (destroyed or never created)");
    /* filled in place: the strides are not the packed ones that
     * fdnn_tensor_set_packed writes */
    wDesc->dtype = d->data_type;
    wDesc->format = CUDNN_TENSOR_NCHW;
    wDesc->nb_dims = 3;
    wDesc->vect = 1;
    for (int i = 0; i < 3; i++)
        wDesc->dims[i] = dims[i], wDesc->strides[i] = strides[i];
    wDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetMultiHeadAttnWeights(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                                      cudnnMultiHeadAttnWeightKind_t wKind, size_t weightSizeInBytes,
                                      const void *weights, cudnnTensorDescriptor_t wDesc, void **wAddr)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_attn_desc_check(attnDesc, "attnDesc"));
    if ((unsigned)wKind >= CUDNN_ATTN_WKIND_COUNT)
        return FDNN_BAD_PARAM("wKind is %d, not a cudnnMultiHeadAttnWeightKind_t", (int)wKind);
    RETURN_IF_NULL(wAddr);
    RETURN_IF_ERROR(fdnn_attn_check_magnitudes(attnDesc));
    fdnn_attn_shape_t s;
    fdnn_attn_shape_of(attnDesc, &s);
    size_t esize = fdnn_dtype_size(attnDesc->data_type), need = (size_t)s.total * esize;
    if (weightSizeInBytes < need)
        return FDNN_BAD_PARAM("weightSizeInBytes is %zu, attnDesc needs %zu", weightSizeInBytes, need);
    if (need > 0 && weights == NULL)
        return FDNN_BAD_PARAM("weights is NULL");
    if (s.n_w[wKind] == 0) { /* projection or bias off: no such tensor */
        *wAddr = NULL;
        return CUDNN_STATUS_SUCCESS;
    }
    if (wDesc != NULL)
        RETURN_IF_ERROR(describe(wDesc, attnDesc, &s, (int)wKind));
    *wAddr = (char *)(uintptr_t)weights + (size_t)s.off[wKind] * esize;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- forward ---------------------------------------------------------------- */

cudnnStatus_t
fdnn_api_cudnnMultiHeadAttnForward(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, int currIdx,
                                   const int *loWinIdx, const int *hiWinIdx, const int *devSeqLengthsQO,
                                   const int *devSeqLengthsKV, const cudnnSeqDataDescriptor_t qDesc,
                                   const void *queries, const void *residuals, const cudnnSeqDataDescriptor_t kDesc,
                                   const void *keys, const cudnnSeqDataDescriptor_t vDesc, const void *values,
                                   const cudnnSeqDataDescriptor_t oDesc, void *out, size_t weightSizeInBytes,
                                   const void *weights, size_t workSpaceSizeInBytes, void *workSpace,
                                   size_t reserveSpaceSizeInBytes, void *reserveSpace)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_attn_desc_check(attnDesc, "attnDesc"));
    const struct cudnnAttnStruct *d = attnDesc;
    bool training = reserveSpace != NULL || reserveSpaceSizeInBytes != 0;
    RETURN_IF_ERROR(fdnn_attn_check_compute(d, training));
    RETURN_IF_ERROR(fdnn_attn_check_magnitudes(d));
    fdnn_attn_shape_t s;
    fdnn_attn_shape_of(d, &s);
    fdnn_attn_seqs_t x = {qDesc, kDesc, vDesc, oDesc, {"qDesc", "kDesc", "vDesc", "oDesc"}};
    fdnn_attn_problem_t p;
    RETURN_IF_ERROR(fdnn_attn_problem_init(d, &s, &x, &p));
    if (currIdx >= p.qT)
        return FDNN_BAD_PARAM("currIdx is %d, the query sequences have %d time steps", currIdx, p.qT);
    if (training && currIdx >= 0)
        return FDNN_BAD_PARAM("currIdx is %d; training (a reserve space) needs every time step (currIdx < 0)",
                              currIdx);
    RETURN_IF_NULL(loWinIdx);
    RETURN_IF_NULL(hiWinIdx);
    RETURN_IF_ERROR(fdnn_attn_check_lengths(devSeqLengthsQO, qDesc, "devSeqLengthsQO", "qDesc"));
    RETURN_IF_ERROR(fdnn_attn_check_lengths(devSeqLengthsKV, kDesc, "devSeqLengthsKV", "kDesc"));
    RETURN_IF_NULL(queries);
    RETURN_IF_NULL(keys);
    RETURN_IF_NULL(values);
    RETURN_IF_NULL(out);
    if (residuals != NULL && s.oLen != d->q_size)
        return FDNN_BAD_PARAM("residuals need the output length (%d) to equal qSize (%d)", s.oLen, d->q_size);
    RETURN_IF_ERROR(fdnn_attn_check_spaces(handle, d, &s, weightSizeInBytes, weights, "weights",
                                           workSpaceSizeInBytes, workSpace));
    if (training)
        RETURN_IF_ERROR(fdnn_attn_check_reserve_space(d, &s, reserveSpaceSizeInBytes, reserveSpace));
    const void *ptrs[] = {queries, keys, values, out, weights, workSpace, residuals};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++)
        if ((uintptr_t)ptrs[i] % sizeof(float) != 0)
            return FDNN_BAD_PARAM("a data or workspace pointer (%p) is not 4-byte aligned", ptrs[i]);

    fdnn_attn_problem_weights(&p, &s, weights);
    p.lo = loWinIdx, p.hi = hiWinIdx, p.curr = currIdx < 0 ? -1 : currIdx;
    p.fill = oDesc->has_padding_fill;
    if (p.fill)
        p.fill_value = fdnn_attn_fill_value(oDesc);
    if (training) { /* invalid until the forward completes */
        fdnn_attn_write_reserve_header(reserveSpace, 0, 0, 0);
        fdnn_attn_training_dropout(d, &p);
    }
    void *reserve = training ? reserveSpace : NULL;
    if (!fdnn_attn_forward(handle, &p, queries, residuals, keys, values, out, workSpace, reserve))
        return FDNN_ALLOC_FAILED("cannot allocate GEMM packing buffers");
    if (training)
        fdnn_attn_reserve_put_dropout(reserveSpace, &p);
    if (training)
        fdnn_attn_write_reserve_header(reserveSpace, FDNN_ATTN_STAGE_FORWARD, fdnn_attn_shape_hash(d, &x),
                                       fdnn_attn_window_hash(loWinIdx, hiWinIdx, p.qT));
    return CUDNN_STATUS_SUCCESS;
}
