/* SPDX-License-Identifier: Apache-2.0
 * PSEUDO_HALF forward convolutions with filters larger than 1x1 on the GEMM
 * algorithms where the filter has at least as many output channels as the
 * image has output positions (cpu/conv/conv_lowp_1x1.c,
 * fdnn_conv_lowp_im2col_applies: each image's im2col gathered as half, one
 * fdnn_sgemm_f16 per block of positions, the output blended and rounded to
 * half in the GEMM's tile hook).  The sums are the GEMM core's, not the
 * FP32 solver's, so the check is against a float64 convolution of the same
 * half values written here: |y - ref| within the FP32 summation bound
 * (relative to the sum of absolute terms) plus the rounding to half.
 * Shapes reach every branch of the gather: padding rows and columns wider
 * than the filter's reach (whole rows of zeros, empty column ranges),
 * strides that skip input, dilation, CONVOLUTION mode (taps reversed), odd
 * channel counts, several images; IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM and
 * GEMM; raw sums, an alpha/beta blend over the old output, and bias + ReLU
 * (cudnnConvolutionBiasActivationForward, z = y).  Outputs poisoned and
 * guarded; 1 and 2 threads bitwise. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/simd/cvt.h"
#include "freednn.h"
#include "testutil.h"

typedef struct shape {
    int n, c, k, h, w, r, s, sh, sw, ph, pw, dil;
    cudnnConvolutionMode_t mode;
    cudnnConvolutionFwdAlgo_t algo;
} shape_t;

static const shape_t shapes[] = {
    /* res5-like: 7x7 image, 3x3, pad 1 */
    {1, 64, 64, 7, 7, 3, 3, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
    /* strided, reversed taps, two images, odd channels */
    {2, 13, 40, 9, 11, 3, 3, 2, 2, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
    /* dilation 2 */
    {1, 7, 50, 8, 6, 3, 3, 1, 1, 2, 2, 2, CUDNN_CROSS_CORRELATION, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
    /* stride 3 over rows (skips input), padding as wide as the filter */
    {1, 5, 36, 4, 4, 3, 3, 3, 1, 3, 2, 1, CUDNN_CROSS_CORRELATION, CUDNN_CONVOLUTION_FWD_ALGO_GEMM},
    /* a 2x3 image under padding 2: whole output rows and columns of zeros */
    {3, 3, 20, 2, 3, 3, 3, 1, 1, 2, 2, 1, CUDNN_CONVOLUTION, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
    /* 5x3 filter, stride 2 along columns */
    {1, 9, 33, 6, 9, 5, 3, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
};
#define NSHAPES (int)(sizeof(shapes) / sizeof(shapes[0]))

static int
out_size(int in, int ker, int pad, int stride, int dil)
{
    return (in + 2 * pad - ((ker - 1) * dil + 1)) / stride + 1;
}

/* The float64 convolution of the half values (sum of products, and sum of
 * their absolute values: the scale of the FP32 summation's error), NCHW. */
static void
reference(const shape_t *s, int oh, int ow, const float *x, const float *w, double *ref, double *mag)
{
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++)
            for (int i = 0; i < oh; i++)
                for (int j = 0; j < ow; j++) {
                    double sum = 0, abs_sum = 0;
                    for (int c = 0; c < s->c; c++)
                        for (int r = 0; r < s->r; r++)
                            for (int q = 0; q < s->s; q++) {
                                int hh = i * s->sh - s->ph + r * s->dil, ww = j * s->sw - s->pw + q * s->dil;
                                if (hh < 0 || hh >= s->h || ww < 0 || ww >= s->w)
                                    continue;
                                int fr = s->mode == CUDNN_CONVOLUTION ? s->r - 1 - r : r;
                                int fq = s->mode == CUDNN_CONVOLUTION ? s->s - 1 - q : q;
                                double a = x[(((size_t)n * s->c + c) * s->h + hh) * s->w + ww];
                                double b = w[(((size_t)k * s->c + c) * s->r + fr) * s->s + fq];
                                sum += a * b;
                                abs_sum += fabs(a * b);
                            }
                    size_t o = (((size_t)n * s->k + k) * oh + i) * ow + j;
                    ref[o] = sum;
                    mag[o] = abs_sum;
                }
}

/* One shape; returns the runs made. */
static int
run_shape(cudnnHandle_t h, fdnn_rng_t *rng, const shape_t *s)
{
    const cudnnDataType_t dt = CUDNN_DATA_HALF;
    int oh = out_size(s->h, s->r, s->ph, s->sh, s->dil), ow = out_size(s->w, s->s, s->pw, s->sw, s->dil);
    CHECK_MSG(s->k >= oh * ow, "shape %dx%d: %d positions, more than its %d output channels", s->r, s->s, oh * ow,
              s->k);
    size_t xn = (size_t)s->n * s->c * s->h * s->w, wn = (size_t)s->k * s->c * s->r * s->s;
    size_t yn = (size_t)s->n * s->k * oh * ow;
    uint16_t *xh = malloc(xn * 2), *wh = malloc(wn * 2), *bh = malloc((size_t)s->k * 2), *y0 = malloc(yn * 2);
    uint16_t *yh = fdnn_guarded_alloc(yn * 2), *first = malloc(yn * 2);
    float *xf = malloc(xn * 4), *wf = malloc(wn * 4);
    double *ref = malloc(yn * sizeof(double)), *mag = malloc(yn * sizeof(double));
    for (size_t i = 0; i < xn; i++)
        xf[i] = fdnn_f16_to_f32(xh[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -1, 1)));
    for (size_t i = 0; i < wn; i++)
        wf[i] = fdnn_f16_to_f32(wh[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -0.3, 0.3)));
    for (int i = 0; i < s->k; i++)
        bh[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -0.5, 0.5));
    for (size_t i = 0; i < yn; i++)
        y0[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -1, 1));
    reference(s, oh, ow, xf, wf, ref, mag);

    cudnnTensorDescriptor_t xd, yd, bd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cv;
    cudnnActivationDescriptor_t relu;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateTensorDescriptor(&bd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cv);
    cudnnCreateActivationDescriptor(&relu);
    CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, dt, s->n, s->c, s->h, s->w));
    CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, dt, s->n, s->k, oh, ow));
    CHECK_OK(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, dt, 1, s->k, 1, 1));
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, dt, CUDNN_TENSOR_NCHW, s->k, s->c, s->r, s->s));
    CHECK_OK(cudnnSetConvolution2dDescriptor(cv, s->ph, s->pw, s->sh, s->sw, s->dil, s->dil, s->mode,
                                             CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0));
    size_t wsb = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cv, yd, s->algo, &wsb));
    void *ws = malloc(wsb + 1);
    int runs = 0;
    /* mode 0: alpha 1, beta 0; 1: alpha/beta blend over y0; 2: the blend,
     * bias and ReLU (z = y) */
    for (int mode = 0; mode < 3; mode++)
        for (int threads = 1; threads <= 2; threads++) {
            float alpha = mode ? 0.75f : 1.0f, beta = mode ? -0.5f : 0.0f;
            CHECK_OK(freednnSetNumThreads(h, threads));
            if (mode)
                memcpy(yh, y0, yn * 2);
            else
                fdnn_poison_bytes(yh, yn * 2);
            if (mode < 2)
                CHECK_OK(cudnnConvolutionForward(h, &alpha, xd, xh, wd, wh, cv, s->algo, ws, wsb, &beta, yd, yh));
            else
                CHECK_OK(cudnnConvolutionBiasActivationForward(h, &alpha, xd, xh, wd, wh, cv, s->algo, ws, wsb, &beta,
                                                               yd, yh, bd, bh, relu, yd, yh));
            size_t bad = 0, worst = 0;
            double worst_err = -1;
            for (size_t i = 0; i < yn; i++) {
                int k = (int)(i / ((size_t)oh * ow) % (size_t)s->k);
                double v = alpha * ref[i], scale = fabs(alpha) * mag[i];
                if (mode) {
                    double old = fdnn_f16_to_f32(y0[i]);
                    v += beta * old;
                    scale += fabs(beta * old);
                }
                if (mode == 2) {
                    double b = fdnn_f16_to_f32(bh[k]);
                    v += b;
                    scale += fabs(b);
                    v = v > 0 ? v : 0;
                }
                double got = fdnn_f16_to_f32(yh[i]);
                double err = fabs(got - v), tol = 2e-5 * scale + 0x1p-11 * fabs(v) + 0x1p-24;
                bad += !(err <= tol); /* NaN from a poisoned, unwritten element fails too */
                if (!(err <= worst_err)) {
                    worst_err = err;
                    worst = i;
                }
            }
            CHECK_MSG(bad == 0, "shape %d (%dx%d k%d %dx%d) mode %d threads %d: %zu of %zu outside the bound "
                      "(worst at %zu: %g, want %g)",
                      (int)(s - shapes), s->n, s->c, s->k, s->r, s->s, mode, threads, bad, yn, worst,
                      (double)fdnn_f16_to_f32(yh[worst]), alpha * ref[worst]);
            if (threads == 1)
                memcpy(first, yh, yn * 2);
            else
                CHECK_MSG(memcmp(first, yh, yn * 2) == 0, "shape %d mode %d: 1 and 2 threads differ",
                          (int)(s - shapes), mode);
            runs++;
        }
    free(ws);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cv);
    cudnnDestroyActivationDescriptor(relu);
    free(xh);
    free(wh);
    free(bh);
    free(y0);
    fdnn_guarded_free(yh);
    free(first);
    free(xf);
    free(wf);
    free(ref);
    free(mag);
    return runs;
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 1204);
    int runs = 0;
    for (int si = 0; si < NSHAPES; si++)
        runs += run_shape(h, &rng, &shapes[si]);
    CHECK_MSG(runs == NSHAPES * 6, "only %d runs", runs);
    cudnnDestroy(h);
    return fdnn_test_finish("test_conv_lowp_im2col");
}
