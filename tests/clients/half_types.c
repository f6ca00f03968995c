/* SPDX-License-Identifier: Apache-2.0
 * A host program that builds FP16 and BF16 data the way CUDA programs do,
 * with <cuda_fp16.h> and <cuda_bf16.h> only: the conversion intrinsics in
 * C and C++, and in C++ the __half / __nv_bfloat16 classes (constructors,
 * conversion operators, arithmetic, comparisons, half2 / bfloat162).
 * Every result is checked bit for bit against values computed here from
 * the formats' definitions.
 *
 * test_client_half.sh compiles it as C11 and as C++11 with gcc / g++ and
 * clang / clang++, -Wall -Wextra -Werror -pedantic, and runs each build; it
 * prints "Test passed!" (exit 0) or names the failed check (exit 1). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#include <type_traits>
#endif

#define require(cond)                                                           \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

/* The value of a binary16 / bfloat16 code by definition (NaN as NaN). */
static double
f16_value(unsigned h)
{
    const double sign = (h & 0x8000u) ? -1.0 : 1.0;
    const unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 31)
        return m ? NAN : sign * INFINITY;
    return e == 0 ? sign * ldexp((double)m, -24) : sign * ldexp((double)(m | 0x400u), (int)e - 25);
}

static double
bf16_value(unsigned h)
{
    const double sign = (h & 0x8000u) ? -1.0 : 1.0;
    const unsigned e = (h >> 7) & 0xffu, m = h & 0x7fu;
    if (e == 255)
        return m ? NAN : sign * INFINITY;
    return e == 0 ? sign * ldexp((double)m, -133) : sign * ldexp((double)(m | 0x80u), (int)e - 134);
}

/* 2^e (hexadecimal float literals are C++17) */
static double
p2(int e)
{
    return ldexp(1.0, e);
}

static unsigned
hbits(__half h)
{
    return __half_as_ushort(h);
}

static unsigned
bbits(__nv_bfloat16 b)
{
    return __bfloat16_as_ushort(b);
}

/* ---- C and C++: the intrinsics ---------------------------------------------------- */

