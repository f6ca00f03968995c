/* SPDX-License-Identifier: Apache-2.0
 * The FP8 converters (src/cpu/tensor/convert_fp8.h) against an independent
 * float64 reference written from the formats' definitions:
 *   - every one of the 256 codes of E4M3 and E5M2 decodes to sign * m * 2^e
 *     exactly (NaN codes to NaN, E5M2's infinities to infinities) and
 *     encodes back to itself (NaN codes to the canonical 0x7F);
 *   - float -> fp8 of every midpoint between neighbouring codes, of the
 *     floats beside each midpoint, of a sweep over all float bit patterns
 *     (every 509th) and of the special values, against the reference: the
 *     nearest of the sorted finite values plus one virtual value above the
 *     largest (where the next exponent step would be), ties to the even code,
 *     the virtual value meaning overflow (SATFINITE: +-largest finite;
 *     NOSAT: NaN for E4M3, infinity for E5M2).
 * The host header compat/cudart/include/cuda_fp8.h (its own copy of the
 * encoder, for programs) gives the same bits on the sweep and the decodes.
 * PyTorch 1.13 (the system's) has no float8 types, so the reference is this
 * file's. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/tensor/convert_fp8.h"
#include "cuda_fp8.h"
#include "testutil.h"

typedef struct {
    fdnn_fp8_kind_t kind;
    const char *name;
    int m, bias;
    double vals[130]; /* the non-negative finite values, ascending, codes 0.. */
    int nvals;        /* + one virtual overflow value at vals[nvals] */
} fmt_t;

/* sign * m * 2^e by the definition of the format; NaN for NaN codes. */
static double
definition(const fmt_t *f, unsigned c)
{
    double sign = (c & 0x80u) ? -1.0 : 1.0;
    unsigned e = (c & 0x7Fu) >> f->m, man = c & ((1u << f->m) - 1u);
    unsigned emax = (1u << (7 - f->m)) - 1u;
    if (f->kind == FDNN_FP8_E4M3 && e == emax && man == (1u << f->m) - 1u)
        return NAN;
    if (f->kind == FDNN_FP8_E5M2 && e == emax)
        return man ? NAN : sign * INFINITY;
    if (e == 0)
        return sign * ldexp((double)man, 1 - f->bias - f->m);
    return sign * ldexp((double)(man | (1u << f->m)), (int)e - f->bias - f->m);
}

static void
fmt_init(fmt_t *f, fdnn_fp8_kind_t kind)
{
    f->kind = kind;
    f->name = kind == FDNN_FP8_E4M3 ? "E4M3" : "E5M2";
    f->m = kind == FDNN_FP8_E4M3 ? 3 : 2;
    f->bias = kind == FDNN_FP8_E4M3 ? 7 : 15;
    f->nvals = 0;
    for (unsigned c = 0; c < 0x80u; c++) {
        double v = definition(f, c);
        if (isfinite(v))
            f->vals[f->nvals++] = v; /* codes are ascending in value */
    }
    /* the value one step above the largest, at the largest's spacing */
    double top = f->vals[f->nvals - 1];
    f->vals[f->nvals] = top + (top - f->vals[f->nvals - 2]);
}

/* The reference encoding of x. */
static unsigned
reference(const fmt_t *f, double x, fdnn_fp8_sat_t sat)
{
    if (isnan(x))
        return 0x7Fu;
    unsigned sign = signbit(x) ? 0x80u : 0u;
    double a = fabs(x);
    int lo = 0, hi = f->nvals; /* vals[lo] <= a < vals[hi], or a beyond */
    unsigned code;
    if (a >= f->vals[f->nvals]) {
        code = (unsigned)f->nvals;
    } else {
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (f->vals[mid] <= a)
                lo = mid;
            else
                hi = mid;
        }
        double dl = a - f->vals[lo], dh = f->vals[hi] - a;
        code = dl < dh ? (unsigned)lo : dh < dl ? (unsigned)hi : (lo % 2 == 0 ? (unsigned)lo : (unsigned)hi);
    }
    if (code == (unsigned)f->nvals) /* overflow */
        return sign | (sat == FDNN_FP8_SATFINITE ? (unsigned)(f->nvals - 1)
                                                 : f->kind == FDNN_FP8_E4M3 ? 0x7Fu : 0x7Cu);
    return sign | code;
}

static int nbad;

