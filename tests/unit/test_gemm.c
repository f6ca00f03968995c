/* SPDX-License-Identifier: Apache-2.0
 * The GEMM core (src/cpu/gemm) against the float64 reference (src/ref/gemm_ref.c):
 * shapes from 1x1x1 through primes, tile tails and block edges, all four
 * transposes, leading dimensions wider than the rows, alpha/beta/bias/ReLU
 * combinations, beta == 0 over NaN-poisoned C, alpha == 0 and k == 0 over
 * NaN inputs, the user's scratch and self-allocated scratch; every ISA level
 * the machine has; 1 and 2 threads (3 on the largest shapes) compared
 * bitwise.  Every buffer ends at a guard page and the gaps between rows of C
 * (ldc > n) must come back untouched.  The tile hook: test_sgemm_tile_hook. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "ref/gemm_ref.h"
#include "testutil.h"

static fdnn_pool_t pool2, pool3;
static fdnn_rng_t rng;

typedef struct shape {
    size_t m, n, k;
} shape_t;

/* Elements a row-major matrix of `rows` rows of `cols` used columns with
 * leading dimension ld spans: exactly, so the last element abuts the guard. */
static size_t
span(size_t rows, size_t cols, size_t ld)
{
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

/* A guarded buffer of at least one element (fdnn_guarded_free cannot find
 * the mapping of a zero-byte buffer). */
static void *
galloc(size_t bytes)
{
    return fdnn_guarded_alloc(bytes > 0 ? bytes : 8);
}

static float *
random_f32(size_t n, double lo, double hi)
{
    float *p = galloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        p[i] = (float)fdnn_rng_uniform(&rng, lo, hi);
    return p;
}

typedef struct variant {
    bool trans_a, trans_b;
    size_t pad_a, pad_b, pad_c; /* leading dimension minus row width */
    float alpha, beta;
    bool bias_row, bias_col, relu;
    bool user_scratch;
    bool three_threads; /* also compare 3 threads with 1, bitwise */
} variant_t;

/* One sgemm case on one ISA: 1 thread vs reference, 2 threads vs 1 thread bitwise. */
static void
run_sgemm(shape_t s, const variant_t *v, fdnn_isa_t isa)
{
    size_t m = s.m, n = s.n, k = s.k;
    size_t a_rows = v->trans_a ? k : m, a_cols = v->trans_a ? m : k;
    size_t b_rows = v->trans_b ? n : k, b_cols = v->trans_b ? k : n;
    size_t lda = a_cols + v->pad_a, ldb = b_cols + v->pad_b, ldc = n + v->pad_c;
    size_t na = span(a_rows, a_cols, lda), nb = span(b_rows, b_cols, ldb), nc = span(m, n, ldc);
    bool no_product = v->alpha == 0 || k == 0;
    /* When A and B must not be read, fill them with NaN so a read shows. */
    float *a = random_f32(na, -1, 1), *b = random_f32(nb, -1, 1);
    if (no_product) {
        fdnn_poison_f32(a, na);
        fdnn_poison_f32(b, nb);
    }
    float *c0 = random_f32(nc, -1, 1); /* C before the call */
    if (v->beta == 0)
        fdnn_poison_f32(c0, nc); /* beta == 0: C must not be read */
    float *c1 = galloc(nc * sizeof(float));
    float *c2 = galloc(nc * sizeof(float));
    float *brow = v->bias_row ? random_f32(m, -1, 1) : NULL;
    float *bcol = v->bias_col ? random_f32(n, -1, 1) : NULL;

    fdnn_sgemm_args_t g = {
        .trans_a = v->trans_a, .trans_b = v->trans_b, .m = m, .n = n, .k = k,
        .alpha = v->alpha, .a = a, .lda = lda, .b = b, .ldb = ldb, .beta = v->beta,
        .c = c0, .ldc = ldc, .bias_row = brow, .bias_col = bcol,
        .act = v->relu ? FDNN_GEMM_ACT_RELU : FDNN_GEMM_ACT_NONE,
    };
    double *ref = malloc((m * n + 1) * sizeof(double)), *mag = malloc((m * n + 1) * sizeof(double));
    fdnn_ref_sgemm(&g, ref, mag);

    size_t need1 = fdnn_sgemm_scratch_size(&g, 1, isa), need2 = fdnn_sgemm_scratch_size(&g, 2, isa);
    size_t need3 = fdnn_sgemm_scratch_size(&g, 3, isa);
    size_t need = need2 > need1 ? need2 : need1;
    need = need3 > need ? need3 : need;
    void *scratch = v->user_scratch ? galloc(need) : NULL;

    memcpy(c1, c0, nc * sizeof(float));
    g.c = c1;
    CHECK(fdnn_sgemm(&g, NULL, isa, scratch, v->user_scratch ? need1 : 0));
    memcpy(c2, c0, nc * sizeof(float));
    g.c = c2;
    CHECK(fdnn_sgemm(&g, pool2, isa, scratch, v->user_scratch ? need2 : 0));

    int bad = 0;
    double tol_scale = (2.0 * (double)k + 8.0) * 0x1p-24;
    for (size_t i = 0; i < m && bad < 3; i++) {
        for (size_t j = 0; j < ldc && bad < 3; j++) {
            size_t at = i * ldc + j;
            if (at >= nc)
                break;
            if (j >= n) { /* a gap between rows: untouched */
                if (memcmp(&c1[at], &c0[at], sizeof(float)) != 0 || memcmp(&c2[at], &c0[at], sizeof(float)) != 0) {
                    fdnn_test_fail(__FILE__, __LINE__, "gap element (%zu,%zu) written", i, j);
                    bad++;
                }
                continue;
            }
            double r = ref[i * n + j], tol = tol_scale * mag[i * n + j] + 1e-30;
            if (!(fabs((double)c1[at] - r) <= tol)) {
                fdnn_test_fail(__FILE__, __LINE__,
                               "%s m=%zu n=%zu k=%zu ta=%d tb=%d alpha=%g beta=%g br=%d bc=%d relu=%d: "
                               "C(%zu,%zu) = %.9g, reference %.9g (tol %.3g)",
                               fdnn_isa_name(isa), m, n, k, v->trans_a, v->trans_b, v->alpha, v->beta,
                               v->bias_row, v->bias_col, v->relu, i, j, c1[at], r, tol);
                bad++;
            }
        }
    }
    CHECK_MSG(memcmp(c1, c2, nc * sizeof(float)) == 0,
              "%s m=%zu n=%zu k=%zu: 1 and 2 threads differ", fdnn_isa_name(isa), m, n, k);
    if (v->three_threads) {
        /* scratch for 2 of the 3 threads (narrow products: the shared B
         * panel instead of one per thread), then for all 3 */
        for (int full = 0; full < 2; full++) {
            memcpy(c2, c0, nc * sizeof(float));
            CHECK(fdnn_sgemm(&g, pool3, isa, scratch, !v->user_scratch ? 0 : full ? need3 : need2));
            CHECK_MSG(memcmp(c1, c2, nc * sizeof(float)) == 0, "%s m=%zu n=%zu k=%zu: 1 and 3 threads differ",
                      fdnn_isa_name(isa), m, n, k);
        }
    }
    if (bad == 0)
        fdnn_test_passed++;

    free(ref);
    free(mag);
    fdnn_guarded_free(scratch);
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
    fdnn_guarded_free(c0);
    fdnn_guarded_free(c1);
    fdnn_guarded_free(c2);
    fdnn_guarded_free(brow);
    fdnn_guarded_free(bcol);
}

/* (Narrow products with several row tiles, n <= NT < m, run private B
 * panels per thread: {100, 147, 60} here, test_sgemm_private_b below.) */
static const shape_t shapes[] = {
    {1, 1, 1},    {1, 1, 7},    {1, 17, 1},   {17, 1, 3},   {2, 3, 4},     {13, 31, 7},    {14, 32, 16},
    {15, 33, 17}, {6, 16, 9},   {7, 17, 5},   {28, 64, 33}, {29, 65, 100}, {5, 129, 3},    {64, 49, 64},
    {37, 41, 43}, {3, 7, 601},  {19, 23, 777}, {97, 3, 11}, {1, 100, 50},  {100, 1, 50},   {71, 300, 19},
    {64, 300, 40}, {128, 96, 300}, /* 8x48 on AVX-512: less padding than 14x32 */
    /* 6x49 on AVX-512 (A and B not transposed): row and k tails, two k blocks */
    {7, 49, 17},  {20, 196, 37}, {13, 98, 1100}, {100, 147, 60},
    /* B read in place: one row tile and one k block longer than KC */
    {100, 300, 520}, {190, 130, 700},
    /* B in place with rows over 2 KiB apart, which the kernels fetch ahead
     * (64 x 3136 x 256 at a smaller n) */
    {64, 800, 96},
};

static void
test_sgemm_shapes(void)
{
    for (int level = 0; level < fdnn_test_isa_count(); level++) {
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            for (int t = 0; t < 4; t++) {
                variant_t v = {.trans_a = t & 1, .trans_b = t >> 1, .alpha = 1, .beta = 0};
                v.pad_a = (size_t)(s % 3) * 5;
                v.pad_b = (size_t)((s + t) % 2) * 3;
                v.pad_c = (size_t)(s % 2) * 7;
                v.user_scratch = (s + t) % 2 == 0;
                run_sgemm(shapes[s], &v, (fdnn_isa_t)level);
            }
        }
    }
}

