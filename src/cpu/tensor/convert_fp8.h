/* SPDX-License-Identifier: Apache-2.0
 * The one owner of the conversions between float and the two 8-bit
 * floating-point storage types of cuDNN 8.9 (CUDNN_DATA_FP8_E4M3,
 * CUDNN_DATA_FP8_E5M2; "storage with FP32 compute": every engine loads
 * them into float, computes, and stores back through these).
 *
 * Formats (sign, exponent, mantissa bits; bias):
 *   E4M3: 1.4.3, bias 7, no infinities, NaN = S.1111.111 (0x7F / 0xFF),
 *         largest finite 448 (0x7E), smallest subnormal 2^-9.
 *   E5M2: 1.5.2, bias 15, IEEE-like: infinities S.11111.00, NaN
 *         S.11111.{01,10,11}, largest finite 57344 (0x7B), smallest
 *         subnormal 2^-16.
 *
 * float -> fp8 (the behaviour of CUDA's __nv_cvt_float_to_fp8 and of the
 * sm_89 instruction cvt.rn.satfinite that cuDNN's FP8 kernels use; see
 * docs/numerics.md "FP8"):
 *   - round to nearest, ties to even, once, from the exact float value;
 *     subnormal results are honoured, values below half the smallest
 *     subnormal give a zero of the input's sign;
 *   - a value whose rounding exceeds the largest finite value (and an
 *     infinity) saturates to +-largest finite with FDNN_FP8_SATFINITE; with
 *     FDNN_FP8_NOSAT it gives +-NaN (E4M3, which has no infinity) or +-inf
 *     (E5M2);
 *   - NaN gives 0x7F, the canonical NaN of both formats, for either mode.
 * fp8 -> float is exact; a NaN gives the canonical float NaN 0x7FFFFFFF
 * (sign dropped, as CUDA's conversion does).
 * Pure integer arithmetic: independent of the rounding mode and FTZ/DAZ. */
#ifndef FDNN_CPU_TENSOR_CONVERT_FP8_H
#define FDNN_CPU_TENSOR_CONVERT_FP8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/simd/cvt.h"
#include "cudnn.h"

typedef enum { FDNN_FP8_E4M3 = 0, FDNN_FP8_E5M2 = 1 } fdnn_fp8_kind_t;
typedef enum { FDNN_FP8_SATFINITE = 0, FDNN_FP8_NOSAT = 1 } fdnn_fp8_sat_t;

/* Largest finite magnitudes and their codes. */
#define FDNN_FP8_E4M3_MAX 448.0f
#define FDNN_FP8_E5M2_MAX 57344.0f

static inline uint8_t
fdnn_f32_to_fp8(float f, fdnn_fp8_kind_t kind, fdnn_fp8_sat_t sat)
{
    const int m = kind == FDNN_FP8_E4M3 ? 3 : 2;         /* mantissa bits */
    const int bias = kind == FDNN_FP8_E4M3 ? 7 : 15;     /* exponent bias */
    const uint32_t maxcode = kind == FDNN_FP8_E4M3 ? 0x7Eu : 0x7Bu;
    uint32_t u = fdnn_f32_bits(f);
    uint32_t sign = (u >> 24) & 0x80u, a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return 0x7F;
    int e = (int)(a >> 23) - 127; /* unbiased float exponent */
    uint32_t code;
    if (e >= 1 - bias) {
        /* normal in fp8: drop 23 - m mantissa bits, nearest even; the
         * exponent field moves along (a carry into it is right) */
        int d = 23 - m;
        uint32_t r = (a + (1u << (d - 1)) - 1u + ((a >> d) & 1u)) >> d;
        uint32_t rebias = (uint32_t)(127 - bias) << m;
        code = r - rebias;
        if (code > maxcode)
            return (uint8_t)(sign | (sat == FDNN_FP8_SATFINITE ? maxcode : kind == FDNN_FP8_E4M3 ? 0x7Fu : 0x7Cu));
    } else {
        /* subnormal in fp8: code = |f| / 2^(1 - bias - m), rounded; a float
         * subnormal (e = -127) is far below every fp8 subnormal */
        if (e < -126)
            return (uint8_t)sign;
        uint64_t s = (a & 0x7FFFFFu) | 0x800000u; /* |f| = s 2^(e-23) */
        int d = 23 + (1 - bias - m) - e;          /* bits to drop, > 20 */
        if (d > 25)
            return (uint8_t)sign; /* below half the smallest subnormal */
        uint64_t half = 1ull << (d - 1);
        uint64_t rem = s & ((half << 1) - 1);
        code = (uint32_t)(s >> d);
        if (rem > half || (rem == half && (code & 1u)))
            code++;
        /* code == 1 << m is the smallest normal: its encoding already */
    }
    return (uint8_t)(sign | code);
}

