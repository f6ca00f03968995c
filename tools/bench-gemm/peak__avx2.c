/* SPDX-License-Identifier: Apache-2.0
 * The FMA throughput of one core with ymm registers (see peak__avx512.c). */
#include <immintrin.h>
#include <stddef.h>

double
bench_fma_loop_avx2(size_t iters, float *sink)
{
    __m256 acc[12];
    __m256 x = _mm256_set1_ps(1.0f + 1e-7f), y = _mm256_set1_ps(1e-7f);
    for (int i = 0; i < 12; i++)
        acc[i] = _mm256_set1_ps((float)i);
    for (size_t it = 0; it < iters; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            acc[i] = _mm256_fmadd_ps(acc[i], x, y);
    }
    __m256 s = acc[0];
    for (int i = 1; i < 12; i++)
        s = _mm256_add_ps(s, acc[i]);
    float out[8];
    _mm256_storeu_ps(out, s);
    *sink = out[0] + out[7];
    return (double)iters * 12 * 8 * 2;
}
