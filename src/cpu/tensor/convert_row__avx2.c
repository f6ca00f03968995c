/* SPDX-License-Identifier: Apache-2.0
 * Row conversions, AVX2 + F16C (convert_row.h).  Half uses the F16C
 * instructions, whose results are the contract of cpu/simd/cvt.h:
 * vcvtps2ph with immediate 0 rounds to nearest even whatever MXCSR says
 * (and the float subnormals that DAZ would flush all round to a zero half
 * anyway); vcvtph2ps is exact and quiets a signalling NaN.  Bfloat16 is
 * the integer rounding of cvt.h on 8 lanes.  Tails (n % 8 or % 16) run
 * the scalar code of cvt.h, which gives the same bits.  bfloat16 -> float
 * is a shift, with a NaN made quiet. */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/simd/cvt.h"
#include "cpu/tensor/convert_row.h"

void
fdnn_convert_row_f32_f16__avx2(const void *src, void *dst, size_t n)
{
    const float *s = src;
    uint16_t *d = dst;
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(d + i), _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++)
        d[i] = fdnn_f32_to_f16(s[i]);
}

void
fdnn_convert_row_f16_f32__avx2(const void *src, void *dst, size_t n)
{
    const uint16_t *s = src;
    float *d = dst;
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))));
    for (; i < n; i++)
        d[i] = fdnn_f16_to_f32(s[i]);
}

/* The bfloat16 bits of 8 floats in the low 16 bits of each 32-bit lane:
 * (u + 0x7fff + lsb) >> 16, or (u >> 16) | 0x40 for a NaN (cvt.h). */
static inline __m256i
bf16_bits(__m256i u)
{
    const __m256i abs = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
    /* both sides are below 2^31, so the signed compare is the unsigned one */
    const __m256i nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000));
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    const __m256i rounded = _mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb));
    const __m256i quiet = _mm256_or_si256(u, _mm256_set1_epi32(0x400000));
    return _mm256_srli_epi32(_mm256_blendv_epi8(rounded, quiet, nan), 16);
}

void
fdnn_convert_row_f32_bf16__avx2(const void *src, void *dst, size_t n)
{
    const float *s = src;
    uint16_t *d = dst;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i lo = bf16_bits(_mm256_loadu_si256((const __m256i *)(s + i)));
        const __m256i hi = bf16_bits(_mm256_loadu_si256((const __m256i *)(s + i + 8)));
        /* packus works per 128-bit half (lo0 hi0 lo1 hi1); the permute puts
         * the quarters back in order.  Lanes hold 0..0xffff: no saturation. */
        const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
        _mm256_storeu_si256((__m256i *)(d + i), packed);
    }
    for (; i < n; i++)
        d[i] = fdnn_f32_to_bf16(s[i]);
}

void
fdnn_convert_row_bf16_f32__avx2(const void *src, void *dst, size_t n)
{
    const uint16_t *s = src;
    float *d = dst;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i u = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(s + i))), 16);
        /* a NaN comes back quiet (cvt.h) */
        const __m256i abs = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
        const __m256i nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000));
        _mm256_storeu_si256((__m256i *)(d + i), _mm256_or_si256(u, _mm256_and_si256(nan, _mm256_set1_epi32(0x400000))));
    }
    for (; i < n; i++)
        d[i] = fdnn_bf16_to_f32(s[i]);
}
