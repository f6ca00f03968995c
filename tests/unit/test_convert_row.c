/* SPDX-License-Identifier: Apache-2.0
 * The scalar conversions of cpu/simd/cvt.h (and their cpu/tensor/convert.h
 * spellings) against an independent computation, and the row kernels of
 * cpu/tensor/convert_row.h on every path the machine has against them.
 *
 * Independent reference: the value of every half / bfloat16 code computed
 * from the format's definition in double (sign * m * 2^e), and float ->
 * code by searching the table of all finite codes for the nearest value
 * (ties to the even code): no bit tricks shared with the library.
 *   - all 65536 half and bfloat16 codes -> float (NaNs: quiet, payload);
 *   - float -> half / bfloat16 on every midpoint between neighbouring codes
 *     and the floats beside it, overflow edges, subnormals, zeros, NaN
 *     payloads, Inf, and a few million structured and random floats;
 *   - every path (portable, F16C, AVX-512, AVX512-BF16) equal bit for bit
 *     to the scalar code on those inputs, for row lengths 0..100 at odd
 *     offsets, ending at a guard page, with the bytes around the row
 *     poisoned and checked untouched. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/simd/cvt.h"
#include "cpu/tensor/convert.h"
#include "cpu/tensor/convert_row.h"
#include "testutil.h"

/* ---- the independent reference ------------------------------------------------ */

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

/* The positive finite codes of a format in increasing order (code i has
 * value table[i]), and the infinity code. */
typedef struct fmt {
    double table[0x7f81];
    unsigned inf; /* 0x7c00 or 0x7f80 */
} fmt_t;

static fmt_t half_fmt, bf16_fmt;

static void
fmt_init(fmt_t *f, unsigned inf, double (*value)(unsigned))
{
    f->inf = inf;
    for (unsigned c = 0; c < inf; c++)
        f->table[c] = value(c);
}

/* The code nearest to x (ties to the even code); overflow past the midpoint
 * of the largest finite code and the next power of two gives infinity. */
static unsigned
ref_encode(const fmt_t *f, float x)
{
    const uint32_t bits = fdnn_f32_bits(x);
    const unsigned sign = (bits >> 16) & 0x8000u;
    if (isnan(x))
        return 0xffffffffu; /* checked separately */
    const double a = fabs((double)x);
    const double max = f->table[f->inf - 1];
    const double limit = max + (max - f->table[f->inf - 2]) / 2; /* the midpoint to 2^(emax+1) */
    if (a >= limit)
        return sign | f->inf;
    /* largest code with value <= a */
    unsigned lo = 0, hi = f->inf - 1;
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) / 2;
        if (f->table[mid] <= a)
            lo = mid;
        else
            hi = mid - 1;
    }
    unsigned c = lo;
    /* between two codes: the nearer, ties to even; past the largest finite
     * code (and below the limit) it is the answer */
    if (f->table[c] != a && c + 1 < f->inf) {
        const double dlo = a - f->table[c], dhi = f->table[c + 1] - a;
        if (dhi < dlo || (dhi == dlo && (c & 1u)))
            c++;
    }
    return sign | c;
}

/* ---- scalar conversions ------------------------------------------------------- */

static void
test_decode_all(void)
{
    int bad16 = 0, badbf = 0;
    for (unsigned h = 0; h < 0x10000u; h++) {
        const float f = fdnn_f16_to_f32((uint16_t)h);
        const double want = f16_value(h);
        if (isnan(want)) {
            /* quiet NaN, same sign, payload shifted up */
            const uint32_t expect = ((uint32_t)(h & 0x8000u) << 16) | 0x7fc00000u | ((h & 0x3ffu) << 13);
            bad16 += fdnn_f32_bits(f) != expect;
        } else {
            bad16 += (double)f != want || (signbit(f) != 0) != ((h & 0x8000u) != 0);
        }
        bad16 += fdnn_f32_bits(fdnn_half_to_float((uint16_t)h)) != fdnn_f32_bits(f);
        const float b = fdnn_bf16_to_f32((uint16_t)h);
        const double bwant = bf16_value(h);
        if (isnan(bwant))
            badbf += fdnn_f32_bits(b) != ((uint32_t)h << 16 | 0x400000u); /* quiet, payload kept */
        else
            badbf += (double)b != bwant || (signbit(b) != 0) != ((h & 0x8000u) != 0);
        badbf += fdnn_f32_bits(fdnn_bf16_to_float((uint16_t)h)) != fdnn_f32_bits(b);
    }
    CHECK_MSG(bad16 == 0, "%d half codes decode wrongly", bad16);
    CHECK_MSG(badbf == 0, "%d bfloat16 codes decode wrongly", badbf);
}