static void
check_one(const fmt_t *f, float x, fdnn_fp8_sat_t sat)
{
    unsigned want = reference(f, (double)x, sat);
    unsigned got = fdnn_f32_to_fp8(x, f->kind, sat);
    if (got != want && nbad++ < 20)
        fdnn_test_fail(__FILE__, __LINE__, "%s %s: %a -> 0x%02x, want 0x%02x", f->name,
                       sat == FDNN_FP8_SATFINITE ? "satfinite" : "nosat", (double)x, got, want);
    else if (got == want)
        fdnn_test_passed++;
}

static void
test_format(fdnn_fp8_kind_t kind)
{
    fmt_t f;
    fmt_init(&f, kind);
    nbad = 0;
    /* decode exactly, encode back */
    int exact = 0, back = 0;
    for (unsigned c = 0; c < 256u; c++) {
        double want = definition(&f, c);
        float got = fdnn_fp8_to_f32((uint8_t)c, kind);
        if (isnan(want) ? isnan(got) && fdnn_f32_bits(got) == 0x7FFFFFFFu
                        : (double)got == want && !signbit(got) == !signbit(want))
            exact++;
        else
            fdnn_test_fail(__FILE__, __LINE__, "%s code 0x%02x decodes to %a, want %a", f.name, c, (double)got,
                           want);
        unsigned want_back = isnan(want) ? 0x7Fu : c;
        if (isinf(want)) /* E5M2 infinities: SATFINITE clamps, NOSAT keeps */
            want_back = (c & 0x80u) | 0x7Bu;
        if (fdnn_f32_to_fp8(got, kind, FDNN_FP8_SATFINITE) == want_back)
            back++;
        else
            fdnn_test_fail(__FILE__, __LINE__, "%s code 0x%02x does not round-trip", f.name, c);
        if (isinf(want))
            CHECK(fdnn_f32_to_fp8(got, kind, FDNN_FP8_NOSAT) == c);
    }
    CHECK(exact == 256 && back == 256);
    /* midpoints and their neighbours, both signs, both modes */
    for (int sat = 0; sat < 2; sat++)
        for (int i = 0; i < f.nvals; i++) {
            double mid = (f.vals[i] + f.vals[i + 1]) / 2; /* exact in float */
            float fm = (float)mid;
            CHECK((double)fm == mid);
            float pts[5] = {fm, nextafterf(fm, 0.0f), nextafterf(fm, INFINITY), (float)f.vals[i],
                            (float)f.vals[i + 1]};
            for (int k = 0; k < 5; k++) {
                check_one(&f, pts[k], (fdnn_fp8_sat_t)sat);
                check_one(&f, -pts[k], (fdnn_fp8_sat_t)sat);
            }
        }
    /* specials */
    const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 0x1p-149f, -0x1p-149f, 0x1p-126f, 3.0e38f,
                        FDNN_FP8_E4M3_MAX, 464.0f, 464.00003f, 480.0f, FDNN_FP8_E5M2_MAX, 61439.996f, 61440.0f};
    for (int sat = 0; sat < 2; sat++)
        for (size_t k = 0; k < sizeof(sp) / sizeof(sp[0]); k++)
            check_one(&f, sp[k], (fdnn_fp8_sat_t)sat);
    /* doubles just beside each midpoint, which a rounding to float first
     * would move onto it: fdnn_f64_to_fp8 rounds once */
    for (int i = 0; i < f.nvals; i++) {
        double mid = (f.vals[i] + f.vals[i + 1]) / 2;
        double pts[3] = {mid, mid * (1 + 0x1p-40), mid * (1 - 0x1p-40)};
        for (int k = 0; k < 3; k++)
            for (int sat = 0; sat < 2; sat++) {
                unsigned want = reference(&f, pts[k], (fdnn_fp8_sat_t)sat);
                unsigned got = fdnn_f64_to_fp8(pts[k], kind, (fdnn_fp8_sat_t)sat);
                CHECK_MSG(got == want, "%s double %a -> 0x%02x, want 0x%02x", f.name, pts[k], got, want);
                CHECK(fdnn_f64_to_fp8(-pts[k], kind, (fdnn_fp8_sat_t)sat) == (want | 0x80u));
            }
    }
    CHECK(fdnn_f64_to_fp8(1e300, kind, FDNN_FP8_SATFINITE) == (kind == FDNN_FP8_E4M3 ? 0x7Eu : 0x7Bu));
    CHECK(fdnn_f64_to_fp8(-1e-300, kind, FDNN_FP8_SATFINITE) == 0x80u);
    /* a sweep over the float bit patterns; the host header agrees */
    __nv_fp8_interpretation_t nv = kind == FDNN_FP8_E4M3 ? __NV_E4M3 : __NV_E5M2;
    int header_same = 1;
    for (uint64_t u = 0; u < 0x100000000ull; u += 509) {
        float x = fdnn_f32_from_bits((uint32_t)u);
        check_one(&f, x, FDNN_FP8_SATFINITE);
        if ((u / 509) % 8 == 0) {
            check_one(&f, x, FDNN_FP8_NOSAT);
            header_same &= __nv_cvt_float_to_fp8(x, __NV_NOSAT, nv) == fdnn_f32_to_fp8(x, kind, FDNN_FP8_NOSAT);
        }
        header_same &= __nv_cvt_float_to_fp8(x, __NV_SATFINITE, nv) == fdnn_f32_to_fp8(x, kind, FDNN_FP8_SATFINITE);
    }
    for (unsigned c = 0; c < 256u; c++) {
        float a = fdnn_fp8_to_f32((uint8_t)c, kind), b = fdnn_cuda_fp8_to_f32((__nv_fp8_storage_t)c, nv);
        header_same &= fdnn_f32_bits(a) == fdnn_f32_bits(b);
    }
    CHECK_MSG(header_same, "%s: cuda_fp8.h and convert_fp8.h disagree", f.name);
    /* the documented edges, spelled out */
    if (kind == FDNN_FP8_E4M3) {
        CHECK(fdnn_f32_to_fp8(448.0f, kind, FDNN_FP8_SATFINITE) == 0x7E);
        CHECK(fdnn_f32_to_fp8(464.0f, kind, FDNN_FP8_NOSAT) == 0x7E); /* tie to the even 448 */
        CHECK(fdnn_f32_to_fp8(465.0f, kind, FDNN_FP8_NOSAT) == 0x7F);
        CHECK(fdnn_f32_to_fp8(-1e9f, kind, FDNN_FP8_SATFINITE) == 0xFE);
        CHECK(fdnn_f32_to_fp8(INFINITY, kind, FDNN_FP8_SATFINITE) == 0x7E);
        CHECK(fdnn_f32_to_fp8(NAN, kind, FDNN_FP8_SATFINITE) == 0x7F);
        CHECK(fdnn_f32_to_fp8(0x1p-10f, kind, FDNN_FP8_SATFINITE) == 0x00); /* half of 2^-9: tie to 0 */
        CHECK(fdnn_f32_to_fp8(-0x1.8p-10f, kind, FDNN_FP8_SATFINITE) == 0x81);
    } else {
        CHECK(fdnn_f32_to_fp8(57344.0f, kind, FDNN_FP8_SATFINITE) == 0x7B);
        CHECK(fdnn_f32_to_fp8(61440.0f, kind, FDNN_FP8_NOSAT) == 0x7C); /* tie away from the odd 0x7B */
        CHECK(fdnn_f32_to_fp8(61440.0f, kind, FDNN_FP8_SATFINITE) == 0x7B);
        CHECK(fdnn_f32_to_fp8(-INFINITY, kind, FDNN_FP8_SATFINITE) == 0xFB);
        CHECK(fdnn_f32_to_fp8(-INFINITY, kind, FDNN_FP8_NOSAT) == 0xFC);
        CHECK(fdnn_f32_to_fp8(NAN, kind, FDNN_FP8_NOSAT) == 0x7F);
        CHECK(fdnn_f32_to_fp8(0x1p-17f, kind, FDNN_FP8_SATFINITE) == 0x00);
    }
    /* the rows */
    float src[300];
    uint8_t enc[300], enc_want[300];
    float dec[300];
    uint8_t codes[256];
    for (int i = 0; i < 300; i++) {
        src[i] = (float)ldexp(sin(i * 0.37) * 1.9, (i % 40) - 20);
        enc_want[i] = fdnn_f32_to_fp8(src[i], kind, FDNN_FP8_SATFINITE);
    }
    memset(enc, 0xA5, sizeof(enc));
    fdnn_f32_to_fp8_row(kind, src, 300, enc);
    CHECK(memcmp(enc, enc_want, sizeof(enc)) == 0);
    for (int i = 0; i < 256; i++)
        codes[i] = (uint8_t)i;
    fdnn_poison_f32(dec, 300);
    fdnn_fp8_to_f32_row(kind, codes, 256, dec);
    int same = 0;
    for (int i = 0; i < 256; i++) {
        float one = fdnn_fp8_to_f32((uint8_t)i, kind);
        same += fdnn_f32_bits(one) == fdnn_f32_bits(dec[i]);
    }
    CHECK(same == 256);
}

int
main(void)
{
    test_format(FDNN_FP8_E4M3);
    test_format(FDNN_FP8_E5M2);
    return fdnn_test_finish("test_fp8_convert");
}
