/* SPDX-License-Identifier: Apache-2.0
 * cudnnCTCLoss / cudnnCTCLoss_v8 and the workspace queries against the
 * float64 reference (src/ref/ctc_ref.c), which is itself checked here
 * against brute-force enumeration of every path (cost) and central
 * differences (gradient) on tiny problems.
 *
 * Covers: normMode NONE and SOFTMAX, gradMode NOT_PROPAGATE (0 gradient) and
 * PROPAGATE (NaN) for impossible alignments, repeated labels, empty labels,
 * input lengths shorter than T (and 0), N = 1, A = 2, T = 400 with 150
 * labels, packed T x N x A,
 * batch-major and padded strides, both algorithms, both API generations,
 * every ISA level and 1 or 2 threads with bitwise equal results, guard
 * pages and poisoned outputs; bad inputs with the documented statuses and
 * nothing written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "freednn.h"
#include "ref/ctc_ref.h"
#include "testutil.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

enum { PACKED, BATCH_MAJOR, PADDED };
static const char *layout_names[] = {"packed", "batch-major", "padded"};

/* A T x N x A float tensor in one of three layouts. */
typedef struct ctc_buf {
    cudnnTensorDescriptor_t desc;
    float *mem;
    size_t span;
    int64_t st[3];
} ctc_buf_t;

static void
buf_init(ctc_buf_t *b, int T, int N, int A, int layout)
{
    int pad = layout == PADDED ? 3 : 0;
    if (layout == BATCH_MAJOR) { /* memory N x T x A */
        b->st[2] = 1, b->st[0] = A, b->st[1] = (int64_t)T * A;
    } else {
        b->st[2] = 1, b->st[1] = A + pad, b->st[0] = (int64_t)N * (A + pad);
    }
    b->span = (size_t)((T - 1) * b->st[0] + (N - 1) * b->st[1] + (A - 1) * b->st[2] + 1);
    b->mem = fdnn_guarded_alloc(b->span * sizeof(float));
    fdnn_poison_f32(b->mem, b->span);
    int dims[3] = {T, N, A}, strides[3] = {(int)b->st[0], (int)b->st[1], (int)b->st[2]};
    cudnnCreateTensorDescriptor(&b->desc);
    CHECK_OK(cudnnSetTensorNdDescriptor(b->desc, CUDNN_DATA_FLOAT, 3, dims, strides));
}

static void
buf_free(ctc_buf_t *b)
{
    cudnnDestroyTensorDescriptor(b->desc);
    fdnn_guarded_free(b->mem);
}

static float *
at(ctc_buf_t *b, int t, int n, int a)
{
    return b->mem + t * b->st[0] + n * b->st[1] + a * b->st[2];
}

typedef struct ctc_case {
    int T, N, A;
    const int *labels, *label_lengths, *input_lengths;
} ctc_case_t;

/* Fills probs (probabilities for NONE, activations for SOFTMAX) and the
 * packed double copy the reference reads. */
static void
fill(ctc_buf_t *pb, const ctc_case_t *c, bool softmax, double *x)
{
    for (int t = 0; t < c->T; t++)
        for (int n = 0; n < c->N; n++) {
            double sum = 0;
            float row[64];
            for (int a = 0; a < c->A; a++) {
                row[a] = (float)(softmax ? fdnn_rng_uniform(&rng, -3, 3) : fdnn_rng_uniform(&rng, 0.05, 1));
                sum += row[a];
            }
            for (int a = 0; a < c->A; a++) {
                float v = softmax ? row[a] : (float)(row[a] / sum);
                *at(pb, t, n, a) = v;
                x[((int64_t)t * c->N + n) * c->A + a] = v;
            }
        }
}

static cudnnCTCLossDescriptor_t
make_desc(bool softmax, bool propagate, int max_label)
{
    cudnnCTCLossDescriptor_t d;
    CHECK_OK(cudnnCreateCTCLossDescriptor(&d));
    CHECK_OK(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_FLOAT,
                                          softmax ? CUDNN_LOSS_NORMALIZATION_SOFTMAX : CUDNN_LOSS_NORMALIZATION_NONE,
                                          propagate ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN, max_label));
    return d;
}

