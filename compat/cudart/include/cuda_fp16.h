/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the IEEE binary16 type of CUDA on the host,
 * for C and C++ host code.
 *
 * __half is two bytes holding the binary16 bits (the layout of CUDA's
 * __half, so arrays of it are what cuDNN's CUDNN_DATA_HALF tensors hold);
 * __half2 is two of them, 4-byte aligned.  Conversions to half round to
 * nearest, ties to even, as CUDA's _rn functions do, with one rounding
 * from any source type (double and 64-bit integers included); NaN stays
 * NaN (quiet), overflow gives infinity, tiny values become subnormals or
 * signed zero.  Conversions from half to integers round toward zero and
 * saturate, NaN giving 0 (CUDA's _rz functions).  Arithmetic is computed
 * in float and rounded once to half, which is the correctly rounded half
 * result for + - * / (float has more than twice half's precision).
 *
 * In C the types are plain structs and the functions below are the whole
 * interface.  In C++ (as NVIDIA's header) __half and __half2 are classes,
 * trivially copyable, with constructors from __half_raw, float, double and
 * the integer types, conversion operators to __half_raw, float and the
 * integer types, the arithmetic operators (+ - * / unary - and the
 * compound assignments, ++ and --) and the comparisons; __half2 works lane
 * by lane.  As with NVIDIA's header, an expression mixing __half and a
 * built-in type (h + 1.0f) is ambiguous: convert one side explicitly. */
#ifndef FDNN_COMPAT_CUDA_FP16_H
#define FDNN_COMPAT_CUDA_FP16_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "vector_types.h"

#if defined(__GNUC__) || defined(__clang__)
#define FDNN_CUDA_ALIGN(n) __attribute__((aligned(n)))
#else
#define FDNN_CUDA_ALIGN(n)
#endif

/* ---- bit-level conversions, shared with cuda_bf16.h ------------------------------ */
#ifndef FDNN_CUDA_HALF_BITS_DEFINED
#define FDNN_CUDA_HALF_BITS_DEFINED

static inline uint32_t
fdnn_cuda_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float
fdnn_cuda_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* double -> float rounded to odd: truncate toward zero, and set the last
 * bit when anything was dropped.  A later round-to-nearest-even to a format
 * of at most 22 bits of precision (half: 11, bfloat16: 8) then gives the
 * correctly rounded result of the double: one rounding, not two. */
static inline float
fdnn_cuda_f64_to_f32_odd(double d)
{
    float f = (float)d; /* nearest */
    if (d != d || (double)f == d)
        return f;
    uint32_t u = fdnn_cuda_f32_bits(f);
    if ((f < 0 ? -(double)f : (double)f) > (d < 0 ? -d : d))
        u -= 1u; /* rounded away from zero (or to infinity): step back */
    return fdnn_cuda_f32_from_bits(u | 1u);
}

/* 64-bit integer magnitude -> double rounded to odd (exact below 2^53). */
static inline double
fdnn_cuda_u64_to_f64_odd(unsigned long long m)
{
    double scale = 1.0;
    unsigned long long sticky = 0;
    while (m >= (1ull << 53)) {
        sticky |= m & 1u;
        m >>= 1;
        scale *= 2.0;
    }
    return (double)(m | sticky) * scale;
}

static inline double
fdnn_cuda_s64_to_f64_odd(long long v)
{
    /* the magnitude of LLONG_MIN is 2^63, representable as unsigned */
    const unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    const double d = fdnn_cuda_u64_to_f64_odd(m);
    return v < 0 ? -d : d;
}

/* A float rounded toward zero to an integer in [lo, hi] (hi may be 2^64 -
 * 1: the comparisons are in double, where hi and lo round to powers of two
 * that are out of range themselves); NaN gives 0. */
static inline long long
fdnn_cuda_f32_to_s64_rz(float f, long long lo, long long hi)
{
    const double d = f;
    if (d != d)
        return 0;
    if (d <= (double)lo)
        return lo;
    if (d >= (double)hi)
        return hi;
    return (long long)d;
}

static inline unsigned long long
fdnn_cuda_f32_to_u64_rz(float f, unsigned long long hi)
{
    const double d = f;
    if (d != d || d <= 0.0)
        return 0;
    if (d >= (double)hi)
        return hi;
    return (unsigned long long)d;
}

#endif /* FDNN_CUDA_HALF_BITS_DEFINED */

/* binary32 -> binary16 bits, round to nearest even. */
static inline unsigned short
fdnn_cuda_f32_to_f16_bits(float f)
{
    const uint32_t x = fdnn_cuda_f32_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t a = x & 0x7fffffffu;
    if (a > 0x7f800000u) /* NaN: quiet, keep the top payload bits */
        return (unsigned short)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) /* >= 65520 rounds to infinity */
        return (unsigned short)(sign | 0x7c00u);
    if (a >= 0x38800000u) { /* normal: rebias the exponent by 127 - 15 */
        uint32_t h = (a - 0x38000000u) >> 13;
        const uint32_t rem = a & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
            h++;
        return (unsigned short)(sign | h);
    }
    if (a <= 0x33000000u) /* at most 2^-25: rounds to zero */
        return (unsigned short)sign;
    /* Subnormal: the value in units of 2^-24 is m * 2^(e - 126). */
    const uint32_t e = a >> 23;
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e;
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (q & 1u)))
        q++;
    return (unsigned short)(sign | q);
}

/* binary16 bits -> binary32, exact. */
static inline float
fdnn_cuda_f16_bits_to_f32(unsigned short h)
{
    const uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    const uint32_t e = ((uint32_t)h >> 10) & 0x1fu;
    const uint32_t m = (uint32_t)h & 0x3ffu;
    if (e == 0x1fu)
        return fdnn_cuda_f32_from_bits(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        const float f = (float)m * 5.9604644775390625e-8f; /* m * 2^-24, exact */
        return sign ? -f : f;
    }
    return fdnn_cuda_f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

/* ---- the types ------------------------------------------------------------------- */
#ifdef __cplusplus

struct FDNN_CUDA_ALIGN(2) __half_raw {
    unsigned short x;
};

struct FDNN_CUDA_ALIGN(4) __half2_raw {
    unsigned short x;
    unsigned short y;
};

struct FDNN_CUDA_ALIGN(2) __half {
  protected:
    unsigned short __x;

  public:
    __half() = default; /* uninitialised, as a built-in type: keeps the class trivial */
    __half(const __half_raw &hr) : __x(hr.x) {}
    __half &operator=(const __half_raw &hr)
    {
        __x = hr.x;
        return *this;
    }
    operator __half_raw() const
    {
        __half_raw r;
        r.x = __x;
        return r;
    }

    /* from the built-in types, rounded to nearest even */
    __half(float f) : __x(fdnn_cuda_f32_to_f16_bits(f)) {}
    __half(double d) : __x(fdnn_cuda_f32_to_f16_bits(fdnn_cuda_f64_to_f32_odd(d))) {}
    __half(short v) : __x(fdnn_cuda_f32_to_f16_bits((float)v)) {}
    __half(unsigned short v) : __x(fdnn_cuda_f32_to_f16_bits((float)v)) {}
    __half(int v) : __x(fdnn_cuda_f32_to_f16_bits(fdnn_cuda_f64_to_f32_odd((double)v))) {}
    __half(unsigned int v) : __x(fdnn_cuda_f32_to_f16_bits(fdnn_cuda_f64_to_f32_odd((double)v))) {}
    __half(long v) : __x(fdnn_cuda_f32_to_f16_bits(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_s64_to_f64_odd(v)))) {}
    __half(unsigned long v) : __x(fdnn_cuda_f32_to_f16_bits(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_u64_to_f64_odd(v)))) {}
    __half(long long v) : __x(fdnn_cuda_f32_to_f16_bits(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_s64_to_f64_odd(v)))) {}
    __half(unsigned long long v)
        : __x(fdnn_cuda_f32_to_f16_bits(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_u64_to_f64_odd(v))))
    {
    }
    __half &operator=(float f) { return *this = __half(f); }
    __half &operator=(double d) { return *this = __half(d); }
    __half &operator=(short v) { return *this = __half(v); }
    __half &operator=(unsigned short v) { return *this = __half(v); }
    __half &operator=(int v) { return *this = __half(v); }
    __half &operator=(unsigned int v) { return *this = __half(v); }
    __half &operator=(long long v) { return *this = __half(v); }
    __half &operator=(unsigned long long v) { return *this = __half(v); }

    /* to float exactly; to the integer types toward zero, saturated, NaN 0 */
    operator float() const { return fdnn_cuda_f16_bits_to_f32(__x); }
    operator signed char() const { return (signed char)fdnn_cuda_f32_to_s64_rz(float(*this), -128, 127); }
    operator unsigned char() const { return (unsigned char)fdnn_cuda_f32_to_u64_rz(float(*this), 255); }
    operator char() const { return (char)fdnn_cuda_f32_to_s64_rz(float(*this), CHAR_MIN, CHAR_MAX); }
    operator short() const { return (short)fdnn_cuda_f32_to_s64_rz(float(*this), -32768, 32767); }
    operator unsigned short() const { return (unsigned short)fdnn_cuda_f32_to_u64_rz(float(*this), 65535); }
    operator int() const { return (int)fdnn_cuda_f32_to_s64_rz(float(*this), INT_MIN, INT_MAX); }
    operator unsigned int() const { return (unsigned int)fdnn_cuda_f32_to_u64_rz(float(*this), UINT_MAX); }
    operator long() const { return (long)fdnn_cuda_f32_to_s64_rz(float(*this), LONG_MIN, LONG_MAX); }
    operator unsigned long() const { return (unsigned long)fdnn_cuda_f32_to_u64_rz(float(*this), ULONG_MAX); }
    operator long long() const { return fdnn_cuda_f32_to_s64_rz(float(*this), LLONG_MIN, LLONG_MAX); }
    operator unsigned long long() const { return fdnn_cuda_f32_to_u64_rz(float(*this), ULLONG_MAX); }
    /* true unless +0 or -0 */
    operator bool() const { return (__x & 0x7fffu) != 0; }
};

