/* SPDX-License-Identifier: Apache-2.0
 * The *Ex RNN calls (cudnnRNNForwardInferenceEx, ForwardTrainingEx,
 * BackwardDataEx, BackwardWeightsEx), the algorithm searches
 * (cudnnGetRNN*AlgorithmMaxCount, cudnnFindRNN*AlgorithmEx) and
 * cudnnSetRNNAlgorithmDescriptor.
 *
 * The *Ex calls are checked bitwise against the calls already checked
 * against the float64 reference (test_rnn_ops.c, test_rnn_ops_legacy.c): on a
 * SEQ_MAJOR_PACKED problem against the legacy non-Ex calls, on the unpacked
 * layouts with variable (and zero) lengths against cudnnRNNForward /
 * BackwardData_v8 / BackwardWeights_v8.  Cells RELU, TANH, LSTM, GRU; 1 and
 * 2 layers; uni- and bidirectional; FLOAT and DOUBLE; v8 and v6 descriptors
 * (input size from xDesc).  Outputs are NaN before every run; the padding
 * fill of y and dx is written when given and the padding left alone when
 * not; backward weights accumulates.  The searches report one result
 * (STANDARD, SUCCESS, time >= 0, the workspace size), write the outputs of
 * the plain call and leave dw as it was.  Bad inputs (reserved attention
 * arguments, NULL, undersized spaces, mismatched descriptors, HALF) get
 * their status and leave every output untouched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "freednn.h"
#include "testutil.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

enum { T = 4, B = 3, IN = 5, H = 4, NOUT = 8 };
static int lens_packed[B] = {4, 3, 1};
static int lens_var[B] = {2, 4, 0}; /* with a zero-length sequence */

/* The data type under test (FLOAT or DOUBLE) and its size. */
static cudnnDataType_t dt = CUDNN_DATA_FLOAT;
static size_t es = 4;

/* Outputs, in this order in every out[] array. */
enum { Y, HY, CY, DX, DHX, DCX, DW, YINF };
static const char *out_names[NOUT] = {"y", "hy", "cy", "dx", "dhx", "dcx", "dw", "y (inference)"};

static void *
rnd(size_t n)
{
    void *a = fdnn_guarded_alloc(n * es);
    for (size_t i = 0; i < n; i++) {
        double v = fdnn_rng_uniform(&rng, -0.5, 0.5);
        if (dt == CUDNN_DATA_DOUBLE)
            ((double *)a)[i] = v;
        else
            ((float *)a)[i] = (float)v;
    }
    return a;
}

static void
poison(void *a, size_t n)
{
    if (dt == CUDNN_DATA_DOUBLE)
        fdnn_poison_f64(a, n);
    else
        fdnn_poison_f32(a, n);
}

static void *
nan_buf(size_t n)
{
    void *a = fdnn_guarded_alloc(n * es);
    poison(a, n);
    return a;
}

static double
at(const void *a, size_t i)
{
    return dt == CUDNN_DATA_DOUBLE ? ((const double *)a)[i] : ((const float *)a)[i];
}

static bool
same(const void *a, const void *b, size_t n)
{
    return memcmp(a, b, n * es) == 0;
}

static const char *
dt_name(void)
{
    return dt == CUDNN_DATA_DOUBLE ? "DOUBLE" : "FLOAT";
}

/* ---- descriptors ---------------------------------------------------------- */

/* Dropout between layers (p 0.3, used by the 2-layer cases): set again with
 * its seed before every training forward, so every interface draws the
 * same masks and the comparisons stay bitwise. */
static float drop_p = 0.3f;
static cudnnDropoutDescriptor_t drop;
static void *drop_states;
static size_t drop_bytes;

static void
reset_drop(void)
{
    CHECK_OK(cudnnSetDropoutDescriptor(drop, handle, drop_p, drop_states, drop_bytes, 5));
}

static cudnnRNNDescriptor_t
make_rnn(cudnnRNNMode_t cell, int L, int D, bool v6, bool padded)
{
    cudnnRNNDescriptor_t r;
    cudnnDirectionMode_t dir = D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    if (v6) {
        CHECK_OK(cudnnSetRNNDescriptor_v6(handle, r, H, L, drop, CUDNN_LINEAR_INPUT, dir, cell,
                                          CUDNN_RNN_ALGO_STANDARD, dt));
        if (padded)
            CHECK_OK(cudnnSetRNNPaddingMode(r, CUDNN_RNN_PADDED_IO_ENABLED));
    } else {
        CHECK_OK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, cell, CUDNN_RNN_DOUBLE_BIAS, dir,
                                          CUDNN_LINEAR_INPUT, dt, dt, CUDNN_DEFAULT_MATH, IN, H, H, L, drop,
                                          padded ? CUDNN_RNN_PADDED_IO_ENABLED : 0));
    }
    return r;
}

static cudnnRNNDataDescriptor_t
make_data(cudnnDataType_t type, cudnnRNNDataLayout_t layout, const int *lens, int V, const double *fill)
{
    cudnnRNNDataDescriptor_t d;
    float f32 = fill ? (float)*fill : 0.0f;
    double f64 = fill ? *fill : 0.0;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&d));
    CHECK_OK(cudnnSetRNNDataDescriptor(d, type, layout, T, B, V, lens,
                                       fill == NULL ? NULL : type == CUDNN_DATA_DOUBLE ? (void *)&f64 : (void *)&f32));
    return d;
}

static cudnnTensorDescriptor_t
make_tensor(cudnnDataType_t type, int n0, int n1, int n2)
{
    cudnnTensorDescriptor_t t;
    int d[3] = {n0, n1, n2}, s[3] = {n1 * n2, n2, 1};
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_OK(cudnnSetTensorNdDescriptor(t, type, 3, d, s));
    return t;
}

/* ---- one configuration ------------------------------------------------------ */

typedef struct cfg {
    cudnnRNNMode_t cell;
    int L, D;
    bool v6; /* the *Ex calls get a v6 descriptor (input size from xDesc) */
    cudnnRNNDescriptor_t r8, rex;
    cudnnTensorDescriptor_t hd;
    cudnnFilterDescriptor_t wd;
    size_t nw, nh; /* elements of the weight space and of one state tensor */
    void *w;
} cfg_t;

