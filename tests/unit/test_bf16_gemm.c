/* SPDX-License-Identifier: Apache-2.0
 * The BF16 dot-product GEMM (fdnn_gemm_bf16dot, src/cpu/gemm/bf16_gemm.c):
 *
 * - against a float64 reference computed from the bfloat16-rounded operands,
 *   tolerance (k + 8) * 2^-24 * (|alpha| sum_p |a b| + |beta c| + |biases|):
 *   k FP32 roundings of the running sum plus a few in the epilogue;
 * - every kernel this CPU can run (portable, AVX2, AVX-512, AVX-512 BF16)
 *   bitwise against each other, 1 vs 2 (and 3) threads bitwise;
 * - all transposes, FLOAT/HALF/BFLOAT16 operands in every combination,
 *   M, N, K = 1, odd K, sizes off the tiles, two and three k blocks,
 *   leading dimensions wider than the rows (the gaps of C untouched),
 *   alpha/beta/bias/ReLU, beta == 0 over NaN C, alpha == 0 and k == 0
 *   over NaN A and B, the user's scratch and self-allocated scratch;
 * - the packing pass alone: every value, ties, NaN, Inf, subnormals and
 *   HALF inputs, against fdnn_f32_to_bf16 bit for bit;
 * - vdpbf16ps's flushes: operands near 2^-63 whose products and sums fall
 *   below FLT_MIN, every kernel bitwise against the first.
 * Every buffer ends at a guard page. */
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "cpu/kernels/bf16_gemm.h"
#include "cpu/simd/cvt.h"
#include "testutil.h"

static fdnn_pool_t pool2, pool3;
static fdnn_rng_t rng;

typedef struct shape {
    size_t m, n, k;
} shape_t;

