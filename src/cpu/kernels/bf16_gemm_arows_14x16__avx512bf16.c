/* SPDX-License-Identifier: Apache-2.0
 * The half-width (14 x 16 on a 32-wide B strip) twin of the kernel below.
 * The 14 x 32 vdpbf16ps microkernel reading A in place: bfloat16 rows of A
 * (not transposed, k contiguous) hold their pairs as consecutive 32-bit
 * words, so a narrow product (one column tile) skips packing A. */
#include "cpu/kernels/bf16_gemm.h"
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL_ATTR __attribute__((target("avx512bf16")))
#define UKERNEL fdnn_bf16_gemm_arows_ukernel_14x16__avx512bf16
#define MR 14
#define NV 1
#define B_STRIDE 32
#define VI __m512i
#define VI_LOAD(p) _mm512_load_si512((const void *)(p))
#define DPBF16 1
#define A_IN_PLACE 1
#define V_DOT(acc, apair, bv) \
    _mm512_dpbf16_ps(acc, (__m512bh)_mm512_set1_epi32((int)(apair)), (__m512bh)(bv))
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
