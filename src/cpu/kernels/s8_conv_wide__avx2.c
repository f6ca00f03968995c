/* SPDX-License-Identifier: Apache-2.0
 * fdnn_s8_conv_wide__avx2: the wide encoding (int16 pairs, vpmaddwd,
 * exact; not vpmaddubsw, whose int16 sums saturate) on AVX2.  See
 * s8_conv.h. */
#include <immintrin.h>

#define S8_VEC __m256i
#define S8_VK 8
#define S8_MR 6
#define S8_ZERO() _mm256_setzero_si256()
#define S8_BCAST(p) _mm256_set1_epi32(fdnn_s8_load32(p))
#define S8_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define S8_DOT(acc, b, w) _mm256_add_epi32((acc), _mm256_madd_epi16((b), (w)))
#define S8_STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define S8_FN fdnn_s8_conv_wide__avx2
#define S8_ATTR

#include <stdint.h>
#include <string.h>

static inline int32_t
fdnn_s8_load32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

#include "cpu/kernels/s8_conv_simd.inc"
