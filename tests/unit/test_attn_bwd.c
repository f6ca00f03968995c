/* SPDX-License-Identifier: Apache-2.0
 * cudnnMultiHeadAttnBackwardData and cudnnMultiHeadAttnBackwardWeights
 * (with the training forward that fills the reserve space) against the
 * float64 reference backward (src/ref/attn_bwd_ref.c), and the reference
 * itself against central finite differences of the reference forward.
 *
 * Cases: projections on and off in several combinations, biases, beams
 * under ALL_TO_ONE (K/V gradients summed over the beams), ONE_TO_ONE, both
 * axis orders, random lengths and windows (full, empty, partial), more
 * query rows than one block (64), padding fill on the data gradients.  On
 * every ISA level, 1, 2 and 3 threads bitwise equal; outputs poisoned before
 * each run; rows past the lengths stay poisoned (or get the fill value);
 * WGRAD_MODE_ADD adds to what dweights held; the training forward's output
 * equals the inference forward's bit for bit.  Bad inputs (statuses, calls
 * out of order, a reserve space of another problem) write nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "freednn.h"
#include "ref/attn_ref.h"
#include "testutil.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

#define FILL_VALUE (-7.0f)

typedef struct cfg {
    int H, qS, kS, vS, qP, kP, vP, oP;
    bool biases, one_to_one, time_major, fill;
    int batch, beam, qT, kT;
} cfg_t;

/* Set while test_values runs its full-length cases: every sequence at
 * full length (qT, kT), so the projections' gradients take the
 * one-product-over-all-rows path of the backward. */
static bool full_lengths;

typedef struct run {
    cfg_t c;
    cudnnAttnDescriptor_t attn;
    cudnnSeqDataDescriptor_t qd, kd, vd, od;
    int *q_len, *k_len, *lo, *hi;
    float *w, *q, *k, *v, *out, *dout, *dq, *dk, *dv, *dw, *ws, *rs;
    size_t wbytes, wsbytes, rsbytes, nw;
    int64_t nq, nk, oLen, kv_beam;
    fdnn_ref_attn_t ref;
} run_t;

static const cudnnSeqDataAxis_t batch_major[4] = {CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                                  CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_VECT_DIM};
static const cudnnSeqDataAxis_t time_major[4] = {CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BATCH_DIM,
                                                 CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_VECT_DIM};

static cudnnSeqDataDescriptor_t
seq_desc(const cfg_t *c, int T, int beam, int vect, const int *lens)
{
    cudnnSeqDataDescriptor_t d;
    cudnnCreateSeqDataDescriptor(&d);
    int dims[4];
    dims[CUDNN_SEQDATA_TIME_DIM] = T, dims[CUDNN_SEQDATA_BATCH_DIM] = c->batch;
    dims[CUDNN_SEQDATA_BEAM_DIM] = beam, dims[CUDNN_SEQDATA_VECT_DIM] = vect;
    float fill_value = FILL_VALUE;
    CHECK_OK(cudnnSetSeqDataDescriptor(d, CUDNN_DATA_FLOAT, 4, dims, c->time_major ? time_major : batch_major,
                                       (size_t)c->batch * beam, lens, c->fill ? &fill_value : NULL));
    return d;
}

/* Token-row strides of (time, batch, beam). */
static void
strides(const cfg_t *c, int T, int beam, int64_t st[3])
{
    if (c->time_major)
        st[0] = (int64_t)c->batch * beam, st[1] = beam, st[2] = 1;
    else
        st[0] = 1, st[1] = (int64_t)beam * T, st[2] = T;
}

static float *
rand_buf(size_t n, double range)
{
    float *p = fdnn_guarded_alloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++)
        p[i] = (float)fdnn_rng_uniform(&rng, -range, range);
    return p;
}

static double *
to_f64(const float *p, size_t n)
{
    double *d = malloc((n + 1) * sizeof(double));
    for (size_t i = 0; i < n; i++)
        d[i] = p[i];
    return d;
}

/* Random lengths in [1, T] and windows: full, empty or partial. */
static void
rand_lengths(int *len, int n, int T)
{
    for (int i = 0; i < n; i++)
        len[i] = fdnn_rng_int(&rng, 1, T);
}

static void
rand_windows(int *lo, int *hi, int qT, int kT)
{
    for (int t = 0; t < qT; t++) {
        int kind = fdnn_rng_int(&rng, 0, 3);
        lo[t] = kind == 0 ? 0 : fdnn_rng_int(&rng, -1, kT - 1);
        hi[t] = kind == 0 ? kT : kind == 1 ? lo[t] : fdnn_rng_int(&rng, lo[t], kT + 1);
    }
}

/* fixed: lengths and windows that leave every sequence several keys (for
 * finite differences, where a window of one key would give zero
 * gradients): full windows but for a partial and a clipped one. */
