/* SPDX-License-Identifier: Apache-2.0
 * Scalar conversions between the storage types of tensors and the compute
 * types (float, double).  Rounding is to nearest, ties to even, everywhere;
 * integer stores saturate.  Plain C so every ISA file can inline them. */
#ifndef FDNN_CPU_TENSOR_CONVERT_H
#define FDNN_CPU_TENSOR_CONVERT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t
fdnn_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float
fdnn_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* IEEE binary16 -> binary32, exact (subnormals, infinities and NaNs kept). */
static inline float
fdnn_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1fu) /* inf or NaN: keep the payload, quiet */
        return fdnn_f32_from_bits(sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0));
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24, exact in float */
        float f = (float)man * 5.9604644775390625e-8f;
        return sign ? -f : f;
    }
    return fdnn_f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

/* binary32 -> binary16, round to nearest even, overflow to infinity. */
static inline uint16_t
fdnn_float_to_half(float f)
{
    uint32_t u = fdnn_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u | ((abs >> 13) & 0x3ffu) : 0));
    if (abs >= 0x477ff000u) /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (abs < 0x38800000u) {
        /* below the smallest normal half (2^-14): the subnormal grid is
         * 2^-24, so scale and round with the FPU (ties to even). */
        float a = fdnn_f32_from_bits(abs) * 16777216.0f; /* exact: power of two */
        return (uint16_t)(sign | (uint16_t)nearbyintf(a));
    }
    /* normal: drop 13 mantissa bits with round to nearest even */
    uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
    return (uint16_t)(sign | ((rounded - 0x38000000u) >> 13));
}

static inline float
fdnn_bf16_to_float(uint16_t b)
{
    return fdnn_f32_from_bits((uint32_t)b << 16);
}

/* binary32 -> bfloat16, round to nearest even; NaN stays a quiet NaN. */
static inline uint16_t
fdnn_float_to_bf16(float f)
{
    uint32_t u = fdnn_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* Saturating round-to-nearest-even conversions to the integer types; NaN
 * becomes 0. */
static inline double
fdnn_sat_round(double v, double lo, double hi)
{
    if (!(v == v))
        return 0.0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

#endif /* FDNN_CPU_TENSOR_CONVERT_H */