static void
test_sgemm_epilogues(void)
{
    static const float ab[][2] = {{1, 0}, {0.5f, 0}, {1, 1}, {-1.5f, 0.25f}, {0, 2}, {0, 0}, {2, -1}};
    static const shape_t es[] = {{1, 1, 1}, {15, 33, 17}, {29, 65, 45}, {3, 5, 0}, {1, 70, 45}, {70, 1, 45}};
    for (int level = 0; level < fdnn_test_isa_count(); level++) {
        for (size_t s = 0; s < sizeof(es) / sizeof(es[0]); s++) {
            for (size_t i = 0; i < sizeof(ab) / sizeof(ab[0]); i++) {
                for (int e = 0; e < 8; e++) {
                    variant_t v = {.trans_a = (e + i) % 2, .trans_b = (e + s) % 3 == 0, .alpha = ab[i][0],
                                   .beta = ab[i][1], .bias_row = e & 1, .bias_col = (e >> 1) & 1,
                                   .relu = (e >> 2) & 1, .pad_c = e % 3, .user_scratch = e % 2};
                    run_sgemm(es[s], &v, (fdnn_isa_t)level);
                }
            }
        }
    }
}

/* Blocks: k over several KC blocks, m over several MB panels, n over several
 * NC panels (cheap shapes: the other two dimensions small). */
