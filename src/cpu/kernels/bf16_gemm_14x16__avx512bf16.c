/* SPDX-License-Identifier: Apache-2.0
 * The half-width twin of the 14 x 32 vdpbf16ps kernel: 14 x 16 on the
 * first 16 columns of a 32-wide B strip, for a last strip at most half
 * full (n = 196 = 6 x 32 + 4 computes 208 columns, not 224).
 * The 14 x 32 kernel: one vdpbf16ps per
 * pair of k steps and 16 columns, A pairs broadcast from memory.  Built with
 * the AVX-512 flags of its file name; the BF16 extension is enabled here
 * for this function only, by a target attribute (the caller checks the
 * CPU's avx512_bf16 flag). */
#include "cpu/kernels/bf16_gemm.h"
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL_ATTR __attribute__((target("avx512bf16")))
#define UKERNEL fdnn_bf16_gemm_ukernel_14x16__avx512bf16
#define MR 14
#define NV 1
#define B_STRIDE 32
#define VI __m512i
#define VI_LOAD(p) _mm512_load_si512((const void *)(p))
#define DPBF16 1
#define V_DOT(acc, apair, bv) \
    _mm512_dpbf16_ps(acc, (__m512bh)_mm512_set1_epi32((int)(apair)), (__m512bh)(bv))
#include "cpu/kernels/bf16_gemm_ukernel_simd.inc"
