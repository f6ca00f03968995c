/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dwcb_{rows,grad}__avx512 (dwconv_cb.h): a channel block per zmm,
 * tiles of 16 zmm accumulators. */
#include <immintrin.h>

#define CB_ROWS_FN fdnn_f32_dwcb_rows__avx512
#define CB_GRAD_FN fdnn_f32_dwcb_grad__avx512
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
#include "cpu/kernels/dwconv_cb_simd.inc"