static void
test_sgemm_blocks(void)
{
    /* {300, 130, 1600}: the wide tiles' k blocks of at most 768 (three of
     * 536), with A blocks sized from them (several row tiles) */
    static const shape_t bs[] = {{9, 40, 1500}, {2900, 3, 5}, {3, 4200, 4}, {200, 600, 30}, {300, 130, 1600}};
    for (int level = 0; level < fdnn_test_isa_count(); level++) {
        for (size_t s = 0; s < sizeof(bs) / sizeof(bs[0]); s++) {
            variant_t v = {.trans_a = s % 2, .trans_b = s == 2, .alpha = 0.75f, .beta = 0.5f,
                           .bias_row = true, .bias_col = true, .relu = true, .pad_c = 1, .three_threads = true};
            run_sgemm(bs[s], &v, (fdnn_isa_t)level);
        }
    }
}

/* Narrow products (one column tile) with several row tiles: each thread
 * packs its own B panel (gemm_driver.inc), reused across its tiles, k
 * blocks and A panels by block number.  6x49 with row tails and two k
 * blocks; m past one A panel (16 row tiles); 14x32 / 8x48 with two k
 * blocks; transposed B; user scratch for 1, 2 (3 threads: the shared
 * panel) and 3 threads. */
static void
test_sgemm_private_b(void)
{
    static const shape_t ps[] = {{200, 196, 1100}, {1200, 49, 40}, {180, 60, 1300}, {170, 100, 90}};
    for (int level = 0; level < fdnn_test_isa_count(); level++) {
        for (size_t s = 0; s < sizeof(ps) / sizeof(ps[0]); s++) {
            for (int e = 0; e < 2; e++) {
                variant_t v = {.trans_a = s == 2 && e, .trans_b = s == 3 && e, .alpha = e ? 0.5f : 1,
                               .beta = e ? 0.25f : 0, .bias_row = e, .relu = !e, .pad_a = 3 * (size_t)e,
                               .pad_c = (size_t)s % 2, .user_scratch = e, .three_threads = true};
                run_sgemm(ps[s], &v, (fdnn_isa_t)level);
            }
        }
    }
}

