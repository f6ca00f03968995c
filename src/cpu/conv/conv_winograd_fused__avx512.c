/* SPDX-License-Identifier: Apache-2.0
 * fdnn_wino_fused_block__avx512 (conv_winograd_engine.h): 12 rows x one
 * vector of 16 tiles per product step (12 accumulators). */
#include <immintrin.h>

#define VL 16
#define VT __m512
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define KR 12
#define BLOCK_FN fdnn_wino_fused_block__avx512
#include "cpu/conv/conv_winograd_fused.inc"
