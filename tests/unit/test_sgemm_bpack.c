/* SPDX-License-Identifier: Apache-2.0
 * The float GEMM with op(B) packed once (fdnn_sgemm_bpack_init /
 * fdnn_sgemm_bpacked, src/cpu/gemm/sgemm_bpack.c), on every level this CPU
 * runs: against a float64 reference, tolerance (k + 8) * 2^-24 * (|alpha|
 * sum |a b| + |beta c| + |bias|); B transposed and not, odd m, n, k around
 * the tiles (1, mr +- 1, nr +- 1, a strip at most nr/2 wide), several row
 * blocks (m = 300 at k = 1100), leading dimensions wider than the rows,
 * beta 0 over NaN C, C's gaps untouched (guard pages after every buffer);
 * the packed buffer in the caller's memory and allocated, bitwise; 1, 2
 * and 3 threads (packing and product) bitwise; one packing reused by
 * products of different m.  The checker against a deliberately wrong
 * result (one element off): it must report it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "cpu/gemm/sgemm_bpack.h"
#include "testutil.h"

static fdnn_pool_t pool2, pool3;
static fdnn_rng_t rng;

static float *
random_floats(size_t n)
{
    float *f = fdnn_guarded_alloc(n > 0 ? n * sizeof(float) : 4);
    for (size_t i = 0; i < n; i++)
        f[i] = (float)fdnn_rng_uniform(&rng, -1.0, 1.0);
    return f;
}

/* Elements of C [m][ldc] wrong against the reference (gaps: unchanged
 * from c0). */
static size_t
count_wrong(const float *a, size_t lda, const float *b, size_t ldb, bool tb, const float *c0, const float *c,
            size_t m, size_t n, size_t k, size_t ldc, float alpha, float beta, const float *bias)
{
    size_t bad = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < ldc; j++) {
            float got = c[i * ldc + j];
            if (j >= n) {
                if (memcmp(&got, &c0[i * ldc + j], sizeof(float)) != 0)
                    bad++;
                continue;
            }
            double s = 0, mag = 0;
            for (size_t p = 0; p < k; p++) {
                double av = a[i * lda + p], bv = tb ? b[j * ldb + p] : b[p * ldb + j];
                s += av * bv;
                mag += fabs(av * bv);
            }
            double want = alpha * s, tol_mag = fabs(alpha) * mag;
            if (beta != 0) {
                want += beta * (double)c0[i * ldc + j];
                tol_mag += fabs(beta * (double)c0[i * ldc + j]);
            }
            if (bias) {
                want += bias[j];
                tol_mag += fabs((double)bias[j]);
            }
            double tol = (double)(k + 8) * 0x1p-24 * tol_mag + 1e-30;
            if (!(fabs((double)got - want) <= tol))
                bad++;
        }
    return bad;
}

