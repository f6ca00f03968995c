/* SPDX-License-Identifier: Apache-2.0
 * The SIMD wrapper's exp, expm1, tanh and sigmoid against float64 libm, on
 * every ISA level this machine has: error in ulps of the float result over a
 * sweep of the useful range, plus the special values (NaN, +-Inf, +-0,
 * overflow, underflow, subnormal results), and the f16/bf16 conversions. */
#include <math.h>
#include <string.h>

#include "cpu/simd/cvt.h"
#include "cpu/simd/simd.h"
#include "testutil.h"

/* |got - want| in units of the float ulp at want (subnormal-aware). */
static double
ulp_error(float got, double want)
{
    if (isnan(want))
        return isnan(got) ? 0.0 : INFINITY;
    if (isinf((float)want) || isinf(got))
        return got == (float)want ? 0.0 : INFINITY;
    double aw = fabs(want);
    int e;
    frexp(aw < 1.17549435e-38 ? 1.17549435e-38 : aw, &e);
    double ulp = ldexp(1.0, e - 24);
    return fabs((double)got - want) / ulp;
}

static double
ref(fdnn_simd_fn_t fn, double x)
{
    switch (fn) {
    case FDNN_SIMD_EXP: return exp(x);
    case FDNN_SIMD_EXPM1: return expm1(x);
    case FDNN_SIMD_TANH: return tanh(x);
    case FDNN_SIMD_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case FDNN_SIMD_LOG: return log(x);
    }
    return NAN;
}

static void
test_fn(fdnn_isa_t isa, fdnn_simd_fn_t fn, double lo, double hi, double max_ulp)
{
    enum { N = 20011 }; /* odd, so the vector tail is exercised */
    float *x = fdnn_guarded_alloc(N * sizeof(float));
    float *y = fdnn_guarded_alloc(N * sizeof(float));
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 7 + fn);
    for (int i = 0; i < N; i++) {
        if (i % 2 == 0)
            x[i] = (float)(lo + (hi - lo) * i / (N - 1));
        else
            x[i] = (float)fdnn_rng_uniform(&rng, lo, hi);
    }
    /* values near zero: relative accuracy matters there for expm1/tanh;
     * log takes positive normal numbers over the whole exponent range */
    for (int i = 0; i < 200; i++)
        x[i * 7] = fn == FDNN_SIMD_LOG ? (float)ldexp(fdnn_rng_uniform(&rng, 1, 2), fdnn_rng_int(&rng, -126, 127))
                                       : (float)ldexp(fdnn_rng_uniform(&rng, -1, 1), -fdnn_rng_int(&rng, 1, 40));
    fdnn_poison_f32(y, N);
    fdnn_simd_f32_apply(isa, fn, x, y, N);
    double worst = 0;
    int worst_i = 0;
    for (int i = 0; i < N; i++) {
        double e = ulp_error(y[i], ref(fn, x[i]));
        if (!(e <= worst)) {
            worst = e;
            worst_i = i;
        }
    }
    CHECK_MSG(worst <= max_ulp, "isa %s fn %d: %.2f ulp at x=%.9g (got %.9g want %.9g)", fdnn_isa_name(isa),
              (int)fn, worst, x[worst_i], y[worst_i], ref(fn, x[worst_i]));

    static const float special[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 88.7f, 88.73f, 89.0f, -87.3f,
                                    -100.0f, -103.0f, -104.5f, -200.0f, 1e-30f, -1e-30f, 20.0f, -20.0f};
    static const float special_log[] = {1.0f, 2.0f, 0.5f, 1.17549435e-38f, 3.4e38f, 1.41421356f, 1.41421366f, 0.7071f};
    const float *sp = fn == FDNN_SIMD_LOG ? special_log : special;
    int ns = fn == FDNN_SIMD_LOG ? 8 : (int)(sizeof(special) / sizeof(special[0]));
    memcpy(x, sp, sizeof(float) * (size_t)ns);
    fdnn_poison_f32(y, N);
    fdnn_simd_f32_apply(isa, fn, x, y, (size_t)ns);
    for (int i = 0; i < ns; i++) {
        double e = ulp_error(y[i], ref(fn, x[i]));
        CHECK_MSG(e <= max_ulp, "isa %s fn %d special x=%g: got %.9g want %.9g", fdnn_isa_name(isa), (int)fn,
                  x[i], y[i], ref(fn, x[i]));
    }
    CHECK(isnan(y[ns]) || ns == N); /* nothing written past n */
    fdnn_guarded_free(x);
    fdnn_guarded_free(y);
}

static void
test_cvt(void)
{
    /* every half converts to float and back exactly */
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float f = fdnn_f16_to_f32((uint16_t)h);
        uint16_t back = fdnn_f32_to_f16(f);
        if (isnan(f) ? (back & 0x7c00u) != 0x7c00u || (back & 0x3ffu) == 0 : back != h)
            bad++;
    }
    CHECK_MSG(bad == 0, "%d halves do not round-trip", bad);
    CHECK(fdnn_f32_to_f16(65519.0f) == 0x7bff);
    CHECK(fdnn_f32_to_f16(65520.0f) == 0x7c00);
    CHECK(fdnn_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);              /* tie to even */
    CHECK(fdnn_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);          /* tie to even, up */
    CHECK(fdnn_f32_to_f16(0x1p-25f) == 0x0000);                     /* tie to even 0 */
    CHECK(fdnn_f32_to_f16(0x1.8p-25f) == 0x0001);
    CHECK(fdnn_f32_to_f16(-0x1p-24f) == 0x8001);
    CHECK(fdnn_f16_to_f32(0x0001) == 0x1p-24f);
    CHECK(fdnn_bf16_to_f32(fdnn_f32_to_bf16(1.0f + 0x1p-8f)) == 1.0f);
    CHECK(fdnn_bf16_to_f32(fdnn_f32_to_bf16(1.0f + 0x1.8p-8f)) == 1.0f + 0x1p-7f);
    CHECK(isnan(fdnn_bf16_to_f32(fdnn_f32_to_bf16(NAN))));
    CHECK(isinf(fdnn_bf16_to_f32(fdnn_f32_to_bf16(3.4e38f * 1.01f))));
}

int
main(void)
{
    for (int i = 0; i < fdnn_test_isa_count(); i++) {
        fdnn_isa_t isa = (fdnn_isa_t)fdnn_isa_from_name(fdnn_test_isa_name(i));
        test_fn(isa, FDNN_SIMD_EXP, -110.0, 90.0, 2.0);
        test_fn(isa, FDNN_SIMD_EXP, -1.0, 1.0, 2.0);
        test_fn(isa, FDNN_SIMD_EXPM1, -90.0, 89.0, 2.0);
        test_fn(isa, FDNN_SIMD_EXPM1, -1.0, 1.0, 2.0);
        test_fn(isa, FDNN_SIMD_TANH, -12.0, 12.0, 3.0);
        test_fn(isa, FDNN_SIMD_TANH, -1.0, 1.0, 3.0);
        test_fn(isa, FDNN_SIMD_SIGMOID, -110.0, 110.0, 3.0);
        test_fn(isa, FDNN_SIMD_SIGMOID, -5.0, 5.0, 3.0);
        test_fn(isa, FDNN_SIMD_LOG, 1e-30, 1e30, 2.0);
        test_fn(isa, FDNN_SIMD_LOG, 0.5, 2.0, 2.0);
    }
    test_cvt();
    return fdnn_test_finish("test_simd");
}