static void
setup(run_t *r, const cfg_t *c, cudnnDropoutDescriptor_t dropout, bool fixed)
{
    memset(r, 0, sizeof(*r));
    r->c = *c;
    r->kv_beam = c->one_to_one ? c->beam : 1;
    CHECK_OK(cudnnCreateAttnDescriptor(&r->attn));
    unsigned mode = (c->one_to_one ? CUDNN_ATTN_QUERYMAP_ONE_TO_ONE : CUDNN_ATTN_QUERYMAP_ALL_TO_ONE) |
                    (c->biases ? CUDNN_ATTN_ENABLE_PROJ_BIASES : CUDNN_ATTN_DISABLE_PROJ_BIASES);
    double scaler = 1.0 / sqrt((double)(c->qP ? c->qP : c->qS));
    CHECK_OK(cudnnSetAttnDescriptor(r->attn, mode, c->H, scaler, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                    CUDNN_DEFAULT_MATH, dropout, dropout, c->qS, c->kS, c->vS, c->qP, c->kP, c->vP,
                                    c->oP, c->qT + 1, c->kT + 2, c->batch, c->beam));
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(handle, r->attn, &r->wbytes, &r->wsbytes, &r->rsbytes));
    r->nw = r->wbytes / sizeof(float);
    r->oLen = c->oP ? c->oP : (int64_t)c->H * (c->vP ? c->vP : c->vS);
    r->q_len = malloc(sizeof(int) * (size_t)(c->batch * c->beam));
    r->k_len = malloc(sizeof(int) * (size_t)(c->batch * r->kv_beam));
    rand_lengths(r->q_len, c->batch * c->beam, c->qT);
    rand_lengths(r->k_len, c->batch * (int)r->kv_beam, c->kT);
    r->lo = malloc(sizeof(int) * (size_t)c->qT);
    r->hi = malloc(sizeof(int) * (size_t)c->qT);
    rand_windows(r->lo, r->hi, c->qT, c->kT);
    if (full_lengths) {
        for (int i = 0; i < c->batch * c->beam; i++)
            r->q_len[i] = c->qT;
        for (int i = 0; i < c->batch * r->kv_beam; i++)
            r->k_len[i] = c->kT;
    }
    if (fixed) {
        for (int i = 0; i < c->batch * c->beam; i++)
            r->q_len[i] = c->qT - i % 2;
        for (int i = 0; i < c->batch * r->kv_beam; i++)
            r->k_len[i] = c->kT - i % 2;
        for (int t = 0; t < c->qT; t++)
            r->lo[t] = t == 1 ? 1 : t == 2 ? -1 : 0, r->hi[t] = t == 2 ? c->kT - 1 : c->kT + 1;
    }
    r->qd = seq_desc(c, c->qT, c->beam, c->qS, r->q_len);
    r->od = seq_desc(c, c->qT, c->beam, (int)r->oLen, r->q_len);
    r->kd = seq_desc(c, c->kT, (int)r->kv_beam, c->kS, r->k_len);
    r->vd = seq_desc(c, c->kT, (int)r->kv_beam, c->vS, r->k_len);
    r->nq = (int64_t)c->qT * c->batch * c->beam;
    r->nk = (int64_t)c->kT * c->batch * r->kv_beam;
    r->w = rand_buf(r->nw, 0.5);
    r->q = rand_buf((size_t)(r->nq * c->qS), 1.0);
    r->k = rand_buf((size_t)(r->nk * c->kS), 1.0);
    r->v = rand_buf((size_t)(r->nk * c->vS), 1.0);
    r->dout = rand_buf((size_t)(r->nq * r->oLen), 1.0);
    r->out = fdnn_guarded_alloc((size_t)(r->nq * r->oLen) * sizeof(float));
    r->dq = fdnn_guarded_alloc((size_t)(r->nq * c->qS) * sizeof(float));
    r->dk = fdnn_guarded_alloc((size_t)(r->nk * c->kS) * sizeof(float));
    r->dv = fdnn_guarded_alloc((size_t)(r->nk * c->vS) * sizeof(float));
    r->dw = fdnn_guarded_alloc((r->nw ? r->nw : 1) * sizeof(float));
    r->ws = fdnn_guarded_alloc(r->wsbytes ? r->wsbytes : 4);
    r->rs = fdnn_guarded_alloc(r->rsbytes);
    r->ref = (fdnn_ref_attn_t){.H = c->H, .scaler = (float)scaler, .one_to_one = c->one_to_one,
                               .biases = c->biases, .qS = c->qS, .kS = c->kS, .vS = c->vS, .qProj = c->qP,
                               .kProj = c->kP, .vProj = c->vP, .oProj = c->oP, .batch = c->batch, .beam = c->beam,
                               .qT = c->qT, .kT = c->kT, .q_len = r->q_len, .k_len = r->k_len, .lo = r->lo,
                               .hi = r->hi, .curr = -1};
    strides(c, c->qT, c->beam, r->ref.q_st);
    strides(c, c->qT, c->beam, r->ref.o_st);
    strides(c, c->kT, (int)r->kv_beam, r->ref.k_st);
}

