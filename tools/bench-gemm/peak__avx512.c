/* SPDX-License-Identifier: Apache-2.0
 * The FMA throughput of one core with zmm registers: 24 independent chains
 * (more than latency x ports on any current core), so the loop runs at the
 * FMA ports' limit.  Returns the flops done (2 per lane per FMA). */
#include <immintrin.h>
#include <stddef.h>

double
bench_fma_loop_avx512(size_t iters, float *sink)
{
    __m512 acc[24];
    __m512 x = _mm512_set1_ps(1.0f + 1e-7f), y = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < 24; i++)
        acc[i] = _mm512_set1_ps((float)i);
    for (size_t it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < 24; i++)
            acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    }
    __m512 s = acc[0];
    for (int i = 1; i < 24; i++)
        s = _mm512_add_ps(s, acc[i]);
    *sink = _mm512_reduce_add_ps(s);
    return (double)iters * 24 * 16 * 2;
}
