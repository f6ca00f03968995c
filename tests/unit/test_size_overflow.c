/* SPDX-License-Identifier: Apache-2.0
 * Size arithmetic on user integers (issue #18, findings 1-5; issue #17
 * item 7): every product that can overflow is BAD_PARAM with a reason, never
 * a wrapped size, a division by zero or undefined behaviour, and required
 * descriptors are required.
 *
 * 1. RNN weight space, temp spaces: sizes past int64_t or PTRDIFF_MAX.
 * 2. RNN yDesc == NULL: BAD_PARAM before anything runs (outputs untouched).
 * 3. Transform fold factors whose product wraps (to 0: SIGFPE before).
 * 4. Folded backward-data descriptors with strides near INT_MAX.
 * 5. DOUBLE GEMM with alpha == 0 (no NULL + 0 in the driver; the UBSan
 *    build of scripts/test.sh stops on it).
 * Plus the checked layer itself (src/core/ckd.h). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"
#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "freednn.h"
#include "testutil.h"

static cudnnHandle_t handle;

/* ---- the layer -------------------------------------------------------------- */

static void
test_ckd_layer(void)
{
    int64_t r = 0;
    CHECK(fdnn_ckd_mul_i64(INT32_MAX, INT32_MAX, &r) && r == (int64_t)INT32_MAX * INT32_MAX);
    CHECK(!fdnn_ckd_mul_i64((int64_t)1 << 32, (int64_t)1 << 31, &r));
    CHECK(!fdnn_ckd_mul3_i64(4, (int64_t)1 << 30, (int64_t)1 << 31, &r));
    CHECK(fdnn_ckd_mul3_i64(4, (int64_t)1 << 30, (int64_t)1 << 30, &r) && r == (int64_t)1 << 62);
    CHECK(!fdnn_ckd_add_i64(INT64_MAX, 1, &r));
    r = 5;
    CHECK(fdnn_ckd_madd_i64(&r, 3, 4) && r == 17);
    CHECK(!fdnn_ckd_madd_i64(&r, INT64_MAX, 2));
    const int64_t v[3] = {(int64_t)1 << 31, (int64_t)1 << 31, 4};
    CHECK(!fdnn_ckd_prod_i64(v, 3, &r));
    CHECK(fdnn_ckd_prod_i64(v, 2, &r) && r == (int64_t)1 << 62);
    size_t b = 0;
    CHECK(fdnn_ckd_bytes(3, 8, &b) && b == 24);
    CHECK(!fdnn_ckd_bytes((int64_t)1 << 61, 4, &b)); /* 2^63 > PTRDIFF_MAX */
    CHECK(!fdnn_ckd_bytes(-1, 1, &b));
    CHECK(fdnn_ckd_div_up_i64(INT64_MAX, 2) == INT64_MAX / 2 + 1);
    int32_t n32;
    CHECK(!fdnn_ckd_to_i32((int64_t)INT32_MAX + 1, &n32) && fdnn_ckd_to_i32(INT32_MIN, &n32) && n32 == INT32_MIN);
}

/* ---- finding 1: RNN sizes ------------------------------------------------------- */

static cudnnRNNDescriptor_t
make_rnn(cudnnRNNMode_t cell, cudnnDataType_t dt, int input, int hidden, int layers)
{
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, cell, CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
                                      CUDNN_LINEAR_INPUT, dt, dt, CUDNN_DEFAULT_MATH, input, hidden, hidden, layers,
                                      NULL, 0));
    return r;
}

