/* SPDX-License-Identifier: Apache-2.0
 * The BF16 GEMM microkernel in portable C: 4 x 16, A wide.  The arithmetic
 * of vdpbf16ps (bf16_gemm.h) without touching the FPU's modes: fmaf (one
 * rounding, C99) for each product, inputs whose bfloat16 exponent is zero
 * read as signed zero (DAZ), and a result below FLT_MIN in magnitude
 * replaced by signed zero (FTZ).
 *
 * FTZ as the hardware does it (measured on this project's x86 machines,
 * tests/unit/test_bf16_gemm.c): a result is flushed when, rounded to 24
 * bits with an unbounded exponent, it is below FLT_MIN ("tininess after
 * rounding").  fmaf rounds to the subnormal grid instead; the two disagree
 * only when fmaf returns exactly FLT_MIN, and then the exact sum, taken in
 * double (exact there: see fma_ftz), decides.
 */
#include <assert.h>
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu/kernels/bf16_gemm.h"

#define MR 4
#define NR 16

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

void
fdnn_bf16_gemm_ukernel_4x16__scalar(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                    float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep)
{
    assert(mr >= 1 && mr <= MR && nr >= 1 && nr <= NR);
    const size_t kp = (kc + 1) / 2;
    float acc[MR][NR] = {{0}};
    /* vdpbf16ps rounds to nearest even whatever the caller's mode. */
    const int mode = fegetround();
    if (kp > 0 && mode != FE_TONEAREST)
        fesetround(FE_TONEAREST);
    for (size_t q = 0; q < kp; q++) {
        float be[NR], bo[NR];
        for (size_t j = 0; j < NR; j++) {
            be[j] = flush(float_of(b[q * NR + j] << 16));
            bo[j] = flush(float_of(b[q * NR + j] & 0xffff0000u));
        }
        for (size_t i = 0; i < mr; i++) {
            float ae = flush(float_of(a[(q * MR + i) * 2])), ao = flush(float_of(a[(q * MR + i) * 2 + 1]));
            for (size_t j = 0; j < nr; j++) {
                float s = fma_ftz(ao, bo[j], acc[i][j]);
                acc[i][j] = fma_ftz(ae, be[j], s);
            }
        }
    }
    if (kp > 0 && mode != FE_TONEAREST)
        fesetround(mode);
    for (size_t i = 0; i < mr; i++) {
        float *ci = c + i * ldc;
        for (size_t j = 0; j < nr; j++) {
            float v = acc[i][j];
            if (ep->alpha != 1)
                v = ep->alpha * v;
            if (ep->beta == 1)
                v = ci[j] + v;
            else if (ep->beta != 0)
                v = fmaf(ep->beta, ci[j], v);
            if (ep->bias_row != NULL)
                v = v + ep->bias_row[i];
            if (ep->bias_col != NULL)
                v = v + ep->bias_col[j];
            if (ep->relu && v < 0)
                v = 0;
            ci[j] = v;
        }
    }
}
