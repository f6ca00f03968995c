/* SPDX-License-Identifier: Apache-2.0
 * cudnnGetMultiHeadAttnBuffers, cudnnGetMultiHeadAttnWeights and
 * cudnnMultiHeadAttnForward (inference), FP32.  Formulas and the weight
 * layout: src/cpu/attn/attn.h; docs/attention.md.
 *
 * Supported: dataType and computePrec FLOAT (others NOT_SUPPORTED);
 * inference only: a reserve space (training mode, which feeds the backward
 * functions FreeDNN does not implement) is NOT_SUPPORTED, and the reserve
 * size reported is 0; dropout is therefore never applied.  K and V must
 * share one layout (axes) and sequence lengths. */
#include <stdint.h>
#include <string.h>

#include "api_impl.h"
#include "core/attn_desc.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/seqdata_desc.h"
#include "core/tensor.h"
#include "cpu/attn/attn.h"

/* The sizes every function derives from the descriptor. */
typedef struct attn_shape {
    int H, qP, vP, oLen;
    bool q_proj, k_proj, v_proj, o_proj, biases;
    int64_t n_w[CUDNN_ATTN_WKIND_COUNT]; /* elements of each weight kind, 0 when absent */
    int64_t off[CUDNN_ATTN_WKIND_COUNT];
    int64_t total;
} attn_shape_t;

static void
shape_of(const struct cudnnAttnStruct *d, attn_shape_t *s)
{
    memset(s, 0, sizeof(*s));
    s->H = d->n_heads;
    s->q_proj = d->q_proj_size > 0, s->k_proj = d->k_proj_size > 0;
    s->v_proj = d->v_proj_size > 0, s->o_proj = d->o_proj_size > 0;
    s->biases = (d->attn_mode & CUDNN_ATTN_ENABLE_PROJ_BIASES) != 0;
    s->qP = s->q_proj ? d->q_proj_size : d->q_size;
    s->vP = s->v_proj ? d->v_proj_size : d->v_size;
    s->oLen = s->o_proj ? d->o_proj_size : s->H * s->vP;
    int64_t H = s->H;
    s->n_w[CUDNN_MH_ATTN_Q_WEIGHTS] = s->q_proj ? H * d->q_proj_size * d->q_size : 0;
    s->n_w[CUDNN_MH_ATTN_K_WEIGHTS] = s->k_proj ? H * d->k_proj_size * d->k_size : 0;
    s->n_w[CUDNN_MH_ATTN_V_WEIGHTS] = s->v_proj ? H * d->v_proj_size * d->v_size : 0;
    s->n_w[CUDNN_MH_ATTN_O_WEIGHTS] = s->o_proj ? (int64_t)d->o_proj_size * H * s->vP : 0;
    if (s->biases) {
        s->n_w[CUDNN_MH_ATTN_Q_BIASES] = s->q_proj ? H * d->q_proj_size : 0;
        s->n_w[CUDNN_MH_ATTN_K_BIASES] = s->k_proj ? H * d->k_proj_size : 0;
        s->n_w[CUDNN_MH_ATTN_V_BIASES] = s->v_proj ? H * d->v_proj_size : 0;
        s->n_w[CUDNN_MH_ATTN_O_BIASES] = s->o_proj ? d->o_proj_size : 0;
    }
    for (int k = 0; k < CUDNN_ATTN_WKIND_COUNT; k++) {
        s->off[k] = s->total;
        s->total += s->n_w[k];
    }
}

/* Sizes whose element counts do not fit comfortably in 64 bits (the
 * descriptor's fields are each up to INT_MAX) are NOT_SUPPORTED; estimated
 * in double so the estimate itself cannot overflow. */
static cudnnStatus_t
check_magnitudes(const struct cudnnAttnStruct *d)
{
    double H = d->n_heads, seqs = (double)d->max_batch_size * d->max_beam_size;
    double qP = d->q_proj_size > 0 ? d->q_proj_size : d->q_size, vP = d->v_proj_size > 0 ? d->v_proj_size : d->v_size;
    double oLen = d->o_proj_size > 0 ? d->o_proj_size : H * vP, big = 0x1p52;
    double weights = H * qP * ((double)d->q_size + d->k_size + 2) + H * vP * ((double)d->v_size + 1) +
                     oLen * (H * vP + 1);
    double tokens = seqs * ((double)d->qo_max_seq_length + d->kv_max_seq_length);
    double work = tokens * (2 * H * qP + 2 * H * vP + oLen) + seqs * H * (64.0 * d->kv_max_seq_length + 1e6);
    if (weights > big || work > big)
        return FDNN_NOT_SUPPORTED("attnDesc sizes are too large (about %.3g weight and %.3g workspace elements)",
                                  weights, work);
    return CUDNN_STATUS_SUCCESS;
}