struct FDNN_CUDA_ALIGN(4) __half2 {
    __half x;
    __half y;

    __half2() = default;
    __half2(const __half &a, const __half &b) : x(a), y(b) {}
    __half2(const __half2_raw &h2r)
    {
        __half_raw lo, hi;
        lo.x = h2r.x;
        hi.x = h2r.y;
        x = __half(lo);
        y = __half(hi);
    }
    __half2 &operator=(const __half2_raw &h2r) { return *this = __half2(h2r); }
    operator __half2_raw() const
    {
        __half2_raw r;
        r.x = __half_raw(x).x;
        r.y = __half_raw(y).x;
        return r;
    }
};

typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;

#else /* C */

typedef struct FDNN_CUDA_ALIGN(2) __half_raw {
    unsigned short x;
} __half_raw;

typedef struct FDNN_CUDA_ALIGN(4) __half2_raw {
    unsigned short x;
    unsigned short y;
} __half2_raw;

typedef struct FDNN_CUDA_ALIGN(2) __half {
    unsigned short __x;
} __half;

typedef struct FDNN_CUDA_ALIGN(4) __half2 {
    __half x;
    __half y;
} __half2;

#endif /* __cplusplus */

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half nv_half;
typedef __half2 nv_half2;

/* ---- the functions (C and C++) ---------------------------------------------------- */

