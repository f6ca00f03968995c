/* SPDX-License-Identifier: Apache-2.0
 * A program as a user would write it: FP32 weights and activations
 * converted to HALF (cudnnTransformTensor, FLOAT source and HALF
 * destination; on the host where that conversion is refused), then the
 * ResNet-50 forward layers (the distinct mb=1 shapes of
 * shared/bench/shapes.txt) run in half precision (PSEUDO_HALF, the
 * algorithm the _v7 heuristic picks first), and in BFLOAT16 with
 * TENSOR_OP_MATH.
 *
 * Check: the half-precision path runs the FP32 solver on the converted
 * values, so its output is bitwise the FP32 output on those values rounded
 * to the storage type (alpha 1, beta 0), poisoned output, 1 and 2 threads;
 * BFLOAT16 TENSOR_OP on the native vdpbf16ps path (cpu/conv/conv_bf16.h)
 * and HALF 1x1 layers and res5's 3x3 layers on IMPLICIT_GEMM
 * (fdnn_sgemm_f16, cpu/conv/conv_lowp_1x1.c, which need not take the FP32
 * solver's route) sum in another order: within the
 * FP32 error bound of the FP32 result plus the output's rounding; every
 * result 1 and 2 threads bitwise.
 *
 * With FDNN_LOWP_BENCH=<iterations> it also prints the median time of each
 * layer in FP32, PSEUDO_HALF and BFLOAT16 TENSOR_OP (one thread, thread
 * CPU time; no timed assertion), the measurement docs/convolution.md
 * records. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/conv/conv_bf16.h"
#include "cpu/simd/cvt.h"
#include "freednn.h"
#include "testutil.h"

typedef struct layer {
    const char *name;
    int c, k, hw, r, s, p;
} layer_t;

static const layer_t layers[] = {
    {"r50_stem_7x7s2", 3, 64, 224, 7, 2, 3},      {"r50_res2_1x1_64_64", 64, 64, 56, 1, 1, 0},
    {"r50_res2_3x3_64", 64, 64, 56, 3, 1, 1},     {"r50_res2_1x1_64_256", 64, 256, 56, 1, 1, 0},
    {"r50_res2_1x1_256_64", 256, 64, 56, 1, 1, 0}, {"r50_res3_1x1_256_128", 256, 128, 56, 1, 1, 0},
    {"r50_res3_3x3s2_128", 128, 128, 56, 3, 2, 1}, {"r50_res3_1x1_128_512", 128, 512, 28, 1, 1, 0},
    {"r50_res3_1x1s2_256_512", 256, 512, 56, 1, 2, 0}, {"r50_res3_1x1_512_128", 512, 128, 28, 1, 1, 0},
    {"r50_res3_3x3_128", 128, 128, 28, 3, 1, 1},  {"r50_res4_1x1_512_256", 512, 256, 28, 1, 1, 0},
    {"r50_res4_3x3s2_256", 256, 256, 28, 3, 2, 1}, {"r50_res4_1x1_256_1024", 256, 1024, 14, 1, 1, 0},
    {"r50_res4_1x1s2_512_1024", 512, 1024, 28, 1, 2, 0}, {"r50_res4_1x1_1024_256", 1024, 256, 14, 1, 1, 0},
    {"r50_res4_3x3_256", 256, 256, 14, 3, 1, 1},  {"r50_res5_1x1_1024_512", 1024, 512, 14, 1, 1, 0},
    {"r50_res5_3x3s2_512", 512, 512, 14, 3, 2, 1}, {"r50_res5_1x1_512_2048", 512, 2048, 7, 1, 1, 0},
    {"r50_res5_1x1s2_1024_2048", 1024, 2048, 14, 1, 2, 0}, {"r50_res5_1x1_2048_512", 2048, 512, 7, 1, 1, 0},
    {"r50_res5_3x3_512", 512, 512, 7, 3, 1, 1},
};
#define NLAYERS (int)(sizeof(layers) / sizeof(layers[0]))

static bool host_converted; /* cudnnTransformTensor refused FLOAT -> HALF */

