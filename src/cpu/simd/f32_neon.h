/* SPDX-License-Identifier: Apache-2.0
 * The f32 vector wrapper for AArch64 ASIMD (NEON): 4 lanes of a q register.
 *
 * Include from a file named `*__neon.c` only (CMakeLists.txt builds those
 * for AArch64 alone; ASIMD is the AArch64 baseline, so no flag), and only
 * one f32_*.h per translation unit (see README.md for the contract of each
 * name).  NEON has no masked loads or stores: the tail forms go through a
 * small stack buffer and touch only the first n elements, as the contract
 * requires.  fv_max/fv_min keep the x86 semantics of the contract (the
 * second operand on NaN), not those of FMAX/FMIN. */
#ifndef FDNN_SIMD_F32_NEON_H
#define FDNN_SIMD_F32_NEON_H

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

#define FV_N 4
#define FV_ISA neon
#define FV_FN(name) name##__neon

typedef float32x4_t fv_t;

static inline fv_t fv_zero(void) { return vdupq_n_f32(0.0f); }
static inline fv_t fv_set1(float a) { return vdupq_n_f32(a); }
static inline fv_t fv_load(const float *p) { return vld1q_f32(p); }
static inline fv_t fv_loadu(const float *p) { return vld1q_f32(p); }
static inline void fv_store(float *p, fv_t v) { vst1q_f32(p, v); }
static inline void fv_storeu(float *p, fv_t v) { vst1q_f32(p, v); }

static inline fv_t
fv_load_tail(const float *p, int n)
{
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; i++)
        t[i] = p[i];
    return vld1q_f32(t);
}

static inline void
fv_store_tail(float *p, fv_t v, int n)
{
    float t[4];
    vst1q_f32(t, v);
    for (int i = 0; i < n; i++)
        p[i] = t[i];
}

static inline fv_t
fv_gather_tail(const float *p, int stride, int n)
{
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; i++)
        t[i] = p[(ptrdiff_t)i * stride];
    return vld1q_f32(t);
}

/* Lane i = p[2 * i] for the first n lanes (others 0), reading only
 * p[0 .. 2n - 2]. */
static inline fv_t
fv_load_s2_tail(const float *p, int n)
{
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; i++)
        t[i] = p[2 * i];
    return vld1q_f32(t);
}

/* Lane i = p[2 * i] for all lanes; reads p[0 .. 7] (LD2 de-interleaves). */
static inline fv_t fv_load_s2(const float *p) { return vld2q_f32(p).val[0]; }

static inline fv_t fv_add(fv_t a, fv_t b) { return vaddq_f32(a, b); }
static inline fv_t fv_sub(fv_t a, fv_t b) { return vsubq_f32(a, b); }
static inline fv_t fv_mul(fv_t a, fv_t b) { return vmulq_f32(a, b); }
static inline fv_t fv_div(fv_t a, fv_t b) { return vdivq_f32(a, b); }
static inline fv_t fv_fmadd(fv_t a, fv_t b, fv_t c) { return vfmaq_f32(c, a, b); }
static inline fv_t fv_fnmadd(fv_t a, fv_t b, fv_t c) { return vfmsq_f32(c, a, b); }
/* The contract's x86 semantics: a > b ? a : b (b when either is NaN). */
static inline fv_t fv_max(fv_t a, fv_t b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
static inline fv_t fv_min(fv_t a, fv_t b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
static inline fv_t fv_abs(fv_t a) { return vabsq_f32(a); }
static inline fv_t fv_neg(fv_t a) { return vnegq_f32(a); }

static inline fv_t
fv_max_nan(fv_t a, fv_t b)
{
    return vbslq_f32(vceqq_f32(a, a), fv_max(a, b), a);
}

static inline fv_t fv_select_gt(fv_t a, fv_t b, fv_t t, fv_t f) { return vbslq_f32(vcgtq_f32(a, b), t, f); }
static inline fv_t fv_select_ge(fv_t a, fv_t b, fv_t t, fv_t f) { return vbslq_f32(vcgeq_f32(a, b), t, f); }
static inline fv_t fv_select_eq(fv_t a, fv_t b, fv_t t, fv_t f) { return vbslq_f32(vceqq_f32(a, b), t, f); }
static inline fv_t fv_select_nan(fv_t a, fv_t t, fv_t f) { return vbslq_f32(vceqq_f32(a, a), f, t); }

/* Halves (lanes 0+2, 1+3), then the two sums: a fixed order. */
static inline float
fv_reduce_add(fv_t v)
{
    float32x2_t s2 = vadd_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(s2, 0) + vget_lane_f32(s2, 1);
}

static inline float
fv_reduce_max(fv_t v)
{
    float32x2_t lo = vget_low_f32(v), hi = vget_high_f32(v);
    float32x2_t s2 = vbsl_f32(vcgt_f32(lo, hi), lo, hi);
    float a = vget_lane_f32(s2, 0), b = vget_lane_f32(s2, 1);
    return a > b ? a : b;
}

typedef int32x4_t fv_i_t;
/* Round to nearest, ties to even (as x86's cvtps2dq in the default mode). */
static inline fv_i_t fv_cvt_round(fv_t a) { return vcvtnq_s32_f32(a); }
static inline fv_t fv_cvt_i(fv_i_t a) { return vcvtq_f32_s32(a); }
static inline fv_t
fv_pow2i(fv_i_t n)
{
    return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n, vdupq_n_s32(127)), 23));
}
static inline fv_i_t fv_i_sra1(fv_i_t n) { return vshrq_n_s32(n, 1); }
static inline fv_i_t fv_i_sub(fv_i_t a, fv_i_t b) { return vsubq_s32(a, b); }
static inline fv_t
fv_copysign(fv_t m, fv_t s)
{
    return vbslq_f32(vdupq_n_u32(0x80000000u), s, m);
}

/* x = m * 2^e with m in [1, 2), for positive normal x (fv_log's domain). */
static inline fv_t
fv_split_exp_(fv_t x, fv_t *e)
{
    uint32x4_t b = vreinterpretq_u32_f32(x);
    *e = vcvtq_f32_s32(vsubq_s32(vreinterpretq_s32_u32(vshrq_n_u32(b, 23)), vdupq_n_s32(127)));
    return vreinterpretq_f32_u32(vorrq_u32(vandq_u32(b, vdupq_n_u32(0x007fffffu)), vdupq_n_u32(0x3f800000u)));
}

#include "cpu/simd/f32_math.inc"

#endif /* FDNN_SIMD_F32_NEON_H */
