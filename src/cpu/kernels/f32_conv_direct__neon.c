/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_conv_direct_ukernel__neon (conv_direct.h) on AArch64 ASIMD: up
 * to 6 pixels x 1 block of 16 output channels, 4 q registers per (pixel,
 * block): 24 accumulators + 4 weight vectors + 1 input value of the 32
 * vector registers.  Per input channel 4 weight loads (LDR q), one scalar
 * load per pixel and 24 FMLA (by element: the input value is lane 0 of its
 * register, no DUP), the same order of sums as every level.  The layouts
 * and the tile limits (6 pixels, two rows of 3) are the AVX2 kernel's, so
 * the blocked layout's padding already covers them. */
#include <arm_neon.h>

#include "cpu/kernels/conv_direct.h"

/* The first n lanes (1 <= n <= 4) of v to p, nothing else. */
static inline __attribute__((always_inline)) void
store_n(float *p, float32x4_t v, size_t n)
{
    if (n >= 2)
        vst1_f32(p, vget_low_f32(v));
    else
        vst1q_lane_f32(p, v, 0);
    if (n == 3)
        vst1q_lane_f32(p + 2, v, 2);
    else if (n == 4)
        vst1_f32(p + 2, vget_high_f32(v));
}

/* The first n floats (1 <= n <= 4) of p in the low lanes, zeros above;
 * reads nothing else. */
static inline __attribute__((always_inline)) float32x4_t
load_n(const float *p, size_t n)
{
    if (n == 4)
        return vld1q_f32(p);
    float32x4_t v = n >= 2 ? vcombine_f32(vld1_f32(p), vdup_n_f32(0.0f)) : vld1q_lane_f32(p, vdupq_n_f32(0.0f), 0);
    if (n == 3)
        v = vld1q_lane_f32(p + 2, v, 2);
    return v;
}

/* r[i][l] -> r[l][i] for a 4 x 4 block: 32-bit pairs, then 64-bit halves. */
static inline __attribute__((always_inline)) void
transpose4(float32x4_t r[4])
{
    float32x4_t t0 = vtrn1q_f32(r[0], r[1]), t1 = vtrn2q_f32(r[0], r[1]);
    float32x4_t t2 = vtrn1q_f32(r[2], r[3]), t3 = vtrn2q_f32(r[2], r[3]);
    float64x2_t d0 = vreinterpretq_f64_f32(t0), d1 = vreinterpretq_f64_f32(t1);
    float64x2_t d2 = vreinterpretq_f64_f32(t2), d3 = vreinterpretq_f64_f32(t3);
    r[0] = vreinterpretq_f32_f64(vtrn1q_f64(d0, d2));
    r[1] = vreinterpretq_f32_f64(vtrn1q_f64(d1, d3));
    r[2] = vreinterpretq_f32_f64(vtrn2q_f64(d0, d2));
    r[3] = vreinterpretq_f32_f64(vtrn2q_f64(d1, d3));
}

#define UKERNEL fdnn_f32_conv_direct_ukernel__neon
#define PACK16 fdnn_f32_conv_direct_pack16__neon
#define UR FDNN_NEON_CONV_DIRECT_UR
#define NKB FDNN_NEON_CONV_DIRECT_NKB
#define VL 4
#define VT float32x4_t
#define V_ZERO() vdupq_n_f32(0.0f)
#define V_SET1(x) vdupq_n_f32(x)
#define V_LOADU(p) vld1q_f32(p)
#define V_STOREU(p, v) vst1q_f32(p, v)
#define V_FMA(a, b, c) vfmaq_f32(c, a, b)
#define V_STORE_N(p, v, n) store_n(p, v, (size_t)(n))
#define V_LOAD_N(p, n) load_n(p, (size_t)(n))
#define V_TRANSPOSE(r) transpose4(r)
#include "cpu/kernels/conv_direct_simd.inc"
