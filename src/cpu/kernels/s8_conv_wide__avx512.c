/* SPDX-License-Identifier: Apache-2.0
 * fdnn_s8_conv_wide__avx512: the wide encoding (int16 pairs, vpmaddwd,
 * exact) on AVX-512 BW, for CPUs without VNNI.  See s8_conv.h. */
#include <immintrin.h>

#define S8_VEC __m512i
#define S8_VK 16
#define S8_MR 8
#define S8_ZERO() _mm512_setzero_si512()
#define S8_BCAST(p) _mm512_set1_epi32(fdnn_s8_load32(p))
#define S8_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define S8_DOT(acc, b, w) _mm512_add_epi32((acc), _mm512_madd_epi16((b), (w)))
#define S8_STORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define S8_FN fdnn_s8_conv_wide__avx512
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
