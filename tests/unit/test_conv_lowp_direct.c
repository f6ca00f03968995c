/* SPDX-License-Identifier: Apache-2.0
 * HALF / BFLOAT16 forward convolutions with FP32 math on the DIRECT
 * algorithm, which the blocked solver runs converting inside its own
 * reorders and tile stores (conv_direct_blocked.c: reorder_filter16,
 * reorder_row16, store_tile16), no staging.  Each case is checked bitwise
 * against the FP32 DIRECT convolution of the same (converted) values — the
 * convert-then-FP32-reorder result — blended in FP32 (alpha, beta over the
 * old output, bias in the output's type, ReLU) and rounded, on a poisoned
 * guarded output, 1 and 2 threads.  The shapes reach every branch: odd
 * channel counts (the stem's 3; 20 = a full and a partial channel block;
 * 20 output channels = a partial block), NCHW and NHWC, strides, padding,
 * a 7x7 and a 5x5 filter (too large for the converted rows: element by
 * element), CONVOLUTION mode, several images.  Registered again with
 * FREEDNN_MAX_ISA=avx2 and =scalar (tests/CMakeLists.txt). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/simd/cvt.h"
#include "freednn.h"
#include "testutil.h"

typedef struct shape {
    int n, c, k, h, w, r, s, stride, pad;
    cudnnConvolutionMode_t mode;
} shape_t;

static const shape_t shapes[] = {
    {1, 3, 16, 23, 29, 7, 7, 2, 3, CUDNN_CROSS_CORRELATION}, /* stem-like */
    {2, 20, 20, 9, 13, 3, 3, 1, 1, CUDNN_CROSS_CORRELATION}, /* partial blocks */
    {1, 32, 48, 10, 10, 3, 3, 2, 1, CUDNN_CONVOLUTION},      /* flipped taps, 3 blocks */
    {3, 16, 17, 6, 70, 5, 5, 1, 2, CUDNN_CROSS_CORRELATION}, /* 5x5: element-wise filter */
    {1, 5, 33, 31, 3, 3, 3, 1, 0, CUDNN_CROSS_CORRELATION},  /* narrow rows, 3 channels of 16 */
};

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

typedef struct descs {
    cudnnTensorDescriptor_t x, y, b;
    cudnnFilterDescriptor_t w;
} descs_t;

static void
make_descs(descs_t *d, const shape_t *s, cudnnTensorFormat_t f, cudnnDataType_t dt, int oh, int ow)
{
    cudnnCreateTensorDescriptor(&d->x);
    cudnnCreateTensorDescriptor(&d->y);
    cudnnCreateTensorDescriptor(&d->b);
    cudnnCreateFilterDescriptor(&d->w);
    CHECK_OK(cudnnSetTensor4dDescriptor(d->x, f, dt, s->n, s->c, s->h, s->w));
    CHECK_OK(cudnnSetTensor4dDescriptor(d->y, f, dt, s->n, s->k, oh, ow));
    CHECK_OK(cudnnSetTensor4dDescriptor(d->b, CUDNN_TENSOR_NCHW, dt, 1, s->k, 1, 1));
    CHECK_OK(cudnnSetFilter4dDescriptor(d->w, dt, f, s->k, s->c, s->r, s->s));
}

static void
free_descs(descs_t *d)
{
    cudnnDestroyTensorDescriptor(d->x);
    cudnnDestroyTensorDescriptor(d->y);
    cudnnDestroyTensorDescriptor(d->b);
    cudnnDestroyFilterDescriptor(d->w);
}

