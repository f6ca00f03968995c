/* SPDX-License-Identifier: Apache-2.0
 * Descriptor checks shared by the RNN operations; see rnn_common.h.  The
 * order of checks: RNN descriptor, then x/y data descriptors, then states. */
#include "api/adv_infer/rnn_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/dropout.h"
#include "core/fail.h"
#include "core/tensor.h"

cudnnStatus_t
fdnn_rnn_problem_init(cudnnRNNDescriptor_t rnnDesc, int64_t input, fdnn_rnn_problem_t *p)
{
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    const struct cudnnRNNStruct *d = rnnDesc;
    /* The (data, math) pairs of cuDNN 8.9: FLOAT/FLOAT, DOUBLE/DOUBLE,
     * HALF/HALF, HALF/FLOAT, BFLOAT16/FLOAT (cudnnSetRNNDescriptor_v8 refuses
     * the others; the v6 setter stores mathPrec as both). */
    bool same = d->math_prec == d->data_type;
    bool ok = (d->data_type == CUDNN_DATA_FLOAT && same) || (d->data_type == CUDNN_DATA_DOUBLE && same) ||
              (d->data_type == CUDNN_DATA_HALF && (same || d->math_prec == CUDNN_DATA_FLOAT)) ||
              (d->data_type == CUDNN_DATA_BFLOAT16 && d->math_prec == CUDNN_DATA_FLOAT);
    if (!ok)
        return FDNN_NOT_SUPPORTED("RNN data type %s with math precision %s is not supported",
                                  fdnn_dtype_name(d->data_type), fdnn_dtype_name(d->math_prec));
    memset(p, 0, sizeof(*p));
    p->dtype = d->data_type;
    p->mprec = d->math_prec;
    p->tensor_op = d->math_type == CUDNN_TENSOR_OP_MATH || d->math_type == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    p->cell = d->cell_mode;
    p->gates = d->cell_mode == CUDNN_LSTM ? 4 : d->cell_mode == CUDNN_GRU ? 3 : 1;
    p->dirs = d->dir_mode == CUDNN_BIDIRECTIONAL ? 2 : 1;
    p->layers = d->num_layers;
    p->input = input > 0 ? input : d->input_size;
    p->hidden = d->hidden_size;
    /* The descriptor setters allow projSize < hiddenSize for LSTM only. */
    p->proj = d->proj_size > 0 && d->proj_size < d->hidden_size ? d->proj_size : d->hidden_size;
    /* The rate sizes the reserve space; the random stream is read by a
     * training forward (fdnn_rnn_training_dropout). */
    cudnnDropoutDescriptor_t dd = d->dropout;
    if (p->layers > 1 && dd != NULL && dd->magic == FDNN_DROPOUT_MAGIC && dd->is_set && dd->dropout > 0.0f)
        p->drop = dd->dropout;
    if (p->input <= 0)
        return FDNN_BAD_PARAM("rnnDesc has no input size (set with cudnnSetRNNDescriptor_v6): use the legacy "
                              "functions that take xDesc");
    p->skip_input = d->input_mode == CUDNN_SKIP_INPUT;
    if (p->skip_input && p->input != p->hidden)
        return FDNN_BAD_PARAM("CUDNN_SKIP_INPUT needs inputSize (%lld) == hiddenSize (%lld)", (long long)p->input,
                              (long long)p->hidden);
    p->bias_w = d->bias_mode == CUDNN_RNN_DOUBLE_BIAS || d->bias_mode == CUDNN_RNN_SINGLE_INP_BIAS;
    p->bias_r = d->bias_mode == CUDNN_RNN_DOUBLE_BIAS || d->bias_mode == CUDNN_RNN_SINGLE_REC_BIAS;
    p->clip = d->cell_mode == CUDNN_LSTM && d->clip_mode == CUDNN_RNN_CLIP_MINMAX;
    p->clip_nan = d->clip_nan_opt == CUDNN_PROPAGATE_NAN;
    p->lclip = (float)d->lclip;
    p->rclip = (float)d->rclip;
    if (!fdnn_rnn_weight_sizes_fit(p))
        return FDNN_BAD_PARAM("the weight space of this RNN (%d layers x %d directions, %d gates, hidden %lld, "
                              "input %lld) overflows the address space",
                              p->layers, p->dirs, p->gates, (long long)p->hidden, (long long)p->input);
    return CUDNN_STATUS_SUCCESS;
}

