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
#include "cpu/kernels/bf16_ftz.h"

#define MR 4
#define NR 16

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
