/* SPDX-License-Identifier: Apache-2.0
 * The BF16 GEMM arithmetic in portable C (bf16_gemm.h): DAZ on the inputs
 * and fmaf with FTZ "after rounding", the flush rule of the x86 hardware.
 * Used by the portable kernel and, for the rare tiles where the hardware's
 * own flush rule would differ, by the NEON kernels (bf16_gemm_neon.inc).
 * Needs the rounding mode to nearest and gradual underflow (AArch64
 * FPCR.FZ clear) while it runs. */
#ifndef FDNN_CPU_KERNELS_BF16_FTZ_H
#define FDNN_CPU_KERNELS_BF16_FTZ_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t
bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float
float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* DAZ: a subnormal input (exponent bits zero) reads as signed zero. */
static inline float
flush(float x)
{
    uint32_t u = bits_of(x);
    return (u & 0x7f800000u) == 0 ? float_of(u & 0x80000000u) : x;
}

/* fmaf(a, b, c) with FTZ.  a and b are bfloat16 values (a * b is exact in
 * double); c is zero or normal.  When fmaf gives FLT_MIN the exact sum lies
 * within 2^-150 of it, and (double)a * b + c is then exact: either c and
 * a * b are within a factor of two (the subtraction is exact) or both are
 * below 2^-124 with their lowest bits within 53 of the top; only a
 * product below 2^-164 could be rounded, and it cannot move the sum across
 * the threshold FLT_MIN - 2^-151, where rounding to 24 bits goes below
 * FLT_MIN. */
static inline float
fma_ftz(float a, float b, float c)
{
    float r = fmaf(a, b, c);
    uint32_t u = bits_of(r), mag = u & 0x7fffffffu;
    if (mag < 0x00800000u)
        return float_of(u & 0x80000000u);
    if (mag == 0x00800000u && fabs((double)a * (double)b + (double)c) < 0x1p-126 - 0x1p-151)
        return float_of(u & 0x80000000u);
    return r;
}

#endif /* FDNN_CPU_KERNELS_BF16_FTZ_H */
