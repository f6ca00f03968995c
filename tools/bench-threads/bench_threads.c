/* SPDX-License-Identifier: Apache-2.0
 * bench-threads: what oversubscription costs.  Times two backward-filter
 * convolutions (FP32 3x3, and a grouped FP64 3x3, which is hundreds of
 * small parallel steps per GEMM) with U threads (U = the CPUs this process
 * may use: affinity and cgroup quota) and with 2U, and prints the ratio.
 * Run it plain and under `taskset -c 0` (docs/threads.md).  A benchmark,
 * not a test: the numbers depend on the machine and its load.
 *
 *   bench-threads [threads ...]   (default: U and 2U) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/cpu.h"
#include "cudnn.h"
#include "freednn.h"

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        cudnnStatus_t s_ = (call);                                                                           \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudnnGetErrorString(s_));          \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

typedef struct bwd_filter_case {
    const char *name;
    cudnnDataType_t type;
    int n, c, h, w, k, groups;
} bwd_filter_case_t;

static const bwd_filter_case_t cases[] = {
    {"fp32 n8 c64 28x28 k64 3x3", CUDNN_DATA_FLOAT, 8, 64, 28, 28, 64, 1},
    {"fp64 n16 c64 28x28 k64 3x3 groups 4", CUDNN_DATA_DOUBLE, 16, 64, 28, 28, 64, 4},
};

static double
now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Median of 5 runs after one warm-up, in ms. */
static double
time_case(const bwd_filter_case_t *bc, int threads)
{
    cudnnHandle_t h;
    CHECK(cudnnCreate(&h));
    CHECK(freednnSetNumThreads(h, threads));
    size_t esz = bc->type == CUDNN_DATA_DOUBLE ? 8 : 4;
    cudnnTensorDescriptor_t xd, dyd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    CHECK(cudnnCreateTensorDescriptor(&xd));
    CHECK(cudnnCreateTensorDescriptor(&dyd));
    CHECK(cudnnCreateFilterDescriptor(&wd));
    CHECK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, bc->type, bc->n, bc->c, bc->h, bc->w));
    CHECK(cudnnSetFilter4dDescriptor(wd, bc->type, CUDNN_TENSOR_NCHW, bc->k, bc->c / bc->groups, 3, 3));
    CHECK(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, bc->type));
    CHECK(cudnnSetConvolutionGroupCount(cd, bc->groups));
    CHECK(cudnnSetTensor4dDescriptor(dyd, CUDNN_TENSOR_NCHW, bc->type, bc->n, bc->k, bc->h, bc->w));
    size_t xn = (size_t)bc->n * bc->c * bc->h * bc->w, dyn = (size_t)bc->n * bc->k * bc->h * bc->w;
    size_t wn = (size_t)bc->k * (bc->c / bc->groups) * 9;
    void *x = calloc(xn, esz), *dy = calloc(dyn, esz), *dw = calloc(wn, esz);
    cudnnConvolutionBwdFilterAlgo_t algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    size_t ws_bytes = 0;
    CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, dyd, cd, wd, algo, &ws_bytes));
    void *ws = malloc(ws_bytes > 0 ? ws_bytes : 1);
    double one_d = 1, zero_d = 0;
    float one_f = 1, zero_f = 0;
    const void *one = bc->type == CUDNN_DATA_DOUBLE ? (const void *)&one_d : (const void *)&one_f;
    const void *zero = bc->type == CUDNN_DATA_DOUBLE ? (const void *)&zero_d : (const void *)&zero_f;
    double t[6];
    for (int r = 0; r < 6; r++) {
        double t0 = now_ms();
        CHECK(cudnnConvolutionBackwardFilter(h, one, xd, x, dyd, dy, cd, algo, ws, ws_bytes, zero, wd, dw));
        t[r] = now_ms() - t0;
    }
    /* sort runs 1..5, take the middle */
    for (int i = 1; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            if (t[j] < t[i]) {
                double s = t[i];
                t[i] = t[j];
                t[j] = s;
            }
    free(x);
    free(dy);
    free(dw);
    free(ws);
    CHECK(cudnnDestroyConvolutionDescriptor(cd));
    CHECK(cudnnDestroyFilterDescriptor(wd));
    CHECK(cudnnDestroyTensorDescriptor(dyd));
    CHECK(cudnnDestroyTensorDescriptor(xd));
    CHECK(cudnnDestroy(h));
    return t[3];
}

int
main(int argc, char **argv)
{
    int usable = (int)fdnn_cpu_usable_count();
    int threads[8], nt = 0;
    for (int i = 1; i < argc && nt < 8; i++)
        threads[nt++] = atoi(argv[i]) > 0 ? atoi(argv[i]) : 1;
    if (nt == 0) {
        threads[nt++] = usable;
        threads[nt++] = 2 * usable;
    }
    cudnnHandle_t h;
    CHECK(cudnnCreate(&h));
    int dflt = 0;
    CHECK(freednnGetNumThreads(h, &dflt));
    CHECK(cudnnDestroy(h));
    printf("online CPUs %zu, affinity %zu, cgroup quota %zu (0: none), usable U = %d, default handle threads %d\n",
           fdnn_cpu_count(), fdnn_cpu_affinity_count(), fdnn_cpu_quota_count(""), usable, dflt);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        double base = 0;
        for (int i = 0; i < nt; i++) {
            double ms = time_case(&cases[c], threads[i]);
            if (i == 0)
                base = ms;
            printf("%-36s T=%-3d %9.2f ms  (%.2fx T=%d)\n", cases[c].name, threads[i], ms, ms / base, threads[0]);
        }
    }
    return 0;
}
