/* SPDX-License-Identifier: Apache-2.0
 * The native BF16 forward convolution (cpu/conv/conv_bf16.c) on the shapes
 * its packing and tiling make special: channel counts not multiples of 2 or
 * 16 (an odd number of B rows, padded), output channels not multiples of the
 * microkernel's 14 rows (every row-tail kernel: 2 .. 12 rows), strips of
 * 32 columns that cross image and row boundaries, strips of at most 16 columns (the half-width kernel), more
 * than 512 B rows (several k blocks), padding, strides 1, 2 (vector loads)
 * and 3 (element by element), dilation, groups, CONVOLUTION mode, NHWC
 * tensors (strided loads and stores), a 3-D problem; HALF and BFLOAT16 data
 * under TENSOR_OP_MATH and FLOAT data under ALLOW_CONVERSION, outputs
 * poisoned (beta 0) or blended (alpha 2, beta -1), against the float64
 * reference of the BF16-rounded operands (tolerance of docs/numerics.md);
 * bitwise the same at 1, 2 and 3 threads.
 *
 * The same program runs under FREEDNN_MAX_ISA=avx2 (ctest
 * test_conv_bf16_avx2): on a CPU without AVX512-BF16, or with AVX-512
 * capped away, the same calls take the staged path and must still be
 * within the tolerance (the program says which path it checked). */
#define _POSIX_C_SOURCE 200809L /* unsetenv */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/conv.h"
#include "cpu/conv/conv_bf16.h"
#include "cpu/simd/cvt.h"
#include "freednn.h"
#include "ref/conv_ref.h"
#include "testutil.h"

typedef struct shape {
    const char *name;
    int nsp, n, c, k, g;
    int in[3], ker[3], pad[3], str[3], dil[3];
    cudnnConvolutionMode_t mode;
    bool nhwc;
} shape_t;

#define S2(name, n, c, k, g, h, w, kh, kw, ph, pw, sh, sw, dh, dw, mode, nhwc)                                \
    {                                                                                                         \
        name, 2, n, c, k, g, {1, h, w}, {1, kh, kw}, {0, ph, pw}, {1, sh, sw}, {1, dh, dw}, mode, nhwc      \
    }
#define XC CUDNN_CROSS_CORRELATION
#define CV CUDNN_CONVOLUTION

static const shape_t shapes[] = {
    S2("1x1 odd channels across images", 3, 5, 17, 1, 7, 9, 1, 1, 0, 0, 1, 1, 1, 1, XC, false),
    S2("3x3 two k blocks, rows wider than a strip", 1, 70, 33, 1, 5, 40, 3, 3, 1, 1, 1, 1, 1, 1, XC, false),
    S2("3x3 stride 3 dilated", 2, 3, 15, 1, 13, 14, 3, 3, 2, 2, 3, 3, 2, 2, XC, false),
    S2("7x7 stride 2 RGB", 1, 3, 16, 1, 30, 30, 7, 7, 3, 3, 2, 2, 1, 1, XC, false),
    S2("groups stride 2", 2, 12, 18, 3, 9, 9, 3, 3, 1, 1, 2, 2, 1, 1, XC, false),
    S2("5x3 convolution mode", 1, 6, 14, 1, 8, 11, 5, 3, 2, 1, 1, 1, 1, 1, CV, false),
    S2("1x1 many channels out", 1, 16, 300, 1, 6, 6, 1, 1, 0, 0, 1, 1, 1, 1, XC, false),
    S2("1x1 stride 2", 2, 40, 20, 1, 15, 15, 1, 1, 0, 0, 2, 2, 1, 1, XC, false),
    S2("3x3 19 k blocks, 9 columns", 1, 1030, 29, 1, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, XC, false),
    S2("3x3 NHWC", 2, 7, 19, 1, 9, 10, 3, 3, 1, 1, 1, 1, 1, 1, XC, true),
    S2("3x3 stride 2 NHWC groups", 1, 8, 6, 2, 11, 11, 3, 3, 1, 1, 2, 2, 1, 1, CV, true),
    /* the row-tail kernels: 64 = 4 x 14 + 8 and 40 = 2 x 14 + 12 channels */
    S2("1x1 64 channels out, 8-row tail", 2, 24, 64, 1, 7, 9, 1, 1, 0, 0, 1, 1, 1, 1, XC, false),
    S2("3x3 40 channels out, 12-row tail", 1, 11, 40, 1, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1, XC, false),
    {"3-D", 3, 2, 5, 9, 1, {5, 6, 7}, {3, 2, 3}, {1, 0, 1}, {1, 2, 1}, {1, 1, 2}, XC, false},
};
#define NSHAPES (int)(sizeof(shapes) / sizeof(shapes[0]))