/* The sizes that depend on the sequences (T, B set). */
static cudnnStatus_t
check_seq_sizes(const fdnn_rnn_problem_t *p)
{
    if (!fdnn_rnn_seq_sizes_fit(p))
        return FDNN_BAD_PARAM("the workspace, reserve or data of this RNN (maxSeqLength %lld x batch %lld, "
                              "hidden %lld, input %lld, %d layers) overflow the address space",
                              (long long)p->T, (long long)p->B, (long long)p->hidden, (long long)p->input,
                              p->layers);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_data(cudnnRNNDataDescriptor_t desc, const char *what, cudnnDataType_t dtype)
{
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(desc, what));
    if (desc->data_type != dtype)
        return FDNN_BAD_PARAM("%s has data type %s, the RNN descriptor %s", what, fdnn_dtype_name(desc->data_type),
                              fdnn_dtype_name(dtype));
    return CUDNN_STATUS_SUCCESS;
}

/* Sequences of xDesc, and of yDesc unless it is NULL (size queries only). */
static cudnnStatus_t
problem_seq(cudnnRNNDescriptor_t rnnDesc, const int32_t *devSeqLengths, cudnnRNNDataDescriptor_t xDesc,
            cudnnRNNDataDescriptor_t yDesc, fdnn_rnn_problem_t *p)
{
    RETURN_IF_ERROR(check_data(xDesc, "xDesc", p->dtype));
    if (xDesc->vector_size != p->input)
        return FDNN_BAD_PARAM("xDesc vectorSize is %d, the RNN input size is %lld", xDesc->vector_size,
                              (long long)p->input);
    if (yDesc != NULL) {
        RETURN_IF_ERROR(check_data(yDesc, "yDesc", p->dtype));
        if (yDesc->vector_size != fdnn_rnn_out_size(rnnDesc))
            return FDNN_BAD_PARAM("yDesc vectorSize is %d, expected %d (projSize x directions)", yDesc->vector_size,
                                  fdnn_rnn_out_size(rnnDesc));
        if (yDesc->layout != xDesc->layout || yDesc->max_seq_length != xDesc->max_seq_length ||
            yDesc->batch_size != xDesc->batch_size)
            return FDNN_BAD_PARAM("yDesc and xDesc differ in layout, maxSeqLength or batchSize");
        for (int b = 0; b < xDesc->batch_size; b++)
            if (yDesc->seq_lengths[b] != xDesc->seq_lengths[b])
                return FDNN_BAD_PARAM("yDesc seqLengthArray[%d] is %d, xDesc's %d", b, yDesc->seq_lengths[b],
                                      xDesc->seq_lengths[b]);
    }
    if (xDesc->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED && !(rnnDesc->aux_flags & CUDNN_RNN_PADDED_IO_ENABLED))
        return FDNN_BAD_PARAM("unpacked (padded) layouts need CUDNN_RNN_PADDED_IO_ENABLED in the RNN auxFlags");
    if (devSeqLengths == NULL)
        return FDNN_BAD_PARAM("devSeqLengths is NULL");
    for (int b = 0; b < xDesc->batch_size; b++)
        if (devSeqLengths[b] != xDesc->seq_lengths[b])
            return FDNN_BAD_PARAM("devSeqLengths[%d] is %d, xDesc seqLengthArray[%d] is %d", b, devSeqLengths[b], b,
                                  xDesc->seq_lengths[b]);
    if (rnnDesc->algo == CUDNN_RNN_ALGO_PERSIST_DYNAMIC && rnnDesc->dynamic_mini_batch != 0 &&
        rnnDesc->dynamic_mini_batch != xDesc->batch_size)
        return FDNN_BAD_PARAM("batch size %d differs from the mini-batch %d of cudnnBuildRNNDynamic",
                              xDesc->batch_size, rnnDesc->dynamic_mini_batch);
    p->T = xDesc->max_seq_length;
    p->B = xDesc->batch_size;
    p->lens = xDesc->seq_lengths;
    p->layout = xDesc->layout;
    if (p->T * p->B >= INT32_MAX / 2)
        return FDNN_GAP("maxSeqLength x batchSize is too large");
    return check_seq_sizes(p);
}