static void
test_intrinsics(void)
{
    /* every code to float and back */
    for (unsigned c = 0; c < 0x10000u; c++) {
        const float f = __half2float(__ushort_as_half((unsigned short)c));
        const double v = f16_value(c);
        if (v != v) {
            require(f != f);
            require(hbits(__float2half_rn(f)) == (c | 0x200u)); /* quiet, payload kept */
        } else {
            require((double)f == v);
            require(hbits(__float2half(f)) == c);
        }
        const float g = __bfloat162float(__ushort_as_bfloat16((unsigned short)c));
        const double w = bf16_value(c);
        if (w != w) {
            require(g != g);
            require(bbits(__float2bfloat16_rn(g)) == (c | 0x40u));
        } else {
            require((double)g == w);
            require(bbits(__float2bfloat16(g)) == c);
        }
    }
    /* ties to even, overflow, subnormals, signed zero */
    require(hbits(__float2half_rn(1.0f + (float)p2(-11))) == 0x3c00u);
    require(hbits(__float2half_rn(1.0f + (float)(1.5 * p2(-10)))) == 0x3c02u);
    require(hbits(__float2half_rn(65519.0f)) == 0x7bffu);
    require(hbits(__float2half_rn(65520.0f)) == 0x7c00u);
    require(hbits(__float2half_rn((float)p2(-25))) == 0x0000u);
    require(hbits(__float2half_rn((float)(p2(-25) * (1 + p2(-23))))) == 0x0001u);
    require(hbits(__float2half_rn(-0.0f)) == 0x8000u);
    require(bbits(__float2bfloat16_rn(1.0f + (float)p2(-8))) == 0x3f80u);
    require(bbits(__float2bfloat16_rn(1.0f + (float)(1.5 * p2(-7)))) == 0x3f82u);
    require(bbits(__float2bfloat16_rn(3.4028235e38f)) == 0x7f80u);
    require(bbits(__float2bfloat16_rn((float)p2(-133))) == 0x0001u);
    require(bbits(__float2bfloat16_rz(1.0f + (float)(1.9375 * p2(-8)))) == 0x3f80u);
    /* one rounding from double and from wide integers (through float the
     * tie would go to even: the sticky bits decide) */
    require(hbits(__double2half(1.0 + p2(-11) + p2(-40))) == 0x3c01u);
    require(hbits(__double2half(1.0 + p2(-11))) == 0x3c00u);
    require(bbits(__double2bfloat16(1.0 + p2(-8) + p2(-40))) == 0x3f81u);
    require(bbits(__int2bfloat16_rn(0x1010001)) == 0x4b81u);
    require(bbits(__int2bfloat16_rn(0x1010000)) == 0x4b80u);
    require(bbits(__ll2bfloat16_rn(0x4000000100000001ll)) == 0x5e80u);
    require(bbits(__ull2bfloat16_rn(0xffffffffffffffffull)) == 0x5f80u);
    require(hbits(__int2half_rn(2049)) == 0x6800u); /* tie: 2048 */
    require(hbits(__int2half_rn(2051)) == 0x6802u); /* tie: 2052 */
    require(hbits(__int2half_rn(70000)) == 0x7c00u);
    require(hbits(__ll2half_rn(-70000)) == 0xfc00u);
    require(hbits(__short2half_rn(-3)) == 0xc200u);
    /* to integers: toward zero, saturated, NaN 0 */
    require(__half2int_rz(__float2half(-2.75f)) == -2);
    require(__half2int_rz(__ushort_as_half(0x7e00u)) == 0);
    require(__half2int_rz(__ushort_as_half(0x7c00u)) == INT_MAX);
    require(__half2uint_rz(__float2half(-5.0f)) == 0u);
    require(__half2short_rz(__float2half(60000.0f)) == SHRT_MAX);
    require(__half2ll_rz(__ushort_as_half(0xfc00u)) == LLONG_MIN);
    require(__bfloat162int_rz(__float2bfloat16(1e20f)) == INT_MAX);
    require(__bfloat162ll_rz(__float2bfloat16(-1e30f)) == LLONG_MIN);
    /* bits */
    require(__half_as_short(__short_as_half(-2)) == -2);
    require(__bfloat16_as_short(__short_as_bfloat16(-3)) == -3);
    /* pairs */
    const __half2 p = __floats2half2_rn(1.5f, -2.0f);
    require(__low2float(p) == 1.5f && __high2float(p) == -2.0f);
    require(hbits(__low2half(p)) == 0x3e00u && hbits(__high2half(p)) == 0xc000u);
    const float2 pf = __half22float2(__lowhigh2highlow(p));
    require(pf.x == -2.0f && pf.y == 1.5f);
    const __nv_bfloat162 q = __floats2bfloat162_rn(0.5f, 3.0f);
    const float2 qf = __bfloat1622float2(q);
    require(qf.x == 0.5f && qf.y == 3.0f);
    require(bbits(__low2bfloat16(q)) == 0x3f00u && bbits(__high2bfloat16(q)) == 0x4040u);
    /* arithmetic */
    require(hbits(__hadd(__float2half(1.0f), __float2half((float)p2(-11)))) == 0x3c00u); /* tie to even */
    require(hbits(__hmul(__float2half(3.0f), __float2half(-0.5f))) == 0xbe00u);
    require(hbits(__hdiv(__float2half(1.0f), __float2half(3.0f))) == 0x3555u);
    require(hbits(__hneg(__float2half(2.0f))) == 0xc000u);
    require(__hlt(__float2half(1.0f), __float2half(2.0f)) && !__heq(__ushort_as_half(0x7e00u), __ushort_as_half(0x7e00u)));
    require(__hisnan(__ushort_as_half(0xfe01u)) && __hisinf(__ushort_as_half(0xfc00u)) == -1);
    /* layout */
    require(sizeof(__half) == 2 && sizeof(__half2) == 4 && sizeof(__nv_bfloat16) == 2 && sizeof(__nv_bfloat162) == 4);
    __half arr[3];
    arr[0] = __float2half(1.0f);
    arr[1] = __float2half(-2.0f);
    arr[2] = __float2half(0.5f);
    unsigned short raw[3];
    memcpy(raw, arr, sizeof(raw));
    require(raw[0] == 0x3c00u && raw[1] == 0xc000u && raw[2] == 0x3800u);
}

