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
    /* all ones in the NaN lanes: 0x7f800000 - abs is negative exactly for
     * them (a vector mask, not a k-mask: compares into k registers and
     * masked ops measured slower on the AMD Zen 5 this was tuned on) */
    const __m512i nan = _mm512_srai_epi32(_mm512_sub_epi32(_mm512_set1_epi32(0x7f800000), abs), 31);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), lsb));
    const __m512i quiet = _mm512_or_si512(u, _mm512_set1_epi32(0x400000));
    /* nan ? quiet : rounded (vpternlogd 0xca: bitwise select by the first operand) */
    return _mm512_srli_epi32(_mm512_ternarylogic_epi32(nan, quiet, rounded, 0xca), 16);
}

#endif /* FDNN_CPU_TENSOR_CONVERT_ROW_AVX512_H */
