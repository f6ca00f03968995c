/* SPDX-License-Identifier: Apache-2.0
 * The legacy RNN interface (cudnnGetRNNParamsSize, WorkspaceSize,
 * TrainingReserveSize, LinLayerMatrix/BiasParams, RNNForwardInference,
 * ForwardTraining, BackwardData, BackwardWeights) against the v8 functions
 * (checked against the float64 reference in test_rnn_ops.c): same weight
 * layout (addresses from both queries agree) and bitwise equal results on a
 * SEQ_MAJOR_PACKED problem, FLOAT and DOUBLE, for every cell, a descriptor made by
 * cudnnSetRNNDescriptor_v6 (input size and type from xDesc) and one made by
 * the v8 setter; the LSTM recurrent projection (cudnnSetRNNProjectionLayers
 * against the v8 projSize) and dropout between layers (the same seed set
 * again before each training forward, so both draw the same masks); legacy
 * backward weights accumulates; bad inputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "freednn.h"
#include "testutil.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

enum { T = 4, B = 3, IN = 5, H = 4, L = 2, D = 2 };
static int lens[B] = {4, 3, 1};

/* The data type under test (FLOAT or DOUBLE) and its size. */
static cudnnDataType_t dt = CUDNN_DATA_FLOAT;
static size_t es = 4;

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

