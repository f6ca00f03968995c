/* SPDX-License-Identifier: Apache-2.0
 * cudnnGetMultiHeadAttnBuffers, cudnnGetMultiHeadAttnWeights and
 * cudnnMultiHeadAttnForward against the float64 reference
 * (src/ref/attn_ref.c): projections on and off, biases, several heads,
 * beams (ALL_TO_ONE) and ONE_TO_ONE, two axis orders, random sequence
 * lengths and attention windows (empty ones included), residuals, currIdx,
 * more query rows than one block (64),
 * padding fill; the weight addresses and descriptors follow the documented
 * layout; every ISA level, 1, 2 and 3 threads bitwise equal on each; rows that must
 * not be written stay poisoned; bad inputs with their statuses.  Training
 * mode (a reserve space) is tested with the backward in test_attn_bwd.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "freednn.h"
#include "ref/attn_ref.h"
#include "testutil.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

typedef struct cfg {
    int H, qS, kS, vS, qP, kP, vP, oP;
    bool biases, one_to_one, time_major, residual, fill;
    int batch, beam, qT, kT, curr;
    bool full;       /* every sequence at full length (the O projection writes out directly) */
    bool res_in_out; /* the residuals are out's own contents (needs full, qS == oLen) */
} cfg_t;

typedef struct run {
    cudnnAttnDescriptor_t attn;
    cudnnSeqDataDescriptor_t qd, kd, vd, od;
    int *q_len, *k_len, *lo, *hi;
    float *w, *q, *k, *v, *res, *out, *ws;
    size_t wbytes, wsbytes;
    int64_t nq, nk, oLen;
    fdnn_ref_attn_t ref;
} run_t;

static const cudnnSeqDataAxis_t batch_major[4] = {CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                                  CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_VECT_DIM};
static const cudnnSeqDataAxis_t time_major[4] = {CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BATCH_DIM,
                                                 CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_VECT_DIM};

static cudnnSeqDataDescriptor_t
seq_desc(const cfg_t *c, int T, int beam, int vect, const int *lens, bool fill)
{
    cudnnSeqDataDescriptor_t d;
    cudnnCreateSeqDataDescriptor(&d);
    int dims[4];
    dims[CUDNN_SEQDATA_TIME_DIM] = T, dims[CUDNN_SEQDATA_BATCH_DIM] = c->batch;
    dims[CUDNN_SEQDATA_BEAM_DIM] = beam, dims[CUDNN_SEQDATA_VECT_DIM] = vect;
    float fill_value = -7.0f;
    CHECK_OK(cudnnSetSeqDataDescriptor(d, CUDNN_DATA_FLOAT, 4, dims, c->time_major ? time_major : batch_major,
                                       (size_t)c->batch * beam, lens, fill ? &fill_value : NULL));
    return d;
}

static void
strides(const cfg_t *c, int T, int beam, int64_t st[3])
{
    if (c->time_major) /* rows: t, b, m */
        st[0] = (int64_t)c->batch * beam, st[1] = beam, st[2] = 1;
    else /* rows: b, m, t */
        st[0] = 1, st[1] = (int64_t)beam * T, st[2] = T;
}

static float *
rand_buf(size_t n, double range)
{
    /* at least one element: fdnn_guarded_free faults on a 0-byte buffer */
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
        d[i] = p ? p[i] : 0;
    return d;
}

/* Checks that every weight kind's address and descriptor match the layout
 * of attn.h, and fills the weights. */
