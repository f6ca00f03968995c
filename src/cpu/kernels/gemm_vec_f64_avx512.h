/* SPDX-License-Identifier: Apache-2.0
 * The vector wrapper of gemm_ukernel_simd.inc for the double microkernels on
 * AVX-512 F (8 lanes of a zmm): element, epilogue and vector types and the V_
 * operations the template names.  Each instance file includes it, defines
 * UKERNEL, MR, NV (and A_IN_PLACE or A_PTRS), then includes the template;
 * only files compiled with that ISA's flags may include it. */
#ifndef FDNN_CPU_KERNELS_GEMM_VEC_F64_AVX512_H
#define FDNN_CPU_KERNELS_GEMM_VEC_F64_AVX512_H

#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

#define T double
#define EP_T fdnn_f64_gemm_epilogue_t
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

#endif /* FDNN_CPU_KERNELS_GEMM_VEC_F64_AVX512_H */