static size_t
span(size_t rows, size_t cols, size_t ld)
{
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

static void *
galloc(size_t bytes)
{
    return fdnn_guarded_alloc(bytes > 0 ? bytes : 8);
}

static size_t
esize(fdnn_gemm_dtype_t t)
{
    return t == FDNN_GEMM_F32 ? 4 : 2;
}

/* Element i of a matrix of type t, as its exact float value. */
static float
get(fdnn_gemm_dtype_t t, const void *p, size_t i)
{
    if (t == FDNN_GEMM_F32)
        return ((const float *)p)[i];
    uint16_t h = ((const uint16_t *)p)[i];
    return t == FDNN_GEMM_F16 ? fdnn_f16_to_f32(h) : fdnn_bf16_to_f32(h);
}

static void
set(fdnn_gemm_dtype_t t, void *p, size_t i, float v)
{
    if (t == FDNN_GEMM_F32)
        ((float *)p)[i] = v;
    else
        ((uint16_t *)p)[i] = t == FDNN_GEMM_F16 ? fdnn_f32_to_f16(v) : fdnn_f32_to_bf16(v);
}

/* The value the GEMM multiplies: rounded to bfloat16. */
static double
as_bf16(fdnn_gemm_dtype_t t, const void *p, size_t i)
{
    return (double)fdnn_bf16_to_f32(fdnn_f32_to_bf16(get(t, p, i)));
}

/* n random elements of type t in [-1, 1] (scale `s`), or all NaN. */
static void *
random_mat(fdnn_gemm_dtype_t t, size_t n, double s, bool nan)
{
    void *p = galloc(n * esize(t));
    for (size_t i = 0; i < n; i++)
        set(t, p, i, nan ? NAN : (float)(s * fdnn_rng_uniform(&rng, -1, 1)));
    return p;
}

static float *
random_f32(size_t n)
{
    float *p = galloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        p[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    return p;
}

typedef struct variant {
    bool trans_a, trans_b;
    fdnn_gemm_dtype_t ta, tb;
    size_t pad_a, pad_b, pad_c;
    float alpha, beta;
    bool bias_row, bias_col, relu;
    bool user_scratch;
    bool three_threads;
    double scale; /* magnitude of A and B (1; tiny for the flush tests) */
    bool no_reference; /* flush tests: kernels against each other only */
} variant_t;

static int kernels[8], n_kernels;

/* One case: every kernel with 1 thread against the reference and against the
 * first kernel bitwise, 2 (3) threads against 1 bitwise. */
static void
run_case(shape_t s, const variant_t *v)
{
    size_t m = s.m, n = s.n, k = s.k;
    size_t a_rows = v->trans_a ? k : m, a_cols = v->trans_a ? m : k;
    size_t b_rows = v->trans_b ? n : k, b_cols = v->trans_b ? k : n;
    size_t lda = a_cols + v->pad_a, ldb = b_cols + v->pad_b, ldc = n + v->pad_c;
    size_t na = span(a_rows, a_cols, lda), nb = span(b_rows, b_cols, ldb), nc = span(m, n, ldc);
    bool no_product = v->alpha == 0 || k == 0;
    double scale = v->scale > 0 ? v->scale : 1;
    void *a = random_mat(v->ta, na, scale, no_product), *b = random_mat(v->tb, nb, scale, no_product);
    float *c0 = random_f32(nc);
    if (v->beta == 0)
        fdnn_poison_f32(c0, nc);
    float *first = galloc(nc * sizeof(float)), *c1 = galloc(nc * sizeof(float)), *c2 = galloc(nc * sizeof(float));
    float *brow = v->bias_row ? random_f32(m) : NULL, *bcol = v->bias_col ? random_f32(n) : NULL;
    fdnn_gemm_bf16dot_args_t g = {
        .trans_a = v->trans_a, .trans_b = v->trans_b, .m = m, .n = n, .k = k, .alpha = v->alpha,
        .a_type = v->ta, .a = a, .lda = lda, .b_type = v->tb, .b = b, .ldb = ldb, .beta = v->beta,
        .c = c1, .ldc = ldc, .bias_row = brow, .bias_col = bcol,
        .act = v->relu ? FDNN_GEMM_ACT_RELU : FDNN_GEMM_ACT_NONE,
    };
    /* the reference, from the bf16-rounded operands */
    double *ref = malloc((m * n + 1) * sizeof(double)), *mag = malloc((m * n + 1) * sizeof(double));
    for (size_t i = 0; i < m && !v->no_reference; i++) {
        for (size_t j = 0; j < n; j++) {
            double sum = 0, abs_sum = 0;
            for (size_t p = 0; p < k && !no_product; p++) {
                double x = as_bf16(v->ta, a, v->trans_a ? p * lda + i : i * lda + p);
                double y = as_bf16(v->tb, b, v->trans_b ? j * ldb + p : p * ldb + j);
                sum += x * y;
                abs_sum += fabs(x * y);
            }
            double r = (double)v->alpha * sum, mg = fabs((double)v->alpha) * abs_sum;
            if (v->beta != 0) {
                r += (double)v->beta * c0[i * ldc + j];
                mg += fabs((double)v->beta * c0[i * ldc + j]);
            }
            if (brow != NULL) {
                r += brow[i];
                mg += fabs(brow[i]);
            }
            if (bcol != NULL) {
                r += bcol[j];
                mg += fabs(bcol[j]);
            }
            if (v->relu && r < 0)
                r = 0;
            ref[i * n + j] = r;
            mag[i * n + j] = mg;
        }
    }
    double tol_scale = ((double)k + 8.0) * 0x1p-24;
    for (int kk = 0; kk < n_kernels; kk++) {
        fdnn_bf16dot_kernel_t kern = (fdnn_bf16dot_kernel_t)kernels[kk];
        const char *kname = fdnn_gemm_bf16dot_kernel_name(kern);
        size_t need = fdnn_gemm_bf16dot_scratch_size_on(&g, kern);
        void *scratch = v->user_scratch ? galloc(need) : NULL;
        memcpy(c1, c0, nc * sizeof(float));
        g.c = c1;
        CHECK(fdnn_gemm_bf16dot_on(&g, NULL, kern, scratch, v->user_scratch ? need : 0));
        int bad = 0;
        for (size_t i = 0; i < m && bad < 3; i++) {
            for (size_t j = 0; j < ldc && bad < 3; j++) {
                size_t at = i * ldc + j;
                if (at >= nc)
                    break;
                if (j >= n) {
                    if (memcmp(&c1[at], &c0[at], sizeof(float)) != 0) {
                        fdnn_test_fail(__FILE__, __LINE__, "%s: gap element (%zu,%zu) written", kname, i, j);
                        bad++;
                    }
                    continue;
                }
                if (v->no_reference)
                    continue;
                double r = ref[i * n + j], tol = tol_scale * mag[i * n + j] + 1e-30;
                if (!(fabs((double)c1[at] - r) <= tol)) {
                    fdnn_test_fail(__FILE__, __LINE__,
                                   "%s m=%zu n=%zu k=%zu ta=%d tb=%d types=%d,%d alpha=%g beta=%g br=%d bc=%d "
                                   "relu=%d: C(%zu,%zu) = %.9g, reference %.9g (tol %.3g)",
                                   kname, m, n, k, v->trans_a, v->trans_b, v->ta, v->tb, v->alpha, v->beta,
                                   v->bias_row, v->bias_col, v->relu, i, j, c1[at], r, tol);
                    bad++;
                }
            }
        }
        if (bad == 0)
            fdnn_test_passed++;
        if (kk == 0)
            memcpy(first, c1, nc * sizeof(float));
        else
            CHECK_MSG(memcmp(first, c1, nc * sizeof(float)) == 0, "m=%zu n=%zu k=%zu ta=%d tb=%d: %s differs from %s",
                      m, n, k, v->trans_a, v->trans_b, kname, fdnn_gemm_bf16dot_kernel_name(kernels[0]));
        memcpy(c2, c0, nc * sizeof(float));
        g.c = c2;
        CHECK(fdnn_gemm_bf16dot_on(&g, pool2, kern, scratch, v->user_scratch ? need : 0));
        CHECK_MSG(memcmp(c1, c2, nc * sizeof(float)) == 0, "%s m=%zu n=%zu k=%zu: 1 and 2 threads differ", kname, m,
                  n, k);
        /* B packed beforehand (2 threads), the product run on one: the
         * same bits. */
        size_t pbytes = fdnn_gemm_bf16dot_packed_b_size_on(&g, kern);
        if (pbytes > 0) {
            uint32_t *pb = galloc(pbytes);
            memset(pb, 0xff, pbytes);
            fdnn_gemm_bf16dot_pack_b_on(&g, pool2, kern, pb);
            fdnn_gemm_bf16dot_args_t gp = g;
            gp.b_packed = pb, gp.b = NULL;
            memcpy(c2, c0, nc * sizeof(float));
            gp.c = c2;
            CHECK(fdnn_gemm_bf16dot_on(&gp, NULL, kern, scratch, v->user_scratch ? need : 0));
            CHECK_MSG(memcmp(c1, c2, nc * sizeof(float)) == 0, "%s m=%zu n=%zu k=%zu: prepacked B differs", kname, m,
                      n, k);
            fdnn_guarded_free(pb);
        }
        if (v->three_threads) {
            memcpy(c2, c0, nc * sizeof(float));
            CHECK(fdnn_gemm_bf16dot_on(&g, pool3, kern, scratch, v->user_scratch ? need : 0));
            CHECK_MSG(memcmp(c1, c2, nc * sizeof(float)) == 0, "%s m=%zu n=%zu k=%zu: 1 and 3 threads differ",
                      kname, m, n, k);
        }
        fdnn_guarded_free(scratch);
    }
    free(ref);
    free(mag);
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
    fdnn_guarded_free(c0);
    fdnn_guarded_free(first);
    fdnn_guarded_free(c1);
    fdnn_guarded_free(c2);
    fdnn_guarded_free(brow);
    fdnn_guarded_free(bcol);
}

static const shape_t shapes[] = {
    {1, 1, 1},     {1, 1, 2},    {1, 1, 7},     {1, 17, 1},   {17, 1, 3},     {2, 3, 4},    {13, 31, 7},
    {14, 32, 16},  {15, 33, 17}, {12, 32, 2},   {4, 16, 5},   {5, 17, 9},     {28, 64, 33}, {29, 65, 100},
    {37, 41, 43},  {3, 7, 601},  {19, 23, 777}, {97, 3, 11},  {1, 100, 50},   {100, 1, 50}, {71, 300, 19},
    {64, 49, 576}, /* ResNet-50 7x7, three k blocks */
    {30, 530, 1025}, /* three k blocks of 344, the last 337 (odd) */
};

static void
test_shapes(void)
{
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        for (int t = 0; t < 4; t++) {
            variant_t v = {.trans_a = t & 1, .trans_b = t >> 1, .alpha = 1, .beta = 0};
            v.ta = (fdnn_gemm_dtype_t)((s + t) % 3);
            v.tb = (fdnn_gemm_dtype_t)((s / 3 + 2 * t) % 3);
            v.pad_a = (s % 3) * 5;
            v.pad_b = ((s + t) % 2) * 3;
            v.pad_c = (s % 2) * 7;
            v.user_scratch = (s + t) % 2 == 0;
            v.three_threads = s + 1 == sizeof(shapes) / sizeof(shapes[0]);
            run_case(shapes[s], &v);
        }
    }
}

/* Every pair of operand types on one shape, all transposes. */
static void
test_types(void)
{
    for (int ta = 0; ta < 3; ta++)
        for (int tb = 0; tb < 3; tb++)
            for (int t = 0; t < 4; t++) {
                variant_t v = {.trans_a = t & 1, .trans_b = t >> 1, .ta = ta, .tb = tb, .alpha = 1, .beta = 0};
                run_case((shape_t){19, 37, 45}, &v);
                /* even k: a BFLOAT16 A (not transposed) is read in place */
                v.pad_a = (size_t)(t >> 1); /* t = 2: odd lda, packed after all */
                run_case((shape_t){33, 49, 46}, &v);
                run_case((shape_t){15, 250, 1032}, &v); /* two k blocks */
            }
}

static void
test_epilogues(void)
{
    static const float ab[][2] = {{1, 0}, {0.5f, 0}, {1, 1}, {-1.5f, 0.25f}, {0, 2}, {0, 0}, {2, -1}};
    static const shape_t es[] = {{1, 1, 1}, {15, 33, 17}, {29, 65, 45}, {3, 5, 0}, {1, 70, 45}, {70, 1, 45}};
    for (size_t s = 0; s < sizeof(es) / sizeof(es[0]); s++)
        for (size_t i = 0; i < sizeof(ab) / sizeof(ab[0]); i++)
            for (int e = 0; e < 8; e++) {
                variant_t v = {.trans_a = (e + i) % 2, .trans_b = (e + s) % 3 == 0, .alpha = ab[i][0],
                               .beta = ab[i][1], .bias_row = e & 1, .bias_col = (e >> 1) & 1,
                               .relu = (e >> 2) & 1, .pad_c = e % 3, .user_scratch = e % 2,
                               .ta = (fdnn_gemm_dtype_t)(e % 3), .tb = (fdnn_gemm_dtype_t)((e + i) % 3)};
                run_case(es[s], &v);
            }
}

/* Products and partial sums below FLT_MIN: operands of magnitude about
 * 2^-63 (products near 2^-126), some subnormal as bfloat16 (exponent 0).
 * Only the kernels against each other: the reference does not flush. */
static void
test_flushes(void)
{
    static const double scales[] = {0x1p-62, 0x1p-63, 0x1p-64, 0x1p-120, 0x1p-127};
    for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); s++)
        for (int t = 0; t < 4; t++) {
            variant_t v = {.trans_a = t & 1, .trans_b = t >> 1, .alpha = 1, .beta = (t == 2) ? 1.0f : 0.0f,
                           .scale = scales[s], .no_reference = true, .ta = FDNN_GEMM_F32, .tb = FDNN_GEMM_F32};
            run_case((shape_t){33, 70, 301}, &v);
        }
}

