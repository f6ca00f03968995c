/* SPDX-License-Identifier: Apache-2.0
 * Host code using <cuda_fp8.h> of compat/cudart only (header-only), built
 * as C11 and C++11 with -Wall -Wextra -Werror -pedantic: every one of the
 * 256 codes of E4M3 and E5M2 converts to the value of the format's
 * definition (float and half) and back to itself; the rounding, saturation
 * and NaN edges of __nv_cvt_float_to_fp8 / __nv_cvt_double_to_fp8 in both
 * saturation modes; the C++ classes (__nv_fp8_e4m3, __nv_fp8_e5m2, x2, x4)
 * round-trip.  Prints "Test passed!" when all hold. */
#include <math.h>
#include <stdio.h>

#include <cuda_fp8.h>

static int failures;

#define EXPECT(cond)                                                   \
    do {                                                               \
        if (!(cond)) {                                                 \
            printf("%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);  \
            failures++;                                                \
        }                                                              \
    } while (0)

static double
definition(unsigned c, int e5m2)
{
    int m = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    double sign = (c & 0x80u) ? -1.0 : 1.0;
    unsigned e = (c & 0x7Fu) >> m, man = c & ((1u << m) - 1u);
    if (!e5m2 && (c & 0x7Fu) == 0x7Fu)
        return NAN;
    if (e5m2 && e == 31)
        return man ? NAN : sign * INFINITY;
    if (e == 0)
        return sign * ldexp((double)man, 1 - bias - m);
    return sign * ldexp((double)(man | (1u << m)), (int)e - bias - m);
}

static void
codes(__nv_fp8_interpretation_t kind)
{
    int e5m2 = kind == __NV_E5M2;
    unsigned c;
    for (c = 0; c < 256u; c++) {
        double want = definition(c, e5m2);
        __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)c, kind);
        float f = fdnn_cuda_f16_bits_to_f32(h.x);
        if (want != want) {
            EXPECT(f != f && h.x == 0x7FFFu);
            EXPECT(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, kind) == 0x7Fu);
        } else {
            EXPECT((double)f == want && !signbit(f) == !signbit(want));
            if (isinf(want)) {
                EXPECT(__nv_cvt_float_to_fp8(f, __NV_NOSAT, kind) == c);
                EXPECT(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, kind) == ((c & 0x80u) | 0x7Bu));
            } else {
                EXPECT(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, kind) == c);
                EXPECT(__nv_cvt_double_to_fp8(want, __NV_NOSAT, kind) == c);
            }
        }
    }
}

static void
edges(void)
{
    /* E4M3: 448 the largest; 464 ties to the even 448; beyond saturates
     * or is NaN; smallest subnormal 2^-9, half of it ties to zero */
    EXPECT(__nv_cvt_float_to_fp8(464.0f, __NV_NOSAT, __NV_E4M3) == 0x7E);
    EXPECT(__nv_cvt_float_to_fp8(464.5f, __NV_NOSAT, __NV_E4M3) == 0x7F);
    EXPECT(__nv_cvt_float_to_fp8(-1000.0f, __NV_SATFINITE, __NV_E4M3) == 0xFE);
    EXPECT(__nv_cvt_float_to_fp8(-1000.0f, __NV_NOSAT, __NV_E4M3) == 0xFF);
    EXPECT(__nv_cvt_float_to_fp8(INFINITY, __NV_SATFINITE, __NV_E4M3) == 0x7E);
    EXPECT(__nv_cvt_float_to_fp8(NAN, __NV_SATFINITE, __NV_E4M3) == 0x7F);
    EXPECT(__nv_cvt_float_to_fp8((float)ldexp(1.0, -10), __NV_SATFINITE, __NV_E4M3) == 0x00);
    EXPECT(__nv_cvt_float_to_fp8((float)ldexp(1.0001, -10), __NV_SATFINITE, __NV_E4M3) == 0x01);
    EXPECT(__nv_cvt_float_to_fp8(-0.0f, __NV_SATFINITE, __NV_E4M3) == 0x80);
    EXPECT(__nv_cvt_float_to_fp8(1.0625f, __NV_SATFINITE, __NV_E4M3) == 0x38); /* tie to even 1.0 */
    EXPECT(__nv_cvt_float_to_fp8(1.1875f, __NV_SATFINITE, __NV_E4M3) == 0x3A); /* tie to even 1.25 */
    /* E5M2: 57344 the largest; 61440 ties to the (odd) largest's
     * successor, infinity; SATFINITE keeps it finite; NaN 0x7F */
    EXPECT(__nv_cvt_float_to_fp8(61440.0f, __NV_NOSAT, __NV_E5M2) == 0x7C);
    EXPECT(__nv_cvt_float_to_fp8(61439.0f, __NV_NOSAT, __NV_E5M2) == 0x7B);
    EXPECT(__nv_cvt_float_to_fp8(-INFINITY, __NV_SATFINITE, __NV_E5M2) == 0xFB);
    EXPECT(__nv_cvt_float_to_fp8(NAN, __NV_NOSAT, __NV_E5M2) == 0x7F);
    EXPECT(__nv_cvt_double_to_fp8(1e300, __NV_SATFINITE, __NV_E5M2) == 0x7B);
    /* one rounding from double: just above a tie rounds up */
    EXPECT(__nv_cvt_double_to_fp8(1.0625 + 1e-12, __NV_SATFINITE, __NV_E4M3) == 0x39);
    {
        float2 f2;
        f2.x = 1.0f;
        f2.y = -2.0f;
        EXPECT(__nv_cvt_float2_to_fp8x2(f2, __NV_SATFINITE, __NV_E4M3) == (0x38u | (0xC0u << 8)));
    }
    {
        __half_raw h;
        h.x = 0x3C00u; /* 1.0 */
        EXPECT(__nv_cvt_halfraw_to_fp8(h, __NV_SATFINITE, __NV_E5M2) == 0x3C);
    }
}

#ifdef __cplusplus
static void
classes(void)
{
    __nv_fp8_e4m3 a(3.3f);
    EXPECT(a.__x == 0x45 && float(a) == 3.25f);
    __nv_fp8_e5m2 b(-1e6);
    EXPECT(b.__x == 0xFB && double(b) == -57344.0);
    __nv_fp8_e4m3 c(__half(0.5f));
    EXPECT(c.__x == 0x30 && int(__nv_fp8_e4m3(-7.5f)) == -7);
    EXPECT(float(__half(__nv_fp8_e5m2(0.75f))) == 0.75f);
    float4 f4;
    f4.x = 1.0f, f4.y = 2.0f, f4.z = -0.5f, f4.w = 448.0f;
    __nv_fp8x4_e4m3 v(f4);
    float4 back = float4(v);
    EXPECT(back.x == 1.0f && back.y == 2.0f && back.z == -0.5f && back.w == 448.0f);
    float2 f2;
    f2.x = 3.0f, f2.y = -0.25f;
    float2 b2 = float2(__nv_fp8x2_e5m2(f2));
    EXPECT(b2.x == 3.0f && b2.y == -0.25f);
    EXPECT(sizeof(__nv_fp8_e4m3) == 1 && sizeof(__nv_fp8x2_e5m2) == 2 && sizeof(__nv_fp8x4_e4m3) == 4);
}
#endif

int
main(void)
{
    codes(__NV_E4M3);
    codes(__NV_E5M2);
    edges();
#ifdef __cplusplus
    classes();
#endif
    if (failures == 0)
        printf("Test passed!\n");
    return failures != 0;
}
