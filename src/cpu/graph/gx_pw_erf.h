/* SPDX-License-Identifier: Apache-2.0
 * Vector erfc and the GELU row loops built on it, over the f32 vector
 * wrapper (src/cpu/simd/README.md), for the FLOAT pointwise rows of the
 * AVX2 and AVX-512 levels (gx_pw_row__avx2.c, gx_pw_row__avx512.c; the
 * portable level keeps libm's erfcf, the most accurate path).
 *
 * erfc(z) for z >= 0 is t exp(-z^2 + P(t)), t = 1 / (1 + z/2), P the
 * degree-9 polynomial of the Chebyshev fit in Press et al., Numerical
 * Recipes (2nd ed., 6.2, "erfcc"), whose fractional error is below 1.2e-7
 * for every z >= 0; erfc(-z) = 2 - erfc(z).  z^2 is split exactly into
 * hi + lo with an FMA and the exponential taken as exp(-hi) exp(P - lo),
 * so the large argument loses no precision; |z| is clamped at 11 (erfc(11)
 * is below the smallest float).  Measured against double libm on every
 * float step of 2^-16 over [-16, 16] (AVX2 and AVX-512 alike): GELU within
 * 1.4e-7 of max(1, |GELU(x)|), GELU_BWD within 2.0e-7 of max(1, |dx|);
 * relative error up to 1.1e-5 in the far tail (x < -10, |y| < 1e-20),
 * where the FLOAT rounding of x / sqrt 2 itself dominates.  NaN in gives
 * NaN out. */
#ifndef FDNN_CPU_GRAPH_PW_ERF_H
#define FDNN_CPU_GRAPH_PW_ERF_H

static inline fv_t
FV_FN(gx_erfc_fv)(fv_t z)
{
    fv_t a = fv_min(fv_set1(11.0f), fv_abs(z)); /* fv_min(c, NaN) keeps the NaN */
    fv_t t = fv_div(fv_set1(1.0f), fv_fmadd(fv_set1(0.5f), a, fv_set1(1.0f)));
    fv_t p = fv_set1(0.17087277f);
    p = fv_fmadd(p, t, fv_set1(-0.82215223f));
    p = fv_fmadd(p, t, fv_set1(1.48851587f));
    p = fv_fmadd(p, t, fv_set1(-1.13520398f));
    p = fv_fmadd(p, t, fv_set1(0.27886807f));
    p = fv_fmadd(p, t, fv_set1(-0.18628806f));
    p = fv_fmadd(p, t, fv_set1(0.09678418f));
    p = fv_fmadd(p, t, fv_set1(0.37409196f));
    p = fv_fmadd(p, t, fv_set1(1.00002368f));
    p = fv_fmadd(p, t, fv_set1(-1.26551223f));
    fv_t hi = fv_mul(a, a);
    fv_t lo = fv_fmadd(a, a, fv_neg(hi)); /* a^2 - hi, exact */
    fv_t r = fv_mul(t, fv_mul(fv_exp(fv_neg(hi)), fv_exp(fv_sub(p, lo))));
    return fv_select_gt(fv_zero(), z, fv_sub(fv_set1(2.0f), r), r);
}

/* y = 0.5 x erfc(-x / sqrt 2) */
static inline void
FV_FN(gx_gelu_fwd_fv)(int64_t n, float *y, const float *x)
{
    const fv_t k = fv_set1(-0.70710678118654752f), half = fv_set1(0.5f);
    int64_t i = 0;
    for (; i + FV_N <= n; i += FV_N) {
        fv_t v = fv_loadu(x + i);
        fv_storeu(y + i, fv_mul(fv_mul(half, v), FV_FN(gx_erfc_fv)(fv_mul(v, k))));
    }
    if (i < n) {
        fv_t v = fv_load_tail(x + i, (int)(n - i));
        fv_store_tail(y + i, fv_mul(fv_mul(half, v), FV_FN(gx_erfc_fv)(fv_mul(v, k))), (int)(n - i));
    }
}

/* dx = dy (Phi(x) + x phi(x)) */
static inline void
FV_FN(gx_gelu_bwd_fv)(int64_t n, float *y, const float *x, const float *dy)
{
    const fv_t k = fv_set1(-0.70710678118654752f), half = fv_set1(0.5f), mhalf = fv_set1(-0.5f),
               pdf = fv_set1(0.3989422804014327f);
    for (int64_t i = 0; i < n; i += FV_N) {
        int m = n - i < FV_N ? (int)(n - i) : FV_N;
        fv_t v = fv_load_tail(x + i, m), g = fv_load_tail(dy + i, m);
        fv_t cdf = fv_mul(half, FV_FN(gx_erfc_fv)(fv_mul(v, k)));
        fv_t d = fv_fmadd(fv_mul(v, pdf), fv_exp(fv_mul(mhalf, fv_mul(v, v))), cdf);
        fv_store_tail(y + i, fv_mul(g, d), m);
    }
}

#endif /* FDNN_CPU_GRAPH_PW_ERF_H */