static void
check_weight_layout(run_t *r, const cfg_t *c)
{
    cudnnTensorDescriptor_t wd;
    cudnnCreateTensorDescriptor(&wd);
    int qP = c->qP ? c->qP : c->qS, vP = c->vP ? c->vP : c->vS, oLen = (int)r->oLen;
    int64_t off = 0;
    for (int kind = 0; kind < CUDNN_ATTN_WKIND_COUNT; kind++) {
        void *addr = (void *)1;
        CHECK_OK(cudnnGetMultiHeadAttnWeights(handle, r->attn, (cudnnMultiHeadAttnWeightKind_t)kind, r->wbytes, r->w,
                                              wd, &addr));
        int proj[4] = {c->qP, c->kP, c->vP, c->oP}, size[4] = {c->qS, c->kS, c->vS, 0};
        bool present = proj[kind % 4] > 0 && (kind < 4 || c->biases);
        if (!present) {
            CHECK_MSG(addr == NULL, "weight kind %d should be absent", kind);
            continue;
        }
        CHECK_MSG(addr == (void *)(r->w + off), "weight kind %d at offset %td, expected %lld", kind,
                  (float *)addr - r->w, (long long)off);
        cudnnDataType_t dt;
        int nd = 0, dims[3] = {0}, st[3] = {0};
        CHECK_OK(cudnnGetTensorNdDescriptor(wd, 3, &dt, &nd, dims, st));
        int P = kind % 4 == 3 ? oLen : kind % 4 == 2 ? vP : qP;
        int64_t n = 0;
        bool ok = nd == 3 && dt == CUDNN_DATA_FLOAT;
        if (kind < 3) { /* (h, p, s) at (h*P + p) + s*H*P */
            ok = ok && dims[0] == c->H && dims[1] == P && dims[2] == size[kind] && st[0] == P && st[1] == 1 &&
                 st[2] == c->H * P;
            n = (int64_t)c->H * P * size[kind];
        } else if (kind == 3) { /* (h, o, v) at o + (h*vP + v)*oLen */
            ok = ok && dims[0] == c->H && dims[1] == oLen && dims[2] == vP && st[0] == vP * oLen && st[1] == 1 &&
                 st[2] == oLen;
            n = (int64_t)c->H * oLen * vP;
        } else if (kind < 7) {
            ok = ok && dims[0] == c->H && dims[1] == P && dims[2] == 1 && st[0] == P && st[1] == 1;
            n = (int64_t)c->H * P;
        } else {
            ok = ok && dims[0] == 1 && dims[1] == oLen && dims[2] == 1 && st[1] == 1;
            n = oLen;
        }
        CHECK_MSG(ok, "weight kind %d descriptor: %d dims %dx%dx%d strides %d,%d,%d", kind, nd, dims[0], dims[1],
                  dims[2], st[0], st[1], st[2]);
        off += n;
    }
    CHECK_MSG((size_t)off * sizeof(float) == r->wbytes, "weights take %lld floats, buffer %zu bytes",
              (long long)off, r->wbytes);
    cudnnDestroyTensorDescriptor(wd);
}

static void
setup(run_t *r, const cfg_t *c)
{
    memset(r, 0, sizeof(*r));
    int kv_beam = c->one_to_one ? c->beam : 1;
    CHECK_OK(cudnnCreateAttnDescriptor(&r->attn));
    unsigned mode = (c->one_to_one ? CUDNN_ATTN_QUERYMAP_ONE_TO_ONE : CUDNN_ATTN_QUERYMAP_ALL_TO_ONE) |
                    (c->biases ? CUDNN_ATTN_ENABLE_PROJ_BIASES : CUDNN_ATTN_DISABLE_PROJ_BIASES);
    double scaler = 1.0 / sqrt((double)(c->qP ? c->qP : c->qS));
    CHECK_OK(cudnnSetAttnDescriptor(r->attn, mode, c->H, scaler, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                    CUDNN_DEFAULT_MATH, NULL, NULL, c->qS, c->kS, c->vS, c->qP, c->kP, c->vP, c->oP,
                                    c->qT + 1, c->kT + 2, c->batch, c->beam));
    size_t reserve = 0;
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(handle, r->attn, &r->wbytes, &r->wsbytes, &reserve));
    CHECK(reserve > 0); /* training mode (test_attn_bwd.c) */
    r->oLen = c->oP ? c->oP : (int64_t)c->H * (c->vP ? c->vP : c->vS);
    r->q_len = malloc(sizeof(int) * (size_t)(c->batch * c->beam));
    r->k_len = malloc(sizeof(int) * (size_t)(c->batch * kv_beam));
    for (int i = 0; i < c->batch * c->beam; i++)
        r->q_len[i] = c->full ? c->qT : fdnn_rng_int(&rng, 1, c->qT);
    for (int i = 0; i < c->batch * kv_beam; i++)
        r->k_len[i] = c->full ? c->kT : fdnn_rng_int(&rng, 1, c->kT);
    r->lo = malloc(sizeof(int) * (size_t)c->qT);
    r->hi = malloc(sizeof(int) * (size_t)c->qT);
    for (int t = 0; t < c->qT; t++) {
        int kind = fdnn_rng_int(&rng, 0, 3);
        r->lo[t] = kind == 0 ? 0 : fdnn_rng_int(&rng, -1, c->kT - 1);
        r->hi[t] = kind == 0 ? c->kT : kind == 1 ? r->lo[t] : fdnn_rng_int(&rng, r->lo[t], c->kT + 1);
    }
    r->qd = seq_desc(c, c->qT, c->beam, c->qS, r->q_len, false);
    r->od = seq_desc(c, c->qT, c->beam, (int)r->oLen, r->q_len, c->fill);
    r->kd = seq_desc(c, c->kT, kv_beam, c->kS, r->k_len, false);
    r->vd = seq_desc(c, c->kT, kv_beam, c->vS, r->k_len, false);
    r->nq = (int64_t)c->qT * c->batch * c->beam;
    r->nk = (int64_t)c->kT * c->batch * kv_beam;
    r->w = rand_buf(r->wbytes / sizeof(float), 0.5);
    r->q = rand_buf((size_t)(r->nq * c->qS), 1.0);
    r->k = rand_buf((size_t)(r->nk * c->kS), 1.0);
    r->v = rand_buf((size_t)(r->nk * c->vS), 1.0);
    r->res = c->residual ? rand_buf((size_t)(r->nq * c->qS), 1.0) : NULL;
    r->out = fdnn_guarded_alloc((size_t)(r->nq * r->oLen) * sizeof(float));
    r->ws = fdnn_guarded_alloc(r->wsbytes ? r->wsbytes : 4);
    check_weight_layout(r, c);
    r->ref = (fdnn_ref_attn_t){.H = c->H, .scaler = (float)scaler, .one_to_one = c->one_to_one,
                               .biases = c->biases, .qS = c->qS, .kS = c->kS, .vS = c->vS, .qProj = c->qP,
                               .kProj = c->kP, .vProj = c->vP, .oProj = c->oP, .batch = c->batch, .beam = c->beam,
                               .qT = c->qT, .kT = c->kT, .q_len = r->q_len, .k_len = r->k_len, .lo = r->lo,
                               .hi = r->hi, .curr = c->curr};
    strides(c, c->qT, c->beam, r->ref.q_st);
    strides(c, c->qT, c->beam, r->ref.o_st);
    strides(c, c->kT, kv_beam, r->ref.k_st);
}