typedef struct cfg {
    const char *name;
    cudnnDataType_t dt;
    cudnnMathType_t math;
} cfg_t;

static const cfg_t cfgs[] = {
    {"PSEUDO_BFLOAT16 tensor-op", CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_OP_MATH},
    {"PSEUDO_HALF tensor-op", CUDNN_DATA_HALF, CUDNN_TENSOR_OP_MATH},
    {"FLOAT allow-conversion", CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION},
};
#define NCFGS (int)(sizeof(cfgs) / sizeof(cfgs[0]))

static size_t
dt_size(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT ? 4 : 2;
}

static double
load(cudnnDataType_t dt, const void *buf, size_t i)
{
    if (dt == CUDNN_DATA_HALF)
        return fdnn_f16_to_f32(((const uint16_t *)buf)[i]);
    if (dt == CUDNN_DATA_BFLOAT16)
        return fdnn_bf16_to_f32(((const uint16_t *)buf)[i]);
    return ((const float *)buf)[i];
}

static void
put(cudnnDataType_t dt, void *buf, size_t i, double v)
{
    if (dt == CUDNN_DATA_HALF)
        ((uint16_t *)buf)[i] = fdnn_f32_to_f16((float)v);
    else if (dt == CUDNN_DATA_BFLOAT16)
        ((uint16_t *)buf)[i] = fdnn_f32_to_bf16((float)v);
    else
        ((float *)buf)[i] = (float)v;
}

static double
rounded(cudnnDataType_t dt, double v)
{
    uint32_t b[1];
    put(dt, b, 0, v);
    return load(dt, b, 0);
}

/* Element (n, c, spatial index sp) of a tensor, NCHW or NHWC. */
static size_t
elem(bool nhwc, int cc, int spc, int n, int c, int sp)
{
    if (nhwc)
        return ((size_t)n * (size_t)spc + (size_t)sp) * (size_t)cc + (size_t)c;
    return ((size_t)n * (size_t)cc + (size_t)c) * (size_t)spc + (size_t)sp;
}

static void
set_tensor(cudnnTensorDescriptor_t d, cudnnDataType_t dt, bool nhwc, int nsp, int n, int c, const int *sp3)
{
    int dims[5] = {n, c}, st[5];
    const int *sp = sp3 + (3 - nsp);
    for (int i = 0; i < nsp; i++)
        dims[2 + i] = sp[i];
    int nb = nsp + 2, s = 1;
    if (nhwc) {
        st[1] = 1;
        s = c;
        for (int i = nb - 1; i >= 2; i--) {
            st[i] = s;
            s *= dims[i];
        }
        st[0] = s;
    } else {
        for (int i = nb - 1; i >= 0; i--) {
            st[i] = s;
            s *= dims[i];
        }
    }
    CHECK_OK(cudnnSetTensorNdDescriptor(d, dt, nb, dims, st));
}

/* One shape in one configuration, checked at `threads` threads for each
 * forward algorithm the native path serves; out_bits receives the output
 * bits of the beta 0 run of IMPLICIT_PRECOMP_GEMM (yn * element size). */
