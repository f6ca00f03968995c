/* SPDX-License-Identifier: Apache-2.0
 * The channel-blocked depthwise path (src/cpu/conv/conv_depthwise_cb.c) on
 * NHWC tensors that do not start on a 64-byte line (malloc's 16-byte
 * offset, sub-tensor views).  Forward (plain, and with bias and ReLU
 * through cudnnConvolutionBiasActivationForward) and backward data, x and y
 * placed 0 .. 15 floats past a line (the same and different offsets), C a
 * multiple of 16 and not, rows of 1, 2 and many positions (runs of 23, 24
 * and more), padding, dilation, stride 2, CONVOLUTION mode; every ISA
 * level, 1 and 2 threads:
 *
 *   - small integers, so every sum is exact: the result equals a float64
 *     reference computed here, outputs poisoned (NaN, beta 0) or blended
 *     (alpha 2, beta -1);
 *   - nothing outside the output tensor written (a sentinel around it);
 *   - real values: the bits at every offset and thread count equal those
 *     at offset 0 and one thread. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "freednn.h"
#include "testutil.h"

typedef struct dw_case {
    const char *name;
    int n, c, h, w, pad, stride, dil;
    cudnnConvolutionMode_t mode;
} dw_case_t;

static const dw_case_t cases[] = {
    {"32ch 9x13", 2, 32, 9, 13, 1, 1, 1, CUDNN_CROSS_CORRELATION},
    {"48ch 14x14 conv", 1, 48, 14, 14, 1, 1, 1, CUDNN_CONVOLUTION},
    {"16ch 5x2", 2, 16, 5, 2, 1, 1, 1, CUDNN_CROSS_CORRELATION},
    {"16ch 3x3 pad 0", 2, 16, 3, 3, 0, 1, 1, CUDNN_CROSS_CORRELATION},
    {"64ch dil2 pad2", 1, 64, 12, 10, 2, 1, 2, CUDNN_CROSS_CORRELATION},
    {"512ch 6x9", 1, 512, 6, 9, 1, 1, 1, CUDNN_CONVOLUTION},
    {"144ch s2 7x17", 1, 144, 7, 17, 1, 2, 1, CUDNN_CROSS_CORRELATION},
    {"20ch 8x8", 1, 20, 8, 8, 1, 1, 1, CUDNN_CROSS_CORRELATION},
    {"96ch 4x30", 1, 96, 4, 30, 1, 1, 1, CUDNN_CROSS_CORRELATION},
    {"16ch 2x26 conv", 2, 16, 2, 26, 1, 1, 1, CUDNN_CONVOLUTION},
    {"32ch dil2 6x40", 1, 32, 6, 40, 2, 1, 2, CUDNN_CROSS_CORRELATION},
    {"48ch 3x25 pad 0", 1, 48, 3, 25, 0, 1, 1, CUDNN_CROSS_CORRELATION},
};

enum { DIR_FWD, DIR_FWD_BIAS, DIR_BWD_DATA };
static const char *const dir_names[] = {"fwd", "fwd+bias+relu", "bwd_data"};

#define GUARD 64 /* floats of sentinel each side of a tensor */
static const float sentinel = 12345.0f;

static int
out_size(const dw_case_t *k, int in)
{
    return (in + 2 * k->pad - 2 * k->dil - 1) / k->stride + 1;
}

/* The float64 result of one direction on NHWC x / y and KCRS w (K = C),
 * before the epilogue: out[...] = sum of the taps (forward: y from x;
 * backward data: dx from dy). */
static void
reference(const dw_case_t *k, int dir, const float *x, const float *w, const float *dy, double *out)
{
    int oh = out_size(k, k->h), ow = out_size(k, k->w), c = k->c;
    size_t xn = (size_t)k->n * k->h * k->w * c, yn = (size_t)k->n * oh * ow * c;
    memset(out, 0, (dir == DIR_BWD_DATA ? xn : yn) * sizeof(double));
    for (int n = 0; n < k->n; n++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++)
                for (int r = 0; r < 3; r++)
                    for (int s = 0; s < 3; s++) {
                        int ih = i * k->stride - k->pad + r * k->dil, iw = j * k->stride - k->pad + s * k->dil;
                        if (ih < 0 || ih >= k->h || iw < 0 || iw >= k->w)
                            continue;
                        bool flip = k->mode == CUDNN_CONVOLUTION;
                        int rr = flip ? 2 - r : r, ss = flip ? 2 - s : s;
                        size_t xo = (((size_t)n * k->h + ih) * k->w + iw) * c, yo = (((size_t)n * oh + i) * ow + j) * c;
                        for (int ch = 0; ch < c; ch++) {
                            double wv = w[ch * 9 + rr * 3 + ss];
                            if (dir == DIR_BWD_DATA)
                                out[xo + ch] += (double)dy[yo + ch] * wv;
                            else
                                out[yo + ch] += (double)x[xo + ch] * wv;
                        }
                    }
}

