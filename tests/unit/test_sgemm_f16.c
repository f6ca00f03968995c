/* SPDX-License-Identifier: Apache-2.0
 * The half-storage float GEMM (fdnn_sgemm_f16, src/cpu/gemm/sgemm_f16.c)
 * and its converting packs (src/cpu/kernels/f16_pack.h):
 *
 * - every converting pack of every level this CPU runs (the sgemm_f16 set
 *   of src/cpu/config) against the contract written out here, bit for bit
 *   (random half bit patterns: subnormals, Inf, NaN included): odd row and
 *   column counts around the vector widths, leading dimensions wider than
 *   the rows, every strip width and padded row count the tiles use, the
 *   49-column layout; outputs poisoned first, every element checked, each
 *   buffer ending at a guard page (a write past it faults), the row copy's
 *   gaps untouched;
 * - the checker itself against a deliberately broken pack (last column
 *   dropped): it must report it;
 * - every bhalf microkernel of every level (B read as halves in place)
 *   against its FP32 twin on a converted copy of B, bit for bit: rows
 *   1 .. MR, k of 1 .. 300, B rows NR apart and wider, the epilogue's
 *   options, C poisoned and its gaps checked, B ending at a guard page;
 *   likewise every ahalf arows kernel (A's rows read as halves) against
 *   the float arows kernel on the converted rows, columns 1 .. NR, the
 *   last row ending at a guard page;
 * - the GEMM on every level: against a float64 reference of the exact
 *   half operands, tolerance (k + 8) * 2^-24 * (|alpha| sum |a b| + |beta c|
 *   + |biases|); all transposes, n = 49/98/196 (the 6x49 tile: A rows
 *   converted for the arows kernel), several k blocks, C gaps untouched,
 *   beta == 0 over NaN C; 1, 2 and 3 threads bitwise; the user's scratch
 *   and self-allocated scratch bitwise; and bitwise fdnn_sgemm on the
 *   converted operands (sgemm_f16.h's contract) where that is not the
 *   thin path: short products whose B both read in place (bhalf), B
 *   packed, A rows converted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "cpu/config/config.h"
#include "cpu/gemm/sgemm_f16.h"
#include "cpu/gemm/sgemm_thin.h"
#include "cpu/kernels/f16_pack.h"
#include "cpu/simd/cvt.h"
#include "testutil.h"

static fdnn_pool_t pool2, pool3;
static fdnn_rng_t rng;

static uint16_t *
random_halves(size_t n, bool any_bits)
{
    uint16_t *h = fdnn_guarded_alloc(n > 0 ? n * sizeof(uint16_t) : 2);
    for (size_t i = 0; i < n; i++)
        h[i] = any_bits ? (uint16_t)fdnn_rng_u64(&rng)
                        : fdnn_f32_to_f16((float)fdnn_rng_uniform(&rng, -1.0, 1.0));
    return h;
}

static bool
same_bits(const float *a, const float *b, size_t n, size_t *where)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0) {
            *where = i;
            return false;
        }
    return true;
}

/* pack_t: dst[c * dst_rows + r] = src[r * ld + c], rows past `rows` 0. */
static bool
check_pack_t(fdnn_f16_pack_t_fn fn, size_t rows, size_t cols, size_t ld, size_t dst_rows, size_t *where)
{
    uint16_t *src = random_halves(rows == 0 ? 0 : (rows - 1) * ld + cols, true);
    size_t n = cols * dst_rows;
    float *got = fdnn_guarded_alloc(n * sizeof(float) + 4), *want = malloc(n * sizeof(float) + 4);
    fdnn_poison_f32(got, n);
    for (size_t c = 0; c < cols; c++)
        for (size_t r = 0; r < dst_rows; r++)
            want[c * dst_rows + r] = r < rows ? fdnn_f16_to_f32(src[r * ld + c]) : 0.0f;
    fn(rows, cols, src, ld, got, dst_rows);
    bool ok = same_bits(got, want, n, where);
    fdnn_guarded_free(src);
    fdnn_guarded_free(got);
    free(want);
    return ok;
}