static void
teardown(run_t *r)
{
    cudnnDestroyAttnDescriptor(r->attn);
    cudnnDestroySeqDataDescriptor(r->qd), cudnnDestroySeqDataDescriptor(r->kd);
    cudnnDestroySeqDataDescriptor(r->vd), cudnnDestroySeqDataDescriptor(r->od);
    free(r->q_len), free(r->k_len), free(r->lo), free(r->hi);
    float *bufs[] = {r->w, r->q, r->k, r->v, r->out, r->dout, r->dq, r->dk, r->dv, r->dw, r->ws, r->rs};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        fdnn_guarded_free(bufs[i]);
}

/* The work and reserve sizes depend on the handle's ISA level, which
 * run_case steps through: query them again and reallocate both buffers at
 * the exact size, so a write past the level's own size still faults. */
static void
size_buffers_for_isa(run_t *r)
{
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(handle, r->attn, &r->wbytes, &r->wsbytes, &r->rsbytes));
    fdnn_guarded_free(r->ws);
    fdnn_guarded_free(r->rs);
    r->ws = fdnn_guarded_alloc(r->wsbytes ? r->wsbytes : 4);
    r->rs = fdnn_guarded_alloc(r->rsbytes);
}

static cudnnStatus_t
forward(run_t *r, size_t rsbytes, void *rs)
{
    return cudnnMultiHeadAttnForward(handle, r->attn, -1, r->lo, r->hi, r->q_len, r->k_len, r->qd, r->q, NULL, r->kd,
                                     r->k, r->vd, r->v, r->od, r->out, r->wbytes, r->w, r->wsbytes, r->ws, rsbytes,
                                     rs);
}

static cudnnStatus_t
bwd_data(run_t *r)
{
    return cudnnMultiHeadAttnBackwardData(handle, r->attn, r->lo, r->hi, r->q_len, r->k_len, r->od, r->dout, r->qd,
                                          r->dq, r->q, r->kd, r->dk, r->k, r->vd, r->dv, r->v, r->wbytes, r->w,
                                          r->wsbytes, r->ws, r->rsbytes, r->rs);
}

static cudnnStatus_t
bwd_weights(run_t *r, cudnnWgradMode_t mode)
{
    return cudnnMultiHeadAttnBackwardWeights(handle, r->attn, mode, r->qd, r->q, r->kd, r->k, r->vd, r->v, r->od,
                                             r->dout, r->wbytes, r->w, r->dw, r->wsbytes, r->ws, r->rsbytes, r->rs);
}

/* Compares a data gradient (rows of `vect`) with the reference on the rows
 * inside the lengths; rows past them must hold the fill value or be
 * untouched (NaN). */
static void
check_rows(const run_t *r, const char *name, const char *what, const float *got, const double *want, int vect,
           int T, int beams, const int *len, double tol)
{
    const cfg_t *c = &r->c;
    double worst = 0;
    bool pad_ok = true;
    int64_t rows = (int64_t)T * c->batch * beams;
    for (int64_t row = 0; row < rows; row++) {
        int64_t t = c->time_major ? row / ((int64_t)c->batch * beams) : row % T;
        int64_t seq = c->time_major ? row % ((int64_t)c->batch * beams) : row / T;
        for (int e = 0; e < vect; e++) {
            float g = got[row * vect + e];
            if (t < len[seq]) {
                double err = fabs(g - want[row * vect + e]) / fmax(1.0, fabs(want[row * vect + e]));
                worst = err <= worst ? worst : isnan(err) ? INFINITY : err;
            } else {
                pad_ok = pad_ok && (c->fill ? g == FILL_VALUE : isnan(g));
            }
        }
    }
    CHECK_MSG(worst <= tol, "%s: %s max rel err %.3g", name, what, worst);
    CHECK_MSG(pad_ok, "%s: %s rows past the lengths written (or not filled)", name, what);
}

static bool
same_bits(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof(float)) == 0;
}

