/* SPDX-License-Identifier: Apache-2.0
 * The vdpbf16ps throughput of one core: 24 independent chains, as the FMA
 * loop of peak__avx512.c.  Returns the flops done (4 per lane: two
 * multiply-adds).  The caller checks the CPU's avx512_bf16 flag. */
#include <immintrin.h>
#include <stddef.h>

__attribute__((target("avx512bf16"))) double
bench_dpbf16_loop_avx512(size_t iters, float *sink)
{
    __m512 acc[24];
    __m512bh x = (__m512bh)_mm512_set1_epi32(0x3f803f80), y = (__m512bh)_mm512_set1_epi32(0x33d633d6);
    for (int i = 0; i < 24; i++)
        acc[i] = _mm512_set1_ps((float)i);
    for (size_t it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < 24; i++)
            acc[i] = _mm512_dpbf16_ps(acc[i], x, y);
    }
    __m512 s = acc[0];
    for (int i = 1; i < 24; i++)
        s = _mm512_add_ps(s, acc[i]);
    *sink = _mm512_reduce_add_ps(s);
    return (double)iters * 24 * 16 * 4;
}
