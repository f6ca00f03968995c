/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dwconv_{rows,grad}__avx512 (dwconv.h): 16 positions per zmm,
 * tiles of 8 zmm accumulators. */
#include <immintrin.h>

#define ROWS_FN fdnn_f32_dwconv_rows__avx512
#define GRAD_FN fdnn_f32_dwconv_grad__avx512
#define VL 16
#define VT __m512
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define V_LOAD_N(p, n) _mm512_maskz_loadu_ps((__mmask16)((1u << (n)) - 1u), p)
#include "cpu/kernels/dwconv_simd.inc"
