/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_conv_direct_ukernel__avx2 (conv_direct.h): up to 6 pixels x 1
 * block of 16 output channels (2 ymm): 12 accumulators + 2 weight vectors +
 * 1 broadcast of the 16 ymm registers. */
#include <immintrin.h>

#include "cpu/kernels/conv_direct.h"

#define UKERNEL fdnn_f32_conv_direct_ukernel__avx2
#define UR FDNN_AVX2_CONV_DIRECT_UR
#define NKB FDNN_AVX2_CONV_DIRECT_NKB
#define VL 8
#define VT __m256
#define V_ZERO() _mm256_setzero_ps()
#define V_SET1(x) _mm256_set1_ps(x)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#include "cpu/kernels/conv_direct_simd.inc"
