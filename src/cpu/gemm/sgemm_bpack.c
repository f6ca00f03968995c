/* SPDX-License-Identifier: Apache-2.0
 * fdnn_sgemm_bpacked: float products with op(B) packed once (see
 * sgemm_bpack.h).  One parallel item per strip of nr columns; in it, the
 * row tiles one after the other, each one microkernel call over the whole
 * k, so the strip (k x nr) is read from L2 after the first tile. */
#include "cpu/gemm/sgemm_bpack.h"

#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "core/memory.h"
#include "cpu/gemm/gemm.h"
#include "cpu/kernels/gemm_ukernel.h"

static size_t
min_sz(size_t a, size_t b)
{
    return a < b ? a : b;
}

typedef struct pack_job {
    const fdnn_sgemm_bpack_t *pk;
    const float *b;
    size_t ldb;
    bool trans_b;
} pack_job_t;

/* Strip s of op(B): dst[p * nr + c] = op(B)[p][s * nr + c], zero past n. */
static void
pack_strip(void *arg, size_t s)
{
    const pack_job_t *j = arg;
    const fdnn_sgemm_bpack_t *pk = j->pk;
    size_t nr = pk->nr, k = pk->k, j0 = s * nr, w = min_sz(nr, pk->n - j0);
    float *dst = pk->buf + s * k * nr;
    if (j->trans_b) { /* op(B)[p][c] = b[c * ldb + p]: rows of b become columns */
        if (pk->tile.pack_t != NULL) {
            pk->tile.pack_t(w, k, j->b + j0 * j->ldb, j->ldb, dst, nr);
            return;
        }
        for (size_t p = 0; p < k; p++) {
            for (size_t c = 0; c < w; c++)
                dst[p * nr + c] = j->b[(j0 + c) * j->ldb + p];
            for (size_t c = w; c < nr; c++)
                dst[p * nr + c] = 0.0f;
        }
        return;
    }
    for (size_t p = 0; p < k; p++) {
        memcpy(dst + p * nr, j->b + p * j->ldb + j0, w * sizeof(float));
        for (size_t c = w; c < nr; c++)
            dst[p * nr + c] = 0.0f;
    }
}

/* The level's tile for the shape, false when nothing is packed. */
static bool
bpack_tile(size_t m, size_t n, size_t k, bool trans_b, fdnn_isa_t isa, fdnn_sgemm_tile_t *t)
{
    if (m == 0 || n == 0 || k == 0)
        return false;
    fdnn_sgemm_args_t probe = {.m = m, .n = n, .k = k, .trans_b = trans_b, .alpha = 1.0f, .lda = k,
                               .ldb = trans_b ? k : n, .ldc = n};
    *t = fdnn_isa_config(isa)->sgemm_tile(&probe);
    /* A kernel with its own B layout (pack_b), or none: not packed here. */
    return t->pack_b == NULL && (t->ukernel != NULL || t->arows != NULL) && t->nr > 0 && t->nr <= 64 && t->mr > 0;
}

size_t
fdnn_sgemm_bpack_bytes(size_t m, size_t n, size_t k, bool trans_b, fdnn_isa_t isa)
{
    fdnn_sgemm_tile_t t;
    if (!bpack_tile(m, n, k, trans_b, isa, &t))
        return 0;
    size_t strips = (n + t.nr - 1) / t.nr;
    if (k > (SIZE_MAX - 64) / sizeof(float) / t.nr / strips)
        return 0;
    return strips * k * t.nr * sizeof(float) + 64;
}