/* pack_n: strips of `width` columns, rows x width each, columns past cols 0;
 * b49: per strip rows x 48, then column 48 as `rows` floats. */
static bool
check_pack_n(fdnn_f16_pack_n_fn fn, bool b49, size_t rows, size_t cols, size_t ld, size_t width, size_t *where)
{
    uint16_t *src = random_halves(rows == 0 ? 0 : (rows - 1) * ld + cols, true);
    size_t strips = (cols + width - 1) / width, n = strips * rows * width;
    float *got = fdnn_guarded_alloc(n * sizeof(float) + 4), *want = malloc(n * sizeof(float) + 4);
    fdnn_poison_f32(got, n);
    for (size_t t = 0; t < strips; t++)
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < width; j++) {
                size_t c = t * width + j;
                float v = c < cols ? fdnn_f16_to_f32(src[r * ld + c]) : 0.0f;
                size_t at = b49 ? (j < 48 ? t * 49 * rows + r * 48 + j : t * 49 * rows + 48 * rows + r)
                                : t * rows * width + r * width + j;
                want[at] = v;
            }
    fn(rows, cols, src, ld, got, width);
    bool ok = same_bits(got, want, n, where);
    fdnn_guarded_free(src);
    fdnn_guarded_free(got);
    free(want);
    return ok;
}

/* rows: dst[r * dst_ld + c] = src[r * ld + c]; the gaps keep their poison. */
static bool
check_rows(fdnn_f16_rows_fn fn, size_t rows, size_t cols, size_t ld, size_t dst_ld, size_t *where)
{
    uint16_t *src = random_halves(rows == 0 ? 0 : (rows - 1) * ld + cols, true);
    size_t n = rows == 0 ? 0 : (rows - 1) * dst_ld + cols;
    float *got = fdnn_guarded_alloc(n * sizeof(float) + 4), *want = malloc(n * sizeof(float) + 4);
    fdnn_poison_f32(got, n);
    memcpy(want, got, n * sizeof(float));
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            want[r * dst_ld + c] = fdnn_f16_to_f32(src[r * ld + c]);
    fn(rows, cols, src, ld, got, dst_ld);
    bool ok = same_bits(got, want, n, where);
    fdnn_guarded_free(src);
    fdnn_guarded_free(got);
    free(want);
    return ok;
}

/* A pack that drops the last column: the checker must see it. */
static void
broken_pack_n(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst, size_t width)
{
    size_t strips = (cols + width - 1) / width;
    for (size_t t = 0; t < strips; t++)
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < width; j++) {
                size_t c = t * width + j;
                dst[t * rows * width + r * width + j] = c + 1 < cols ? fdnn_f16_to_f32(src[r * src_ld + c]) : 0.0f;
            }
}

