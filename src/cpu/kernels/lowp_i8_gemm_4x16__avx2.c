/* SPDX-License-Identifier: Apache-2.0
 * The INT8 GEMM microkernel on AVX2: 4 x 16, bytes widened to 16 bits and
 * two vpmaddwd per quad, exact. */
#include <immintrin.h>

#include "cpu/kernels/lowp_i8_gemm.h"

#define UKERNEL fdnn_i8_gemm_ukernel_4x16__avx2
#define MR 4
#define NV 2
#define VL 8
#define VI __m256i
#define VI_ZERO() _mm256_setzero_si256()
#define VI_LOAD(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define VI_SET1(x) _mm256_set1_epi32(x)
#define VI_ADD(a, b) _mm256_add_epi32(a, b)
#define VI_MASK(n) _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define VI_LOADU_MASK(p, n) _mm256_maskload_epi32((const int *)(p), VI_MASK(n))
#define VI_STOREU_MASK(p, n, v) _mm256_maskstore_epi32((int *)(p), VI_MASK(n), v)
#define V_ULO(x) _mm256_and_si256(x, _mm256_set1_epi16(0x00ff))
#define V_UHI(x) _mm256_srli_epi16(x, 8)
#define V_SLO(x) _mm256_srai_epi16(_mm256_slli_epi16(x, 8), 8)
#define V_SHI(x) _mm256_srai_epi16(x, 8)
#define V_DOT2(acc, alo, ahi, blo, bhi) \
    _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(alo, blo), _mm256_madd_epi16(ahi, bhi)))
#include "cpu/kernels/lowp_i8_gemm_ukernel_simd.inc"
