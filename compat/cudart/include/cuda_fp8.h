/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the 8-bit floating-point types of CUDA on the
 * host, for C and C++ host code (what cuDNN's CUDNN_DATA_FP8_E4M3 and
 * CUDNN_DATA_FP8_E5M2 tensors hold).
 *
 * E4M3: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities; NaN
 * is S.1111.111; largest finite 448.  E5M2: 1 sign, 5 exponent (bias 15),
 * 2 mantissa bits; infinities and NaNs as IEEE; largest finite 57344.
 *
 * Conversions to fp8 round to nearest, ties to even, once, from the source
 * value (double and half included).  Saturation (__nv_saturation_t):
 * __NV_SATFINITE turns a result beyond the largest finite value, and an
 * infinity, into +-largest finite; __NV_NOSAT turns it into +-NaN (E4M3)
 * or +-infinity (E5M2).  NaN converts to 0x7F in both formats and modes.
 * The C++ types' constructors use __NV_SATFINITE.  Conversions from fp8 are
 * exact; a NaN gives the canonical NaN (0x7FFF in half, 0x7FFFFFFF in
 * float), its sign dropped.  docs/numerics.md, "FP8", says where these
 * facts come from.
 *
 * In C the storage typedefs, the two enums and the __nv_cvt_* functions are
 * the interface.  In C++ __nv_fp8_e4m3 and __nv_fp8_e5m2 (and their x2 and
 * x4 vectors) are trivially copyable classes holding the storage in __x,
 * with explicit constructors from float, double, __half, __nv_bfloat16 and
 * the integer types and explicit conversions to float, double, __half,
 * __nv_bfloat16 and the integer types (toward zero, saturated, NaN 0). */
#ifndef FDNN_COMPAT_CUDA_FP8_H
#define FDNN_COMPAT_CUDA_FP8_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "vector_types.h"

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short int __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;

typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

/* ---- bit-level conversions -------------------------------------------------------- */

static inline __nv_fp8_storage_t
__nv_cvt_float_to_fp8(const float x, const __nv_saturation_t saturate,
                      const __nv_fp8_interpretation_t fp8_interpretation)
{
    const int e4m3 = fp8_interpretation == __NV_E4M3;
    const int m = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
    const uint32_t maxcode = e4m3 ? 0x7Eu : 0x7Bu;
    uint32_t u = fdnn_cuda_f32_bits(x);
    uint32_t sign = (u >> 24) & 0x80u, a = u & 0x7FFFFFFFu, code;
    int e = (int)(a >> 23) - 127;
    if (a > 0x7F800000u)
        return (__nv_fp8_storage_t)0x7Fu;
    if (e >= 1 - bias) {
        /* normal: keep m mantissa bits, nearest even (a carry moves the
         * exponent, as it should), then re-bias */
        int d = 23 - m;
        code = ((a + (1u << (d - 1)) - 1u + ((a >> d) & 1u)) >> d) - ((uint32_t)(127 - bias) << m);
        if (code > maxcode)
            return (__nv_fp8_storage_t)(sign | (saturate == __NV_SATFINITE ? maxcode : e4m3 ? 0x7Fu : 0x7Cu));
    } else if (e < -126) {
        return (__nv_fp8_storage_t)sign; /* float subnormals: below every fp8 */
    } else {
        /* subnormal: |x| / 2^(1 - bias - m), nearest even */
        uint64_t s = (a & 0x7FFFFFu) | 0x800000u;
        int d = 23 + (1 - bias - m) - e;
        if (d > 25)
            return (__nv_fp8_storage_t)sign;
        uint64_t half = 1ull << (d - 1), rem = s & ((half << 1) - 1);
        code = (uint32_t)(s >> d);
        if (rem > half || (rem == half && (code & 1u)))
            code++;
    }
    return (__nv_fp8_storage_t)(sign | code);
}