static size_t
workspace_bytes(cudnnHandle_t handle, const struct cudnnAttnStruct *d, const attn_shape_t *s)
{
    int64_t seqs = (int64_t)d->max_batch_size * d->max_beam_size;
    return fdnn_attn_workspace_bytes(s->H, s->qP, s->vP, s->oLen, s->q_proj, s->k_proj, s->v_proj,
                                     seqs * d->qo_max_seq_length, seqs * d->kv_max_seq_length, seqs,
                                     d->kv_max_seq_length, handle->isa);
}

cudnnStatus_t
fdnn_api_cudnnGetMultiHeadAttnBuffers(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                                      size_t *weightSizeInBytes, size_t *workSpaceSizeInBytes,
                                      size_t *reserveSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_attn_desc_check(attnDesc, "attnDesc"));
    RETURN_IF_NULL(weightSizeInBytes);
    RETURN_IF_NULL(workSpaceSizeInBytes);
    RETURN_IF_ERROR(check_magnitudes(attnDesc));
    attn_shape_t s;
    shape_of(attnDesc, &s);
    *weightSizeInBytes = (size_t)s.total * fdnn_dtype_size(attnDesc->data_type);
    *workSpaceSizeInBytes = workspace_bytes(handle, attnDesc, &s);
    if (reserveSpaceSizeInBytes != NULL)
        *reserveSpaceSizeInBytes = 0; /* training mode is not supported (see the header) */
    return CUDNN_STATUS_SUCCESS;
}

/* Describes one weight kind in wDesc: dims [H, rows, cols] with the strides
 * of attn.h's layout (biases: [H, P, 1]; O biases: [1, oLen, 1]). */
static cudnnStatus_t
describe(cudnnTensorDescriptor_t wDesc, const struct cudnnAttnStruct *d, const attn_shape_t *s, int kind)
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
    RETURN_IF_ERROR(check_magnitudes(attnDesc));
    attn_shape_t s;
    shape_of(attnDesc, &s);
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

static cudnnStatus_t
check_seq(cudnnSeqDataDescriptor_t desc, const char *what, int vect, int vect_want, const char *vect_name)
{
    RETURN_IF_ERROR(fdnn_seqdata_desc_check(desc, what));
    if (desc->data_type != CUDNN_DATA_FLOAT)
        return FDNN_NOT_SUPPORTED("%s is %s; attention supports FLOAT only", what, fdnn_dtype_name(desc->data_type));
    if (vect != vect_want)
        return FDNN_BAD_PARAM("%s VECT dim is %d, expected %s = %d", what, vect, vect_name, vect_want);
    return CUDNN_STATUS_SUCCESS;
}

static void
row_strides(const struct cudnnSeqDataStruct *d, int64_t st[3])
{
    int64_t vect = d->dims[CUDNN_SEQDATA_VECT_DIM];
    st[0] = fdnn_seqdata_stride(d, CUDNN_SEQDATA_TIME_DIM) / vect;
    st[1] = fdnn_seqdata_stride(d, CUDNN_SEQDATA_BATCH_DIM) / vect;
    st[2] = fdnn_seqdata_stride(d, CUDNN_SEQDATA_BEAM_DIM) / vect;
}

static int64_t
rows_of(const struct cudnnSeqDataStruct *d)
{
    return (int64_t)d->dims[CUDNN_SEQDATA_TIME_DIM] * d->dims[CUDNN_SEQDATA_BATCH_DIM] *
           d->dims[CUDNN_SEQDATA_BEAM_DIM];
}

