/* SPDX-License-Identifier: Apache-2.0
 * Row-tail twins of the 14-row vdpbf16ps kernels reading A in place
 * (bf16_gemm_arows_14x32): 2, 4, .., 12 rows of 32 columns.  A
 * 14-row kernel called for the last r < 14 rows of a product still does 14
 * rows of work (rows past mr repeat the last one); the native BF16
 * convolution calls the twin of r rounded up to even instead (K = 64: four
 * 14-row tiles and one 8-row tile, 64 rows of work instead of 70).  Each
 * output element's sum is formed in the same order whatever the kernel's
 * MR, so the choice changes no result.  (A last strip at most 16 wide
 * keeps the 14 x 16 twin for every row block: it is one strip a call.) */
#include "cpu/kernels/bf16_gemm.h"
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define VI __m512i
#define VI_LOAD(p) _mm512_load_si512((const void *)(p))
#define DPBF16 1
#define A_IN_PLACE 1
#define V_DOT(acc, apair, bv) \
    _mm512_dpbf16_ps(acc, (__m512bh)_mm512_set1_epi32((int)(apair)), (__m512bh)(bv))

#define UKERNEL_ATTR __attribute__((target("avx512bf16")))
#define UKERNEL fdnn_bf16_gemm_arows_ukernel_2x32__avx512bf16
#define MR 2
#define NV 2
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
#undef UKERNEL
#undef MR
#undef NV

#define UKERNEL_ATTR __attribute__((target("avx512bf16")))
#define UKERNEL fdnn_bf16_gemm_arows_ukernel_4x32__avx512bf16
#define MR 4
#define NV 2
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
#undef UKERNEL
#undef MR
#undef NV

#define UKERNEL_ATTR __attribute__((target("avx512bf16")))
#define UKERNEL fdnn_bf16_gemm_arows_ukernel_6x32__avx512bf16
#define MR 6
#define NV 2
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
#undef UKERNEL
#undef MR
#undef NV

#define UKERNEL_ATTR __attribute__((target("avx512bf16")))
#define UKERNEL fdnn_bf16_gemm_arows_ukernel_8x32__avx512bf16
#define MR 8
#define NV 2
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
#undef UKERNEL
#undef MR
#undef NV

#define UKERNEL_ATTR __attribute__((target("avx512bf16")))
#define UKERNEL fdnn_bf16_gemm_arows_ukernel_10x32__avx512bf16
#define MR 10
#define NV 2
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
#undef UKERNEL
#undef MR
#undef NV

#define UKERNEL_ATTR __attribute__((target("avx512bf16")))
#define UKERNEL fdnn_bf16_gemm_arows_ukernel_12x32__avx512bf16
#define MR 12
#define NV 2
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
#undef UKERNEL
#undef MR
#undef NV
