/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_conv_direct_ukernel__avx512 (conv_direct.h): up to 14 pixels x
 * 2 blocks of 16 output channels, one zmm per (pixel, block): 28
 * accumulators + 2 weight vectors + 1 broadcast of the 32 zmm registers.
 * Per input channel 28 FMAs against 2 loads and 14 broadcasts, which keeps
 * both FMA pipes busy. */
#include <immintrin.h>

#include "cpu/kernels/conv_direct.h"

#define UKERNEL fdnn_f32_conv_direct_ukernel__avx512
#define PACK16 fdnn_f32_conv_direct_pack16__avx512
#define UR FDNN_AVX512_CONV_DIRECT_UR
#define NKB FDNN_AVX512_CONV_DIRECT_NKB
#define VL 16
#define VT __m512
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define V_STORE_N(p, v, n) _mm512_mask_storeu_ps(p, (__mmask16)((1u << (n)) - 1u), v)
#define V_LOAD_N(p, n) _mm512_maskz_loadu_ps((__mmask16)((1u << (n)) - 1u), p)
#define V_TRANSPOSE(r) transpose16(r)

#define PD(v) _mm512_castps_pd(v)
#define PS(v) _mm512_castpd_ps(v)

/* r[i][l] -> r[l][i] for a 16 x 16 block: pairs, then quads within 128-bit
 * lanes, then the 128-bit lanes across registers. */
static inline __attribute__((always_inline)) void
transpose16(__m512 r[16])
{
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    /* u[4q + c]: columns c, c+4, c+8, c+12 (one per 128-bit lane) of rows
     * 4q..4q+3. */
    for (int q = 0; q < 16; q += 4) {
        u[q] = PS(_mm512_unpacklo_pd(PD(t[q]), PD(t[q + 2])));
        u[q + 1] = PS(_mm512_unpackhi_pd(PD(t[q]), PD(t[q + 2])));
        u[q + 2] = PS(_mm512_unpacklo_pd(PD(t[q + 1]), PD(t[q + 3])));
        u[q + 3] = PS(_mm512_unpackhi_pd(PD(t[q + 1]), PD(t[q + 3])));
    }
    for (int c = 0; c < 4; c++) {
        __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44), v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xee);
        __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44), v3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xee);
        r[c] = _mm512_shuffle_f32x4(v0, v2, 0x88);
        r[c + 4] = _mm512_shuffle_f32x4(v0, v2, 0xdd);
        r[c + 8] = _mm512_shuffle_f32x4(v1, v3, 0x88);
        r[c + 12] = _mm512_shuffle_f32x4(v1, v3, 0xdd);
    }
}
#include "cpu/kernels/conv_direct_simd.inc"
