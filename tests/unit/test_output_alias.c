/* SPDX-License-Identifier: Apache-2.0
 * The one rule for outputs whose elements alias (docs/tensor-ops.md): every
 * op refuses such an output with BAD_PARAM (fdnn_tensor_check_output), the
 * same call with a packed output succeeds.  The aliasing layout is the one
 * of issue #18: dims 2x4x5x5, strides {100, 1, 5, 1} (C and W both step 1).
 * One call per family and direction. */
#include <math.h>
#include <string.h>

#include "core/tensor.h"
#include "cudnn.h"
#include "testutil.h"

static cudnnHandle_t handle;
static cudnnTensorDescriptor_t X, Yp, Ya; /* input, packed output, aliasing output */
static float *xb, *yb, *wb, *ws;
static const float one = 1.0f, zero = 0.0f;
#define WS_FLOATS (1 << 18)
#define WS_BYTES (WS_FLOATS * sizeof(float))

static cudnnTensorDescriptor_t
tensor(int nd, const int *dims, const int *strides)
{
    cudnnTensorDescriptor_t d;
    cudnnCreateTensorDescriptor(&d);
    CHECK_OK(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, nd, dims, strides));
    return d;
}

/* `call` is run with Y = the packed output (SUCCESS) and Y = the aliasing one
 * (BAD_PARAM); the output buffer is reset between the two. */
#define BOTH(name, P, A, call)                                                                               \
    do {                                                                                                     \
        for (int alias_ = 0; alias_ < 2; alias_++) {                                                         \
            cudnnTensorDescriptor_t Y = alias_ ? (A) : (P);                                                  \
            for (int i_ = 0; i_ < 256; i_++)                                                                 \
                yb[i_] = 0.5f;                                                                               \
            cudnnStatus_t st_ = (call);                                                                      \
            CHECK_MSG(st_ == (alias_ ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_SUCCESS), "%s, %s output: %s", \
                      name, alias_ ? "aliasing" : "packed", cudnnGetErrorString(st_));                       \
        }                                                                                                    \
    } while (0)

static void
test_pointwise_families(void)
{
    cudnnActivationDescriptor_t act;
    cudnnCreateActivationDescriptor(&act);
    cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    BOTH("activation forward", Yp, Ya, cudnnActivationForward(handle, act, &one, X, xb, &zero, Y, yb));
    BOTH("activation backward", Yp, Ya,
         cudnnActivationBackward(handle, act, &one, X, xb, X, xb, X, xb, &zero, Y, yb));
    cudnnDestroyActivationDescriptor(act);

    cudnnPoolingDescriptor_t pool;
    cudnnCreatePoolingDescriptor(&pool);
    cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 1, 1);
    BOTH("pooling forward", Yp, Ya, cudnnPoolingForward(handle, pool, &one, X, xb, &zero, Y, yb));
    BOTH("pooling backward", Yp, Ya, cudnnPoolingBackward(handle, pool, &one, X, xb, X, xb, X, xb, &zero, Y, yb));
    cudnnDestroyPoolingDescriptor(pool);

    BOTH("softmax forward", Yp, Ya,
         cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, X, xb, &zero, Y, yb));
    BOTH("softmax backward", Yp, Ya,
         cudnnSoftmaxBackward(handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, X, xb, X, xb, &zero,
                              Y, yb));

    cudnnLRNDescriptor_t lrn;
    cudnnCreateLRNDescriptor(&lrn);
    cudnnSetLRNDescriptor(lrn, 3, 1e-4, 0.75, 2.0);
    BOTH("LRN forward", Yp, Ya,
         cudnnLRNCrossChannelForward(handle, lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, X, xb, &zero, Y, yb));
    BOTH("LRN backward", Yp, Ya,
         cudnnLRNCrossChannelBackward(handle, lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, X, xb, X, xb, X, xb, &zero, Y,
                                      yb));
    BOTH("divisive normalization forward", Yp, Ya,
         cudnnDivisiveNormalizationForward(handle, lrn, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, X, xb, xb, ws,
                                           ws + 256, &zero, Y, yb));
    cudnnDestroyLRNDescriptor(lrn);
}