/* The FTZ boundary: one dot product of k = 4 whose running sum is FLT_MIN
 * after the first pair and then takes one product d: the hardware flushes
 * the sum when, rounded to 24 bits with an unbounded exponent, it is below
 * FLT_MIN (FLT_MIN - 2^-151 is a tie that rounds up to FLT_MIN and is kept;
 * FLT_MIN - 1.5 * 2^-151 rounds to FLT_MIN - 2^-150 and is flushed). */
static void
test_ftz_boundary(void)
{
    static const struct {
        float b3;   /* a3 = -2^-75 */
        float want; /* C */
    } cases[] = {
        {0x1p-76f, 0x1p-126f},     /* FLT_MIN - 2^-151: tie, rounds to FLT_MIN */
        {0x1.8p-76f, 0.0f},         /* FLT_MIN - 1.5 * 2^-151: flushed */
        {0x1p-75f, 0.0f},           /* FLT_MIN - 2^-150: representable, tiny, flushed */
        {0x1p-77f, 0x1p-126f},     /* FLT_MIN - 2^-152 */
        {-0x1p-76f, 0x1p-126f},    /* FLT_MIN + 2^-151: a tie, to even (FLT_MIN) */
    };
    for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
        /* order: a1 b1, a0 b0 (sum FLT_MIN), a3 b3, a2 b2 (= 0) */
        float a[4] = {-0x1p-63f, 0x1p-62f, 0.0f, -0x1p-75f}, b[4] = {0x1p-63f, 0x1p-63f, 1.0f, cases[t].b3};
        for (int kk = 0; kk < n_kernels; kk++) {
            float c = NAN;
            fdnn_gemm_bf16dot_args_t g = {.m = 1, .n = 1, .k = 4, .alpha = 1, .a = a, .lda = 4, .b = b, .ldb = 1,
                                          .c = &c, .ldc = 1};
            CHECK(fdnn_gemm_bf16dot_on(&g, NULL, (fdnn_bf16dot_kernel_t)kernels[kk], NULL, 0));
            CHECK_MSG(memcmp(&c, &cases[t].want, sizeof(float)) == 0, "%s case %zu: %a, want %a",
                      fdnn_gemm_bf16dot_kernel_name(kernels[kk]), t, c, cases[t].want);
        }
    }
}