static void
test_rnn_weight_sizes(void)
{
    size_t bytes = 0;
    /* Exact on a small LSTM: 4 gates x 3 hidden x (2 input + 3 recurrent)
     * + 2 x 12 biases = 84 floats. */
    cudnnRNNDescriptor_t r = make_rnn(CUDNN_LSTM, CUDNN_DATA_FLOAT, 2, 3, 1);
    CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, r, &bytes));
    CHECK_MSG(bytes == 84 * 4, "small LSTM weight space %zu bytes, want 336", bytes);
    cudnnDestroyRNNDescriptor(r);

    /* hiddenSize = projSize = 2^30: 8 x 2^60 elements, past int64_t; it
     * reported 48 GiB (the size mod 2^64) and SUCCESS. */
    r = make_rnn(CUDNN_LSTM, CUDNN_DATA_FLOAT, 1 << 30, 1 << 30, 1);
    bytes = 12345;
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(handle, r, &bytes), CUDNN_STATUS_BAD_PARAM);
    CHECK(bytes == 12345);
    char space[64];
    cudnnTensorDescriptor_t md;
    CHECK_OK(cudnnCreateTensorDescriptor(&md));
    void *addr = NULL;
    CHECK_STATUS(cudnnGetRNNWeightParams(handle, r, 0, sizeof(space), space, 4, md, &addr, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyRNNDescriptor(r);

    /* Elements fit int64_t (2^61) but not the bytes (2^63 > PTRDIFF_MAX). */
    r = make_rnn(CUDNN_LSTM, CUDNN_DATA_FLOAT, 1 << 29, 1 << 29, 1);
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(handle, r, &bytes), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyRNNDescriptor(r);

    /* hiddenSize = INT_MAX overflowed int64_t in fdnn_rnn_weight_offsets. */
    r = make_rnn(CUDNN_LSTM, CUDNN_DATA_FLOAT, 1, INT_MAX, 1);
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(handle, r, &bytes), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(handle, r, 0, sizeof(space), space, 4, md, &addr, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    /* The legacy query goes through the same check. */
    cudnnTensorDescriptor_t xd;
    CHECK_OK(cudnnCreateTensorDescriptor(&xd));
    int xdims[3] = {1, 1, 1}, xstr[3] = {1, 1, 1};
    CHECK_OK(cudnnSetTensorNdDescriptor(xd, CUDNN_DATA_FLOAT, 3, xdims, xstr));
    CHECK_STATUS(cudnnGetRNNParamsSize(handle, r, xd, &bytes, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyRNNDescriptor(r);
    cudnnDestroyTensorDescriptor(md);
}

/* numLayers = INT_MAX (fuzz corpus and crashes/rnn/): numLayers x 2
 * directions overflowed int, so a bidirectional RNN reported a 0-byte
 * weight space with SUCCESS, and the weight size walked the 2^31 layers one
 * by one (minutes under the sanitizers).  LSTM, input = hidden = 1, double
 * bias: layer 0 blocks hold 4 (W) + 4 (R) + 8 (biases) = 16 floats, the
 * blocks above 4 x dirs (W) + 4 + 8. */
static void
test_rnn_int_max_layers(void)
{
    for (int bidir = 0; bidir < 2; bidir++) {
        cudnnRNNDescriptor_t r;
        CHECK_OK(cudnnCreateRNNDescriptor(&r));
        CHECK_OK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                          bidir ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT,
                                          CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, 1, 1, 1, INT_MAX,
                                          NULL, 0));
        int64_t dirs = bidir ? 2 : 1, s0 = 16, s1 = 4 * dirs + 12;
        int64_t elems = dirs * s0 + ((int64_t)INT_MAX - 1) * dirs * s1;
        size_t bytes = 0;
        CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, r, &bytes));
        CHECK_MSG(bytes == (size_t)elems * 4, "INT_MAX layers, %lld dirs: weight space %zu bytes, want %lld",
                  (long long)dirs, bytes, (long long)elems * 4);
        /* The last pseudo layer within int: its R matrix of gate 0 starts
         * after its W (4 x dirs floats).  The space is not touched. */
        char space[64];
        void *m = NULL;
        cudnnTensorDescriptor_t md;
        CHECK_OK(cudnnCreateTensorDescriptor(&md));
        int64_t q = bidir ? INT_MAX : INT_MAX - 1;
        int64_t want = (dirs * s0 + (q - dirs) * s1 + 4 * dirs) * 4;
        CHECK_OK(cudnnGetRNNWeightParams(handle, r, (int32_t)q, bytes, space, 4, md, &m, NULL, NULL));
        CHECK_MSG((intptr_t)m - (intptr_t)space == want, "pseudo layer %lld: R at byte %lld, want %lld",
                  (long long)q, (long long)((intptr_t)m - (intptr_t)space), (long long)want);
        if (!bidir)
            CHECK_STATUS(cudnnGetRNNWeightParams(handle, r, INT_MAX, bytes, space, 4, md, &m, NULL, NULL),
                         CUDNN_STATUS_BAD_PARAM);
        cudnnDestroyTensorDescriptor(md);
        cudnnDestroyRNNDescriptor(r);
    }
}

