/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: bfloat16 of CUDA on the host, for C and C++
 * host code.
 *
 * __nv_bfloat16 is two bytes holding the top half of a binary32 (the layout
 * of CUDA's type, what CUDNN_DATA_BFLOAT16 tensors hold); __nv_bfloat162
 * is two of them, 4-byte aligned.  Conversions to bfloat16 round to
 * nearest, ties to even, with one rounding from any source type; NaN stays
 * NaN (quiet).  Conversion to float is exact (the 16 bits become the top
 * of the float).  Conversions to integers round toward zero and saturate,
 * NaN giving 0.  Arithmetic is computed in float and rounded once, the
 * correctly rounded bfloat16 result.
 *
 * In C the types are plain structs and the conversion functions below are
 * the interface.  In C++ (as NVIDIA's header) __nv_bfloat16 and
 * __nv_bfloat162 are classes, trivially copyable, with the constructors,
 * conversion operators, arithmetic and comparison operators of __half
 * (cuda_fp16.h, which this header includes, as NVIDIA's does), and the
 * __half2-style helpers (__low2float, __hadd, ...) are overloaded for
 * them. */
#ifndef FDNN_COMPAT_CUDA_BF16_H
#define FDNN_COMPAT_CUDA_BF16_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "cuda_fp16.h"
#include "vector_types.h"

/* binary32 -> bfloat16 bits, round to nearest even; NaN stays a quiet NaN. */
static inline unsigned short
fdnn_cuda_f32_to_bf16_bits(float f)
{
    uint32_t x = fdnn_cuda_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (unsigned short)((x >> 16) | 0x0040u);
    /* Adding 0x7fff plus the lowest kept bit rounds to nearest even; a
     * carry into the exponent is the correct result (up to infinity). */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (unsigned short)(x >> 16);
}

static inline float
fdnn_cuda_bf16_bits_to_f32(unsigned short b)
{
    return fdnn_cuda_f32_from_bits((uint32_t)b << 16);
}

/* ---- the types ------------------------------------------------------------------- */
#ifdef __cplusplus

struct FDNN_CUDA_ALIGN(2) __nv_bfloat16_raw {
    unsigned short x;
};

struct FDNN_CUDA_ALIGN(4) __nv_bfloat162_raw {
    unsigned short x;
    unsigned short y;
};

struct FDNN_CUDA_ALIGN(2) __nv_bfloat16 {
  protected:
    unsigned short __x;

  public:
    __nv_bfloat16() = default; /* uninitialised: keeps the class trivial */
    __nv_bfloat16(const __nv_bfloat16_raw &r) : __x(r.x) {}
    __nv_bfloat16 &operator=(const __nv_bfloat16_raw &r)
    {
        __x = r.x;
        return *this;
    }
    operator __nv_bfloat16_raw() const
    {
        __nv_bfloat16_raw r;
        r.x = __x;
        return r;
    }

    /* from the built-in types (and __half, exactly widened first), rounded
     * to nearest even once */
    __nv_bfloat16(float f) : __x(fdnn_cuda_f32_to_bf16_bits(f)) {}
    __nv_bfloat16(double d) : __x(fdnn_cuda_f32_to_bf16_bits(fdnn_cuda_f64_to_f32_odd(d))) {}
    explicit __nv_bfloat16(__half h) : __x(fdnn_cuda_f32_to_bf16_bits(__half2float(h))) {}
    __nv_bfloat16(short v) : __x(fdnn_cuda_f32_to_bf16_bits(fdnn_cuda_f64_to_f32_odd((double)v))) {}
    __nv_bfloat16(unsigned short v) : __x(fdnn_cuda_f32_to_bf16_bits(fdnn_cuda_f64_to_f32_odd((double)v))) {}
    __nv_bfloat16(int v) : __x(fdnn_cuda_f32_to_bf16_bits(fdnn_cuda_f64_to_f32_odd((double)v))) {}
    __nv_bfloat16(unsigned int v) : __x(fdnn_cuda_f32_to_bf16_bits(fdnn_cuda_f64_to_f32_odd((double)v))) {}
    __nv_bfloat16(long v)
        : __x(fdnn_cuda_f32_to_bf16_bits(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_s64_to_f64_odd(v))))
    {
    }
    __nv_bfloat16(unsigned long v)
        : __x(fdnn_cuda_f32_to_bf16_bits(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_u64_to_f64_odd(v))))
    {
    }
    __nv_bfloat16(long long v)
        : __x(fdnn_cuda_f32_to_bf16_bits(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_s64_to_f64_odd(v))))
    {
    }
    __nv_bfloat16(unsigned long long v)
        : __x(fdnn_cuda_f32_to_bf16_bits(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_u64_to_f64_odd(v))))
    {
    }
    __nv_bfloat16 &operator=(float f) { return *this = __nv_bfloat16(f); }
    __nv_bfloat16 &operator=(double d) { return *this = __nv_bfloat16(d); }
    __nv_bfloat16 &operator=(short v) { return *this = __nv_bfloat16(v); }
    __nv_bfloat16 &operator=(unsigned short v) { return *this = __nv_bfloat16(v); }
    __nv_bfloat16 &operator=(int v) { return *this = __nv_bfloat16(v); }
    __nv_bfloat16 &operator=(unsigned int v) { return *this = __nv_bfloat16(v); }
    __nv_bfloat16 &operator=(long long v) { return *this = __nv_bfloat16(v); }
    __nv_bfloat16 &operator=(unsigned long long v) { return *this = __nv_bfloat16(v); }

    /* to float exactly; to the integer types toward zero, saturated, NaN 0 */
    operator float() const { return fdnn_cuda_bf16_bits_to_f32(__x); }
    operator signed char() const { return (signed char)fdnn_cuda_f32_to_s64_rz(float(*this), -128, 127); }
    operator unsigned char() const { return (unsigned char)fdnn_cuda_f32_to_u64_rz(float(*this), 255); }
    operator char() const { return (char)fdnn_cuda_f32_to_s64_rz(float(*this), CHAR_MIN, CHAR_MAX); }
    operator short() const { return (short)fdnn_cuda_f32_to_s64_rz(float(*this), SHRT_MIN, SHRT_MAX); }
    operator unsigned short() const { return (unsigned short)fdnn_cuda_f32_to_u64_rz(float(*this), USHRT_MAX); }
    operator int() const { return (int)fdnn_cuda_f32_to_s64_rz(float(*this), INT_MIN, INT_MAX); }
    operator unsigned int() const { return (unsigned int)fdnn_cuda_f32_to_u64_rz(float(*this), UINT_MAX); }
    operator long() const { return (long)fdnn_cuda_f32_to_s64_rz(float(*this), LONG_MIN, LONG_MAX); }
    operator unsigned long() const { return (unsigned long)fdnn_cuda_f32_to_u64_rz(float(*this), ULONG_MAX); }
    operator long long() const { return fdnn_cuda_f32_to_s64_rz(float(*this), LLONG_MIN, LLONG_MAX); }
    operator unsigned long long() const { return fdnn_cuda_f32_to_u64_rz(float(*this), ULLONG_MAX); }
    /* true unless +0 or -0 */
    operator bool() const { return (__x & 0x7fffu) != 0; }
};