/* Runs one case through one API generation; compares costs and gradients
 * with the reference.  Returns the results in got_c / got_g (packed) for
 * the bitwise comparisons. */
static void
run_case(const ctc_case_t *c, bool softmax, bool propagate, int layout, bool v8, int algo, float *got_c,
         float *got_g)
{
    int T = c->T, N = c->N, A = c->A;
    size_t n = (size_t)T * N * A;
    ctc_buf_t pb, gb;
    buf_init(&pb, T, N, A, layout);
    buf_init(&gb, T, N, A, layout == BATCH_MAJOR ? PACKED : layout);
    double *x = malloc(n * 8), *want_g = malloc(n * 8), *want_c = malloc((size_t)N * 8);
    fill(&pb, c, softmax, x);
    fdnn_ref_ctc_loss(T, N, A, softmax, x, c->labels, c->label_lengths, c->input_lengths, propagate ? NAN : 0.0,
                      want_c, want_g);
    float *costs = fdnn_guarded_alloc((size_t)N * sizeof(float));
    fdnn_poison_f32(costs, (size_t)N);
    cudnnCTCLossDescriptor_t d = make_desc(softmax, propagate, 0);
    size_t ws_bytes = 0;
    if (v8)
        CHECK_OK(cudnnGetCTCLossWorkspaceSize_v8(handle, (cudnnCTCLossAlgo_t)algo, d, pb.desc, gb.desc, &ws_bytes));
    else
        CHECK_OK(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, c->labels, c->label_lengths,
                                              c->input_lengths, (cudnnCTCLossAlgo_t)algo, d, &ws_bytes));
    void *ws = fdnn_guarded_alloc(ws_bytes); /* 8-byte aligned, as the workspace must be */
    fdnn_poison_bytes(ws, ws_bytes);
    if (v8)
        CHECK_OK(cudnnCTCLoss_v8(handle, (cudnnCTCLossAlgo_t)algo, d, pb.desc, pb.mem, c->labels, c->label_lengths,
                                 c->input_lengths, costs, gb.desc, gb.mem, ws_bytes, ws));
    else
        CHECK_OK(cudnnCTCLoss(handle, pb.desc, pb.mem, c->labels, c->label_lengths, c->input_lengths, costs, gb.desc,
                              gb.mem, (cudnnCTCLossAlgo_t)algo, d, ws, ws_bytes));
    for (int b = 0; b < N; b++) {
        double w = want_c[b], g = costs[b];
        bool ok = isinf(w) ? (isinf(g) && g > 0) : fabs(g - w) <= 2e-6 * fmax(1.0, fabs(w)) + 1e-5;
        CHECK_MSG(ok, "cost[%d] %s T%d N%d A%d %s %s %s: got %.9g want %.9g", b, v8 ? "v8" : "v7", T, N, A,
                  softmax ? "softmax" : "none", propagate ? "nan" : "zero", layout_names[layout], g, w);
        got_c[b] = costs[b];
    }
    double worst = 0;
    int bad_t = -1, bad_n = -1, bad_a = -1;
    for (int t = 0; t < T; t++)
        for (int b = 0; b < N; b++)
            for (int a = 0; a < A; a++) {
                double w = want_g[((int64_t)t * N + b) * A + a], g = *at(&gb, t, b, a);
                double e = isnan(w) ? (isnan(g) ? 0 : INFINITY) : fabs(g - w);
                if (!(e <= worst)) {
                    worst = isnan(e) ? INFINITY : e;
                    bad_t = t, bad_n = b, bad_a = a;
                }
                got_g[((int64_t)t * N + b) * A + a] = (float)g;
            }
    CHECK_MSG(worst <= 2e-5, "grad %s T%d N%d A%d %s %s %s: max abs err %.3g at t%d n%d a%d", v8 ? "v8" : "v7", T, N,
              A, softmax ? "softmax" : "none", propagate ? "nan" : "zero", layout_names[layout], worst, bad_t, bad_n,
              bad_a);
    if (layout == PADDED) { /* the gaps between rows stay poisoned */
        bool gaps = true;
        for (int t = 0; t < T; t++)
            for (int b = 0; b < N; b++)
                for (int a = A; a < gb.st[1] && (t * gb.st[0] + b * gb.st[1] + a) < (int64_t)gb.span; a++)
                    gaps = gaps && isnan(*at(&gb, t, b, a));
        CHECK_MSG(gaps, "the padding of gradients was written");
    }
    cudnnDestroyCTCLossDescriptor(d);
    fdnn_guarded_free(ws);
    fdnn_guarded_free(costs);
    free(x), free(want_g), free(want_c);
    buf_free(&pb), buf_free(&gb);
}