/* ---- C++: the classes ------------------------------------------------------------ */
#ifdef __cplusplus

static_assert(std::is_trivially_copyable<__half>::value, "__half is trivially copyable");
static_assert(std::is_trivially_copyable<__half2>::value, "__half2 is trivially copyable");
static_assert(std::is_trivially_copyable<__nv_bfloat16>::value, "__nv_bfloat16 is trivially copyable");
static_assert(std::is_trivially_copyable<__nv_bfloat162>::value, "__nv_bfloat162 is trivially copyable");
static_assert(std::is_trivial<__half>::value, "__half has a trivial default constructor");
static_assert(sizeof(__half) == 2 && alignof(__half) == 2, "__half is 2 bytes, 2-aligned");
static_assert(sizeof(half2) == 4 && alignof(half2) == 4, "half2 is 4 bytes, 4-aligned");
static_assert(sizeof(__nv_bfloat16) == 2 && alignof(__nv_bfloat162) == 4, "bfloat16 layout");

static void
test_half_class(void)
{
    const __half a = 1.5f, b(2.0), c(3), d(7u), e(-4L), f(100000), g(5ull), h((short)-6);
    require(hbits(a) == 0x3e00u && hbits(b) == 0x4000u && hbits(c) == 0x4200u && hbits(d) == 0x4700u);
    require(hbits(e) == 0xc400u && hbits(f) == 0x7c00u && hbits(g) == 0x4500u && hbits(h) == 0xc600u);
    require(hbits(__half(1.0 + p2(-11) + p2(-40))) == 0x3c01u); /* one rounding from double */
    /* arithmetic and compound assignment */
    require(hbits(a + b) == 0x4300u);
    require(hbits(a - b) == 0xb800u);
    require(hbits(a * b) == 0x4200u);
    require(hbits(c / b) == 0x3e00u);
    require(hbits(-a) == 0xbe00u && hbits(+a) == 0x3e00u);
    __half x = a;
    x += b;
    require(hbits(x) == 0x4300u);
    x -= a;
    x *= c;
    x /= b;
    require(hbits(x) == 0x4200u);
    ++x;
    require(hbits(x) == 0x4400u);
    const __half y = x--;
    require(hbits(y) == 0x4400u && hbits(x) == 0x4200u);
    /* comparisons (IEEE: NaN unordered) */
    const __half nan = __ushort_as_half(0x7e00u);
    require(a < b && b > a && a <= a && a >= a && a == a && a != b);
    require(!(nan == nan) && nan != nan && !(nan < a) && !(nan >= a));
    require(__half(0.0f) == __half(-0.0f));
    /* conversions out */
    const float fa = a;
    require(fa == 1.5f);
    require(static_cast<int>(__half(-2.75f)) == -2);
    require(static_cast<unsigned>(__half(-2.75f)) == 0u);
    require(static_cast<short>(__half(40000.0f)) == SHRT_MAX);
    require(static_cast<signed char>(__half(-300.0f)) == -128);
    require(static_cast<unsigned char>(__half(254.9f)) == 254);
    require(static_cast<long long>(__ushort_as_half(0x7c00u)) == LLONG_MAX);
    require(static_cast<unsigned long long>(nan) == 0ull);
    require(static_cast<bool>(a) && !static_cast<bool>(__half(-0.0f)));
    /* raw */
    __half_raw r = a;
    require(r.x == 0x3e00u);
    r.x = 0x3c00u;
    const __half one = r;
    require(hbits(one) == 0x3c00u);
    x = r;
    require(hbits(x) == 0x3c00u);
    x = 2.5f;
    require(hbits(x) == 0x4100u);
    x = 3;
    require(hbits(x) == 0x4200u);
    /* half2 */
    const half2 p(a, b), q = __floats2half2_rn(0.5f, -1.0f);
    const half2 s = p + q, m = p * q;
    require(hbits(s.x) == 0x4000u && hbits(s.y) == 0x3c00u);
    require(hbits(m.x) == 0x3a00u && hbits(m.y) == 0xc000u);
    require(hbits((-p).y) == 0xc000u && p == p && p != q);
    half2 t = p;
    t -= q;
    t /= p;
    require(hbits(t.x) == 0x3955u && hbits(t.y) == 0x3e00u); /* 1 / 1.5 rounded, 3 / 2 */
    __half2_raw pr = p;
    require(pr.x == 0x3e00u && pr.y == 0x4000u);
    const half2 back = pr;
    require(back == p);
    /* arrays for a cudaMemcpy, as programs build them */
    __half buf[4] = {__half(1.0f), __half(2.0f), __half(0.25f), __half(-8.0f)};
    unsigned short bits[4];
    memcpy(bits, buf, sizeof(bits));
    require(bits[0] == 0x3c00u && bits[1] == 0x4000u && bits[2] == 0x3400u && bits[3] == 0xc800u);
}