static int encode_failures;

/* One float through both formats' scalar encoders, against the reference. */
static void
check_encode(float x)
{
    const uint16_t h = fdnn_f32_to_f16(x), b = fdnn_f32_to_bf16(x);
    if (fdnn_float_to_half(x) != h || fdnn_float_to_bf16(x) != b)
        encode_failures++;
    const uint32_t u = fdnn_f32_bits(x);
    if (isnan(x)) {
        const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
        const uint16_t h_want = (uint16_t)(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
        const uint16_t b_want = (uint16_t)((u >> 16) | 0x40u);
        if (h != h_want || b != b_want) {
            if (encode_failures++ < 5)
                fprintf(stderr, "NaN %08x: half %04x (want %04x), bf16 %04x (want %04x)\n", (unsigned)u, h, h_want,
                        b, b_want);
        }
        return;
    }
    const unsigned h_want = ref_encode(&half_fmt, x), b_want = ref_encode(&bf16_fmt, x);
    if (h != h_want || b != b_want) {
        if (encode_failures++ < 5)
            fprintf(stderr, "%a (%08x): half %04x (want %04x), bf16 %04x (want %04x)\n", (double)x, (unsigned)u, h,
                    h_want, b, b_want);
    }
}

/* The floats a rounding bug would show on, for both formats. */
static size_t
edge_floats(float *out, size_t cap)
{
    size_t n = 0;
#define PUT(v)                   \
    do {                         \
        if (n < cap)             \
            out[n++] = (v);      \
    } while (0)
    /* midpoints between neighbouring codes and the floats beside them */
    const fmt_t *fmts[2] = {&half_fmt, &bf16_fmt};
    for (int k = 0; k < 2; k++)
        for (unsigned c = 0; c + 1 < fmts[k]->inf; c++) {
            const double mid = (fmts[k]->table[c] + fmts[k]->table[c + 1]) / 2;
            const float m = (float)mid;
            if ((double)m != mid)
                continue; /* bf16 subnormal midpoints below float's range */
            PUT(m);
            PUT(-m);
            PUT(nextafterf(m, 0.0f));
            PUT(nextafterf(m, INFINITY));
            PUT(-nextafterf(m, INFINITY));
            PUT((float)fmts[k]->table[c]);
        }
    static const float specials[] = {0.0f, 65504.0f, 65519.0f, 65519.996f, 65520.0f, 65536.0f, 0x1p-14f,
                                     0x1p-24f, 0x1p-25f, 0x1.000002p-25f, 0x1.8p-25f, 0x1p-26f, 0x1p-126f,
                                     0x1p-149f, 0x1.fffffep-127f, 0x1p-133f, 0x1.8p-134f, 0x1p-134f,
                                     3.4028235e38f, 3.3961776e38f, 3.3961778e38f, INFINITY, 1.0f, 1.00390625f};
    for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++) {
        PUT(specials[i]);
        PUT(-specials[i]);
    }
    /* NaNs: quiet and signalling, payloads in the kept and the dropped bits */
    static const uint32_t nans[] = {0x7fc00000u, 0x7f800001u, 0x7f802000u, 0x7fa00000u, 0x7fbfffffu,
                                    0x7fffffffu, 0x7f810000u, 0x7f800100u, 0xffc00000u, 0xff800001u};
    for (size_t i = 0; i < sizeof(nans) / sizeof(nans[0]); i++)
        PUT(fdnn_f32_from_bits(nans[i]));
    /* structured: every high part with the low bits at a tie and around it */
    static const uint32_t low16[] = {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu};
    for (uint32_t hi = 0; hi < 0x10000u; hi++)
        for (size_t j = 0; j < 6; j++)
            PUT(fdnn_f32_from_bits(hi << 16 | low16[j]));
    static const uint32_t low13[] = {0x0000u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu};
    for (uint32_t hi = 0; hi < 0x80000u; hi++)
        for (size_t j = 0; j < 5; j++)
            PUT(fdnn_f32_from_bits(hi << 13 | low13[j]));
#undef PUT
    return n;
}

#define NEDGE ((size_t)6000000)

