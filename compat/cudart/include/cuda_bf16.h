/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: bfloat16 of CUDA on the host.
 *
 * __nv_bfloat16 is two bytes holding the top half of a binary32 (the layout
 * of CUDA's type, what CUDNN_DATA_BFLOAT16 tensors hold).  Conversion from
 * float rounds to nearest, ties to even; NaN stays NaN (quiet).  Conversion
 * to float is exact. */
#ifndef FDNN_COMPAT_CUDA_BF16_H
#define FDNN_COMPAT_CUDA_BF16_H

#include <stdint.h>
#include <string.h>

#include "vector_types.h"

typedef struct __nv_bfloat16_raw {
    unsigned short x;
} __nv_bfloat16_raw;

typedef struct __nv_bfloat16 {
    unsigned short __x;
} __nv_bfloat16;

typedef struct __nv_bfloat162 {
    __nv_bfloat16 x;
    __nv_bfloat16 y;
} __nv_bfloat162;

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

static inline __nv_bfloat16
__float2bfloat16_rn(float a)
{
    uint32_t x;
    memcpy(&x, &a, sizeof(x));
    __nv_bfloat16 r;
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        r.__x = (unsigned short)((x >> 16) | 0x0040u); /* quiet NaN */
        return r;
    }
    /* Adding 0x7fff plus the lowest kept bit rounds to nearest even; a
     * carry into the exponent is the correct result (up to infinity). */
    x += 0x7fffu + ((x >> 16) & 1u);
    r.__x = (unsigned short)(x >> 16);
    return r;
}

static inline __nv_bfloat16
__float2bfloat16(float a)
{
    return __float2bfloat16_rn(a);
}

static inline float
__bfloat162float(__nv_bfloat16 a)
{
    uint32_t bits = (uint32_t)a.__x << 16;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

/* Through float: a double that is not exactly a float can round twice. */
static inline __nv_bfloat16
__double2bfloat16(double a)
{
    return __float2bfloat16_rn((float)a);
}

static inline unsigned short
__bfloat16_as_ushort(__nv_bfloat16 h)
{
    return h.__x;
}

static inline __nv_bfloat16
__ushort_as_bfloat16(unsigned short i)
{
    __nv_bfloat16 h;
    h.__x = i;
    return h;
}

static inline __nv_bfloat162
__floats2bfloat162_rn(float a, float b)
{
    __nv_bfloat162 r;
    r.x = __float2bfloat16_rn(a);
    r.y = __float2bfloat16_rn(b);
    return r;
}

static inline __nv_bfloat162
__float2bfloat162_rn(float a)
{
    return __floats2bfloat162_rn(a, a);
}

static inline float2
__bfloat1622float2(__nv_bfloat162 a)
{
    float2 r;
    r.x = __bfloat162float(a.x);
    r.y = __bfloat162float(a.y);
    return r;
}

#endif /* FDNN_COMPAT_CUDA_BF16_H */
