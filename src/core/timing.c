/* SPDX-License-Identifier: Apache-2.0
 * See timing.h. */
#include "core/timing.h"

#include <stdlib.h>

#include "core/os.h"

double
fdnn_now_ms(void)
{
    return (double)fdnn_os_now_ns() * 1e-6;
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