static void
test_tensor_families(void)
{
    BOTH("set", Yp, Ya, cudnnSetTensor(handle, Y, yb, &one));
    BOTH("scale", Yp, Ya, cudnnScaleTensor(handle, Y, yb, &one));
    BOTH("add", Yp, Ya, cudnnAddTensor(handle, &one, X, xb, &one, Y, yb));
    cudnnOpTensorDescriptor_t op;
    cudnnCreateOpTensorDescriptor(&op);
    cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
    BOTH("op-tensor", Yp, Ya, cudnnOpTensor(handle, op, &one, X, xb, &one, X, xb, &zero, Y, yb));
    cudnnDestroyOpTensorDescriptor(op);
    BOTH("transform", Yp, Ya, cudnnTransformTensor(handle, &one, X, xb, &zero, Y, yb));
    cudnnTensorTransformDescriptor_t tr;
    cudnnCreateTensorTransformDescriptor(&tr);
    const int32_t pads[4] = {0, 0, 0, 0};
    const uint32_t fold[2] = {1, 1};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, pads, pads, fold, CUDNN_TRANSFORM_FOLD));
    BOTH("transform Ex", Yp, Ya, cudnnTransformTensorEx(handle, tr, &one, X, xb, &zero, Y, yb));
    cudnnDestroyTensorTransformDescriptor(tr);

    /* reduce over W: C is 2x4x5x1, aliasing with strides {20, 1, 5, 1} */
    const int cd[4] = {2, 4, 5, 1}, cp[4] = {20, 5, 1, 1}, ca[4] = {20, 1, 5, 1};
    cudnnTensorDescriptor_t Cp = tensor(4, cd, cp), Ca = tensor(4, cd, ca);
    cudnnReduceTensorDescriptor_t red;
    cudnnCreateReduceTensorDescriptor(&red);
    cudnnSetReduceTensorDescriptor(red, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                   CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES);
    BOTH("reduce", Cp, Ca, cudnnReduceTensor(handle, red, NULL, 0, ws, 4096, &one, X, xb, &zero, Y, yb));
    cudnnDestroyReduceTensorDescriptor(red);
    cudnnDestroyTensorDescriptor(Cp);
    cudnnDestroyTensorDescriptor(Ca);
}

static void
test_conv_family(void)
{
    cudnnFilterDescriptor_t w;
    cudnnCreateFilterDescriptor(&w);
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 4, 3, 3));
    cudnnConvolutionDescriptor_t conv;
    cudnnCreateConvolutionDescriptor(&conv);
    CHECK_OK(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    const cudnnConvolutionFwdAlgo_t fa = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    BOTH("conv forward", Yp, Ya,
         cudnnConvolutionForward(handle, &one, X, xb, w, wb, conv, fa, ws, WS_BYTES, &zero, Y, yb));
    BOTH("conv backward data", Yp, Ya,
         cudnnConvolutionBackwardData(handle, &one, w, wb, X, xb, conv, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, ws, WS_BYTES,
                                      &zero, Y, yb));
    /* (db, 1xKx1x1 with positive strides, cannot alias: the backward bias
     * needs no case.) */
    const int bd[4] = {1, 4, 1, 1}, bp[4] = {4, 1, 1, 1};
    cudnnTensorDescriptor_t Bp = tensor(4, bd, bp);
    cudnnActivationDescriptor_t act;
    cudnnCreateActivationDescriptor(&act);
    cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    BOTH("conv bias activation", Yp, Ya,
         cudnnConvolutionBiasActivationForward(handle, &one, X, xb, w, wb, conv, fa, ws, WS_BYTES, &zero, Yp, yb, Bp,
                                               wb, act, Y, yb));
    cudnnDestroyActivationDescriptor(act);
    cudnnDestroyTensorDescriptor(Bp);
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
}

