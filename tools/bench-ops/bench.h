/* SPDX-License-Identifier: Apache-2.0
 * bench-ops: shared declarations. */
#ifndef FDNN_BENCH_OPS_H
#define FDNN_BENCH_OPS_H

#include <stddef.h>

/* One benchmark case from shapes.txt (or the command line). */
typedef enum case_kind { CASE_POOL, CASE_BNORM_TRAIN, CASE_BNORM_INFER, CASE_SOFTMAX, CASE_RELU } case_kind_t;

typedef struct bench_case {
    case_kind_t kind;
    char name[80];
    int mb, ic, ih, iw, kh, kw, sh, sw, ph, pw;
    int avg; /* pooling: average (exclude padding) instead of max */
    int nhwc;
} bench_case_t;

/* Median wall time in milliseconds of fn(ctx) over enough repetitions. */
double bench_median_ms(void (*fn)(void *ctx), void *ctx);

/* Stream triad a = b + s*c with `threads` OpenMP threads, in GB/s
 * (3 arrays x 8 bytes x n per run, counted as 24 bytes per element). */
double triad_gbs(int threads);

/* oneDNN's time for the case with `threads` threads: the better of running
 * directly on the user's layout and letting oneDNN choose its layout with the
 * reorders from and to the user's layout counted.  Negative when oneDNN
 * cannot run the case. */
double onednn_case_ms(const bench_case_t *c, int threads, const char **how);

#endif
