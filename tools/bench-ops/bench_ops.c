/* SPDX-License-Identifier: Apache-2.0
 * bench-ops: pooling, batch norm, softmax and activation through the cuDNN
 * API, side by side with oneDNN in the same run, at 1 and 2 threads, NCHW
 * and NHWC user tensors.  Reports the median time, the bandwidth of the
 * operation's minimal memory traffic and its share of the machine's
 * stream-triad bandwidth, and oneDNN's time over ours (> 1: FreeDNN faster).
 *
 *   bench-ops [SHAPES_FILE] [--threads 1,2] [--filter NAME]
 *
 * Cases: the `pool`, `bnorm` and `softmax` lines of shapes.txt, plus a ReLU
 * on each `bnorm` shape. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cudnn.h>
#include <freednn.h>

#include "bench.h"

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double
bench_median_ms(void (*fn)(void *ctx), void *ctx)
{
    fn(ctx); /* warm up: caches, page faults, lazy setup */
    double t0 = now_ms();
    fn(ctx);
    double once = now_ms() - t0;
    int reps = once > 0 ? (int)(300.0 / once) : 50; /* about 0.3 s of samples */
    if (reps < 5)
        reps = 5;
    if (reps > 200)
        reps = 200;
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int i = 0; i < reps; i++) {
        double s = now_ms();
        fn(ctx);
        t[i] = now_ms() - s;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    double m = t[reps / 2];
    free(t);
    return m;
}

/* ---- FreeDNN side -------------------------------------------------------- */

typedef struct fdnn_run {
    const bench_case_t *c;
    cudnnHandle_t h;
    cudnnTensorDescriptor_t x, y, p;
    cudnnPoolingDescriptor_t pool;
    cudnnActivationDescriptor_t act;
    float *dx, *dy, *scale, *bias, *mean, *var, *smean, *sinv;
} fdnn_run_t;

static const float one = 1.0f, zero = 0.0f;

static void
fdnn_step(void *ctx)
{
    fdnn_run_t *r = ctx;
    cudnnStatus_t s = CUDNN_STATUS_SUCCESS;
    switch (r->c->kind) {
    case CASE_POOL: s = cudnnPoolingForward(r->h, r->pool, &one, r->x, r->dx, &zero, r->y, r->dy); break;
    case CASE_BNORM_TRAIN:
        s = cudnnBatchNormalizationForwardTraining(r->h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, r->x, r->dx, r->y,
                                                   r->dy, r->p, r->scale, r->bias, 0.1, r->mean, r->var, 1e-5,
                                                   r->smean, r->sinv);
        break;
    case CASE_BNORM_INFER:
        s = cudnnBatchNormalizationForwardInference(r->h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, r->x, r->dx, r->y,
                                                    r->dy, r->p, r->scale, r->bias, r->mean, r->var, 1e-5);
        break;
    case CASE_SOFTMAX:
        s = cudnnSoftmaxForward(r->h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, r->x, r->dx, &zero,
                                r->y, r->dy);
        break;
    case CASE_RELU: s = cudnnActivationForward(r->h, r->act, &one, r->x, r->dx, &zero, r->y, r->dy); break;
    }
    if (s != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "bench-ops: %s failed: %s\n", r->c->name, cudnnGetErrorString(s));
        exit(1);
    }
}

static float *
filled(size_t n, float v)
{
    float *p = aligned_alloc(64, ((n * sizeof(float)) + 63) / 64 * 64);
    for (size_t i = 0; i < n; i++)
        p[i] = v != 0 ? v : (float)((i * 2654435761u) % 1000) * 0.001f - 0.5f;
    return p;
}