static void
test_packs(void)
{
    static const size_t rows_set[] = {1, 2, 7, 8, 9, 13, 14, 15, 16, 17, 31, 33};
    static const size_t cols_set[] = {1, 3, 7, 8, 9, 15, 16, 17, 33, 48, 49, 50, 97, 98, 100, 147};
    static const size_t widths[] = {6, 8, 12, 14, 16, 24, 28, 32, 48, 64};
    for (int lv = 0; lv < fdnn_test_isa_count(); lv++) {
        const fdnn_isa_config_t *cfg = fdnn_isa_config((fdnn_isa_t)lv);
        if ((int)cfg->isa != lv)
            continue;
        const fdnn_f16_packs_t *pk = &cfg->sgemm_f16;
        const char *name = fdnn_test_isa_name(lv);
        for (size_t ri = 0; ri < sizeof(rows_set) / sizeof(rows_set[0]); ri++)
            for (size_t ci = 0; ci < sizeof(cols_set) / sizeof(cols_set[0]); ci++)
                for (size_t extra = 0; extra <= 5; extra += 5) {
                    size_t rows = rows_set[ri], cols = cols_set[ci], ld = cols + extra, where = 0;
                    for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++) {
                        size_t w = widths[wi];
                        if (pk->pack_t != NULL && rows <= w)
                            CHECK_MSG(check_pack_t(pk->pack_t, rows, cols, ld, w, &where),
                                      "%s pack_t rows=%zu cols=%zu ld=%zu dst_rows=%zu: element %zu", name, rows,
                                      cols, ld, w, where);
                        if (pk->pack_n != NULL)
                            CHECK_MSG(check_pack_n(pk->pack_n, false, rows, cols, ld, w, &where),
                                      "%s pack_n rows=%zu cols=%zu ld=%zu width=%zu: element %zu", name, rows, cols,
                                      ld, w, where);
                    }
                    if (pk->pack_b != NULL)
                        CHECK_MSG(check_pack_n(pk->pack_b, true, rows, cols, ld, 49, &where),
                                  "%s pack_b rows=%zu cols=%zu ld=%zu: element %zu", name, rows, cols, ld, where);
                    if (pk->rows != NULL)
                        CHECK_MSG(check_rows(pk->rows, rows, cols, ld, cols + 2 * extra + 1, &where),
                                  "%s rows rows=%zu cols=%zu ld=%zu: element %zu", name, rows, cols, ld, where);
                }
    }
    size_t where = 0;
    CHECK_MSG(!check_pack_n(broken_pack_n, false, 5, 17, 17, 16, &where), "the broken pack went unnoticed");
}

/* ---- the bhalf microkernels ---- */

/* C for one call of a kernel and its half twin: c0 the start (the columns
 * a beta of 0 must not read are NaN), c1 and c2 its copies for the two
 * kernels; the epilogue of kind ep_kind (0: C =, 1: C +=, 2: alpha, beta,
 * both biases and ReLU). */
typedef struct twin_c {
    float *c0, *c1, *c2;
    float brow[64], bcol[64];
    fdnn_f32_gemm_epilogue_t ep;
} twin_c_t;