static void
teardown(run_t *r)
{
    cudnnDestroyAttnDescriptor(r->attn);
    cudnnDestroySeqDataDescriptor(r->qd), cudnnDestroySeqDataDescriptor(r->kd);
    cudnnDestroySeqDataDescriptor(r->vd), cudnnDestroySeqDataDescriptor(r->od);
    free(r->q_len), free(r->k_len), free(r->lo), free(r->hi);
    fdnn_guarded_free(r->w), fdnn_guarded_free(r->q), fdnn_guarded_free(r->k), fdnn_guarded_free(r->v);
    if (r->res)
        fdnn_guarded_free(r->res);
    fdnn_guarded_free(r->out), fdnn_guarded_free(r->ws);
}

/* The workspace size depends on the handle's ISA level, which run_case
 * steps through (the scalar level needs more than AVX2): query it again and
 * reallocate at the exact size, so a write past the level's own size still
 * faults.  A program never changes a handle's level between the query and
 * the call; this test does, so it queries per level. */
static void
size_workspace_for_isa(run_t *r)
{
    size_t reserve = 0;
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(handle, r->attn, &r->wbytes, &r->wsbytes, &reserve));
    fdnn_guarded_free(r->ws);
    r->ws = fdnn_guarded_alloc(r->wsbytes ? r->wsbytes : 4);
}

static cudnnStatus_t
forward(run_t *r, int curr, bool res_in_out)
{
    const float *res = r->res;
    if (res_in_out) { /* out holds the residuals, read where the result goes */
        memcpy(r->out, r->res, (size_t)(r->nq * r->oLen) * sizeof(float));
        res = r->out;
    }
    return cudnnMultiHeadAttnForward(handle, r->attn, curr, r->lo, r->hi, r->q_len, r->k_len, r->qd, r->q, res,
                                     r->kd, r->k, r->vd, r->v, r->od, r->out, r->wbytes, r->w, r->wsbytes, r->ws, 0,
                                     NULL);
}

#define UNWRITTEN 1.0e30f

