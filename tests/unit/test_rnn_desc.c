/* SPDX-License-Identifier: Apache-2.0
 * RNN descriptors (v8, v6 and the legacy field setters, clipping,
 * cudnnBuildRNNDynamic) and RNN data descriptors: every function with good
 * and bad arguments, and a cross-check of statuses and get-back values
 * against NVIDIA's cuDNN 9 on random and edge-case parameter sets. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cudnn9.h"
#include "testutil.h"

/* A dropout descriptor is only stored: any non-NULL handle will do. */
#define FAKE_DROPOUT ((cudnnDropoutDescriptor_t)(uintptr_t)0x1000)

typedef struct rnn_params {
    cudnnRNNAlgo_t algo;
    cudnnRNNMode_t cell;
    cudnnRNNBiasMode_t bias;
    cudnnDirectionMode_t dir;
    cudnnRNNInputMode_t input;
    cudnnDataType_t dtype, math_prec;
    cudnnMathType_t math_type;
    int32_t input_size, hidden, proj, layers;
    cudnnDropoutDescriptor_t dropout;
    uint32_t aux;
} rnn_params_t;

static rnn_params_t
lstm(void)
{
    rnn_params_t p = {CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
                      CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, 10, 20, 20, 2,
                      FAKE_DROPOUT, CUDNN_RNN_PADDED_IO_ENABLED};
    return p;
}

static cudnnStatus_t
set_v8(cudnnRNNDescriptor_t d, rnn_params_t p)
{
    return cudnnSetRNNDescriptor_v8(d, p.algo, p.cell, p.bias, p.dir, p.input, p.dtype, p.math_prec, p.math_type,
                                    p.input_size, p.hidden, p.proj, p.layers, p.dropout, p.aux);
}

static rnn_params_t
get_v8(cudnnRNNDescriptor_t d, cudnnStatus_t *st)
{
    rnn_params_t g;
    memset(&g, 0x5a, sizeof(g));
    *st = cudnnGetRNNDescriptor_v8(d, &g.algo, &g.cell, &g.bias, &g.dir, &g.input, &g.dtype, &g.math_prec,
                                   &g.math_type, &g.input_size, &g.hidden, &g.proj, &g.layers, &g.dropout, &g.aux);
    return g;
}

static bool
same_params(rnn_params_t a, rnn_params_t b)
{
    return a.algo == b.algo && a.cell == b.cell && a.bias == b.bias && a.dir == b.dir && a.input == b.input &&
           a.dtype == b.dtype && a.math_prec == b.math_prec && a.math_type == b.math_type &&
           a.input_size == b.input_size && a.hidden == b.hidden && a.proj == b.proj && a.layers == b.layers &&
           a.dropout == b.dropout && a.aux == b.aux;
}

