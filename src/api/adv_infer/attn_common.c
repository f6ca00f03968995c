/* SPDX-License-Identifier: Apache-2.0
 * Checks shared by the multi-head attention operations (attn_common.h).
 *
 * Order of the descriptor checks (fdnn_attn_problem_init): each descriptor
 * in the order q, k, v, o (set, attnDesc's data type, VECT length); then the query
 * dims against attnDesc's maxima, the key time dim, the K batch/beam for
 * the query map, V against K, O against Q. */
#include "api/adv_infer/attn_common.h"

#include <string.h>

#include "core/dropout.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "cpu/attn/attn_bwd.h"
#include "cpu/simd/cvt.h"

void
fdnn_attn_shape_of(const struct cudnnAttnStruct *d, fdnn_attn_shape_t *s)
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

/* Estimated in double so the estimate itself cannot overflow (the
 * descriptor's fields are each up to INT_MAX).  `work` covers the
 * workspace and the reserve (probabilities: seqs * H * qT * kT). */
cudnnStatus_t
fdnn_attn_check_magnitudes(const struct cudnnAttnStruct *d)
{
    double H = d->n_heads, seqs = (double)d->max_batch_size * d->max_beam_size;
    double qP = d->q_proj_size > 0 ? d->q_proj_size : d->q_size, vP = d->v_proj_size > 0 ? d->v_proj_size : d->v_size;
    double oLen = d->o_proj_size > 0 ? d->o_proj_size : H * vP, big = 0x1p52;
    double weights = H * qP * ((double)d->q_size + d->k_size + 2) + H * vP * ((double)d->v_size + 1) +
                     oLen * (H * vP + 1);
    double tokens = seqs * ((double)d->qo_max_seq_length + d->kv_max_seq_length);
    double work = 2 * tokens * (2 * H * qP + 2 * H * vP + oLen) + seqs * H * (64.0 * d->kv_max_seq_length + 1e6) +
                  seqs * H * (double)d->qo_max_seq_length * d->kv_max_seq_length;
    /* The FP32 staging of HALF/BFLOAT16 data: two copies of the weights and
     * of every input (attn_stage.c). */
    work += 2 * weights + 2 * tokens * ((double)d->q_size + d->k_size + d->v_size + oLen);
    if (weights > big || work > big)
        return FDNN_GAP("attnDesc sizes are too large (about %.3g weight and %.3g workspace elements)",
                        weights, work);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_dropout(cudnnDropoutDescriptor_t dd, const char *what)
{
    if (dd == NULL)
        return CUDNN_STATUS_SUCCESS;
    if (dd->magic != FDNN_DROPOUT_MAGIC)
        return FDNN_BAD_PARAM("attnDesc's %s is not a dropout descriptor (destroyed?)", what);
    if (dd->is_set && dd->dropout > 0) {
        fdnn_dropout_state_t st;
        if (dd->states == NULL)
            return FDNN_BAD_PARAM("attnDesc's %s (rate %g) has no states buffer", what, (double)dd->dropout);
        memcpy(&st, dd->states, sizeof(st));
        if (st.magic != FDNN_DROPOUT_STATE_MAGIC)
            return FDNN_BAD_PARAM("attnDesc's %s states were never initialised by cudnnSetDropoutDescriptor", what);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* The rate of a dropout descriptor, 0 when absent or unset. */
static float
drop_rate(cudnnDropoutDescriptor_t dd)
{
    return dd != NULL && dd->magic == FDNN_DROPOUT_MAGIC && dd->is_set && dd->dropout > 0 ? dd->dropout : 0.0f;
}

/* Takes the next call of the dropout states (checked by check_dropout). */
static void
draw(cudnnDropoutDescriptor_t dd, uint64_t *seed, uint64_t *call)
{
    fdnn_dropout_state_t st;
    memcpy(&st, dd->states, sizeof(st));
    *seed = st.seed, *call = st.calls;
    st.calls++;
    memcpy(dd->states, &st, sizeof(st));
}

void
fdnn_attn_training_dropout(const struct cudnnAttnStruct *d, fdnn_attn_problem_t *p)
{
    p->attn_drop = drop_rate(d->attn_dropout);
    p->post_drop = drop_rate(d->post_dropout);
    if (p->attn_drop > 0)
        draw(d->attn_dropout, &p->attn_seed, &p->attn_call);
    if (p->post_drop > 0)
        draw(d->post_dropout, &p->post_seed, &p->post_call);
}

void
fdnn_attn_reserve_put_dropout(void *reserveSpace, const fdnn_attn_problem_t *p)
{
    fdnn_attn_reserve_header_t hd;
    memcpy(&hd, reserveSpace, sizeof(hd));
    hd.attn_seed = p->attn_seed, hd.attn_call = p->attn_call;
    hd.post_seed = p->post_seed, hd.post_call = p->post_call;
    memcpy(reserveSpace, &hd, sizeof(hd));
}

void
fdnn_attn_reserve_get_dropout(const void *reserveSpace, const struct cudnnAttnStruct *d, fdnn_attn_problem_t *p)
{
    fdnn_attn_reserve_header_t hd;
    memcpy(&hd, reserveSpace, sizeof(hd));
    p->attn_drop = drop_rate(d->attn_dropout);
    p->post_drop = drop_rate(d->post_dropout);
    p->attn_seed = hd.attn_seed, p->attn_call = hd.attn_call;
    p->post_seed = hd.post_seed, p->post_call = hd.post_call;
}

cudnnStatus_t
fdnn_attn_check_compute(const struct cudnnAttnStruct *d, bool training)
{
    /* cuDNN 8.9's pairs (cudnnSetAttnDescriptor refuses the others). */
    cudnnDataType_t dt = d->data_type, cp = d->compute_prec;
    bool ok = (dt == CUDNN_DATA_FLOAT && cp == CUDNN_DATA_FLOAT) ||
              (dt == CUDNN_DATA_DOUBLE && cp == CUDNN_DATA_DOUBLE) ||
              (dt == CUDNN_DATA_HALF && (cp == CUDNN_DATA_HALF || cp == CUDNN_DATA_FLOAT)) ||
              (dt == CUDNN_DATA_BFLOAT16 && cp == CUDNN_DATA_FLOAT);
    if (!ok)
        return FDNN_NOT_SUPPORTED("attnDesc is %s data with %s compute, not a pair cuDNN supports",
                                  fdnn_dtype_name(dt), fdnn_dtype_name(cp));
    if (training) {
        RETURN_IF_ERROR(check_dropout(d->attn_dropout, "attnDropoutDesc"));
        RETURN_IF_ERROR(check_dropout(d->post_dropout, "postDropoutDesc"));
    }
    return CUDNN_STATUS_SUCCESS;
}

/* The largest problem the descriptor allows (K/V counted with every beam). */
static fdnn_attn_sizes_t
max_sizes(const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s)
{
    int64_t seqs = (int64_t)d->max_batch_size * d->max_beam_size;
    return (fdnn_attn_sizes_t){.esize = d->data_type == CUDNN_DATA_DOUBLE ? 8 : 4, .H = s->H, .qP = s->qP, .vP = s->vP, .oLen = s->oLen, .q_proj = s->q_proj,
                               .k_proj = s->k_proj, .v_proj = s->v_proj, .o_proj = s->o_proj,
                               .nq = seqs * d->qo_max_seq_length, .nk = seqs * d->kv_max_seq_length, .seqs = seqs,
                               .qT = d->qo_max_seq_length, .kT = d->kv_max_seq_length,
                               .attn_drop = drop_rate(d->attn_dropout) > 0, .post_drop = drop_rate(d->post_dropout) > 0,
                               .staged = d->data_type == CUDNN_DATA_HALF || d->data_type == CUDNN_DATA_BFLOAT16,
                               .qS = d->q_size, .kS = d->k_size, .vS = d->v_size, .nw = s->total};
}

size_t
fdnn_attn_api_workspace_bytes(cudnnHandle_t handle, const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s)
{
    fdnn_attn_sizes_t z = max_sizes(d, s);
    size_t fwd = fdnn_attn_workspace_bytes(&z, handle->isa), bwd = fdnn_attn_bwd_workspace_bytes(&z, handle->isa);
    return fwd > bwd ? fwd : bwd;
}

size_t
fdnn_attn_api_reserve_bytes(const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s)
{
    fdnn_attn_sizes_t z = max_sizes(d, s);
    return fdnn_attn_reserve_layout(&z, NULL, NULL);
}

static cudnnStatus_t
check_seq(cudnnSeqDataDescriptor_t desc, const char *what, cudnnDataType_t dtype, int vect_want,
          const char *vect_name)
{
    RETURN_IF_ERROR(fdnn_seqdata_desc_check(desc, what));
    if (desc->data_type != dtype)
        return FDNN_BAD_PARAM("%s is %s, attnDesc's data type is %s", what, fdnn_dtype_name(desc->data_type),
                              fdnn_dtype_name(dtype));
    int vect = desc->dims[CUDNN_SEQDATA_VECT_DIM];
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
fdnn_attn_problem_init(const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s, const fdnn_attn_seqs_t *x,
                       fdnn_attn_problem_t *p)
{
    const char *const *n = x->names;
    RETURN_IF_ERROR(check_seq(x->q, n[0], d->data_type, d->q_size, "qSize"));
    RETURN_IF_ERROR(check_seq(x->k, n[1], d->data_type, d->k_size, "kSize"));
    RETURN_IF_ERROR(check_seq(x->v, n[2], d->data_type, d->v_size, "vSize"));
    RETURN_IF_ERROR(check_seq(x->o, n[3], d->data_type, s->oLen, "the output length"));
    int qT = x->q->dims[CUDNN_SEQDATA_TIME_DIM], batch = x->q->dims[CUDNN_SEQDATA_BATCH_DIM];
    int beam = x->q->dims[CUDNN_SEQDATA_BEAM_DIM], kT = x->k->dims[CUDNN_SEQDATA_TIME_DIM];
    bool one_to_one = (d->attn_mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) != 0;
    int kv_beam = one_to_one ? beam : 1;
    if (batch > d->max_batch_size || beam > d->max_beam_size || qT > d->qo_max_seq_length)
        return FDNN_BAD_PARAM("%s (time %d, batch %d, beam %d) exceeds attnDesc's limits (%d, %d, %d)", n[0], qT,
                              batch, beam, d->qo_max_seq_length, d->max_batch_size, d->max_beam_size);
    if (kT > d->kv_max_seq_length)
        return FDNN_BAD_PARAM("%s time dim %d exceeds attnDesc kvMaxSeqLength %d", n[1], kT, d->kv_max_seq_length);
    if (x->k->dims[CUDNN_SEQDATA_BATCH_DIM] != batch || x->k->dims[CUDNN_SEQDATA_BEAM_DIM] != kv_beam)
        return FDNN_BAD_PARAM("%s has batch %d beam %d, expected batch %d beam %d (%s)", n[1],
                              x->k->dims[CUDNN_SEQDATA_BATCH_DIM], x->k->dims[CUDNN_SEQDATA_BEAM_DIM], batch,
                              kv_beam, one_to_one ? "QUERYMAP_ONE_TO_ONE" : "QUERYMAP_ALL_TO_ONE");
    if (!same_outer(x->k, x->v))
        return FDNN_BAD_PARAM("%s differs from %s in time, batch, beam or sequence lengths", n[2], n[1]);
    if (memcmp(x->k->axes, x->v->axes, sizeof(x->k->axes)) != 0)
        return FDNN_NOT_SUPPORTED("%s and %s have different axis orders", n[2], n[1]);
    if (!same_outer(x->q, x->o))
        return FDNN_BAD_PARAM("%s differs from %s in time, batch, beam or sequence lengths", n[3], n[0]);
    *p = (fdnn_attn_problem_t){
        .dtype = d->data_type, .cprec = d->compute_prec,
        .tensor_op = d->math_type == CUDNN_TENSOR_OP_MATH || d->math_type == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION,
        .H = s->H,
        .scaler = d->data_type == CUDNN_DATA_DOUBLE ? d->sm_scaler : (double)(float)d->sm_scaler, .one_to_one = one_to_one, .qS = d->q_size, .kS = d->k_size,
        .vS = d->v_size, .qP = s->qP, .vP = s->vP, .q_proj = s->q_proj, .k_proj = s->k_proj, .v_proj = s->v_proj,
        .o_proj = s->o_proj, .oLen = s->oLen, .batch = batch, .beam = beam, .kv_beam = kv_beam, .qT = qT, .kT = kT,
        .nq = rows_of(x->q), .nk = rows_of(x->k), .no = rows_of(x->o), .q_len = x->q->seq_lengths,
        .k_len = x->k->seq_lengths};
    row_strides(x->q, p->q_st);
    row_strides(x->k, p->k_st);
    row_strides(x->o, p->o_st);
    return CUDNN_STATUS_SUCCESS;
}

double
fdnn_attn_fill_value(cudnnSeqDataDescriptor_t desc)
{
    uint16_t h;
    float f;
    double v;
    switch (desc->data_type) {
    case CUDNN_DATA_DOUBLE: memcpy(&v, desc->padding_fill, sizeof(v)); return v;
    case CUDNN_DATA_HALF: memcpy(&h, desc->padding_fill, sizeof(h)); return fdnn_f16_to_f32(h);
    case CUDNN_DATA_BFLOAT16: memcpy(&h, desc->padding_fill, sizeof(h)); return fdnn_bf16_to_f32(h);
    default: memcpy(&f, desc->padding_fill, sizeof(f)); return f;
    }
}

void
fdnn_attn_problem_weights(fdnn_attn_problem_t *p, const fdnn_attn_shape_t *s, const void *w)
{
    size_t es = fdnn_dtype_size(p->dtype);
#define W(kind) (s->n_w[kind] ? (const char *)w + (size_t)s->off[kind] * es : NULL)
    p->wq = W(CUDNN_MH_ATTN_Q_WEIGHTS), p->wk = W(CUDNN_MH_ATTN_K_WEIGHTS);
    p->wv = W(CUDNN_MH_ATTN_V_WEIGHTS), p->wo = W(CUDNN_MH_ATTN_O_WEIGHTS);
    p->bq = W(CUDNN_MH_ATTN_Q_BIASES), p->bk = W(CUDNN_MH_ATTN_K_BIASES);
    p->bv = W(CUDNN_MH_ATTN_V_BIASES), p->bo = W(CUDNN_MH_ATTN_O_BIASES);
#undef W
}

cudnnStatus_t
fdnn_attn_check_lengths(const int *devSeqLengths, cudnnSeqDataDescriptor_t desc, const char *what,
                        const char *desc_name)
{
    if (devSeqLengths == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (memcmp(devSeqLengths, desc->seq_lengths, desc->seq_lengths_size * sizeof(int)) != 0)
        return FDNN_BAD_PARAM("%s differs from the sequence lengths of %s", what, desc_name);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_attn_check_spaces(cudnnHandle_t handle, const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s,
                       size_t weightSizeInBytes, const void *weights, const char *wname, size_t workSpaceSizeInBytes,
                       const void *workSpace)
{
    size_t wneed = (size_t)s->total * fdnn_dtype_size(d->data_type), need = fdnn_attn_api_workspace_bytes(handle, d, s);
    if (weightSizeInBytes < wneed)
        return FDNN_BAD_PARAM("weightSizeInBytes is %zu, attnDesc needs %zu", weightSizeInBytes, wneed);
    if (wneed > 0 && weights == NULL)
        return FDNN_BAD_PARAM("%s is NULL", wname);
    if (workSpaceSizeInBytes < need)
        return FDNN_BAD_PARAM("workSpaceSizeInBytes is %zu, attnDesc needs %zu", workSpaceSizeInBytes, need);
    if (need > 0 && workSpace == NULL)
        return FDNN_BAD_PARAM("workSpace is NULL");
    return CUDNN_STATUS_SUCCESS;
}

/* FNV-1a, 64 bits. */
static uint64_t
fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *c = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

#define FNV_START 0xcbf29ce484222325ull

uint64_t
fdnn_attn_shape_hash(const struct cudnnAttnStruct *d, const fdnn_attn_seqs_t *x)
{
    int fields[] = {(int)d->attn_mode, d->n_heads, d->q_size, d->k_size, d->v_size, d->q_proj_size, d->k_proj_size,
                    d->v_proj_size, d->o_proj_size};
    uint64_t h = fnv(FNV_START, fields, sizeof(fields));
    h = fnv(h, &d->sm_scaler, sizeof(d->sm_scaler));
    const struct cudnnSeqDataStruct *seqs[4] = {x->q, x->k, x->v, x->o};
    for (int i = 0; i < 4; i++) {
        h = fnv(h, seqs[i]->dims, sizeof(seqs[i]->dims));
        h = fnv(h, seqs[i]->axes, sizeof(seqs[i]->axes));
        h = fnv(h, seqs[i]->seq_lengths, seqs[i]->seq_lengths_size * sizeof(int));
    }
    return h;
}

uint64_t
fdnn_attn_window_hash(const int *lo, const int *hi, int qT)
{
    return fnv(fnv(FNV_START, lo, (size_t)qT * sizeof(int)), hi, (size_t)qT * sizeof(int));
}

cudnnStatus_t
fdnn_attn_check_reserve_space(const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s,
                              size_t reserveSpaceSizeInBytes, const void *reserveSpace)
{
    size_t need = fdnn_attn_api_reserve_bytes(d, s);
    if (reserveSpaceSizeInBytes < need)
        return FDNN_BAD_PARAM("reserveSpaceSizeInBytes is %zu, attnDesc needs %zu", reserveSpaceSizeInBytes, need);
    if (reserveSpace == NULL)
        return FDNN_BAD_PARAM("reserveSpace is NULL");
    if ((uintptr_t)reserveSpace % sizeof(float) != 0)
        return FDNN_BAD_PARAM("reserveSpace (%p) is not 4-byte aligned", reserveSpace);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_attn_check_reserve_stage(const void *reserveSpace, uint64_t stage, uint64_t shape_hash, bool check_win,
                              uint64_t window_hash)
{
    fdnn_attn_reserve_header_t hd;
    memcpy(&hd, reserveSpace, sizeof(hd)); /* the caller's buffer may be only 4-byte aligned */
    if (hd.magic != FDNN_ATTN_RESERVE_MAGIC || hd.stage < FDNN_ATTN_STAGE_FORWARD)
        return FDNN_BAD_PARAM("reserveSpace was not filled by a training cudnnMultiHeadAttnForward");
    if (hd.stage < stage)
        return FDNN_BAD_PARAM("cudnnMultiHeadAttnBackwardData must run on reserveSpace (after the forward) "
                              "before cudnnMultiHeadAttnBackwardWeights");
    if (hd.shape_hash != shape_hash)
        return FDNN_BAD_PARAM("reserveSpace was filled with other descriptors (attention, sizes, layouts or lengths "
                              "differ)");
    if (check_win && hd.window_hash != window_hash)
        return FDNN_BAD_PARAM("loWinIdx/hiWinIdx differ from the forward's that filled reserveSpace");
    return CUDNN_STATUS_SUCCESS;
}

void
fdnn_attn_write_reserve_header(void *reserveSpace, uint64_t stage, uint64_t shape_hash, uint64_t window_hash)
{
    fdnn_attn_reserve_header_t hd;
    memcpy(&hd, reserveSpace, sizeof(hd)); /* keeps the dropout streams */
    hd.magic = FDNN_ATTN_RESERVE_MAGIC, hd.stage = stage, hd.shape_hash = shape_hash, hd.window_hash = window_hash;
    memcpy(reserveSpace, &hd, sizeof(hd));
}
