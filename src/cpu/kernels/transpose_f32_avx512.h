/* SPDX-License-Identifier: Apache-2.0
 * The 16 x 16 float transpose in AVX-512 registers shared by the AVX-512
 * packs (f32_pack_t__avx512.c, and f16_pack__avx512.c after its widening
 * loads): unpack pairs, then 64-bit pairs, then 128-bit lanes.  Include
 * only from files built with AVX-512. */
#ifndef FDNN_CPU_KERNELS_TRANSPOSE_F32_AVX512_H
#define FDNN_CPU_KERNELS_TRANSPOSE_F32_AVX512_H

#include <immintrin.h>

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

#endif /* FDNN_CPU_KERNELS_TRANSPOSE_F32_AVX512_H */