static void
run_case(const cfg_t *c, const char *name)
{
    run_t r;
    setup(&r, c, NULL, false);
    CHECK_MSG(r.rsbytes > 0, "%s: the reserve size is 0", name);
    size_t nq = (size_t)(r.nq * c->qS), nk = (size_t)(r.nk * c->kS), nv = (size_t)(r.nk * c->vS);
    size_t no = (size_t)(r.nq * r.oLen);
    double *w = to_f64(r.w, r.nw), *q = to_f64(r.q, nq), *k = to_f64(r.k, nk), *v = to_f64(r.v, nv);
    double *dout = to_f64(r.dout, no), *dq = malloc(nq * 8 + 8), *dk = malloc(nk * 8 + 8), *dv = malloc(nv * 8 + 8);
    double *dw = malloc(r.nw * 8 + 8), *dw_add = malloc(r.nw * 8 + 8);
    fdnn_ref_attn_backward(&r.ref, w, q, k, v, dout, dq, dk, dv, dw);
    /* what dweights holds before an ADD */
    float *prior = rand_buf(r.nw, 1.0);
    for (size_t i = 0; i < r.nw; i++)
        dw_add[i] = dw[i] + prior[i];
    float *first[5], *out_inf = malloc(no * 4 + 4);
    size_t sizes[5] = {nq, nk, nv, r.nw, r.nw};
    for (int i = 0; i < 5; i++)
        first[i] = malloc(sizes[i] * 4 + 4);
    float *dw_set = malloc(r.nw * 4 + 4);
    for (int i = 0; i < fdnn_test_isa_count(); i++)
        for (int th = 1; th <= 3; th++) { /* 3: more threads than cores and than some tasks (core/pool_slots.h) */
            const char *isa = fdnn_test_isa_name(i);
            CHECK_OK(freednnSetIsa(handle, isa));
            CHECK_OK(freednnSetNumThreads(handle, th));
            size_buffers_for_isa(&r);
            fdnn_poison_f32(r.out, no);
            fdnn_poison_bytes(r.ws, r.wsbytes);
            CHECK_OK(forward(&r, 0, NULL));
            memcpy(out_inf, r.out, no * 4);
            fdnn_poison_f32(r.out, no);
            fdnn_poison_bytes(r.rs, r.rsbytes);
            CHECK_OK(forward(&r, r.rsbytes, r.rs));
            bool same_out = true;
            for (size_t e = 0; e < no; e++)
                same_out = same_out &&
                           (memcmp(&out_inf[e], &r.out[e], 4) == 0 || (isnan(out_inf[e]) && isnan(r.out[e])));
            CHECK_MSG(same_out, "%s (%s, %d threads): training forward differs from inference", name, isa, th);
            fdnn_poison_f32(r.dq, nq), fdnn_poison_f32(r.dk, nk), fdnn_poison_f32(r.dv, nv);
            fdnn_poison_f32(r.dw, r.nw);
            fdnn_poison_bytes(r.ws, r.wsbytes);
            CHECK_OK(bwd_data(&r));
            CHECK_OK(bwd_weights(&r, CUDNN_WGRAD_MODE_SET));
            memcpy(dw_set, r.dw, r.nw * 4);
            memcpy(r.dw, prior, r.nw * 4);
            CHECK_OK(bwd_weights(&r, CUDNN_WGRAD_MODE_ADD));
            float *got[5] = {r.dq, r.dk, r.dv, dw_set, r.dw};
            if (th == 1) {
                char what[96];
                snprintf(what, sizeof(what), "%s (%s)", name, isa);
                check_rows(&r, what, "dq", r.dq, dq, c->qS, c->qT, c->beam, r.q_len, 1e-4);
                check_rows(&r, what, "dk", r.dk, dk, c->kS, c->kT, (int)r.kv_beam, r.k_len, 1e-4);
                check_rows(&r, what, "dv", r.dv, dv, c->vS, c->kT, (int)r.kv_beam, r.k_len, 1e-4);
                double e_set = 0, e_add = 0;
                for (size_t e = 0; e < r.nw; e++) {
                    double a = fabs(dw_set[e] - dw[e]) / fmax(1.0, fabs(dw[e]));
                    double b = fabs(r.dw[e] - dw_add[e]) / fmax(1.0, fabs(dw_add[e]));
                    e_set = a <= e_set ? e_set : isnan(a) ? INFINITY : a;
                    e_add = b <= e_add ? e_add : isnan(b) ? INFINITY : b;
                }
                CHECK_MSG(e_set <= 1e-4, "%s: dweights (SET) max rel err %.3g", what, e_set);
                CHECK_MSG(e_add <= 1e-4, "%s: dweights (ADD) max rel err %.3g", what, e_add);
                for (int b = 0; b < 5; b++)
                    memcpy(first[b], got[b], sizes[b] * 4);
            } else {
                for (int b = 0; b < 5; b++)
                    CHECK_MSG(same_bits(first[b], got[b], sizes[b]), "%s: isa %s, %d threads differ from 1 (output %d)",
                              name, isa, th, b);
            }
        }
    for (int i = 0; i < 5; i++)
        free(first[i]);
    fdnn_guarded_free(prior);
    free(dw_set), free(out_inf), free(w), free(q), free(k), free(v), free(dout), free(dq), free(dk), free(dv);
    free(dw), free(dw_add);
    teardown(&r);
}