/* Inputs and sizes of one sequence set. */
typedef struct io {
    cudnnRNNDataLayout_t layout;
    const int *lens;
    cudnnRNNDataDescriptor_t xd, yd;
    size_t nx, ny;     /* elements of x and y in this layout */
    size_t ws, rs;     /* workspace (legacy query) and reserve, bytes */
    void *x, *hx, *cx, *dy, *dhy, *dcy;
    void *wsb, *rsb;
} io_t;

static size_t
out_size(const cfg_t *c, const io_t *io, int i)
{
    size_t sizes[NOUT] = {io->ny, c->nh, c->nh, io->nx, c->nh, c->nh, c->nw, io->ny};
    return sizes[i];
}

static void
alloc_outs(const cfg_t *c, const io_t *io, void *out[NOUT])
{
    for (int i = 0; i < NOUT; i++)
        out[i] = nan_buf(out_size(c, io, i));
}

static void
free_outs(void *out[NOUT])
{
    for (int i = 0; i < NOUT; i++)
        fdnn_guarded_free(out[i]);
}

/* Legacy per-step descriptors of a sequence set: [batch_t, V, 1], batch_t
 * the sequences still running at t (all B for the unpacked layouts, whose
 * sizes the legacy queries describe by maxSeqLength x batch). */
static void
make_steps(const int *lens, bool packed, int V, cudnnTensorDescriptor_t *steps)
{
    for (int t = 0; t < T; t++) {
        int n = 0;
        for (int b = 0; b < B; b++)
            n += !packed || t < lens[b];
        steps[t] = make_tensor(dt, n, V, 1);
    }
}

static void
io_init(const cfg_t *c, io_t *io, cudnnRNNDataLayout_t layout, const int *lens, const double *fill)
{
    bool packed = layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED;
    int rows = 0;
    for (int b = 0; b < B; b++)
        rows += lens[b];
    io->layout = layout;
    io->lens = lens;
    io->xd = make_data(dt, layout, lens, IN, fill);
    io->yd = make_data(dt, layout, lens, c->D * H, fill);
    io->nx = (size_t)(packed ? rows : T * B) * IN;
    io->ny = (size_t)(packed ? rows : T * B) * c->D * H;
    cudnnTensorDescriptor_t steps[T];
    make_steps(lens, packed, IN, steps);
    size_t ws8, rs8;
    CHECK_OK(cudnnGetRNNWorkspaceSize(handle, c->rex, T, steps, &io->ws));
    CHECK_OK(cudnnGetRNNTrainingReserveSize(handle, c->rex, T, steps, &io->rs));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, c->r8, CUDNN_FWD_MODE_TRAINING, io->xd, &ws8, &rs8));
    CHECK_MSG(io->ws >= ws8 && io->rs == rs8, "legacy sizes (%zu, %zu) below the v8 ones (%zu, %zu) for layout %d",
              io->ws, io->rs, ws8, rs8, (int)layout);
    for (int t = 0; t < T; t++)
        cudnnDestroyTensorDescriptor(steps[t]);
    io->x = rnd(io->nx), io->dy = rnd(io->ny);
    io->hx = rnd(c->nh), io->cx = rnd(c->nh), io->dhy = rnd(c->nh), io->dcy = rnd(c->nh);
    io->wsb = fdnn_guarded_alloc(io->ws);
    io->rsb = fdnn_guarded_alloc(io->rs);
}

static void
io_free(io_t *io)
{
    cudnnDestroyRNNDataDescriptor(io->xd), cudnnDestroyRNNDataDescriptor(io->yd);
    fdnn_guarded_free(io->x), fdnn_guarded_free(io->dy), fdnn_guarded_free(io->hx);
    fdnn_guarded_free(io->cx), fdnn_guarded_free(io->dhy), fdnn_guarded_free(io->dcy);
    fdnn_guarded_free(io->wsb), fdnn_guarded_free(io->rsb);
}

/* ---- the three ways to run one problem --------------------------------------- */

/* dw starts from zero (every backward weights call here adds). */
static void
run_v8(const cfg_t *c, const io_t *io, void *out[NOUT])
{
    size_t wb = c->nw * es;
    CHECK_OK(cudnnRNNForward(handle, c->r8, CUDNN_FWD_MODE_INFERENCE, io->lens, io->xd, io->x, io->yd, out[YINF],
                             c->hd, io->hx, NULL, c->hd, io->cx, NULL, wb, c->w, io->ws, io->wsb, 0, NULL));
    reset_drop();
    CHECK_OK(cudnnRNNForward(handle, c->r8, CUDNN_FWD_MODE_TRAINING, io->lens, io->xd, io->x, io->yd, out[Y], c->hd,
                             io->hx, out[HY], c->hd, io->cx, out[CY], wb, c->w, io->ws, io->wsb, io->rs, io->rsb));
    CHECK_OK(cudnnRNNBackwardData_v8(handle, c->r8, io->lens, io->yd, out[Y], io->dy, io->xd, out[DX], c->hd, io->hx,
                                     io->dhy, out[DHX], c->hd, io->cx, io->dcy, out[DCX], wb, c->w, io->ws, io->wsb,
                                     io->rs, io->rsb));
    memset(out[DW], 0, wb);
    CHECK_OK(cudnnRNNBackwardWeights_v8(handle, c->r8, CUDNN_WGRAD_MODE_ADD, io->lens, io->xd, io->x, c->hd, io->hx,
                                        io->yd, out[Y], wb, out[DW], io->ws, io->wsb, io->rs, io->rsb));
}

