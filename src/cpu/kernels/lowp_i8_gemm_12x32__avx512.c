/* SPDX-License-Identifier: Apache-2.0
 * The INT8 GEMM microkernel on AVX-512 BW without VNNI: 12 x 32, bytes
 * widened to 16 bits (A zero-extended, B sign-extended) and two vpmaddwd
 * per quad, exact. */
#include <immintrin.h>

#include "cpu/kernels/lowp_i8_gemm.h"

#define UKERNEL fdnn_i8_gemm_ukernel_12x32__avx512
#define MR 12
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
#define V_ULO(x) _mm512_and_si512(x, _mm512_set1_epi16(0x00ff))
#define V_UHI(x) _mm512_srli_epi16(x, 8)
#define V_SLO(x) _mm512_srai_epi16(_mm512_slli_epi16(x, 8), 8)
#define V_SHI(x) _mm512_srai_epi16(x, 8)
#define V_DOT2(acc, alo, ahi, blo, bhi) \
    _mm512_add_epi32(acc, _mm512_add_epi32(_mm512_madd_epi16(alo, blo), _mm512_madd_epi16(ahi, bhi)))
#include "cpu/kernels/lowp_i8_gemm_ukernel_simd.inc"