/* The caller's rounding mode does not change the dot products (vdpbf16ps
 * always rounds to nearest even): under FE_TOWARDZERO every kernel gives
 * the same bits as every other (the epilogue, alpha = 1 and beta = 0,
 * does no rounding). */
static void
test_rounding_mode(void)
{
    enum { M = 9, N = 40, K = 301 };
    float *a = random_mat(FDNN_GEMM_F32, M * K, 1, false), *b = random_mat(FDNN_GEMM_F32, K * N, 1, false);
    float first[M * N], c[M * N], nearest[M * N];
    for (int kk = 0; kk < n_kernels; kk++) {
        fdnn_gemm_bf16dot_args_t g = {.m = M, .n = N, .k = K, .alpha = 1, .a = a, .lda = K, .b = b, .ldb = N,
                                      .c = c, .ldc = N};
        if (kk == 0)
            CHECK(fdnn_gemm_bf16dot_on(&g, NULL, (fdnn_bf16dot_kernel_t)kernels[kk], NULL, 0));
        if (kk == 0)
            memcpy(nearest, c, sizeof(c));
        fesetround(FE_TOWARDZERO);
        bool ok = fdnn_gemm_bf16dot_on(&g, NULL, (fdnn_bf16dot_kernel_t)kernels[kk], NULL, 0);
        fesetround(FE_TONEAREST);
        CHECK(ok);
        if (kk == 0) {
            memcpy(first, c, sizeof(c));
            CHECK_MSG(memcmp(first, nearest, sizeof(c)) == 0, "%s: the rounding mode changed the result",
                      fdnn_gemm_bf16dot_kernel_name(kernels[kk]));
        } else {
            CHECK_MSG(memcmp(first, c, sizeof(c)) == 0, "%s differs from %s under FE_TOWARDZERO",
                      fdnn_gemm_bf16dot_kernel_name(kernels[kk]), fdnn_gemm_bf16dot_kernel_name(kernels[0]));
        }
    }
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
}