static void
check(cudnnHandle_t h, const shape_t *s, const cfg_t *cf, int threads, void *out_bits)
{
    const cudnnDataType_t dt = cf->dt;
    const size_t es = dt_size(dt);
    int out[3], osp = 1, isp = 1, q = 1, cg = s->c / s->g;
    fdnn_conv_problem_t geo;
    memset(&geo, 0, sizeof(geo));
    geo.nsp = s->nsp;
    geo.n = s->n, geo.c = s->c, geo.k = s->k, geo.g = s->g;
    geo.flip = s->mode == CV;
    for (int i = 0; i < 3; i++) {
        out[i] = (int)fdnn_conv_out_size(s->in[i], s->ker[i], s->pad[i], s->str[i], s->dil[i]);
        osp *= out[i];
        isp *= s->in[i];
        q *= s->ker[i];
        geo.in[i] = s->in[i], geo.ker[i] = s->ker[i], geo.pad[i] = s->pad[i];
        geo.stride[i] = s->str[i], geo.dil[i] = s->dil[i], geo.out[i] = out[i];
    }
    size_t xn = (size_t)s->n * (size_t)s->c * (size_t)isp, wn = (size_t)s->k * (size_t)cg * (size_t)q;
    size_t yn = (size_t)s->n * (size_t)s->k * (size_t)osp;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);
    set_tensor(xd, dt, s->nhwc, s->nsp, s->n, s->c, s->in);
    set_tensor(yd, dt, s->nhwc, s->nsp, s->n, s->k, out);
    int wdims[5] = {s->k, cg}, pad[3], str[3], dil[3];
    for (int i = 0; i < s->nsp; i++) {
        wdims[2 + i] = s->ker[3 - s->nsp + i];
        pad[i] = s->pad[3 - s->nsp + i];
        str[i] = s->str[3 - s->nsp + i];
        dil[i] = s->dil[3 - s->nsp + i];
    }
    CHECK_OK(cudnnSetFilterNdDescriptor(wd, dt, s->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, s->nsp + 2, wdims));
    CHECK_OK(cudnnSetConvolutionNdDescriptor(cd, s->nsp, pad, str, dil, s->mode, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(cd, s->g));
    CHECK_OK(cudnnSetConvolutionMathType(cd, cf->math));
    CHECK_OK(freednnSetNumThreads(h, threads));

    /* operands: storage values (packed NCHW doubles), the user's copies,
     * and the values the products see (rounded to bfloat16) */
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 1234 + (uint64_t)s->c * 7 + (uint64_t)s->k);
    size_t cnt[3] = {xn, wn, yn};
    double *v[3], *b[3], *a[3];
    void *user[3];
    int nn[3] = {s->n, s->k, s->n}, cc[3] = {s->c, cg, s->k}, ss[3] = {isp, q, osp};
    for (int t = 0; t < 3; t++) {
        v[t] = malloc(cnt[t] * 8);
        b[t] = malloc(cnt[t] * 8);
        a[t] = malloc(cnt[t] * 8);
        user[t] = fdnn_guarded_alloc(cnt[t] * es);
        for (size_t i = 0; i < cnt[t]; i++) {
            v[t][i] = rounded(dt, fdnn_rng_uniform(&rng, -1, 1));
            b[t][i] = rounded(CUDNN_DATA_BFLOAT16, v[t][i]);
            a[t][i] = fabs(b[t][i]);
        }
        for (int i = 0; i < nn[t]; i++)
            for (int j = 0; j < cc[t]; j++)
                for (int k = 0; k < ss[t]; k++)
                    put(dt, user[t], elem(s->nhwc, cc[t], ss[t], i, j, k), v[t][elem(false, cc[t], ss[t], i, j, k)]);
    }
    double *ref = malloc(yn * 8), *mag = malloc(yn * 8);
    fdnn_ref_conv_fwd(&geo, b[0], b[1], ref);
    fdnn_ref_conv_fwd(&geo, a[0], a[1], mag);
    void *y = fdnn_guarded_alloc(yn * es);
    static const int algos[] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                CUDNN_CONVOLUTION_FWD_ALGO_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT};
    for (int ai = 0; ai < 4; ai++) {
        int algo = algos[ai];
        size_t ws = 0;
        cudnnStatus_t st = cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws);
        if (st == CUDNN_STATUS_NOT_SUPPORTED && algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
            continue; /* as for FLOAT data (test_conv_lowp checks that) */
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s %s algo %d: workspace query %s", cf->name, s->name, algo,
                  cudnnGetErrorString(st));
        if (st != CUDNN_STATUS_SUCCESS)
            continue;
        void *wsp = ws > 0 ? fdnn_guarded_alloc(ws) : NULL;
        for (int blend = 0; blend < 2; blend++) {
            if (blend)
                for (size_t i = 0; i < yn; i++)
                    put(dt, y, i, rounded(dt, 0.25 * (double)((int)(i % 9) - 4)));
            else
                fdnn_poison_bytes(y, yn * es);
            float alpha = blend ? 2.0f : 1.0f, beta = blend ? -1.0f : 0.0f;
            st = cudnnConvolutionForward(h, &alpha, xd, user[0], wd, user[1], cd, algo, wsp, ws, &beta, yd, y);
            CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s %s algo %d: %s", cf->name, s->name, algo,
                      cudnnGetErrorString(st));
            if (st != CUDNN_STATUS_SUCCESS)
                continue;
            size_t bad = 0;
            double worst = 0;
            for (int n = 0; n < s->n; n++)
                for (int k = 0; k < s->k; k++)
                    for (int sp = 0; sp < osp; sp++) {
                        size_t r = elem(false, s->k, osp, n, k, sp), u = elem(s->nhwc, s->k, osp, n, k, sp);
                        double old = blend ? rounded(dt, 0.25 * (double)((int)(u % 9) - 4)) : 0;
                        double as = alpha * ref[r], bo = beta * old, want = as + bo;
                        double uo = dt == CUDNN_DATA_HALF       ? ldexp(1, -11)
                                    : dt == CUDNN_DATA_BFLOAT16 ? ldexp(1, -8)
                                                                : ldexp(1, -24);
                        double tol = 1e-5 * alpha * mag[r] + uo * (fabs(as) + fabs(bo) + fabs(want)) +
                                     (dt == CUDNN_DATA_HALF ? ldexp(1, -24) : 0);
                        double err = fabs(load(dt, y, u) - want);
                        if (!(err <= tol))
                            bad++;
                        if (!(err <= worst * tol))
                            worst = err / tol;
                    }
            CHECK_MSG(bad == 0, "%s %s algo %d blend %d, %d threads: %zu of %zu outside the tolerance (worst %.3g x)",
                      cf->name, s->name, algo, blend, threads, bad, yn, worst);
            if (!blend && algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
                memcpy(out_bits, y, yn * es);
        }
        fdnn_guarded_free(wsp);
    }
    for (int t = 0; t < 3; t++) {
        free(v[t]);
        free(b[t]);
        free(a[t]);
        fdnn_guarded_free(user[t]);
    }
    free(ref);
    free(mag);
    fdnn_guarded_free(y);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