static void
test_encode(const float *edges, size_t nedge)
{
    encode_failures = 0;
    for (size_t i = 0; i < nedge; i++)
        check_encode(edges[i]);
    /* random bit patterns: every class of float */
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 13);
    for (int i = 0; i < 1000000; i++)
        check_encode(fdnn_f32_from_bits((uint32_t)fdnn_rng_u64(&rng)));
    CHECK_MSG(encode_failures == 0, "%d floats encode wrongly", encode_failures);
    /* a few values by hand (the reference could share a mistake) */
    CHECK(fdnn_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);
    CHECK(fdnn_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);
    CHECK(fdnn_f32_to_f16(0x1p-25f) == 0x0000);
    CHECK(fdnn_f32_to_f16(0x1.000002p-25f) == 0x0001);
    CHECK(fdnn_f32_to_f16(0x1.8p-24f) == 0x0002); /* tie 1.5 ulp: to even 2 */
    CHECK(fdnn_f32_to_f16(65519.0f) == 0x7bff);
    CHECK(fdnn_f32_to_f16(-65520.0f) == 0xfc00);
    CHECK(fdnn_f32_to_f16(0x1.ffcp-15f) == 0x0400); /* subnormal rounds up to the smallest normal */
    CHECK(fdnn_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);
    CHECK(fdnn_f32_to_bf16(1.0f + 0x1.8p-8f) == 0x3f81);
    CHECK(fdnn_f32_to_bf16(1.0f + 0x1.8p-7f) == 0x3f82); /* tie to even, up */
    CHECK(fdnn_f32_to_bf16(0x1p-149f) == 0x0000);
    CHECK(fdnn_f32_to_bf16(0x1p-133f) == 0x0001); /* bf16 subnormals kept */
    CHECK(fdnn_f32_to_bf16(3.4028235e38f) == 0x7f80);
    CHECK(fdnn_f32_to_bf16(-0.0f) == 0x8000);
}

/* ---- row kernels ---------------------------------------------------------------- */

#define MAXN 100
#define POISON 0xA5

/* A row of n elements of esz bytes ending right at a guard page, preceded by
 * `pre` poisoned bytes (odd offsets from the page make unaligned rows). */
typedef struct row {
    unsigned char *buf;
    size_t bytes, pre;
    unsigned char *data;
} row_t;

static void
row_alloc(row_t *r, size_t n, size_t esz, size_t pre)
{
    r->pre = pre;
    r->bytes = (n * esz + pre + 7) & ~(size_t)7;
    r->buf = fdnn_guarded_alloc(r->bytes);
    memset(r->buf, POISON, r->bytes);
    r->data = r->buf + r->bytes - n * esz; /* the row's last byte is the buffer's */
}

static bool
row_untouched_outside(const row_t *r)
{
    for (unsigned char *p = r->buf; p < r->data; p++)
        if (*p != POISON)
            return false;
    return true;
}

