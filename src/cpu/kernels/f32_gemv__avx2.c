/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dot_rows__avx2, fdnn_f32_axpy_rows__avx2 (gemv.h). */
#include <immintrin.h>

#include "cpu/kernels/gemv.h"

#define VL 8
#define VT __m256
#define MASK_T __m256i
#define V_ZERO() _mm256_setzero_ps()
#define V_SET1(x) _mm256_set1_ps(x)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define V_MASK(n) _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define V_MLOADU(p, m) _mm256_maskload_ps(p, m)
#define V_MSTOREU(p, m, v) _mm256_maskstore_ps(p, m, v)
#define V_HSUM(v) hsum(v)
#define DOT_ROWS fdnn_f32_dot_rows__avx2
#define AXPY_ROWS fdnn_f32_axpy_rows__avx2

/* Halves added pairwise: 8 -> 4 -> 2 -> 1, always the same tree. */
static inline float
hsum(__m256 v)
{
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    q = _mm_add_ss(q, _mm_shuffle_ps(q, q, 1));
    return _mm_cvtss_f32(q);
}

#include "cpu/kernels/gemv_simd.inc"
