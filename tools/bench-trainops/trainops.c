/* SPDX-License-Identifier: Apache-2.0
 * bench-trainops: the memory-bound ops of a ResNet-50 training step
 * (mb = 32) at their shapes, through the cuDNN API the way
 * tools/freednn-bench's net mode calls them.
 * Usage: bench-trainops LAYOUT(nchw|nhwc) [reps [SET [OP [C]]]]
 *   SET: step (default: one shape per op kind of the step: BN (+ReLU) forward
 *        and backward, the residual add, ReLU, max pooling), bn (every
 *        ResNet-50 batch-norm shape, and max pooling), mbv2 (MobileNet
 *        v2's batch norms, forward training and backward) or pool (global
 *        average pooling of ResNet-50 and MobileNet v2, max pooling, the
 *        residual add through cudnnOpTensor and ReLU backward at the shapes
 *        of the per-node gap list);
 *   OP:  only the cases whose op name starts with OP ("" for all);
 *   C:   only the cases with C channels.
 * Threads from FREEDNN_NUM_THREADS.  Prints per op the median wall ms and
 * the median process CPU ms of `reps` runs (after one warm-up run).
 * (bench/results/2026-12-05-trainmem and -bnstat were measured with the
 * step and bn sets.) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudnn.h"

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudnnStatus_t s_ = (x);                                                                \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                      \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static double
now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int
cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static float *
buf(size_t n, unsigned seed)
{
    float *p = aligned_alloc(64, (n * 4 + 63) / 64 * 64);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
    return p;
}

static cudnnTensorDescriptor_t
desc(int nhwc, int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t d;
    CK(cudnnCreateTensorDescriptor(&d));
    CK(cudnnSetTensor4dDescriptor(d, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
    return d;
}

typedef struct shape {
    const char *op;
    int c, h, w;
} shape_t;

static cudnnHandle_t H;
static int NHWC;
static const float one = 1.0f, zero = 0.0f;

static void
run_op(const shape_t *s, int reps)
{
    const int n = getenv("TRAINOPS_MB") ? atoi(getenv("TRAINOPS_MB")) : 32;
    size_t cnt = (size_t)n * s->c * s->h * s->w;
    int gap = strncmp(s->op, "gap", 3) == 0;
    int pool = strncmp(s->op, "maxpool", 7) == 0 || gap;
    int oh = gap ? 1 : s->h / 2, ow = gap ? 1 : s->w / 2;
    size_t ocnt = pool ? (size_t)n * s->c * oh * ow : cnt;
    cudnnTensorDescriptor_t xd = desc(NHWC, n, s->c, s->h, s->w);
    cudnnTensorDescriptor_t yd = pool ? desc(NHWC, n, s->c, oh, ow) : xd;
    cudnnTensorDescriptor_t pd = desc(0, 1, s->c, 1, 1);
    float *x = buf(cnt, 1), *y = buf(ocnt, 2), *dy = buf(ocnt, 3), *dx = buf(cnt, 4);
    float *sc = buf(s->c, 5), *bi = buf(s->c, 6), *rm = buf(s->c, 7), *rv = buf(s->c, 8);
    float *sm = buf(s->c, 9), *si = buf(s->c, 10), *ds = buf(s->c, 11), *db = buf(s->c, 12);
    for (int i = 0; i < s->c; i++)
        rv[i] = 1.0f;
    cudnnActivationDescriptor_t act;
    CK(cudnnCreateActivationDescriptor(&act));
    CK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
    cudnnPoolingDescriptor_t pl;
    CK(cudnnCreatePoolingDescriptor(&pl));
    if (gap) /* as freednn-bench's net mode sets its global average pooling */
        CK(cudnnSetPooling2dDescriptor(pl, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, s->h,
                                       s->w, 0, 0, 1, 1));
    else
        CK(cudnnSetPooling2dDescriptor(pl, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2));
    cudnnOpTensorDescriptor_t opd;
    CK(cudnnCreateOpTensorDescriptor(&opd));
    CK(cudnnSetOpTensorDescriptor(opd, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    size_t rs = 0;
    if (!pool)
        CK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(H, CUDNN_BATCHNORM_SPATIAL,
                                                                CUDNN_BATCHNORM_OPS_BN_ACTIVATION, act, xd, &rs));
    void *reserve = malloc(rs + 64);
    /* fill the reserve once (the backward reads it) */
    if (!pool)
        CK(cudnnBatchNormalizationForwardTrainingEx(H, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one,
                                                &zero, xd, x, NULL, NULL, yd, y, pd, sc, bi, 0.1, rm, rv, 1e-5, sm, si,
                                                act, NULL, 0, reserve, rs));
    double wall[64], cpu[64];
    for (int r = -1; r < reps; r++) {
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        if (!strcmp(s->op, "bnfwd_relu"))
            CK(cudnnBatchNormalizationForwardTrainingEx(H, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION,
                                                        &one, &zero, xd, x, NULL, NULL, yd, y, pd, sc, bi, 0.1, rm,
                                                        rv, 1e-5, sm, si, act, NULL, 0, reserve, rs));
        else if (!strcmp(s->op, "bnfwd"))
            CK(cudnnBatchNormalizationForwardTraining(H, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x, yd, y, pd, sc,
                                                      bi, 0.1, rm, rv, 1e-5, sm, si));
        else if (!strcmp(s->op, "bnbwd_relu"))
            CK(cudnnBatchNormalizationBackwardEx(H, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one,
                                                 &zero, &one, &zero, xd, x, yd, y, yd, dy, NULL, NULL, xd, dx, pd, sc,
                                                 bi, ds, db, 1e-5, sm, si, act, NULL, 0, reserve, rs));
        else if (!strcmp(s->op, "bnbwd"))
            CK(cudnnBatchNormalizationBackward(H, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, xd, x, yd, dy,
                                               xd, dx, pd, sc, ds, db, 1e-5, sm, si));
        else if (!strcmp(s->op, "bnbwd_b1"))
            CK(cudnnBatchNormalizationBackward(H, CUDNN_BATCHNORM_SPATIAL, &one, &one, &one, &zero, xd, x, yd, dy,
                                               xd, dx, pd, sc, ds, db, 1e-5, sm, si));
        else if (!strcmp(s->op, "add_inplace"))
            CK(cudnnAddTensor(H, &one, xd, x, &one, yd, y));
        else if (!strcmp(s->op, "add_copy"))
            CK(cudnnAddTensor(H, &one, yd, dy, &zero, xd, dx));
        else if (!strcmp(s->op, "add_op"))
            CK(cudnnOpTensor(H, opd, &one, xd, x, &one, yd, y, &zero, xd, dx));
        else if (!strcmp(s->op, "relu_fwd"))
            CK(cudnnActivationForward(H, act, &one, xd, x, &zero, yd, y));
        else if (!strcmp(s->op, "relu_bwd"))
            CK(cudnnActivationBackward(H, act, &one, yd, y, yd, dy, xd, x, &zero, xd, dx));
        else if (!strcmp(s->op, "maxpool_fwd") || !strcmp(s->op, "gap_fwd"))
            CK(cudnnPoolingForward(H, pl, &one, xd, x, &zero, yd, y));
        else if (!strcmp(s->op, "maxpool_bwd") || !strcmp(s->op, "gap_bwd"))
            CK(cudnnPoolingBackward(H, pl, &one, yd, y, yd, dy, xd, x, &zero, xd, dx));
        if (r >= 0) {
            wall[r] = now(CLOCK_MONOTONIC) - w0;
            cpu[r] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        }
        if (!strcmp(s->op, "add_inplace") || !strcmp(s->op, "bnfwd_relu")) {
            /* keep values bounded: y grows by x each add */
        }
    }
    qsort(wall, reps, sizeof(double), cmp);
    qsort(cpu, reps, sizeof(double), cmp);
    printf("%-12s %s %dx%dx%dx%d  wall %8.2f ms  cpu %8.2f ms  (min cpu %8.2f)\n", s->op, NHWC ? "nhwc" : "nchw", n,
           s->c, s->h, s->w, wall[reps / 2], cpu[reps / 2], cpu[0]);
    fflush(stdout);
    free(x), free(y), free(dy), free(dx), free(reserve);
    free(sc), free(bi), free(rm), free(rv), free(sm), free(si), free(ds), free(db);
    cudnnDestroyActivationDescriptor(act);
    cudnnDestroyPoolingDescriptor(pl);
    cudnnDestroyOpTensorDescriptor(opd);
    cudnnDestroyTensorDescriptor(xd);
    if (pool)
        cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(pd);
}

