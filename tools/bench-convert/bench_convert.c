/* SPDX-License-Identifier: Apache-2.0
 * bench-convert: time of the FLOAT <-> HALF / BFLOAT16 row kernels of
 * cpu/tensor/convert_row.h on every path this machine has, and of
 * cudnnTransformTensor conversions (dense: the row kernels on the
 * handle's pool; with alpha 2 or a layout change: the elementwise engine),
 * at 1 and 2 threads.  4M elements (16 MB of float), best of 7 runs.
 *
 *   bench-convert */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu/tensor/convert_row.h"
#include "freednn.h"

#define N ((size_t)16 * 64 * 64 * 64)
#define RUNS 7

static double
now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double
best_row(fdnn_convert_row_fn fn, const void *src, void *dst)
{
    double best = 1e30;
    fn(src, dst, N); /* warm up: page faults */
    for (int r = 0; r < RUNS; r++) {
        const double t = now_s();
        fn(src, dst, N);
        const double e = now_s() - t;
        best = e < best ? e : best;
    }
    return best;
}

int
main(void)
{
    float *f = malloc(N * 4), *g = malloc(N * 4);
    unsigned short *h = malloc(N * 2);
    if (f == NULL || g == NULL || h == NULL)
        return 1;
    for (size_t i = 0; i < N; i++)
        f[i] = (float)(i % 1000) * 0.37f - 100.0f;
    printf("row kernels, %zu elements, one thread (GB/s counts 6 bytes per element)\n", N);
    const cudnnDataType_t types[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    for (int p = 0; p < FDNN_CVT_PATH_COUNT; p++) {
        if (!fdnn_convert_row_path_available((fdnn_cvt_path_t)p))
            continue;
        for (int t = 0; t < 2; t++) {
            const char *tn = t ? "bf16" : "f16";
            const double to = best_row(fdnn_convert_row_kernel((fdnn_cvt_path_t)p, CUDNN_DATA_FLOAT, types[t]), f, h);
            const double from = best_row(fdnn_convert_row_kernel((fdnn_cvt_path_t)p, types[t], CUDNN_DATA_FLOAT), h, g);
            printf("  %-10s f32->%-4s %6.2f ms %5.1f GB/s   %4s->f32 %6.2f ms %5.1f GB/s\n",
                   fdnn_convert_row_path_name((fdnn_cvt_path_t)p), tn, to * 1e3, N * 6 / to / 1e9, tn, from * 1e3,
                   N * 6 / from / 1e9);
        }
    }
    cudnnHandle_t handle;
    if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS)
        return 1;
    cudnnTensorDescriptor_t fn_, fh_, xn_, hn_;
    cudnnCreateTensorDescriptor(&fn_);
    cudnnCreateTensorDescriptor(&fh_);
    cudnnCreateTensorDescriptor(&xn_);
    cudnnCreateTensorDescriptor(&hn_);
    cudnnSetTensor4dDescriptor(fn_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 16, 64, 64, 64);
    cudnnSetTensor4dDescriptor(xn_, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 16, 64, 64, 64);
    cudnnSetTensor4dDescriptor(fh_, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 16, 64, 64, 64);
    cudnnSetTensor4dDescriptor(hn_, CUDNN_TENSOR_NCHW, CUDNN_DATA_BFLOAT16, 16, 64, 64, 64);
    const float one = 1, two = 2, zero = 0;
    const struct {
        const char *name;
        cudnnTensorDescriptor_t x, y;
        void *xp, *yp;
        const float *alpha;
    } cases[] = {
        {"FLOAT NCHW -> HALF NCHW (row kernels)", fn_, fh_, f, h, &one},
        {"HALF NCHW -> FLOAT NCHW (row kernels)", fh_, fn_, h, g, &one},
        {"FLOAT NCHW -> BFLOAT16 NCHW (row kernels)", fn_, hn_, f, h, &one},
        {"FLOAT NCHW -> HALF NCHW, alpha 2 (engine)", fn_, fh_, f, h, &two},
        {"HALF NCHW -> FLOAT NCHW, alpha 2 (engine)", fh_, fn_, h, g, &two},
        {"FLOAT NHWC -> HALF NCHW (engine, transpose)", xn_, fh_, f, h, &one},
        {"FLOAT NHWC -> FLOAT NCHW (engine, transpose)", xn_, fn_, f, g, &one},
    };
    printf("cudnnTransformTensor, 16x64x64x64\n");
    for (int threads = 1; threads <= 2; threads++) {
        freednnSetNumThreads(handle, threads);
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
            double best = 1e30;
            for (int r = 0; r <= RUNS; r++) {
                const double t = now_s();
                if (cudnnTransformTensor(handle, cases[k].alpha, cases[k].x, cases[k].xp, &zero, cases[k].y,
                                         cases[k].yp) != CUDNN_STATUS_SUCCESS)
                    return 1;
                const double e = now_s() - t;
                best = r > 0 && e < best ? e : best; /* run 0 warms up */
            }
            printf("  %-46s %d thread(s) %7.2f ms\n", cases[k].name, threads, best * 1e3);
        }
    }
    cudnnDestroyTensorDescriptor(fn_);
    cudnnDestroyTensorDescriptor(fh_);
    cudnnDestroyTensorDescriptor(xn_);
    cudnnDestroyTensorDescriptor(hn_);
    cudnnDestroy(handle);
    free(f);
    free(g);
    free(h);
    return 0;
}