static void
test_normalization_families(void)
{
    const int pd[4] = {1, 4, 1, 1}, ps[4] = {4, 1, 1, 1};
    cudnnTensorDescriptor_t P = tensor(4, pd, ps);
    float *sc = wb, *bi = wb + 8, *m = wb + 16, *v = wb + 24, *sm = wb + 32, *si = wb + 40;
    for (int i = 0; i < 48; i++)
        wb[i] = 1.0f;
    const cudnnBatchNormMode_t sp = CUDNN_BATCHNORM_SPATIAL;
    BOTH("BN inference", Yp, Ya,
         cudnnBatchNormalizationForwardInference(handle, sp, &one, &zero, X, xb, Y, yb, P, sc, bi, m, v, 1e-5));
    BOTH("BN training", Yp, Ya,
         cudnnBatchNormalizationForwardTraining(handle, sp, &one, &zero, X, xb, Y, yb, P, sc, bi, 0.1, m, v, 1e-5,
                                                sm, si));
    BOTH("BN backward", Yp, Ya,
         cudnnBatchNormalizationBackward(handle, sp, &one, &zero, &one, &zero, X, xb, X, xb, Y, yb, P, sc, sm + 1,
                                         si + 1, 1e-5, NULL, NULL));
    BOTH("normalization inference", Yp, Ya,
         cudnnNormalizationForwardInference(handle, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM,
                                            CUDNN_NORM_ALGO_STANDARD, &one, &zero, X, xb, P, sc, bi, P, m, v, NULL,
                                            NULL, NULL, Y, yb, 1e-5, 1));
    cudnnDestroyTensorDescriptor(P);

    /* Per activation, the parameter tensor 1x4x5x5 also describes the
     * running and saved outputs (training) and dscale / dbias (backward). */
    const int qd[4] = {1, 4, 5, 5}, qp[4] = {100, 25, 5, 1}, qa[4] = {100, 1, 5, 1};
    cudnnTensorDescriptor_t Qp = tensor(4, qd, qp), Qa = tensor(4, qd, qa);
    float *q = ws; /* six arrays of 128 */
    for (int i = 0; i < 6 * 128; i++)
        q[i] = 1.0f;
    const cudnnBatchNormMode_t pa = CUDNN_BATCHNORM_PER_ACTIVATION;
    BOTH("BN training parameters", Qp, Qa,
         cudnnBatchNormalizationForwardTraining(handle, pa, &one, &zero, X, xb, Yp, yb, Y, q, q + 128, 0.1, q + 256,
                                                q + 384, 1e-5, q + 512, q + 640));
    BOTH("BN backward parameters", Qp, Qa,
         cudnnBatchNormalizationBackward(handle, pa, &one, &zero, &one, &zero, X, xb, X, xb, Yp, yb, Y, q, q + 256,
                                         q + 384, 1e-5, NULL, NULL));
    cudnnDestroyTensorDescriptor(Qp);
    cudnnDestroyTensorDescriptor(Qa);

    /* The Ex backward with the fused add: dz is an output. */
    cudnnTensorDescriptor_t P2 = tensor(4, pd, ps);
    cudnnActivationDescriptor_t act;
    cudnnCreateActivationDescriptor(&act);
    cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    size_t reserve = 0;
    CHECK_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, sp, ops, act, X, &reserve));
    unsigned char *rs = fdnn_guarded_alloc(reserve);
    memset(rs, 1, reserve);
    float *dz = ws + 4096;
    BOTH("BN backward Ex dz", Yp, Ya,
         cudnnBatchNormalizationBackwardEx(handle, sp, ops, &one, &zero, &one, &zero, X, xb, X, xb, X, xb, Y, dz, Yp,
                                           yb, P2, sc, bi, sm + 1, si + 1, 1e-5, NULL, NULL, act, NULL, 0, rs,
                                           reserve));
    fdnn_guarded_free(rs);
    cudnnDestroyActivationDescriptor(act);
    cudnnDestroyTensorDescriptor(P2);
}

static void
test_other_families(void)
{
    cudnnDropoutDescriptor_t drop;
    cudnnCreateDropoutDescriptor(&drop);
    size_t states = 0, reserve = 0;
    CHECK_OK(cudnnDropoutGetStatesSize(handle, &states));
    void *sbuf = fdnn_guarded_alloc(states);
    CHECK_OK(cudnnSetDropoutDescriptor(drop, handle, 0.5f, sbuf, states, 1));
    CHECK_OK(cudnnDropoutGetReserveSpaceSize(X, &reserve));
    BOTH("dropout forward", Yp, Ya, cudnnDropoutForward(handle, drop, X, xb, Y, yb, ws, reserve));
    BOTH("dropout backward", Yp, Ya, cudnnDropoutBackward(handle, drop, X, xb, Y, yb, ws, reserve));
    cudnnDestroyDropoutDescriptor(drop);
    fdnn_guarded_free(sbuf);

    cudnnSpatialTransformerDescriptor_t st;
    cudnnCreateSpatialTransformerDescriptor(&st);
    const int sd[4] = {2, 4, 5, 5};
    CHECK_OK(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, sd));
    float *grid = wb; /* 2 x 5 x 5 x 2 coordinates in [-1, 1) */
    for (int i = 0; i < 100; i++)
        grid[i] = (float)(i % 7) / 7.0f - 0.5f;
    BOTH("spatial sampler forward", Yp, Ya, cudnnSpatialTfSamplerForward(handle, st, &one, X, xb, grid, &zero, Y, yb));
    BOTH("spatial sampler backward", Yp, Ya,
         cudnnSpatialTfSamplerBackward(handle, st, &one, X, xb, &zero, Y, yb, &one, X, xb, grid, &zero, ws));
    cudnnDestroySpatialTransformerDescriptor(st);

    /* CTC: gradients T=5 x N=2 x A=4, aliasing with strides {4, 4, 1} */
    const int td[3] = {5, 2, 4}, tp[3] = {8, 4, 1}, ta[3] = {4, 4, 1};
    cudnnTensorDescriptor_t Tp = tensor(3, td, tp), Ta = tensor(3, td, ta);
    cudnnCTCLossDescriptor_t ctc;
    cudnnCreateCTCLossDescriptor(&ctc);
    CHECK_OK(cudnnSetCTCLossDescriptor_v8(ctc, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                          CUDNN_NOT_PROPAGATE_NAN, 4));
    int labels[4] = {1, 2, 3, 1}, lab_len[2] = {2, 2}, in_len[2] = {5, 5};
    size_t wsize = 0;
    CHECK_OK(cudnnGetCTCLossWorkspaceSize_v8(handle, CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, Tp, Tp, &wsize));
    CHECK(wsize <= WS_BYTES);
    BOTH("CTC loss", Tp, Ta,
         cudnnCTCLoss_v8(handle, CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, Tp, xb, labels, lab_len, in_len, wb, Y, yb,
                         wsize, ws));
    cudnnDestroyCTCLossDescriptor(ctc);
    cudnnDestroyTensorDescriptor(Tp);
    cudnnDestroyTensorDescriptor(Ta);
}

