/* SPDX-License-Identifier: Apache-2.0
 * DOUBLE multi-head attention (dataType = computePrec = DOUBLE) and
 * attention/post dropout in training, without PyTorch:
 *  - the inference forward against the float64 reference (1e-12), the
 *    training forward, backward data and backward weights against the
 *    reference backward (1e-10), on 1 and 2 threads with bitwise equal
 *    results;
 *  - with attention dropout (p 0.3) and post dropout (p 0.4, a second
 *    descriptor): the training forward against the reference given the
 *    masks this test computes from the documented Philox rule and element
 *    numbering (docs/attention.md); every element of dq, dk, dv and
 *    dweights against central differences of training forwards that replay
 *    the same masks (both descriptors set again with their seeds before
 *    each forward).
 * Outputs poisoned before each call; rows past the lengths must stay so. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "freednn.h"
#include "cpu/dropout/philox.h"
#include "ref/attn_ref.h"
#include "testutil.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

enum { H = 2, S = 6, P = 3, OP = 5, N = 2, QT = 4, KT = 5 };
static int q_len[N] = {4, 3}, k_len[N] = {5, 4};
static int lo[QT] = {0, 1, -1, 0}, hi[QT] = {5, 5, 4, 6};

typedef struct run {
    cudnnAttnDescriptor_t attn;
    cudnnDropoutDescriptor_t drop[2];
    void *states[2];
    size_t ssize;
    float rate[2];
    cudnnSeqDataDescriptor_t qd, kd, vd, od;
    size_t wbytes, wsbytes, rsbytes, nw;
    double *w, *q, *k, *v, *dout, *out, *dq, *dk, *dv, *dw, *ws, *rs;
    fdnn_ref_attn_t ref;
} run_t;

#define NQ ((size_t)QT * N * S)
#define NK ((size_t)KT * N * S)
#define NO ((size_t)QT * N * OP)

static double *
rnd(size_t n, double range)
{
    double *p = fdnn_guarded_alloc((n ? n : 1) * sizeof(double));
    for (size_t i = 0; i < n; i++)
        p[i] = fdnn_rng_uniform(&rng, -range, range);
    return p;
}

static cudnnSeqDataDescriptor_t
seq(int T, int vect, const int *lens)
{
    cudnnSeqDataDescriptor_t d;
    int dims[4];
    cudnnSeqDataAxis_t axes[4] = {CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                  CUDNN_SEQDATA_VECT_DIM};
    dims[CUDNN_SEQDATA_TIME_DIM] = T, dims[CUDNN_SEQDATA_BATCH_DIM] = N, dims[CUDNN_SEQDATA_BEAM_DIM] = 1;
    dims[CUDNN_SEQDATA_VECT_DIM] = vect;
    CHECK_OK(cudnnCreateSeqDataDescriptor(&d));
    CHECK_OK(cudnnSetSeqDataDescriptor(d, CUDNN_DATA_DOUBLE, 4, dims, axes, N, lens, NULL));
    return d;
}

static void
reset_dropout(run_t *r)
{
    for (int i = 0; i < 2; i++)
        CHECK_OK(cudnnSetDropoutDescriptor(r->drop[i], handle, r->rate[i], r->states[i], r->ssize,
                                           (unsigned long long)(11 + i)));
}

static void
setup(run_t *r, float attn_rate, float post_rate)
{
    memset(r, 0, sizeof(*r));
    CHECK_OK(cudnnDropoutGetStatesSize(handle, &r->ssize));
    r->rate[0] = attn_rate, r->rate[1] = post_rate;
    for (int i = 0; i < 2; i++) {
        CHECK_OK(cudnnCreateDropoutDescriptor(&r->drop[i]));
        r->states[i] = fdnn_guarded_alloc(r->ssize);
    }
    reset_dropout(r);
    double scaler = 1.0 / sqrt((double)P);
    CHECK_OK(cudnnCreateAttnDescriptor(&r->attn));
    CHECK_OK(cudnnSetAttnDescriptor(r->attn, CUDNN_ATTN_QUERYMAP_ALL_TO_ONE | CUDNN_ATTN_ENABLE_PROJ_BIASES, H,
                                    scaler, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, r->drop[0],
                                    r->drop[1], S, S, S, P, P, P, OP, QT, KT, N, 1));
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(handle, r->attn, &r->wbytes, &r->wsbytes, &r->rsbytes));
    r->nw = r->wbytes / sizeof(double);
    r->qd = seq(QT, S, q_len), r->kd = seq(KT, S, k_len), r->vd = seq(KT, S, k_len), r->od = seq(QT, OP, q_len);
    r->w = rnd(r->nw, 0.5), r->q = rnd(NQ, 1), r->k = rnd(NK, 1), r->v = rnd(NK, 1), r->dout = rnd(NO, 1);
    /* dout is zero on the rows past the lengths, where out is not written */
    for (int t = 0; t < QT; t++)
        for (int b = 0; b < N; b++)
            if (t >= q_len[b])
                memset(r->dout + ((size_t)t * N + b) * OP, 0, OP * sizeof(double));
    r->out = fdnn_guarded_alloc(NO * 8), r->dq = fdnn_guarded_alloc(NQ * 8);
    r->dk = fdnn_guarded_alloc(NK * 8), r->dv = fdnn_guarded_alloc(NK * 8);
    r->dw = fdnn_guarded_alloc(r->nw * 8);
    r->ws = fdnn_guarded_alloc(r->wsbytes ? r->wsbytes : 8), r->rs = fdnn_guarded_alloc(r->rsbytes);
    r->ref = (fdnn_ref_attn_t){.H = H, .scaler = scaler, .biases = true, .qS = S, .kS = S, .vS = S, .qProj = P,
                               .kProj = P, .vProj = P, .oProj = OP, .batch = N, .beam = 1, .qT = QT, .kT = KT,
                               .q_st = {N, 1, 1}, .k_st = {N, 1, 1}, .o_st = {N, 1, 1}, .q_len = q_len,
                               .k_len = k_len, .lo = lo, .hi = hi, .curr = -1};
    CHECK(fdnn_ref_attn_weight_count(&r->ref) == (int64_t)r->nw);
}