/* Weights that fit (RELU, DOUBLE, hidden ~2^29.5: 4.6e18 bytes) with a
 * maxSeqLength x batch whose reserve and workspace do not (3 x T*B*H
 * doubles, 9.8e18 bytes): the temp-space query wrapped. */
static void
test_rnn_temp_sizes(void)
{
    const int H = 759250125, T = 32768, B = 16384;
    cudnnRNNDescriptor_t r = make_rnn(CUDNN_RNN_RELU, CUDNN_DATA_DOUBLE, 1, H, 1);
    size_t bytes = 0;
    CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, r, &bytes));
    const size_t want = 8 * ((size_t)H + (size_t)H * H + 2 * (size_t)H);
    CHECK_MSG(bytes == want, "weight space %zu, want %zu", bytes, want);
    int *lens = malloc(sizeof(int) * B);
    for (int b = 0; b < B; b++)
        lens[b] = T;
    cudnnRNNDataDescriptor_t xd;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&xd));
    CHECK_OK(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_DOUBLE, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, 1, lens,
                                       NULL));
    size_t ws = 7, rs = 7;
    CHECK_STATUS(cudnnGetRNNTempSpaceSizes(handle, r, CUDNN_FWD_MODE_TRAINING, xd, &ws, &rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNTempSpaceSizes(handle, r, CUDNN_FWD_MODE_INFERENCE, xd, &ws, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(ws == 7 && rs == 7);
    /* A batch 64 times smaller fits. */
    CHECK_OK(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_DOUBLE, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B / 64, 1,
                                       lens, NULL));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, r, CUDNN_FWD_MODE_TRAINING, xd, &ws, &rs));
    const size_t tb = (size_t)T * (B / 64);
    CHECK_MSG(rs == 8 * 3 * tb * H, "reserve %zu, want %zu", rs, 8 * 3 * tb * H);
    free(lens);
    cudnnDestroyRNNDataDescriptor(xd);
    cudnnDestroyRNNDescriptor(r);
}

/* ---- finding 2: yDesc is required ----------------------------------------------- */

static bool
all_bytes(const void *p, size_t n, unsigned char v)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != v)
            return false;
    return true;
}

