/* SPDX-License-Identifier: Apache-2.0
 * The f32 vector wrapper for AVX2 + FMA: 8 lanes.
 *
 * Include from a file named `*__avx2.c` only (it needs -mavx2 -mfma), and
 * only one f32_*.h per translation unit: every ISA header defines the same
 * names (see README.md for the contract of each). */
#ifndef FDNN_SIMD_F32_AVX2_H
#define FDNN_SIMD_F32_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#define FV_N 8
#define FV_ISA avx2
#define FV_FN(name) name##__avx2

typedef __m256 fv_t;

static inline fv_t fv_zero(void) { return _mm256_setzero_ps(); }
static inline fv_t fv_set1(float a) { return _mm256_set1_ps(a); }
static inline fv_t fv_load(const float *p) { return _mm256_load_ps(p); }
static inline fv_t fv_loadu(const float *p) { return _mm256_loadu_ps(p); }
static inline void fv_store(float *p, fv_t v) { _mm256_store_ps(p, v); }
static inline void fv_storeu(float *p, fv_t v) { _mm256_storeu_ps(p, v); }

/* Mask of the first n lanes: lane i is all-ones when i < n. */
static inline __m256i
fv_tail_mask_(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The first n lanes (0 <= n <= FV_N) from p, the others 0; vmaskmov does not
 * touch (or fault on) the masked-off memory. */
static inline fv_t fv_load_tail(const float *p, int n) { return _mm256_maskload_ps(p, fv_tail_mask_(n)); }
static inline void fv_store_tail(float *p, fv_t v, int n) { _mm256_maskstore_ps(p, fv_tail_mask_(n), v); }

/* Lane i = p[i * stride] for the first n lanes (others 0); p[i * stride]
 * is not touched for i >= n.  For non-unit strides (pooling windows). */
static inline fv_t
fv_gather_tail(const float *p, int stride, int n)
{
    __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(stride));
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), p, idx, _mm256_castsi256_ps(fv_tail_mask_(n)), 4);
}

/* Lane i = p[2 * i] for the first n lanes (others 0), reading only
 * p[0 .. 2n - 2]: a stride-2 load from two contiguous loads (pooling with
 * stride 2). */
static inline fv_t
fv_load_s2_tail(const float *p, int n)
{
    int e = 2 * n - 1;
    int e0 = e < 8 ? e : 8, e1 = e > 8 ? e - 8 : 0;
    __m256 lo = _mm256_maskload_ps(p, fv_tail_mask_(e0));
    __m256 hi = _mm256_maskload_ps(p + 8, fv_tail_mask_(e1));
    /* [lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6] -> [lo0 lo2 lo4 lo6 hi0 hi2 hi4 hi6] */
    __m256 ev = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    ev = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(ev), _MM_SHUFFLE(3, 1, 2, 0)));
    return _mm256_and_ps(ev, _mm256_castsi256_ps(fv_tail_mask_(n)));
}

/* Lane i = p[2 * i] for all lanes; reads p[0 .. 2 * FV_N - 1]. */
static inline fv_t
fv_load_s2(const float *p)
{
    __m256 ev = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(ev), _MM_SHUFFLE(3, 1, 2, 0)));
}

static inline fv_t fv_add(fv_t a, fv_t b) { return _mm256_add_ps(a, b); }
static inline fv_t fv_sub(fv_t a, fv_t b) { return _mm256_sub_ps(a, b); }
static inline fv_t fv_mul(fv_t a, fv_t b) { return _mm256_mul_ps(a, b); }
static inline fv_t fv_div(fv_t a, fv_t b) { return _mm256_div_ps(a, b); }
static inline fv_t fv_fmadd(fv_t a, fv_t b, fv_t c) { return _mm256_fmadd_ps(a, b, c); }
static inline fv_t fv_fnmadd(fv_t a, fv_t b, fv_t c) { return _mm256_fnmadd_ps(a, b, c); }
/* x86 semantics: a > b ? a : b, so b comes back when either is NaN. */
static inline fv_t fv_max(fv_t a, fv_t b) { return _mm256_max_ps(a, b); }
static inline fv_t fv_min(fv_t a, fv_t b) { return _mm256_min_ps(a, b); }
static inline fv_t fv_abs(fv_t a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
static inline fv_t fv_neg(fv_t a) { return _mm256_xor_ps(_mm256_set1_ps(-0.0f), a); }

static inline fv_t
fv_max_nan(fv_t a, fv_t b)
{
    return _mm256_blendv_ps(_mm256_max_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

static inline fv_t
fv_select_gt(fv_t a, fv_t b, fv_t t, fv_t f)
{
    return _mm256_blendv_ps(f, t, _mm256_cmp_ps(a, b, _CMP_GT_OQ));
}

static inline fv_t
fv_select_ge(fv_t a, fv_t b, fv_t t, fv_t f)
{
    return _mm256_blendv_ps(f, t, _mm256_cmp_ps(a, b, _CMP_GE_OQ));
}

static inline fv_t
fv_select_eq(fv_t a, fv_t b, fv_t t, fv_t f)
{
    return _mm256_blendv_ps(f, t, _mm256_cmp_ps(a, b, _CMP_EQ_OQ));
}

static inline fv_t
fv_select_nan(fv_t a, fv_t t, fv_t f)
{
    return _mm256_blendv_ps(f, t, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

static inline float
fv_reduce_add(fv_t v)
{
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    __m128 s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));
    return _mm_cvtss_f32(s1);
}

static inline float
fv_reduce_max(fv_t v)
{
    __m128 s4 = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    __m128 s2 = _mm_max_ps(s4, _mm_movehl_ps(s4, s4));
    __m128 s1 = _mm_max_ss(s2, _mm_shuffle_ps(s2, s2, 1));
    return _mm_cvtss_f32(s1);
}

typedef __m256i fv_i_t;
static inline fv_i_t fv_cvt_round(fv_t a) { return _mm256_cvtps_epi32(a); }
static inline fv_t fv_cvt_i(fv_i_t a) { return _mm256_cvtepi32_ps(a); }
static inline fv_t
fv_pow2i(fv_i_t n)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23));
}
static inline fv_i_t fv_i_sra1(fv_i_t n) { return _mm256_srai_epi32(n, 1); }
static inline fv_i_t fv_i_sub(fv_i_t a, fv_i_t b) { return _mm256_sub_epi32(a, b); }
static inline fv_t
fv_copysign(fv_t m, fv_t s)
{
    __m256 sign = _mm256_set1_ps(-0.0f);
    return _mm256_or_ps(_mm256_andnot_ps(sign, m), _mm256_and_ps(sign, s));
}

/* x = m * 2^e with m in [1, 2): e as a float vector, m returned.  For
 * positive normal x (fv_log's domain). */
static inline fv_t
fv_split_exp_(fv_t x, fv_t *e)
{
    __m256i b = _mm256_castps_si256(x);
    *e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(b, 23), _mm256_set1_epi32(127)));
    return _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x007fffff)),
                                               _mm256_set1_epi32(0x3f800000)));
}

#include "cpu/simd/f32_math.inc"

#endif /* FDNN_SIMD_F32_AVX2_H */
