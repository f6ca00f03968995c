/* SPDX-License-Identifier: Apache-2.0
 * The host __half and __nv_bfloat16 of compat/cudart (cuda_fp16.h,
 * cuda_bf16.h), exhaustively: every one of the 65536 bit patterns converts
 * to the float given by the format's definition (sign * m * 2^e, computed in
 * double) and back to itself; the midpoint between every two neighbours
 * rounds to the even one, and the floats just beside it to the nearer one;
 * overflow, underflow, zero signs and NaN are checked at their edges. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "testutil.h"

/* binary16 by definition: 1 sign, 5 exponent (bias 15), 10 fraction bits. */
static double
f16_definition(unsigned h)
{
    double sign = (h & 0x8000u) ? -1.0 : 1.0;
    unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0)
        return sign * ldexp((double)m, -24);
    if (e == 31)
        return m ? NAN : sign * INFINITY;
    return sign * ldexp((double)(m | 0x400u), (int)e - 25);
}

/* bfloat16 by definition: 1 sign, 8 exponent (bias 127), 7 fraction bits. */
static double
bf16_definition(unsigned h)
{
    double sign = (h & 0x8000u) ? -1.0 : 1.0;
    unsigned e = (h >> 7) & 0xffu, m = h & 0x7fu;
    if (e == 0)
        return sign * ldexp((double)m, -133);
    if (e == 255)
        return m ? NAN : sign * INFINITY;
    return sign * ldexp((double)(m | 0x80u), (int)e - 134);
}

static unsigned
f16(float f)
{
    return __half_as_ushort(__float2half(f));
}

static unsigned
bf16(float f)
{
    return __bfloat16_as_ushort(__float2bfloat16(f));
}

/* Checks the rounding of the float midpoint of (lo, hi), adjacent codes of
 * one sign, and of its two neighbouring floats. */
static int
midpoint_ok(unsigned lo, unsigned hi, double vlo, double vhi, unsigned (*to)(float))
{
    float mid = (float)((vlo + vhi) / 2); /* exact: one more bit than the format */
    if ((double)mid != (vlo + vhi) / 2)
        return 0;
    unsigned even = (lo & 1u) ? hi : lo;
    float toward_hi = nextafterf(mid, (float)vhi), toward_lo = nextafterf(mid, (float)vlo);
    return to(mid) == even && to(toward_hi) == hi && to(toward_lo) == lo;
}

static void
test_f16(void)
{
    int exact = 1, roundtrip = 1, mids = 1;
    for (unsigned h = 0; h < 0x10000u; h++) {
        double want = f16_definition(h);
        float got = __half2float(__ushort_as_half((unsigned short)h));
        if (isnan(want)) {
            exact &= isnan(got);
            roundtrip &= (f16(got) & 0x7c00u) == 0x7c00u && (f16(got) & 0x3ffu) != 0;
            continue;
        }
        exact &= (double)got == want && !signbit(got) == !signbit(want);
        roundtrip &= f16(got) == h;
        /* Neighbours: h and h + 1 of the same sign, up to the largest
         * finite (whose upper neighbour is 65536, the first overflow). */
        unsigned mag = h & 0x7fffu;
        if (mag < 0x7c00u) {
            unsigned next = h + 1;
            double vnext = mag == 0x7bffu ? copysign(65536.0, want) : f16_definition(next);
            mids &= midpoint_ok(h, next, want, vnext, f16);
        }
    }
    CHECK_MSG(exact, "binary16 -> float differs from the definition");
    CHECK_MSG(roundtrip, "float -> binary16 does not give back every code");
    CHECK_MSG(mids, "binary16 rounding at midpoints is not to nearest even");

    CHECK(f16(65520.0f) == 0x7c00u);            /* halfway to 65536: overflows */
    CHECK(f16(nextafterf(65520.0f, 0)) == 0x7bffu);
    CHECK(f16(-1e30f) == 0xfc00u);
    CHECK(f16(INFINITY) == 0x7c00u);
    CHECK(f16(ldexpf(1.0f, -25)) == 0x0000u); /* halfway to the smallest subnormal: even */
    CHECK(f16(nextafterf(ldexpf(1.0f, -25), 1.0f)) == 0x0001u);
    CHECK(f16(-ldexpf(1.0f, -30)) == 0x8000u);  /* negative underflow keeps the sign */
    CHECK(f16(-0.0f) == 0x8000u);
    CHECK((f16(NAN) & 0x7e00u) == 0x7e00u);
    CHECK(__half2float(__float2half_rn(1.0f / 3.0f)) == 0.333251953125f);
    CHECK(__half2float(__double2half(0.1)) == __half2float(__float2half(0.1f)));
    CHECK(__half2float(__int2half_rn(2049)) == 2048.0f); /* 2049 is a tie: even */
    __half2 two = __floats2half2_rn(1.5f, -2.25f);
    float2 back = __half22float2(two);
    CHECK(back.x == 1.5f && back.y == -2.25f && __low2float(two) == 1.5f && __high2float(two) == -2.25f);
    CHECK(sizeof(__half) == 2 && sizeof(__half2) == 4);
}

static void
test_bf16(void)
{
    int exact = 1, roundtrip = 1, mids = 1;
    for (unsigned h = 0; h < 0x10000u; h++) {
        double want = bf16_definition(h);
        float got = __bfloat162float(__ushort_as_bfloat16((unsigned short)h));
        if (isnan(want)) {
            exact &= isnan(got);
            roundtrip &= isnan(__bfloat162float(__float2bfloat16(got)));
            continue;
        }
        exact &= (double)got == want && !signbit(got) == !signbit(want);
        roundtrip &= bf16(got) == h;
        unsigned mag = h & 0x7fffu;
        if (mag < 0x7f7fu) /* the top neighbour pair is checked below */
            mids &= midpoint_ok(h, h + 1, want, bf16_definition(h + 1), bf16);
    }
    CHECK_MSG(exact, "bfloat16 -> float differs from the definition");
    CHECK_MSG(roundtrip, "float -> bfloat16 does not give back every code");
    CHECK_MSG(mids, "bfloat16 rounding at midpoints is not to nearest even");

    /* Above the largest finite (0x7f7f, odd), the midpoint rounds to
     * infinity; FLT_MAX is beyond it. */
    CHECK(bf16(3.40282347e38f) == 0x7f80u);
    CHECK(bf16(nextafterf(bf16_definition(0x7f7fu), 0)) == 0x7f7fu);
    CHECK(bf16(-INFINITY) == 0xff80u);
    CHECK(bf16(-0.0f) == 0x8000u);
    CHECK((bf16(NAN) & 0x7fc0u) == 0x7fc0u);
    uint32_t snan_bits = 0x7f800001u; /* a signalling NaN whose payload is all below bit 16 */
    float snan;
    memcpy(&snan, &snan_bits, sizeof(snan));
    CHECK(isnan(__bfloat162float(__float2bfloat16(snan))));
    CHECK(__bfloat162float(__float2bfloat16_rn(1.0f / 3.0f)) == 0.333984375f);
    float2 back = __bfloat1622float2(__floats2bfloat162_rn(1.5f, -3.0f));
    CHECK(back.x == 1.5f && back.y == -3.0f);
    CHECK(sizeof(__nv_bfloat16) == 2 && sizeof(__nv_bfloat162) == 4);
}

int
main(void)
{
    test_f16();
    test_bf16();
    return fdnn_test_finish("test_cudart_half");
}
