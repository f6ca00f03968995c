/* SPDX-License-Identifier: Apache-2.0
 * The float -> bfloat16 rounding of cpu/simd/cvt.h on 16 lanes, shared by
 * the AVX-512 row kernels (include only from files built with AVX-512). */
#ifndef FDNN_CPU_TENSOR_CONVERT_ROW_AVX512_H
#define FDNN_CPU_TENSOR_CONVERT_ROW_AVX512_H

#include <immintrin.h>

/* The bfloat16 bits of the floats whose bits are u, in the low 16 bits of
 * each lane: (u + 0x7fff + lsb) >> 16, or (u >> 16) | 0x40 for a NaN. */
static inline __m512i
fdnn_bf16_bits_avx512(__m512i u)
{
    const __m512i abs = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
    const __mmask16 nan = _mm512_cmpgt_epu32_mask(abs, _mm512_set1_epi32(0x7f800000));
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), lsb));
    const __m512i bits = _mm512_mask_or_epi32(rounded, nan, u, _mm512_set1_epi32(0x400000));
    return _mm512_srli_epi32(bits, 16);
}

#endif /* FDNN_CPU_TENSOR_CONVERT_ROW_AVX512_H */
