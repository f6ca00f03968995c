/* SPDX-License-Identifier: Apache-2.0
 * The one owner of the scalar conversions between float and the 16-bit
 * floating-point storage types: IEEE binary16 ("half", CUDNN_DATA_HALF)
 * and bfloat16 (CUDNN_DATA_BFLOAT16).  Every other conversion of single
 * elements in the library (cpu/tensor/convert.h, the row kernels of
 * cpu/tensor/convert_row.h, the portable paths of every op) calls these.
 *
 * Contract, the same bits as the x86 instructions the vector paths use
 * (vcvtps2ph with rounding immediate 0, vcvtph2ps, and vcvtne2ps2bf16 with
 * its input-denormal flush undone), so that every ISA path agrees bit for
 * bit (tests/unit/test_convert_row.c checks all of them):
 *   - float -> half / bf16: round to nearest, ties to even; overflow gives
 *     infinity (half: |x| >= 65520); tiny values give subnormals or a
 *     signed zero; float subnormals are honoured, never flushed.
 *   - NaN -> half / bf16: a quiet NaN of the same sign keeping the top
 *     payload bits (half: sign | 0x7e00 | payload >> 13; bf16: the top 16
 *     bits with the quiet bit 0x40 set).
 *   - half -> float: exact; a signalling NaN comes back quiet (its payload
 *     shifted up, quiet bit 0x400000 set), as vcvtph2ps does.
 *   - bf16 -> float: exact, the 16 bits become the top of the float; a
 *     signalling NaN comes back quiet (payload kept, quiet bit set), like
 *     half -> float and like any float arithmetic on it (the tensor engine
 *     multiplies by alpha), so that every path of an op gives one answer.
 * Pure integer arithmetic: the results do not depend on the rounding mode
 * or on FTZ/DAZ in MXCSR.
 *
 * Two spellings of each function exist because two halves of the library
 * grew them; both are kept and are the same code:
 *   fdnn_f16_to_f32  = fdnn_half_to_float    fdnn_f32_to_f16  = fdnn_float_to_half
 *   fdnn_bf16_to_f32 = fdnn_bf16_to_float    fdnn_f32_to_bf16 = fdnn_float_to_bf16 */
#ifndef FDNN_SIMD_CVT_H
#define FDNN_SIMD_CVT_H

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

/* bfloat16 -> float: exact; a signalling NaN is returned quiet. */
static inline float
fdnn_bf16_to_f32(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    if ((u & 0x7fffffffu) > 0x7f800000u)
        u |= 0x400000u;
    return fdnn_f32_from_bits(u);
}

/* float -> bfloat16, round to nearest even; NaN stays a quiet NaN. */
static inline uint16_t
fdnn_f32_to_bf16(float f)
{
    uint32_t u = fdnn_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    /* Adding 0x7fff plus the lowest kept bit rounds the 16 dropped bits to
     * nearest even; a carry into the exponent is the right result, up to
     * infinity (0x7f7fffff rounds to 0x7f80).  NaNs are out, so the carry
     * never reaches the sign. */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* half -> float: exact; a signalling NaN is returned quiet.  Written as
 * selects without branches so that loops over it vectorise (SSE2, NEON). */
static inline float
fdnn_f16_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t em = h & 0x7fffu; /* exponent and mantissa */
    /* normal: rebias the exponent from 15 to 127 (+112 << 23) */
    const uint32_t normal = (em << 13) + 0x38000000u;
    /* infinity, or NaN with its payload kept and made quiet */
    const uint32_t special = (em << 13) | 0x7f800000u | (em > 0x7c00u ? 0x400000u : 0u);
    /* zero or subnormal: em * 2^-24; both factors and the product are
     * normal floats (or zero), so this is exact under any FTZ/DAZ */
    const uint32_t tiny = fdnn_f32_bits((float)(int32_t)em * 5.9604644775390625e-8f);
    const uint32_t bits = em < 0x400u ? tiny : em >= 0x7c00u ? special : normal;
    return fdnn_f32_from_bits(sign | bits);
}

/* float -> half, round to nearest even, overflow to infinity. */
static inline uint16_t
fdnn_f32_to_f16(float f)
{
    const uint32_t u = fdnn_f32_bits(f);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) /* NaN: quiet, top payload bits kept */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) /* >= 65520 (the midpoint past 65504): infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) {
        /* normal half (>= 2^-14): drop 13 mantissa bits, nearest even, and
         * rebias the exponent from 127 to 15; a carry out of the mantissa
         * bumps the exponent, as it should */
        const uint32_t r = a + 0xfffu + ((a >> 13) & 1u);
        return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
    }
    if (a <= 0x33000000u) /* <= 2^-25, half the smallest subnormal: zero (a tie goes to even 0) */
        return sign;
    /* subnormal half: the value in units of 2^-24 is m * 2^(e - 126) with
     * m the 24-bit significand, a shift right by 14..24 */
    const uint32_t e = a >> 23;
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e;
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (q & 1u)))
        q++; /* may reach 0x400, the smallest normal: the right encoding */
    return (uint16_t)(sign | q);
}

/* The other spelling (cpu/tensor, the tensor kernels): the same functions. */
static inline float
fdnn_half_to_float(uint16_t h)
{
    return fdnn_f16_to_f32(h);
}

static inline uint16_t
fdnn_float_to_half(float f)
{
    return fdnn_f32_to_f16(f);
}

static inline float
fdnn_bf16_to_float(uint16_t b)
{
    return fdnn_bf16_to_f32(b);
}

static inline uint16_t
fdnn_float_to_bf16(float f)
{
    return fdnn_f32_to_bf16(f);
}

#endif /* FDNN_SIMD_CVT_H */