struct FDNN_CUDA_ALIGN(4) __nv_bfloat162 {
    __nv_bfloat16 x;
    __nv_bfloat16 y;

    __nv_bfloat162() = default;
    __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
    __nv_bfloat162(const __nv_bfloat162_raw &r)
    {
        __nv_bfloat16_raw lo, hi;
        lo.x = r.x;
        hi.x = r.y;
        x = __nv_bfloat16(lo);
        y = __nv_bfloat16(hi);
    }
    __nv_bfloat162 &operator=(const __nv_bfloat162_raw &r) { return *this = __nv_bfloat162(r); }
    operator __nv_bfloat162_raw() const
    {
        __nv_bfloat162_raw r;
        r.x = __nv_bfloat16_raw(x).x;
        r.y = __nv_bfloat16_raw(y).x;
        return r;
    }
};

#else /* C */

typedef struct FDNN_CUDA_ALIGN(2) __nv_bfloat16_raw {
    unsigned short x;
} __nv_bfloat16_raw;

typedef struct FDNN_CUDA_ALIGN(4) __nv_bfloat162_raw {
    unsigned short x;
    unsigned short y;
} __nv_bfloat162_raw;

typedef struct FDNN_CUDA_ALIGN(2) __nv_bfloat16 {
    unsigned short __x;
} __nv_bfloat16;

typedef struct FDNN_CUDA_ALIGN(4) __nv_bfloat162 {
    __nv_bfloat16 x;
    __nv_bfloat16 y;
} __nv_bfloat162;

#endif /* __cplusplus */

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* ---- the functions (C and C++) ---------------------------------------------------- */

static inline unsigned short
__bfloat16_as_ushort(__nv_bfloat16 h)
{
#ifdef __cplusplus
    return static_cast<__nv_bfloat16_raw>(h).x; /* memcpy on the class would trip -Wclass-memaccess */
#else
    return h.__x;
#endif
}

static inline __nv_bfloat16
__ushort_as_bfloat16(unsigned short b)
{
#ifdef __cplusplus
    __nv_bfloat16_raw r;
    r.x = b;
    return __nv_bfloat16(r);
#else
    __nv_bfloat16 h;
    h.__x = b;
    return h;
#endif
}

static inline short
__bfloat16_as_short(__nv_bfloat16 h)
{
    const unsigned short b = __bfloat16_as_ushort(h);
    short s;
    memcpy(&s, &b, sizeof(s));
    return s;
}

