/* SPDX-License-Identifier: Apache-2.0
 * The f32 vector wrapper for AVX-512 (F, BW, VL, DQ): 16 lanes.
 *
 * Include from a file named `*__avx512.c` only (it needs those flags), and
 * only one f32_*.h per translation unit: every ISA header defines the same
 * names (see README.md for the contract of each). */
#ifndef FDNN_SIMD_F32_AVX512_H
#define FDNN_SIMD_F32_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#define FV_N 16
#define FV_ISA avx512
#define FV_FN(name) name##__avx512

typedef __m512 fv_t;

static inline fv_t fv_zero(void) { return _mm512_setzero_ps(); }
static inline fv_t fv_set1(float a) { return _mm512_set1_ps(a); }
static inline fv_t fv_load(const float *p) { return _mm512_load_ps(p); }
static inline fv_t fv_loadu(const float *p) { return _mm512_loadu_ps(p); }
static inline void fv_store(float *p, fv_t v) { _mm512_store_ps(p, v); }
static inline void fv_storeu(float *p, fv_t v) { _mm512_storeu_ps(p, v); }

/* The first n lanes (0 <= n <= FV_N) from p, the others 0; touches no memory
 * past p[n-1]. */
static inline fv_t
fv_load_tail(const float *p, int n)
{
    return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p);
}

static inline void
fv_store_tail(float *p, fv_t v, int n)
{
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), v);
}

/* Lane i = p[i * stride] for the first n lanes (others 0); p[i * stride]
 * is not touched for i >= n.  For non-unit strides (pooling windows). */
static inline fv_t
fv_gather_tail(const float *p, int stride, int n)
{
    __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                     _mm512_set1_epi32(stride));
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), (__mmask16)((1u << n) - 1u), idx, p, 4);
}

/* Lane i = p[2 * i] for the first n lanes (others 0), reading only
 * p[0 .. 2n - 2]: a stride-2 load from two contiguous loads (pooling with
 * stride 2). */
static inline fv_t
fv_load_s2_tail(const float *p, int n)
{
    int e = 2 * n - 1; /* elements needed */
    int e0 = e < 16 ? e : 16, e1 = e > 16 ? e - 16 : 0;
    __m512 lo = _mm512_maskz_loadu_ps((__mmask16)((1u << e0) - 1u), p);
    __m512 hi = _mm512_maskz_loadu_ps((__mmask16)((1u << e1) - 1u), p + 16);
    __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_maskz_permutex2var_ps((__mmask16)((1u << n) - 1u), lo, even, hi);
}

/* Lane i = p[2 * i] for all lanes; reads p[0 .. 2 * FV_N - 1]. */
static inline fv_t
fv_load_s2(const float *p)
{
    __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_ps(_mm512_loadu_ps(p), even, _mm512_loadu_ps(p + 16));
}

static inline fv_t fv_add(fv_t a, fv_t b) { return _mm512_add_ps(a, b); }
static inline fv_t fv_sub(fv_t a, fv_t b) { return _mm512_sub_ps(a, b); }
static inline fv_t fv_mul(fv_t a, fv_t b) { return _mm512_mul_ps(a, b); }
static inline fv_t fv_div(fv_t a, fv_t b) { return _mm512_div_ps(a, b); }
static inline fv_t fv_fmadd(fv_t a, fv_t b, fv_t c) { return _mm512_fmadd_ps(a, b, c); }
static inline fv_t fv_fnmadd(fv_t a, fv_t b, fv_t c) { return _mm512_fnmadd_ps(a, b, c); }
/* x86 semantics: a > b ? a : b, so b comes back when either is NaN. */
static inline fv_t fv_max(fv_t a, fv_t b) { return _mm512_max_ps(a, b); }
static inline fv_t fv_min(fv_t a, fv_t b) { return _mm512_min_ps(a, b); }
static inline fv_t fv_abs(fv_t a) { return _mm512_abs_ps(a); }
static inline fv_t fv_neg(fv_t a) { return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_set1_epi32((int)0x80000000u))); }