static bool
same_outer(const struct cudnnSeqDataStruct *a, const struct cudnnSeqDataStruct *b)
{
    return a->dims[CUDNN_SEQDATA_TIME_DIM] == b->dims[CUDNN_SEQDATA_TIME_DIM] &&
           a->dims[CUDNN_SEQDATA_BATCH_DIM] == b->dims[CUDNN_SEQDATA_BATCH_DIM] &&
           a->dims[CUDNN_SEQDATA_BEAM_DIM] == b->dims[CUDNN_SEQDATA_BEAM_DIM] &&
           memcmp(a->seq_lengths, b->seq_lengths, a->seq_lengths_size * sizeof(int)) == 0;
}

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
    if (d->data_type != CUDNN_DATA_FLOAT || d->compute_prec != CUDNN_DATA_FLOAT)
        return FDNN_NOT_SUPPORTED("attnDesc is %s data with %s compute; attention supports FLOAT/FLOAT only",
                                  fdnn_dtype_name(d->data_type), fdnn_dtype_name(d->compute_prec));
    if (reserveSpace != NULL || reserveSpaceSizeInBytes != 0)
        return FDNN_NOT_SUPPORTED("a reserve space asks for training mode; only inference (reserveSpace NULL, "
                                  "size 0) is supported");
    RETURN_IF_ERROR(check_magnitudes(d));
    attn_shape_t s;
    shape_of(d, &s);
    RETURN_IF_ERROR(check_seq(qDesc, "qDesc", qDesc ? qDesc->dims[CUDNN_SEQDATA_VECT_DIM] : 0, d->q_size, "qSize"));
    RETURN_IF_ERROR(check_seq(kDesc, "kDesc", kDesc ? kDesc->dims[CUDNN_SEQDATA_VECT_DIM] : 0, d->k_size, "kSize"));
    RETURN_IF_ERROR(check_seq(vDesc, "vDesc", vDesc ? vDesc->dims[CUDNN_SEQDATA_VECT_DIM] : 0, d->v_size, "vSize"));
    RETURN_IF_ERROR(check_seq(oDesc, "oDesc", oDesc ? oDesc->dims[CUDNN_SEQDATA_VECT_DIM] : 0, s.oLen,
                              "the output length"));
    int qT = qDesc->dims[CUDNN_SEQDATA_TIME_DIM], batch = qDesc->dims[CUDNN_SEQDATA_BATCH_DIM];
    int beam = qDesc->dims[CUDNN_SEQDATA_BEAM_DIM], kT = kDesc->dims[CUDNN_SEQDATA_TIME_DIM];
    bool one_to_one = (d->attn_mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) != 0;
    int kv_beam = one_to_one ? beam : 1;
    if (batch > d->max_batch_size || beam > d->max_beam_size || qT > d->qo_max_seq_length)
        return FDNN_BAD_PARAM("qDesc (time %d, batch %d, beam %d) exceeds attnDesc's limits (%d, %d, %d)", qT, batch,
                              beam, d->qo_max_seq_length, d->max_batch_size, d->max_beam_size);
    if (kT > d->kv_max_seq_length)
        return FDNN_BAD_PARAM("kDesc time dim %d exceeds attnDesc kvMaxSeqLength %d", kT, d->kv_max_seq_length);
    if (kDesc->dims[CUDNN_SEQDATA_BATCH_DIM] != batch || kDesc->dims[CUDNN_SEQDATA_BEAM_DIM] != kv_beam)
        return FDNN_BAD_PARAM("kDesc has batch %d beam %d, expected batch %d beam %d (%s)",
                              kDesc->dims[CUDNN_SEQDATA_BATCH_DIM], kDesc->dims[CUDNN_SEQDATA_BEAM_DIM], batch,
                              kv_beam, one_to_one ? "QUERYMAP_ONE_TO_ONE" : "QUERYMAP_ALL_TO_ONE");
    if (!same_outer(kDesc, vDesc))
        return FDNN_BAD_PARAM("vDesc differs from kDesc in time, batch, beam or sequence lengths");
    if (memcmp(kDesc->axes, vDesc->axes, sizeof(kDesc->axes)) != 0)
        return FDNN_NOT_SUPPORTED("vDesc and kDesc have different axis orders");
    if (!same_outer(qDesc, oDesc))
        return FDNN_BAD_PARAM("oDesc differs from qDesc in time, batch, beam or sequence lengths");
    if (currIdx >= qT)
        return FDNN_BAD_PARAM("currIdx is %d, the query sequences have %d time steps", currIdx, qT);
    RETURN_IF_NULL(loWinIdx);
    RETURN_IF_NULL(hiWinIdx);
    RETURN_IF_NULL(devSeqLengthsQO);
    RETURN_IF_NULL(devSeqLengthsKV);
    if (memcmp(devSeqLengthsQO, qDesc->seq_lengths, qDesc->seq_lengths_size * sizeof(int)) != 0)
        return FDNN_BAD_PARAM("devSeqLengthsQO differs from the sequence lengths of qDesc");
    if (memcmp(devSeqLengthsKV, kDesc->seq_lengths, kDesc->seq_lengths_size * sizeof(int)) != 0)
        return FDNN_BAD_PARAM("devSeqLengthsKV differs from the sequence lengths of kDesc");
    RETURN_IF_NULL(queries);
    RETURN_IF_NULL(keys);
    RETURN_IF_NULL(values);
    RETURN_IF_NULL(out);
    if (residuals != NULL && s.oLen != d->q_size)
        return FDNN_BAD_PARAM("residuals need the output length (%d) to equal qSize (%d)", s.oLen, d->q_size);
    size_t wneed = (size_t)s.total * sizeof(float), need = workspace_bytes(handle, d, &s);
    if (weightSizeInBytes < wneed)
        return FDNN_BAD_PARAM("weightSizeInBytes is %zu, attnDesc needs %zu", weightSizeInBytes, wneed);
    if (wneed > 0 && weights == NULL)
        return FDNN_BAD_PARAM("weights is NULL");
    if (workSpaceSizeInBytes < need)
        return FDNN_BAD_PARAM("workSpaceSizeInBytes is %zu, attnDesc needs %zu", workSpaceSizeInBytes, need);
    if (need > 0 && workSpace == NULL)
        return FDNN_BAD_PARAM("workSpace is NULL");
    const void *ptrs[] = {queries, keys, values, out, weights, workSpace, residuals};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++)
        if ((uintptr_t)ptrs[i] % sizeof(float) != 0)
            return FDNN_BAD_PARAM("a data or workspace pointer (%p) is not 4-byte aligned", ptrs[i]);

    const float *w = weights;
