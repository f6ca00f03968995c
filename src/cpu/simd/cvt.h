/* SPDX-License-Identifier: Apache-2.0
 * Portable conversions between float and the 16-bit storage types (IEEE
 * half, bfloat16), round to nearest even, NaN kept NaN (quiet), overflow to
 * Inf.  Used by the strided (any dtype) paths; vector kernels use F16C. */
#ifndef FDNN_SIMD_CVT_H
#define FDNN_SIMD_CVT_H

#include <stdint.h>
#include <string.h>

static inline uint32_t
fdnn_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float
fdnn_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline float
fdnn_bf16_to_f32(uint16_t h)
{
    return fdnn_f32_from_bits((uint32_t)h << 16);
}

static inline uint16_t
fdnn_f32_to_bf16(float f)
{
    uint32_t u = fdnn_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);         /* round to nearest even */
    return (uint16_t)(u >> 16);
}

static inline float
fdnn_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f)
        return fdnn_f32_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24, exact in float */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return fdnn_f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

static inline uint16_t
fdnn_f32_to_f16(float f)
{
    uint32_t u = fdnn_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu)); /* NaN */
    if (a >= 0x477ff000u)                                         /* >= 65520: rounds to Inf */
        return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) {
        /* below the smallest normal half (2^-14): subnormal or zero.  Adding
         * 0.5 (2^-1) aligns the half's ulp 2^-24 with the float's ulp at 0.5
         * (2^-24), so the float addition does the round-to-nearest-even. */
        float v = fdnn_f32_from_bits(a) + 0.5f;
        return (uint16_t)(sign | (uint16_t)(fdnn_f32_bits(v) - 0x3f000000u));
    }
    uint32_t r = a + 0xfffu + ((a >> 13) & 1u); /* round mantissa to 10 bits, even */
    return (uint16_t)(sign | (uint16_t)((r - 0x38000000u) >> 13));
}

#endif /* FDNN_SIMD_CVT_H */