static void
test_rnn_ydesc_null(void)
{
    enum { T = 3, B = 2, IN = 4, H = 5 };
    cudnnRNNDescriptor_t r = make_rnn(CUDNN_LSTM, CUDNN_DATA_FLOAT, IN, H, 1);
    int lens[B] = {T, T};
    cudnnRNNDataDescriptor_t xd, yd;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&yd));
    CHECK_OK(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, IN, lens,
                                       NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(yd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, H, lens,
                                       NULL));
    cudnnTensorDescriptor_t hd;
    CHECK_OK(cudnnCreateTensorDescriptor(&hd));
    int hdims[3] = {1, B, H}, hstr[3] = {B * H, H, 1};
    CHECK_OK(cudnnSetTensorNdDescriptor(hd, CUDNN_DATA_FLOAT, 3, hdims, hstr));
    size_t wb = 0, wsb = 0, rsb = 0;
    CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, r, &wb));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, r, CUDNN_FWD_MODE_TRAINING, xd, &wsb, &rsb));
    float *x = calloc(T * B * IN, 4), *y = malloc(T * B * H * 4), *hy = malloc(B * H * 4), *w = calloc(wb, 1);
    void *ws = malloc(wsb), *rs = malloc(rsb), *dw = malloc(wb);
    float *dx = malloc(T * B * IN * 4), *dy = calloc(T * B * H, 4);
    int32_t *dev_lens = lens;
    memset(y, 0xA5, T * B * H * 4);
    memset(hy, 0xA5, B * H * 4);
    memset(dx, 0xA5, T * B * IN * 4);
    memset(dw, 0xA5, wb);
    memset(rs, 0, rsb);
    /* It ran the whole forward pass, then read yDesc (SIGSEGV). */
    CHECK_STATUS(cudnnRNNForward(handle, r, CUDNN_FWD_MODE_TRAINING, dev_lens, xd, x, NULL, y, hd, NULL, hy, hd, NULL,
                                 NULL, wb, w, wsb, ws, rsb, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(all_bytes(y, T * B * H * 4, 0xA5) && all_bytes(hy, B * H * 4, 0xA5));
    /* They returned SUCCESS. */
    CHECK_STATUS(cudnnRNNBackwardData_v8(handle, r, dev_lens, NULL, y, dy, xd, dx, hd, NULL, NULL, NULL, hd, NULL,
                                         NULL, NULL, wb, w, wsb, ws, rsb, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(all_bytes(dx, T * B * IN * 4, 0xA5));
    CHECK_STATUS(cudnnRNNBackwardWeights_v8(handle, r, CUDNN_WGRAD_MODE_SET, dev_lens, xd, x, hd, NULL, NULL, y, wb,
                                            dw, wsb, ws, rsb, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(all_bytes(dw, wb, 0xA5));
    /* With yDesc the same calls run (the descriptors above are valid). */
    CHECK_OK(cudnnRNNForward(handle, r, CUDNN_FWD_MODE_TRAINING, dev_lens, xd, x, yd, y, hd, NULL, hy, hd, NULL, NULL,
                             wb, w, wsb, ws, rsb, rs));
    CHECK(!all_bytes(y, T * B * H * 4, 0xA5));
    /* The *Ex forward. */
    cudnnFilterDescriptor_t wd;
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    int wdims[3] = {(int)(wb / 4), 1, 1};
    CHECK_OK(cudnnSetFilterNdDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, wdims));
    memset(y, 0xA5, T * B * H * 4);
    CHECK_STATUS(cudnnRNNForwardInferenceEx(handle, r, xd, x, hd, NULL, hd, NULL, wd, w, NULL, y, hd, hy, hd, NULL,
                                            NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ws, wsb),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(all_bytes(y, T * B * H * 4, 0xA5));
    /* The legacy calls: per-step descriptors; a NULL yDesc array was read
     * by RNNBackwardData (SIGSEGV). */
    cudnnTensorDescriptor_t xs[T], dxs[T];
    int sd[3] = {B, IN, 1}, ss[3] = {IN, 1, 1};
    for (int t = 0; t < T; t++) {
        CHECK_OK(cudnnCreateTensorDescriptor(&xs[t]));
        CHECK_OK(cudnnSetTensorNdDescriptor(xs[t], CUDNN_DATA_FLOAT, 3, sd, ss));
        dxs[t] = xs[t];
    }
    size_t lws = 0;
    CHECK_OK(cudnnGetRNNWorkspaceSize(handle, r, T, xs, &lws));
    void *lwork = malloc(lws);
    CHECK_STATUS(cudnnRNNForwardInference(handle, r, T, xs, x, hd, NULL, hd, NULL, wd, w, NULL, y, hd, hy, hd, NULL,
                                          lwork, lws),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(all_bytes(y, T * B * H * 4, 0xA5));
    CHECK_STATUS(cudnnRNNBackwardData(handle, r, T, NULL, y, xs, dy, hd, NULL, hd, NULL, wd, w, hd, NULL, hd, NULL,
                                      dxs, dx, hd, NULL, hd, NULL, lwork, lws, rs, rsb),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(all_bytes(dx, T * B * IN * 4, 0xA5));
    for (int t = 0; t < T; t++)
        cudnnDestroyTensorDescriptor(xs[t]);
    free(lwork);
    cudnnDestroyFilterDescriptor(wd);
    free(x), free(y), free(hy), free(w), free(ws), free(rs), free(dw), free(dx), free(dy);
    cudnnDestroyTensorDescriptor(hd);
    cudnnDestroyRNNDataDescriptor(xd);
    cudnnDestroyRNNDataDescriptor(yd);
    cudnnDestroyRNNDescriptor(r);
}

/* ---- finding 3 / #17 item 7: fold factors ------------------------------------- */

static void
test_transform_folds(void)
{
    cudnnTensorDescriptor_t src, dst;
    cudnnTensorTransformDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&src));
    CHECK_OK(cudnnCreateTensorDescriptor(&dst));
    CHECK_OK(cudnnCreateTensorTransformDescriptor(&t));
    int dims5[5] = {1, 8, 2, 2, 2};
    CHECK_OK(cudnnSetTensorNdDescriptorEx(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 5, dims5));
    int32_t zero[5] = {0, 0, 0, 0, 0};
    /* 2^31 x 2^31 x 4 = 2^64 wraps to 0: unfolding divided C by it. */
    const uint32_t wrap0[3] = {1u << 31, 1u << 31, 4}, wrap_small[3] = {1u << 31, 1u << 31, 5};
    const uint32_t *folds[2] = {wrap0, wrap_small};
    size_t bytes = 99;
    float buf[64] = {0}, out[64];
    const float one = 1, zf = 0;
    for (int f = 0; f < 2; f++)
        for (int dir = 0; dir < 2; dir++) {
            CHECK_OK(cudnnSetTensorTransformDescriptor(t, 5, CUDNN_TENSOR_NCHW, zero, zero, folds[f],
                                                       dir ? CUDNN_TRANSFORM_UNFOLD : CUDNN_TRANSFORM_FOLD));
            CHECK_STATUS(cudnnInitTransformDest(t, src, dst, &bytes), CUDNN_STATUS_BAD_PARAM);
            CHECK(bytes == 99);
            CHECK_OK(cudnnSetTensorNdDescriptorEx(dst, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 5, dims5));
            memset(out, 0xA5, sizeof(out));
            CHECK_STATUS(cudnnTransformTensorEx(handle, t, &one, src, buf, &zf, dst, out), CUDNN_STATUS_BAD_PARAM);
            CHECK(all_bytes(out, sizeof(out), 0xA5));
        }
    /* No wrap, but C x 65536^2 does not fit a dim. */
    int dims4[4] = {1, 1, 1, 1};
    CHECK_OK(cudnnSetTensorNdDescriptorEx(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, dims4));
    const uint32_t big[2] = {65536, 65536};
    CHECK_OK(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NCHW, zero, zero, big, CUDNN_TRANSFORM_FOLD));
    CHECK_STATUS(cudnnInitTransformDest(t, src, dst, &bytes), CUDNN_STATUS_BAD_PARAM);
    int n, c, h, w, s[4];
    cudnnDataType_t dt;
    /* A sane fold still works: [1, 3, 5, 4] folded 2 x 2 is [1, 12, 3, 2]. */
    int d4[4] = {1, 3, 5, 4};
    CHECK_OK(cudnnSetTensorNdDescriptorEx(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, d4));
    const uint32_t two[2] = {2, 2};
    CHECK_OK(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NCHW, zero, zero, two, CUDNN_TRANSFORM_FOLD));
    CHECK_OK(cudnnInitTransformDest(t, src, dst, &bytes));
    CHECK_OK(cudnnGetTensor4dDescriptor(dst, &dt, &n, &c, &h, &w, s, s + 1, s + 2, s + 3));
    CHECK_MSG(n == 1 && c == 12 && h == 3 && w == 2 && bytes == 72 * 4, "folded to %dx%dx%dx%d, %zu bytes", n, c, h,
              w, bytes);
    cudnnDestroyTensorTransformDescriptor(t);
    cudnnDestroyTensorDescriptor(src);
    cudnnDestroyTensorDescriptor(dst);
}

/* ---- finding 4: folded descriptors with huge strides ---------------------------- */

static void
test_fold_strides(void)
{
    cudnnFilterDescriptor_t wd, fw;
    cudnnTensorDescriptor_t dyd, dxd, pdy, fdx;
    cudnnConvolutionDescriptor_t cd, fc;
    cudnnTensorTransformDescriptor_t tt[4];
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateFilterDescriptor(&fw));
    CHECK_OK(cudnnCreateTensorDescriptor(&dyd));
    CHECK_OK(cudnnCreateTensorDescriptor(&dxd));
    CHECK_OK(cudnnCreateTensorDescriptor(&pdy));
    CHECK_OK(cudnnCreateTensorDescriptor(&fdx));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&fc));
    for (int i = 0; i < 4; i++)
        CHECK_OK(cudnnCreateTensorTransformDescriptor(&tt[i]));
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 3, 3));
    CHECK_OK(cudnnSetTensor4dDescriptor(dxd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 8, 8));
    /* C x sh x sw = 3 x (2^31-1)^2 overflows int64_t; (INT_MAX, 1) makes a
     * folded C past int32. */
    const int strides[3][2] = {{INT_MAX, INT_MAX}, {INT_MAX, 1}, {INT_MAX - 1, INT_MAX - 2}};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(cudnnSetConvolution2dDescriptor(cd, 1, 1, strides[i][0], strides[i][1], 1, 1,
                                                 CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        int o[4];
        CHECK_OK(cudnnGetConvolution2dForwardOutputDim(cd, dxd, wd, o, o + 1, o + 2, o + 3));
        CHECK_OK(cudnnSetTensor4dDescriptor(dyd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, o[0], o[1], o[2], o[3]));
        cudnnStatus_t st = cudnnGetFoldedConvBackwardDataDescriptors(handle, wd, dyd, cd, dxd, CUDNN_TENSOR_NCHW, fw,
                                                                     pdy, fc, fdx, tt[0], tt[1], tt[2], tt[3]);
        CHECK_MSG(st == CUDNN_STATUS_BAD_PARAM || st == CUDNN_STATUS_NOT_SUPPORTED,
                  "strides %d x %d: %s, want BAD_PARAM or NOT_SUPPORTED", strides[i][0], strides[i][1],
                  cudnnGetErrorString(st));
    }
    for (int i = 0; i < 4; i++)
        cudnnDestroyTensorTransformDescriptor(tt[i]);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyFilterDescriptor(fw);
    cudnnDestroyTensorDescriptor(dyd);
    cudnnDestroyTensorDescriptor(dxd);
    cudnnDestroyTensorDescriptor(pdy);
    cudnnDestroyTensorDescriptor(fdx);
    cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroyConvolutionDescriptor(fc);
}

