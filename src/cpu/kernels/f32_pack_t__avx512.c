/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_pack_t__avx512: the transposing pack (see gemm_ukernel.h) by
 * 16 x 16 blocks transposed in registers: 16 masked row loads, 64 shuffles,
 * up to 16 masked stores.  About four times the speed of the scalar loop,
 * which matters when n (or m) is small and packing is a visible share of the
 * work (the res5 convolutions of ResNet-50 have n = 49). */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

/* In place: v[r] lane c becomes v[c] lane r. */
static inline void
transpose16(__m512 v[16])
{
    __m512 t[16], u[16];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]);
    }
    /* u[4j + q], 128-bit lane L: column 4L + q of rows 4j .. 4j+3. */
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        __m512d t0 = _mm512_castps_pd(t[4 * j]), t1 = _mm512_castps_pd(t[4 * j + 1]);
        __m512d t2 = _mm512_castps_pd(t[4 * j + 2]), t3 = _mm512_castps_pd(t[4 * j + 3]);
        u[4 * j] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
        u[4 * j + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
        u[4 * j + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
        u[4 * j + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
    }
    /* For each q, a 4 x 4 transpose of 128-bit lanes gathers column 4L + q. */
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        __m512 s0 = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(1, 0, 1, 0));
        __m512 s1 = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(3, 2, 3, 2));
        __m512 s2 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], _MM_SHUFFLE(1, 0, 1, 0));
        __m512 s3 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], _MM_SHUFFLE(3, 2, 3, 2));
        v[q] = _mm512_shuffle_f32x4(s0, s2, _MM_SHUFFLE(2, 0, 2, 0));
        v[4 + q] = _mm512_shuffle_f32x4(s0, s2, _MM_SHUFFLE(3, 1, 3, 1));
        v[8 + q] = _mm512_shuffle_f32x4(s1, s3, _MM_SHUFFLE(2, 0, 2, 0));
        v[12 + q] = _mm512_shuffle_f32x4(s1, s3, _MM_SHUFFLE(3, 1, 3, 1));
    }
}

void
fdnn_f32_pack_t__avx512(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t dst_rows)
{
    assert(rows <= dst_rows && dst_rows <= 64);
    for (size_t r0 = 0; r0 < dst_rows; r0 += 16) {
        size_t lanes = dst_rows - r0 < 16 ? dst_rows - r0 : 16;              /* rows stored */
        size_t valid = rows > r0 ? (rows - r0 < 16 ? rows - r0 : 16) : 0;    /* rows loaded */
        __mmask16 store_mask = (__mmask16)((1u << lanes) - 1u);
        for (size_t c0 = 0; c0 < cols; c0 += 16) {
            size_t cc = cols - c0 < 16 ? cols - c0 : 16;
            __mmask16 load_mask = (__mmask16)((1u << cc) - 1u);
            __m512 v[16];
#pragma GCC unroll 16
            for (size_t r = 0; r < 16; r++) {
                if (r < valid) {
                    v[r] = _mm512_maskz_loadu_ps(load_mask, src + (r0 + r) * src_ld + c0);
                } else {
                    v[r] = _mm512_setzero_ps();
                }
            }
            transpose16(v);
            float *d = dst + c0 * dst_rows + r0;
            /* Constant indices only, so v[] stays in registers. */
#pragma GCC unroll 16
            for (size_t c = 0; c < 16; c++)
                if (c < cc)
                    _mm512_mask_storeu_ps(d + c * dst_rows, store_mask, v[c]);
        }
    }
}
