/* SPDX-License-Identifier: Apache-2.0
 * fdnn_wino_bwdf_kernels__avx2 (conv_winograd_engine.h): the product in
 * steps of 3 output channels x 4 vectors of 8 input channels (12
 * accumulators). */
#include <immintrin.h>

#define VL 8
#define VT __m256
#define V_ZERO() _mm256_setzero_ps()
#define V_SET1(x) _mm256_set1_ps(x)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_ADD(a, b) _mm256_add_ps(a, b)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define KR 3
#define NV 4
#define KERNELS fdnn_wino_bwdf_kernels__avx2
#include "cpu/conv/conv_winograd_bwd_filter43.inc"