static inline __nv_fp8_storage_t
__nv_cvt_double_to_fp8(const double x, const __nv_saturation_t saturate,
                       const __nv_fp8_interpretation_t fp8_interpretation)
{
    /* rounded to odd into float first: one rounding in all */
    return __nv_cvt_float_to_fp8(fdnn_cuda_f64_to_f32_odd(x), saturate, fp8_interpretation);
}

static inline __nv_fp8x2_storage_t
__nv_cvt_float2_to_fp8x2(const float2 x, const __nv_saturation_t saturate,
                         const __nv_fp8_interpretation_t fp8_interpretation)
{
    return (__nv_fp8x2_storage_t)(__nv_cvt_float_to_fp8(x.x, saturate, fp8_interpretation) |
                                  (__nv_cvt_float_to_fp8(x.y, saturate, fp8_interpretation) << 8));
}

static inline __nv_fp8x2_storage_t
__nv_cvt_double2_to_fp8x2(const double2 x, const __nv_saturation_t saturate,
                          const __nv_fp8_interpretation_t fp8_interpretation)
{
    return (__nv_fp8x2_storage_t)(__nv_cvt_double_to_fp8(x.x, saturate, fp8_interpretation) |
                                  (__nv_cvt_double_to_fp8(x.y, saturate, fp8_interpretation) << 8));
}

static inline __nv_fp8_storage_t
__nv_cvt_halfraw_to_fp8(const __half_raw x, const __nv_saturation_t saturate,
                        const __nv_fp8_interpretation_t fp8_interpretation)
{
    return __nv_cvt_float_to_fp8(fdnn_cuda_f16_bits_to_f32(x.x), saturate, fp8_interpretation);
}

static inline __nv_fp8x2_storage_t
__nv_cvt_halfraw2_to_fp8x2(const __half2_raw x, const __nv_saturation_t saturate,
                           const __nv_fp8_interpretation_t fp8_interpretation)
{
    return (__nv_fp8x2_storage_t)(
        __nv_cvt_float_to_fp8(fdnn_cuda_f16_bits_to_f32(x.x), saturate, fp8_interpretation) |
        (__nv_cvt_float_to_fp8(fdnn_cuda_f16_bits_to_f32(x.y), saturate, fp8_interpretation) << 8));
}

static inline __nv_fp8_storage_t
__nv_cvt_bfloat16raw_to_fp8(const __nv_bfloat16_raw x, const __nv_saturation_t saturate,
                            const __nv_fp8_interpretation_t fp8_interpretation)
{
    return __nv_cvt_float_to_fp8(fdnn_cuda_bf16_bits_to_f32(x.x), saturate, fp8_interpretation);
}

/* fp8 -> binary16 bits, exact (every fp8 value is a half). */
static inline __half_raw
__nv_cvt_fp8_to_halfraw(const __nv_fp8_storage_t x, const __nv_fp8_interpretation_t fp8_interpretation)
{
    __half_raw r;
    unsigned s = (unsigned)(x & 0x80u) << 8;
    if (fp8_interpretation == __NV_E5M2) {
        /* E5M2 is the top byte of a half */
        r.x = (unsigned short)((x & 0x7Fu) > 0x7Cu ? 0x7FFFu : (unsigned)x << 8);
        return r;
    }
    unsigned e = (x >> 3) & 0xFu, man = x & 7u;
    if ((x & 0x7Fu) == 0x7Fu) {
        r.x = 0x7FFFu;
    } else if (e == 0) {
        /* man 2^-9 as a half: normalise (half's subnormals end at 2^-14) */
        unsigned he = 0, hm = 0;
        if (man != 0) {
            unsigned p = man >= 4u ? 2u : man >= 2u ? 1u : 0u; /* man's leading one */
            he = p + 6u;                                       /* 2^(p - 9) in half: p - 9 + 15 */
            hm = (man - (1u << p)) << (10u - p);
        }
        r.x = (unsigned short)(s | (he << 10) | hm);
    } else {
        r.x = (unsigned short)(s | ((e + 8u) << 10) | (man << 7));
    }
    return r;
}