static void
teardown(run_t *r)
{
    cudnnDestroyAttnDescriptor(r->attn);
    for (int i = 0; i < 2; i++)
        cudnnDestroyDropoutDescriptor(r->drop[i]), fdnn_guarded_free(r->states[i]);
    cudnnDestroySeqDataDescriptor(r->qd), cudnnDestroySeqDataDescriptor(r->kd);
    cudnnDestroySeqDataDescriptor(r->vd), cudnnDestroySeqDataDescriptor(r->od);
    double *b[] = {r->w, r->q, r->k, r->v, r->dout, r->out, r->dq, r->dk, r->dv, r->dw, r->ws, r->rs};
    for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
        fdnn_guarded_free(b[i]);
}

static void
forward(run_t *r, bool training)
{
    fdnn_poison_f64(r->out, NO);
    if (training)
        reset_dropout(r); /* the same masks at every training forward */
    CHECK_OK(cudnnMultiHeadAttnForward(handle, r->attn, -1, lo, hi, q_len, k_len, r->qd, r->q, NULL, r->kd, r->k,
                                       r->vd, r->v, r->od, r->out, r->wbytes, r->w, r->wsbytes, r->ws,
                                       training ? r->rsbytes : 0, training ? r->rs : NULL));
}

static void
backward(run_t *r)
{
    forward(r, true);
    fdnn_poison_f64(r->dq, NQ), fdnn_poison_f64(r->dk, NK), fdnn_poison_f64(r->dv, NK);
    fdnn_poison_f64(r->dw, r->nw);
    CHECK_OK(cudnnMultiHeadAttnBackwardData(handle, r->attn, lo, hi, q_len, k_len, r->od, r->dout, r->qd, r->dq,
                                            r->q, r->kd, r->dk, r->k, r->vd, r->dv, r->v, r->wbytes, r->w,
                                            r->wsbytes, r->ws, r->rsbytes, r->rs));
    CHECK_OK(cudnnMultiHeadAttnBackwardWeights(handle, r->attn, CUDNN_WGRAD_MODE_SET, r->qd, r->q, r->kd, r->k,
                                               r->vd, r->v, r->od, r->dout, r->wbytes, r->w, r->dw, r->wsbytes,
                                               r->ws, r->rsbytes, r->rs));
}