/* C of 2 MiB or more written once (beta 0, one k block): the kernels
 * stream the rows that start on a 64-byte boundary (STREAM_C_BYTES in
 * gemm_driver.inc).  Row pads of 0 (every row aligned when C is) and 3
 * (rows in and out of alignment, the rest stored plainly); the epilogue
 * options and 1, 2, 3 threads. */
static void
test_sgemm_streamed(void)
{
    static const shape_t ss[] = {{130, 4100, 9}, {520, 1030, 40}};
    for (int level = 0; level < fdnn_test_isa_count(); level++) {
        for (size_t s = 0; s < sizeof(ss) / sizeof(ss[0]); s++) {
            for (int e = 0; e < 2; e++) {
                variant_t v = {.trans_a = s == 1 && e, .alpha = e ? 0.5f : 1, .beta = 0, .bias_row = e,
                               .bias_col = !e, .relu = e, .pad_c = e ? 3 : 0, .three_threads = true};
                run_sgemm(ss[s], &v, (fdnn_isa_t)level);
            }
        }
    }
}

/* Random small shapes and options, reproducible from the seed. */
static void
test_sgemm_random(void)
{
    for (int level = 0; level < fdnn_test_isa_count(); level++) {
        for (int r = 0; r < 40; r++) {
            shape_t s = {(size_t)fdnn_rng_int(&rng, 1, 70), (size_t)fdnn_rng_int(&rng, 1, 90),
                         (size_t)fdnn_rng_int(&rng, 0, 90)};
            variant_t v = {.trans_a = fdnn_rng_int(&rng, 0, 1), .trans_b = fdnn_rng_int(&rng, 0, 1),
                           .pad_a = (size_t)fdnn_rng_int(&rng, 0, 4), .pad_b = (size_t)fdnn_rng_int(&rng, 0, 4),
                           .pad_c = (size_t)fdnn_rng_int(&rng, 0, 4),
                           .alpha = (float)fdnn_rng_int(&rng, -2, 2) * 0.5f,
                           .beta = (float)fdnn_rng_int(&rng, -1, 2) * 0.5f, .bias_row = fdnn_rng_int(&rng, 0, 1),
                           .bias_col = fdnn_rng_int(&rng, 0, 1), .relu = fdnn_rng_int(&rng, 0, 1),
                           .user_scratch = fdnn_rng_int(&rng, 0, 1)};
            run_sgemm(s, &v, (fdnn_isa_t)level);
        }
    }
}

/* ReLU keeps NaN and keeps the sign of zero on every ISA. */
static void
test_sgemm_relu_special(void)
{
    for (int level = 0; level < fdnn_test_isa_count(); level++) {
        float a[2] = {1, 1}, b[3] = {NAN, -0.0f, -2.0f}, c[6];
        fdnn_poison_f32(c, 6);
        fdnn_sgemm_args_t g = {.m = 2, .n = 3, .k = 1, .alpha = 1, .a = a, .lda = 1, .b = b, .ldb = 3,
                               .c = c, .ldc = 3, .act = FDNN_GEMM_ACT_RELU};
        CHECK(fdnn_sgemm(&g, NULL, (fdnn_isa_t)level, NULL, 0));
        CHECK(isnan(c[0]) && isnan(c[3]));
        CHECK(c[1] == 0 && c[2] == 0 && c[5] == 0);
    }
}