cudnnStatus_t
fdnn_rnn_problem_seq(cudnnRNNDescriptor_t rnnDesc, const int32_t *devSeqLengths, cudnnRNNDataDescriptor_t xDesc,
                     cudnnRNNDataDescriptor_t yDesc, fdnn_rnn_problem_t *p)
{
    /* yDesc is required: the operations read or write y through it. */
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(xDesc, "xDesc"));
    RETURN_IF_NULL(yDesc);
    return problem_seq(rnnDesc, devSeqLengths, xDesc, yDesc, p);
}

cudnnStatus_t
fdnn_rnn_problem_seq_x(cudnnRNNDescriptor_t rnnDesc, cudnnRNNDataDescriptor_t xDesc, fdnn_rnn_problem_t *p)
{
    RETURN_IF_ERROR(fdnn_rnn_data_desc_check(xDesc, "xDesc"));
    return problem_seq(rnnDesc, xDesc->seq_lengths, xDesc, NULL, p);
}

static cudnnStatus_t
check_state(const fdnn_rnn_problem_t *p, cudnnTensorDescriptor_t desc, const char *what, int64_t width)
{
    fdnn_tensor_t t;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, &t));
    if (t.dtype != p->dtype)
        return FDNN_BAD_PARAM("%s has data type %s, expected %s", what, fdnn_dtype_name(t.dtype),
                              fdnn_dtype_name(p->dtype));
    int64_t want[3] = {(int64_t)p->layers * p->dirs, p->B, width};
    if (t.ndim != 3 || t.dims[0] != want[0] || t.dims[1] != want[1] || t.dims[2] != want[2])
        return FDNN_BAD_PARAM("%s must be 3-D [%lld, %lld, %lld] (layers x directions, batch, projSize for h, "
                              "hiddenSize for c)", what,
                              (long long)want[0], (long long)want[1], (long long)want[2]);
    if (t.strides[2] != 1 || t.strides[1] != want[2] || t.strides[0] != want[1] * want[2])
        return FDNN_BAD_PARAM("%s must be fully packed", what);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_rnn_check_states(const fdnn_rnn_problem_t *p, cudnnTensorDescriptor_t hDesc, cudnnTensorDescriptor_t cDesc, bool need_c)
{
    RETURN_IF_ERROR(check_state(p, hDesc, "hDesc", p->proj));
    if (p->cell == CUDNN_LSTM && need_c)
        RETURN_IF_ERROR(check_state(p, cDesc, "cDesc", p->hidden));
    return CUDNN_STATUS_SUCCESS;
}

void
fdnn_rnn_fill_padding(const fdnn_rnn_problem_t *p, cudnnRNNDataDescriptor_t desc, void *out)
{
    if (!desc->has_padding_fill || p->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
        return;
    size_t es = fdnn_dtype_size(p->dtype);
    int64_t v = desc->vector_size;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t t = p->lens[b]; t < p->T; t++) {
            int64_t row = p->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED ? t * p->B + b : b * p->T + t;
            for (int64_t k = 0; k < v; k++)
                memcpy((char *)out + (size_t)(row * v + k) * es, desc->padding_fill, es);
        }
}