/* One call with x at xoff and y at yoff floats past a 64-byte line, the
 * output's tensor first filled from `prior` (NULL: NaN) and its guards
 * with the sentinel; the output copied to got.  Returns whether nothing
 * outside the tensor changed. */
static bool
run_case(cudnnHandle_t h, const dw_case_t *k, int dir, int xoff, int yoff, const float *x, const float *w,
         const float *dy, const float *bias, const float *prior, float alpha, float beta, float *got)
{
    int oh = out_size(k, k->h), ow = out_size(k, k->w), c = k->c;
    size_t xn = (size_t)k->n * k->h * k->w * c, yn = (size_t)k->n * oh * ow * c;
    float *xb = aligned_alloc(64, (xn + 2 * GUARD + 64) * sizeof(float));
    float *yb = aligned_alloc(64, (yn + 2 * GUARD + 64) * sizeof(float));
    CHECK(xb != NULL && yb != NULL);
    float *xt = xb + GUARD + xoff, *yt = yb + GUARD + yoff;
    bool out_x = dir == DIR_BWD_DATA;
    float *ob = out_x ? xb : yb, *ot = out_x ? xt : yt;
    size_t on = out_x ? xn : yn, oalloc = on + 2 * GUARD + 64;
    for (size_t i = 0; i < oalloc; i++)
        ob[i] = sentinel;
    if (out_x)
        memcpy(yt, dy, yn * sizeof(float));
    else
        memcpy(xt, x, xn * sizeof(float));
    if (prior != NULL)
        memcpy(ot, prior, on * sizeof(float));
    else
        fdnn_poison_f32(ot, on);

    cudnnTensorDescriptor_t xd, yd, bd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    CHECK_OK(cudnnCreateTensorDescriptor(&xd));
    CHECK_OK(cudnnCreateTensorDescriptor(&yd));
    CHECK_OK(cudnnCreateTensorDescriptor(&bd));
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, k->n, c, k->h, k->w));
    CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, k->n, c, oh, ow));
    CHECK_OK(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, c, 1, 1));
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, c, 1, 3, 3));
    CHECK_OK(cudnnSetConvolution2dDescriptor(cd, k->pad, k->pad, k->stride, k->stride, k->dil, k->dil, k->mode,
                                             CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(cd, c));
    if (dir == DIR_FWD) {
        CHECK_OK(cudnnConvolutionForward(h, &alpha, xd, xt, wd, w, cd, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, NULL, 0,
                                         &beta, yd, yt));
    } else if (dir == DIR_FWD_BIAS) {
        cudnnActivationDescriptor_t ad;
        CHECK_OK(cudnnCreateActivationDescriptor(&ad));
        CHECK_OK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
        /* z = y: alpha2 = beta blends the prior output. */
        CHECK_OK(cudnnConvolutionBiasActivationForward(h, &alpha, xd, xt, wd, w, cd, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
                                                       NULL, 0, &beta, yd, yt, bd, bias, ad, yd, yt));
        CHECK_OK(cudnnDestroyActivationDescriptor(ad));
    } else {
        CHECK_OK(cudnnConvolutionBackwardData(h, &alpha, wd, w, yd, yt, cd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, NULL,
                                              0, &beta, xd, xt));
    }
    CHECK_OK(cudnnDestroyTensorDescriptor(xd));
    CHECK_OK(cudnnDestroyTensorDescriptor(yd));
    CHECK_OK(cudnnDestroyTensorDescriptor(bd));
    CHECK_OK(cudnnDestroyFilterDescriptor(wd));
    CHECK_OK(cudnnDestroyConvolutionDescriptor(cd));
    memcpy(got, ot, on * sizeof(float));
    bool guards = true;
    for (size_t i = 0; i < oalloc; i++)
        if ((ob + i < ot || ob + i >= ot + on) && ob[i] != sentinel)
            guards = false;
    free(xb);
    free(yb);
    return guards;
}