/* ---- the reference against brute force -------------------------------------- */

/* Collapses a path (merge repeats, drop blanks) and compares with lab. */
static bool
path_emits(const int *path, int T, const int *lab, int L)
{
    int k = 0, prev = -1;
    for (int t = 0; t < T; t++) {
        if (path[t] != 0 && path[t] != prev) {
            if (k >= L || path[t] != lab[k])
                return false;
            k++;
        }
        prev = path[t];
    }
    return k == L;
}

static double
brute_cost(int T, int A, const double *y, const int *lab, int L)
{
    int path[8];
    double p = 0;
    int64_t total = 1;
    for (int t = 0; t < T; t++)
        total *= A;
    for (int64_t i = 0; i < total; i++) {
        int64_t r = i;
        double q = 1;
        for (int t = 0; t < T; t++, r /= A) {
            path[t] = (int)(r % A);
            q *= y[t * A + path[t]];
        }
        if (path_emits(path, T, lab, L))
            p += q;
    }
    return -log(p);
}

static void
test_reference(void)
{
    static const int labs[][3] = {{1, 2, 0}, {1, 1, 0}, {2, 2, 2}, {0, 0, 0}, {1, 2, 1}};
    static const int lens[] = {2, 2, 3, 0, 3};
    for (int k = 0; k < 5; k++)
        for (int T = 1; T <= 6; T++) {
            int A = 3, L = lens[k], ll = L, il = T;
            double x[18], y[18], g[18], c, c2, g2[18];
            for (int i = 0; i < T * A; i++)
                x[i] = fdnn_rng_uniform(&rng, -2, 2);
            fdnn_ref_ctc_loss(T, 1, A, true, x, labs[k], &ll, &il, 0.0, &c, g);
            for (int t = 0; t < T; t++) {
                double z = 0;
                for (int a = 0; a < A; a++)
                    z += exp(x[t * A + a]);
                for (int a = 0; a < A; a++)
                    y[t * A + a] = exp(x[t * A + a]) / z;
            }
            double want = brute_cost(T, A, y, labs[k], L);
            CHECK_MSG(isinf(want) ? isinf(c) : fabs(c - want) < 1e-12 * fmax(1, fabs(want)),
                      "reference cost labels %d T %d: %.15g, brute force %.15g", k, T, c, want);
            if (isinf(want))
                continue;
            /* gradient: central differences of the reference cost */
            double worst = 0;
            for (int i = 0; i < T * A; i++) {
                double h = 1e-5, save = x[i], cp, cm;
                x[i] = save + h;
                fdnn_ref_ctc_loss(T, 1, A, true, x, labs[k], &ll, &il, 0.0, &cp, g2);
                x[i] = save - h;
                fdnn_ref_ctc_loss(T, 1, A, true, x, labs[k], &ll, &il, 0.0, &cm, g2);
                x[i] = save;
                worst = fmax(worst, fabs((cp - cm) / (2 * h) - g[i]));
            }
            CHECK_MSG(worst < 1e-7, "reference gradient labels %d T %d: err %.3g vs differences", k, T, worst);
            /* NONE mode on the probabilities gives the same cost and gradient */
            fdnn_ref_ctc_loss(T, 1, A, false, y, labs[k], &ll, &il, 0.0, &c2, g2);
            double gd = 0;
            for (int i = 0; i < T * A; i++)
                gd = fmax(gd, fabs(g2[i] - g[i]));
            CHECK_MSG(fabs(c2 - c) < 1e-12 && gd < 1e-12, "reference NONE vs SOFTMAX labels %d T %d", k, T);
        }
}

