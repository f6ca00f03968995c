/* SPDX-License-Identifier: Apache-2.0
 * The AVX2 + F16C converting packs (see f16_pack.h): 8 halves widened by
 * vcvtph2ps per move; a part of 8 at an edge is copied into a zeroed
 * 8-element block first (AVX2 has no masked 16-bit load), so nothing
 * outside the source elements is read. */
#include <assert.h>
#include <immintrin.h>
#include <string.h>

#include "cpu/kernels/f16_pack.h"
#include "cpu/kernels/transpose_f32_avx2.h"

static inline __m256i
lanes_below(size_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n < 8 ? n : 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The first n (<= 8) halves at s as floats, the other lanes +0. */
static inline __m256
load8(const uint16_t *s, size_t n)
{
    if (n >= 8)
        return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)s));
    uint16_t t[8] = {0};
    if (n > 0)
        memcpy(t, s, n * sizeof(uint16_t));
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)t));
}

void
fdnn_f16_pack_t__avx2(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst, size_t dst_rows)
{
    assert(rows <= dst_rows && dst_rows <= 64);
    for (size_t r0 = 0; r0 < dst_rows; r0 += 8) {
        size_t lanes = dst_rows - r0 < 8 ? dst_rows - r0 : 8;
        size_t valid = rows > r0 ? (rows - r0 < 8 ? rows - r0 : 8) : 0;
        __m256i store_mask = lanes_below(lanes);
        for (size_t c0 = 0; c0 < cols; c0 += 8) {
            size_t cc = cols - c0 < 8 ? cols - c0 : 8;
            __m256 v[8];
#pragma GCC unroll 8
            for (size_t r = 0; r < 8; r++)
                v[r] = r < valid ? load8(src + (r0 + r) * src_ld + c0, cc) : _mm256_setzero_ps();
            transpose8(v);
            float *d = dst + c0 * dst_rows + r0;
#pragma GCC unroll 8
            for (size_t c = 0; c < 8; c++)
                if (c < cc)
                    _mm256_maskstore_ps(d + c * dst_rows, store_mask, v[c]);
        }
    }
}

void
fdnn_f16_pack_n__avx2(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst, size_t width)
{
    assert(width >= 1 && width <= 64);
    size_t strips = (cols + width - 1) / width;
    size_t strip_elems = rows * width;
    size_t pieces = (width + 7) / 8;
    size_t last = cols - (strips - 1) * width;
    __m256i store[8];
    size_t full[8], part[8]; /* halves read per piece: inner strips, last strip */
    for (size_t q = 0; q < pieces; q++) {
        store[q] = lanes_below(width - 8 * q);
        full[q] = width - 8 * q < 8 ? width - 8 * q : 8;
        part[q] = last > 8 * q ? (last - 8 * q < 8 ? last - 8 * q : 8) : 0;
    }
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *s = src + r * src_ld;
        float *d = dst + r * width;
        for (size_t t = 0; t < strips; t++, s += width, d += strip_elems) {
            const size_t *load = t + 1 == strips ? part : full;
            for (size_t q = 0; q < pieces; q++)
                _mm256_maskstore_ps(d + 8 * q, store[q], load8(s + 8 * q, load[q]));
        }
    }
}

void
fdnn_f16_rows__avx2(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst, size_t dst_ld)
{
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *s = src + r * src_ld;
        float *d = dst + r * dst_ld;
        size_t c = 0;
        for (; c + 8 <= cols; c += 8)
            _mm256_storeu_ps(d + c, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + c))));
        if (c < cols)
            _mm256_maskstore_ps(d + c, lanes_below(cols - c), load8(s + c, cols - c));
    }
}