static inline __half2_raw
__nv_cvt_fp8x2_to_halfraw2(const __nv_fp8x2_storage_t x, const __nv_fp8_interpretation_t fp8_interpretation)
{
    __half2_raw r;
    r.x = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)(x & 0xFFu), fp8_interpretation).x;
    r.y = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)(x >> 8), fp8_interpretation).x;
    return r;
}

/* fp8 -> float, exact (FreeDNN's helper; CUDA goes through half, whose
 * canonical NaN becomes the float NaN 0x7FFFFFFF). */
static inline float
fdnn_cuda_fp8_to_f32(const __nv_fp8_storage_t x, const __nv_fp8_interpretation_t fp8_interpretation)
{
    unsigned short h = __nv_cvt_fp8_to_halfraw(x, fp8_interpretation).x;
    return h == 0x7FFFu ? fdnn_cuda_f32_from_bits(0x7FFFFFFFu) : fdnn_cuda_f16_bits_to_f32(h);
}

/* ---- the C++ types ---------------------------------------------------------------- */
#ifdef __cplusplus

#define FDNN_CUDA_FP8_CLASS(NAME, KIND)                                                                        \
    struct FDNN_CUDA_ALIGN(1) NAME {                                                                           \
        __nv_fp8_storage_t __x;                                                                                \
                                                                                                               \
        NAME() = default;                                                                                      \
        explicit NAME(float f) : __x(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, KIND)) {}                        \
        explicit NAME(double d) : __x(__nv_cvt_double_to_fp8(d, __NV_SATFINITE, KIND)) {}                      \
        explicit NAME(__half h) : __x(__nv_cvt_halfraw_to_fp8(static_cast<__half_raw>(h), __NV_SATFINITE, KIND)) \
        {                                                                                                      \
        }                                                                                                      \
        explicit NAME(__nv_bfloat16 b)                                                                         \
            : __x(__nv_cvt_bfloat16raw_to_fp8(static_cast<__nv_bfloat16_raw>(b), __NV_SATFINITE, KIND))        \
        {                                                                                                      \
        }                                                                                                      \
        explicit NAME(int v) : __x(__nv_cvt_double_to_fp8((double)v, __NV_SATFINITE, KIND)) {}                 \
        explicit NAME(unsigned int v) : __x(__nv_cvt_double_to_fp8((double)v, __NV_SATFINITE, KIND)) {}        \
        explicit NAME(long long v)                                                                             \
            : __x(__nv_cvt_double_to_fp8(fdnn_cuda_s64_to_f64_odd(v), __NV_SATFINITE, KIND))                   \
        {                                                                                                      \
        }                                                                                                      \
        explicit NAME(unsigned long long v)                                                                    \
            : __x(__nv_cvt_double_to_fp8(fdnn_cuda_u64_to_f64_odd(v), __NV_SATFINITE, KIND))                   \
        {                                                                                                      \
        }                                                                                                      \
        explicit operator float() const { return fdnn_cuda_fp8_to_f32(__x, KIND); }                            \
        explicit operator double() const { return (double)fdnn_cuda_fp8_to_f32(__x, KIND); }                   \
        explicit operator __half() const { return __half(__nv_cvt_fp8_to_halfraw(__x, KIND)); }                \
        explicit operator __nv_bfloat16() const { return __nv_bfloat16(fdnn_cuda_fp8_to_f32(__x, KIND)); }     \
        explicit operator int() const                                                                          \
        {                                                                                                      \
            return (int)fdnn_cuda_f32_to_s64_rz(fdnn_cuda_fp8_to_f32(__x, KIND), INT_MIN, INT_MAX);            \
        }                                                                                                      \
        explicit operator unsigned int() const                                                                 \
        {                                                                                                      \
            return (unsigned int)fdnn_cuda_f32_to_u64_rz(fdnn_cuda_fp8_to_f32(__x, KIND), UINT_MAX);           \
        }                                                                                                      \
        explicit operator long long() const                                                                    \
        {                                                                                                      \
            return fdnn_cuda_f32_to_s64_rz(fdnn_cuda_fp8_to_f32(__x, KIND), LLONG_MIN, LLONG_MAX);             \
        }                                                                                                      \
        explicit operator bool() const { return (__x & 0x7Fu) != 0; }                                          \
    };

