/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dwconv_{rows,grad}__avx2 (dwconv.h): 8 positions per ymm, tiles
 * of 8 ymm accumulators. */
#include <immintrin.h>

#define ROWS_FN fdnn_f32_dwconv_rows__avx2
#define GRAD_FN fdnn_f32_dwconv_grad__avx2
#define VL 8
#define VT __m256
#define V_ZERO() _mm256_setzero_ps()
#define V_SET1(x) _mm256_set1_ps(x)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define V_LOAD_N(p, n)                                                                                         \
    _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)))
#include "cpu/kernels/dwconv_simd.inc"
