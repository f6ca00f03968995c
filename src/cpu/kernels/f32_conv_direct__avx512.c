/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_conv_direct_ukernel__avx512 (conv_direct.h): up to 14 pixels x
 * 2 blocks of 16 output channels, one zmm per (pixel, block): 28
 * accumulators + 2 weight vectors + 1 broadcast of the 32 zmm registers.
 * Per input channel 28 FMAs against 2 loads and 14 broadcasts, which keeps
 * both FMA pipes busy. */
#include <immintrin.h>

#include "cpu/kernels/conv_direct.h"

#define UKERNEL fdnn_f32_conv_direct_ukernel__avx512
#define UR FDNN_AVX512_CONV_DIRECT_UR
#define NKB FDNN_AVX512_CONV_DIRECT_NKB
#define VL 16
#define VT __m512
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#include "cpu/kernels/conv_direct_simd.inc"