static void
run_dgemm(shape_t s, bool ta, bool tb, double alpha, double beta, fdnn_isa_t isa)
{
    size_t m = s.m, n = s.n, k = s.k;
    size_t lda = (ta ? m : k) + 2, ldb = (tb ? k : n) + 1, ldc = n + 3;
    size_t na = span(ta ? k : m, ta ? m : k, lda), nb = span(tb ? n : k, tb ? k : n, ldb), nc = span(m, n, ldc);
    double *a = galloc(na * sizeof(double)), *b = galloc(nb * sizeof(double));
    double *c0 = galloc(nc * sizeof(double)), *c1 = galloc(nc * sizeof(double));
    double *c2 = galloc(nc * sizeof(double));
    for (size_t i = 0; i < na; i++)
        a[i] = fdnn_rng_uniform(&rng, -1, 1);
    for (size_t i = 0; i < nb; i++)
        b[i] = fdnn_rng_uniform(&rng, -1, 1);
    for (size_t i = 0; i < nc; i++)
        c0[i] = beta == 0 ? NAN : fdnn_rng_uniform(&rng, -1, 1);
    fdnn_dgemm_args_t g = {.trans_a = ta, .trans_b = tb, .m = m, .n = n, .k = k, .alpha = alpha, .a = a,
                           .lda = lda, .b = b, .ldb = ldb, .beta = beta, .c = c0, .ldc = ldc};
    double *ref = malloc((m * n + 1) * sizeof(double)), *mag = malloc((m * n + 1) * sizeof(double));
    fdnn_ref_dgemm(&g, ref, mag);
    memcpy(c1, c0, nc * sizeof(double));
    memcpy(c2, c0, nc * sizeof(double));
    g.c = c1;
    CHECK(fdnn_dgemm_isa(&g, NULL, isa));
    g.c = c2;
    CHECK(fdnn_dgemm_isa(&g, pool2, isa));
    double worst = 0;
    bool gaps_ok = true;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < ldc && i * ldc + j < nc; j++) {
            size_t at = i * ldc + j;
            if (j >= n) {
                gaps_ok &= memcmp(&c1[at], &c0[at], sizeof(double)) == 0;
                continue;
            }
            double err = fabs(c1[at] - ref[i * n + j]) / ((2.0 * (double)k + 8.0) * 0x1p-53 * mag[i * n + j] + 1e-300);
            if (!(err <= worst))
                worst = isnan(err) ? INFINITY : err;
        }
    }
    CHECK_MSG(worst <= 1.0, "dgemm %s m=%zu n=%zu k=%zu ta=%d tb=%d: error %.3g of the bound", fdnn_isa_name(isa),
              m, n, k, ta, tb, worst);
    CHECK(gaps_ok);
    CHECK_MSG(memcmp(c1, c2, nc * sizeof(double)) == 0, "dgemm %s: 1 and 2 threads differ", fdnn_isa_name(isa));
    free(ref);
    free(mag);
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
    fdnn_guarded_free(c0);
    fdnn_guarded_free(c1);
    fdnn_guarded_free(c2);
}

static void
test_dgemm(void)
{
    static const shape_t ds[] = {{1, 1, 1}, {13, 31, 7}, {15, 17, 300}, {29, 65, 33}, {4, 9, 0}, {100, 3, 1100}};
    static const double ab[][2] = {{1, 0}, {-0.5, 1}, {2, 0.25}, {0, 3}};
    for (int level = 0; level < fdnn_test_isa_count(); level++)
        for (size_t s = 0; s < sizeof(ds) / sizeof(ds[0]); s++)
            for (int t = 0; t < 4; t++)
                run_dgemm(ds[s], t & 1, t >> 1, ab[(s + t) % 4][0], ab[(s + t) % 4][1], (fdnn_isa_t)level);
}

/* The tile hook (fdnn_sgemm_args_t.tile_hook): the tiles it is given
 * partition C (each element once), each after its last k block (the hook
 * sees the final product: 2 v + 1 of it is what comes back, bitwise), its
 * pointer is C's (row, col) and it never sees the gaps of ldc; the same
 * bits with 2 threads.  Shapes: thin, one tile, several k blocks and
 * column blocks with odd edges. */