/* The packing pass against fdnn_f32_to_bf16, bit for bit, on special and
 * random float bits and on every HALF value, both layouts, both directions. */
static void
test_pack(void)
{
    enum { K = 37, W = 37, WIDTH = 16 }; /* three strips, the last one 5 wide */
    float src[K * W];
    uint16_t h16[K * W];
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                       0x7f800001u, 0xffbfffffu, 0x00000001u, 0x807fffffu, 0x3f808000u,
                                       0x3f818000u, 0x3f807fffu, 0x3f80ffffu, 0x7f7fffffu, 0xff7f8000u,
                                       0x00008000u, 0x00018000u};
    fdnn_bf16_pack_fn packs[3] = {fdnn_bf16_pack__scalar, NULL, NULL};
#if defined(__x86_64__) || defined(__i386__)
    if (fdnn_cpu_detected_isa() >= FDNN_ISA_AVX2)
        packs[1] = fdnn_bf16_pack__avx2;
    if (fdnn_cpu_detected_isa() >= FDNN_ISA_AVX512)
        packs[2] = fdnn_bf16_pack__avx512;
#endif
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < K * W; i++) {
            uint32_t u = (uint32_t)fdnn_rng_u64(&rng);
            if (i % 5 == 0)
                u = special[(i / 5) % (sizeof(special) / sizeof(special[0]))];
            src[i] = fdnn_f32_from_bits(u);
            h16[i] = (uint16_t)(round * 16384 + i * 7 + (u & 3)); /* sweeps the HALF values */
        }
        for (int type = 0; type < 3; type++) {
            const void *data = type == 0 ? (const void *)src : (const void *)h16;
            for (int kcontig = 0; kcontig < 2; kcontig++) {
                /* X(p, j) for p < K, j < W: k_contig reads src[j * K + p], else src[p * W + j] */
                size_t ld = kcontig ? K : W;
                for (int wide = 0; wide < 2; wide++) {
                    for (int pk = 0; pk < 3; pk++) {
                        if (packs[pk] == NULL)
                            continue;
                        size_t strip_words = (K + 1) / 2 * WIDTH * (wide ? 2 : 1);
                        size_t words = (W + WIDTH - 1) / WIDTH * strip_words;
                        uint32_t *dst = galloc(words * sizeof(uint32_t));
                        packs[pk](type, kcontig, K, W, data, ld, WIDTH, wide, dst);
                        int bad = 0;
                        for (size_t p = 0; p < K + 1 && bad < 3; p++) {
                            for (size_t jj = 0; jj < (W + WIDTH - 1) / WIDTH * WIDTH && bad < 3; jj++) {
                                size_t j = jj; /* column of X; strip jj / WIDTH, entry jj % WIDTH */
                                uint16_t want = 0;
                                if (p < K && j < W) {
                                    size_t at = kcontig ? j * K + p : p * W + j;
                                    float f = type == 0 ? src[at]
                                              : type == 1 ? fdnn_f16_to_f32(h16[at])
                                                          : fdnn_bf16_to_f32(h16[at]);
                                    want = type == 2 ? h16[at] : fdnn_f32_to_bf16(f);
                                }
                                size_t word = (jj / WIDTH) * ((K + 1) / 2 * WIDTH) + p / 2 * WIDTH + jj % WIDTH;
                                uint16_t got;
                                if (wide)
                                    got = (uint16_t)(dst[2 * word + p % 2] >> 16);
                                else
                                    got = (uint16_t)(dst[word] >> (16 * (p % 2)));
                                bool low_clear = !wide || (dst[2 * word + p % 2] & 0xffffu) == 0;
                                if (got != want || !low_clear) {
                                    fdnn_test_fail(__FILE__, __LINE__,
                                                   "pack %d type %d kcontig %d wide %d X(%zu,%zu): 0x%04x, want 0x%04x",
                                                   pk, type, kcontig, wide, p, j, got, want);
                                    bad++;
                                }
                            }
                        }
                        if (bad == 0)
                            fdnn_test_passed++;
                        fdnn_guarded_free(dst);
                    }
                }
            }
        }
    }
}

