/* SPDX-License-Identifier: Apache-2.0
 * PSEUDO_HALF forward convolutions on the fused WINOGRAD algorithm, which
 * runs on the user's half tensors (conv_winograd_fused.c,
 * fdnn_conv_winograd_fused_execute_f16): the gather converts the input, the
 * filter transform the filter, and each output value is blended and rounded
 * to half as it is stored, with no staging pass.
 *
 * Each case is checked bitwise against what the staged path computes: the
 * FP32 WINOGRAD convolution of the same (converted) values, blended in FP32
 * (alpha, beta over the old half output, bias in half, ReLU) and rounded
 * once; the raw sums also against a float64 convolution within the FP32
 * bound plus the half rounding.  Poisoned guarded outputs, 1 and 2 threads.
 * The shapes reach every branch: NCHW (unit column stride: the vector patch
 * rows and tile stores) and NHWC (channel rows of 16, partial ones), rows
 * narrower than a patch, tiles clipped by the image edges, padding wider
 * than the filter's reach, more output channels than one block of 96,
 * CONVOLUTION mode, a 1x1 image, several images (blocks of tiles spanning
 * images), groups.  Backward data (WINOGRAD runs it as the forward convolution
 * of dy, on the same half paths) likewise, raw and blended.  Registered again
 * with FREEDNN_MAX_ISA=avx2 and =scalar (tests/CMakeLists.txt). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/simd/cvt.h"
#include "freednn.h"
#include "testutil.h"

typedef struct shape {
    int n, c, k, h, w, pad;
    cudnnConvolutionMode_t mode;
    int groups;
} shape_t;

static int
groups_of(const shape_t *s)
{
    return s->groups;
}

static const shape_t shapes[] = {
    {1, 64, 64, 28, 28, 1, CUDNN_CROSS_CORRELATION, 1},  /* ResNet-like, full blocks */
    {2, 20, 20, 9, 13, 1, CUDNN_CROSS_CORRELATION, 1},   /* partial channel rows, clipped tiles */
    {3, 5, 33, 7, 5, 0, CUDNN_CONVOLUTION, 1},           /* rows narrower than a patch, flipped taps */
    {1, 17, 100, 11, 19, 2, CUDNN_CROSS_CORRELATION, 1}, /* two blocks of output channels */
    {2, 16, 16, 6, 6, 3, CUDNN_CROSS_CORRELATION, 1},    /* padding past the filter's reach */
    {1, 3, 7, 1, 1, 1, CUDNN_CROSS_CORRELATION, 1},      /* 1x1 image */
    {2, 12, 18, 8, 10, 1, CUDNN_CROSS_CORRELATION, 3},   /* 3 groups of 4 -> 6 channels */
};

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
    CHECK_OK(cudnnSetFilter4dDescriptor(d->w, dt, f, s->k, s->c / groups_of(s), 3, 3));
}

static void
free_descs(descs_t *d)
{
    cudnnDestroyTensorDescriptor(d->x);
    cudnnDestroyTensorDescriptor(d->y);
    cudnnDestroyTensorDescriptor(d->b);
    cudnnDestroyFilterDescriptor(d->w);
}

/* Offset of element (n, c, h, w) of an N x C x H x W tensor in layout f. */
static size_t
off4(cudnnTensorFormat_t f, int C, int H, int W, int n, int c, int h, int w)
{
    if (f == CUDNN_TENSOR_NCHW)
        return (((size_t)n * C + c) * H + h) * W + w;
    return (((size_t)n * H + h) * W + w) * C + c;
}

/* The float64 convolution of the converted values and the sum of the
 * products' magnitudes, per output element (in y's layout). */
