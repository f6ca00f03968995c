/* SPDX-License-Identifier: Apache-2.0
 * The f32 "vector" wrapper for portable C: one lane, so a kernel template
 * written over fv_* compiles to plain scalar code.  The transcendental
 * functions come from libm (correctly rounded or close to it), so the
 * portable path is also the most accurate one.  Same names and contracts as
 * f32_avx512.h / f32_avx2.h (README.md). */
#ifndef FDNN_SIMD_F32_SCALAR_H
#define FDNN_SIMD_F32_SCALAR_H

#include <math.h>

#define FV_N 1
#define FV_ISA scalar
#define FV_FN(name) name##__scalar

typedef float fv_t;

static inline fv_t fv_zero(void) { return 0.0f; }
static inline fv_t fv_set1(float a) { return a; }
static inline fv_t fv_load(const float *p) { return *p; }
static inline fv_t fv_loadu(const float *p) { return *p; }
static inline void fv_store(float *p, fv_t v) { *p = v; }
static inline void fv_storeu(float *p, fv_t v) { *p = v; }
static inline fv_t fv_load_tail(const float *p, int n) { return n > 0 ? *p : 0.0f; }
static inline void fv_store_tail(float *p, fv_t v, int n) { if (n > 0) *p = v; }

static inline fv_t fv_gather_tail(const float *p, int stride, int n) { (void)stride; return n > 0 ? *p : 0.0f; }

static inline fv_t fv_load_s2_tail(const float *p, int n) { return n > 0 ? *p : 0.0f; }
static inline fv_t fv_load_s2(const float *p) { return *p; }
static inline fv_t fv_add(fv_t a, fv_t b) { return a + b; }
static inline fv_t fv_sub(fv_t a, fv_t b) { return a - b; }
static inline fv_t fv_mul(fv_t a, fv_t b) { return a * b; }
static inline fv_t fv_div(fv_t a, fv_t b) { return a / b; }
static inline fv_t fv_fmadd(fv_t a, fv_t b, fv_t c) { return fmaf(a, b, c); }
static inline fv_t fv_fnmadd(fv_t a, fv_t b, fv_t c) { return fmaf(-a, b, c); }
/* Written as the x86 instruction behaves: b when either is NaN. */
static inline fv_t fv_max(fv_t a, fv_t b) { return a > b ? a : b; }
static inline fv_t fv_min(fv_t a, fv_t b) { return a < b ? a : b; }
static inline fv_t fv_abs(fv_t a) { return fabsf(a); }
static inline fv_t fv_neg(fv_t a) { return -a; }
static inline fv_t fv_max_nan(fv_t a, fv_t b) { return a != a ? a : (a > b ? a : b); }
static inline fv_t fv_select_gt(fv_t a, fv_t b, fv_t t, fv_t f) { return a > b ? t : f; }
static inline fv_t fv_select_ge(fv_t a, fv_t b, fv_t t, fv_t f) { return a >= b ? t : f; }
static inline fv_t fv_select_eq(fv_t a, fv_t b, fv_t t, fv_t f) { return a == b ? t : f; }
static inline fv_t fv_select_nan(fv_t a, fv_t t, fv_t f) { return a != a ? t : f; }
static inline float fv_reduce_add(fv_t v) { return v; }
static inline float fv_reduce_max(fv_t v) { return v; }
static inline fv_t fv_copysign(fv_t m, fv_t s) { return copysignf(m, s); }

static inline fv_t fv_exp(fv_t x) { return expf(x); }
static inline fv_t fv_log(fv_t x) { return logf(x); }
static inline fv_t fv_expm1(fv_t x) { return expm1f(x); }
static inline fv_t fv_tanh(fv_t x) { return tanhf(x); }
static inline fv_t
fv_sigmoid(fv_t x)
{
    float e = expf(-fabsf(x));
    float s = 1.0f / (1.0f + e);
    return x >= 0.0f ? s : e * s;
}

#endif /* FDNN_SIMD_F32_SCALAR_H */