static double
now_ms(void)
{
    struct timespec t;
    /* The calling thread's CPU time (the runs are single-threaded): robust
     * on a shared machine, where wall time counts other processes. */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The descriptors of one layer in one data type / compute / math type. */
typedef struct descs {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t c;
    int algo;
    size_t ws;
} descs_t;

static void
descs_init(cudnnHandle_t h, descs_t *d, const layer_t *l, cudnnDataType_t dt, cudnnMathType_t math)
{
    int o = (l->hw + 2 * l->p - l->r) / l->s + 1;
    cudnnCreateTensorDescriptor(&d->x);
    cudnnCreateTensorDescriptor(&d->y);
    cudnnCreateFilterDescriptor(&d->w);
    cudnnCreateConvolutionDescriptor(&d->c);
    CHECK_OK(cudnnSetTensor4dDescriptor(d->x, CUDNN_TENSOR_NCHW, dt, 1, l->c, l->hw, l->hw));
    CHECK_OK(cudnnSetTensor4dDescriptor(d->y, CUDNN_TENSOR_NCHW, dt, 1, l->k, o, o));
    CHECK_OK(cudnnSetFilter4dDescriptor(d->w, dt, CUDNN_TENSOR_NCHW, l->k, l->c, l->r, l->r));
    CHECK_OK(cudnnSetConvolution2dDescriptor(d->c, l->p, l->p, l->s, l->s, 1, 1, CUDNN_CROSS_CORRELATION,
                                             CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionMathType(d->c, math));
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int n = 0;
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, d->x, d->w, d->c, d->y, 8, &n, perf));
    d->algo = (int)perf[0].algo;
    CHECK_MSG(perf[0].mathType == (math == CUDNN_TENSOR_OP_MATH ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH),
              "%s: _v7 reports math type %d", l->name, (int)perf[0].mathType);
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, d->x, d->w, d->c, d->y, d->algo, &d->ws));
}

static void
descs_free(descs_t *d)
{
    cudnnDestroyTensorDescriptor(d->x);
    cudnnDestroyTensorDescriptor(d->y);
    cudnnDestroyFilterDescriptor(d->w);
    cudnnDestroyConvolutionDescriptor(d->c);
}

/* FP32 -> dt (HALF or BFLOAT16) of n packed elements: cudnnTransformTensor,
 * or the host where the library refuses the type change. */
static void
convert(cudnnHandle_t h, const float *src, uint16_t *dst, size_t n, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t a, b;
    cudnnCreateTensorDescriptor(&a);
    cudnnCreateTensorDescriptor(&b);
    CHECK_OK(cudnnSetTensor4dDescriptor(a, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, (int)n, 1, 1));
    CHECK_OK(cudnnSetTensor4dDescriptor(b, CUDNN_TENSOR_NCHW, dt, 1, (int)n, 1, 1));
    float one = 1, zero = 0;
    cudnnStatus_t st = cudnnTransformTensor(h, &one, a, src, &zero, b, dst);
    if (st != CUDNN_STATUS_SUCCESS) {
        host_converted = true;
        for (size_t i = 0; i < n; i++)
            dst[i] = dt == CUDNN_DATA_HALF ? fdnn_f32_to_f16(src[i]) : fdnn_f32_to_bf16(src[i]);
    }
    cudnnDestroyTensorDescriptor(a);
    cudnnDestroyTensorDescriptor(b);
}