/* The case sets (see the head of the file). */
static const shape_t STEP_SET[] = {
    {"bnfwd_relu", 64, 56, 56},   {"bnfwd_relu", 128, 28, 28}, {"bnfwd_relu", 512, 7, 7},
    {"bnfwd", 256, 56, 56},       {"bnbwd_relu", 64, 56, 56},  {"bnbwd_relu", 128, 28, 28},
    {"bnbwd_relu", 512, 7, 7},    {"bnbwd", 256, 56, 56},      {"bnbwd_b1", 256, 56, 56},
    {"add_inplace", 256, 56, 56}, {"add_copy", 256, 56, 56},   {"relu_fwd", 256, 56, 56},
    {"relu_bwd", 256, 56, 56},    {"maxpool_fwd", 64, 112, 112}, {"maxpool_bwd", 64, 112, 112},
};
static const shape_t BN_SET[] = {
    {"bnfwd_relu", 64, 112, 112}, {"bnfwd_relu", 64, 56, 56},   {"bnfwd", 256, 56, 56},
    {"bnfwd_relu", 128, 28, 28},  {"bnfwd", 512, 28, 28},       {"bnfwd_relu", 256, 14, 14},
    {"bnfwd", 1024, 14, 14},      {"bnfwd_relu", 512, 7, 7},    {"bnfwd", 2048, 7, 7},
    {"bnbwd_relu", 64, 112, 112}, {"bnbwd_relu", 64, 56, 56},   {"bnbwd", 256, 56, 56},
    {"bnbwd_relu", 128, 28, 28},  {"bnbwd", 512, 28, 28},       {"bnbwd_relu", 256, 14, 14},
    {"bnbwd", 1024, 14, 14},      {"bnbwd_relu", 512, 7, 7},    {"bnbwd", 2048, 7, 7},
    {"maxpool_fwd", 64, 112, 112}, {"maxpool_bwd", 64, 112, 112},
};
/* MobileNet v2's batch norms (no fused activation: ReLU6 follows). */
static const shape_t MBV2_SET[] = {
    {"bnfwd", 32, 112, 112}, {"bnfwd", 96, 112, 112}, {"bnfwd", 16, 112, 112}, {"bnfwd", 144, 56, 56},
    {"bnfwd", 384, 14, 14},  {"bnfwd", 960, 7, 7},    {"bnbwd", 32, 112, 112}, {"bnbwd", 96, 112, 112},
    {"bnbwd", 16, 112, 112}, {"bnbwd", 144, 56, 56},  {"bnbwd", 384, 14, 14},  {"bnbwd", 960, 7, 7},
};
static const shape_t POOL_SET[] = {
    {"gap_fwd", 2048, 7, 7},      {"gap_bwd", 2048, 7, 7},     {"gap_fwd", 1280, 7, 7},
    {"gap_bwd", 1280, 7, 7},      {"maxpool_fwd", 64, 112, 112}, {"maxpool_bwd", 64, 112, 112},
    {"add_op", 1024, 14, 14},     {"add_op", 512, 28, 28},     {"add_inplace", 1024, 14, 14},
    {"relu_bwd", 1024, 14, 14},   {"relu_bwd", 2048, 7, 7},    {"relu_fwd", 512, 28, 28},
    {"relu_bwd", 256, 56, 56},
};