/* One legacy per-step descriptor: FLOAT, 3 to 5 dims [n, v, 1...], packed. */
static cudnnStatus_t
legacy_step(cudnnTensorDescriptor_t desc, const char *what, int t, cudnnDataType_t dtype, int64_t *n, int64_t *v)
{
    fdnn_tensor_t d;
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s[%d] is NULL", what, t);
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, &d));
    if (d.dtype != dtype)
        return FDNN_BAD_PARAM("%s[%d] has data type %s, the RNN computes in %s", what, t, fdnn_dtype_name(d.dtype),
                              fdnn_dtype_name(dtype));
    if (d.ndim < 3)
        return FDNN_BAD_PARAM("%s[%d] has %d dims, expected 3 ([batch, vector, 1])", what, t, d.ndim);
    for (int i = 2; i < d.ndim; i++)
        if (d.dims[i] != 1)
            return FDNN_BAD_PARAM("%s[%d] dim %d is %lld, expected 1", what, t, i, (long long)d.dims[i]);
    if (d.strides[1] != 1 || (d.dims[0] > 1 && d.strides[0] != d.dims[1]))
        return FDNN_BAD_PARAM("%s[%d] must be fully packed", what, t);
    *n = d.dims[0];
    *v = d.dims[1];
    return CUDNN_STATUS_SUCCESS;
}

/* The data type of a legacy call: the RNN descriptor's, except that a
 * descriptor set by cudnnSetRNNDescriptor_v6 (no input size) with FLOAT
 * mathPrec runs HALF data when xDesc[0] is HALF (cuDNN's v6 contract: FP16
 * input/output with HALF or FLOAT math precision). */
static cudnnDataType_t
legacy_data_type(cudnnRNNDescriptor_t rnnDesc, cudnnTensorDescriptor_t x0)
{
    fdnn_tensor_t d;
    if (rnnDesc->input_size == 0 && rnnDesc->data_type == CUDNN_DATA_FLOAT && x0 != NULL &&
        fdnn_tensor_from_desc(x0, "xDesc", &d) == CUDNN_STATUS_SUCCESS && d.dtype == CUDNN_DATA_HALF)
        return CUDNN_DATA_HALF;
    return rnnDesc->data_type;
}