static void
test_rnn_v8(void)
{
    cudnnRNNDescriptor_t d = NULL;
    CHECK_STATUS(cudnnCreateRNNDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateRNNDescriptor(&d));
    cudnnStatus_t st;
    get_v8(d, &st);
    CHECK_MSG(st == CUDNN_STATUS_BAD_PARAM, "get of a never-set descriptor gave %d", st);

    rnn_params_t p = lstm();
    CHECK_OK(set_v8(d, p));
    rnn_params_t g = get_v8(d, &st);
    CHECK_OK(st);
    CHECK(same_params(p, g));
    /* Every output is optional. */
    CHECK_OK(cudnnGetRNNDescriptor_v8(d, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL, NULL));
    int32_t hidden = 0;
    CHECK_OK(cudnnGetRNNDescriptor_v8(d, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &hidden, NULL, NULL,
                                      NULL, NULL));
    CHECK(hidden == 20);

    /* NULL dropout is allowed by the v8 setter. */
    p.dropout = NULL;
    CHECK_OK(set_v8(d, p));
    /* Projection: LSTM + standard only, never wider than hidden. */
    p = lstm();
    p.proj = 8;
    CHECK_OK(set_v8(d, p));
    g = get_v8(d, &st);
    CHECK(g.proj == 8);
    p.cell = CUDNN_GRU;
    CHECK_STATUS(set_v8(d, p), CUDNN_STATUS_NOT_SUPPORTED);
    p = lstm();
    p.proj = 8;
    p.algo = CUDNN_RNN_ALGO_PERSIST_STATIC;
    CHECK_STATUS(set_v8(d, p), CUDNN_STATUS_NOT_SUPPORTED);
    p = lstm();
    p.proj = 21;
    CHECK_STATUS(set_v8(d, p), CUDNN_STATUS_NOT_SUPPORTED);

    /* Bad enumerants and sizes are BAD_PARAM; nothing is written on failure. */
    rnn_params_t before = get_v8(d, &st);
    rnn_params_t bad[] = {lstm(), lstm(), lstm(), lstm(), lstm(), lstm(), lstm(), lstm(),
                          lstm(), lstm(), lstm(), lstm(), lstm(), lstm(), lstm()};
    bad[0].algo = (cudnnRNNAlgo_t)4;
    bad[1].cell = (cudnnRNNMode_t)4;
    bad[2].bias = (cudnnRNNBiasMode_t)-1;
    bad[3].dir = (cudnnDirectionMode_t)2;
    bad[4].input = (cudnnRNNInputMode_t)2;
    bad[5].math_type = (cudnnMathType_t)4;
    bad[6].dtype = (cudnnDataType_t)100;
    bad[7].math_prec = (cudnnDataType_t)-1;
    bad[8].input_size = 0;
    bad[9].hidden = -1;
    bad[10].proj = 0;
    bad[11].layers = 0;
    bad[12].aux = 2;
    bad[13].aux = 0x80000000u;
    bad[14].input_size = -5;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_MSG(set_v8(d, bad[i]) == CUDNN_STATUS_BAD_PARAM, "bad set %zu", i);
        g = get_v8(d, &st);
        CHECK_MSG(same_params(before, g), "bad set %zu changed the descriptor", i);
    }
    /* Unsupported type pairs. */
    const cudnnDataType_t pairs_ok[][2] = {{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT}, {CUDNN_DATA_HALF, CUDNN_DATA_HALF},
                                           {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT}, {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
                                           {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}};
    const cudnnDataType_t pairs_bad[][2] = {{CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}, {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE},
                                            {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT}, {CUDNN_DATA_INT8, CUDNN_DATA_INT8},
                                            {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16}};
    for (int i = 0; i < 5; i++) {
        p = lstm();
        p.dtype = pairs_ok[i][0];
        p.math_prec = pairs_ok[i][1];
        CHECK_MSG(set_v8(d, p) == CUDNN_STATUS_SUCCESS, "pair ok %d", i);
        p.dtype = pairs_bad[i][0];
        p.math_prec = pairs_bad[i][1];
        CHECK_MSG(set_v8(d, p) == CUDNN_STATUS_NOT_SUPPORTED, "pair bad %d", i);
    }
    CHECK_STATUS(set_v8(NULL, lstm()), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDescriptor_v8(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                          NULL, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyRNNDescriptor(d));
    CHECK_OK(cudnnDestroyRNNDescriptor(NULL));
}

static void
test_clip(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    cudnnRNNDescriptor_t d;
    CHECK_OK(cudnnCreateRNNDescriptor(&d));
    cudnnRNNClipMode_t m = (cudnnRNNClipMode_t)9;
    cudnnNanPropagation_t n = (cudnnNanPropagation_t)9;
    double l = 7, r = 7;
    /* Defaults before any set; clipping may be set before the descriptor. */
    CHECK_OK(cudnnRNNGetClip_v8(d, &m, &n, &l, &r));
    CHECK(m == CUDNN_RNN_CLIP_NONE && n == CUDNN_NOT_PROPAGATE_NAN && l == 0 && r == 0);
    CHECK_OK(cudnnRNNSetClip_v8(d, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, -2.0, 3.0));
    CHECK_OK(cudnnRNNGetClip_v8(d, &m, &n, &l, &r));
    CHECK(m == CUDNN_RNN_CLIP_MINMAX && n == CUDNN_PROPAGATE_NAN && l == -2.0 && r == 3.0);
    CHECK_OK(cudnnRNNSetClip_v8(d, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, 1.0, 1.0));
    CHECK_OK(cudnnRNNSetClip_v8(d, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, -INFINITY, INFINITY));
    CHECK_STATUS(cudnnRNNSetClip_v8(d, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, 2.0, 1.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(d, CUDNN_RNN_CLIP_NONE, CUDNN_PROPAGATE_NAN, 2.0, 1.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(d, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, NAN, 1.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(d, (cudnnRNNClipMode_t)2, CUDNN_PROPAGATE_NAN, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(d, CUDNN_RNN_CLIP_NONE, (cudnnNanPropagation_t)2, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(NULL, CUDNN_RNN_CLIP_NONE, CUDNN_PROPAGATE_NAN, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnRNNGetClip_v8(d, &m, &n, &l, &r));
    CHECK(l == -INFINITY && r == INFINITY);
    CHECK_OK(cudnnRNNGetClip_v8(d, NULL, NULL, NULL, NULL));
    /* A new configuration drops the clipping. */
    CHECK_OK(set_v8(d, lstm()));
    CHECK_OK(cudnnRNNGetClip_v8(d, &m, &n, &l, &r));
    CHECK(m == CUDNN_RNN_CLIP_NONE && l == 0 && r == 0);
    /* The legacy pair needs a handle. */
    CHECK_OK(cudnnRNNSetClip(h, d, CUDNN_RNN_CLIP_MINMAX, CUDNN_NOT_PROPAGATE_NAN, -1, 1));
    CHECK_OK(cudnnRNNGetClip(h, d, &m, &n, &l, &r));
    CHECK(m == CUDNN_RNN_CLIP_MINMAX && n == CUDNN_NOT_PROPAGATE_NAN && l == -1 && r == 1);
    CHECK_STATUS(cudnnRNNSetClip(NULL, d, CUDNN_RNN_CLIP_MINMAX, CUDNN_NOT_PROPAGATE_NAN, -1, 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNGetClip(NULL, d, &m, &n, &l, &r), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyRNNDescriptor(d));
    CHECK_OK(cudnnDestroy(h));
}

static void
test_legacy(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    cudnnRNNDescriptor_t d;
    CHECK_OK(cudnnCreateRNNDescriptor(&d));
    /* Field setters work on a created descriptor; the getters need it. */
    cudnnMathType_t mt = (cudnnMathType_t)9;
    CHECK_OK(cudnnGetRNNMatrixMathType(d, &mt));
    CHECK(mt == CUDNN_DEFAULT_MATH);
    CHECK_OK(cudnnSetRNNMatrixMathType(d, CUDNN_TENSOR_OP_MATH));
    CHECK_OK(cudnnGetRNNMatrixMathType(d, &mt));
    CHECK(mt == CUDNN_TENSOR_OP_MATH);
    CHECK_STATUS(cudnnSetRNNMatrixMathType(d, (cudnnMathType_t)4), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNMatrixMathType(d, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNMatrixMathType(NULL, CUDNN_DEFAULT_MATH), CUDNN_STATUS_BAD_PARAM);

    const int hidden = 16, layers = 3;
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(NULL, d, hidden, layers, FAKE_DROPOUT, CUDNN_LINEAR_INPUT,
                                          CUDNN_BIDIRECTIONAL, CUDNN_LSTM, CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_FLOAT),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, d, hidden, layers, NULL, CUDNN_LINEAR_INPUT, CUDNN_BIDIRECTIONAL,
                                          CUDNN_LSTM, CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_FLOAT),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, d, 0, layers, FAKE_DROPOUT, CUDNN_LINEAR_INPUT, CUDNN_BIDIRECTIONAL,
                                          CUDNN_LSTM, CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_FLOAT),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, d, hidden, -1, FAKE_DROPOUT, CUDNN_LINEAR_INPUT, CUDNN_BIDIRECTIONAL,
                                          CUDNN_LSTM, CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_FLOAT),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, d, hidden, layers, FAKE_DROPOUT, (cudnnRNNInputMode_t)3,
                                          CUDNN_BIDIRECTIONAL, CUDNN_LSTM, CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_FLOAT),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, d, hidden, layers, FAKE_DROPOUT, CUDNN_LINEAR_INPUT,
                                          CUDNN_BIDIRECTIONAL, CUDNN_LSTM, CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_INT8),
                 CUDNN_STATUS_NOT_SUPPORTED);
    int hs = 0, nl = 0;
    CHECK_STATUS(cudnnGetRNNDescriptor_v6(h, d, &hs, &nl, NULL, NULL, NULL, NULL, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM); /* never set */
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, d, hidden, layers, FAKE_DROPOUT, CUDNN_SKIP_INPUT, CUDNN_BIDIRECTIONAL,
                                      CUDNN_LSTM, CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_HALF));
    cudnnDropoutDescriptor_t dd = NULL;
    cudnnRNNInputMode_t im;
    cudnnDirectionMode_t dir;
    cudnnRNNMode_t cell;
    cudnnRNNAlgo_t algo;
    cudnnDataType_t mp;
    CHECK_OK(cudnnGetRNNDescriptor_v6(h, d, &hs, &nl, &dd, &im, &dir, &cell, &algo, &mp));
    CHECK(hs == hidden && nl == layers && dd == FAKE_DROPOUT && im == CUDNN_SKIP_INPUT && dir == CUDNN_BIDIRECTIONAL &&
          cell == CUDNN_LSTM && algo == CUDNN_RNN_ALGO_STANDARD && mp == CUDNN_DATA_HALF);
    cudnnStatus_t st;
    rnn_params_t g = get_v8(d, &st);
    CHECK_OK(st);
    CHECK(g.proj == hidden && g.bias == CUDNN_RNN_DOUBLE_BIAS && g.input_size == 0 && g.aux == 0);

    /* Padding mode is auxFlags' PADDED_IO bit. */
    unsigned pm = 9;
    CHECK_OK(cudnnGetRNNPaddingMode(d, &pm));
    CHECK(pm == CUDNN_RNN_PADDED_IO_DISABLED);
    CHECK_OK(cudnnSetRNNPaddingMode(d, CUDNN_RNN_PADDED_IO_ENABLED));
    CHECK_OK(cudnnGetRNNPaddingMode(d, &pm));
    CHECK(pm == CUDNN_RNN_PADDED_IO_ENABLED);
    g = get_v8(d, &st);
    CHECK(g.aux == CUDNN_RNN_PADDED_IO_ENABLED);
    CHECK_STATUS(cudnnSetRNNPaddingMode(d, 2), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNPaddingMode(d, NULL), CUDNN_STATUS_BAD_PARAM);

    /* Projection layers. */
    int rec = 0, out = 7;
    CHECK_OK(cudnnGetRNNProjectionLayers(h, d, &rec, &out));
    CHECK(rec == hidden && out == 0);
    CHECK_OK(cudnnSetRNNProjectionLayers(h, d, 8, 0));
    CHECK_OK(cudnnGetRNNProjectionLayers(h, d, &rec, &out));
    CHECK(rec == 8 && out == 0);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, d, 8, 4), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, d, 0, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, d, 8, -1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, d, hidden + 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(NULL, d, 8, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNProjectionLayers(h, d, NULL, &out), CUDNN_STATUS_BAD_PARAM);

    /* Bias mode: non-default modes need the standard algorithm. */
    cudnnRNNBiasMode_t bm;
    CHECK_OK(cudnnSetRNNBiasMode(d, CUDNN_RNN_SINGLE_INP_BIAS));
    CHECK_OK(cudnnGetRNNBiasMode(d, &bm));
    CHECK(bm == CUDNN_RNN_SINGLE_INP_BIAS);
    CHECK_STATUS(cudnnSetRNNBiasMode(d, (cudnnRNNBiasMode_t)4), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNBiasMode(d, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, d, hidden, layers, FAKE_DROPOUT, CUDNN_LINEAR_INPUT, CUDNN_UNIDIRECTIONAL,
                                      CUDNN_GRU, CUDNN_RNN_ALGO_PERSIST_STATIC, CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnSetRNNBiasMode(d, CUDNN_RNN_NO_BIAS), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnSetRNNBiasMode(d, CUDNN_RNN_DOUBLE_BIAS));
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, d, 8, 0), CUDNN_STATUS_NOT_SUPPORTED); /* GRU */

    /* cudnnBuildRNNDynamic: only for PERSIST_DYNAMIC, positive batch. */
    CHECK_STATUS(cudnnBuildRNNDynamic(h, d, 4), CUDNN_STATUS_BAD_PARAM);
    rnn_params_t p = lstm();
    p.algo = CUDNN_RNN_ALGO_PERSIST_DYNAMIC;
    CHECK_OK(set_v8(d, p));
    CHECK_OK(cudnnBuildRNNDynamic(h, d, 4));
    CHECK_STATUS(cudnnBuildRNNDynamic(h, d, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBuildRNNDynamic(NULL, d, 4), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBuildRNNDynamic(h, NULL, 4), CUDNN_STATUS_BAD_PARAM);

    /* Persistent plans (the legacy form of the same thing). */
    cudnnPersistentRNNPlan_t plan = NULL;
    CHECK_OK(cudnnCreatePersistentRNNPlan(d, 8, CUDNN_DATA_FLOAT, &plan));
    CHECK(plan != NULL);
    CHECK_OK(cudnnSetPersistentRNNPlan(d, plan));
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(d, 0, CUDNN_DATA_FLOAT, &plan), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(d, 8, (cudnnDataType_t)99, &plan), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(d, 8, CUDNN_DATA_FLOAT, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(d, 8, CUDNN_DATA_DOUBLE, &plan), CUDNN_STATUS_NOT_SUPPORTED);
    cudnnRNNDescriptor_t other;
    CHECK_OK(cudnnCreateRNNDescriptor(&other));
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(other, 8, CUDNN_DATA_FLOAT, &plan), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(set_v8(other, p));
    CHECK_STATUS(cudnnSetPersistentRNNPlan(other, plan), CUDNN_STATUS_BAD_PARAM); /* made for d */
    CHECK_OK(set_v8(other, lstm()));
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(other, 8, CUDNN_DATA_FLOAT, &plan), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetPersistentRNNPlan(d, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(set_v8(d, lstm()));
    CHECK_STATUS(cudnnSetPersistentRNNPlan(d, plan), CUDNN_STATUS_BAD_PARAM); /* no longer PERSIST_DYNAMIC */
    CHECK_OK(cudnnDestroyPersistentRNNPlan(plan));
    CHECK_OK(cudnnDestroyPersistentRNNPlan(NULL));
    CHECK_OK(cudnnDestroyRNNDescriptor(other));

    CHECK_OK(cudnnDestroyRNNDescriptor(d));
    CHECK_OK(cudnnDestroy(h));
}

/* ---- RNN data ------------------------------------------------------------ */

static void
test_rnn_data(void)
{
    cudnnRNNDataDescriptor_t d;
    CHECK_STATUS(cudnnCreateRNNDataDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateRNNDataDescriptor(&d));
    cudnnDataType_t dt;
    cudnnRNNDataLayout_t lay;
    int ms, bs, vs;
    float fill = 0;
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &ms, &bs, &vs, 0, NULL, &fill), CUDNN_STATUS_BAD_PARAM);

    int lengths[4] = {3, 2, 5, 0};
    float pad = 1.5f;
    CHECK_OK(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, 5, 4, 8,
                                       lengths, &pad));
    lengths[0] = 99; /* the descriptor keeps its own copy */
    int *out = fdnn_guarded_alloc(3 * sizeof(int));
    fdnn_poison_bytes(out, 3 * sizeof(int));
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &ms, &bs, &vs, 3, out, &fill));
    CHECK(dt == CUDNN_DATA_FLOAT && lay == CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED && ms == 5 && bs == 4 &&
          vs == 8 && fill == 1.5f);
    CHECK(out[0] == 3 && out[1] == 2 && out[2] == 5); /* 3 of 4, nothing past the buffer */
    fdnn_guarded_free(out);
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &ms, &bs, &vs, 0, NULL, &fill));
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &ms, &bs, &vs, 2, NULL, &fill), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &ms, &bs, &vs, -1, lengths, &fill), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, NULL, &lay, &ms, &bs, &vs, 0, NULL, &fill), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &ms, &bs, &vs, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);

    /* A double fill is 8 bytes; a NULL fill reads back as zero. */
    double dpad = -2.25, dfill = 0;
    lengths[0] = 3;
    CHECK_OK(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_DOUBLE, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 5, 4, 8,
                                       lengths, &dpad));
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &ms, &bs, &vs, 0, NULL, &dfill));
    CHECK(dfill == -2.25);
    CHECK_OK(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_DOUBLE, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 5, 4, 8,
                                       lengths, NULL));
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &ms, &bs, &vs, 0, NULL, &dfill));
    CHECK(dfill == 0.0);

    /* Packed layout: non-increasing lengths. */
    int sorted[4] = {5, 3, 3, 1};
    CHECK_OK(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_HALF, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 5, 4, 8, sorted,
                                       NULL));
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_HALF, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 5, 4, 8,
                                           lengths, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    /* Nothing changed by the failure. */
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &ms, &bs, &vs, 0, NULL, &dfill));
    CHECK(dt == CUDNN_DATA_HALF && lay == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED);

    int too_long[4] = {6, 1, 1, 1}, negative[4] = {1, -1, 1, 1};
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 5, 4, 8, too_long, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 5, 4, 8, negative, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 5, 4, 8, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 3, 5, 4, 8, sorted, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, (cudnnDataType_t)99, 0, 5, 4, 8, sorted, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 0, 4, 8, sorted, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 5, 0, 8, sorted, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 5, 4, -8, sorted, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_INT8, 0, 5, 4, 8, sorted, NULL), CUDNN_STATUS_NOT_SUPPORTED);
    int one[1] = {1};
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 65536, 1, 4, one, NULL),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 65535, 1, 46341, one, NULL));
    int unsorted_top[4] = {4, 4, 1, 1};
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 5, 4, 8,
                                           unsorted_top, NULL),
                 CUDNN_STATUS_BAD_PARAM); /* the longest must be maxSeqLength */
    int empty_tail[4] = {5, 4, 1, 0};
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 5, 4, 8,
                                           empty_tail, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(NULL, CUDNN_DATA_FLOAT, 0, 5, 4, 8, sorted, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyRNNDataDescriptor(d));
    CHECK_OK(cudnnDestroyRNNDataDescriptor(NULL));
}

