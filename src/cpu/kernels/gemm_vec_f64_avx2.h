/* SPDX-License-Identifier: Apache-2.0
 * The vector wrapper of gemm_ukernel_simd.inc for the double microkernels on
 * AVX2 + FMA (4 lanes of a ymm): element, epilogue and vector types and the V_
 * operations the template names.  Each instance file includes it, defines
 * UKERNEL, MR, NV (and A_IN_PLACE or A_PTRS), then includes the template;
 * only files compiled with that ISA's flags may include it. */
#ifndef FDNN_CPU_KERNELS_GEMM_VEC_F64_AVX2_H
#define FDNN_CPU_KERNELS_GEMM_VEC_F64_AVX2_H

#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

#define T double
#define EP_T fdnn_f64_gemm_epilogue_t
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

#endif /* FDNN_CPU_KERNELS_GEMM_VEC_F64_AVX2_H */