static void
test_bfloat16_class(void)
{
    const __nv_bfloat16 a = 1.5f, b(2.0), c(3), d(7u), e(-4L), g(5ull);
    require(bbits(a) == 0x3fc0u && bbits(b) == 0x4000u && bbits(c) == 0x4040u && bbits(d) == 0x40e0u);
    require(bbits(e) == 0xc080u && bbits(g) == 0x40a0u);
    require(bbits(__nv_bfloat16(0x1010001)) == 0x4b81u); /* one rounding from int */
    require(bbits(__nv_bfloat16(__half(0.5f))) == 0x3f00u);
    require(bbits(a + b) == 0x4060u && bbits(a - b) == 0xbf00u && bbits(a * b) == 0x4040u);
    require(bbits(c / b) == 0x3fc0u && bbits(-a) == 0xbfc0u);
    require(bbits(__nv_bfloat16(1.0f) + __nv_bfloat16((float)p2(-8))) == 0x3f80u); /* tie to even */
    __nv_bfloat16 x = a;
    x += b;
    x *= b;
    x -= c;
    x /= b;
    ++x;
    require(bbits(x) == 0x4040u); /* ((1.5 + 2) * 2 - 3) / 2 + 1 = 3 */
    require(a < b && b > a && a <= a && b >= a && a == a && a != b);
    const __nv_bfloat16 nan = __ushort_as_bfloat16(0x7fc0u);
    require(!(nan == nan) && nan != nan);
    const float fa = a;
    require(fa == 1.5f);
    require(static_cast<int>(__nv_bfloat16(-2.75f)) == -2);
    require(static_cast<long long>(__nv_bfloat16(1e30f)) == LLONG_MAX);
    require(static_cast<unsigned>(__nv_bfloat16(1e30f)) == UINT_MAX);
    require(static_cast<int>(nan) == 0);
    __nv_bfloat16_raw r = a;
    require(r.x == 0x3fc0u);
    const __nv_bfloat162 p(a, b), q = __floats2bfloat162_rn(0.5f, -1.0f);
    const __nv_bfloat162 s = p + q;
    require(__low2float(s) == 2.0f && __high2float(s) == 1.0f);
    require(p == p && p != q && bbits((-q).y) == 0x3f80u);
    __nv_bfloat162_raw pr = p;
    require(pr.x == 0x3fc0u && pr.y == 0x4000u);
}

#endif /* __cplusplus */

int
main(void)
{
    test_intrinsics();
#ifdef __cplusplus
    test_half_class();
    test_bfloat16_class();
#endif
    printf("Test passed!\n");
    return 0;
}