static inline __nv_bfloat16
__short_as_bfloat16(short s)
{
    unsigned short b;
    memcpy(&b, &s, sizeof(b));
    return __ushort_as_bfloat16(b);
}

static inline __nv_bfloat16
__float2bfloat16_rn(float a)
{
    return __ushort_as_bfloat16(fdnn_cuda_f32_to_bf16_bits(a));
}

static inline __nv_bfloat16
__float2bfloat16(float a)
{
    return __float2bfloat16_rn(a);
}

static inline float
__bfloat162float(__nv_bfloat16 a)
{
    return fdnn_cuda_bf16_bits_to_f32(__bfloat16_as_ushort(a));
}

/* One rounding from double (through a round-to-odd float). */
static inline __nv_bfloat16
__double2bfloat16(double a)
{
    return __float2bfloat16_rn(fdnn_cuda_f64_to_f32_odd(a));
}

static inline __nv_bfloat16
__int2bfloat16_rn(int i)
{
    return __float2bfloat16_rn(fdnn_cuda_f64_to_f32_odd((double)i));
}

static inline __nv_bfloat16
__uint2bfloat16_rn(unsigned int i)
{
    return __float2bfloat16_rn(fdnn_cuda_f64_to_f32_odd((double)i));
}

static inline __nv_bfloat16
__ll2bfloat16_rn(long long i)
{
    return __float2bfloat16_rn(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_s64_to_f64_odd(i)));
}

static inline __nv_bfloat16
__ull2bfloat16_rn(unsigned long long i)
{
    return __float2bfloat16_rn(fdnn_cuda_f64_to_f32_odd(fdnn_cuda_u64_to_f64_odd(i)));
}

static inline int
__bfloat162int_rz(__nv_bfloat16 h)
{
    return (int)fdnn_cuda_f32_to_s64_rz(__bfloat162float(h), INT_MIN, INT_MAX);
}

static inline unsigned int
__bfloat162uint_rz(__nv_bfloat16 h)
{
    return (unsigned int)fdnn_cuda_f32_to_u64_rz(__bfloat162float(h), UINT_MAX);
}

static inline long long
__bfloat162ll_rz(__nv_bfloat16 h)
{
    return fdnn_cuda_f32_to_s64_rz(__bfloat162float(h), LLONG_MIN, LLONG_MAX);
}

static inline __nv_bfloat162
__halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b)
{
    __nv_bfloat162 r;
    r.x = a;
    r.y = b;
    return r;
}

static inline __nv_bfloat162
__floats2bfloat162_rn(float a, float b)
{
    return __halves2bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(b));
}

static inline __nv_bfloat162
__float2bfloat162_rn(float a)
{
    return __floats2bfloat162_rn(a, a);
}

static inline __nv_bfloat162
__float22bfloat162_rn(float2 a)
{
    return __floats2bfloat162_rn(a.x, a.y);
}

static inline __nv_bfloat162
__bfloat162bfloat162(__nv_bfloat16 a)
{
    return __halves2bfloat162(a, a);
}

static inline float2
__bfloat1622float2(__nv_bfloat162 a)
{
    float2 r;
    r.x = __bfloat162float(a.x);
    r.y = __bfloat162float(a.y);
    return r;
}

static inline __nv_bfloat16
__low2bfloat16(__nv_bfloat162 a)
{
    return a.x;
}

static inline __nv_bfloat16
__high2bfloat16(__nv_bfloat162 a)
{
    return a.y;
}

static inline __nv_bfloat16
__float2bfloat16_rz(float a)
{
    uint32_t x = fdnn_cuda_f32_bits(a);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return __ushort_as_bfloat16((unsigned short)((x >> 16) | 0x0040u));
    return __ushort_as_bfloat16((unsigned short)(x >> 16)); /* truncation is toward zero */
}

/* ---- C++: the overloads of the __half helpers, and the operators ---------------- */
#ifdef __cplusplus

static inline float __low2float(__nv_bfloat162 a) { return __bfloat162float(a.x); }
static inline float __high2float(__nv_bfloat162 a) { return __bfloat162float(a.y); }