/* ---- attention sequence data: dims whose product overflows ------------------- */

static void
test_seqdata_size(void)
{
    cudnnSeqDataDescriptor_t d;
    CHECK_OK(cudnnCreateSeqDataDescriptor(&d));
    int dims[4];
    dims[CUDNN_SEQDATA_TIME_DIM] = INT_MAX;
    dims[CUDNN_SEQDATA_BATCH_DIM] = 4;
    dims[CUDNN_SEQDATA_BEAM_DIM] = 1;
    dims[CUDNN_SEQDATA_VECT_DIM] = INT_MAX;
    cudnnSeqDataAxis_t axes[4] = {CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                  CUDNN_SEQDATA_VECT_DIM};
    int lens[4] = {1, 1, 1, 1};
    /* 4 x (2^31-1)^2 floats: past PTRDIFF_MAX bytes. */
    CHECK_STATUS(cudnnSetSeqDataDescriptor(d, CUDNN_DATA_FLOAT, 4, dims, axes, 4, lens, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    /* 2^60 floats (2^62 bytes) is addressable: cuDNN 9 accepts it too. */
    dims[CUDNN_SEQDATA_TIME_DIM] = 1 << 20;
    dims[CUDNN_SEQDATA_VECT_DIM] = 1 << 30;
    dims[CUDNN_SEQDATA_BATCH_DIM] = 1;
    lens[0] = 1 << 20;
    CHECK_OK(cudnnSetSeqDataDescriptor(d, CUDNN_DATA_FLOAT, 4, dims, axes, 1, lens, NULL));
    cudnnDestroySeqDataDescriptor(d);
}

/* ---- finding 5: DOUBLE GEMM, alpha == 0 ------------------------------------------ */

static void
test_dgemm_alpha_zero(void)
{
    enum { M = 9, N = 21, K = 7 };
    double a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = i;
    for (int i = 0; i < K * N; i++)
        b[i] = NAN; /* alpha == 0: op(A) op(B) is not referenced (BLAS) */
    for (int isa = 0; isa < fdnn_test_isa_count(); isa++)
        for (int null_ab = 0; null_ab < 2; null_ab++) {
            for (int i = 0; i < M * N; i++)
                c[i] = i;
            fdnn_dgemm_args_t g = {.m = M, .n = N, .k = K, .alpha = 0, .a = null_ab ? NULL : a, .lda = K,
                                   .b = null_ab ? NULL : b, .ldb = N, .beta = 0.5, .c = c, .ldc = N};
            CHECK(fdnn_dgemm_isa(&g, NULL, (fdnn_isa_t)isa));
            bool ok = true;
            for (int i = 0; i < M * N; i++)
                ok = ok && c[i] == 0.5 * i;
            CHECK_MSG(ok, "dgemm alpha 0 [%s%s]: C is not beta C", fdnn_test_isa_name(isa),
                      null_ab ? ", NULL A and B" : "");
        }
}

/* Through the API: a DOUBLE convolution with alpha == 0 gives beta * y on
 * every algorithm that runs. */
static void
test_conv_alpha_zero(void)
{
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    CHECK_OK(cudnnCreateTensorDescriptor(&xd));
    CHECK_OK(cudnnCreateTensorDescriptor(&yd));
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 3, 6, 6));
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 4, 3, 3, 3));
    CHECK_OK(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_DOUBLE));
    CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 4, 6, 6));
    enum { NX = 2 * 3 * 36, NW = 4 * 27, NY = 2 * 4 * 36 };
    double *x = malloc(NX * 8), *w = malloc(NW * 8), *y = malloc(NY * 8);
    for (int i = 0; i < NX; i++)
        x[i] = i % 7;
    for (int i = 0; i < NW; i++)
        w[i] = i % 5;
    const double zero = 0, half = 0.5;
    int ran = 0;
    for (int algo = 0; algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; algo++) {
        size_t ws = 0;
        if (cudnnGetConvolutionForwardWorkspaceSize(handle, xd, wd, cd, yd, algo, &ws) != CUDNN_STATUS_SUCCESS)
            continue;
        void *work = malloc(ws + 1);
        for (int i = 0; i < NY; i++)
            y[i] = i;
        cudnnStatus_t st = cudnnConvolutionForward(handle, &zero, xd, x, wd, w, cd, algo, work, ws, &half, yd, y);
        free(work);
        if (st != CUDNN_STATUS_SUCCESS)
            continue;
        ran++;
        bool ok = true;
        for (int i = 0; i < NY; i++)
            ok = ok && y[i] == 0.5 * i;
        CHECK_MSG(ok, "DOUBLE conv algo %d, alpha 0: y is not beta y", algo);
    }
    CHECK(ran > 0);
    free(x), free(w), free(y);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    test_ckd_layer();
    test_rnn_weight_sizes();
    test_rnn_int_max_layers();
    test_rnn_temp_sizes();
    test_rnn_ydesc_null();
    test_transform_folds();
    test_fold_strides();
    test_seqdata_size();
    test_dgemm_alpha_zero();
    test_conv_alpha_zero();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_size_overflow");
}