static void
run_ex(const cfg_t *c, const io_t *io, void *out[NOUT])
{
    CHECK_OK(cudnnRNNForwardInferenceEx(handle, c->rex, io->xd, io->x, c->hd, io->hx, c->hd, io->cx, c->wd, c->w,
                                        io->yd, out[YINF], c->hd, NULL, c->hd, NULL, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL, NULL, io->wsb, io->ws));
    reset_drop();
    CHECK_OK(cudnnRNNForwardTrainingEx(handle, c->rex, io->xd, io->x, c->hd, io->hx, c->hd, io->cx, c->wd, c->w,
                                       io->yd, out[Y], c->hd, out[HY], c->hd, out[CY], NULL, NULL, NULL, NULL, NULL,
                                       NULL, NULL, NULL, io->wsb, io->ws, io->rsb, io->rs));
    CHECK_OK(cudnnRNNBackwardDataEx(handle, c->rex, io->yd, out[Y], io->yd, io->dy, NULL, NULL, c->hd, io->dhy, c->hd,
                                    io->dcy, c->wd, c->w, c->hd, io->hx, c->hd, io->cx, io->xd, out[DX], c->hd,
                                    out[DHX], c->hd, out[DCX], NULL, NULL, io->wsb, io->ws, io->rsb, io->rs));
    memset(out[DW], 0, c->nw * es);
    CHECK_OK(cudnnRNNBackwardWeightsEx(handle, c->rex, io->xd, io->x, c->hd, io->hx, io->yd, out[Y], io->wsb, io->ws,
                                       c->wd, out[DW], io->rsb, io->rs));
}

/* Packed problems only: the per-step descriptors describe exactly io. */
static void
run_legacy(const cfg_t *c, const io_t *io, void *out[NOUT])
{
    cudnnTensorDescriptor_t xs[T], ys[T];
    make_steps(io->lens, true, IN, xs);
    make_steps(io->lens, true, c->D * H, ys);
    CHECK_OK(cudnnRNNForwardInference(handle, c->rex, T, xs, io->x, c->hd, io->hx, c->hd, io->cx, c->wd, c->w, ys,
                                      out[YINF], c->hd, NULL, c->hd, NULL, io->wsb, io->ws));
    reset_drop();
    CHECK_OK(cudnnRNNForwardTraining(handle, c->rex, T, xs, io->x, c->hd, io->hx, c->hd, io->cx, c->wd, c->w, ys,
                                     out[Y], c->hd, out[HY], c->hd, out[CY], io->wsb, io->ws, io->rsb, io->rs));
    CHECK_OK(cudnnRNNBackwardData(handle, c->rex, T, ys, out[Y], ys, io->dy, c->hd, io->dhy, c->hd, io->dcy, c->wd,
                                  c->w, c->hd, io->hx, c->hd, io->cx, xs, out[DX], c->hd, out[DHX], c->hd, out[DCX],
                                  io->wsb, io->ws, io->rsb, io->rs));
    memset(out[DW], 0, c->nw * es);
    CHECK_OK(cudnnRNNBackwardWeights(handle, c->rex, T, xs, io->x, c->hd, io->hx, ys, out[Y], io->wsb, io->ws, c->wd,
                                     out[DW], io->rsb, io->rs));
    for (int t = 0; t < T; t++)
        cudnnDestroyTensorDescriptor(xs[t]), cudnnDestroyTensorDescriptor(ys[t]);
}

static void
compare(const cfg_t *c, const io_t *io, void *want[NOUT], void *got[NOUT], const char *what)
{
    for (int i = 0; i < NOUT; i++) {
        if ((i == CY || i == DCX) && c->cell != CUDNN_LSTM)
            continue;
        CHECK_MSG(same(want[i], got[i], out_size(c, io, i)),
                  "cell %d L%d D%d v6 %d %s layout %d: %s of the *Ex call differs from %s", c->cell, c->L, c->D,
                  c->v6, dt_name(), (int)io->layout, out_names[i], what);
    }
}

/* Padding positions of y and dx: the fill when given, else still NaN. */
static void
check_padding(const cfg_t *c, const io_t *io, void *out[NOUT], const double *fill)
{
    int bad = 0;
    for (int b = 0; b < B; b++)
        for (int t = io->lens[b]; t < T; t++) {
            size_t row = io->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED ? (size_t)(t * B + b)
                                                                                 : (size_t)(b * T + t);
            const int idx[3] = {Y, YINF, DX};
            for (int k = 0; k < 3; k++) {
                size_t V = idx[k] == DX ? IN : (size_t)c->D * H;
                for (size_t v = 0; v < V; v++) {
                    double e = at(out[idx[k]], row * V + v);
                    bad += fill ? !(e == (dt == CUDNN_DATA_DOUBLE ? *fill : (float)*fill)) : !isnan(e);
                }
            }
        }
    CHECK_MSG(bad == 0, "cell %d L%d D%d layout %d: %d padding elements of y/dx %s", c->cell, c->L, c->D,
              (int)io->layout, bad, fill ? "without the fill" : "written");
}

/* ---- the searches --------------------------------------------------------------- */

static void
check_perf(cudnnAlgorithmPerformance_t perf, size_t memory, const char *what)
{
    cudnnAlgorithmDescriptor_t ad = NULL;
    cudnnStatus_t st = CUDNN_STATUS_INTERNAL_ERROR;
    float ms = -1.0f;
    size_t mem = 0;
    cudnnAlgorithm_t algo;
    algo.algo.RNNAlgo = CUDNN_RNN_ALGO_COUNT;
    CHECK_OK(cudnnGetAlgorithmPerformance(perf, &ad, &st, &ms, &mem));
    CHECK_MSG(ad != NULL, "%s: no algorithm descriptor", what);
    if (ad != NULL)
        CHECK_OK(cudnnGetAlgorithmDescriptor(ad, &algo));
    CHECK_MSG(st == CUDNN_STATUS_SUCCESS && ms >= 0.0f && mem == memory && algo.algo.RNNAlgo == CUDNN_RNN_ALGO_STANDARD,
              "%s: status %d time %g memory %zu (want %zu) algo %d", what, (int)st, (double)ms, mem, memory,
              (int)algo.algo.RNNAlgo);
}

