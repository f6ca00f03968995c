/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dwcb_{rows,grad}__avx512 (dwconv_cb.h): a channel block per zmm,
 * tiles of 16 zmm accumulators; the plane packs by 16 x 16 transposes in
 * registers. */
#include <immintrin.h>

#define CB_ROWS_FN fdnn_f32_dwcb_rows__avx512
#define CB_GRAD_FN fdnn_f32_dwcb_grad__avx512
#define CB_GATHER_FN fdnn_f32_dwcb_gather__avx512
#define VL 16
#define VT __m512
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define V_MUL(a, b) _mm512_mul_ps(a, b)
#define V_ADD(a, b) _mm512_add_ps(a, b)
#define V_RELU(v) _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LE_OQ), v, _mm512_setzero_ps())
#define CB_MASK(n) ((__mmask16)((1u << (n)) - 1u))
#define V_LOAD_N(p, n) _mm512_maskz_loadu_ps(CB_MASK(n), p)
#define V_STORE_N(p, v, n) _mm512_mask_storeu_ps(p, CB_MASK(n), v)
#define CB_ACC 16
#define CB_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#include "cpu/kernels/dwconv_cb_simd.inc"

#include "cpu/kernels/transpose_f32_avx512.h"

/* 16 positions of 16 channel planes per transpose: channel c's positions
 * p0 .. p0+n-1 (masked loads: channels past nc and positions past n read
 * zeros) become position vectors of 16 channels. */
void
fdnn_f32_dwcb_pack__avx512(const float *src, int64_t cs, size_t hw, size_t nc, float *dst)
{
    for (size_t c0 = 0; c0 < nc; c0 += 16) {
        size_t nb = nc - c0 < 16 ? nc - c0 : 16;
        float *d = dst + c0 / 16 * hw * 16;
        for (size_t p0 = 0; p0 < hw; p0 += 16) {
            size_t n = hw - p0 < 16 ? hw - p0 : 16;
            __mmask16 m = CB_MASK(n);
            __m512 v[16];
            for (size_t c = 0; c < 16; c++)
                v[c] = c < nb ? _mm512_maskz_loadu_ps(m, src + (int64_t)(c0 + c) * cs + (int64_t)p0) : _mm512_setzero_ps();
            transpose16(v);
            for (size_t p = 0; p < n; p++)
                _mm512_storeu_ps(d + (p0 + p) * 16, v[p]);
        }
    }
}

void
fdnn_f32_dwcb_unpack__avx512(const float *src, size_t hw, size_t nc, float *dst, int64_t cs)
{
    for (size_t c0 = 0; c0 < nc; c0 += 16) {
        size_t nb = nc - c0 < 16 ? nc - c0 : 16;
        const float *s = src + c0 / 16 * hw * 16;
        for (size_t p0 = 0; p0 < hw; p0 += 16) {
            size_t n = hw - p0 < 16 ? hw - p0 : 16;
            __mmask16 m = CB_MASK(n);
            __m512 v[16];
            for (size_t p = 0; p < 16; p++)
                v[p] = p < n ? _mm512_loadu_ps(s + (p0 + p) * 16) : _mm512_setzero_ps();
            transpose16(v);
            for (size_t c = 0; c < nb; c++)
                _mm512_mask_storeu_ps(dst + (int64_t)(c0 + c) * cs + (int64_t)p0, m, v[c]);
        }
    }
}