/* Arithmetic in float, rounded once to bfloat16 (correctly rounded). */
static inline __nv_bfloat16
__hadd(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) + __bfloat162float(b));
}
static inline __nv_bfloat16
__hsub(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) - __bfloat162float(b));
}
static inline __nv_bfloat16
__hmul(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) * __bfloat162float(b));
}
static inline __nv_bfloat16
__hdiv(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) / __bfloat162float(b));
}
static inline __nv_bfloat16
__hneg(__nv_bfloat16 a)
{
    return __ushort_as_bfloat16((unsigned short)(__bfloat16_as_ushort(a) ^ 0x8000u));
}
static inline __nv_bfloat16
__habs(__nv_bfloat16 a)
{
    return __ushort_as_bfloat16((unsigned short)(__bfloat16_as_ushort(a) & 0x7fffu));
}
static inline __nv_bfloat162
__hadd2(__nv_bfloat162 a, __nv_bfloat162 b)
{
    return __halves2bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y));
}
static inline __nv_bfloat162
__hsub2(__nv_bfloat162 a, __nv_bfloat162 b)
{
    return __halves2bfloat162(__hsub(a.x, b.x), __hsub(a.y, b.y));
}
static inline __nv_bfloat162
__hmul2(__nv_bfloat162 a, __nv_bfloat162 b)
{
    return __halves2bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y));
}
static inline __nv_bfloat162
__h2div(__nv_bfloat162 a, __nv_bfloat162 b)
{
    return __halves2bfloat162(__hdiv(a.x, b.x), __hdiv(a.y, b.y));
}
static inline __nv_bfloat162
__hneg2(__nv_bfloat162 a)
{
    return __halves2bfloat162(__hneg(a.x), __hneg(a.y));
}
static inline bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) == __bfloat162float(b); }
static inline bool __hneu(__nv_bfloat16 a, __nv_bfloat16 b) { return !(__bfloat162float(a) == __bfloat162float(b)); }
static inline bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) < __bfloat162float(b); }
static inline bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) <= __bfloat162float(b); }
static inline bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) > __bfloat162float(b); }
static inline bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) >= __bfloat162float(b); }
static inline bool __hisnan(__nv_bfloat16 a) { return (__bfloat16_as_ushort(a) & 0x7fffu) > 0x7f80u; }

static inline __nv_bfloat16 operator+(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hadd(a, b); }
static inline __nv_bfloat16 operator-(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hsub(a, b); }
static inline __nv_bfloat16 operator*(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hmul(a, b); }
static inline __nv_bfloat16 operator/(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hdiv(a, b); }
static inline __nv_bfloat16 &operator+=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hadd(a, b); }
static inline __nv_bfloat16 &operator-=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hsub(a, b); }
static inline __nv_bfloat16 &operator*=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hmul(a, b); }
static inline __nv_bfloat16 &operator/=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hdiv(a, b); }
static inline __nv_bfloat16 operator+(const __nv_bfloat16 &a) { return a; }
static inline __nv_bfloat16 operator-(const __nv_bfloat16 &a) { return __hneg(a); }
static inline __nv_bfloat16 &operator++(__nv_bfloat16 &a) { return a = __hadd(a, __ushort_as_bfloat16(0x3f80u)); }
static inline __nv_bfloat16 &operator--(__nv_bfloat16 &a) { return a = __hsub(a, __ushort_as_bfloat16(0x3f80u)); }
static inline __nv_bfloat16
operator++(__nv_bfloat16 &a, int)
{
    const __nv_bfloat16 old = a;
    ++a;
    return old;
}
static inline __nv_bfloat16
operator--(__nv_bfloat16 &a, int)
{
    const __nv_bfloat16 old = a;
    --a;
    return old;
}
static inline bool operator==(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __heq(a, b); }
static inline bool operator!=(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hneu(a, b); }
static inline bool operator<(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hlt(a, b); }
static inline bool operator<=(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hle(a, b); }
static inline bool operator>(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hgt(a, b); }
static inline bool operator>=(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hge(a, b); }

static inline __nv_bfloat162 operator+(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hadd2(a, b); }
static inline __nv_bfloat162 operator-(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hsub2(a, b); }
static inline __nv_bfloat162 operator*(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hmul2(a, b); }
static inline __nv_bfloat162 operator/(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __h2div(a, b); }
static inline __nv_bfloat162 &operator+=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { return a = __hadd2(a, b); }
static inline __nv_bfloat162 &operator-=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { return a = __hsub2(a, b); }
static inline __nv_bfloat162 &operator*=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { return a = __hmul2(a, b); }
static inline __nv_bfloat162 &operator/=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { return a = __h2div(a, b); }
static inline __nv_bfloat162 operator+(const __nv_bfloat162 &a) { return a; }
static inline __nv_bfloat162 operator-(const __nv_bfloat162 &a) { return __hneg2(a); }
static inline bool operator==(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return a.x == b.x && a.y == b.y; }
static inline bool operator!=(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return a.x != b.x && a.y != b.y; }
static inline bool operator<(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return a.x < b.x && a.y < b.y; }
static inline bool operator<=(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return a.x <= b.x && a.y <= b.y; }
static inline bool operator>(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return a.x > b.x && a.y > b.y; }
static inline bool operator>=(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return a.x >= b.x && a.y >= b.y; }

#endif /* __cplusplus */

#endif /* FDNN_COMPAT_CUDA_BF16_H */
