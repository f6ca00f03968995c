/* SPDX-License-Identifier: Apache-2.0
 * The 14 x 32 vpdpbusd microkernel reading A in place: the quads of a byte
 * row of A (not transposed, offset a multiple of 4) are its 32-bit words;
 * an int8 A gets its +128 by a xor of the broadcast word. */
#include <immintrin.h>

#include "cpu/kernels/lowp_i8_gemm.h"

#define UKERNEL_ATTR __attribute__((target("avx512vnni")))
#define UKERNEL fdnn_i8_gemm_arows_ukernel_14x32__avx512vnni
#define A_IN_PLACE 1
#define MR 14
#define NV 2
#define VL 16
#define VI __m512i
#define VI_ZERO() _mm512_setzero_si512()
#define VI_LOAD(p) _mm512_load_si512((const void *)(p))
#define VI_SET1(x) _mm512_set1_epi32(x)
#define VI_ADD(a, b) _mm512_add_epi32(a, b)
#define VI_MASK(n) ((__mmask16)((n) >= 16 ? 0xffffu : (1u << (n)) - 1u))
#define VI_LOADU_MASK(p, n) _mm512_maskz_loadu_epi32(VI_MASK(n), p)
#define VI_STOREU_MASK(p, n, v) _mm512_mask_storeu_epi32(p, VI_MASK(n), v)
#define VNNI 1
#define V_DOT(acc, aq, bv) _mm512_dpbusd_epi32(acc, _mm512_set1_epi32((int)(aq)), bv)
#include "cpu/kernels/lowp_i8_gemm_ukernel_simd.inc"