/* The bits of h, and the half with bits b (every function goes through these). */
static inline unsigned short
__half_as_ushort(__half h)
{
#ifdef __cplusplus
    return static_cast<__half_raw>(h).x; /* memcpy on the class would trip -Wclass-memaccess */
#else
    return h.__x;
#endif
}

static inline __half
__ushort_as_half(unsigned short b)
{
#ifdef __cplusplus
    __half_raw r;
    r.x = b;
    return __half(r);
#else
    __half h;
    h.__x = b;
    return h;
#endif
}

static inline short
__half_as_short(__half h)
{
    const unsigned short b = __half_as_ushort(h);
    short s;
    memcpy(&s, &b, sizeof(s));
    return s;
}

static inline __half
__short_as_half(short s)
{
    unsigned short b;
    memcpy(&b, &s, sizeof(b));
    return __ushort_as_half(b);
}

static inline __half
__float2half_rn(float a)
{
    return __ushort_as_half(fdnn_cuda_f32_to_f16_bits(a));
}

static inline __half
__float2half(float a)
{
    return __float2half_rn(a);
}

static inline float
__half2float(__half a)
{
    return fdnn_cuda_f16_bits_to_f32(__half_as_ushort(a));
}

/* One rounding from double (through a round-to-odd float). */
static inline __half
__double2half(double a)
{
    return __float2half_rn(fdnn_cuda_f64_to_f32_odd(a));
}

static inline __half
__int2half_rn(int i)
{
    return __float2half_rn(fdnn_cuda_f64_to_f32_odd((double)i));
}

static inline __half
__uint2half_rn(unsigned int i)
{
    return __float2half_rn(fdnn_cuda_f64_to_f32_odd((double)i));
}

static inline __half
__short2half_rn(short i)
{
    return __float2half_rn((float)i);
}

static inline __half
__ushort2half_rn(unsigned short i)
{
    return __float2half_rn((float)i);
}

static inline __half
__ll2half_rn(long long i)
{
    return __float2half_rn(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_s64_to_f64_odd(i)));
}

