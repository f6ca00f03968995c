/* SPDX-License-Identifier: Apache-2.0
 * Row conversion float -> bfloat16 with AVX512-BF16 (convert_row.h):
 * vcvtne2ps2bf16 rounds 32 floats to nearest even in one instruction and
 * quiets NaNs as cpu/simd/cvt.h does, but it treats subnormal inputs as
 * zero (Intel's definition of the instruction: DAZ, whatever MXCSR says).
 * The contract keeps subnormals (cuda's __float2bfloat16_rn and PyTorch
 * do), so lanes holding a subnormal float take the integer rounding
 * instead; they are rare, and the check is one compare per vector.
 *
 * The file gets the AVX-512 flags from its name; the BF16 instructions are
 * enabled per function (target attribute), so no build flag is needed. */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/tensor/convert_row.h"
#include "cpu/tensor/convert_row_avx512.h"

/* AVX512-BF16 intrinsics: GCC 10, clang 9.  Older compilers build the
 * integer rounding of the AVX-512 path under this name (the same bits). */
#if (defined(__clang__) && __clang_major__ >= 9) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 10)
#define FDNN_HAVE_BF16_INTRINSICS 1
#else
#define FDNN_HAVE_BF16_INTRINSICS 0
#endif

#if FDNN_HAVE_BF16_INTRINSICS
#define BF16_TARGET __attribute__((target("avx512bf16")))

/* Lanes of u holding a subnormal float (exponent 0, fraction not 0). */
static inline __mmask16
subnormal_lanes(__m512i u)
{
    const __m512i abs = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
    return _mm512_cmplt_epu32_mask(_mm512_sub_epi32(abs, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x7fffff));
}

/* 16 floats -> 16 bfloat16 (the low half of a 512-bit register's worth). */
BF16_TARGET static inline __m256i
convert16(__m512i u)
{
    __m256i r = (__m256i)_mm512_cvtneps_pbh(_mm512_castsi512_ps(u));
    const __mmask16 sub = subnormal_lanes(u);
    if (sub != 0)
        r = _mm256_mask_blend_epi16(sub, r, _mm512_cvtepi32_epi16(fdnn_bf16_bits_avx512(u)));
    return r;
}

BF16_TARGET void
fdnn_convert_row_f32_bf16__avx512bf16(const void *src, void *dst, size_t n)
{
    const float *s = src;
    uint16_t *d = dst;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512i lo = _mm512_loadu_si512(s + i), hi = _mm512_loadu_si512(s + i + 16);
        /* the second operand gives the low 16 results */
        __m512i r = (__m512i)_mm512_cvtne2ps_pbh(_mm512_castsi512_ps(hi), _mm512_castsi512_ps(lo));
        const __mmask32 sub = (__mmask32)subnormal_lanes(lo) | (__mmask32)subnormal_lanes(hi) << 16;
        if (sub != 0) {
            const __m512i fix = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi32_epi16(fdnn_bf16_bits_avx512(lo))),
                                                   _mm512_cvtepi32_epi16(fdnn_bf16_bits_avx512(hi)), 1);
            r = _mm512_mask_blend_epi16(sub, r, fix);
        }
        _mm512_storeu_si512(d + i, r);
    }
    for (; i < n; i += 16) {
        const size_t left = n - i;
        const __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
        _mm256_mask_storeu_epi16(d + i, m, convert16(_mm512_maskz_loadu_epi32(m, s + i)));
    }
}
#else
void
fdnn_convert_row_f32_bf16__avx512bf16(const void *src, void *dst, size_t n)
{
    fdnn_convert_row_f32_bf16__avx512(src, dst, n);
}
#endif
