/* SPDX-License-Identifier: Apache-2.0
 * The BF16 GEMM microkernel on AVX2 + FMA: 4 x 16, two FP32 FMAs per pair
 * (8 accumulators, 4 B halves, 2 A broadcasts in the 16 registers),
 * bitwise what vdpbf16ps computes. */
#include "cpu/kernels/bf16_gemm.h"
#include "cpu/kernels/gemm_vec_f32_avx2.h"

#define UKERNEL fdnn_bf16_gemm_ukernel_4x16__avx2
#define MR 4
#define NV 2
#define VI __m256i
#define VI_LOAD(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define V_EVEN(x) _mm256_castsi256_ps(_mm256_slli_epi32(x, 16))
#define V_ODD(x) _mm256_castsi256_ps(_mm256_and_si256(x, _mm256_set1_epi32((int)0xffff0000u)))
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
