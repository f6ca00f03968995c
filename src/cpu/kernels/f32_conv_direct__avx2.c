/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_conv_direct_ukernel__avx2 (conv_direct.h): up to 6 pixels x 1
 * block of 16 output channels (2 ymm): 12 accumulators + 2 weight vectors +
 * 1 broadcast of the 16 ymm registers. */
#include <immintrin.h>

#include "cpu/kernels/conv_direct.h"

#define UKERNEL fdnn_f32_conv_direct_ukernel__avx2
#define PACK16 fdnn_f32_conv_direct_pack16__avx2
#define UR FDNN_AVX2_CONV_DIRECT_UR
#define NKB FDNN_AVX2_CONV_DIRECT_NKB
#define VL 8
#define VT __m256
#define V_ZERO() _mm256_setzero_ps()
#define V_SET1(x) _mm256_set1_ps(x)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define V_STORE_N(p, v, n)                                                                                     \
    _mm256_maskstore_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)), v)
#define V_LOAD_N(p, n)                                                                                         \
    _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)))
#define V_TRANSPOSE(r) transpose8(r)

#define PD(v) _mm256_castps_pd(v)
#define PS(v) _mm256_castpd_ps(v)

/* r[i][l] -> r[l][i] for an 8 x 8 block: pairs, quads within 128-bit lanes,
 * then the 128-bit lanes across registers. */
static inline __attribute__((always_inline)) void
transpose8(__m256 r[8])
{
    __m256 t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    /* u[4q + c]: columns c and c+4 of rows 4q..4q+3. */
    for (int q = 0; q < 8; q += 4) {
        u[q] = PS(_mm256_unpacklo_pd(PD(t[q]), PD(t[q + 2])));
        u[q + 1] = PS(_mm256_unpackhi_pd(PD(t[q]), PD(t[q + 2])));
        u[q + 2] = PS(_mm256_unpacklo_pd(PD(t[q + 1]), PD(t[q + 3])));
        u[q + 3] = PS(_mm256_unpackhi_pd(PD(t[q + 1]), PD(t[q + 3])));
    }
    for (int c = 0; c < 4; c++) {
        r[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
        r[c + 4] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
    }
}
#include "cpu/kernels/conv_direct_simd.inc"
