/* SPDX-License-Identifier: Apache-2.0
 * Chunk partials summed in chunk order (conv_partials.h). */
#include "cpu/conv/conv_partials.h"

typedef struct partials {
    float *base;
    size_t stride, count, parts;
} partials_t;

static void
sum_run(void *arg, size_t r)
{
    const partials_t *s = arg;
    size_t e0 = r * FDNN_PARTIALS_RUN, e1 = s->count - e0 < FDNN_PARTIALS_RUN ? s->count : e0 + FDNN_PARTIALS_RUN;
    float *p0 = s->base;
    for (size_t i = 1; i < s->parts; i++) {
        const float *pi = s->base + i * s->stride;
        for (size_t e = e0; e < e1; e++)
            p0[e] += pi[e];
    }
}

void
fdnn_conv_sum_partials_f32(fdnn_pool_t pool, float *base, size_t stride, size_t count, size_t parts)
{
    if (parts < 2 || count == 0)
        return;
    partials_t s = {base, stride, count, parts};
    fdnn_parallelize_1d(pool, sum_run, &s, (count + FDNN_PARTIALS_RUN - 1) / FDNN_PARTIALS_RUN, 0);
}