static bool
row_inside(size_t i, int vect, int T, const int *lens)
{
    (void)T; /* time-major rows: T is implied */
    size_t row = i / (size_t)vect; /* time-major: row = t * N + b */
    return (int)(row / N) < lens[row % N];
}

/* Max relative error over the rows inside the lengths (every element when
 * lens is NULL); counts into *bad_pad the rows outside that were written
 * (they must keep their NaN poison). */
static double
max_err(const double *got, const double *want, size_t n, int vect, int T, const int *lens, int *bad_pad)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens && !row_inside(i, vect, T, lens)) {
            *bad_pad += !isnan(got[i]);
            continue;
        }
        double d = fabs(got[i] - want[i]) / (1 + fabs(want[i]));
        e = isnan(got[i]) ? INFINITY : d > e ? d : e;
    }
    return e;
}

static void
test_against_reference(void)
{
    run_t r;
    setup(&r, 0.0f, 0.0f);
    double *ro = calloc(NO, 8), *rq = calloc(NQ, 8), *rk = calloc(NK, 8), *rv = calloc(NK, 8);
    double *rw = calloc(r.nw, 8), *keep[5];
    bool *written = calloc(QT * N, sizeof(bool));
    fdnn_ref_attn_forward(&r.ref, r.w, r.q, NULL, r.k, r.v, ro, written);
    fdnn_ref_attn_backward(&r.ref, r.w, r.q, r.k, r.v, r.dout, rq, rk, rv, rw);
    for (int th = 1; th <= 2; th++) {
        CHECK_OK(freednnSetNumThreads(handle, th));
        int pad = 0;
        forward(&r, false);
        double e = max_err(r.out, ro, NO, OP, QT, q_len, &pad);
        CHECK_MSG(e < 1e-12 && pad == 0, "DOUBLE forward: err %.3g, %d padding values written", e, pad);
        backward(&r);
        e = max_err(r.out, ro, NO, OP, QT, q_len, &pad);
        double eq = max_err(r.dq, rq, NQ, S, QT, q_len, &pad), ek = max_err(r.dk, rk, NK, S, KT, k_len, &pad);
        double ev = max_err(r.dv, rv, NK, S, KT, k_len, &pad), ew = max_err(r.dw, rw, r.nw, 1, 1, NULL, &pad);
        CHECK_MSG(e < 1e-12 && eq < 1e-10 && ek < 1e-10 && ev < 1e-10 && ew < 1e-10 && pad == 0,
                  "DOUBLE training/backward, %d threads: out %.3g dq %.3g dk %.3g dv %.3g dw %.3g, %d padding "
                  "values written",
                  th, e, eq, ek, ev, ew, pad);
        double *cur[5] = {r.out, r.dq, r.dk, r.dv, r.dw};
        size_t n[5] = {NO, NQ, NK, NK, r.nw};
        for (int i = 0; i < 5; i++) {
            if (th == 1) {
                keep[i] = malloc(n[i] * 8);
                memcpy(keep[i], cur[i], n[i] * 8);
            } else {
                CHECK_MSG(memcmp(keep[i], cur[i], n[i] * 8) == 0, "DOUBLE output %d differs on 2 threads", i);
                free(keep[i]);
            }
        }
    }
    free(ro), free(rq), free(rk), free(rv), free(rw), free(written);
    teardown(&r);
}