/* The dispatch: the ISA cap picks the kernel; a kernel the CPU lacks refuses. */
static void
test_dispatch(void)
{
    CHECK(fdnn_gemm_bf16dot_kernel(FDNN_ISA_SCALAR) == FDNN_BF16DOT_PORTABLE);
    fdnn_isa_t cpu = fdnn_cpu_detected_isa();
    if (cpu >= FDNN_ISA_AVX2)
        CHECK(fdnn_gemm_bf16dot_kernel(FDNN_ISA_AVX2) == FDNN_BF16DOT_AVX2);
    if (cpu >= FDNN_ISA_AVX512)
        CHECK(fdnn_gemm_bf16dot_kernel(FDNN_ISA_AVX512) ==
              (fdnn_cpu_features()->avx512_bf16 ? FDNN_BF16DOT_AVX512_BF16 : FDNN_BF16DOT_AVX512));
    if (cpu == FDNN_ISA_NEON)
        CHECK(fdnn_gemm_bf16dot_kernel(FDNN_ISA_NEON) ==
              (fdnn_cpu_features()->bf16 ? FDNN_BF16DOT_NEON_BF16 : FDNN_BF16DOT_NEON));
    if (!fdnn_cpu_features()->avx512_bf16) {
        float a = 1, b = 1, c = 0;
        fdnn_gemm_bf16dot_args_t g = {.m = 1, .n = 1, .k = 1, .alpha = 1, .a = &a, .lda = 1, .b = &b, .ldb = 1,
                                      .c = &c, .ldc = 1};
        CHECK(!fdnn_gemm_bf16dot_on(&g, NULL, FDNN_BF16DOT_AVX512_BF16, NULL, 0));
    }
    printf("test_bf16_gemm: kernels run:");
    for (int i = 0; i < n_kernels; i++)
        printf(" %s", fdnn_gemm_bf16dot_kernel_name(kernels[i]));
    printf("\n");
}

int
main(void)
{
    fdnn_rng_seed(&rng, 20261203);
    pool2 = fdnn_pool_create(2);
    pool3 = fdnn_pool_create(3);
    /* the hardware dot product first: every other kernel is compared with it */
    for (int kern = FDNN_BF16DOT_NEON_BF16; kern >= FDNN_BF16DOT_PORTABLE; kern--) {
        fdnn_gemm_bf16dot_args_t probe = {.m = 0};
        if (fdnn_gemm_bf16dot_on(&probe, NULL, (fdnn_bf16dot_kernel_t)kern, NULL, 0))
            kernels[n_kernels++] = kern;
    }
    test_dispatch();
    test_pack();
    test_shapes();
    test_types();
    test_epilogues();
    test_flushes();
    test_ftz_boundary();
    test_rounding_mode();
    fdnn_pool_destroy(pool2);
    fdnn_pool_destroy(pool3);
    return fdnn_test_finish("test_bf16_gemm");
}