/* max(a, b) that is NaN when either is NaN (CUDNN_PROPAGATE_NAN). */
static inline fv_t
fv_max_nan(fv_t a, fv_t b)
{
    __mmask16 a_nan = _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
    return _mm512_mask_blend_ps(a_nan, _mm512_max_ps(a, b), a);
}

/* Lane-wise select: cond_gt(a, b) ? t : f, with the comparison a > b
 * (ordered: false when either is NaN). */
static inline fv_t
fv_select_gt(fv_t a, fv_t b, fv_t t, fv_t f)
{
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ), f, t);
}

/* Same with a >= b. */
static inline fv_t
fv_select_ge(fv_t a, fv_t b, fv_t t, fv_t f)
{
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_GE_OQ), f, t);
}

/* Same with a == b (ordered). */
static inline fv_t
fv_select_eq(fv_t a, fv_t b, fv_t t, fv_t f)
{
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ), f, t);
}

/* isnan(a) ? t : f */
static inline fv_t
fv_select_nan(fv_t a, fv_t t, fv_t f)
{
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), f, t);
}

/* Horizontal reductions in a fixed lane order (so results do not depend on
 * anything but the data).  reduce_max follows fv_max lane by lane. */
static inline float
fv_reduce_add(fv_t v)
{
    __m256 lo = _mm512_castps512_ps256(v);
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    __m256 s8 = _mm256_add_ps(lo, hi);
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    __m128 s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));
    return _mm_cvtss_f32(s1);
}

static inline float
fv_reduce_max(fv_t v)
{
    __m256 lo = _mm512_castps512_ps256(v);
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    __m256 s8 = _mm256_max_ps(lo, hi);
    __m128 s4 = _mm_max_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    __m128 s2 = _mm_max_ps(s4, _mm_movehl_ps(s4, s4));
    __m128 s1 = _mm_max_ss(s2, _mm_shuffle_ps(s2, s2, 1));
    return _mm_cvtss_f32(s1);
}

/* Integer helpers for the shared exp code in f32_math.inc. */
typedef __m512i fv_i_t;
static inline fv_i_t fv_cvt_round(fv_t a) { return _mm512_cvtps_epi32(a); }
static inline fv_t fv_cvt_i(fv_i_t a) { return _mm512_cvtepi32_ps(a); }
/* 2^(n) for integer n in [-126, 127], as a float, built in the exponent. */
static inline fv_t
fv_pow2i(fv_i_t n)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n, _mm512_set1_epi32(127)), 23));
}
static inline fv_i_t fv_i_sra1(fv_i_t n) { return _mm512_srai_epi32(n, 1); }
static inline fv_i_t fv_i_sub(fv_i_t a, fv_i_t b) { return _mm512_sub_epi32(a, b); }
/* Copies the sign bit of s onto the magnitude of m. */
static inline fv_t
fv_copysign(fv_t m, fv_t s)
{
    return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(m), _mm512_castps_si512(s),
                                                         _mm512_set1_epi32((int)0x7fffffffu), 0xE4));
}

/* x = m * 2^e with m in [1, 2): e as a float vector, m returned.  For
 * positive normal x (fv_log's domain). */
static inline fv_t
fv_split_exp_(fv_t x, fv_t *e)
{
    *e = _mm512_getexp_ps(x);
    return _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
}

/* exp's final scaling in one instruction (see f32_math.inc): p * 2^nf for
 * an integer-valued nf, rounded once, exactly as the two-factor product it
 * replaces (whose first factor is exact); nf by rounding to nearest even,
 * as fv_cvt_round does. */
#define FV_HAS_SCALEF 1
static inline fv_t
fv_round_nearest_(fv_t a)
{
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
static inline fv_t fv_scalef_(fv_t p, fv_t nf) { return _mm512_scalef_ps(p, nf); }

#include "cpu/simd/f32_math.inc"

#endif /* FDNN_SIMD_F32_AVX512_H */