/* double -> fp8 with one rounding: the double is first rounded to a float
 * "to odd" (truncated, the last bit set when anything was dropped), which
 * keeps enough bits for the nearest-even rounding to 2 or 3 bits to be the
 * double's; beyond the float range it becomes FLT_MAX, which saturates. */
static inline uint8_t
fdnn_f64_to_fp8(double d, fdnn_fp8_kind_t kind, fdnn_fp8_sat_t sat)
{
    float f = (float)d;
    if (d == d && (double)f != d) {
        uint32_t u = fdnn_f32_bits(f);
        double af = f < 0 ? -(double)f : (double)f, ad = d < 0 ? -d : d;
        if (af > ad)
            u -= 1u; /* rounded away from zero (or to infinity): step back */
        f = fdnn_f32_from_bits(u | 1u);
    }
    return fdnn_f32_to_fp8(f, kind, sat);
}

static inline float
fdnn_fp8_to_f32(uint8_t b, fdnn_fp8_kind_t kind)
{
    const int m = kind == FDNN_FP8_E4M3 ? 3 : 2;
    const int bias = kind == FDNN_FP8_E4M3 ? 7 : 15;
    const uint32_t emax = kind == FDNN_FP8_E4M3 ? 15u : 31u;
    uint32_t sign = (uint32_t)(b & 0x80u) << 24;
    uint32_t e = (uint32_t)(b & 0x7Fu) >> m, mant = b & ((1u << m) - 1u);
    if (e == emax) {
        if (kind == FDNN_FP8_E4M3 && mant == (1u << m) - 1u)
            return fdnn_f32_from_bits(0x7FFFFFFFu);
        if (kind == FDNN_FP8_E5M2)
            return fdnn_f32_from_bits(mant != 0 ? 0x7FFFFFFFu : sign | 0x7F800000u);
    }
    if (e == 0) {
        /* mant 2^(1 - bias - m): exact in float */
        float v = (float)mant * (kind == FDNN_FP8_E4M3 ? 0x1p-9f : 0x1p-16f);
        return sign ? -v : v;
    }
    return fdnn_f32_from_bits(sign | ((e + (uint32_t)(127 - bias)) << 23) | (mant << (23 - m)));
}

/* Whether dt is one of the two FP8 storage types; its kind. */
static inline bool
fdnn_fp8_kind_of(cudnnDataType_t dt, fdnn_fp8_kind_t *kind)
{
    if (dt == CUDNN_DATA_FP8_E4M3 || dt == CUDNN_DATA_FP8_E5M2) {
        *kind = dt == CUDNN_DATA_FP8_E4M3 ? FDNN_FP8_E4M3 : FDNN_FP8_E5M2;
        return true;
    }
    return false;
}

/* Rows: n elements, unit stride, SATFINITE stores (what every engine's
 * FP8 store is).  convert_fp8.c. */
void fdnn_fp8_to_f32_row(fdnn_fp8_kind_t kind, const uint8_t *src, size_t n, float *dst);
void fdnn_f32_to_fp8_row(fdnn_fp8_kind_t kind, const float *src, size_t n, uint8_t *dst);

#endif /* FDNN_CPU_TENSOR_CONVERT_FP8_H */
