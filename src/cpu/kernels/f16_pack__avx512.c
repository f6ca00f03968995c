/* SPDX-License-Identifier: Apache-2.0
 * The AVX-512 converting packs (see f16_pack.h): the FP32 packs' moves with
 * each 16-lane load a masked 16-bit load widened by vcvtph2ps (exact; masked
 * lanes are never accessed and read as +0). */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/f16_pack.h"
#include "cpu/kernels/transpose_f32_avx512.h"

static inline __mmask16
lanes_below(size_t n)
{
    return (__mmask16)((1u << (n < 16 ? n : 16)) - 1u);
}

/* 16 halves (lanes of `mask`, the rest +0) as floats. */
static inline __m512
load16(__mmask16 mask, const uint16_t *s)
{
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, s));
}

void
fdnn_f16_pack_t__avx512(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst, size_t dst_rows)
{
    assert(rows <= dst_rows && dst_rows <= 64);
    for (size_t r0 = 0; r0 < dst_rows; r0 += 16) {
        size_t lanes = dst_rows - r0 < 16 ? dst_rows - r0 : 16;
        size_t valid = rows > r0 ? (rows - r0 < 16 ? rows - r0 : 16) : 0;
        __mmask16 store_mask = lanes_below(lanes);
        for (size_t c0 = 0; c0 < cols; c0 += 16) {
            size_t cc = cols - c0 < 16 ? cols - c0 : 16;
            __mmask16 load_mask = lanes_below(cc);
            __m512 v[16];
#pragma GCC unroll 16
            for (size_t r = 0; r < 16; r++)
                v[r] = r < valid ? load16(load_mask, src + (r0 + r) * src_ld + c0) : _mm512_setzero_ps();
            transpose16(v);
            float *d = dst + c0 * dst_rows + r0;
#pragma GCC unroll 16
            for (size_t c = 0; c < 16; c++)
                if (c < cc)
                    _mm512_mask_storeu_ps(d + c * dst_rows, store_mask, v[c]);
        }
    }
}

void
fdnn_f16_pack_n__avx512(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst, size_t width)
{
    assert(width >= 1 && width <= 64);
    size_t strips = (cols + width - 1) / width;
    size_t strip_elems = rows * width;
    size_t pieces = (width + 15) / 16;
    size_t last = cols - (strips - 1) * width;
    __mmask16 store[4], part[4];
    for (size_t q = 0; q < pieces; q++) {
        store[q] = lanes_below(width - 16 * q);
        part[q] = lanes_below(last > 16 * q ? last - 16 * q : 0);
    }
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *s = src + r * src_ld;
        float *d = dst + r * width;
        for (size_t t = 0; t < strips; t++, s += width, d += strip_elems) {
            const __mmask16 *load = t + 1 == strips ? part : store;
            for (size_t q = 0; q < pieces; q++)
                _mm512_mask_storeu_ps(d + 16 * q, store[q], load16(load[q], s + 16 * q));
        }
    }
}

/* Strip layout of fdnn_f32_pack_b49__avx512 (f32_gemm_arows_6x49__avx512.c):
 * per strip of 49 columns, rows x 48 (k-major), then column 48 as rows
 * contiguous floats. */
void
fdnn_f16_pack_b49__avx512(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst, size_t width)
{
    assert(width == 49);
    (void)width;
    size_t strips = (cols + 48) / 49;
    for (size_t t = 0; t < strips; t++) {
        size_t valid = cols - t * 49 < 49 ? cols - t * 49 : 49;
        size_t w = valid < 48 ? valid : 48;
        __mmask16 m[3];
        for (int v = 0; v < 3; v++)
            m[v] = lanes_below(w > (size_t)v * 16 ? w - (size_t)v * 16 : 0);
        float *d = dst + t * 49 * rows, *dcol = d + 48 * rows;
        const uint16_t *s = src + t * 49;
        for (size_t r = 0; r < rows; r++, s += src_ld, d += 48) {
            for (int v = 0; v < 3; v++)
                _mm512_storeu_ps(d + 16 * v, load16(m[v], s + 16 * v));
            dcol[r] = valid == 49 ? _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(s[48]))) : 0.0f;
        }
    }
}

void
fdnn_f16_rows__avx512(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst, size_t dst_ld)
{
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *s = src + r * src_ld;
        float *d = dst + r * dst_ld;
        size_t c = 0;
        for (; c + 16 <= cols; c += 16)
            _mm512_storeu_ps(d + c, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(s + c))));
        if (c < cols)
            _mm512_mask_storeu_ps(d + c, lanes_below(cols - c), load16(lanes_below(cols - c), s + c));
    }
}
