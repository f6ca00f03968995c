/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f64_gemm_arows_ukernel_6x8__avx2: the double 6x8 kernel reading A in
 * place, for products with one column tile.
 */
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

#define T double
#define EP_T fdnn_f64_gemm_epilogue_t
#define UKERNEL fdnn_f64_gemm_arows_ukernel_6x8__avx2
#define MR 6
#define NV 2
#define VL 4
#define VT __m256d
#define MASK_T __m256i
#define V_ZERO() _mm256_setzero_pd()
#define V_SET1(x) _mm256_set1_pd(x)
#define V_LOAD(p) _mm256_load_pd(p)
#define V_LOADU(p) _mm256_loadu_pd(p)
#define V_STOREU(p, v) _mm256_storeu_pd(p, v)
#define V_FMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define V_MUL(a, b) _mm256_mul_pd(a, b)
#define V_ADD(a, b) _mm256_add_pd(a, b)
#define V_MAX(a, b) _mm256_max_pd(a, b)
#define V_MASK(n) _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3))
#define V_MLOADU(p, m) _mm256_maskload_pd(p, m)
#define V_MSTOREU(p, m, v) _mm256_maskstore_pd(p, m, v)
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"