typedef struct hook_ctx {
    const fdnn_sgemm_args_t *g;
    unsigned char *seen; /* m x n */
    int bad;
} hook_ctx_t;

static void
count_hook(void *ctx, float *c, size_t ldc, size_t row, size_t col, size_t rows, size_t cols)
{
    hook_ctx_t *h = ctx;
    if (ldc != h->g->ldc || c != h->g->c + row * ldc + col || row + rows > h->g->m || col + cols > h->g->n)
        h->bad++;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            h->seen[(row + i) * h->g->n + col + j]++;
            c[i * ldc + j] = 2 * c[i * ldc + j] + 1;
        }
}

static void
test_sgemm_tile_hook(void)
{
    /* {150, 600, 1700}: several k blocks of the wide tiles (at most 768 each) */
    static const shape_t hs[] = {{1, 50, 5}, {3, 131, 9}, {37, 300, 700}, {200, 2100, 600}, {150, 600, 1700}};
    for (int level = 0; level < fdnn_test_isa_count(); level++)
        for (size_t s = 0; s < sizeof(hs) / sizeof(hs[0]); s++) {
            size_t m = hs[s].m, n = hs[s].n, k = hs[s].k, ldc = n + 3;
            float *a = random_f32(m * k, -1, 1), *b = random_f32(k * n, -1, 1);
            float *plain = galloc(m * ldc * sizeof(float)), *c = galloc(m * ldc * sizeof(float));
            unsigned char *seen = calloc(m * n, 1);
            fdnn_sgemm_args_t g = {.m = m, .n = n, .k = k, .alpha = 1, .a = a, .lda = k, .b = b, .ldb = n,
                                   .c = plain, .ldc = ldc};
            CHECK(fdnn_sgemm(&g, NULL, (fdnn_isa_t)level, NULL, 0));
            for (int threads = 1; threads <= 2; threads++) {
                memset(seen, 0, m * n);
                fdnn_poison_f32(c, m * ldc);
                hook_ctx_t h = {&g, seen, 0};
                g.c = c;
                g.tile_hook = count_hook;
                g.tile_ctx = &h;
                CHECK(fdnn_sgemm(&g, threads == 1 ? NULL : pool2, (fdnn_isa_t)level, NULL, 0));
                int wrong = 0, cover = 0, gaps = 0;
                for (size_t i = 0; i < m; i++) {
                    for (size_t j = 0; j < n; j++) {
                        float want = 2 * plain[i * ldc + j] + 1;
                        wrong += memcmp(&want, &c[i * ldc + j], sizeof(float)) != 0;
                        cover += seen[i * n + j] != 1;
                    }
                    for (size_t j = n; j < ldc && i + 1 < m; j++)
                        gaps += !isnan(c[i * ldc + j]);
                }
                CHECK_MSG(h.bad == 0 && wrong == 0 && cover == 0 && gaps == 0,
                          "tile hook %zux%zux%zu level %d, %d thread(s): %d bad calls, %d wrong, %d not seen once, "
                          "%d gaps written",
                          m, n, k, level, threads, h.bad, wrong, cover, gaps);
                g.c = plain;
                g.tile_hook = NULL;
            }
            fdnn_guarded_free(a), fdnn_guarded_free(b), fdnn_guarded_free(plain), fdnn_guarded_free(c);
            free(seen);
        }
}

int
main(void)
{
    fdnn_rng_seed(&rng, 20261202);
    pool2 = fdnn_pool_create(2);
    pool3 = fdnn_pool_create(3);
    test_sgemm_shapes();
    test_sgemm_epilogues();
    test_sgemm_blocks();
    test_sgemm_streamed();
    test_sgemm_private_b();
    test_sgemm_random();
    test_sgemm_relu_special();
    test_sgemm_tile_hook();
    test_dgemm();
    fdnn_pool_destroy(pool2);
    fdnn_pool_destroy(pool3);
    return fdnn_test_finish("test_gemm");
}