/* ---- values ---------------------------------------------------------------- */

static void
test_values(void)
{
    /* a network-like batch: varying input and label lengths, repeats */
    static const int lab_a[] = {3, 3, 1, 5, 2, 7, 7, 7, 4, 1, 2, 3, 4, 5, 6, 7, 8};
    static const int ll_a[] = {3, 5, 0, 9};
    static const int il_a[] = {20, 13, 7, 20};
    /* impossible alignments: 2 labels with a repeat need 3 steps */
    static const int lab_b[] = {1, 1, 2, 1, 2, 3};
    static const int ll_b[] = {2, 1, 3};
    static const int il_b[] = {2, 0, 3};
    /* N = 1, A = 2 (one real label), T = 1 */
    static const int lab_c[] = {1};
    static const int ll_c[] = {1}, il_c[] = {1};
    static const int ll_d[] = {0}, il_d[] = {5};
    /* long sequences: log space must not underflow (p ~ e^-1000) */
    static int lab_e[300];
    static const int ll_e[] = {150, 120}, il_e[] = {400, 390};
    for (int i = 0; i < 270; i++)
        lab_e[i] = 1 + (i * 7 + i / 5) % 5;
    const ctc_case_t cases[] = {
        {20, 4, 9, lab_a, ll_a, il_a},
        {4, 3, 4, lab_b, ll_b, il_b},
        {1, 1, 2, lab_c, ll_c, il_c},
        {5, 1, 3, lab_c, ll_d, il_d},
        {400, 2, 6, lab_e, ll_e, il_e},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const ctc_case_t *c = &cases[k];
        size_t n = (size_t)c->T * c->N * c->A;
        float *c0 = malloc((size_t)c->N * 4), *g0 = malloc(n * 4), *c1 = malloc((size_t)c->N * 4),
              *g1 = malloc(n * 4);
        for (int mode = 0; mode < 4; mode++) {
            bool softmax = mode & 1, propagate = mode & 2;
            for (int layout = 0; layout < 3; layout++) {
                uint64_t seed = rng.state;
                run_case(c, softmax, propagate, layout, false, 0, c0, g0);
                rng.state = seed; /* same inputs through _v8 and the other algorithm */
                run_case(c, softmax, propagate, layout, true, 1, c1, g1);
                CHECK_MSG(memcmp(c0, c1, (size_t)c->N * 4) == 0 && memcmp(g0, g1, n * 4) == 0,
                          "v7 and v8 differ (case %zu mode %d layout %d)", k, mode, layout);
            }
        }
        free(c0), free(g0), free(c1), free(g1);
    }
}

/* The same problem on every ISA level and 1 or 2 threads: bitwise equal. */
static void
test_threads(void)
{
    static const int lab[] = {1, 2, 2, 3, 4, 1, 5, 5, 6, 2, 3};
    static const int ll[] = {3, 4, 0, 2, 2};
    static const int il[] = {30, 25, 30, 9, 1};
    const ctc_case_t c = {30, 5, 7, lab, ll, il};
    size_t n = (size_t)c.T * c.N * c.A;
    float *c0 = malloc(20), *g0 = malloc(n * 4), *c1 = malloc(20), *g1 = malloc(n * 4);
    uint64_t seed = rng.state;
    CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(0)));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    run_case(&c, true, false, PACKED, false, 0, c0, g0);
    for (int i = 0; i < fdnn_test_isa_count(); i++)
        for (int t = 1; t <= 2; t++) {
            CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(i)));
            CHECK_OK(freednnSetNumThreads(handle, t));
            rng.state = seed;
            run_case(&c, true, false, PACKED, false, 0, c1, g1);
            CHECK_MSG(memcmp(c0, c1, 20) == 0 && memcmp(g0, g1, n * 4) == 0, "isa %s threads %d differ",
                      fdnn_test_isa_name(i), t);
        }
    free(c0), free(g0), free(c1), free(g1);
}

/* ---- bad inputs ------------------------------------------------------------ */