static void
reference(const shape_t *s, cudnnTensorFormat_t f, const float *xf, const float *wf, int oh, int ow, double *ref,
          double *mag)
{
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++)
            for (int oy = 0; oy < oh; oy++)
                for (int ox = 0; ox < ow; ox++) {
                    double acc = 0, m = 0;
                    int cg = s->c / groups_of(s), c0 = k / (s->k / groups_of(s)) * cg;
                    for (int c = c0; c < c0 + cg; c++)
                        for (int ky = 0; ky < 3; ky++)
                            for (int kx = 0; kx < 3; kx++) {
                                int iy = oy - s->pad + ky, ix = ox - s->pad + kx;
                                if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w)
                                    continue;
                                int fy = s->mode == CUDNN_CONVOLUTION ? 2 - ky : ky;
                                int fx = s->mode == CUDNN_CONVOLUTION ? 2 - kx : kx;
                                double p = (double)xf[off4(f, s->c, s->h, s->w, n, c, iy, ix)] *
                                           (double)wf[off4(f, cg, 3, 3, k, c - c0, fy, fx)];
                                acc += p;
                                m += fabs(p);
                            }
                    size_t o = off4(f, s->k, oh, ow, n, k, oy, ox);
                    ref[o] = acc;
                    mag[o] = m;
                }
}

/* One shape and layout; returns the cases run. */
static int
run_case(cudnnHandle_t h, fdnn_rng_t *rng, const shape_t *s, cudnnTensorFormat_t f)
{
    const cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
    const cudnnDataType_t dt = CUDNN_DATA_HALF;
    int oh = s->h + 2 * s->pad - 2, ow = s->w + 2 * s->pad - 2;
    size_t xn = (size_t)s->n * s->c * s->h * s->w, wn = (size_t)s->k * (s->c / groups_of(s)) * 9;
    size_t yn = (size_t)s->n * s->k * oh * ow;
    uint16_t *xh = malloc(xn * 2), *wh = malloc(wn * 2), *bh = malloc((size_t)s->k * 2), *y0 = malloc(yn * 2);
    uint16_t *yh = fdnn_guarded_alloc(yn * 2);
    float *xf = malloc(xn * 4), *wf = malloc(wn * 4), *yf = malloc(yn * 4);
    double *ref = malloc(yn * sizeof(double)), *mag = malloc(yn * sizeof(double));
    for (size_t i = 0; i < xn; i++)
        xf[i] = fdnn_f16_to_f32(xh[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -1, 1)));
    for (size_t i = 0; i < wn; i++)
        wf[i] = fdnn_f16_to_f32(wh[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -0.3, 0.3)));
    for (int i = 0; i < s->k; i++)
        bh[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -0.5, 0.5));
    for (size_t i = 0; i < yn; i++)
        y0[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -1, 1));
    reference(s, f, xf, wf, oh, ow, ref, mag);
    /* Outputs whose taps all fall in the padding are zero, but their tile's
     * transforms mix in its other outputs' inputs: their error is bounded
     * by the largest magnitude, not by their own (zero) one. */
    double magmax = 0;
    for (size_t i = 0; i < yn; i++)
        magmax = mag[i] > magmax ? mag[i] : magmax;
    descs_t d16, d32;
    make_descs(&d16, s, f, dt, oh, ow);
    make_descs(&d32, s, f, CUDNN_DATA_FLOAT, oh, ow);
    cudnnConvolutionDescriptor_t cv;
    cudnnActivationDescriptor_t relu;
    cudnnCreateConvolutionDescriptor(&cv);
    cudnnCreateActivationDescriptor(&relu);
    CHECK_OK(cudnnSetConvolution2dDescriptor(cv, s->pad, s->pad, 1, 1, 1, 1, s->mode, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(cv, groups_of(s)));
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
                CHECK_OK(
                    cudnnConvolutionForward(h, &alpha, d16.x, xh, d16.w, wh, cv, algo, ws, ws16, &beta, d16.y, yh));
            else
                CHECK_OK(cudnnConvolutionBiasActivationForward(h, &alpha, d16.x, xh, d16.w, wh, cv, algo, ws, ws16,
                                                               &beta, d16.y, yh, d16.b, bh, relu, d16.y, yh));
            size_t bad = 0, far = 0;
            for (size_t i = 0; i < yn; i++) {
                /* channel of element i: NCHW (n, k, h, w) or NHWC (n, h, w, k) */
                int k = f == CUDNN_TENSOR_NCHW ? (int)(i / ((size_t)oh * ow) % (size_t)s->k) : (int)(i % (size_t)s->k);
                float v = alpha * yf[i];
                if (mode)
                    v += beta * fdnn_f16_to_f32(y0[i]);
                if (mode == 2) {
                    v += fdnn_f16_to_f32(bh[k]);
                    v = v > 0 ? v : 0;
                }
                bad += yh[i] != fdnn_f32_to_f16(v);
                if (mode == 0) {
                    /* FP32 Winograd error (well inside 1e-4 of the products'
                     * magnitudes for 3x3 tiles of F(4x4)) plus half rounding */
                    double got = fdnn_f16_to_f32(yh[i]);
                    far += !(fabs(got - ref[i]) <= 1e-4 * mag[i] + 1e-5 * magmax + 0x1p-11 * fabs(ref[i]) + 0x1p-24);
                }
            }
            CHECK_MSG(bad == 0 && far == 0,
                      "HALF %s shape %dx%dx%dx%d k%d pad %d mode %d threads %d: %zu "
                      "of %zu not the FP32 result "
                      "rounded, %zu outside the float64 bound",
                      f == CUDNN_TENSOR_NCHW ? "NCHW" : "NHWC", s->n, s->c, s->h, s->w, s->k, s->pad, mode, threads,
                      bad, yn, far);
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
    free(ref);
    free(mag);
    return runs;
}