static double
loss(run_t *r)
{
    forward(r, true);
    double L = 0;
    for (size_t i = 0; i < NO; i++)
        if (row_inside(i, OP, QT, q_len))
            L += r->dout[i] * r->out[i];
    return L;
}

/* Every element of x against a central difference of the loss. */
static int
check_fd(run_t *r, double *x, const double *grad, size_t n, int vect, int T, const int *lens, const char *what)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens && !row_inside(i, vect, T, lens))
            continue;
        double keep = x[i], h = 1e-6;
        x[i] = keep + h;
        double lp = loss(r);
        x[i] = keep - h;
        double lm = loss(r);
        x[i] = keep;
        double want = (lp - lm) / (2 * h);
        if (!(fabs(grad[i] - want) <= 1e-6 * (1 + fabs(want)))) {
            if (bad == 0)
                fprintf(stderr, "%s[%zu]: %.12g, finite differences %.12g\n", what, i, grad[i], want);
            bad++;
        }
    }
    return bad;
}

/* n factors of call 0 under seed: 0 or 1/(1-p). */
static double *
masks(float p, uint64_t seed, size_t n)
{
    double *m = malloc(n * sizeof(double));
    uint64_t thr = (uint64_t)((double)p * 4294967296.0);
    for (size_t i = 0; i < n; i++)
        m[i] = fdnn_dropout_random(seed, 0, i) >= thr ? 1.0 / (1.0 - (double)p) : 0.0;
    return m;
}

static void
test_dropout_gradients(void)
{
    run_t r;
    setup(&r, 0.3f, 0.4f);
    CHECK_OK(freednnSetNumThreads(handle, 2));
    backward(&r);
    /* the training output is the reference's with the documented masks */
    double *am = masks(0.3f, 11, (size_t)N * H * QT * KT), *pm = masks(0.4f, 12, NO), *ro = calloc(NO, 8);
    bool *written = calloc(QT * N, sizeof(bool));
    r.ref.attn_drop = am, r.ref.post_drop = pm;
    fdnn_ref_attn_forward(&r.ref, r.w, r.q, NULL, r.k, r.v, ro, written);
    int pad = 0;
    double e = max_err(r.out, ro, NO, OP, QT, q_len, &pad);
    CHECK_MSG(e < 1e-12 && pad == 0, "training forward with dropout vs the masked reference: err %.3g", e);
    free(am), free(pm), free(ro), free(written);
    double *g[4];
    size_t n[4] = {NQ, NK, NK, r.nw};
    double *src[4] = {r.dq, r.dk, r.dv, r.dw};
    for (int i = 0; i < 4; i++) {
        g[i] = malloc(n[i] * 8);
        memcpy(g[i], src[i], n[i] * 8);
    }
    /* the dropout changes the output (the masks apply) */
    double *tr = malloc(NO * 8);
    memcpy(tr, r.out, NO * 8);
    forward(&r, false);
    int differ = 0;
    for (size_t i = 0; i < NO; i++)
        differ += row_inside(i, OP, QT, q_len) && tr[i] != r.out[i];
    CHECK_MSG(differ > 0, "training with dropout gave the inference output");
    int bad = check_fd(&r, r.q, g[0], NQ, S, QT, q_len, "dq") + check_fd(&r, r.k, g[1], NK, S, KT, k_len, "dk") +
              check_fd(&r, r.v, g[2], NK, S, KT, k_len, "dv") + check_fd(&r, r.w, g[3], r.nw, 1, 1, NULL, "dw");
    CHECK_MSG(bad == 0, "dropout gradients: %d elements differ from central differences", bad);
    for (int i = 0; i < 4; i++)
        free(g[i]);
    free(tr);
    teardown(&r);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 64);
    CHECK_OK(cudnnCreate(&handle));
    test_against_reference();
    test_dropout_gradients();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_attn_f64");
}