/* ---- cuDNN 9 cross-check --------------------------------------------------- */

typedef int (*c9_create_fn)(void **);
typedef int (*c9_destroy_fn)(void *);
typedef int (*c9_rnn_set_fn)(void *, cudnnRNNAlgo_t, cudnnRNNMode_t, cudnnRNNBiasMode_t, cudnnDirectionMode_t,
                             cudnnRNNInputMode_t, cudnnDataType_t, cudnnDataType_t, cudnnMathType_t, int32_t,
                             int32_t, int32_t, int32_t, void *, uint32_t);
typedef int (*c9_rnn_get_fn)(void *, cudnnRNNAlgo_t *, cudnnRNNMode_t *, cudnnRNNBiasMode_t *,
                             cudnnDirectionMode_t *, cudnnRNNInputMode_t *, cudnnDataType_t *, cudnnDataType_t *,
                             cudnnMathType_t *, int32_t *, int32_t *, int32_t *, int32_t *, void **, uint32_t *);
typedef int (*c9_clip_set_fn)(void *, cudnnRNNClipMode_t, cudnnNanPropagation_t, double, double);
typedef int (*c9_clip_get_fn)(void *, cudnnRNNClipMode_t *, cudnnNanPropagation_t *, double *, double *);
typedef int (*c9_data_set_fn)(void *, cudnnDataType_t, cudnnRNNDataLayout_t, int, int, int, const int *, void *);
typedef int (*c9_data_get_fn)(void *, cudnnDataType_t *, cudnnRNNDataLayout_t *, int *, int *, int *, int, int *,
                              void *);