bool
fdnn_sgemm_bpack_init(fdnn_sgemm_bpack_t *pk, size_t m, size_t n, size_t k, const float *b, size_t ldb,
                      bool trans_b, fdnn_pool_t pool, fdnn_isa_t isa, void *buf, size_t buf_bytes)
{
    memset(pk, 0, sizeof(*pk));
    pk->n = n, pk->k = k;
    fdnn_sgemm_tile_t t;
    size_t bytes = fdnn_sgemm_bpack_bytes(m, n, k, trans_b, isa);
    if (bytes == 0 || !bpack_tile(m, n, k, trans_b, isa, &t))
        return true;
    if (buf != NULL && buf_bytes >= bytes) {
        pk->buf = (float *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
    } else {
        pk->buf = fdnn_aligned_alloc(bytes);
        if (pk->buf == NULL)
            return false;
        pk->owned = true;
    }
    pk->tile = t;
    pk->nr = t.nr, pk->mr = t.mr;
    pack_job_t j = {pk, b, ldb, trans_b};
    fdnn_parallelize_1d(pool, pack_strip, &j, (n + t.nr - 1) / t.nr, 0);
    return true;
}

void
fdnn_sgemm_bpack_free(fdnn_sgemm_bpack_t *pk)
{
    if (pk->owned)
        fdnn_aligned_free(pk->buf);
    pk->buf = NULL;
    pk->owned = false;
}

size_t
fdnn_sgemm_bpacked_scratch_size(const fdnn_sgemm_bpack_t *pk, size_t m)
{
    if (pk->buf == NULL || pk->tile.arows != NULL || m == 0)
        return 0;
    return ((m + pk->mr - 1) / pk->mr) * pk->mr * pk->k * sizeof(float) + 64;
}

typedef struct prod_job {
    const fdnn_sgemm_bpack_t *pk;
    size_t m;
    const float *a; /* A, or its packed row panels (ap != NULL) */
    size_t lda;
    const float *ap;
    float alpha, beta;
    float *c;
    size_t ldc;
    const float *bias_col;
    size_t mb, strips; /* rows per row block; strips per block */
    bool stream;       /* C large and written once: non-temporal stores */
} prod_job_t;

/* Item it: strip it % strips of row block it / strips. */
static void
prod_strip(void *arg, size_t it)
{
    const prod_job_t *j = arg;
    const fdnn_sgemm_bpack_t *pk = j->pk;
    size_t s = it % j->strips, r0 = it / j->strips * j->mb, r1 = min_sz(r0 + j->mb, j->m);
    size_t nr = pk->nr, mr = pk->mr, k = pk->k, j0 = s * nr, w = min_sz(nr, pk->n - j0);
    const float *bp = pk->buf + s * k * nr;
    /* A last strip of at most nr/2 columns at half the cost, where the
     * level has the twin (same arithmetic, same packed strip). */
    bool half = w <= nr / 2;
    fdnn_f32_gemm_arows_ukernel_fn arows = half && pk->tile.arows_half ? pk->tile.arows_half : pk->tile.arows;
    fdnn_f32_gemm_ukernel_fn uk = half && pk->tile.ukernel_half ? pk->tile.ukernel_half : pk->tile.ukernel;
    fdnn_f32_gemm_epilogue_t ep = {.alpha = j->alpha, .beta = j->beta,
                                   .bias_col = j->bias_col != NULL ? j->bias_col + j0 : NULL,
                                   .stream = j->stream};
    for (size_t i0 = r0; i0 < r1; i0 += mr) {
        size_t rows = min_sz(mr, r1 - i0);
        float *c = j->c + i0 * j->ldc + j0;
        if (j->ap == NULL)
            arows(rows, w, k, j->a + i0 * j->lda, j->lda, bp, nr, c, j->ldc, &ep);
        else
            uk(rows, w, k, j->ap + i0 * k, bp, nr, c, j->ldc, &ep);
    }
#if defined(__x86_64__) || defined(__i386__)
    if (j->stream)
        _mm_sfence(); /* the streamed rows are visible before the item reports done */
#endif
}

bool
fdnn_sgemm_bpacked(const fdnn_sgemm_bpack_t *pk, size_t m, float alpha, const float *a, size_t lda, float beta,
                   float *c, size_t ldc, const float *bias_col, fdnn_pool_t pool, void *scratch, size_t scratch_bytes)
{
    if (m == 0 || pk->n == 0 || pk->buf == NULL)
        return true;
    /* Row blocks of A a quarter of L2 (whole row tiles, at least one). */
    size_t l2 = fdnn_cpu_l2_bytes() > 0 ? fdnn_cpu_l2_bytes() : ((size_t)1 << 20);
    size_t mb = l2 / 4 / (pk->k * sizeof(float)) / pk->mr * pk->mr;
    mb = mb < pk->mr ? pk->mr : mb;
    /* As fdnn_sgemm does: a C of 2 MiB or more written once (beta 0; one k
     * pass here always) goes out with non-temporal stores (an RNN's input
     * product, 1600 x 2048: 5% of LSTM training, against plain stores). */
    bool stream = beta == 0.0f && (double)m * (double)ldc * sizeof(float) >= 2.0 * 1024 * 1024;
    prod_job_t j = {pk, m, a, lda, NULL, alpha, beta, c, ldc, bias_col, mb, (pk->n + pk->nr - 1) / pk->nr, stream};
    void *own = NULL;
    if (pk->tile.arows == NULL) { /* A packed into k-major panels of mr rows */
        size_t need = fdnn_sgemm_bpacked_scratch_size(pk, m);
        if (scratch == NULL || scratch_bytes < need) {
            own = fdnn_aligned_alloc(need);
            if (own == NULL)
                return false;
            scratch = own;
        }
        float *ap = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
        size_t mr = pk->mr, k = pk->k;
        for (size_t i0 = 0; i0 < m; i0 += mr) {
            size_t rows = min_sz(mr, m - i0);
            float *dst = ap + i0 * k;
            if (pk->tile.pack_t != NULL && mr <= 64) {
                pk->tile.pack_t(rows, k, a + i0 * lda, lda, dst, mr);
            } else {
                for (size_t p = 0; p < k; p++)
                    for (size_t r = 0; r < mr; r++)
                        dst[p * mr + r] = r < rows ? a[(i0 + r) * lda + p] : 0.0f;
            }
        }
        j.ap = ap;
    }
    fdnn_parallelize_1d(pool, prod_strip, &j, (m + mb - 1) / mb * j.strips, 0);
    fdnn_aligned_free(own);
    return true;
}