static cudnnStatus_t
problem_legacy(cudnnRNNDescriptor_t rnnDesc, int seqLength, const cudnnTensorDescriptor_t *xDesc,
               const cudnnTensorDescriptor_t *yDesc, fdnn_rnn_problem_t *p, int **lens)
{
    *lens = NULL;
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    if (seqLength <= 0)
        return FDNN_BAD_PARAM("seqLength is %d, must be positive", seqLength);
    if (xDesc == NULL)
        return FDNN_BAD_PARAM("xDesc is NULL");
    int64_t n0, v0;
    cudnnDataType_t dtype = legacy_data_type(rnnDesc, xDesc[0]);
    RETURN_IF_ERROR(legacy_step(xDesc[0], "xDesc", 0, dtype, &n0, &v0));
    if (rnnDesc->input_size > 0 && rnnDesc->input_size != v0)
        return FDNN_BAD_PARAM("xDesc[0] has vector size %lld, the RNN descriptor's input size is %d", (long long)v0,
                              rnnDesc->input_size);
    RETURN_IF_ERROR(fdnn_rnn_problem_init(rnnDesc, v0, p));
    p->dtype = dtype; /* smaller elements: the sizes checked for FLOAT fit */
    int64_t prev = n0;
    for (int t = 0; t < seqLength; t++) {
        int64_t n = 0, v = 0;
        RETURN_IF_ERROR(legacy_step(xDesc[t], "xDesc", t, p->dtype, &n, &v));
        if (v != v0)
            return FDNN_BAD_PARAM("xDesc[%d] has vector size %lld, xDesc[0] %lld", t, (long long)v, (long long)v0);
        if (n > prev)
            return FDNN_BAD_PARAM("xDesc[%d] has batch %lld > %lld of the step before (batches must not grow)", t,
                                  (long long)n, (long long)prev);
        prev = n;
        if (yDesc != NULL) {
            int64_t yn, yv;
            RETURN_IF_ERROR(legacy_step(yDesc[t], "yDesc", t, p->dtype, &yn, &yv));
            if (yn != n || yv != fdnn_rnn_out_size(rnnDesc))
                return FDNN_BAD_PARAM("yDesc[%d] is [%lld, %lld], expected [%lld, %d]", t, (long long)yn,
                                      (long long)yv, (long long)n, fdnn_rnn_out_size(rnnDesc));
        }
    }
    if (n0 * seqLength >= INT32_MAX / 2)
        return FDNN_GAP("seqLength x batch is too large");
    p->T = seqLength;
    p->B = n0;
    RETURN_IF_ERROR(check_seq_sizes(p));
    int *l = calloc((size_t)n0, sizeof(int));
    if (l == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate the sequence lengths");
    for (int t = 0; t < seqLength; t++) {
        fdnn_tensor_t d;
        fdnn_tensor_from_desc(xDesc[t], "xDesc", &d);
        for (int64_t b = 0; b < d.dims[0]; b++)
            l[b]++;
    }
    p->T = seqLength;
    p->B = n0;
    p->lens = l;
    p->layout = CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED;
    *lens = l;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_rnn_problem_legacy(cudnnRNNDescriptor_t rnnDesc, int seqLength, const cudnnTensorDescriptor_t *xDesc,
                        const cudnnTensorDescriptor_t *yDesc, fdnn_rnn_problem_t *p, int **lens)
{
    *lens = NULL;
    /* yDesc is required: the operations read or write y through it. */
    RETURN_IF_NULL(yDesc);
    return problem_legacy(rnnDesc, seqLength, xDesc, yDesc, p, lens);
}

cudnnStatus_t
fdnn_rnn_problem_legacy_x(cudnnRNNDescriptor_t rnnDesc, int seqLength, const cudnnTensorDescriptor_t *xDesc,
                          fdnn_rnn_problem_t *p, int **lens)
{
    return problem_legacy(rnnDesc, seqLength, xDesc, NULL, p, lens);
}

cudnnStatus_t
fdnn_rnn_check_wdesc(const fdnn_rnn_problem_t *p, cudnnFilterDescriptor_t wDesc, const char *what)
{
    fdnn_tensor_t w;
    RETURN_IF_ERROR(fdnn_tensor_from_filter(wDesc, what, &w));
    if (w.dtype != p->dtype)
        return FDNN_BAD_PARAM("%s has data type %s, expected %s", what, fdnn_dtype_name(w.dtype),
                              fdnn_dtype_name(p->dtype));
    int64_t need = fdnn_rnn_weight_elems(p);
    if (fdnn_tensor_elements(&w) < need)
        return FDNN_BAD_PARAM("%s has %lld elements, the weights need %lld (cudnnGetRNNParamsSize)", what,
                              (long long)fdnn_tensor_elements(&w), (long long)need);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_rnn_training_dropout(cudnnRNNDescriptor_t rnnDesc, fdnn_rnn_problem_t *p)
{
    if (p->drop <= 0.0f)
        return CUDNN_STATUS_SUCCESS;
    cudnnDropoutDescriptor_t dd = rnnDesc->dropout;
    if (dd->states == NULL)
        return FDNN_BAD_PARAM("the RNN's dropout descriptor (p = %g) has no states buffer", (double)dd->dropout);
    fdnn_dropout_state_t st;
    memcpy(&st, dd->states, sizeof(st));
    if (st.magic != FDNN_DROPOUT_STATE_MAGIC)
        return FDNN_BAD_PARAM("the RNN's dropout states were never initialised by cudnnSetDropoutDescriptor");
    p->drop_seed = st.seed;
    p->drop_call = st.calls;
    /* Each training forward draws a new mask, as each cudnnDropoutForward
     * does; resetting the descriptor with the same seed replays them. */
    st.calls++;
    memcpy(dd->states, &st, sizeof(st));
    return CUDNN_STATUS_SUCCESS;
}