static size_t
out_bytes(const shape_t *s, const cfg_t *cf)
{
    size_t n = (size_t)s->n * (size_t)s->k * dt_size(cf->dt);
    for (int i = 0; i < 3; i++)
        n *= (size_t)fdnn_conv_out_size(s->in[i], s->ker[i], s->pad[i], s->str[i], s->dil[i]);
    return n;
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    unsetenv("NVIDIA_TF32_OVERRIDE");
    printf("# test_conv_bf16: %s path\n", fdnn_conv_bf16_cpu_has() ? "native vdpbf16ps" : "staged (no AVX512-BF16)");
    for (int ci = 0; ci < NCFGS; ci++)
        for (int si = 0; si < NSHAPES; si++) {
            size_t bytes = out_bytes(&shapes[si], &cfgs[ci]);
            void *one = malloc(bytes), *more = malloc(bytes);
            check(h, &shapes[si], &cfgs[ci], 1, one);
            for (int threads = 2; threads <= 3; threads++) {
                check(h, &shapes[si], &cfgs[ci], threads, more);
                CHECK_MSG(memcmp(one, more, bytes) == 0, "%s %s: %d threads give other bits than 1", cfgs[ci].name,
                          shapes[si].name, threads);
            }
            free(one);
            free(more);
        }
    cudnnDestroy(h);
    return fdnn_test_finish("test_conv_bf16");
}