static void
run_case(const cfg_t *c, const char *name)
{
    run_t r;
    setup(&r, c);
    size_t no = (size_t)(r.nq * r.oLen);
    double *w = to_f64(r.w, r.wbytes / sizeof(float)), *q = to_f64(r.q, (size_t)(r.nq * c->qS));
    double *k = to_f64(r.k, (size_t)(r.nk * c->kS)), *v = to_f64(r.v, (size_t)(r.nk * c->vS));
    double *res = r.res ? to_f64(r.res, (size_t)(r.nq * c->qS)) : NULL, *want = malloc(no * sizeof(double));
    bool *written = calloc((size_t)r.nq, sizeof(bool));
    fdnn_ref_attn_forward(&r.ref, w, q, res, k, v, want, written);
    float *first = malloc(no * sizeof(float));
    for (int i = 0; i < fdnn_test_isa_count(); i++)
        for (int th = 1; th <= 3; th++) { /* 3: more threads than cores and than some tasks (core/pool_slots.h) */
            CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(i)));
            CHECK_OK(freednnSetNumThreads(handle, th));
            size_workspace_for_isa(&r);
            /* A finite sentinel, not NaN: the workspace is NaN-poisoned, so
             * a row computed from unwritten workspace rows would pass as
             * untouched NaN; huge, so a read of out shows in the error. */
            for (size_t e = 0; e < no; e++)
                r.out[e] = UNWRITTEN;
            fdnn_poison_bytes(r.ws, r.wsbytes);
            CHECK_OK(forward(&r, c->curr, c->res_in_out));
            if (th == 1) {
                double worst = 0;
                int64_t bad = -1;
                bool rows_ok = true;
                for (int64_t row = 0; row < r.nq; row++) {
                    /* the row's time step and sequence, for padding rows */
                    int64_t t = c->time_major ? row / ((int64_t)c->batch * c->beam) : row % c->qT;
                    int64_t seq = c->time_major ? row % ((int64_t)c->batch * c->beam) : row / c->qT;
                    bool padded = t >= r.q_len[seq] && (c->curr < 0 || t == c->curr);
                    for (int64_t e = 0; e < r.oLen; e++) {
                        float g = r.out[row * r.oLen + e];
                        if (written[row]) {
                            double err = fabs(g - want[row * r.oLen + e]) / fmax(1.0, fabs(want[row * r.oLen + e]));
                            if (!(err <= worst))
                                worst = isnan(err) ? INFINITY : err, bad = row;
                        } else if (padded && c->fill) {
                            rows_ok = rows_ok && g == -7.0f;
                        } else {
                            rows_ok = rows_ok && g == UNWRITTEN;
                        }
                    }
                }
                CHECK_MSG(worst <= 2e-5, "%s (%s): max rel err %.3g at row %lld", name, fdnn_test_isa_name(i), worst,
                          (long long)bad);
                CHECK_MSG(rows_ok, "%s: rows that must not be written were (or padding not filled)", name);
                memcpy(first, r.out, no * sizeof(float));
            } else {
                bool same = true;
                for (size_t e = 0; e < no; e++)
                    same = same && (memcmp(&first[e], &r.out[e], 4) == 0 || (isnan(first[e]) && isnan(r.out[e])));
                CHECK_MSG(same, "%s: isa %s, %d threads differ from 1", name, fdnn_test_isa_name(i), th);
            }
        }
    free(first), free(w), free(q), free(k), free(v), free(res), free(want), free(written);
    teardown(&r);
}