static double
fdnn_case_ms(const bench_case_t *c, int threads, size_t *bytes)
{
    fdnn_run_t r = {.c = c};
    cudnnCreate(&r.h);
    freednnSetNumThreads(r.h, threads);
    cudnnCreateTensorDescriptor(&r.x);
    cudnnCreateTensorDescriptor(&r.y);
    cudnnCreateTensorDescriptor(&r.p);
    cudnnTensorFormat_t fmt = c->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    int oh = c->ih, ow = c->iw;
    if (c->kind == CASE_POOL) {
        oh = (c->ih + 2 * c->ph - c->kh) / c->sh + 1;
        ow = (c->iw + 2 * c->pw - c->kw) / c->sw + 1;
        cudnnCreatePoolingDescriptor(&r.pool);
        cudnnSetPooling2dDescriptor(r.pool, c->avg ? CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING : CUDNN_POOLING_MAX,
                                    CUDNN_NOT_PROPAGATE_NAN, c->kh, c->kw, c->ph, c->pw, c->sh, c->sw);
    }
    cudnnCreateActivationDescriptor(&r.act);
    cudnnSetActivationDescriptor(r.act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    cudnnSetTensor4dDescriptor(r.x, fmt, CUDNN_DATA_FLOAT, c->mb, c->ic, c->ih, c->iw);
    cudnnSetTensor4dDescriptor(r.y, fmt, CUDNN_DATA_FLOAT, c->mb, c->ic, oh, ow);
    cudnnSetTensor4dDescriptor(r.p, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, c->ic, 1, 1);
    size_t nx = (size_t)c->mb * c->ic * c->ih * c->iw, ny = (size_t)c->mb * c->ic * oh * ow;
    r.dx = filled(nx, 0);
    r.dy = filled(ny, 1);
    r.scale = filled((size_t)c->ic, 1);
    r.bias = filled((size_t)c->ic, 0.5f);
    r.mean = filled((size_t)c->ic, 0.25f);
    r.var = filled((size_t)c->ic, 2);
    r.smean = filled((size_t)c->ic, 1);
    r.sinv = filled((size_t)c->ic, 1);
    /* Minimal traffic: every input read once and every output written once;
     * batch-norm training reads x twice (statistics, then normalisation)
     * because x is far larger than the caches. */
    *bytes = (nx * (c->kind == CASE_BNORM_TRAIN ? 2 : 1) + ny) * sizeof(float);
    double ms = bench_median_ms(fdnn_step, &r);
    free(r.dx);
    free(r.dy);
    free(r.scale);
    free(r.bias);
    free(r.mean);
    free(r.var);
    free(r.smean);
    free(r.sinv);
    cudnnDestroyTensorDescriptor(r.x);
    cudnnDestroyTensorDescriptor(r.y);
    cudnnDestroyTensorDescriptor(r.p);
    if (r.pool)
        cudnnDestroyPoolingDescriptor(r.pool);
    cudnnDestroyActivationDescriptor(r.act);
    cudnnDestroy(r.h);
    return ms;
}

/* ---- cases ---------------------------------------------------------------- */

static int
key(const char *line, const char *k, int dflt)
{
    char pat[16];
    snprintf(pat, sizeof(pat), " %s=", k);
    const char *p = strstr(line, pat);
    return p ? atoi(p + strlen(pat)) : dflt;
}

static int
load_cases(const char *path, bench_case_t *out, int max)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "bench-ops: cannot open %s\n", path);
        return -1;
    }
    char line[512];
    int n = 0;
    while (fgets(line, sizeof(line), f) && n + 4 < max) {
        char op[16], name[64];
        if (line[0] == '#' || sscanf(line, "%15s %63s", op, name) != 2)
            continue;
        bench_case_t c = {0};
        snprintf(c.name, sizeof(c.name), "%s", name);
        c.mb = key(line, "mb", 1);
        c.ic = key(line, "ic", 1);
        c.ih = key(line, "ih", 1);
        c.iw = key(line, "iw", 1);
        if (strcmp(op, "pool") == 0) {
            c.kind = CASE_POOL;
            c.kh = key(line, "kh", 1);
            c.kw = key(line, "kw", 1);
            c.sh = key(line, "sh", 1);
            c.sw = key(line, "sw", 1);
            c.ph = key(line, "ph", 0);
            c.pw = key(line, "pw", 0);
            c.avg = strstr(line, "alg=avg") != NULL;
        } else if (strcmp(op, "bnorm") == 0) {
            c.kind = strstr(line, "mode=train") ? CASE_BNORM_TRAIN : CASE_BNORM_INFER;
        } else if (strcmp(op, "softmax") == 0) {
            c.kind = CASE_SOFTMAX;
        } else {
            continue;
        }
        for (int nhwc = 0; nhwc < (c.kind == CASE_SOFTMAX ? 1 : 2); nhwc++) {
            c.nhwc = nhwc;
            out[n++] = c;
        }
        if (c.kind == CASE_BNORM_INFER) { /* ReLU on the same shape */
            bench_case_t r = c;
            r.kind = CASE_RELU;
            snprintf(r.name, sizeof(r.name), "relu_%.60s", c.name);
            for (int nhwc = 0; nhwc < 2; nhwc++) {
                r.nhwc = nhwc;
                out[n++] = r;
            }
        }
    }
    fclose(f);
    return n;
}

int
main(int argc, char **argv)
{
    const char *shapes = FDNN_SHAPES_FILE;
    const char *filter = NULL;
    int thread_list[4] = {1, 2}, nthreads = 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            nthreads = 0;
            for (char *t = strtok(argv[++i], ","); t && nthreads < 4; t = strtok(NULL, ","))
                thread_list[nthreads++] = atoi(t);
        } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
            filter = argv[++i];
        } else {
            shapes = argv[i];
        }
    }
    bench_case_t cases[64];
    int n = load_cases(shapes, cases, 64);
    if (n <= 0)
        return 1;
    for (int ti = 0; ti < nthreads; ti++) {
        int threads = thread_list[ti];
        double triad = triad_gbs(threads);
        printf("\n### %d thread%s (stream triad %.1f GB/s)\n\n", threads, threads > 1 ? "s" : "", triad);
        printf("| case | layout | FreeDNN ms | GB/s | %% of triad | oneDNN ms | oneDNN setting | oneDNN / FreeDNN |\n");
        printf("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |\n");
        for (int i = 0; i < n; i++) {
            const bench_case_t *c = &cases[i];
            if (filter && !strstr(c->name, filter))
                continue;
            size_t bytes;
            double ours = fdnn_case_ms(c, threads, &bytes);
            const char *how;
            double theirs = onednn_case_ms(c, threads, &how);
            double gbs = (double)bytes / (ours * 1e6);
            printf("| %s | %s | %.3f | %.1f | %.0f%% | %.3f | %s | %.2f |\n", c->name,
                   c->kind == CASE_SOFTMAX ? "NC" : c->nhwc ? "NHWC" : "NCHW", ours, gbs, 100.0 * gbs / triad, theirs,
                   how, theirs > 0 ? theirs / ours : NAN);
            fflush(stdout);
        }
    }
    return 0;
}
