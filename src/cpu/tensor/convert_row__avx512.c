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
        __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, s + i), _MM_FROUND_TO_NEAREST_INT);
        /* Converted in a register, then stored: left alone the compiler
         * folds the store into vcvtps2ph's memory form, which AMD Zen 4/5
         * run microcoded, many times slower (perf: 77% of this loop on
         * that one instruction; a 14-element row 1 ns an element). */
        __asm__("" : "+v"(h));
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

/* 16 floats (bits u) -> their 16 bfloat16. */
static inline __m256i
bf16_of(__m512i u)
{
    /* vpmovdw keeps the low 16 bits of each lane: the bfloat16 */
    return _mm512_cvtepi32_epi16(fdnn_bf16_bits_avx512(u));
}

/* 16 bfloat16 -> their floats, a NaN made quiet (cvt.h). */
static inline __m512
f32_of_bf16(__m256i b)
{
    const __m512i u = _mm512_slli_epi32(_mm512_cvtepu16_epi32(b), 16);
    const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)),
                                                  _mm512_set1_epi32(0x7f800000));
    return _mm512_castsi512_ps(_mm512_mask_or_epi32(u, nan, u, _mm512_set1_epi32(0x400000)));
}

void
fdnn_convert_row_f32_bf16__avx512(const void *src, void *dst, size_t n)
{
    const float *s = src;
    uint16_t *d = dst;
    size_t i = 0;
    /* 32 at a time, unmasked: vpackusdw on two vectors beats two vpmovdw
     * (lanes hold 0..0xffff, so no saturation); it packs per 128-bit lane,
     * and the permute puts the 64-bit quarters back in order */
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    for (; i + 32 <= n; i += 32) {
        __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 16);
        /* Keep a and b in registers: GCC otherwise folds the four uses of
         * each into four memory operands, which measured 2x slower. */
        __asm__("" : "+v"(a), "+v"(b));
        const __m512i lo = fdnn_bf16_bits_avx512(a), hi = fdnn_bf16_bits_avx512(b);
        _mm512_storeu_si512(d + i, _mm512_permutexvar_epi64(order, _mm512_packus_epi32(lo, hi)));
    }
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(d + i), bf16_of(_mm512_loadu_si512(s + i)));
    if (i < n) {
        const __mmask16 m = tail_mask(n - i);
        _mm256_mask_storeu_epi16(d + i, m, bf16_of(_mm512_maskz_loadu_epi32(m, s + i)));
    }
}

void
fdnn_convert_row_bf16_f32__avx512(const void *src, void *dst, size_t n)
{
    const uint16_t *s = src;
    float *d = dst;
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(d + i, f32_of_bf16(_mm256_loadu_si256((const __m256i *)(s + i))));
    if (i < n) {
        const __mmask16 m = tail_mask(n - i);
        _mm512_mask_storeu_ps(d + i, m, f32_of_bf16(_mm256_maskz_loadu_epi16(m, s + i)));
    }
}