/* The helper itself: cuDNN's definition on sorted strides. */
static void
test_rule(void)
{
    fdnn_tensor_t t = {.dtype = CUDNN_DATA_FLOAT, .ndim = 4, .dims = {2, 4, 5, 5}, .strides = {100, 25, 5, 1}};
    CHECK_OK(fdnn_tensor_check_output(&t, "packed"));
    t.strides[1] = 1, t.strides[2] = 20, t.strides[3] = 4; /* NHWC */
    CHECK_OK(fdnn_tensor_check_output(&t, "nhwc"));
    t.strides[0] = 1000; /* gaps are fine */
    CHECK_OK(fdnn_tensor_check_output(&t, "gaps"));
    t.strides[0] = 99; /* N steps into the last image */
    CHECK_STATUS(fdnn_tensor_check_output(&t, "n overlaps"), CUDNN_STATUS_BAD_PARAM);
    t.strides[0] = 100, t.strides[3] = 0; /* broadcast W */
    CHECK_STATUS(fdnn_tensor_check_output(&t, "stride 0"), CUDNN_STATUS_BAD_PARAM);
    t.dims[3] = 1; /* ...but a dim of 1 has no stride to speak of */
    CHECK_OK(fdnn_tensor_check_output(&t, "dim 1"));
    /* NCHW_VECT_C: C counts elements, the strides vectors; packed is fine */
    cudnnTensorDescriptor_t v;
    cudnnCreateTensorDescriptor(&v);
    CHECK_OK(cudnnSetTensor4dDescriptor(v, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 2, 8, 3, 3));
    fdnn_tensor_t vt;
    CHECK_OK(fdnn_output_from_desc(v, "vect_c", &vt));
    cudnnDestroyTensorDescriptor(v);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    xb = fdnn_guarded_alloc(256 * sizeof(float));
    yb = fdnn_guarded_alloc(256 * sizeof(float));
    wb = fdnn_guarded_alloc(1024 * sizeof(float));
    ws = fdnn_guarded_alloc(WS_BYTES);
    for (int i = 0; i < 256; i++)
        xb[i] = (float)(i % 5) * 0.25f;
    for (int i = 0; i < 1024; i++)
        wb[i] = 0.125f;
    const int dims[4] = {2, 4, 5, 5}, packed[4] = {100, 25, 5, 1}, alias[4] = {100, 1, 5, 1};
    X = tensor(4, dims, packed);
    Yp = tensor(4, dims, packed);
    Ya = tensor(4, dims, alias);
    test_rule();
    test_pointwise_families();
    test_tensor_families();
    test_conv_family();
    test_normalization_families();
    test_other_families();
    cudnnDestroyTensorDescriptor(X);
    cudnnDestroyTensorDescriptor(Yp);
    cudnnDestroyTensorDescriptor(Ya);
    fdnn_guarded_free(xb);
    fdnn_guarded_free(yb);
    fdnn_guarded_free(wb);
    fdnn_guarded_free(ws);
    cudnnDestroy(handle);
    return fdnn_test_finish("test_output_alias");
}