static inline __half
__ull2half_rn(unsigned long long i)
{
    return __float2half_rn(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_u64_to_f64_odd(i)));
}

/* Toward zero, saturated, NaN 0. */
static inline int
__half2int_rz(__half h)
{
    return (int)fdnn_cuda_f32_to_s64_rz(__half2float(h), INT_MIN, INT_MAX);
}

static inline unsigned int
__half2uint_rz(__half h)
{
    return (unsigned int)fdnn_cuda_f32_to_u64_rz(__half2float(h), UINT_MAX);
}

static inline short
__half2short_rz(__half h)
{
    return (short)fdnn_cuda_f32_to_s64_rz(__half2float(h), -32768, 32767);
}

static inline unsigned short
__half2ushort_rz(__half h)
{
    return (unsigned short)fdnn_cuda_f32_to_u64_rz(__half2float(h), 65535);
}

static inline long long
__half2ll_rz(__half h)
{
    return fdnn_cuda_f32_to_s64_rz(__half2float(h), LLONG_MIN, LLONG_MAX);
}

static inline unsigned long long
__half2ull_rz(__half h)
{
    return fdnn_cuda_f32_to_u64_rz(__half2float(h), ULLONG_MAX);
}

static inline __half2
__halves2half2(__half a, __half b)
{
    __half2 r;
    r.x = a;
    r.y = b;
    return r;
}

static inline __half2
__floats2half2_rn(float a, float b)
{
    return __halves2half2(__float2half_rn(a), __float2half_rn(b));
}

static inline __half2
__float2half2_rn(float a)
{
    return __floats2half2_rn(a, a);
}

static inline __half2
__float22half2_rn(float2 a)
{
    return __floats2half2_rn(a.x, a.y);
}

static inline __half2
__half2half2(__half a)
{
    return __halves2half2(a, a);
}

static inline float2
__half22float2(__half2 a)
{
    float2 r;
    r.x = __half2float(a.x);
    r.y = __half2float(a.y);
    return r;
}

static inline float
__low2float(__half2 a)
{
    return __half2float(a.x);
}

static inline float
__high2float(__half2 a)
{
    return __half2float(a.y);
}

static inline __half
__low2half(__half2 a)
{
    return a.x;
}

static inline __half
__high2half(__half2 a)
{
    return a.y;
}

static inline __half2
__lowhigh2highlow(__half2 a)
{
    return __halves2half2(a.y, a.x);
}

/* Arithmetic in float, rounded once to half (correctly rounded). */
static inline __half
__hadd(__half a, __half b)
{
    return __float2half_rn(__half2float(a) + __half2float(b));
}

static inline __half
__hsub(__half a, __half b)
{
    return __float2half_rn(__half2float(a) - __half2float(b));
}

static inline __half
__hmul(__half a, __half b)
{
    return __float2half_rn(__half2float(a) * __half2float(b));
}

static inline __half
__hdiv(__half a, __half b)
{
    return __float2half_rn(__half2float(a) / __half2float(b));
}

static inline __half
__hneg(__half a)
{
    return __ushort_as_half((unsigned short)(__half_as_ushort(a) ^ 0x8000u));
}

static inline __half
__habs(__half a)
{
    return __ushort_as_half((unsigned short)(__half_as_ushort(a) & 0x7fffu));
}

static inline __half2
__hadd2(__half2 a, __half2 b)
{
    return __halves2half2(__hadd(a.x, b.x), __hadd(a.y, b.y));
}

static inline __half2
__hsub2(__half2 a, __half2 b)
{
    return __halves2half2(__hsub(a.x, b.x), __hsub(a.y, b.y));
}

static inline __half2
__hmul2(__half2 a, __half2 b)
{
    return __halves2half2(__hmul(a.x, b.x), __hmul(a.y, b.y));
}

static inline __half2
__h2div(__half2 a, __half2 b)
{
    return __halves2half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y));
}

static inline __half2
__hneg2(__half2 a)
{
    return __halves2half2(__hneg(a.x), __hneg(a.y));
}

/* Comparisons as IEEE: false with a NaN (except __hne's "unordered or
 * different" cousin __hneu). */
static inline int
__heq(__half a, __half b)
{
    return __half2float(a) == __half2float(b);
}

static inline int
__hne(__half a, __half b)
{
    const float x = __half2float(a), y = __half2float(b);
    return x < y || x > y;
}

static inline int
__hneu(__half a, __half b)
{
    return !(__half2float(a) == __half2float(b));
}

