/* SPDX-License-Identifier: Apache-2.0
 * The vector wrapper of gemm_ukernel_simd.inc for the float microkernels on
 * AVX-512 F (16 lanes of a zmm): element, epilogue and vector types and the V_
 * operations the template names.  Each instance file includes it, defines
 * UKERNEL, MR, NV (and A_IN_PLACE or A_PTRS), then includes the template;
 * only files compiled with that ISA's flags may include it. */
#ifndef FDNN_CPU_KERNELS_GEMM_VEC_F32_AVX512_H
#define FDNN_CPU_KERNELS_GEMM_VEC_F32_AVX512_H

#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

#define T float
#define EP_T fdnn_f32_gemm_epilogue_t
#define VL 16
#define VT __m512
#define MASK_T __mmask16
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOAD(p) _mm512_load_ps(p)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_STREAM(p, v) _mm512_stream_ps(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define V_MUL(a, b) _mm512_mul_ps(a, b)
#define V_ADD(a, b) _mm512_add_ps(a, b)
#define V_MAX(a, b) _mm512_max_ps(a, b)
#define V_MASK(n) ((__mmask16)((1u << (n)) - 1u))
#define V_MLOADU(p, m) _mm512_maskz_loadu_ps(m, p)
#define V_MSTOREU(p, m, v) _mm512_mask_storeu_ps(p, m, v)
/* 16 IEEE halves (unaligned) widened exactly (vcvtph2ps): the bhalf kernels' B */
#define V_LOADH(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(p)))

#endif /* FDNN_CPU_KERNELS_GEMM_VEC_F32_AVX512_H */