static void
test_path(fdnn_cvt_path_t path, const float *edges, size_t nedge)
{
    const char *pn = fdnn_convert_row_path_name(path);
    const cudnnDataType_t pairs[4][2] = {{CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},
                                          {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16},
                                          {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
                                          {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}};
    for (int pi = 0; pi < 4; pi++) {
        const cudnnDataType_t st = pairs[pi][0], dt = pairs[pi][1];
        CHECK(fdnn_convert_row_supported(st, dt));
        const fdnn_convert_row_fn fn = fdnn_convert_row_kernel(path, st, dt);
        const size_t ses = st == CUDNN_DATA_FLOAT ? 4 : 2, des = dt == CUDNN_DATA_FLOAT ? 4 : 2;
        /* the inputs, as source bit patterns: edge floats, or every 16-bit code */
        const size_t total = st == CUDNN_DATA_FLOAT ? nedge : 0x10000u;
        int bad = 0;
        /* long rows over the whole input set */
        const size_t chunk = 4099; /* odd: the tails of every kernel run */
        row_t s, d;
        row_alloc(&s, chunk, ses, 0);
        row_alloc(&d, chunk, des, 0);
        for (size_t at = 0; at < total; at += chunk) {
            const size_t n = total - at < chunk ? total - at : chunk;
            unsigned char *sp = s.buf + s.bytes - n * ses, *dp = d.buf + d.bytes - n * des;
            for (size_t i = 0; i < n; i++) {
                if (st == CUDNN_DATA_FLOAT)
                    memcpy(sp + i * 4, &edges[at + i], 4);
                else {
                    const uint16_t c = (uint16_t)(at + i);
                    memcpy(sp + i * 2, &c, 2);
                }
            }
            memset(d.buf, POISON, d.bytes);
            fn(sp, dp, n);
            for (size_t i = 0; i < n; i++) {
                if (st == CUDNN_DATA_FLOAT) {
                    float x;
                    uint16_t got;
                    memcpy(&x, sp + i * 4, 4);
                    memcpy(&got, dp + i * 2, 2);
                    const uint16_t want = dt == CUDNN_DATA_HALF ? fdnn_f32_to_f16(x) : fdnn_f32_to_bf16(x);
                    if (got != want && bad++ < 5)
                        fprintf(stderr, "%s %d: %08x -> %04x, want %04x\n", pn, pi, (unsigned)fdnn_f32_bits(x),
                                got, want);
                } else {
                    uint16_t c;
                    float got;
                    memcpy(&c, sp + i * 2, 2);
                    memcpy(&got, dp + i * 4, 4);
                    const float want = st == CUDNN_DATA_HALF ? fdnn_f16_to_f32(c) : fdnn_bf16_to_f32(c);
                    if (fdnn_f32_bits(got) != fdnn_f32_bits(want) && bad++ < 5)
                        fprintf(stderr, "%s %d: %04x -> %08x, want %08x\n", pn, pi, c,
                                (unsigned)fdnn_f32_bits(got), (unsigned)fdnn_f32_bits(want));
                }
            }
            bad += !row_untouched_outside(&d);
        }
        fdnn_guarded_free(s.buf);
        fdnn_guarded_free(d.buf);
        /* every short length at odd offsets: nothing outside the row changes */
        for (size_t n = 0; n <= MAXN; n++) {
            for (size_t pre = 0; pre < 4; pre += 2) {
                row_alloc(&s, n, ses, pre);
                row_alloc(&d, n, des, pre + 2);
                for (size_t i = 0; i < n; i++) {
                    if (st == CUDNN_DATA_FLOAT)
                        memcpy(s.data + i * 4, &edges[(i * 7919 + n) % nedge], 4);
                    else {
                        const uint16_t c = (uint16_t)(i * 40503u + n);
                        memcpy(s.data + i * 2, &c, 2);
                    }
                }
                unsigned char ref[MAXN * 4];
                fdnn_convert_row_kernel(FDNN_CVT_SCALAR, st, dt)(s.data, ref, n);
                fn(s.data, d.data, n);
                if (memcmp(ref, d.data, n * des) != 0 || !row_untouched_outside(&d)) {
                    if (bad++ < 5)
                        fprintf(stderr, "%s %d: row of %zu at offset %zu differs or spills\n", pn, pi, n, pre);
                }
                fdnn_guarded_free(s.buf);
                fdnn_guarded_free(d.buf);
            }
        }
        CHECK_MSG(bad == 0, "path %s, pair %d: %d mismatches", pn, pi, bad);
    }
}

static void
test_dispatch(void)
{
    CHECK(!fdnn_convert_row_supported(CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT));
    CHECK(!fdnn_convert_row_supported(CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16));
    CHECK(!fdnn_convert_row_supported(CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF));
    CHECK(fdnn_convert_row_path(FDNN_ISA_SCALAR) == FDNN_CVT_SCALAR);
    /* the best path of each level this machine has is available */
    for (int i = 0; i < fdnn_test_isa_count(); i++)
        CHECK(fdnn_convert_row_path_available(fdnn_convert_row_path((fdnn_isa_t)i)));
    /* the one-call form, at the machine's level */
    const float x[3] = {1.0f + 0x1p-11f, -2.5f, 65520.0f};
    uint16_t h[3];
    fdnn_convert_row(fdnn_cpu_max_isa(), CUDNN_DATA_FLOAT, x, CUDNN_DATA_HALF, h, 3);
    CHECK(h[0] == 0x3c00 && h[1] == 0xc100 && h[2] == 0x7c00);
}

int
main(void)
{
    fmt_init(&half_fmt, 0x7c00u, f16_value);
    fmt_init(&bf16_fmt, 0x7f80u, bf16_value);
    test_decode_all();
    float *edges = malloc(NEDGE * sizeof(float));
    CHECK(edges != NULL);
    if (edges == NULL)
        return fdnn_test_finish("test_convert_row");
    const size_t nedge = edge_floats(edges, NEDGE);
    CHECK(nedge < NEDGE);
    test_encode(edges, nedge);
    test_dispatch();
    int ran = 0;
    for (int p = 0; p < FDNN_CVT_PATH_COUNT; p++) {
        if (!fdnn_convert_row_path_available((fdnn_cvt_path_t)p)) {
            printf("path %s: not on this machine, skipped\n", fdnn_convert_row_path_name((fdnn_cvt_path_t)p));
            continue;
        }
        test_path((fdnn_cvt_path_t)p, edges, nedge);
        ran++;
    }
    printf("%d conversion paths checked, %zu edge floats\n", ran, nedge);
    free(edges);
    return fdnn_test_finish("test_convert_row");
}
