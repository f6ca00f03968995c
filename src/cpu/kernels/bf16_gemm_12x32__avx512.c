/* SPDX-License-Identifier: Apache-2.0
 * The BF16 GEMM microkernel on AVX-512 F without the BF16 extension: 12 x 32,
 * two FP32 FMAs per pair (24 accumulators, 4 B halves, 2 A broadcasts fit
 * the 32 registers), bitwise what vdpbf16ps computes. */
#include "cpu/kernels/bf16_gemm.h"
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_bf16_gemm_ukernel_12x32__avx512
#define MR 12
#define NV 2
#define VI __m512i
#define VI_LOAD(p) _mm512_load_si512((const void *)(p))
#define V_EVEN(x) _mm512_castsi512_ps(_mm512_slli_epi32(x, 16))
#define V_ODD(x) _mm512_castsi512_ps(_mm512_and_si512(x, _mm512_set1_epi32((int)0xffff0000u)))
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