static const cudnnDataType_t DTYPES[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                         CUDNN_DATA_INT8, CUDNN_DATA_INT32};

static int
pick_size(fdnn_rng_t *rng, int hi)
{
    int r = fdnn_rng_int(rng, 0, 19);
    if (r == 0)
        return 0;
    if (r == 1)
        return -fdnn_rng_int(rng, 1, 3);
    return fdnn_rng_int(rng, 1, hi);
}

static void
cross_check_rnn(void)
{
    c9_create_fn c9c = (c9_create_fn)fdnn_cudnn9_sym("cudnnCreateRNNDescriptor");
    c9_destroy_fn c9d = (c9_destroy_fn)fdnn_cudnn9_sym("cudnnDestroyRNNDescriptor");
    c9_rnn_set_fn c9s = (c9_rnn_set_fn)fdnn_cudnn9_sym("cudnnSetRNNDescriptor_v8");
    c9_rnn_get_fn c9g = (c9_rnn_get_fn)fdnn_cudnn9_sym("cudnnGetRNNDescriptor_v8");
    c9_clip_set_fn c9cs = (c9_clip_set_fn)fdnn_cudnn9_sym("cudnnRNNSetClip_v8");
    c9_clip_get_fn c9cg = (c9_clip_get_fn)fdnn_cudnn9_sym("cudnnRNNGetClip_v8");
    if (!c9c || !c9d || !c9s || !c9g || !c9cs || !c9cg) {
        printf("cuDNN 9 not found: RNN cross-check skipped\n");
        return;
    }
    void *d9 = NULL;
    cudnnRNNDescriptor_t d;
    CHECK(c9c(&d9) == 0);
    CHECK_OK(cudnnCreateRNNDescriptor(&d));
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 8904);
    int agree = 0;
    for (int it = 0; it < 3000; it++) {
        rnn_params_t p = lstm();
        /* Persistent algorithms are NOT_SUPPORTED by cuDNN 9 without a GPU
         * (docs/descriptors-adv.md); they get their own check below. */
        p.algo = CUDNN_RNN_ALGO_STANDARD;
        p.cell = (cudnnRNNMode_t)fdnn_rng_int(&rng, 0, 3);
        p.bias = (cudnnRNNBiasMode_t)fdnn_rng_int(&rng, 0, 3);
        p.dir = (cudnnDirectionMode_t)fdnn_rng_int(&rng, 0, 1);
        p.input = (cudnnRNNInputMode_t)fdnn_rng_int(&rng, 0, 1);
        p.dtype = DTYPES[fdnn_rng_int(&rng, 0, 5)];
        p.math_prec = fdnn_rng_int(&rng, 0, 2) ? p.dtype : DTYPES[fdnn_rng_int(&rng, 0, 5)];
        p.math_type = (cudnnMathType_t)fdnn_rng_int(&rng, 0, 3);
        p.input_size = pick_size(&rng, 300);
        p.hidden = pick_size(&rng, 300);
        int r = fdnn_rng_int(&rng, 0, 3);
        p.proj = r == 0 ? pick_size(&rng, 300) : r == 1 ? p.hidden - fdnn_rng_int(&rng, 0, 5) : p.hidden;
        p.layers = pick_size(&rng, 8);
        p.dropout = NULL;
        p.aux = fdnn_rng_int(&rng, 0, 9) == 0 ? (uint32_t)fdnn_rng_int(&rng, 2, 7) : (uint32_t)fdnn_rng_int(&rng, 0, 1);
        cudnnStatus_t ours = set_v8(d, p);
        cudnnStatus_t theirs = fdnn_cudnn9_category(c9s(d9, p.algo, p.cell, p.bias, p.dir, p.input, p.dtype,
                                                        p.math_prec, p.math_type, p.input_size, p.hidden, p.proj,
                                                        p.layers, NULL, p.aux));
        CHECK_MSG(ours == theirs,
                  "rnn #%d: cell %d bias %d dir %d in %d dt %d mp %d mt %d sizes %d/%d/%d/%d aux %u: "
                  "ours %d, cuDNN 9 %d",
                  it, p.cell, p.bias, p.dir, p.input, p.dtype, p.math_prec, p.math_type, p.input_size, p.hidden,
                  p.proj, p.layers, p.aux, ours, theirs);
        if (ours != CUDNN_STATUS_SUCCESS || theirs != CUDNN_STATUS_SUCCESS)
            continue;
        cudnnStatus_t st;
        rnn_params_t a = get_v8(d, &st), b;
        void *drop9 = NULL;
        memset(&b, 0x5a, sizeof(b));
        CHECK(c9g(d9, &b.algo, &b.cell, &b.bias, &b.dir, &b.input, &b.dtype, &b.math_prec, &b.math_type,
                  &b.input_size, &b.hidden, &b.proj, &b.layers, &drop9, &b.aux) == 0);
        b.dropout = drop9;
        CHECK_MSG(same_params(a, b), "rnn #%d: get-back values differ from cuDNN 9", it);
        agree++;
        /* Clipping on a set descriptor. */
        cudnnRNNClipMode_t cm = (cudnnRNNClipMode_t)fdnn_rng_int(&rng, 0, 1);
        cudnnNanPropagation_t cn = (cudnnNanPropagation_t)fdnn_rng_int(&rng, 0, 1);
        double l = fdnn_rng_uniform(&rng, -2, 2), rr = fdnn_rng_uniform(&rng, -2, 2);
        ours = cudnnRNNSetClip_v8(d, cm, cn, l, rr);
        theirs = fdnn_cudnn9_category(c9cs(d9, cm, cn, l, rr));
        CHECK_MSG(ours == theirs, "clip #%d (%g, %g): ours %d, cuDNN 9 %d", it, l, rr, ours, theirs);
        cudnnRNNClipMode_t cm1, cm2;
        cudnnNanPropagation_t cn1, cn2;
        double l1, l2, r1, r2;
        CHECK_OK(cudnnRNNGetClip_v8(d, &cm1, &cn1, &l1, &r1));
        CHECK(c9cg(d9, &cm2, &cn2, &l2, &r2) == 0);
        CHECK_MSG(cm1 == cm2 && cn1 == cn2 && l1 == l2 && r1 == r2, "clip #%d: get-back differs", it);
    }
    CHECK_MSG(agree > 300, "only %d random RNN descriptors were valid for both", agree);
    CHECK(c9d(d9) == 0);
    CHECK_OK(cudnnDestroyRNNDescriptor(d));
}