static void
test_values(void)
{
    const cfg_t cases[] = {
        /* H qS kS vS qP kP vP oP biases 1:1 tmajor fill batch beam qT kT */
        {4, 16, 16, 16, 4, 4, 4, 16, true, false, false, false, 3, 1, 7, 9},  /* transformer-like */
        {2, 8, 6, 5, 3, 3, 4, 7, true, false, true, true, 2, 3, 5, 6},       /* beams, time-major, fill */
        {3, 5, 5, 4, 0, 0, 0, 0, false, true, false, false, 2, 1, 4, 3},     /* no projections, ONE_TO_ONE */
        {2, 6, 6, 4, 0, 0, 3, 5, true, false, true, true, 2, 2, 5, 4},       /* Q/K off, V/O on, beams */
        {1, 1, 1, 1, 1, 1, 1, 1, true, false, false, false, 1, 1, 1, 1},     /* all 1 */
        {2, 6, 7, 5, 3, 3, 2, 0, true, true, false, false, 3, 1, 6, 5},      /* no O projection */
        {2, 6, 7, 5, 3, 3, 0, 6, false, false, true, false, 2, 2, 4, 5},     /* V off, beams */
        {2, 8, 8, 8, 4, 4, 4, 8, true, false, false, false, 2, 2, 150, 70},  /* 3 row blocks, beams */
    };
    /* Full lengths (full_lengths): the projections' gradients in one
     * product over all rows. */
    const cfg_t full[] = {
        {4, 16, 16, 16, 4, 4, 4, 16, true, false, false, false, 3, 1, 7, 9}, /* batch-major */
        {2, 8, 6, 5, 3, 3, 4, 7, true, false, true, false, 2, 3, 5, 6},      /* time-major, beams */
        {2, 6, 7, 5, 3, 3, 2, 0, true, true, false, false, 3, 1, 6, 5},       /* ONE_TO_ONE, no O projection */
        {2, 6, 6, 4, 0, 0, 3, 5, true, false, true, true, 2, 2, 5, 4},       /* Q/K off, V/O on */
        {2, 8, 8, 8, 4, 4, 4, 8, true, false, true, false, 2, 2, 150, 70},   /* 3 row blocks, time-major */
    };
    char name[64];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(name, sizeof(name), "case %zu", i);
        run_case(&cases[i], name);
    }
    full_lengths = true;
    for (size_t i = 0; i < sizeof(full) / sizeof(full[0]); i++) {
        snprintf(name, sizeof(name), "full-length case %zu", i);
        run_case(&full[i], name);
    }
    full_lengths = false;
}

static bool
all_nan(const float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i]))
            return false;
    return true;
}

/* The reserve size is the documented layout for the descriptor's maxima:
 * 64 header bytes, then qp, kp, vp, hc, probs, dqp, dkp, dvp. */
static void
test_reserve_size(void)
{
    const cfg_t c = {3, 8, 6, 5, 4, 4, 0, 7, true, false, false, false, 2, 3, 5, 6};
    run_t r;
    setup(&r, &c, NULL, false);
    int64_t seqs = (int64_t)c.batch * c.beam, nq = seqs * (c.qT + 1), nk = seqs * (c.kT + 2), H = c.H;
    int64_t floats = 2 * nq * H * c.qP + 2 * nk * H * c.qP + nq * H * c.vS + seqs * H * (c.qT + 1) * (c.kT + 2);
    CHECK_MSG(r.rsbytes == 64 + 4 * (size_t)floats, "reserve size %zu, expected %lld", r.rsbytes,
              (long long)(64 + 4 * floats));
    teardown(&r);
}