static void
test_values(void)
{
    const cfg_t cases[] = {
        /* H qS kS vS qP kP vP oP biases 1:1 tmajor resid fill batch beam qT kT curr full res==out */
        {4, 16, 16, 16, 4, 4, 4, 16, true, false, false, true, false, 3, 1, 7, 9, -1, false, false},   /* transformer-like */
        {2, 8, 8, 6, 3, 3, 5, 8, false, false, true, true, true, 2, 2, 5, 6, -1, false, false},       /* beams, time-major */
        {3, 5, 5, 4, 0, 0, 0, 0, false, true, false, false, false, 2, 1, 4, 3, -1, false, false},     /* no projections */
        {1, 1, 1, 1, 1, 1, 1, 1, true, false, false, true, true, 1, 1, 1, 1, -1, false, false},       /* all 1 */
        {2, 6, 7, 5, 3, 3, 2, 0, true, false, true, false, true, 2, 2, 6, 5, 2, false, false},        /* currIdx, no O proj */
        {2, 6, 6, 6, 3, 3, 3, 6, true, true, true, true, false, 1, 1, 3, 8, 0, false, false},         /* currIdx 0 */
        {2, 8, 8, 8, 4, 4, 4, 8, true, false, false, false, false, 2, 1, 150, 70, -1, false, false},  /* 3 row blocks */
        /* full-length sequences: the O projection writes out itself */
        {4, 16, 16, 16, 4, 4, 4, 16, true, false, false, true, false, 3, 1, 70, 9, -1, true, false},   /* + residual */
        {2, 8, 8, 6, 3, 3, 5, 8, false, false, true, false, false, 2, 2, 66, 33, -1, true, false},    /* beams, time-major */
        {3, 12, 10, 7, 5, 5, 3, 12, true, true, false, false, true, 3, 1, 150, 37, -1, true, false}, /* odd heads, 1:1 */
        {2, 8, 8, 8, 4, 4, 4, 8, false, false, false, true, false, 2, 1, 20, 17, -1, true, true}, /* res == out */
        /* partial lengths with a fill value: direct as well */
        {2, 8, 8, 8, 3, 3, 5, 8, true, false, true, true, true, 3, 1, 70, 41, -1, false, false},
    };
    char name[64];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(name, sizeof(name), "case %zu", i);
        run_case(&cases[i], name);
    }
}

