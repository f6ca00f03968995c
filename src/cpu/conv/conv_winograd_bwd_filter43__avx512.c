/* SPDX-License-Identifier: Apache-2.0
 * fdnn_wino_bwdf_kernels__avx512 (conv_winograd_engine.h): the product in
 * steps of 6 output channels x 4 vectors of 16 input channels (24
 * accumulators). */
#include <immintrin.h>

#include "cpu/kernels/transpose_f32_avx512.h"

#define VL 16
#define VT __m512
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_ADD(a, b) _mm512_add_ps(a, b)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define KR 6
#define NV 4
#define WINO_AVX512 1 /* x patches gathered and stored through 16x16 transposes */
#define KERNELS fdnn_wino_bwdf_kernels__avx512
#include "cpu/conv/conv_winograd_bwd_filter43.inc"