int
main(int argc, char **argv)
{
    NHWC = argc > 1 && !strcmp(argv[1], "nhwc");
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    const char *set = argc > 3 ? argv[3] : "step";
    const char *only = argc > 4 && argv[4][0] != '\0' ? argv[4] : NULL;
    int only_c = argc > 5 ? atoi(argv[5]) : 0;
    if (reps < 1)
        reps = 1;
    if (reps > 64)
        reps = 64;
    const shape_t *shapes = STEP_SET;
    size_t count = sizeof(STEP_SET) / sizeof(STEP_SET[0]);
    if (!strcmp(set, "bn")) {
        shapes = BN_SET;
        count = sizeof(BN_SET) / sizeof(BN_SET[0]);
    } else if (!strcmp(set, "pool")) {
        shapes = POOL_SET;
        count = sizeof(POOL_SET) / sizeof(POOL_SET[0]);
    } else if (!strcmp(set, "mbv2")) {
        shapes = MBV2_SET;
        count = sizeof(MBV2_SET) / sizeof(MBV2_SET[0]);
    } else if (strcmp(set, "step") != 0) {
        fprintf(stderr, "bench-trainops: unknown set '%s' (step, bn, mbv2 or pool)\n", set);
        return 2;
    }
    CK(cudnnCreate(&H));
    for (size_t i = 0; i < count; i++)
        if ((only == NULL || strstr(shapes[i].op, only) == shapes[i].op) && (only_c <= 0 || shapes[i].c == only_c))
            run_op(&shapes[i], reps);
    cudnnDestroy(H);
    return 0;
}