static void
test_bad_inputs(void)
{
    const cudnnStatus_t BAD = CUDNN_STATUS_BAD_PARAM, NS = CUDNN_STATUS_NOT_SUPPORTED;
    const cudnnCTCLossAlgo_t DET = CUDNN_CTC_LOSS_ALGO_DETERMINISTIC;
    int T = 6, N = 2, A = 5;
    ctc_buf_t pb, gb, gsmall;
    buf_init(&pb, T, N, A, PACKED);
    buf_init(&gb, T, N, A, PACKED);
    buf_init(&gsmall, T, N, A - 1, PACKED);
    for (size_t i = 0; i < pb.span; i++)
        pb.mem[i] = 0.2f;
    int lab[] = {1, 2, 3, 4}, ll[] = {2, 2}, il[] = {6, 5};
    float *costs = fdnn_guarded_alloc(2 * sizeof(float));
    fdnn_poison_f32(costs, 2);
    cudnnCTCLossDescriptor_t d = make_desc(false, false, 4), unset, dbl;
    CHECK_OK(cudnnCreateCTCLossDescriptor(&unset));
    CHECK_OK(cudnnCreateCTCLossDescriptor(&dbl));
    CHECK_OK(cudnnSetCTCLossDescriptor(dbl, CUDNN_DATA_DOUBLE));
    size_t ws_bytes = 0, v8_bytes = 0, s;
    CHECK_OK(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll, il, DET, d, &ws_bytes));
    CHECK_OK(cudnnGetCTCLossWorkspaceSize_v8(handle, DET, d, pb.desc, gb.desc, &v8_bytes));
    CHECK(ws_bytes > 0 && v8_bytes >= ws_bytes);
    void *ws = malloc(v8_bytes);

    /* descriptors, enums, types */
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(NULL, pb.desc, gb.desc, lab, ll, il, DET, d, &s), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll, il, DET, unset, &s), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll, il, DET, NULL, &s), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll, il, (cudnnCTCLossAlgo_t)2, d, &s),
                 NS);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll, il, DET, dbl, &s), NS);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gsmall.desc, lab, ll, il, DET, d, &s), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, NULL, gb.desc, lab, ll, il, DET, d, &s), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll, il, DET, d, NULL), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize_v8(handle, DET, d, pb.desc, gsmall.desc, &s), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize_v8(handle, DET, d, pb.desc, gb.desc, NULL), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize_v8(handle, DET, dbl, pb.desc, gb.desc, &s), NS);
    cudnnTensorDescriptor_t t4, td;
    cudnnCreateTensorDescriptor(&t4);
    cudnnCreateTensorDescriptor(&td);
    CHECK_OK(cudnnSetTensor4dDescriptor(t4, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, T, N, A, 1));
    int dims[3] = {T, N, A}, str[3] = {N * A, A, 1};
    CHECK_OK(cudnnSetTensorNdDescriptor(td, CUDNN_DATA_DOUBLE, 3, dims, str));
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, t4, t4, lab, ll, il, DET, d, &s), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, td, td, lab, ll, il, DET, d, &s), NS);

    /* lengths and labels */
    int ll_long[] = {257, 0}, ll_neg[] = {-1, 2}, il_long[] = {7, 5}, il_neg[] = {6, -1};
    int lab_blank[] = {1, 0, 3, 4}, lab_big[] = {1, 2, 3, 5};
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll_long, il, DET, d, &s), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll_neg, il, DET, d, &s), BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll, il_long, DET, d, &s), BAD);
    /* The size query looks at shapes and lengths only (cuDNN 8.9's status
     * rules, docs/ctc.md): label values, and the labels pointer, are
     * checked by the loss itself. */
    size_t s_ok = 0;
    CHECK_OK(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab, ll, il, DET, d, &s_ok));
    CHECK_OK(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, lab_blank, ll, il, DET, d, &s));
    CHECK(s == s_ok);
    CHECK_OK(cudnnGetCTCLossWorkspaceSize(handle, pb.desc, gb.desc, NULL, ll, il, DET, d, &s));
    CHECK(s == s_ok);

    /* the operation: every failure writes nothing */