FDNN_CUDA_FP8_CLASS(__nv_fp8_e4m3, __NV_E4M3)
FDNN_CUDA_FP8_CLASS(__nv_fp8_e5m2, __NV_E5M2)

#define FDNN_CUDA_FP8X2_CLASS(NAME, KIND)                                                                      \
    struct FDNN_CUDA_ALIGN(2) NAME {                                                                           \
        __nv_fp8x2_storage_t __x;                                                                              \
                                                                                                               \
        NAME() = default;                                                                                      \
        explicit NAME(float2 f) : __x(__nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, KIND)) {}                    \
        explicit NAME(double2 d) : __x(__nv_cvt_double2_to_fp8x2(d, __NV_SATFINITE, KIND)) {}                  \
        explicit operator float2() const                                                                       \
        {                                                                                                      \
            float2 r;                                                                                          \
            r.x = fdnn_cuda_fp8_to_f32((__nv_fp8_storage_t)(__x & 0xFFu), KIND);                               \
            r.y = fdnn_cuda_fp8_to_f32((__nv_fp8_storage_t)(__x >> 8), KIND);                                  \
            return r;                                                                                          \
        }                                                                                                      \
    };

FDNN_CUDA_FP8X2_CLASS(__nv_fp8x2_e4m3, __NV_E4M3)
FDNN_CUDA_FP8X2_CLASS(__nv_fp8x2_e5m2, __NV_E5M2)

#define FDNN_CUDA_FP8X4_CLASS(NAME, KIND)                                                                      \
    struct FDNN_CUDA_ALIGN(4) NAME {                                                                           \
        __nv_fp8x4_storage_t __x;                                                                              \
                                                                                                               \
        NAME() = default;                                                                                      \
        explicit NAME(float4 f)                                                                                \
            : __x((__nv_fp8x4_storage_t)__nv_cvt_float_to_fp8(f.x, __NV_SATFINITE, KIND) |                     \
                  ((__nv_fp8x4_storage_t)__nv_cvt_float_to_fp8(f.y, __NV_SATFINITE, KIND) << 8) |              \
                  ((__nv_fp8x4_storage_t)__nv_cvt_float_to_fp8(f.z, __NV_SATFINITE, KIND) << 16) |             \
                  ((__nv_fp8x4_storage_t)__nv_cvt_float_to_fp8(f.w, __NV_SATFINITE, KIND) << 24))              \
        {                                                                                                      \
        }                                                                                                      \
        explicit operator float4() const                                                                       \
        {                                                                                                      \
            float4 r;                                                                                          \
            r.x = fdnn_cuda_fp8_to_f32((__nv_fp8_storage_t)(__x & 0xFFu), KIND);                               \
            r.y = fdnn_cuda_fp8_to_f32((__nv_fp8_storage_t)((__x >> 8) & 0xFFu), KIND);                        \
            r.z = fdnn_cuda_fp8_to_f32((__nv_fp8_storage_t)((__x >> 16) & 0xFFu), KIND);                       \
            r.w = fdnn_cuda_fp8_to_f32((__nv_fp8_storage_t)(__x >> 24), KIND);                                 \
            return r;                                                                                          \
        }                                                                                                      \
    };

FDNN_CUDA_FP8X4_CLASS(__nv_fp8x4_e4m3, __NV_E4M3)
FDNN_CUDA_FP8X4_CLASS(__nv_fp8x4_e5m2, __NV_E5M2)

#undef FDNN_CUDA_FP8_CLASS
#undef FDNN_CUDA_FP8X2_CLASS
#undef FDNN_CUDA_FP8X4_CLASS

#endif /* __cplusplus */

#endif /* FDNN_COMPAT_CUDA_FP8_H */
