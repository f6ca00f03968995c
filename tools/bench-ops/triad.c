/* SPDX-License-Identifier: Apache-2.0
 * The stream-triad bandwidth of the machine: the bar that memory-bound
 * operations are measured against. */
#include <omp.h>
#include <stdlib.h>

#include "bench.h"

typedef struct triad {
    double *a, *b, *c;
    size_t n;
    int threads;
} triad_t;

static void
triad_run(void *ctx)
{
    triad_t *t = ctx;
    double *a = t->a;
    const double *b = t->b, *c = t->c;
    const double s = 3.0;
    long n = (long)t->n;
#pragma omp parallel for num_threads(t->threads) schedule(static)
    for (long i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

double
triad_gbs(int threads)
{
    triad_t t = {.n = (size_t)16 << 20, .threads = threads}; /* 3 x 128 MiB */
    t.a = aligned_alloc(64, t.n * sizeof(double));
    t.b = aligned_alloc(64, t.n * sizeof(double));
    t.c = aligned_alloc(64, t.n * sizeof(double));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long i = 0; i < (long)t.n; i++) {
        t.a[i] = 0;
        t.b[i] = 1;
        t.c[i] = 2;
    }
    double ms = bench_median_ms(triad_run, &t);
    free(t.a);
    free(t.b);
    free(t.c);
    return 24.0 * (double)t.n / (ms * 1e6);
}
