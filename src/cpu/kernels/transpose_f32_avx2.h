/* SPDX-License-Identifier: Apache-2.0
 * The 8 x 8 float transpose in AVX registers shared by the AVX2 packs
 * (f32_pack_t__avx2.c, and f16_pack__avx2.c after its widening loads).
 * Include only from files built with AVX2. */
#ifndef FDNN_CPU_KERNELS_TRANSPOSE_F32_AVX2_H
#define FDNN_CPU_KERNELS_TRANSPOSE_F32_AVX2_H

#include <immintrin.h>

/* In place: v[r] lane c becomes v[c] lane r. */
static inline void
transpose8(__m256 v[8])
{
    __m256 t[8], u[8];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(v[2 * i], v[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(v[2 * i], v[2 * i + 1]);
    }
    /* u[4j + q], 128-bit half L: column 4L + q of rows 4j .. 4j+3. */
#pragma GCC unroll 2
    for (int j = 0; j < 2; j++) {
        u[4 * j] = _mm256_shuffle_ps(t[4 * j], t[4 * j + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * j + 1] = _mm256_shuffle_ps(t[4 * j], t[4 * j + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[4 * j + 2] = _mm256_shuffle_ps(t[4 * j + 1], t[4 * j + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * j + 3] = _mm256_shuffle_ps(t[4 * j + 1], t[4 * j + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        v[q] = _mm256_permute2f128_ps(u[q], u[4 + q], 0x20);
        v[4 + q] = _mm256_permute2f128_ps(u[q], u[4 + q], 0x31);
    }
}

#endif /* FDNN_CPU_KERNELS_TRANSPOSE_F32_AVX2_H */
