/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dwcb_{rows,grad}__avx2 (dwconv_cb.h): a channel block in two
 * ymm, tiles of 4 positions. */
#include <immintrin.h>

#define CB_ROWS_FN fdnn_f32_dwcb_rows__avx2
#define CB_GRAD_FN fdnn_f32_dwcb_grad__avx2
#define CB_GATHER_FN fdnn_f32_dwcb_gather__avx2
#define VL 8
#define VT __m256
#define V_ZERO() _mm256_setzero_ps()
#define V_SET1(x) _mm256_set1_ps(x)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define V_MUL(a, b) _mm256_mul_ps(a, b)
#define V_ADD(a, b) _mm256_add_ps(a, b)
#define V_RELU(v) _mm256_blendv_ps(v, _mm256_setzero_ps(), _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LE_OQ))
#define CB_MASK(n) _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define V_LOAD_N(p, n) _mm256_maskload_ps(p, CB_MASK(n))
#define V_STORE_N(p, v, n) _mm256_maskstore_ps(p, CB_MASK(n), v)
#define CB_ACC 8
#include "cpu/kernels/dwconv_cb_simd.inc"