/* One shape, type and layout; returns the cases run. */
static int
run_case(cudnnHandle_t h, fdnn_rng_t *rng, const shape_t *s, cudnnDataType_t dt, cudnnTensorFormat_t f)
{
    const cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
    int oh = (s->h + 2 * s->pad - s->r) / s->stride + 1, ow = (s->w + 2 * s->pad - s->s) / s->stride + 1;
    size_t xn = (size_t)s->n * s->c * s->h * s->w, wn = (size_t)s->k * s->c * s->r * s->s;
    size_t yn = (size_t)s->n * s->k * oh * ow;
    uint16_t *xh = malloc(xn * 2), *wh = malloc(wn * 2), *bh = malloc((size_t)s->k * 2), *y0 = malloc(yn * 2);
    uint16_t *yh = fdnn_guarded_alloc(yn * 2);
    float *xf = malloc(xn * 4), *wf = malloc(wn * 4), *yf = malloc(yn * 4);
    for (size_t i = 0; i < xn; i++)
        xf[i] = to_f(dt, xh[i] = from_f(dt, (float)fdnn_rng_uniform(rng, -1, 1)));
    for (size_t i = 0; i < wn; i++)
        wf[i] = to_f(dt, wh[i] = from_f(dt, (float)fdnn_rng_uniform(rng, -0.3, 0.3)));
    for (int i = 0; i < s->k; i++)
        bh[i] = from_f(dt, (float)fdnn_rng_uniform(rng, -0.5, 0.5));
    for (size_t i = 0; i < yn; i++)
        y0[i] = from_f(dt, (float)fdnn_rng_uniform(rng, -1, 1));
    descs_t d16, d32;
    make_descs(&d16, s, f, dt, oh, ow);
    make_descs(&d32, s, f, CUDNN_DATA_FLOAT, oh, ow);
    cudnnConvolutionDescriptor_t cv;
    cudnnActivationDescriptor_t relu;
    cudnnCreateConvolutionDescriptor(&cv);
    cudnnCreateActivationDescriptor(&relu);
    CHECK_OK(cudnnSetConvolution2dDescriptor(cv, s->pad, s->pad, s->stride, s->stride, 1, 1, s->mode,
                                             CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0));
    size_t ws16 = 0, ws32 = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, d16.x, d16.w, cv, d16.y, algo, &ws16));
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, d32.x, d32.w, cv, d32.y, algo, &ws32));
    void *ws = malloc(ws16 + ws32 + 1);
    float one = 1, zero = 0;
    fdnn_poison_f32(yf, yn);
    CHECK_OK(freednnSetNumThreads(h, 1));
    CHECK_OK(cudnnConvolutionForward(h, &one, d32.x, xf, d32.w, wf, cv, algo, ws, ws32, &zero, d32.y, yf));
    int runs = 0;
    /* mode 0: alpha 1, beta 0 (raw sums); 1: alpha/beta blend; 2: blend,
     * bias and ReLU (cudnnConvolutionBiasActivationForward, z = y) */
    for (int mode = 0; mode < 3; mode++)
        for (int threads = 1; threads <= 2; threads++) {
            float alpha = mode ? 0.75f : 1.0f, beta = mode ? -0.5f : 0.0f;
            CHECK_OK(freednnSetNumThreads(h, threads));
            if (mode)
                memcpy(yh, y0, yn * 2);
            else
                fdnn_poison_bytes(yh, yn * 2);
            if (mode < 2)
                CHECK_OK(cudnnConvolutionForward(h, &alpha, d16.x, xh, d16.w, wh, cv, algo, ws, ws16, &beta, d16.y,
                                                 yh));
            else
                CHECK_OK(cudnnConvolutionBiasActivationForward(h, &alpha, d16.x, xh, d16.w, wh, cv, algo, ws, ws16,
                                                               &beta, d16.y, yh, d16.b, bh, relu, d16.y, yh));
            size_t bad = 0;
            for (size_t i = 0; i < yn; i++) {
                /* channel of element i: NCHW (n, k, h, w) or NHWC (n, h, w, k) */
                int k = f == CUDNN_TENSOR_NCHW ? (int)(i / ((size_t)oh * ow) % (size_t)s->k) : (int)(i % (size_t)s->k);
                float v = alpha * yf[i];
                if (mode)
                    v += beta * to_f(dt, y0[i]);
                if (mode == 2) {
                    v += to_f(dt, bh[k]);
                    v = v > 0 ? v : 0;
                }
                bad += yh[i] != from_f(dt, v);
            }
            CHECK_MSG(bad == 0, "%s %s shape %dx%dx%dx%d k%d %dx%d s%d mode %d threads %d: %zu of %zu wrong",
                      dt == CUDNN_DATA_HALF ? "HALF" : "BFLOAT16", f == CUDNN_TENSOR_NCHW ? "NCHW" : "NHWC", s->n,
                      s->c, s->h, s->w, s->k, s->r, s->s, s->stride, mode, threads, bad, yn);
            runs++;
        }
    free(ws);
    cudnnDestroyConvolutionDescriptor(cv);
    cudnnDestroyActivationDescriptor(relu);
    free_descs(&d16);
    free_descs(&d32);
    free(xh);
    free(wh);
    free(bh);
    free(y0);
    fdnn_guarded_free(yh);
    free(xf);
    free(wf);
    free(yf);
    return runs;
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 1313);
    static const cudnnDataType_t types[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    static const cudnnTensorFormat_t fmts[2] = {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC};
    int runs = 0;
    for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
        for (int ti = 0; ti < 2; ti++)
            for (int fi = 0; fi < 2; fi++)
                runs += run_case(h, &rng, &shapes[si], types[ti], fmts[fi]);
    CHECK_MSG(runs == 5 * 2 * 2 * 6, "only %d runs", runs);
    cudnnDestroy(h);
    return fdnn_test_finish("test_conv_lowp_direct");
}