#define V7(P, L, LL, IL, C, G, W, WS) cudnnCTCLoss(handle, pb.desc, P, L, LL, IL, C, gb.desc, G, DET, d, W, WS)
#define V8(P, L, LL, IL, C, G, W, WS) cudnnCTCLoss_v8(handle, DET, d, pb.desc, P, L, LL, IL, C, gb.desc, G, WS, W)
    CHECK_STATUS(V7(NULL, lab, ll, il, costs, gb.mem, ws, ws_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, NULL, ll, il, costs, gb.mem, ws, ws_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab, NULL, il, costs, gb.mem, ws, ws_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab, ll, NULL, costs, gb.mem, ws, ws_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab, ll, il, NULL, gb.mem, ws, ws_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab, ll, il, costs, NULL, ws, ws_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab, ll, il, costs, gb.mem, NULL, ws_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab, ll, il, costs, gb.mem, ws, ws_bytes - 1), BAD);
    CHECK_STATUS(V7(pb.mem, lab, ll_long, il, costs, gb.mem, ws, v8_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab, ll, il_neg, costs, gb.mem, ws, v8_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab_big, ll, il, costs, gb.mem, ws, v8_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab_blank, ll, il, costs, gb.mem, ws, v8_bytes), BAD);
    CHECK_STATUS(V8(pb.mem, lab_big, ll, il, costs, gb.mem, ws, v8_bytes), BAD);
    CHECK_STATUS(V8(pb.mem, lab_blank, ll, il, costs, gb.mem, ws, v8_bytes), BAD);
    CHECK_STATUS(V7(pb.mem, lab, ll, il, (float *)((char *)costs + 1), gb.mem, ws, v8_bytes), BAD);
    CHECK_STATUS(V8(pb.mem, lab, ll, il, costs, gb.mem, ws, v8_bytes - 1), BAD);
    CHECK_STATUS(V8(pb.mem, NULL, ll, il, costs, gb.mem, ws, v8_bytes), BAD);
    CHECK_STATUS(V8(pb.mem, lab, ll_long, il, costs, gb.mem, ws, v8_bytes), BAD);
    /* label length 3 exceeds the descriptor's maxLabelLength 2 */
    cudnnCTCLossDescriptor_t d2 = make_desc(false, false, 2), d300 = make_desc(false, false, 300);
    int ll3[] = {3, 1};
    CHECK_STATUS(cudnnCTCLoss_v8(handle, DET, d2, pb.desc, pb.mem, lab, ll3, il, costs, gb.desc, gb.mem, v8_bytes,
                                 ws),
                 BAD);
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize_v8(handle, DET, d300, pb.desc, gb.desc, &s), BAD);
    CHECK_STATUS(cudnnCTCLoss(handle, pb.desc, pb.mem, lab, ll, il, costs, gsmall.desc, gb.mem, DET, d, ws, v8_bytes),
                 BAD);
    bool untouched = isnan(costs[0]) && isnan(costs[1]);
    for (size_t i = 0; i < gb.span; i++)
        untouched = untouched && isnan(gb.mem[i]);
    CHECK_MSG(untouched, "a failed call wrote to costs or gradients");
    /* and the good call works with exactly the queried size */
    CHECK_OK(V7(pb.mem, lab, ll, il, costs, gb.mem, ws, ws_bytes));
    CHECK_OK(cudnnCTCLoss_v8(handle, DET, d2, pb.desc, pb.mem, lab, ll, il, costs, gb.desc, gb.mem, v8_bytes, ws));
    CHECK(isfinite(costs[0]) && isfinite(costs[1]));
#undef V7
#undef V8
    free(ws);
    cudnnDestroyTensorDescriptor(t4);
    cudnnDestroyTensorDescriptor(td);
    cudnnDestroyCTCLossDescriptor(d), cudnnDestroyCTCLossDescriptor(d2), cudnnDestroyCTCLossDescriptor(d300);
    cudnnDestroyCTCLossDescriptor(unset), cudnnDestroyCTCLossDescriptor(dbl);
    fdnn_guarded_free(costs);
    buf_free(&pb), buf_free(&gb), buf_free(&gsmall);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 2024);
    CHECK_OK(cudnnCreate(&handle));
    test_reference();
    test_bad_inputs();
    test_values();
    test_threads();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_ctc_loss");
}