static void *
nan_buf(size_t n)
{
    void *a = fdnn_guarded_alloc(n * es);
    if (dt == CUDNN_DATA_DOUBLE)
        fdnn_poison_f64(a, n);
    else
        fdnn_poison_f32(a, n);
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

enum { PLAIN, PROJ, DROP };
#define DROP_P 0.3f
#define DROP_SEED 7

/* mode PROJ: projSize 3 < H (LSTM); DROP: dropout DROP_P between layers. */
static void
run(cudnnRNNMode_t cell, bool v6, int mode)
{
    cudnnRNNDescriptor_t r8, rl;
    cudnnDropoutDescriptor_t drop;
    int Pw = mode == PROJ ? 3 : H;
    size_t sbytes = 0;
    void *states = NULL;
    CHECK_OK(cudnnCreateDropoutDescriptor(&drop));
    if (mode == DROP) {
        CHECK_OK(cudnnDropoutGetStatesSize(handle, &sbytes));
        states = malloc(sbytes);
    }
    CHECK_OK(cudnnSetDropoutDescriptor(drop, handle, mode == DROP ? DROP_P : 0.0f, states, sbytes, DROP_SEED));
    CHECK_OK(cudnnCreateRNNDescriptor(&r8));
    CHECK_OK(cudnnCreateRNNDescriptor(&rl));
    CHECK_OK(cudnnSetRNNDescriptor_v8(r8, CUDNN_RNN_ALGO_STANDARD, cell, CUDNN_RNN_DOUBLE_BIAS, CUDNN_BIDIRECTIONAL,
                                      CUDNN_LINEAR_INPUT, dt, dt, CUDNN_DEFAULT_MATH, IN,
                                      H, Pw, L, mode == DROP ? drop : NULL, 0));
    if (v6)
        CHECK_OK(cudnnSetRNNDescriptor_v6(handle, rl, H, L, drop, CUDNN_LINEAR_INPUT, CUDNN_BIDIRECTIONAL, cell,
                                          CUDNN_RNN_ALGO_STANDARD, dt));
    else
        CHECK_OK(cudnnSetRNNDescriptor_v8(rl, CUDNN_RNN_ALGO_STANDARD, cell, CUDNN_RNN_DOUBLE_BIAS,
                                          CUDNN_BIDIRECTIONAL, CUDNN_LINEAR_INPUT, dt, dt, CUDNN_DEFAULT_MATH, IN, H, H,
                                          L, drop, 0));
    if (mode == PROJ)
        CHECK_OK(cudnnSetRNNProjectionLayers(handle, rl, Pw, 0));
    /* Per-step descriptors and the packed equivalent. */
    cudnnTensorDescriptor_t xd[T], yd[T], hd, cd;
    int rows = 0;
    for (int t = 0; t < T; t++) {
        int n = 0;
        for (int b = 0; b < B; b++)
            n += t < lens[b];
        rows += n;
        int dx[3] = {n, IN, 1}, sx[3] = {IN, 1, 1}, dy[3] = {n, D * Pw, 1}, sy[3] = {D * Pw, 1, 1};
        CHECK_OK(cudnnCreateTensorDescriptor(&xd[t]));
        CHECK_OK(cudnnCreateTensorDescriptor(&yd[t]));
        CHECK_OK(cudnnSetTensorNdDescriptor(xd[t], dt, 3, dx, sx));
        CHECK_OK(cudnnSetTensorNdDescriptor(yd[t], dt, 3, dy, sy));
    }
    int dh[3] = {L * D, B, Pw}, sh[3] = {B * Pw, Pw, 1}, dc[3] = {L * D, B, H}, sc[3] = {B * H, H, 1};
    CHECK_OK(cudnnCreateTensorDescriptor(&hd));
    CHECK_OK(cudnnSetTensorNdDescriptor(hd, dt, 3, dh, sh));
    CHECK_OK(cudnnCreateTensorDescriptor(&cd));
    CHECK_OK(cudnnSetTensorNdDescriptor(cd, dt, 3, dc, sc));
    cudnnRNNDataDescriptor_t xdd, ydd;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&xdd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&ydd));
    CHECK_OK(cudnnSetRNNDataDescriptor(xdd, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, IN, lens,
                                       NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(ydd, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, D * Pw,
                                       lens, NULL));
    size_t wb8, wbl, ws8, rs8, wsl, rsl;
    CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, r8, &wb8));
    CHECK_OK(cudnnGetRNNParamsSize(handle, rl, xd[0], &wbl, dt));
    CHECK(wb8 == wbl);
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, r8, CUDNN_FWD_MODE_TRAINING, xdd, &ws8, &rs8));
    CHECK_OK(cudnnGetRNNWorkspaceSize(handle, rl, T, xd, &wsl));
    CHECK_OK(cudnnGetRNNTrainingReserveSize(handle, rl, T, xd, &rsl));
    CHECK(wsl >= ws8 && rsl == rs8);
    cudnnFilterDescriptor_t wd, md;
    int wdims[3] = {(int)(wb8 / es), 1, 1};
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateFilterDescriptor(&md));
    CHECK_OK(cudnnSetFilterNdDescriptor(wd, dt, CUDNN_TENSOR_NCHW, 3, wdims));
    void *w = rnd(wb8 / es);
    /* Same addresses from both weight queries. */
    int g = cell == CUDNN_LSTM ? 4 : cell == CUDNN_GRU ? 3 : 1;
    for (int p = 0; p < L * D; p++)
        for (int id = 0; id < 2 * g + (mode == PROJ); id++) {
            void *m8, *b8, *ml, *bl;
            CHECK_OK(cudnnGetRNNWeightParams(handle, r8, p, wb8, w, id, NULL, NULL, NULL, NULL));
            cudnnTensorDescriptor_t t1, t2;
            cudnnCreateTensorDescriptor(&t1);
            cudnnCreateTensorDescriptor(&t2);
            CHECK_OK(cudnnGetRNNWeightParams(handle, r8, p, wb8, w, id, t1, &m8, t2, &b8));
            CHECK_OK(cudnnGetRNNLinLayerMatrixParams(handle, rl, p, xd[0], wd, w, id, md, &ml));
            int nb, fd[3];
            cudnnDataType_t dt;
            cudnnTensorFormat_t fmt;
            CHECK_OK(cudnnGetFilterNdDescriptor(md, 3, &dt, &fmt, &nb, fd));
            CHECK_MSG(ml == m8 && nb == 3 && fd[0] * fd[1] * fd[2] == (id < g ? H * (p < D ? IN : D * Pw) : H * Pw),
                      "matrix params differ: pseudo %d id %d", p, id);
            CHECK_OK(cudnnGetRNNLinLayerBiasParams(handle, rl, p, xd[0], wd, w, id, md, &bl));
            CHECK_MSG(bl == b8, "bias params differ: pseudo %d id %d", p, id);
            cudnnDestroyTensorDescriptor(t1);
            cudnnDestroyTensorDescriptor(t2);
        }
    size_t nh = (size_t)L * D * B * Pw, nc = (size_t)L * D * B * H, nx = (size_t)rows * IN, ny = (size_t)rows * D * Pw;
    void *x = rnd(nx), *hx = rnd(nh), *cx = rnd(nc), *dy = rnd(ny), *dhy = rnd(nh), *dcy = rnd(nc);
    void *ws = fdnn_guarded_alloc(wsl), *rs8b = fdnn_guarded_alloc(rs8), *rslb = fdnn_guarded_alloc(rsl);
    void *o8[8], *ol[8];
    size_t sizes[8] = {ny, nh, nc, nx, nh, nc, wb8 / es, ny};
    for (int i = 0; i < 8; i++)
        o8[i] = nan_buf(sizes[i]), ol[i] = nan_buf(sizes[i]);
    /* v8: y hy cy (training), dx dhx dcx, dw (ADD onto zeros), y (inference) */
    CHECK_OK(cudnnRNNForward(handle, r8, CUDNN_FWD_MODE_INFERENCE, lens, xdd, x, ydd, o8[7], hd, hx, NULL, cd, cx,
                             NULL, wb8, w, wsl, ws, 0, NULL));
    CHECK_OK(cudnnSetDropoutDescriptor(drop, handle, mode == DROP ? DROP_P : 0.0f, states, sbytes, DROP_SEED));
    CHECK_OK(cudnnRNNForward(handle, r8, CUDNN_FWD_MODE_TRAINING, lens, xdd, x, ydd, o8[0], hd, hx, o8[1], cd, cx,
                             o8[2], wb8, w, wsl, ws, rs8, rs8b));
    CHECK_OK(cudnnRNNBackwardData_v8(handle, r8, lens, ydd, o8[0], dy, xdd, o8[3], hd, hx, dhy, o8[4], cd, cx, dcy,
                                     o8[5], wb8, w, wsl, ws, rs8, rs8b));
    memset(o8[6], 0, wb8);
    CHECK_OK(cudnnRNNBackwardWeights_v8(handle, r8, CUDNN_WGRAD_MODE_ADD, lens, xdd, x, hd, hx, ydd, o8[0], wb8, o8[6],
                                        wsl, ws, rs8, rs8b));
    CHECK_OK(cudnnRNNForwardInference(handle, rl, T, xd, x, hd, hx, cd, cx, wd, w, yd, ol[7], hd, NULL, cd, NULL, ws,
                                      wsl));
    CHECK_OK(cudnnSetDropoutDescriptor(drop, handle, mode == DROP ? DROP_P : 0.0f, states, sbytes, DROP_SEED));
    CHECK_OK(cudnnRNNForwardTraining(handle, rl, T, xd, x, hd, hx, cd, cx, wd, w, yd, ol[0], hd, ol[1], cd, ol[2], ws,
                                     wsl, rslb, rsl));
    CHECK_OK(cudnnRNNBackwardData(handle, rl, T, yd, ol[0], yd, dy, hd, dhy, cd, dcy, wd, w, hd, hx, cd, cx, xd,
                                  ol[3], hd, ol[4], cd, ol[5], ws, wsl, rslb, rsl));
    memset(ol[6], 0, wb8);
    CHECK_OK(cudnnRNNBackwardWeights(handle, rl, T, xd, x, hd, hx, yd, ol[0], ws, wsl, wd, ol[6], rslb, rsl));
    const char *names[8] = {"y", "hy", "cy", "dx", "dhx", "dcx", "dw", "y (inference)"};
    for (int i = 0; i < 8; i++) {
        if ((i == 2 || i == 5) && cell != CUDNN_LSTM)
            continue;
        CHECK_MSG(same(o8[i], ol[i], sizes[i]), "cell %d v6 %d mode %d %s: legacy %s differs from v8", cell, v6,
                  mode, dt == CUDNN_DATA_DOUBLE ? "DOUBLE" : "FLOAT", names[i]);
    }
    /* With dropout, training and inference differ (the mask applies). */
    if (mode == DROP)
        CHECK_MSG(!same(o8[0], o8[7], ny), "cell %d: dropout changed nothing in training", cell);
    /* Legacy backward weights accumulates: a second call doubles dw. */
    CHECK_OK(cudnnRNNBackwardWeights(handle, rl, T, xd, x, hd, hx, yd, ol[0], ws, wsl, wd, ol[6], rslb, rsl));
    bool doubled = true;
    for (size_t i = 0; i < wb8 / es; i++)
        doubled &= at(ol[6], i) == 2 * at(o8[6], i);
    CHECK_MSG(doubled, "cell %d: cudnnRNNBackwardWeights does not accumulate", cell);
    /* Bad inputs. */
    CHECK_STATUS(cudnnRNNForwardTraining(handle, rl, T, xd, x, hd, hx, cd, cx, wd, w, yd, ol[0], hd, ol[1], cd, ol[2],
                                         ws, wsl, rslb, rsl - 4),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNForwardInference(handle, rl, T, xd, x, hd, hx, cd, cx, wd, w, yd, ol[7], hd, NULL, cd, NULL,
                                          ws, 16),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNForwardInference(handle, rl, 0, xd, x, hd, hx, cd, cx, wd, w, yd, ol[7], hd, NULL, cd, NULL,
                                          ws, wsl),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t rev[T] = {xd[3], xd[2], xd[1], xd[0]}; /* growing batches */
    CHECK_STATUS(cudnnGetRNNWorkspaceSize(handle, rl, T, rev, &wsl), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNBackwardWeights(handle, rl, T, xd, x, hd, hx, yd, ol[0], ws, wsl, wd, NULL, rslb, rsl),
                 CUDNN_STATUS_BAD_PARAM);
    void *ptr_out;
    CHECK_STATUS(cudnnGetRNNLinLayerMatrixParams(handle, rl, L * D, xd[0], wd, w, 0, md, &ptr_out),
                 CUDNN_STATUS_BAD_PARAM);
    /* dataType must be the RNN's (FLOAT here). */
    CHECK_STATUS(cudnnGetRNNParamsSize(handle, rl, xd[0], &wbl, CUDNN_DATA_HALF), CUDNN_STATUS_BAD_PARAM);
    for (int i = 0; i < 8; i++)
        fdnn_guarded_free(o8[i]), fdnn_guarded_free(ol[i]);
    fdnn_guarded_free(x), fdnn_guarded_free(hx), fdnn_guarded_free(cx), fdnn_guarded_free(dy);
    fdnn_guarded_free(dhy), fdnn_guarded_free(dcy), fdnn_guarded_free(ws), fdnn_guarded_free(rs8b);
    fdnn_guarded_free(rslb), fdnn_guarded_free(w);
    for (int t = 0; t < T; t++)
        cudnnDestroyTensorDescriptor(xd[t]), cudnnDestroyTensorDescriptor(yd[t]);
    cudnnDestroyTensorDescriptor(hd), cudnnDestroyTensorDescriptor(cd);
    cudnnDestroyFilterDescriptor(wd), cudnnDestroyFilterDescriptor(md);
    cudnnDestroyRNNDataDescriptor(xdd), cudnnDestroyRNNDataDescriptor(ydd);
    cudnnDestroyRNNDescriptor(r8), cudnnDestroyRNNDescriptor(rl);
    cudnnDestroyDropoutDescriptor(drop);
    free(states);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    fdnn_rng_seed(&rng, 77);
    for (int t = 1; t <= 2; t++) {
        CHECK_OK(freednnSetNumThreads(handle, t));
        for (int d = 0; d < 2; d++) {
            dt = d ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
            es = d ? 8 : 4;
            for (int c = 0; c < 4; c++) {
                run((cudnnRNNMode_t)c, true, PLAIN);
                run((cudnnRNNMode_t)c, false, PLAIN);
            }
            run(CUDNN_LSTM, true, PROJ);
            run(CUDNN_LSTM, false, PROJ);
            run(CUDNN_GRU, false, DROP);
            run(CUDNN_LSTM, true, DROP);
        }
    }
    cudnnDestroy(handle);
    return fdnn_test_finish("test_rnn_ops_legacy");
}