static void
twin_c_init(twin_c_t *r, size_t mr, size_t nr, size_t ldc, int ep_kind)
{
    size_t bytes = mr * ldc * sizeof(float);
    r->c0 = fdnn_guarded_alloc(bytes);
    r->c1 = fdnn_guarded_alloc(bytes);
    r->c2 = fdnn_guarded_alloc(bytes);
    for (size_t i = 0; i < 64; i++) {
        r->brow[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
        r->bcol[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    }
    r->ep = (fdnn_f32_gemm_epilogue_t){.alpha = 1.0f, .beta = ep_kind == 1 ? 1.0f : 0.0f};
    if (ep_kind == 2) {
        r->ep.alpha = 0.75f;
        r->ep.beta = -0.5f;
        r->ep.bias_row = r->brow;
        r->ep.bias_col = r->bcol;
        r->ep.relu = true;
    }
    for (size_t i = 0; i < mr * ldc; i++)
        r->c0[i] = r->ep.beta == 0 && i % ldc < nr ? NAN : (float)fdnn_rng_uniform(&rng, -1, 1);
    memcpy(r->c1, r->c0, bytes);
    memcpy(r->c2, r->c0, bytes);
}

static void
twin_c_free(twin_c_t *r)
{
    fdnn_guarded_free(r->c0);
    fdnn_guarded_free(r->c1);
    fdnn_guarded_free(r->c2);
}

/* One call of twin t: mr rows, kc steps, B rows ld halves apart (a full
 * strip of NR columns), against the FP32 kernel on B converted. */
static void
check_bhalf(const char *name, const fdnn_f16_bhalf_twin_t *t, size_t mr, size_t kc, size_t ld, int ep_kind)
{
    size_t nr = t->nr, ldc = nr + 3;
    float *a = fdnn_guarded_alloc(kc * t->mr * sizeof(float));
    for (size_t i = 0; i < kc * t->mr; i++)
        a[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    /* B's last row ends at the buffer's end: a load past the strip faults */
    size_t bn = (kc - 1) * ld + nr;
    uint16_t *b = random_halves(bn, false);
    float *bf = fdnn_guarded_alloc(bn * sizeof(float));
    for (size_t i = 0; i < bn; i++)
        bf[i] = fdnn_f16_to_f32(b[i]);
    twin_c_t c;
    twin_c_init(&c, mr, nr, ldc, ep_kind);
    t->ukernel(mr, nr, kc, a, bf, ld, c.c1, ldc, &c.ep);
    t->bhalf(mr, nr, kc, a, b, ld, c.c2, ldc, &c.ep);
    size_t where = 0;
    CHECK_MSG(same_bits(c.c1, c.c2, mr * ldc, &where), "%s bhalf %zux%zu mr=%zu kc=%zu ld=%zu ep=%d: element %zu", name,
              t->mr, nr, mr, kc, ld, ep_kind, where);
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
    fdnn_guarded_free(bf);
    twin_c_free(&c);
}

/* One call of ahalf twin t: mr rows of kc halves, lda apart (the last row
 * ends at a guard page), a packed strip of nr columns, against the float
 * arows kernel on the converted rows. */
static void
check_ahalf(const char *name, const fdnn_f16_ahalf_twin_t *t, size_t mr, size_t nr, size_t kc, size_t lda,
            int ep_kind)
{
    size_t ldc = nr + 3, an = (mr - 1) * lda + kc;
    uint16_t *a = random_halves(an, false);
    float *af = fdnn_guarded_alloc(an * sizeof(float));
    for (size_t i = 0; i < an; i++)
        af[i] = fdnn_f16_to_f32(a[i]);
    float *b = fdnn_guarded_alloc(kc * t->nr * sizeof(float));
    for (size_t i = 0; i < kc * t->nr; i++)
        b[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    twin_c_t c;
    twin_c_init(&c, mr, nr, ldc, ep_kind);
    t->arows(mr, nr, kc, af, lda, b, t->nr, c.c1, ldc, &c.ep);
    t->ahalf(mr, nr, kc, a, lda, b, t->nr, c.c2, ldc, &c.ep);
    size_t where = 0;
    CHECK_MSG(same_bits(c.c1, c.c2, mr * ldc, &where), "%s ahalf %zux%zu mr=%zu nr=%zu kc=%zu lda=%zu ep=%d: element %zu",
              name, t->mr, t->nr, mr, nr, kc, lda, ep_kind, where);
    fdnn_guarded_free(a);
    fdnn_guarded_free(af);
    fdnn_guarded_free(b);
    twin_c_free(&c);
}

static void
test_bhalf(void)
{
    static const size_t kcs[] = {1, 7, 8, 9, 64, 300};
    for (int lv = 0; lv < fdnn_test_isa_count(); lv++) {
        const fdnn_f16_packs_t *pk = &fdnn_isa_config((fdnn_isa_t)lv)->sgemm_f16;
        const char *name = fdnn_test_isa_name(lv);
        for (size_t tw = 0; tw < pk->bhalf_count; tw++) {
            const fdnn_f16_bhalf_twin_t *t = &pk->bhalf[tw];
            size_t mrs[] = {1, t->mr - 1, t->mr};
            size_t lds[] = {t->nr, t->nr + 5, 3 * t->nr + 1};
            for (size_t im = 0; im < 3; im++)
                for (size_t ik = 0; ik < sizeof(kcs) / sizeof(kcs[0]); ik++)
                    for (size_t il = 0; il < 3; il++)
                        for (int e = 0; e < 3; e++)
                            check_bhalf(name, t, mrs[im], kcs[ik], lds[il], e);
        }
        for (size_t tw = 0; tw < pk->ahalf_count; tw++) {
            const fdnn_f16_ahalf_twin_t *t = &pk->ahalf[tw];
            size_t mrs[] = {1, t->mr - 1, t->mr};
            size_t nrs[] = {1, t->nr - 1, t->nr};
            for (size_t im = 0; im < 3; im++)
                for (size_t in = 0; in < 3; in++)
                    for (size_t ik = 0; ik < sizeof(kcs) / sizeof(kcs[0]); ik++)
                        for (int e = 0; e < 3; e++)
                            check_ahalf(name, t, mrs[im], nrs[in], kcs[ik], kcs[ik] + (size_t)(e * 7), e);
        }
    }
}

/* ---- the GEMM ---- */

typedef struct gcase {
    size_t m, n, k;
    bool ta, tb;
    float alpha, beta;
    bool bias, relu, user_scratch;
} gcase_t;

static double
hv(const uint16_t *p, size_t i)
{
    return (double)fdnn_f16_to_f32(p[i]);
}

static void
run_case(int lv, const gcase_t *g)
{
    size_t m = g->m, n = g->n, k = g->k;
    size_t lda = (g->ta ? m : k) + 3, ldb = (g->tb ? k : n) + 1, ldc = n + 2;
    size_t arows = g->ta ? k : m, brows = g->tb ? n : k;
    uint16_t *a = random_halves(arows * lda, false), *b = random_halves(brows * ldb, false);
    float *c0 = fdnn_guarded_alloc(m * ldc * sizeof(float));
    float *c1 = fdnn_guarded_alloc(m * ldc * sizeof(float)), *c2 = fdnn_guarded_alloc(m * ldc * sizeof(float));
    float *brow = malloc((m + 1) * sizeof(float)), *bcol = malloc((n + 1) * sizeof(float));
    for (size_t i = 0; i < m; i++)
        brow[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (size_t j = 0; j < n; j++)
        bcol[j] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (size_t i = 0; i < m * ldc; i++)
        c0[i] = g->beta == 0 ? NAN : (float)fdnn_rng_uniform(&rng, -1, 1);
    fdnn_sgemm_f16_args_t args = {.trans_a = g->ta, .trans_b = g->tb, .m = m, .n = n, .k = k, .alpha = g->alpha,
                                  .a = a, .lda = lda, .b = b, .ldb = ldb, .beta = g->beta, .c = c1, .ldc = ldc,
                                  .bias_row = g->bias ? brow : NULL, .bias_col = g->bias ? bcol : NULL,
                                  .act = g->relu ? FDNN_GEMM_ACT_RELU : FDNN_GEMM_ACT_NONE};
    fdnn_isa_t isa = (fdnn_isa_t)lv;
    size_t need = fdnn_sgemm_f16_scratch_size(&args, isa);
    void *scratch = g->user_scratch && need > 0 ? malloc(need) : NULL;
    memcpy(c1, c0, m * ldc * sizeof(float));
    CHECK(fdnn_sgemm_f16(&args, NULL, isa, scratch, g->user_scratch ? need : 0));
    const char *name = fdnn_test_isa_name(lv);
    size_t bad = 0;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < ldc; j++) {
            float got = c1[i * ldc + j];
            if (j >= n) { /* gap: untouched */
                if (memcmp(&got, &c0[i * ldc + j], sizeof(float)) != 0)
                    bad++;
                continue;
            }
            double s = 0, mag = 0;
            for (size_t p = 0; p < k; p++) {
                double av = hv(a, g->ta ? p * lda + i : i * lda + p), bv = hv(b, g->tb ? j * ldb + p : p * ldb + j);
                s += av * bv;
                mag += fabs(av * bv);
            }
            double want = g->alpha * s, tol_mag = fabs(g->alpha) * mag;
            if (g->beta != 0) {
                want += g->beta * (double)c0[i * ldc + j];
                tol_mag += fabs(g->beta * (double)c0[i * ldc + j]);
            }
            if (g->bias) {
                want += (double)brow[i] + (double)bcol[j];
                tol_mag += fabs((double)brow[i]) + fabs((double)bcol[j]);
            }
            if (g->relu && want < 0)
                want = 0;
            double tol = (double)(k + 8) * 0x1p-24 * tol_mag + 1e-30;
            if (!(fabs((double)got - want) <= tol))
                bad++;
        }
    }
    CHECK_MSG(bad == 0, "%s m=%zu n=%zu k=%zu ta=%d tb=%d: %zu elements wrong", name, m, n, k, g->ta, g->tb, bad);
    /* bitwise fdnn_sgemm on the converted operands */
    fdnn_sgemm_args_t fa = {.trans_a = g->ta, .trans_b = g->tb, .m = m, .n = n, .k = k, .alpha = g->alpha,
                            .lda = lda, .ldb = ldb, .beta = g->beta, .c = c2, .ldc = ldc,
                            .bias_row = args.bias_row, .bias_col = args.bias_col, .act = args.act};
    if (!fdnn_sgemm_is_thin(&fa)) {
        float *af = malloc(arows * lda * sizeof(float) + 4), *bf = malloc(brows * ldb * sizeof(float) + 4);
        for (size_t i = 0; i < arows * lda; i++)
            af[i] = fdnn_f16_to_f32(a[i]);
        for (size_t i = 0; i < brows * ldb; i++)
            bf[i] = fdnn_f16_to_f32(b[i]);
        fa.a = af;
        fa.b = bf;
        memcpy(c2, c0, m * ldc * sizeof(float));
        CHECK(fdnn_sgemm(&fa, NULL, isa, NULL, 0));
        CHECK_MSG(memcmp(c1, c2, m * ldc * sizeof(float)) == 0, "%s m=%zu n=%zu k=%zu ta=%d tb=%d: not fdnn_sgemm's bits",
                  name, m, n, k, g->ta, g->tb);
        free(af);
        free(bf);
    }
    /* threads and scratch: bitwise */
    fdnn_pool_t pools[2] = {pool2, pool3};
    for (int t = 0; t < 2; t++) {
        memcpy(c2, c0, m * ldc * sizeof(float));
        args.c = c2;
        CHECK(fdnn_sgemm_f16(&args, pools[t], isa, NULL, 0));
        CHECK_MSG(memcmp(c1, c2, m * ldc * sizeof(float)) == 0, "%s m=%zu n=%zu k=%zu: %d threads differ", name, m,
                  n, k, t + 2);
    }
    free(scratch);
    free(brow);
    free(bcol);
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
    fdnn_guarded_free(c0);
    fdnn_guarded_free(c1);
    fdnn_guarded_free(c2);
}

static void
test_gemm(void)
{
    static const size_t shapes[][3] = {
        {1, 1, 1},     {3, 5, 7},      {14, 32, 64},  {15, 33, 65},   {64, 49, 256}, {512, 49, 2048},
        {30, 98, 300}, {64, 196, 129}, {8, 200, 77},  {100, 17, 1100}, {256, 3, 64},  {6, 784, 64},
        {257, 130, 600},
        /* short products that fdnn_sgemm reads B of in place: the bhalf
         * kernels on full strips, a packed partial last strip (8x48 and
         * 14x32 tiles, m <= MR, one column tile with A rows converted) */
        {64, 300, 256}, {256, 200, 64}, {5, 100, 40}, {64, 150, 100}, {128, 784, 96},
    };
    for (int lv = 0; lv < fdnn_test_isa_count(); lv++)
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
            for (int tr = 0; tr < 4; tr++) {
                size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                if (m * n * k > 20000000 && tr != 0)
                    continue;
                gcase_t g = {m, n, k, tr & 1, (tr >> 1) & 1, 1.0f, 0.0f, false, false, (s & 1) != 0};
                if (s % 3 == 1) {
                    g.alpha = 0.75f;
                    g.beta = -0.5f;
                    g.bias = true;
                    g.relu = true;
                }
                run_case(lv, &g);
            }
}

int
main(void)
{
    fdnn_rng_seed(&rng, 1301);
    pool2 = fdnn_pool_create(2);
    pool3 = fdnn_pool_create(3);
    test_packs();
    test_bhalf();
    test_gemm();
    fdnn_pool_destroy(pool2);
    fdnn_pool_destroy(pool3);
    return fdnn_test_finish("test_sgemm_f16");
}