/* The perf object that the searches must not touch (only 1 result). */
static void
check_untouched_perf(cudnnAlgorithmPerformance_t perf, const char *what)
{
    cudnnAlgorithmDescriptor_t ad = (cudnnAlgorithmDescriptor_t)&ad;
    float ms = 0.0f;
    CHECK_OK(cudnnGetAlgorithmPerformance(perf, &ad, NULL, &ms, NULL));
    CHECK_MSG(ad == NULL && ms == 0.0f, "%s wrote a second result", what);
}

static void
test_find(const cfg_t *c, const io_t *io, void *want[NOUT])
{
    cudnnTensorDescriptor_t xs[T], ys[T];
    make_steps(io->lens, true, IN, xs);
    make_steps(io->lens, true, c->D * H, ys);
    size_t wsi, wst, rs8;
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, c->r8, CUDNN_FWD_MODE_INFERENCE, io->xd, &wsi, NULL));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, c->r8, CUDNN_FWD_MODE_TRAINING, io->xd, &wst, &rs8));
    int count = -1;
    CHECK_OK(cudnnGetRNNForwardInferenceAlgorithmMaxCount(handle, c->rex, &count));
    CHECK(count == 1);
    count = -1;
    CHECK_OK(cudnnGetRNNForwardTrainingAlgorithmMaxCount(handle, c->rex, &count));
    CHECK(count == 1);
    count = -1;
    CHECK_OK(cudnnGetRNNBackwardDataAlgorithmMaxCount(handle, c->rex, &count));
    CHECK(count == 1);
    count = -1;
    CHECK_OK(cudnnGetRNNBackwardWeightsAlgorithmMaxCount(handle, c->rex, &count));
    CHECK(count == 1);

    cudnnAlgorithmPerformance_t perf[2];
    CHECK_OK(cudnnCreateAlgorithmPerformance(perf, 2));
    void *out[NOUT];
    alloc_outs(c, io, out);
    int ret = -1;
    CHECK_OK(cudnnFindRNNForwardInferenceAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, c->hd, io->cx,
                                                     c->wd, c->w, ys, out[YINF], c->hd, NULL, c->hd, NULL, 1.0f, 2,
                                                     &ret, perf, io->wsb, io->ws));
    CHECK(ret == 1);
    check_perf(perf[0], wsi, "FindRNNForwardInferenceAlgorithmEx");
    check_untouched_perf(perf[1], "FindRNNForwardInferenceAlgorithmEx");
    ret = -1;
    reset_drop();
    CHECK_OK(cudnnFindRNNForwardTrainingAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, c->hd, io->cx, c->wd,
                                                    c->w, ys, out[Y], c->hd, out[HY], c->hd, out[CY], 0.0f, 1, &ret,
                                                    perf, io->wsb, io->ws, io->rsb, io->rs));
    CHECK(ret == 1);
    check_perf(perf[0], wst, "FindRNNForwardTrainingAlgorithmEx");
    ret = -1;
    CHECK_OK(cudnnFindRNNBackwardDataAlgorithmEx(handle, c->rex, T, ys, out[Y], ys, io->dy, c->hd, io->dhy, c->hd,
                                                 io->dcy, c->wd, c->w, c->hd, io->hx, c->hd, io->cx, xs, out[DX],
                                                 c->hd, out[DHX], c->hd, out[DCX], -1.0f, 1, &ret, perf, io->wsb,
                                                 io->ws, io->rsb, io->rs));
    CHECK(ret == 1);
    check_perf(perf[0], wst, "FindRNNBackwardDataAlgorithmEx");
    /* The weights search leaves dw as it was... */
    void *dw0 = rnd(c->nw);
    memcpy(out[DW], dw0, c->nw * es);
    ret = -1;
    CHECK_OK(cudnnFindRNNBackwardWeightsAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, ys, out[Y], 1.0f, 1,
                                                    &ret, perf, io->wsb, io->ws, c->wd, out[DW], io->rsb, io->rs));
    CHECK(ret == 1);
    check_perf(perf[0], wst, "FindRNNBackwardWeightsAlgorithmEx");
    CHECK_MSG(same(out[DW], dw0, c->nw), "cell %d: FindRNNBackwardWeightsAlgorithmEx changed dw", c->cell);
    /* ... and what the searches wrote is what the plain calls write, reserve
     * included: backward weights after them gives the plain dw. */
    memset(out[DW], 0, c->nw * es);
    CHECK_OK(cudnnRNNBackwardWeights(handle, c->rex, T, xs, io->x, c->hd, io->hx, ys, out[Y], io->wsb, io->ws, c->wd,
                                     out[DW], io->rsb, io->rs));
    compare(c, io, want, out, "the searches");

    /* The chosen algorithm goes back into the descriptor. */
    cudnnAlgorithmDescriptor_t ad;
    CHECK_OK(cudnnGetAlgorithmPerformance(perf[0], &ad, NULL, NULL, NULL));
    CHECK_OK(cudnnSetRNNAlgorithmDescriptor(handle, c->rex, ad));
    CHECK_STATUS(cudnnDestroyAlgorithmDescriptor(ad), CUDNN_STATUS_BAD_PARAM); /* it belongs to perf[0] */

    /* Bad search arguments: statuses, and nothing written. */
    void *y0 = nan_buf(io->ny);
    poison(out[YINF], io->ny);
    CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, c->hd, io->cx,
                                                         c->wd, c->w, ys, out[YINF], c->hd, NULL, c->hd, NULL, 1.0f,
                                                         0, &ret, perf, io->wsb, io->ws),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, c->hd, io->cx,
                                                         c->wd, c->w, ys, out[YINF], c->hd, NULL, c->hd, NULL, 1.0f,
                                                         1, NULL, perf, io->wsb, io->ws),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, c->hd, io->cx,
                                                         c->wd, c->w, ys, out[YINF], c->hd, NULL, c->hd, NULL, 1.0f,
                                                         1, &ret, NULL, io->wsb, io->ws),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, c->hd, io->cx,
                                                         c->wd, c->w, ys, out[YINF], c->hd, NULL, c->hd, NULL, 1.0f,
                                                         1, &ret, perf, io->wsb, wsi - 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_MSG(same(out[YINF], y0, io->ny), "a failed inference search wrote y");
    poison(out[Y], io->ny);
    CHECK_STATUS(cudnnFindRNNForwardTrainingAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, c->hd, io->cx,
                                                        c->wd, c->w, ys, out[Y], c->hd, out[HY], c->hd, out[CY], 0.0f,
                                                        1, &ret, perf, io->wsb, io->ws, io->rsb, rs8 - 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_MSG(same(out[Y], y0, io->ny), "a failed training search wrote y");
    poison(out[DX], io->nx);
    void *dx0 = nan_buf(io->nx);
    CHECK_STATUS(cudnnFindRNNBackwardDataAlgorithmEx(handle, c->rex, T, ys, want[Y], ys, io->dy, c->hd, io->dhy,
                                                     c->hd, io->dcy, c->wd, c->w, c->hd, io->hx, c->hd, io->cx, xs,
                                                     out[DX], c->hd, out[DHX], c->hd, out[DCX], 1.0f, 1, &ret, perf,
                                                     io->wsb, wst - 1, io->rsb, io->rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_MSG(same(out[DX], dx0, io->nx), "a failed backward data search wrote dx");
    memcpy(out[DW], dw0, c->nw * es);
    CHECK_STATUS(cudnnFindRNNBackwardWeightsAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, ys, want[Y],
                                                        1.0f, 1, &ret, perf, io->wsb, io->ws, c->wd, out[DW],
                                                        io->rsb, rs8 - 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindRNNBackwardWeightsAlgorithmEx(handle, c->rex, T, xs, io->x, c->hd, io->hx, ys, want[Y],
                                                        1.0f, 1, &ret, perf, io->wsb, io->ws, c->wd, NULL, io->rsb,
                                                        io->rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_MSG(same(out[DW], dw0, c->nw), "a failed backward weights search wrote dw");
    fdnn_guarded_free(y0), fdnn_guarded_free(dx0), fdnn_guarded_free(dw0);
    free_outs(out);
    CHECK_OK(cudnnDestroyAlgorithmPerformance(perf, 2));
    for (int t = 0; t < T; t++)
        cudnnDestroyTensorDescriptor(xs[t]), cudnnDestroyTensorDescriptor(ys[t]);
}

/* ---- bad inputs of the *Ex calls ---------------------------------------------- */

/* Every output poisoned (dw random) and a copy kept; untouched() compares. */
typedef struct snap {
    void *out[NOUT], *copy[NOUT];
    const cfg_t *c;
    const io_t *io;
} snap_t;

static void
snap_init(snap_t *s, const cfg_t *c, const io_t *io)
{
    s->c = c, s->io = io;
    alloc_outs(c, io, s->out);
    alloc_outs(c, io, s->copy);
    void *dw = rnd(c->nw);
    memcpy(s->out[DW], dw, c->nw * es);
    memcpy(s->copy[DW], dw, c->nw * es);
    fdnn_guarded_free(dw);
}

static void
untouched(const snap_t *s, int line)
{
    for (int i = 0; i < NOUT; i++)
        CHECK_MSG(same(s->out[i], s->copy[i], out_size(s->c, s->io, i)), "line %d: a failed call wrote %s", line,
                  out_names[i]);
}

static void
snap_free(snap_t *s)
{
    free_outs(s->out);
    free_outs(s->copy);
}

#define FWD_INF(rnn, xd, x, yd, k, keys, cd, ca, id, ia, qd, q, ws, wsn)                                             \
    cudnnRNNForwardInferenceEx(handle, rnn, xd, x, c->hd, io->hx, c->hd, io->cx, c->wd, c->w, yd, s.out[YINF], c->hd, \
                               s.out[HY], c->hd, s.out[CY], k, keys, cd, ca, id, ia, qd, q, ws, wsn)
#define FWD_TRN(rnn, xd, yd, hxd, wd, ws, wsn, rs, rsn)                                                             \
    cudnnRNNForwardTrainingEx(handle, rnn, xd, io->x, hxd, io->hx, c->hd, io->cx, wd, c->w, yd, s.out[Y], c->hd,     \
                              s.out[HY], c->hd, s.out[CY], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ws, wsn, \
                              rs, rsn)
#define BWD_DATA(yd, dyd, dcd, dca, dkd, dk, dx, ws, wsn, rs, rsn)                                                 \
    cudnnRNNBackwardDataEx(handle, c->rex, yd, io->dy, dyd, io->dy, dcd, dca, c->hd, io->dhy, c->hd, io->dcy, c->wd, \
                           c->w, c->hd, io->hx, c->hd, io->cx, io->xd, dx, c->hd, s.out[DHX], c->hd, s.out[DCX],   \
                           dkd, dk, ws, wsn, rs, rsn)
#define BWD_W(xd, wd, dw, ws, wsn, rs, rsn)                                                                         \
    cudnnRNNBackwardWeightsEx(handle, c->rex, xd, io->x, c->hd, io->hx, io->yd, io->dy, ws, wsn, wd, dw, rs, rsn)

/* c->rex with io (an unpacked problem); the reserve holds a training
 * forward of it. */
static void
test_bad(const cfg_t *c, const io_t *io)
{
    const cudnnStatus_t BAD = CUDNN_STATUS_BAD_PARAM, NS = CUDNN_STATUS_NOT_SUPPORTED;
    snap_t s;
    snap_init(&s, c, io);
    void *any = io->x; /* a non-NULL pointer for the reserved arguments */
    cudnnRNNDataDescriptor_t k = io->xd;
    size_t ws = io->ws, rs = io->rs;
    void *wsb = io->wsb, *rsb = io->rsb;
    size_t wsi;
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, c->r8, CUDNN_FWD_MODE_INFERENCE, io->xd, &wsi, NULL));
    /* The exact v8 inference size is enough for inference, one byte less is not. */
    CHECK_OK(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, wsb, wsi));
    memcpy(s.copy[YINF], s.out[YINF], io->ny * es);
    memcpy(s.copy[HY], s.out[HY], c->nh * es);
    memcpy(s.copy[CY], s.out[CY], c->nh * es);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, wsb, wsi - 1),
                 BAD);
    untouched(&s, __LINE__);

    /* Reserved attention arguments. */
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, k, NULL, NULL, NULL, NULL, NULL, NULL, NULL, wsb, ws), NS);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, any, NULL, NULL, NULL, NULL, NULL, NULL, wsb, ws), NS);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, NULL, k, NULL, NULL, NULL, NULL, NULL, wsb, ws), NS);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, NULL, NULL, any, NULL, NULL, NULL, NULL, wsb, ws), NS);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, NULL, NULL, NULL, k, NULL, NULL, NULL, wsb, ws), NS);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, NULL, NULL, NULL, NULL, any, NULL, NULL, wsb, ws), NS);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, NULL, NULL, NULL, NULL, NULL, k, NULL, wsb, ws), NS);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, NULL, NULL, NULL, NULL, NULL, NULL, any, wsb, ws), NS);
    CHECK_STATUS(cudnnRNNForwardTrainingEx(handle, c->rex, io->xd, io->x, c->hd, io->hx, c->hd, io->cx, c->wd, c->w,
                                           io->yd, s.out[Y], c->hd, s.out[HY], c->hd, s.out[CY], NULL, NULL, NULL,
                                           NULL, NULL, NULL, k, any, wsb, ws, rsb, rs),
                 NS);
    CHECK_STATUS(BWD_DATA(io->yd, io->yd, k, NULL, NULL, NULL, s.out[DX], wsb, ws, rsb, rs), NS);
    CHECK_STATUS(BWD_DATA(io->yd, io->yd, NULL, any, NULL, NULL, s.out[DX], wsb, ws, rsb, rs), NS);
    CHECK_STATUS(BWD_DATA(io->yd, io->yd, NULL, NULL, k, NULL, s.out[DX], wsb, ws, rsb, rs), NS);
    CHECK_STATUS(BWD_DATA(io->yd, io->yd, NULL, NULL, NULL, any, s.out[DX], wsb, ws, rsb, rs), NS);
    untouched(&s, __LINE__);

    /* NULL descriptors and buffers. */
    CHECK_STATUS(FWD_INF(NULL, io->xd, io->x, io->yd, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, wsb, ws), BAD);
    CHECK_STATUS(FWD_INF(c->rex, NULL, io->x, io->yd, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, wsb, ws), BAD);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, NULL, io->yd, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, wsb, ws), BAD);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, wsb, ws), BAD);
    CHECK_STATUS(FWD_INF(c->rex, io->xd, io->x, io->yd, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ws), BAD);
    CHECK_STATUS(FWD_TRN(c->rex, io->xd, io->yd, NULL, c->wd, wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(FWD_TRN(c->rex, io->xd, io->yd, c->hd, NULL, wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(FWD_TRN(c->rex, io->xd, io->yd, c->hd, c->wd, wsb, ws, NULL, rs), BAD);
    CHECK_STATUS(BWD_DATA(NULL, io->yd, NULL, NULL, NULL, NULL, s.out[DX], wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(BWD_DATA(io->yd, NULL, NULL, NULL, NULL, NULL, s.out[DX], wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(BWD_DATA(io->yd, io->yd, NULL, NULL, NULL, NULL, NULL, wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(BWD_W(NULL, c->wd, s.out[DW], wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(BWD_W(io->xd, NULL, s.out[DW], wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(BWD_W(io->xd, c->wd, NULL, wsb, ws, rsb, rs), BAD);
    untouched(&s, __LINE__);

    /* Undersized workspace and reserve. */
    size_t wst, rst;
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, c->r8, CUDNN_FWD_MODE_TRAINING, io->xd, &wst, &rst));
    CHECK_STATUS(FWD_TRN(c->rex, io->xd, io->yd, c->hd, c->wd, wsb, wst - 1, rsb, rs), BAD);
    CHECK_STATUS(FWD_TRN(c->rex, io->xd, io->yd, c->hd, c->wd, wsb, ws, rsb, rst - 1), BAD);
    CHECK_STATUS(BWD_DATA(io->yd, io->yd, NULL, NULL, NULL, NULL, s.out[DX], wsb, wst - 1, rsb, rs), BAD);
    CHECK_STATUS(BWD_DATA(io->yd, io->yd, NULL, NULL, NULL, NULL, s.out[DX], wsb, ws, rsb, rst - 1), BAD);
    CHECK_STATUS(BWD_W(io->xd, c->wd, s.out[DW], wsb, wst - 1, rsb, rs), BAD);
    CHECK_STATUS(BWD_W(io->xd, c->wd, s.out[DW], wsb, ws, rsb, rst - 1), BAD);
    untouched(&s, __LINE__);

    /* Mismatched descriptors: a too small wDesc, dy with other lengths, x of
     * another type or vector size, hx of another batch. */
    cudnnFilterDescriptor_t small;
    int fd[3] = {(int)c->nw - 1, 1, 1};
    CHECK_OK(cudnnCreateFilterDescriptor(&small));
    CHECK_OK(cudnnSetFilterNdDescriptor(small, dt, CUDNN_TENSOR_NCHW, 3, fd));
    CHECK_STATUS(FWD_TRN(c->rex, io->xd, io->yd, c->hd, small, wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(BWD_W(io->xd, small, s.out[DW], wsb, ws, rsb, rs), BAD);
    int other_lens[B] = {1, 1, 1};
    cudnnRNNDataDescriptor_t dy2 = make_data(dt, io->layout, other_lens, c->D * H, NULL);
    CHECK_STATUS(BWD_DATA(io->yd, dy2, NULL, NULL, NULL, NULL, s.out[DX], wsb, ws, rsb, rs), BAD);
    cudnnDataType_t odt = dt == CUDNN_DATA_FLOAT ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    cudnnRNNDataDescriptor_t xo = make_data(odt, io->layout, io->lens, IN, NULL);
    cudnnRNNDataDescriptor_t xv = make_data(dt, io->layout, io->lens, IN + 1, NULL);
    CHECK_STATUS(FWD_TRN(c->rex, xo, io->yd, c->hd, c->wd, wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(FWD_TRN(c->rex, xv, io->yd, c->hd, c->wd, wsb, ws, rsb, rs), BAD);
    CHECK_STATUS(FWD_TRN(c->rex, io->xd, xv, c->hd, c->wd, wsb, ws, rsb, rs), BAD);
    cudnnTensorDescriptor_t h2 = make_tensor(dt, c->L * c->D, B + 1, H);
    CHECK_STATUS(FWD_TRN(c->rex, io->xd, io->yd, h2, c->wd, wsb, ws, rsb, rs), BAD);
    untouched(&s, __LINE__);

    /* Unpacked data without padded I/O in the descriptor. */
    cudnnRNNDescriptor_t nopad = make_rnn(c->cell, c->L, c->D, c->v6, false);
    CHECK_STATUS(FWD_TRN(nopad, io->xd, io->yd, c->hd, c->wd, wsb, ws, rsb, rs), BAD);
    untouched(&s, __LINE__);

    /* A HALF RNN given the FLOAT weight filter (and FLOAT data buffers):
     * the filter's type differs, BAD_PARAM with nothing written (the HALF
     * path itself is tested in test_rnn_half). */
    cudnnRNNDescriptor_t rh;
    CHECK_OK(cudnnCreateRNNDescriptor(&rh));
    CHECK_OK(cudnnSetRNNDescriptor_v8(rh, CUDNN_RNN_ALGO_STANDARD, c->cell, CUDNN_RNN_DOUBLE_BIAS,
                                      c->D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT,
                                      CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DEFAULT_MATH, IN, H, H, c->L, drop,
                                      CUDNN_RNN_PADDED_IO_ENABLED));
    cudnnRNNDataDescriptor_t xh = make_data(CUDNN_DATA_HALF, io->layout, io->lens, IN, NULL);
    cudnnRNNDataDescriptor_t yh = make_data(CUDNN_DATA_HALF, io->layout, io->lens, c->D * H, NULL);
    cudnnTensorDescriptor_t hh = make_tensor(CUDNN_DATA_HALF, c->L * c->D, B, H);
    CHECK_STATUS(cudnnRNNForwardInferenceEx(handle, rh, xh, io->x, hh, io->hx, hh, io->cx, c->wd, c->w, yh,
                                            s.out[YINF], hh, s.out[HY], hh, s.out[CY], NULL, NULL, NULL, NULL, NULL,
                                            NULL, NULL, NULL, wsb, ws),
                 BAD);
    CHECK_STATUS(cudnnRNNForwardTrainingEx(handle, rh, xh, io->x, hh, io->hx, hh, io->cx, c->wd, c->w, yh, s.out[Y],
                                           hh, s.out[HY], hh, s.out[CY], NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                           NULL, wsb, ws, rsb, rs),
                 BAD);
    CHECK_STATUS(cudnnRNNBackwardWeightsEx(handle, rh, xh, io->x, hh, io->hx, yh, io->dy, wsb, ws, c->wd, s.out[DW],
                                           rsb, rs),
                 BAD);
    untouched(&s, __LINE__);

    cudnnDestroyRNNDescriptor(rh), cudnnDestroyRNNDescriptor(nopad);
    cudnnDestroyRNNDataDescriptor(xh), cudnnDestroyRNNDataDescriptor(yh), cudnnDestroyRNNDataDescriptor(dy2);
    cudnnDestroyRNNDataDescriptor(xo), cudnnDestroyRNNDataDescriptor(xv);
    cudnnDestroyTensorDescriptor(hh), cudnnDestroyTensorDescriptor(h2);
    cudnnDestroyFilterDescriptor(small);
    snap_free(&s);
}

/* ---- driver ----------------------------------------------------------------- */

static void
run(cudnnRNNMode_t cell, int L, int D, bool v6)
{
    cfg_t c = {.cell = cell, .L = L, .D = D, .v6 = v6};
    c.r8 = make_rnn(cell, L, D, false, true);
    c.rex = v6 ? make_rnn(cell, L, D, true, true) : c.r8;
    c.hd = make_tensor(dt, L * D, B, H);
    size_t wb;
    CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, c.r8, &wb));
    c.nw = wb / es;
    c.nh = (size_t)L * D * B * H;
    int wdims[3] = {(int)c.nw, 1, 1};
    CHECK_OK(cudnnCreateFilterDescriptor(&c.wd));
    CHECK_OK(cudnnSetFilterNdDescriptor(c.wd, dt, CUDNN_TENSOR_NCHW, 3, wdims));
    c.w = rnd(c.nw);

    /* SEQ_MAJOR_PACKED: the legacy calls, the searches. */
    io_t io;
    void *want[NOUT], *got[NOUT];
    io_init(&c, &io, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, lens_packed, NULL);
    alloc_outs(&c, &io, want), alloc_outs(&c, &io, got);
    run_legacy(&c, &io, want);
    run_ex(&c, &io, got);
    compare(&c, &io, want, got, "the legacy call");
    /* The searches time a number of runs that depends on the clock, each
     * drawing the next dropout masks: they are compared without dropout. */
    drop_p = 0.0f;
    run_legacy(&c, &io, want);
    test_find(&c, &io, want);
    drop_p = 0.3f; /* the rate sizes the reserve: back before the next size query */
    reset_drop();
    free_outs(want), free_outs(got);
    io_free(&io);

    /* The unpacked layouts with variable lengths: the v8 calls, with and
     * without a padding fill. */
    const double fill = -7.25;
    for (int u = 0; u < 2; u++) {
        cudnnRNNDataLayout_t layout =
            u ? CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED : CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
        for (int f = 0; f < 2; f++) {
            io_init(&c, &io, layout, lens_var, f ? &fill : NULL);
            alloc_outs(&c, &io, want), alloc_outs(&c, &io, got);
            run_v8(&c, &io, want);
            run_ex(&c, &io, got);
            compare(&c, &io, want, got, "cudnnRNNForward/BackwardData_v8/BackwardWeights_v8");
            check_padding(&c, &io, got, f ? &fill : NULL);
            /* Backward weights accumulates: a second call doubles dw. */
            CHECK_OK(cudnnRNNBackwardWeightsEx(handle, c.rex, io.xd, io.x, c.hd, io.hx, io.yd, got[Y], io.wsb, io.ws,
                                               c.wd, got[DW], io.rsb, io.rs));
            bool doubled = true;
            for (size_t i = 0; i < c.nw; i++)
                doubled &= at(got[DW], i) == 2 * at(want[DW], i);
            CHECK_MSG(doubled, "cell %d layout %d: cudnnRNNBackwardWeightsEx does not accumulate", cell, (int)layout);
            /* dhy and dcy NULL mean zero, as in the v8 call. */
            poison(want[DX], io.nx), poison(got[DX], io.nx);
            CHECK_OK(cudnnRNNBackwardData_v8(handle, c.r8, io.lens, io.yd, want[Y], io.dy, io.xd, want[DX], c.hd,
                                             io.hx, NULL, want[DHX], c.hd, io.cx, NULL, want[DCX], c.nw * es, c.w,
                                             io.ws, io.wsb, io.rs, io.rsb));
            CHECK_OK(cudnnRNNBackwardDataEx(handle, c.rex, io.yd, got[Y], io.yd, io.dy, NULL, NULL, c.hd, NULL, c.hd,
                                            NULL, c.wd, c.w, c.hd, io.hx, c.hd, io.cx, io.xd, got[DX], c.hd, got[DHX],
                                            c.hd, got[DCX], NULL, NULL, io.wsb, io.ws, io.rsb, io.rs));
            CHECK_MSG(same(want[DX], got[DX], io.nx), "cell %d: dx with NULL dhy/dcy differs", cell);
            if (u == 1 && f == 0)
                test_bad(&c, &io);
            free_outs(want), free_outs(got);
            io_free(&io);
        }
    }
    fdnn_guarded_free(c.w);
    cudnnDestroyTensorDescriptor(c.hd);
    cudnnDestroyFilterDescriptor(c.wd);
    if (c.rex != c.r8)
        cudnnDestroyRNNDescriptor(c.rex);
    cudnnDestroyRNNDescriptor(c.r8);
}

/* cudnnSetRNNAlgorithmDescriptor: sets the algorithm, refuses bad ones. */
static void
test_set_algo(void)
{
    dt = CUDNN_DATA_FLOAT, es = 4;
    cudnnRNNDescriptor_t r = make_rnn(CUDNN_LSTM, 1, 1, false, false), nb;
    cudnnAlgorithmDescriptor_t ad, unset;
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&ad));
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&unset));
    cudnnAlgorithm_t a;
    cudnnRNNAlgo_t got = CUDNN_RNN_ALGO_COUNT;
    for (int algo = CUDNN_RNN_ALGO_COUNT - 1; algo >= 0; algo--) {
        a.algo.RNNAlgo = (cudnnRNNAlgo_t)algo;
        CHECK_OK(cudnnSetAlgorithmDescriptor(ad, a));
        CHECK_OK(cudnnSetRNNAlgorithmDescriptor(handle, r, ad));
        CHECK_OK(cudnnGetRNNDescriptor_v8(r, &got, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                          NULL, NULL));
        CHECK_MSG(got == (cudnnRNNAlgo_t)algo, "cudnnSetRNNAlgorithmDescriptor(%d) left algo %d", algo, (int)got);
    }
    a.algo.RNNAlgo = CUDNN_RNN_ALGO_COUNT;
    CHECK_OK(cudnnSetAlgorithmDescriptor(ad, a));
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(handle, r, ad), CUDNN_STATUS_BAD_PARAM);
    a.algo.RNNAlgo = (cudnnRNNAlgo_t)-1;
    CHECK_OK(cudnnSetAlgorithmDescriptor(ad, a));
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(handle, r, ad), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(handle, r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(handle, r, unset), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(handle, NULL, ad), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(NULL, r, ad), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, &got, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL));
    CHECK_MSG(got == CUDNN_RNN_ALGO_STANDARD, "a failed cudnnSetRNNAlgorithmDescriptor changed algo to %d", (int)got);
    /* A persistent algorithm needs the double bias, as the setters say. */
    CHECK_OK(cudnnCreateRNNDescriptor(&nb));
    CHECK_OK(cudnnSetRNNDescriptor_v8(nb, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_NO_BIAS, CUDNN_UNIDIRECTIONAL,
                                      CUDNN_LINEAR_INPUT, dt, dt, CUDNN_DEFAULT_MATH, IN, H, H, 1, NULL, 0));
    a.algo.RNNAlgo = CUDNN_RNN_ALGO_PERSIST_STATIC;
    CHECK_OK(cudnnSetAlgorithmDescriptor(ad, a));
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(handle, nb, ad), CUDNN_STATUS_NOT_SUPPORTED);
    /* The searches' own checks of their descriptors. */
    int count = -1;
    CHECK_STATUS(cudnnGetRNNForwardInferenceAlgorithmMaxCount(handle, NULL, &count), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNBackwardWeightsAlgorithmMaxCount(handle, r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK(count == -1);
    cudnnDestroyAlgorithmDescriptor(ad), cudnnDestroyAlgorithmDescriptor(unset);
    cudnnDestroyRNNDescriptor(r), cudnnDestroyRNNDescriptor(nb);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 2));
    fdnn_rng_seed(&rng, 4242);
    CHECK_OK(cudnnCreateDropoutDescriptor(&drop));
    CHECK_OK(cudnnDropoutGetStatesSize(handle, &drop_bytes));
    drop_states = malloc(drop_bytes);
    reset_drop();
    for (int d = 0; d < 2; d++) {
        dt = d ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        es = d ? 8 : 4;
        for (int cell = 0; cell < 4; cell++)
            for (int L = 1; L <= 2; L++)
                for (int D = 1; D <= 2; D++)
                    run((cudnnRNNMode_t)cell, L, D, (cell + L + D) % 2 == 1);
    }
    test_set_algo();
    cudnnDestroyDropoutDescriptor(drop);
    free(drop_states);
    cudnnDestroy(handle);
    return fdnn_test_finish("test_rnn_ops_ex");
}