static void
test_bad_inputs(void)
{
    const cudnnStatus_t BAD = CUDNN_STATUS_BAD_PARAM, NS = CUDNN_STATUS_NOT_SUPPORTED;
    cfg_t c = {2, 8, 8, 8, 4, 4, 4, 6, true, false, false, false, false, 2, 1, 4, 5, -1, false, false};
    run_t r;
    setup(&r, &c);
    size_t no = (size_t)(r.nq * r.oLen);
    fdnn_poison_f32(r.out, no);
    void *addr;
    size_t a, b;
    CHECK_STATUS(cudnnGetMultiHeadAttnBuffers(NULL, r.attn, &a, &b, NULL), BAD);
    CHECK_STATUS(cudnnGetMultiHeadAttnBuffers(handle, NULL, &a, &b, NULL), BAD);
    CHECK_STATUS(cudnnGetMultiHeadAttnBuffers(handle, r.attn, NULL, &b, NULL), BAD);
    CHECK_STATUS(cudnnGetMultiHeadAttnWeights(handle, r.attn, (cudnnMultiHeadAttnWeightKind_t)8, r.wbytes, r.w, NULL,
                                              &addr),
                 BAD);
    CHECK_STATUS(cudnnGetMultiHeadAttnWeights(handle, r.attn, CUDNN_MH_ATTN_Q_WEIGHTS, r.wbytes, r.w, NULL, NULL),
                 BAD);
    CHECK_STATUS(cudnnGetMultiHeadAttnWeights(handle, r.attn, CUDNN_MH_ATTN_Q_WEIGHTS, r.wbytes - 4, r.w, NULL,
                                              &addr),
                 BAD);
    CHECK_STATUS(cudnnGetMultiHeadAttnWeights(handle, r.attn, CUDNN_MH_ATTN_Q_WEIGHTS, r.wbytes, NULL, NULL, &addr),
                 BAD);
#define FWD(curr, lo, hi, lq, lk, q, res, o, wb, w, wsb, ws, rsb, rs)                                                \
    cudnnMultiHeadAttnForward(handle, r.attn, curr, lo, hi, lq, lk, r.qd, q, res, r.kd, r.k, r.vd, r.v, r.od, o, wb, \
                              w, wsb, ws, rsb, rs)
    /* a reserve space smaller than the query's answer (training mode) */
    float reserve[4];
    CHECK_STATUS(FWD(-1, r.lo, r.hi, r.q_len, r.k_len, r.q, NULL, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 16, reserve),
                 BAD);
    CHECK_STATUS(FWD(4, r.lo, r.hi, r.q_len, r.k_len, r.q, NULL, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL), BAD);
    CHECK_STATUS(FWD(-1, NULL, r.hi, r.q_len, r.k_len, r.q, NULL, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL),
                 BAD);
    CHECK_STATUS(FWD(-1, r.lo, r.hi, NULL, r.k_len, r.q, NULL, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL), BAD);
    int wrong_len[2] = {r.k_len[0] == 1 ? 2 : 1, r.k_len[1]};
    CHECK_STATUS(FWD(-1, r.lo, r.hi, r.q_len, wrong_len, r.q, NULL, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL),
                 BAD);
    CHECK_STATUS(FWD(-1, r.lo, r.hi, r.q_len, r.k_len, NULL, NULL, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL),
                 BAD);
    CHECK_STATUS(FWD(-1, r.lo, r.hi, r.q_len, r.k_len, r.q, NULL, NULL, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL), BAD);
    CHECK_STATUS(FWD(-1, r.lo, r.hi, r.q_len, r.k_len, r.q, NULL, r.out, r.wbytes - 4, r.w, r.wsbytes, r.ws, 0, NULL),
                 BAD);
    CHECK_STATUS(FWD(-1, r.lo, r.hi, r.q_len, r.k_len, r.q, NULL, r.out, r.wbytes, r.w, r.wsbytes - 4, r.ws, 0, NULL),
                 BAD);
    CHECK_STATUS(FWD(-1, r.lo, r.hi, r.q_len, r.k_len, r.q, NULL, r.out, r.wbytes, r.w, r.wsbytes, NULL, 0, NULL),
                 BAD);
    /* residuals need oLen (6) == qSize (8) */
    CHECK_STATUS(FWD(-1, r.lo, r.hi, r.q_len, r.k_len, r.q, r.q, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL), BAD);
    /* q where k belongs: VECT and time dims disagree */
    CHECK_STATUS(cudnnMultiHeadAttnForward(handle, r.attn, -1, r.lo, r.hi, r.q_len, r.k_len, r.qd, r.q, NULL, r.qd,
                                           r.k, r.vd, r.v, r.od, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL),
                 BAD);
    CHECK_STATUS(cudnnMultiHeadAttnForward(handle, r.attn, -1, r.lo, r.hi, r.q_len, r.k_len, r.qd, r.q, NULL, r.kd,
                                           r.k, r.vd, r.v, r.qd, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL),
                 BAD);
    bool untouched = true;
    for (size_t i = 0; i < no; i++)
        untouched = untouched && isnan(r.out[i]);
    CHECK_MSG(untouched, "a failed call wrote to out");
    /* FLOAT sequence data with a DOUBLE or HALF descriptor: BAD_PARAM (the
     * HALF path itself: test_attn_half) */
    cudnnAttnDescriptor_t dd;
    cudnnCreateAttnDescriptor(&dd);
    CHECK_OK(cudnnSetAttnDescriptor(dd, 0, 2, 1.0, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, NULL,
                                    NULL, 8, 8, 8, 4, 4, 4, 6, 5, 6, 2, 1));
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(handle, dd, &a, &b, NULL));
    CHECK(a == r.wbytes / 4 * 8 - (size_t)(2 * 4 * 3 + 6) * 8); /* no biases in dd */
    CHECK_STATUS(cudnnMultiHeadAttnForward(handle, dd, -1, r.lo, r.hi, r.q_len, r.k_len, r.qd, r.q, NULL, r.kd, r.k,
                                           r.vd, r.v, r.od, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL),
                 BAD);
    CHECK_OK(cudnnSetAttnDescriptor(dd, 0, 2, 1.0, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, NULL,
                                    NULL, 8, 8, 8, 4, 4, 4, 6, 5, 6, 2, 1));
    CHECK_STATUS(cudnnMultiHeadAttnForward(handle, dd, -1, r.lo, r.hi, r.q_len, r.k_len, r.qd, r.q, NULL, r.kd, r.k,
                                           r.vd, r.v, r.od, r.out, r.wbytes, r.w, r.wsbytes, r.ws, 0, NULL),
                 BAD);
    /* sizes whose products overflow 64 bits */
    CHECK_OK(cudnnSetAttnDescriptor(dd, 0, 1 << 20, 1.0, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH,
                                    NULL, NULL, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30,
                                    1 << 30, 1 << 30, 1 << 30, 1));
    CHECK_STATUS(cudnnGetMultiHeadAttnBuffers(handle, dd, &a, &b, NULL), NS);
    CHECK_STATUS(cudnnGetMultiHeadAttnWeights(handle, dd, CUDNN_MH_ATTN_Q_WEIGHTS, SIZE_MAX, r.w, NULL, &addr), NS);
    cudnnDestroyAttnDescriptor(dd);
#undef FWD
    teardown(&r);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 77);
    CHECK_OK(cudnnCreate(&handle));
    test_bad_inputs();
    test_values();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_attn_fwd");
}