static double
median_ms(cudnnHandle_t h, const descs_t *d, const void *x, const void *w, void *y, void *ws, int iters)
{
    double t[32];
    float one = 1, zero = 0;
    if (iters > 32)
        iters = 32;
    for (int i = -1; i < iters; i++) {
        double t0 = now_ms();
        CHECK_OK(cudnnConvolutionForward(h, &one, d->x, x, d->w, w, d->c, d->algo, ws, d->ws, &zero, d->y, y));
        if (i >= 0)
            t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)iters, sizeof(double), cmp_double);
    return t[iters / 2];
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    const char *bench = getenv("FDNN_LOWP_BENCH");
    int iters = bench != NULL ? atoi(bench) : 0;
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 50);
    double tot[3] = {0, 0, 0};
    static const cudnnDataType_t types[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    static const cudnnMathType_t maths[2] = {CUDNN_DEFAULT_MATH, CUDNN_TENSOR_OP_MATH};
    if (iters > 0)
        printf("%-26s %-6s %9s %9s %6s %9s %6s\n", "layer", "algo", "fp32 ms", "half ms", "x", "bf16 ms", "x");
    for (int li = 0; li < NLAYERS; li++) {
        const layer_t *l = &layers[li];
        int o = (l->hw + 2 * l->p - l->r) / l->s + 1;
        size_t xn = (size_t)l->c * (size_t)l->hw * (size_t)l->hw, wn = (size_t)l->k * (size_t)l->c * (size_t)(l->r * l->r),
               yn = (size_t)l->k * (size_t)o * (size_t)o;
        float *x = malloc(xn * 4), *w = malloc(wn * 4), *y32 = malloc(yn * 4), *xr = malloc(xn * 4),
              *wr = malloc(wn * 4);
        uint16_t *xh = malloc(xn * 2), *wh = malloc(wn * 2), *yh = fdnn_guarded_alloc(yn * 2);
        for (size_t i = 0; i < xn; i++)
            x[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
        for (size_t i = 0; i < wn; i++)
            w[i] = (float)fdnn_rng_uniform(&rng, -0.1, 0.1);
        descs_t d32;
        descs_init(h, &d32, l, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH);
        double ms[3] = {0, 0, 0};
        int algo16[2] = {0, 0};
        for (int ti = 0; ti < 2; ti++) {
            cudnnDataType_t dt = types[ti];
            convert(h, x, xh, xn, dt);
            convert(h, w, wh, wn, dt);
            for (size_t i = 0; i < xn; i++)
                xr[i] = dt == CUDNN_DATA_HALF ? fdnn_f16_to_f32(xh[i]) : fdnn_bf16_to_f32(xh[i]);
            for (size_t i = 0; i < wn; i++)
                wr[i] = dt == CUDNN_DATA_HALF ? fdnn_f16_to_f32(wh[i]) : fdnn_bf16_to_f32(wh[i]);
            descs_t d16;
            descs_init(h, &d16, l, dt, maths[ti]);
            algo16[ti] = d16.algo;
            /* BFLOAT16 TENSOR_OP on a CPU with AVX512-BF16: the native path
             * (IMPLICIT_PRECOMP_GEMM first), its own summation order */
            bool native = dt == CUDNN_DATA_BFLOAT16 && fdnn_conv_bf16_cpu_has();
            int want_algo = native ? CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM : d32.algo;
            CHECK_MSG(d16.algo == want_algo, "%s: _v7 picks algo %d for %s, %d for FLOAT", l->name, d16.algo,
                      dt == CUDNN_DATA_HALF ? "HALF" : "BFLOAT16", d32.algo);
            int algo32 = native ? d32.algo : d16.algo;
            /* HALF 1x1 layers run fdnn_sgemm_f16 (cpu/conv/conv_lowp_1x1.c),
             * in the FP32 GEMM's order but not always the FP32 solver's:
             * within the same bound, and 1 and 2 threads bitwise */
            /* and so do HALF layers on a GEMM algorithm whose filter has
             * at least as many output channels as the image has positions
             * (res5's 3x3: im2col in half, then fdnn_sgemm_f16) */
            bool gemm_algo = d16.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
                             d16.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
                             d16.algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
            bool own_order = native || (dt == CUDNN_DATA_HALF && l->r == 1 && l->p == 0) ||
                             (dt == CUDNN_DATA_HALF && l->r > 1 && gemm_algo && l->k >= o * o);
            float *mag = NULL;
            if (own_order) { /* sum |x| |w| of each output: the FP32 summation's error bound */
                float *xa = malloc(xn * 4), *wa = malloc(wn * 4);
                mag = malloc(yn * 4);
                for (size_t i = 0; i < xn; i++)
                    xa[i] = fabsf(xr[i]);
                for (size_t i = 0; i < wn; i++)
                    wa[i] = fabsf(wr[i]);
                void *ws32 = malloc(d32.ws + 1);
                float one = 1, zero = 0;
                CHECK_OK(cudnnConvolutionForward(h, &one, d32.x, xa, d32.w, wa, d32.c, d32.algo, ws32, d32.ws, &zero,
                                                 d32.y, mag));
                free(ws32);
                free(xa);
                free(wa);
            }
            void *ws = malloc(d16.ws + d32.ws + 1);
            uint16_t *first = malloc(yn * 2);
            float one = 1, zero = 0;
            for (int threads = 1; threads <= 2; threads++) {
                CHECK_OK(freednnSetNumThreads(h, threads));
                fdnn_poison_bytes(yh, yn * 2);
                fdnn_poison_f32(y32, yn);
                CHECK_OK(cudnnConvolutionForward(h, &one, d16.x, xh, d16.w, wh, d16.c, d16.algo, ws, d16.ws, &zero,
                                                 d16.y, yh));
                CHECK_OK(cudnnConvolutionForward(h, &one, d32.x, xr, d32.w, wr, d32.c, algo32, ws, d32.ws, &zero,
                                                 d32.y, y32));
                size_t bad = 0;
                for (size_t i = 0; i < yn; i++) {
                    uint16_t want = dt == CUDNN_DATA_HALF ? fdnn_f32_to_f16(y32[i]) : fdnn_f32_to_bf16(y32[i]);
                    if (native) /* within the FP32 error bound and the output's rounding */
                        bad += !(fabs((double)fdnn_bf16_to_f32(yh[i]) - (double)y32[i]) <=
                                 2e-5 * (double)mag[i] + 0x1p-8 * fabs((double)y32[i]));
                    else if (own_order)
                        bad += !(fabs((double)fdnn_f16_to_f32(yh[i]) - (double)y32[i]) <=
                                 2e-5 * (double)mag[i] + 0x1p-11 * fabs((double)y32[i]) + 0x1p-24);
                    else
                        bad += yh[i] != want;
                }
                CHECK_MSG(bad == 0, "%s %s threads %d: %zu of %zu not the rounded FP32 result%s", l->name,
                          dt == CUDNN_DATA_HALF ? "HALF" : "BFLOAT16", threads, bad, yn,
                          own_order ? " (within the tolerance)" : "");
                if (threads == 1)
                    memcpy(first, yh, yn * 2);
                else
                    CHECK_MSG(memcmp(first, yh, yn * 2) == 0, "%s: 1 and 2 threads differ", l->name);
            }
            if (iters > 0) {
                CHECK_OK(freednnSetNumThreads(h, 1));
                ms[1 + ti] = median_ms(h, &d16, xh, wh, yh, ws, iters);
                if (ti == 0)
                    ms[0] = median_ms(h, &d32, x, w, y32, ws, iters);
            }
            free(ws);
            free(first);
            free(mag);
            descs_free(&d16);
        }
        if (iters > 0) {
            printf("%-26s %d/%d/%d %9.3f %9.3f %6.2f %9.3f %6.2f\n", l->name, d32.algo, algo16[0], algo16[1], ms[0],
                   ms[1], ms[0] / ms[1], ms[2], ms[0] / ms[2]);
            for (int i = 0; i < 3; i++)
                tot[i] += ms[i];
        }
        descs_free(&d32);
        free(x);
        free(w);
        free(y32);
        free(xr);
        free(wr);
        free(xh);
        free(wh);
        fdnn_guarded_free(yh);
    }
    if (iters > 0)
        printf("%-26s %-6s %9.3f %9.3f %6.2f %9.3f %6.2f\n", "total", "", tot[0], tot[1], tot[0] / tot[1], tot[2],
               tot[0] / tot[2]);
    if (host_converted)
        printf("note: cudnnTransformTensor refused FLOAT -> HALF/BFLOAT16; converted on the host\n");
    cudnnDestroy(h);
    return fdnn_test_finish("test_conv_lowp_resnet");
}
