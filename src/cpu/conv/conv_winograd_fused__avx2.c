/* SPDX-License-Identifier: Apache-2.0
 * fdnn_wino_fused_block__avx2 (conv_winograd_engine.h): 3 rows x 4 vectors
 * of 8 tiles per product step (12 accumulators). */
#include <immintrin.h>

#define VL 8
#define VT __m256
#define V_ZERO() _mm256_setzero_ps()
#define V_SET1(x) _mm256_set1_ps(x)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define KR 3
#define BLOCK_FN fdnn_wino_fused_block__avx2
#include "cpu/conv/conv_winograd_fused.inc"
