/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench: the core-to-core round trip, a label for 2-thread rows.
 *
 * Why: on a virtual machine the hypervisor may place the two vCPUs on cores
 * that share a cache (a line written by one is read by the other in about
 * 60-100 ns) or on cores far apart (200-350 ns), and it moves them every few
 * seconds.  On the 2-core Zen 5 host of 2026-12-06 the round trip read
 * 120-200 ns or 430-700 ns, and a small 2-thread layer ran 0.27-0.30 ms in
 * the first placement and 0.31-0.60 ms in the second: the same binary, two
 * modes.  Printing the round trip next to each 2-thread time lets a table
 * compare rows measured in the same placement.  See docs/performance.md,
 * "The two-thread modes of this host". */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sysconf */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { ROUND_TRIPS = 2000, BATCHES = 5 };

/* One cache line passed back and forth: the main thread writes odd
 * values, the partner answers with the next even one. */
typedef struct line {
    _Alignas(64) atomic_long value;
    char pad[64 - sizeof(atomic_long)];
} line_t;

static void *
partner(void *arg)
{
    line_t *l = arg;
    for (long i = 0; i < (long)ROUND_TRIPS * BATCHES; i++) {
        while (atomic_load_explicit(&l->value, memory_order_acquire) != 2 * i + 1)
            ;
        atomic_store_explicit(&l->value, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

static double
seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double
bench_core_roundtrip_ns(void)
{
    const char *v = getenv("FREEDNN_BENCH_PROBE");
    if ((v != NULL && v[0] == '0') || sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return -1;
    line_t *l = aligned_alloc(64, sizeof(line_t));
    if (l == NULL)
        return -1;
    atomic_init(&l->value, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, partner, l) != 0) {
        free(l);
        return -1;
    }
    double batch_ns[BATCHES];
    long i = 0;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = seconds();
        for (long end = i + ROUND_TRIPS; i < end; i++) {
            atomic_store_explicit(&l->value, 2 * i + 1, memory_order_release);
            while (atomic_load_explicit(&l->value, memory_order_acquire) != 2 * i + 2)
                ;
        }
        batch_ns[b] = (seconds() - t0) * 1e9 / ROUND_TRIPS;
    }
    pthread_join(t, NULL);
    free(l);
    qsort(batch_ns, BATCHES, sizeof(double), cmp_double);
    return batch_ns[BATCHES / 2];
}