static void
run_case(int lv, size_t m, size_t n, size_t k, bool tb, float alpha, float beta, bool with_bias)
{
    fdnn_isa_t isa = (fdnn_isa_t)lv;
    const char *name = fdnn_test_isa_name(lv);
    size_t lda = k + 3, ldb = (tb ? k : n) + 1, ldc = n + 2, brows = tb ? n : k;
    float *a = random_floats(m * lda), *b = random_floats(brows * ldb), *bias = random_floats(n);
    float *c0 = fdnn_guarded_alloc(m * ldc * sizeof(float));
    float *c1 = fdnn_guarded_alloc(m * ldc * sizeof(float)), *c2 = fdnn_guarded_alloc(m * ldc * sizeof(float));
    for (size_t i = 0; i < m * ldc; i++)
        c0[i] = beta == 0 ? NAN : (float)fdnn_rng_uniform(&rng, -1, 1);
    size_t bytes = fdnn_sgemm_bpack_bytes(m, n, k, tb, isa);
    CHECK_MSG(bytes <= ((n + 63) * k + 16) * sizeof(float), "%s n=%zu k=%zu: %zu bytes over the bound", name, n, k,
              bytes);
    /* Packed into the caller's buffer (poisoned first), single thread. */
    void *buf = fdnn_guarded_alloc(bytes > 0 ? bytes : 4);
    memset(buf, 0xff, bytes > 0 ? bytes : 4);
    fdnn_sgemm_bpack_t pk;
    CHECK(fdnn_sgemm_bpack_init(&pk, m, n, k, b, ldb, tb, NULL, isa, buf, bytes));
    CHECK_MSG((pk.buf != NULL) == (bytes > 0), "%s: packed %d, bytes %zu", name, pk.buf != NULL, bytes);
    if (pk.buf == NULL) { /* the level's tile has its own layout: the caller runs fdnn_sgemm */
        fdnn_guarded_free(buf);
        goto out;
    }
    CHECK(!pk.owned);
    const float *bb = with_bias ? bias : NULL;
    memcpy(c1, c0, m * ldc * sizeof(float));
    CHECK(fdnn_sgemm_bpacked(&pk, m, alpha, a, lda, beta, c1, ldc, bb, NULL, NULL, 0));
    size_t bad = count_wrong(a, lda, b, ldb, tb, c0, c1, m, n, k, ldc, alpha, beta, bb);
    CHECK_MSG(bad == 0, "%s m=%zu n=%zu k=%zu tb=%d beta=%g: %zu elements wrong", name, m, n, k, tb, (double)beta,
              bad);
    /* A smaller m with the same packing (the packed B does not depend on m). */
    if (m > 1) {
        memcpy(c2, c0, m * ldc * sizeof(float));
        CHECK(fdnn_sgemm_bpacked(&pk, m - 1, alpha, a, lda, beta, c2, ldc, bb, NULL, NULL, 0));
        CHECK_MSG(memcmp(c1, c2, (m - 1) * ldc * sizeof(float)) == 0 &&
                      memcmp(c2 + (m - 1) * ldc, c0 + (m - 1) * ldc, ldc * sizeof(float)) == 0,
                  "%s m=%zu n=%zu k=%zu: m - 1 rows differ", name, m, n, k);
    }
    fdnn_sgemm_bpack_free(&pk);
    /* Allocated packing, packed and run on 2 and 3 threads: bitwise. */
    fdnn_pool_t pools[2] = {pool2, pool3};
    for (int t = 0; t < 2; t++) {
        fdnn_sgemm_bpack_t p2;
        CHECK(fdnn_sgemm_bpack_init(&p2, m, n, k, b, ldb, tb, pools[t], isa, buf, bytes - 1)); /* too small */
        CHECK(p2.owned && p2.buf != NULL);
        memcpy(c2, c0, m * ldc * sizeof(float));
        CHECK(fdnn_sgemm_bpacked(&p2, m, alpha, a, lda, beta, c2, ldc, bb, pools[t], NULL, 0));
        CHECK_MSG(memcmp(c1, c2, m * ldc * sizeof(float)) == 0, "%s m=%zu n=%zu k=%zu tb=%d: %d threads differ", name,
                  m, n, k, tb, t + 2);
        fdnn_sgemm_bpack_free(&p2);
    }
    fdnn_guarded_free(buf);
    /* The checker catches one wrong element. */
    if (m == 3 && n == 17) {
        c1[ldc + 5] = nextafterf(c1[ldc + 5], INFINITY) * 1.001f + 1e-3f;
        CHECK_MSG(count_wrong(a, lda, b, ldb, tb, c0, c1, m, n, k, ldc, alpha, beta, bb) == 1,
                  "the wrong element went unnoticed");
    }
out:
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
    fdnn_guarded_free(bias);
    fdnn_guarded_free(c0);
    fdnn_guarded_free(c1);
    fdnn_guarded_free(c2);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 4409);
    pool2 = fdnn_pool_create(2);
    pool3 = fdnn_pool_create(3);
    static const size_t shapes[][3] = {
        {1, 1, 1},    {3, 17, 7},    {8, 48, 64},   {9, 49, 65},  {32, 200, 512}, {15, 33, 100},
        {7, 100, 13}, {33, 2048, 40}, {300, 70, 1100}, {14, 24, 3}, {29, 112, 256},
    };
    for (int lv = 0; lv < fdnn_test_isa_count(); lv++)
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
            for (int v = 0; v < 4; v++) {
                bool tb = (v & 1) != 0;
                float alpha = (v & 2) ? 0.75f : 1.0f, beta = (v & 2) ? -0.5f : 0.0f;
                run_case(lv, shapes[s][0], shapes[s][1], shapes[s][2], tb, alpha, beta, (s + (size_t)v) % 3 == 0);
            }
    fdnn_pool_destroy(pool2);
    fdnn_pool_destroy(pool3);
    return fdnn_test_finish("test_sgemm_bpack");
}
