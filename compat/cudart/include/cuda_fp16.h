/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the IEEE binary16 type of CUDA on the host.
 *
 * __half is two bytes holding the binary16 bits (the layout of CUDA's
 * __half, so arrays of it are what cuDNN's CUDNN_DATA_HALF tensors hold).
 * Conversions round to nearest, ties to even, as CUDA's _rn functions do;
 * NaN stays NaN (quiet), overflow gives infinity, tiny values become
 * subnormals or signed zero.  Arithmetic operators are not provided: convert
 * to float, compute, convert back. */
#ifndef FDNN_COMPAT_CUDA_FP16_H
#define FDNN_COMPAT_CUDA_FP16_H

#include <stdint.h>
#include <string.h>

#include "vector_types.h"

typedef struct __half_raw {
    unsigned short x;
} __half_raw;

typedef struct __half {
    unsigned short __x;
} __half;

typedef struct __half2 {
    __half x;
    __half y;
} __half2;

typedef __half half;
typedef __half2 half2;

/* binary32 -> binary16 bits, round to nearest even. */
static inline unsigned short
fdnn_cuda_f32_to_f16_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t a = x & 0x7fffffffu;
    if (a > 0x7f800000u) /* NaN: quiet, keep the top payload bits */
        return (unsigned short)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) /* >= 65520 rounds to infinity */
        return (unsigned short)(sign | 0x7c00u);
    if (a >= 0x38800000u) { /* normal: rebias the exponent by 127 - 15 */
        uint32_t h = (a - 0x38000000u) >> 13;
        uint32_t rem = a & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
            h++;
        return (unsigned short)(sign | h);
    }
    if (a < 0x33000000u) /* below 2^-25: rounds to zero */
        return (unsigned short)sign;
    /* Subnormal: the value in units of 2^-24 is m * 2^(e - 126). */
    uint32_t e = a >> 23;
    uint32_t m = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e;
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (q & 1u)))
        q++;
    return (unsigned short)(sign | q);
}

/* binary16 bits -> binary32, exact. */
static inline float
fdnn_cuda_f16_bits_to_f32(unsigned short h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t e = ((uint32_t)h >> 10) & 0x1fu;
    uint32_t m = (uint32_t)h & 0x3ffu;
    uint32_t bits;
    if (e == 0x1fu) {
        bits = sign | 0x7f800000u | (m << 13);
    } else if (e == 0) {
        float f = (float)m * 5.9604644775390625e-8f; /* m * 2^-24, exact */
        return sign ? -f : f;
    } else {
        bits = sign | ((e + 112u) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static inline __half
__float2half_rn(float a)
{
    __half h;
    h.__x = fdnn_cuda_f32_to_f16_bits(a);
    return h;
}

static inline __half
__float2half(float a)
{
    return __float2half_rn(a);
}

static inline float
__half2float(__half a)
{
    return fdnn_cuda_f16_bits_to_f32(a.__x);
}

/* Through float: a double that is not exactly a float can round twice. */
static inline __half
__double2half(double a)
{
    return __float2half_rn((float)a);
}

static inline __half
__int2half_rn(int i)
{
    return __float2half_rn((float)i);
}

static inline unsigned short
__half_as_ushort(__half h)
{
    return h.__x;
}

static inline __half
__ushort_as_half(unsigned short i)
{
    __half h;
    h.__x = i;
    return h;
}

static inline short
__half_as_short(__half h)
{
    short s;
    memcpy(&s, &h.__x, sizeof(s));
    return s;
}

static inline __half
__short_as_half(short i)
{
    __half h;
    memcpy(&h.__x, &i, sizeof(i));
    return h;
}

static inline __half2
__floats2half2_rn(float a, float b)
{
    __half2 r;
    r.x = __float2half_rn(a);
    r.y = __float2half_rn(b);
    return r;
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

static inline __half2
__halves2half2(__half a, __half b)
{
    __half2 r;
    r.x = a;
    r.y = b;
    return r;
}

#endif /* FDNN_COMPAT_CUDA_FP16_H */
