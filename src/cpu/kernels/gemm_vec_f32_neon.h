/* SPDX-License-Identifier: Apache-2.0
 * The vector wrapper of gemm_ukernel_simd.inc (and gemv_simd.inc) for the
 * float kernels on AArch64 ASIMD (4 lanes of a q register).  NEON has no
 * masked loads or stores, so a "mask" is the count of leading lanes and the
 * masked forms copy through a stack buffer, touching only those elements
 * (the contract: lanes outside the mask never touch memory).  Only files
 * named *__neon.c (built for AArch64 alone) may include it. */
#ifndef FDNN_CPU_KERNELS_GEMM_VEC_F32_NEON_H
#define FDNN_CPU_KERNELS_GEMM_VEC_F32_NEON_H

#include <arm_neon.h>

#include "cpu/kernels/gemm_ukernel.h"

static inline float32x4_t
fdnn_neon_mloadu_(const float *p, int n)
{
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; i++)
        t[i] = p[i];
    return vld1q_f32(t);
}

static inline void
fdnn_neon_mstoreu_(float *p, int n, float32x4_t v)
{
    float t[4];
    vst1q_f32(t, v);
    for (int i = 0; i < n; i++)
        p[i] = t[i];
}

#define T float
#define EP_T fdnn_f32_gemm_epilogue_t
#define VL 4
#define VT float32x4_t
#define MASK_T int
#define V_ZERO() vdupq_n_f32(0.0f)
#define V_SET1(x) vdupq_n_f32(x)
#define V_LOAD(p) vld1q_f32(p)
#define V_LOADU(p) vld1q_f32(p)
#define V_STOREU(p, v) vst1q_f32(p, v)
#define V_FMA(a, b, c) vfmaq_f32(c, a, b)
#define V_MUL(a, b) vmulq_f32(a, b)
#define V_ADD(a, b) vaddq_f32(a, b)
/* x86 max semantics (the second operand on NaN), which the relu relies on */
#define V_MAX(a, b) vbslq_f32(vcgtq_f32(a, b), a, b)
#define V_MASK(n) (n)
#define V_MLOADU(p, m) fdnn_neon_mloadu_(p, m)
#define V_MSTOREU(p, m, v) fdnn_neon_mstoreu_(p, m, v)

#endif /* FDNN_CPU_KERNELS_GEMM_VEC_F32_NEON_H */