static void
fill(fdnn_rng_t *rng, float *p, size_t n, bool integers)
{
    for (size_t i = 0; i < n; i++)
        p[i] = integers ? (float)fdnn_rng_int(rng, -3, 3) : (float)fdnn_rng_uniform(rng, -1.0, 1.0);
}

static const int offsets[][2] = {{0, 0}, {4, 4}, {12, 12}, {15, 15}, {1, 1}, {12, 0}, {0, 8}};

static void
test_case(cudnnHandle_t h, const dw_case_t *k, int dir, int isa)
{
    int oh = out_size(k, k->h), ow = out_size(k, k->w), c = k->c;
    size_t xn = (size_t)k->n * k->h * k->w * c, yn = (size_t)k->n * oh * ow * c;
    size_t on = dir == DIR_BWD_DATA ? xn : yn;
    float *x = malloc(xn * sizeof(float)), *dy = malloc(yn * sizeof(float)), *w = malloc((size_t)c * 9 * sizeof(float));
    float *bias = malloc((size_t)c * sizeof(float)), *prior = malloc(on * sizeof(float));
    float *got = malloc(on * sizeof(float)), *first = malloc(on * sizeof(float));
    double *ref = malloc(on * sizeof(double));
    fdnn_rng_t rng;
    for (int real = 0; real < 2; real++) {
        fdnn_rng_seed(&rng, (uint64_t)(k->c * 131 + k->w * 7 + dir + real * 1000));
        fill(&rng, x, xn, !real);
        fill(&rng, dy, yn, !real);
        fill(&rng, w, (size_t)c * 9, !real);
        fill(&rng, bias, (size_t)c, !real);
        fill(&rng, prior, on, !real);
        reference(k, dir, x, w, dy, ref);
        for (int blend = 0; blend < 2; blend++) {
            float alpha = blend ? 2.0f : 1.0f, beta = blend ? -1.0f : 0.0f;
            for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++)
                for (int threads = 1; threads <= 2; threads++) {
                    CHECK_OK(freednnSetNumThreads(h, threads));
                    bool guards = run_case(h, k, dir, offsets[o][0], offsets[o][1], x, w, dy,
                                           dir == DIR_FWD_BIAS ? bias : NULL, blend ? prior : NULL, alpha, beta, got);
                    CHECK_MSG(guards, "%s %s isa %s x+%d y+%d: written outside the output", k->name, dir_names[dir],
                              fdnn_test_isa_name(isa), offsets[o][0], offsets[o][1]);
                    if (real) {
                        if (o == 0 && threads == 1)
                            memcpy(first, got, on * sizeof(float));
                        CHECK_MSG(memcmp(first, got, on * sizeof(float)) == 0,
                                  "%s %s isa %s x+%d y+%d threads %d blend %d: bits differ from offset 0", k->name,
                                  dir_names[dir], fdnn_test_isa_name(isa), offsets[o][0], offsets[o][1], threads,
                                  blend);
                        continue;
                    }
                    size_t bad = 0, at = 0;
                    for (size_t i = 0; i < on; i++) {
                        double v = alpha * ref[i] + beta * (blend ? prior[i] : 0.0);
                        if (dir == DIR_FWD_BIAS) {
                            v += bias[i % (size_t)c];
                            v = v > 0 ? v : 0;
                        }
                        if (!((double)got[i] == v) && bad++ == 0)
                            at = i;
                    }
                    CHECK_MSG(bad == 0, "%s %s isa %s x+%d y+%d threads %d blend %d: %zu wrong, first at %zu", k->name,
                              dir_names[dir], fdnn_test_isa_name(isa), offsets[o][0], offsets[o][1], threads, blend,
                              bad, at);
                }
        }
    }
    free(x);
    free(dy);
    free(w);
    free(bias);
    free(prior);
    free(got);
    free(first);
    free(ref);
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    for (int isa = 0; isa < fdnn_test_isa_count(); isa++) {
        CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isa)));
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            for (int dir = DIR_FWD; dir <= DIR_BWD_DATA; dir++)
                test_case(h, &cases[i], dir, isa);
    }
    CHECK_OK(cudnnDestroy(h));
    return fdnn_test_finish("test_conv_dw_lines");
}