static inline int
__hlt(__half a, __half b)
{
    return __half2float(a) < __half2float(b);
}

static inline int
__hle(__half a, __half b)
{
    return __half2float(a) <= __half2float(b);
}

static inline int
__hgt(__half a, __half b)
{
    return __half2float(a) > __half2float(b);
}

static inline int
__hge(__half a, __half b)
{
    return __half2float(a) >= __half2float(b);
}

static inline int
__hisnan(__half a)
{
    return (__half_as_ushort(a) & 0x7fffu) > 0x7c00u;
}

static inline int
__hisinf(__half a)
{
    const unsigned short b = __half_as_ushort(a);
    return b == 0x7c00u ? 1 : b == 0xfc00u ? -1 : 0;
}

/* ---- C++ operators -------------------------------------------------------------- */
#ifdef __cplusplus

static inline __half operator+(const __half &a, const __half &b) { return __hadd(a, b); }
static inline __half operator-(const __half &a, const __half &b) { return __hsub(a, b); }
static inline __half operator*(const __half &a, const __half &b) { return __hmul(a, b); }
static inline __half operator/(const __half &a, const __half &b) { return __hdiv(a, b); }
static inline __half &operator+=(__half &a, const __half &b) { return a = __hadd(a, b); }
static inline __half &operator-=(__half &a, const __half &b) { return a = __hsub(a, b); }
static inline __half &operator*=(__half &a, const __half &b) { return a = __hmul(a, b); }
static inline __half &operator/=(__half &a, const __half &b) { return a = __hdiv(a, b); }
static inline __half operator+(const __half &a) { return a; }
static inline __half operator-(const __half &a) { return __hneg(a); }
static inline __half &operator++(__half &a) { return a = __hadd(a, __ushort_as_half(0x3c00u)); }
static inline __half &operator--(__half &a) { return a = __hsub(a, __ushort_as_half(0x3c00u)); }
static inline __half
operator++(__half &a, int)
{
    const __half old = a;
    ++a;
    return old;
}
static inline __half
operator--(__half &a, int)
{
    const __half old = a;
    --a;
    return old;
}
static inline bool operator==(const __half &a, const __half &b) { return __heq(a, b) != 0; }
static inline bool operator!=(const __half &a, const __half &b) { return __hneu(a, b) != 0; }
static inline bool operator<(const __half &a, const __half &b) { return __hlt(a, b) != 0; }
static inline bool operator<=(const __half &a, const __half &b) { return __hle(a, b) != 0; }
static inline bool operator>(const __half &a, const __half &b) { return __hgt(a, b) != 0; }
static inline bool operator>=(const __half &a, const __half &b) { return __hge(a, b) != 0; }

static inline __half2 operator+(const __half2 &a, const __half2 &b) { return __hadd2(a, b); }
static inline __half2 operator-(const __half2 &a, const __half2 &b) { return __hsub2(a, b); }
static inline __half2 operator*(const __half2 &a, const __half2 &b) { return __hmul2(a, b); }
static inline __half2 operator/(const __half2 &a, const __half2 &b) { return __h2div(a, b); }
static inline __half2 &operator+=(__half2 &a, const __half2 &b) { return a = __hadd2(a, b); }
static inline __half2 &operator-=(__half2 &a, const __half2 &b) { return a = __hsub2(a, b); }
static inline __half2 &operator*=(__half2 &a, const __half2 &b) { return a = __hmul2(a, b); }
static inline __half2 &operator/=(__half2 &a, const __half2 &b) { return a = __h2div(a, b); }
static inline __half2 operator+(const __half2 &a) { return a; }
static inline __half2 operator-(const __half2 &a) { return __hneg2(a); }
/* both lanes (CUDA's __hbeq2 and friends) */
static inline bool operator==(const __half2 &a, const __half2 &b) { return a.x == b.x && a.y == b.y; }
static inline bool operator!=(const __half2 &a, const __half2 &b) { return a.x != b.x && a.y != b.y; }
static inline bool operator<(const __half2 &a, const __half2 &b) { return a.x < b.x && a.y < b.y; }
static inline bool operator<=(const __half2 &a, const __half2 &b) { return a.x <= b.x && a.y <= b.y; }
static inline bool operator>(const __half2 &a, const __half2 &b) { return a.x > b.x && a.y > b.y; }
static inline bool operator>=(const __half2 &a, const __half2 &b) { return a.x >= b.x && a.y >= b.y; }

#endif /* __cplusplus */

#endif /* FDNN_COMPAT_CUDA_FP16_H */