static void
cross_check_rnn_data(void)
{
    c9_create_fn c9c = (c9_create_fn)fdnn_cudnn9_sym("cudnnCreateRNNDataDescriptor");
    c9_destroy_fn c9d = (c9_destroy_fn)fdnn_cudnn9_sym("cudnnDestroyRNNDataDescriptor");
    c9_data_set_fn c9s = (c9_data_set_fn)fdnn_cudnn9_sym("cudnnSetRNNDataDescriptor");
    c9_data_get_fn c9g = (c9_data_get_fn)fdnn_cudnn9_sym("cudnnGetRNNDataDescriptor");
    if (!c9c || !c9d || !c9s || !c9g) {
        printf("cuDNN 9 not found: RNN data cross-check skipped\n");
        return;
    }
    void *d9 = NULL;
    cudnnRNNDataDescriptor_t d;
    CHECK(c9c(&d9) == 0);
    CHECK_OK(cudnnCreateRNNDataDescriptor(&d));
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 42);
    int agree = 0;
    for (int it = 0; it < 3000; it++) {
        cudnnDataType_t dt = DTYPES[fdnn_rng_int(&rng, 0, 4)];
        cudnnRNNDataLayout_t lay = (cudnnRNNDataLayout_t)fdnn_rng_int(&rng, 0, 2);
        int ms = pick_size(&rng, 7), bs = pick_size(&rng, 6), vs = pick_size(&rng, 9);
        int lengths[8];
        int n = bs > 0 ? bs : 1;
        int top = ms > 0 ? ms : 1;
        for (int i = 0; i < n; i++)
            lengths[i] = fdnn_rng_int(&rng, 0, 9) == 0 ? fdnn_rng_int(&rng, -1, top + 1) : fdnn_rng_int(&rng, 0, top);
        if (fdnn_rng_int(&rng, 0, 1)) /* often sorted for the packed layout */
            for (int i = 1; i < n; i++)
                if (lengths[i] > lengths[i - 1])
                    lengths[i] = lengths[i - 1];
        double fill_value = fdnn_rng_uniform(&rng, -4, 4);
        unsigned char fill[8];
        memcpy(fill, &fill_value, 8);
        void *pf = fdnn_rng_int(&rng, 0, 1) ? fill : NULL;
        cudnnStatus_t ours = cudnnSetRNNDataDescriptor(d, dt, lay, ms, bs, vs, lengths, pf);
        cudnnStatus_t theirs = fdnn_cudnn9_category(c9s(d9, dt, lay, ms, bs, vs, lengths, pf));
        CHECK_MSG(ours == theirs, "rnn data #%d: dt %d layout %d %dx%dx%d: ours %d, cuDNN 9 %d", it, dt, lay, ms, bs,
                  vs, ours, theirs);
        if (ours != CUDNN_STATUS_SUCCESS || theirs != CUDNN_STATUS_SUCCESS)
            continue;
        cudnnDataType_t dt1, dt2;
        cudnnRNNDataLayout_t l1, l2;
        int m1, m2, b1, b2, v1, v2, s1[8], s2[8];
        unsigned char f1[8] = {0}, f2[8] = {0};
        CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt1, &l1, &m1, &b1, &v1, 8, s1, f1));
        CHECK(c9g(d9, &dt2, &l2, &m2, &b2, &v2, 8, s2, f2) == 0);
        CHECK_MSG(dt1 == dt2 && l1 == l2 && m1 == m2 && b1 == b2 && v1 == v2 &&
                      memcmp(s1, s2, (size_t)b1 * sizeof(int)) == 0 && memcmp(f1, f2, 8) == 0,
                  "rnn data #%d: get-back values differ from cuDNN 9", it);
        agree++;
    }
    CHECK_MSG(agree > 300, "only %d random RNN data descriptors were valid for both", agree);
    /* Edge cases: sizes past 2^31 elements, the sequence-length limit. */
    int one[1] = {1};
    const int edges[][3] = {{46341, 1, 46341}, {1, 1, INT_MAX}, {2, 1, INT_MAX / 2 + 1}, {65536, 1, 32768},
                            {65535, 1, 1}, {65536, 1, 1}, {1, 1, 1}};
    for (int i = 0; i < 7; i++) {
        cudnnStatus_t ours = cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, edges[i][0], edges[i][1],
                                                       edges[i][2], one, NULL);
        cudnnStatus_t theirs =
            fdnn_cudnn9_category(c9s(d9, CUDNN_DATA_FLOAT, 0, edges[i][0], edges[i][1], edges[i][2], one, NULL));
        CHECK_MSG(ours == theirs, "rnn data edge %d: ours %d, cuDNN 9 %d", i, ours, theirs);
    }
    CHECK(c9d(d9) == 0);
    CHECK_OK(cudnnDestroyRNNDataDescriptor(d));
}

int
main(void)
{
    test_rnn_v8();
    test_clip();
    test_legacy();
    test_rnn_data();
    cross_check_rnn();
    cross_check_rnn_data();
    return fdnn_test_finish("test_rnn_desc");
}
