/* SPDX-License-Identifier: Apache-2.0
 * Row conversions, AVX-512 F/BW/VL (convert_row.h): 16 lanes, tails with
 * masked loads and stores (nothing outside the rows is touched).  Half as
 * the F16C path (vcvtps2ph immediate 0 = nearest even, vcvtph2ps); float
 * -> bfloat16 by the integer rounding of cpu/simd/cvt.h.  The AVX512-BF16
 * instruction lives in convert_row__avx512bf16.c. */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/tensor/convert_row.h"
#include "cpu/tensor/convert_row_avx512.h"

static inline __mmask16
tail_mask(size_t left)
{
    return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
}

void
fdnn_convert_row_f32_f16__avx512(const void *src, void *dst, size_t n)
{
    const float *s = src;
    uint16_t *d = dst;
    for (size_t i = 0; i < n; i += 16) {
        const __mmask16 m = tail_mask(n - i);
        const __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, s + i), _MM_FROUND_TO_NEAREST_INT);
        _mm256_mask_storeu_epi16(d + i, m, h);
    }
}

void
fdnn_convert_row_f16_f32__avx512(const void *src, void *dst, size_t n)
{
    const uint16_t *s = src;
    float *d = dst;
    for (size_t i = 0; i < n; i += 16) {
        const __mmask16 m = tail_mask(n - i);
        _mm512_mask_storeu_ps(d + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, s + i)));
    }
}

void
fdnn_convert_row_f32_bf16__avx512(const void *src, void *dst, size_t n)
{
    const float *s = src;
    uint16_t *d = dst;
    for (size_t i = 0; i < n; i += 16) {
        const __mmask16 m = tail_mask(n - i);
        const __m512i u = _mm512_maskz_loadu_epi32(m, s + i);
        /* vpmovdw keeps the low 16 bits of each lane: the bfloat16 */
        _mm256_mask_storeu_epi16(d + i, m, _mm512_cvtepi32_epi16(fdnn_bf16_bits_avx512(u)));
    }
}

void
fdnn_convert_row_bf16_f32__avx512(const void *src, void *dst, size_t n)
{
    const uint16_t *s = src;
    float *d = dst;
    for (size_t i = 0; i < n; i += 16) {
        const __mmask16 m = tail_mask(n - i);
        const __m512i u = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, s + i)), 16);
        /* a NaN comes back quiet (cvt.h) */
        const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)),
                                                      _mm512_set1_epi32(0x7f800000));
        _mm512_mask_storeu_epi32(d + i, m, _mm512_mask_or_epi32(u, nan, u, _mm512_set1_epi32(0x400000)));
    }
}
