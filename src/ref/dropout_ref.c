/* SPDX-License-Identifier: Apache-2.0
 * Dropout reference.  See dropout_ref.h. */
#include "ref/dropout_ref.h"

static void
mulhilo(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

void
fdnn_ref_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t x[4] = {counter[0], counter[1], counter[2], counter[3]};
    uint32_t k[2] = {key[0], key[1]};
    for (int round = 1; round <= 10; round++) {
        if (round > 1) {
            k[0] += 0x9E3779B9u;
            k[1] += 0xBB67AE85u;
        }
        uint32_t hi0, lo0, hi1, lo1;
        mulhilo(0xD2511F53u, x[0], &hi0, &lo0);
        mulhilo(0xCD9E8D57u, x[2], &hi1, &lo1);
        uint32_t y[4] = {hi1 ^ x[1] ^ k[0], lo1, hi0 ^ x[3] ^ k[1], lo0};
        for (int j = 0; j < 4; j++)
            x[j] = y[j];
    }
    for (int j = 0; j < 4; j++)
        out[j] = x[j];
}

bool
fdnn_ref_dropout_keep(uint64_t seed, uint64_t call, uint64_t i, float p)
{
    uint64_t block = i / 4;
    uint32_t counter[4] = {(uint32_t)(block & 0xffffffffu), (uint32_t)(block >> 32), (uint32_t)(call & 0xffffffffu),
                           (uint32_t)(call >> 32)};
    uint32_t key[2] = {(uint32_t)(seed & 0xffffffffu), (uint32_t)(seed >> 32)};
    uint32_t out[4];
    fdnn_ref_philox4x32_10(counter, key, out);
    return (double)out[i % 4] >= (double)p * 4294967296.0;
}

void
fdnn_ref_dropout_forward(uint64_t seed, uint64_t call, float p, const double *x, int64_t n, double *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = fdnn_ref_dropout_keep(seed, call, (uint64_t)i, p) ? x[i] / (1.0 - (double)p) : 0.0;
}