static void
test_bad_inputs(void)
{
    const cudnnStatus_t BAD = CUDNN_STATUS_BAD_PARAM;
    const cfg_t c = {2, 8, 8, 8, 4, 4, 4, 6, true, false, false, false, 2, 2, 4, 5};
    run_t r;
    setup(&r, &c, NULL, false);
    size_t nq = (size_t)(r.nq * c.qS), nk = (size_t)(r.nk * c.kS), nv = (size_t)(r.nk * c.vS);
    fdnn_poison_f32(r.dq, nq), fdnn_poison_f32(r.dk, nk), fdnn_poison_f32(r.dv, nv), fdnn_poison_f32(r.dw, r.nw);
    /* nothing filled the reserve yet */
    fdnn_poison_bytes(r.rs, r.rsbytes);
    CHECK_STATUS(bwd_data(&r), BAD);
    CHECK_OK(forward(&r, r.rsbytes, r.rs));
    unsigned char *rs_copy = malloc(r.rsbytes);
    memcpy(rs_copy, r.rs, r.rsbytes);
    /* weights before data */
    CHECK_STATUS(bwd_weights(&r, CUDNN_WGRAD_MODE_SET), BAD);
#define BWD(h, ad, lo, hi, lq, lk, dod, dout, dqd, dq, q, dkd, dk, k, dvd, dv, v, wb, w, wsb, ws, rsb, rs) \
    cudnnMultiHeadAttnBackwardData(h, ad, lo, hi, lq, lk, dod, dout, dqd, dq, q, dkd, dk, k, dvd, dv, v, wb, w, \
                                   wsb, ws, rsb, rs)
    CHECK_STATUS(BWD(NULL, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k, r.vd,
                     r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, NULL, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k, r.vd,
                     r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, NULL, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, NULL, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k, r.vd,
                     r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, NULL, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, NULL, r.qd, r.dq, r.q, r.kd, r.dk, r.k, r.vd,
                     r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, NULL, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, NULL,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, NULL, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    /* sizes and spaces */
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes - 4, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes - 4, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, NULL, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes - 4, r.rs),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, NULL),
                 BAD);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL),
                 BAD);
    /* mismatched descriptors: q in the place of k; lengths that differ */
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.qd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    int wrong_len[4] = {r.k_len[0] == 1 ? 2 : 1, r.k_len[1]};
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, r.q_len, wrong_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    /* windows other than the forward's */
    int lo2[4];
    memcpy(lo2, r.lo, sizeof(lo2));
    lo2[3] = r.lo[3] == 0 ? 1 : 0;
    CHECK_STATUS(BWD(handle, r.attn, lo2, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq, r.q, r.kd, r.dk, r.k,
                     r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    /* descriptors that fit attnDesc but are not the forward's (other lengths) */
    int q_len2[4] = {r.q_len[0] == 1 ? 2 : 1, r.q_len[1], r.q_len[2], r.q_len[3]};
    cudnnSeqDataDescriptor_t qd2 = seq_desc(&c, c.qT, c.beam, c.qS, q_len2);
    cudnnSeqDataDescriptor_t od2 = seq_desc(&c, c.qT, c.beam, (int)r.oLen, q_len2);
    CHECK_STATUS(BWD(handle, r.attn, r.lo, r.hi, q_len2, r.k_len, od2, r.dout, qd2, r.dq, r.q, r.kd, r.dk, r.k, r.vd,
                     r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_MSG(all_nan(r.dq, nq) && all_nan(r.dk, nk) && all_nan(r.dv, nv), "a failed backward data wrote");
    CHECK_MSG(memcmp(rs_copy, r.rs, r.rsbytes) == 0, "a failed backward data wrote to reserveSpace");

    /* backward weights: after a good backward data */
    CHECK_OK(bwd_data(&r));
    memcpy(rs_copy, r.rs, r.rsbytes);
#define BWW(h, ad, mode, qd, q, kd, k, vd, v, dod, dout, wb, w, dw, wsb, ws, rsb, rs) \
    cudnnMultiHeadAttnBackwardWeights(h, ad, mode, qd, q, kd, k, vd, v, dod, dout, wb, w, dw, wsb, ws, rsb, rs)
    CHECK_STATUS(BWW(NULL, r.attn, CUDNN_WGRAD_MODE_SET, r.qd, r.q, r.kd, r.k, r.vd, r.v, r.od, r.dout, r.wbytes, r.w,
                     r.dw, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWW(handle, r.attn, (cudnnWgradMode_t)2, r.qd, r.q, r.kd, r.k, r.vd, r.v, r.od, r.dout, r.wbytes,
                     r.w, r.dw, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWW(handle, r.attn, CUDNN_WGRAD_MODE_SET, r.qd, NULL, r.kd, r.k, r.vd, r.v, r.od, r.dout, r.wbytes,
                     r.w, r.dw, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWW(handle, r.attn, CUDNN_WGRAD_MODE_SET, r.qd, r.q, r.kd, r.k, r.vd, r.v, r.od, r.dout, r.wbytes,
                     r.w, NULL, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWW(handle, r.attn, CUDNN_WGRAD_MODE_SET, r.qd, r.q, r.kd, r.k, r.vd, r.v, r.od, r.dout, r.wbytes,
                     r.w, r.dw, r.wsbytes - 4, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWW(handle, r.attn, CUDNN_WGRAD_MODE_SET, r.qd, r.q, r.kd, r.k, r.vd, r.v, r.od, r.dout, r.wbytes,
                     r.w, r.dw, r.wsbytes, r.ws, r.rsbytes - 4, r.rs),
                 BAD);
    CHECK_STATUS(BWW(handle, r.attn, CUDNN_WGRAD_MODE_SET, r.qd, r.q, r.kd, r.k, r.vd, r.v, r.od, r.dout, r.wbytes,
                     r.w, r.dw, r.wsbytes, r.ws, r.rsbytes, NULL),
                 BAD);
    CHECK_STATUS(BWW(handle, r.attn, CUDNN_WGRAD_MODE_SET, r.kd, r.q, r.kd, r.k, r.vd, r.v, r.od, r.dout, r.wbytes,
                     r.w, r.dw, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(BWW(handle, r.attn, CUDNN_WGRAD_MODE_SET, qd2, r.q, r.kd, r.k, r.vd, r.v, od2, r.dout, r.wbytes, r.w,
                     r.dw, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_MSG(all_nan(r.dw, r.nw), "a failed backward weights wrote to dweights");
    CHECK_MSG(memcmp(rs_copy, r.rs, r.rsbytes) == 0, "a failed backward weights wrote to reserveSpace");
    /* a new forward makes the gradients in the reserve stale again */
    CHECK_OK(forward(&r, r.rsbytes, r.rs));
    CHECK_STATUS(bwd_weights(&r, CUDNN_WGRAD_MODE_SET), BAD);
    CHECK_MSG(all_nan(r.dw, r.nw), "a failed backward weights wrote to dweights");
    /* training needs every time step; an undersized reserve space */
    CHECK_STATUS(cudnnMultiHeadAttnForward(handle, r.attn, 1, r.lo, r.hi, r.q_len, r.k_len, r.qd, r.q, NULL, r.kd, r.k,
                                           r.vd, r.v, r.od, r.out, r.wbytes, r.w, r.wsbytes, r.ws, r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(forward(&r, r.rsbytes - 4, r.rs), BAD);
    CHECK_STATUS(forward(&r, r.rsbytes, NULL), BAD);
    cudnnDestroySeqDataDescriptor(qd2), cudnnDestroySeqDataDescriptor(od2);
    free(rs_copy);
#undef BWD
#undef BWW

    /* FLOAT data with a HALF descriptor: BAD_PARAM, nothing written (the
     * HALF path itself: test_attn_half) */
    fdnn_poison_f32(r.dq, nq), fdnn_poison_f32(r.dk, nk), fdnn_poison_f32(r.dv, nv);
    cudnnAttnDescriptor_t dd;
    cudnnCreateAttnDescriptor(&dd);
    CHECK_OK(cudnnSetAttnDescriptor(dd, 0, 2, 1.0, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, NULL,
                                    NULL, 8, 8, 8, 4, 4, 4, 6, 5, 6, 2, 2));
    CHECK_STATUS(cudnnMultiHeadAttnBackwardData(handle, dd, r.lo, r.hi, r.q_len, r.k_len, r.od, r.dout, r.qd, r.dq,
                                                r.q, r.kd, r.dk, r.k, r.vd, r.dv, r.v, r.wbytes, r.w, r.wsbytes, r.ws,
                                                r.rsbytes, r.rs),
                 BAD);
    CHECK_STATUS(cudnnMultiHeadAttnBackwardWeights(handle, dd, CUDNN_WGRAD_MODE_SET, r.qd, r.q, r.kd, r.k, r.vd, r.v,
                                                   r.od, r.dout, r.wbytes, r.w, r.dw, r.wsbytes, r.ws, r.rsbytes,
                                                   r.rs),
                 BAD);
    cudnnDestroyAttnDescriptor(dd);
    CHECK_MSG(all_nan(r.dq, nq) && all_nan(r.dk, nk) && all_nan(r.dv, nv) && all_nan(r.dw, r.nw),
              "a failed call wrote to a gradient");
    teardown(&r);
}

/* Dropout (attention and post, one descriptor for both, p = 0.5):
 * inference ignores it (bitwise the output of a zero rate); a training
 * forward differs from inference, gives bitwise the same output and
 * gradients when the seed is set again (on 1 and 2 threads), and a
 * different output when the
 * states simply advance; states-less descriptors are BAD_PARAM in training
 * with nothing written.  Gradients against finite differences of the masked
 * forward: tests/oracle/test_attn.py (DOUBLE). */
static bool
same_f32(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof(float)) == 0;
}

static void
test_dropout(void)
{
    const cfg_t c = {2, 4, 4, 4, 2, 2, 2, 4, true, false, false, false, 1, 1, 3, 3};
    size_t ssize = 0;
    CHECK_OK(cudnnDropoutGetStatesSize(handle, &ssize));
    void *states = fdnn_guarded_alloc(ssize);
    cudnnDropoutDescriptor_t drop;
    CHECK_OK(cudnnCreateDropoutDescriptor(&drop));
    CHECK_OK(cudnnSetDropoutDescriptor(drop, handle, 0.5f, states, ssize, 1));
    run_t r;
    setup(&r, &c, drop, false);
    size_t no = (size_t)(r.nq * r.oLen), nq = (size_t)(r.nq * c.qS), nw = r.nw ? r.nw : 1;
    float *inf = malloc(no * 4), *tr = malloc(no * 4), *dq = malloc(nq * 4), *dw = malloc(nw * 4);
    fdnn_poison_f32(r.out, no);
    CHECK_OK(forward(&r, 0, NULL));
    memcpy(inf, r.out, no * 4);
    CHECK_OK(cudnnSetDropoutDescriptor(drop, handle, 0.0f, states, ssize, 1));
    fdnn_poison_f32(r.out, no);
    CHECK_OK(forward(&r, 0, NULL));
    CHECK_MSG(same_f32(inf, r.out, no), "inference with dropout differs from inference without");
    for (int run = 0; run < 2; run++) {
        CHECK_OK(freednnSetNumThreads(handle, run + 1));
        CHECK_OK(cudnnSetDropoutDescriptor(drop, handle, 0.5f, states, ssize, 1));
        fdnn_poison_f32(r.out, no);
        fdnn_poison_f32(r.dq, nq);
        fdnn_poison_f32(r.dw, nw);
        CHECK_OK(forward(&r, r.rsbytes, r.rs));
        CHECK_OK(bwd_data(&r));
        CHECK_OK(bwd_weights(&r, CUDNN_WGRAD_MODE_SET));
        if (run == 0) {
            memcpy(tr, r.out, no * 4), memcpy(dq, r.dq, nq * 4), memcpy(dw, r.dw, nw * 4);
            CHECK_MSG(!same_f32(tr, inf, no), "training with dropout 0.5 equals inference");
        } else {
            CHECK_MSG(same_f32(tr, r.out, no) && same_f32(dq, r.dq, nq) && same_f32(dw, r.dw, nw),
                      "the same seed gave different training results");
        }
    }
    CHECK_OK(freednnSetNumThreads(handle, 1));
    CHECK_OK(forward(&r, r.rsbytes, r.rs)); /* the states advanced: new masks */
    CHECK_MSG(!same_f32(tr, r.out, no), "a second training forward reused the masks");
    /* no states: BAD_PARAM in training, nothing written; inference runs */
    CHECK_OK(cudnnSetDropoutDescriptor(drop, handle, 0.5f, NULL, 0, 1));
    fdnn_poison_f32(r.out, no);
    CHECK_STATUS(forward(&r, r.rsbytes, r.rs), CUDNN_STATUS_BAD_PARAM);
    CHECK_MSG(all_nan(r.out, no), "a failed forward wrote to out");
    CHECK_OK(forward(&r, 0, NULL));
    teardown(&r);
    cudnnDestroyDropoutDescriptor(drop);
    fdnn_guarded_free(states);
    free(inf), free(tr), free(dq), free(dw);
}

/* L(x) = sum over computed rows of <dout, out(x)>, by the reference forward. */
static double
loss(const run_t *r, const double *w, const double *q, const double *k, const double *v, const double *dout,
     double *out, bool *written)
{
    fdnn_ref_attn_forward(&r->ref, w, q, NULL, k, v, out, written);
    double sum = 0;
    for (int64_t row = 0; row < r->nq; row++)
        if (written[row])
            for (int64_t e = 0; e < r->oLen; e++)
                sum += dout[row * r->oLen + e] * out[row * r->oLen + e];
    return sum;
}

/* The reference backward against central differences of the reference
 * forward, for every element of q, k, v and the weights. */
static void
fd_case(const cfg_t *c, const char *name)
{
    run_t r;
    setup(&r, c, NULL, true);
    size_t n[4] = {r.nw, (size_t)(r.nq * c->qS), (size_t)(r.nk * c->kS), (size_t)(r.nk * c->vS)};
    double *x[4] = {to_f64(r.w, n[0]), to_f64(r.q, n[1]), to_f64(r.k, n[2]), to_f64(r.v, n[3])};
    double *g[4];
    for (int i = 0; i < 4; i++)
        g[i] = malloc(n[i] * 8 + 8);
    double *dout = to_f64(r.dout, (size_t)(r.nq * r.oLen)), *out = malloc((size_t)(r.nq * r.oLen) * 8);
    bool *written = malloc((size_t)r.nq);
    fdnn_ref_attn_backward(&r.ref, x[0], x[1], x[2], x[3], dout, g[1], g[2], g[3], g[0]);
    const char *names[4] = {"w", "q", "k", "v"};
    const double eps = 1e-6;
    for (int i = 0; i < 4; i++) {
        double worst = 0, biggest = 0;
        for (size_t e = 0; e < n[i]; e++) {
            double keep = x[i][e];
            x[i][e] = keep + eps;
            double up = loss(&r, x[0], x[1], x[2], x[3], dout, out, written);
            x[i][e] = keep - eps;
            double down = loss(&r, x[0], x[1], x[2], x[3], dout, out, written);
            x[i][e] = keep;
            double fd = (up - down) / (2 * eps), err = fabs(fd - g[i][e]) / fmax(1.0, fabs(fd));
            worst = err <= worst ? worst : isnan(err) ? INFINITY : err;
            biggest = fmax(biggest, fabs(fd));
        }
        CHECK_MSG(worst <= 1e-7, "%s: reference d%s vs finite differences: max rel err %.3g", name, names[i], worst);
        CHECK_MSG(n[i] == 0 || biggest > 1e-3, "%s: every d%s is about 0; the check proves nothing", name, names[i]);
    }
    for (int i = 0; i < 4; i++)
        free(x[i]), free(g[i]);
    free(dout), free(out), free(written);
    teardown(&r);
}

static void
test_reference(void)
{
    const cfg_t a = {2, 3, 4, 3, 2, 2, 2, 3, true, false, true, false, 2, 2, 3, 4};
    const cfg_t b = {2, 3, 3, 2, 0, 0, 0, 0, false, true, false, false, 2, 1, 4, 3};
    const cfg_t d = {2, 3, 3, 4, 0, 0, 3, 2, true, false, false, false, 1, 3, 3, 5};
    fd_case(&a, "fd projections, beams");
    fd_case(&b, "fd no projections");
    fd_case(&d, "fd Q/K off");
}

int
main(void)
{
    fdnn_rng_seed(&rng, 91);
    CHECK_OK(cudnnCreate(&handle));
    test_reference();
    test_reserve_size();
    test_bad_inputs();
    test_dropout();
    test_values();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_attn_bwd");
}
