/* SPDX-License-Identifier: Apache-2.0
 * Forward HALF / BFLOAT16 convolutions of several large images, which the
 * staged path runs in chunks of images (cpu/conv/conv_lowp.c, fwd_chunk:
 * each chunk's input staged, the FP32 solver run, the output written).
 * Every forward algorithm that takes the problem, NCHW and NHWC, alpha 1 /
 * beta 0 and a blend with bias-free alpha/beta over an existing output:
 * bitwise the FP32 convolution of the same (converted) values, blended and
 * rounded as the staged path does, poisoned output, 1 and 2 threads. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/simd/cvt.h"
#include "freednn.h"
#include "testutil.h"

enum { N = 3, C = 16, K = 16, H = 96, R = 3 };

static void
set4d(cudnnTensorDescriptor_t d, cudnnTensorFormat_t f, cudnnDataType_t dt, int c, int h)
{
    CHECK_OK(cudnnSetTensor4dDescriptor(d, f, dt, N, c, h, h));
}

static float
to_f(cudnnDataType_t dt, uint16_t v)
{
    return dt == CUDNN_DATA_HALF ? fdnn_f16_to_f32(v) : fdnn_bf16_to_f32(v);
}

static uint16_t
from_f(cudnnDataType_t dt, float v)
{
    return dt == CUDNN_DATA_HALF ? fdnn_f32_to_f16(v) : fdnn_f32_to_bf16(v);
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 1302);
    size_t xn = (size_t)N * C * H * H, wn = (size_t)K * C * R * R, yn = (size_t)N * K * H * H;
    uint16_t *xh = malloc(xn * 2), *wh = malloc(wn * 2), *y0 = malloc(yn * 2), *yh = fdnn_guarded_alloc(yn * 2);
    float *xf = malloc(xn * 4), *wf = malloc(wn * 4), *yf = malloc(yn * 4);
    static const cudnnDataType_t types[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    static const cudnnTensorFormat_t fmts[2] = {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC};
    int runs = 0;
    for (int ti = 0; ti < 2; ti++)
        for (int fi = 0; fi < 2; fi++) {
            cudnnDataType_t dt = types[ti];
            for (size_t i = 0; i < xn; i++)
                xh[i] = from_f(dt, (float)fdnn_rng_uniform(&rng, -1, 1));
            for (size_t i = 0; i < wn; i++)
                wh[i] = from_f(dt, (float)fdnn_rng_uniform(&rng, -0.2, 0.2));
            for (size_t i = 0; i < yn; i++)
                y0[i] = from_f(dt, (float)fdnn_rng_uniform(&rng, -1, 1));
            for (size_t i = 0; i < xn; i++)
                xf[i] = to_f(dt, xh[i]);
            for (size_t i = 0; i < wn; i++)
                wf[i] = to_f(dt, wh[i]);
            cudnnTensorDescriptor_t x16, y16, x32, y32;
            cudnnFilterDescriptor_t w16, w32;
            cudnnConvolutionDescriptor_t cv;
            cudnnCreateTensorDescriptor(&x16);
            cudnnCreateTensorDescriptor(&y16);
            cudnnCreateTensorDescriptor(&x32);
            cudnnCreateTensorDescriptor(&y32);
            cudnnCreateFilterDescriptor(&w16);
            cudnnCreateFilterDescriptor(&w32);
            cudnnCreateConvolutionDescriptor(&cv);
            set4d(x16, fmts[fi], dt, C, H);
            set4d(y16, fmts[fi], dt, K, H);
            set4d(x32, fmts[fi], CUDNN_DATA_FLOAT, C, H);
            set4d(y32, fmts[fi], CUDNN_DATA_FLOAT, K, H);
            CHECK_OK(cudnnSetFilter4dDescriptor(w16, dt, CUDNN_TENSOR_NCHW, K, C, R, R));
            CHECK_OK(cudnnSetFilter4dDescriptor(w32, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, R));
            CHECK_OK(cudnnSetConvolution2dDescriptor(cv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
            for (int algo = 0; algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; algo++) {
                size_t ws16 = 0, ws32 = 0;
                if (cudnnGetConvolutionForwardWorkspaceSize(h, x16, w16, cv, y16, (cudnnConvolutionFwdAlgo_t)algo,
                                                            &ws16) != CUDNN_STATUS_SUCCESS ||
                    cudnnGetConvolutionForwardWorkspaceSize(h, x32, w32, cv, y32, (cudnnConvolutionFwdAlgo_t)algo,
                                                            &ws32) != CUDNN_STATUS_SUCCESS)
                    continue;
                void *ws = malloc(ws16 + ws32 + 1);
                for (int blend = 0; blend < 2; blend++) {
                    float alpha = blend ? 0.75f : 1.0f, beta = blend ? -0.5f : 0.0f, one = 1, zero = 0;
                    fdnn_poison_f32(yf, yn);
                    CHECK_OK(cudnnConvolutionForward(h, &one, x32, xf, w32, wf, cv, (cudnnConvolutionFwdAlgo_t)algo,
                                                     ws, ws32, &zero, y32, yf));
                    for (int threads = 1; threads <= 2; threads++) {
                        CHECK_OK(freednnSetNumThreads(h, threads));
                        if (blend)
                            memcpy(yh, y0, yn * 2);
                        else
                            fdnn_poison_bytes(yh, yn * 2);
                        CHECK_OK(cudnnConvolutionForward(h, &alpha, x16, xh, w16, wh, cv,
                                                         (cudnnConvolutionFwdAlgo_t)algo, ws, ws16, &beta, y16, yh));
                        size_t bad = 0;
                        for (size_t i = 0; i < yn; i++) {
                            float v = alpha * yf[i];
                            if (blend)
                                v += beta * to_f(dt, y0[i]);
                            bad += yh[i] != from_f(dt, v);
                        }
                        CHECK_MSG(bad == 0, "%s %s algo %d blend %d threads %d: %zu of %zu wrong",
                                  dt == CUDNN_DATA_HALF ? "HALF" : "BFLOAT16", fi ? "NHWC" : "NCHW", algo, blend,
                                  threads, bad, yn);
                        runs++;
                    }
                }
                free(ws);
            }
            cudnnDestroyTensorDescriptor(x16);
            cudnnDestroyTensorDescriptor(y16);
            cudnnDestroyTensorDescriptor(x32);
            cudnnDestroyTensorDescriptor(y32);
            cudnnDestroyFilterDescriptor(w16);
            cudnnDestroyFilterDescriptor(w32);
            cudnnDestroyConvolutionDescriptor(cv);
        }
    CHECK_MSG(runs >= 16, "only %d runs", runs);
    cudnnDestroy(h);
    free(xh);
    free(wh);
    free(y0);
    fdnn_guarded_free(yh);
    free(xf);
    free(wf);
    free(yf);
    return fdnn_test_finish("test_conv_lowp_chunks");
}