#define W(kind) (s.n_w[kind] ? w + s.off[kind] : NULL)
    fdnn_attn_problem_t p = {
        .H = s.H, .scaler = (float)d->sm_scaler, .one_to_one = one_to_one, .qS = d->q_size, .kS = d->k_size,
        .vS = d->v_size, .qP = s.qP, .vP = s.vP, .q_proj = s.q_proj, .k_proj = s.k_proj, .v_proj = s.v_proj,
        .o_proj = s.o_proj, .oLen = s.oLen, .batch = batch, .beam = beam, .kv_beam = kv_beam, .qT = qT, .kT = kT,
        .nq = rows_of(qDesc), .nk = rows_of(kDesc), .no = rows_of(oDesc), .q_len = qDesc->seq_lengths,
        .k_len = kDesc->seq_lengths, .lo = loWinIdx, .hi = hiWinIdx, .curr = currIdx < 0 ? -1 : currIdx,
        .wq = W(CUDNN_MH_ATTN_Q_WEIGHTS), .wk = W(CUDNN_MH_ATTN_K_WEIGHTS), .wv = W(CUDNN_MH_ATTN_V_WEIGHTS),
        .wo = W(CUDNN_MH_ATTN_O_WEIGHTS), .bq = W(CUDNN_MH_ATTN_Q_BIASES), .bk = W(CUDNN_MH_ATTN_K_BIASES),
        .bv = W(CUDNN_MH_ATTN_V_BIASES), .bo = W(CUDNN_MH_ATTN_O_BIASES), .fill = oDesc->has_padding_fill};
#undef W
    if (p.fill)
        memcpy(&p.fill_value, oDesc->padding_fill, sizeof(float));
    row_strides(qDesc, p.q_st);
    row_strides(kDesc, p.k_st);
    row_strides(oDesc, p.o_st);
    if (!fdnn_attn_forward(handle, &p, queries, residuals, keys, values, out, workSpace))
        return FDNN_ALLOC_FAILED("cannot allocate GEMM packing buffers");
    return CUDNN_STATUS_SUCCESS;
}
