/* SPDX-License-Identifier: Apache-2.0
 * See timing.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "core/timing.h"

#include <stdlib.h>
#include <time.h>

double
fdnn_now_ms(void)
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
fdnn_median_ms(double *t, size_t n)
{
    qsort(t, n, sizeof(double), cmp_double);
    return t[n / 2];
}
