/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f64_gemm_arows_ukernel_14x16__avx512: the double 14x16 kernel reading
 * A in place (rows lda apart, k contiguous), for products with one column
 * tile, where the portable transposing pack of A would dominate.
 */
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

#define T double
#define EP_T fdnn_f64_gemm_epilogue_t
#define UKERNEL fdnn_f64_gemm_arows_ukernel_14x16__avx512
#define MR 14
#define NV 2
#define VL 8
#define VT __m512d
#define MASK_T __mmask8
#define V_ZERO() _mm512_setzero_pd()
#define V_SET1(x) _mm512_set1_pd(x)
#define V_LOAD(p) _mm512_load_pd(p)
#define V_LOADU(p) _mm512_loadu_pd(p)
#define V_STOREU(p, v) _mm512_storeu_pd(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define V_MUL(a, b) _mm512_mul_pd(a, b)
#define V_ADD(a, b) _mm512_add_pd(a, b)
#define V_MAX(a, b) _mm512_max_pd(a, b)
#define V_MASK(n) ((__mmask8)((1u << (n)) - 1u))
#define V_MLOADU(p, m) _mm512_maskz_loadu_pd(m, p)
#define V_MSTOREU(p, m, v) _mm512_mask_storeu_pd(p, m, v)
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"