/* Backward data of one shape and layout (WINOGRAD, the forward engine on
 * dy): bitwise the FP32 result on the converted values blended and
 * rounded, raw sums within the float64 bound; returns the cases run. */
static int
run_bwd_case(cudnnHandle_t h, fdnn_rng_t *rng, const shape_t *s, cudnnTensorFormat_t f)
{
    const cudnnConvolutionBwdDataAlgo_t algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD;
    int oh = s->h + 2 * s->pad - 2, ow = s->w + 2 * s->pad - 2;
    size_t xn = (size_t)s->n * s->c * s->h * s->w, wn = (size_t)s->k * (s->c / groups_of(s)) * 9;
    size_t yn = (size_t)s->n * s->k * oh * ow;
    uint16_t *dyh = malloc(yn * 2), *wh = malloc(wn * 2), *x0 = malloc(xn * 2);
    uint16_t *dxh = fdnn_guarded_alloc(xn * 2);
    float *dyf = malloc(yn * 4), *wf = malloc(wn * 4), *dxf = malloc(xn * 4);
    double *ref = calloc(xn, sizeof(double)), *mag = calloc(xn, sizeof(double));
    for (size_t i = 0; i < yn; i++)
        dyf[i] = fdnn_f16_to_f32(dyh[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -1, 1)));
    for (size_t i = 0; i < wn; i++)
        wf[i] = fdnn_f16_to_f32(wh[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -0.3, 0.3)));
    for (size_t i = 0; i < xn; i++)
        x0[i] = fdnn_f32_to_f16((float)fdnn_rng_uniform(rng, -1, 1));
    /* dx[n, c, iy, ix] += dy[n, k, oy, ox] * w[k, c, fy, fx], iy = oy - pad + ky
     */
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++)
            for (int oy = 0; oy < oh; oy++)
                for (int ox = 0; ox < ow; ox++)
                    for (int c = k / (s->k / groups_of(s)) * (s->c / groups_of(s));
                         c < (k / (s->k / groups_of(s)) + 1) * (s->c / groups_of(s)); c++)
                        for (int ky = 0; ky < 3; ky++)
                            for (int kx = 0; kx < 3; kx++) {
                                int iy = oy - s->pad + ky, ix = ox - s->pad + kx;
                                if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w)
                                    continue;
                                int fy = s->mode == CUDNN_CONVOLUTION ? 2 - ky : ky;
                                int fx = s->mode == CUDNN_CONVOLUTION ? 2 - kx : kx;
                                int cg = s->c / groups_of(s);
                                double p = (double)dyf[off4(f, s->k, oh, ow, n, k, oy, ox)] *
                                           (double)wf[off4(f, cg, 3, 3, k, c % cg, fy, fx)];
                                size_t o = off4(f, s->c, s->h, s->w, n, c, iy, ix);
                                ref[o] += p;
                                mag[o] += fabs(p);
                            }
    double magmax = 0;
    for (size_t i = 0; i < xn; i++)
        magmax = mag[i] > magmax ? mag[i] : magmax;
    descs_t d16, d32;
    make_descs(&d16, s, f, CUDNN_DATA_HALF, oh, ow);
    make_descs(&d32, s, f, CUDNN_DATA_FLOAT, oh, ow);
    cudnnConvolutionDescriptor_t cv;
    cudnnCreateConvolutionDescriptor(&cv);
    CHECK_OK(cudnnSetConvolution2dDescriptor(cv, s->pad, s->pad, 1, 1, 1, 1, s->mode, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(cv, groups_of(s)));
    size_t ws16 = 0, ws32 = 0;
    CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, d16.w, d16.y, cv, d16.x, algo, &ws16));
    CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, d32.w, d32.y, cv, d32.x, algo, &ws32));
    void *ws = malloc(ws16 + ws32 + 1);
    float one = 1, zero = 0;
    fdnn_poison_f32(dxf, xn);
    CHECK_OK(freednnSetNumThreads(h, 1));
    CHECK_OK(cudnnConvolutionBackwardData(h, &one, d32.w, wf, d32.y, dyf, cv, algo, ws, ws32, &zero, d32.x, dxf));
    int runs = 0;
    for (int mode = 0; mode < 2; mode++) /* raw sums; alpha/beta blend */
        for (int threads = 1; threads <= 2; threads++) {
            float alpha = mode ? 0.75f : 1.0f, beta = mode ? -0.5f : 0.0f;
            CHECK_OK(freednnSetNumThreads(h, threads));
            if (mode)
                memcpy(dxh, x0, xn * 2);
            else
                fdnn_poison_bytes(dxh, xn * 2);
            CHECK_OK(
                cudnnConvolutionBackwardData(h, &alpha, d16.w, wh, d16.y, dyh, cv, algo, ws, ws16, &beta, d16.x, dxh));
            size_t bad = 0, far = 0;
            for (size_t i = 0; i < xn; i++) {
                float v = alpha * dxf[i];
                if (mode)
                    v += beta * fdnn_f16_to_f32(x0[i]);
                bad += dxh[i] != fdnn_f32_to_f16(v);
                if (mode == 0) {
                    double got = fdnn_f16_to_f32(dxh[i]);
                    far += !(fabs(got - ref[i]) <= 1e-4 * mag[i] + 1e-5 * magmax + 0x1p-11 * fabs(ref[i]) + 0x1p-24);
                }
            }
            CHECK_MSG(bad == 0 && far == 0,
                      "HALF backward data %s shape %dx%dx%dx%d k%d pad %d mode %d "
                      "threads %d: %zu of %zu not the "
                      "FP32 result rounded, %zu outside the float64 bound",
                      f == CUDNN_TENSOR_NCHW ? "NCHW" : "NHWC", s->n, s->c, s->h, s->w, s->k, s->pad, mode, threads,
                      bad, xn, far);
            runs++;
        }
    free(ws);
    cudnnDestroyConvolutionDescriptor(cv);
    free_descs(&d16);
    free_descs(&d32);
    free(dyh);
    free(wh);
    free(x0);
    fdnn_guarded_free(dxh);
    free(dyf);
    free(wf);
    free(dxf);
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
    fdnn_rng_seed(&rng, 1717);
    static const cudnnTensorFormat_t fmts[2] = {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC};
    int nshapes = (int)(sizeof(shapes) / sizeof(shapes[0])), runs = 0;
    for (int si = 0; si < nshapes; si++)
        for (int fi = 0; fi < 2; fi++)
            runs += run_case(h, &rng, &shapes[si], fmts[fi]) + run_bwd_case(h, &rng, &shapes[si], fmts[fi]);
    CHECK_MSG(runs == nshapes * 2 * (6 + 4), "only %d runs", runs);
    cudnnDestroy(h);
    return fdnn_test_finish("test_conv_lowp_winograd");
}
