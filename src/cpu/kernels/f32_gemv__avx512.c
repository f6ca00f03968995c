/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dot_rows__avx512, fdnn_f32_axpy_rows__avx512 (gemv.h). */
#include <immintrin.h>

#include "cpu/kernels/gemv.h"

#define VL 16
#define VT __m512
#define MASK_T __mmask16
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define V_MASK(n) ((__mmask16)((1u << (n)) - 1u))
#define V_MLOADU(p, m) _mm512_maskz_loadu_ps(m, p)
#define V_MSTOREU(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define V_HSUM(v) hsum(v)
#define DOT_ROWS fdnn_f32_dot_rows__avx512
#define AXPY_ROWS fdnn_f32_axpy_rows__avx512

/* Halves added pairwise: 16 -> 8 -> 4 -> 2 -> 1, always the same tree. */
static inline float
hsum(__m512 v)
{
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    q = _mm_add_ss(q, _mm_shuffle_ps(q, q, 1));
    return _mm_cvtss_f32(q);
}

#include "cpu/kernels/gemv_simd.inc"
