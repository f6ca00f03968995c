/* SPDX-License-Identifier: Apache-2.0
 * The GEMM of the FP32 attention kernels (contract in attn.h): FP32
 * products, or bfloat16 products for BFLOAT16 data (and HALF data with a
 * TENSOR_OP math type) on CPUs with AVX512-BF16. */
#include "cpu/attn/attn.h"

#include <assert.h>
#include <stdint.h>

#include "core/pool.h"
#include "cpu/gemm/sgemm_bpack.h"

static fdnn_gemm_bf16dot_args_t
as_bf16dot(const fdnn_sgemm_args_t *g)
{
    return (fdnn_gemm_bf16dot_args_t){
        .trans_a = g->trans_a, .trans_b = g->trans_b, .m = g->m, .n = g->n, .k = g->k, .alpha = g->alpha,
        .a_type = FDNN_GEMM_F32, .a = g->a, .lda = g->lda, .b_type = FDNN_GEMM_F32, .b = g->b, .ldb = g->ldb,
        .beta = g->beta, .c = g->c, .ldc = g->ldc, .bias_row = g->bias_row, .bias_col = g->bias_col, .act = g->act,
    };
}

size_t
fdnn_attn_sgemm_scratch(const fdnn_sgemm_args_t *g, size_t threads, fdnn_isa_t isa)
{
    size_t s = fdnn_sgemm_scratch_size(g, threads, isa);
    fdnn_gemm_bf16dot_args_t b = as_bf16dot(g);
    size_t t = fdnn_gemm_bf16dot_scratch_size(&b, isa);
    return s > t ? s : t;
}

/* An operand in a staged slot left unwritten: the user's 16-bit matrix
 * instead. */
static void
operand(const fdnn_attn_lowp_t *lp, const void **ptr, fdnn_gemm_dtype_t *type)
{
    const float *x = *ptr;
    for (int i = 0; i < FDNN_ATTN_LOWP_SLOTS; i++)
        if (lp->w32[i] != NULL && x >= lp->w32[i] && x < lp->w32[i] + lp->n[i]) {
            *ptr = (const uint16_t *)lp->w16[i] + (x - lp->w32[i]);
            *type = lp->type;
            return;
        }
}

bool
fdnn_attn_sgemm(const fdnn_sgemm_args_t *g, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch, size_t bytes,
                const fdnn_attn_lowp_t *lowp)
{
    if (lowp == NULL)
        return fdnn_sgemm(g, pool, isa, scratch, bytes);
    fdnn_gemm_bf16dot_args_t b = as_bf16dot(g);
    operand(lowp, &b.a, &b.a_type);
    operand(lowp, &b.b, &b.b_type);
    return fdnn_gemm_bf16dot(&b, pool, isa, scratch, bytes);
}

/* op(B) of g as the BF16 GEMM sees it: the user's 16-bit matrix where B
 * lies in a staged slot (m 1: the packed size ignores m but is 0 for m 0). */
static fdnn_gemm_bf16dot_args_t
b_operand(const fdnn_sgemm_args_t *g, const fdnn_attn_lowp_t *lowp)
{
    fdnn_gemm_bf16dot_args_t b = as_bf16dot(g);
    b.m = 1;
    operand(lowp, &b.b, &b.b_type);
    return b;
}

size_t
fdnn_attn_bf16_packed_b_bytes(size_t n, size_t k, bool trans_b, fdnn_isa_t isa)
{
    fdnn_gemm_bf16dot_args_t b = {.trans_b = trans_b, .m = 1, .n = n, .k = k, .alpha = 1};
    return fdnn_gemm_bf16dot_packed_b_size(&b, isa);
}

const void *
fdnn_attn_bf16_pack_b(const fdnn_sgemm_args_t *g, const fdnn_attn_lowp_t *lowp, fdnn_isa_t isa, void *buf,
                      size_t bytes)
{
    if (lowp == NULL || buf == NULL)
        return NULL;
    fdnn_gemm_bf16dot_args_t b = b_operand(g, lowp);
    size_t need = fdnn_gemm_bf16dot_packed_b_size(&b, isa);
    if (need == 0 || need > bytes || ((uintptr_t)buf & 63u) != 0)
        return NULL;
    fdnn_gemm_bf16dot_pack_b(&b, NULL, isa, buf);
    return buf;
}

bool
fdnn_attn_sgemm_packed(const fdnn_sgemm_args_t *g, fdnn_isa_t isa, void *scratch, size_t bytes,
                       const fdnn_attn_lowp_t *lowp, const void *b_packed, const uint16_t *a_bf16)
{
    if (b_packed == NULL && a_bf16 == NULL)
        return fdnn_attn_sgemm(g, NULL, isa, scratch, bytes, lowp);
    fdnn_gemm_bf16dot_args_t b = as_bf16dot(g);
    operand(lowp, &b.a, &b.a_type);
    operand(lowp, &b.b, &b.b_type);
    if (a_bf16 != NULL)
        b.a = a_bf16, b.a_type = FDNN_GEMM_BF16;
    b.b_packed = b_packed;
    return fdnn_gemm_bf16dot(&b, NULL, isa, scratch, bytes);
}

bool
fdnn_attn_bf16_products(const fdnn_attn_problem_t *p, fdnn_isa_t isa)
{
    bool allowed = p->dtype == CUDNN_DATA_BFLOAT16 || (p->dtype == CUDNN_DATA_HALF && p->tensor_op);
    return allowed && fdnn_gemm_bf16dot_kernel(isa) == FDNN_BF16DOT_AVX512_BF16;
}

/* Deeper products would make the one-pass tiles stream too long an A row
 * panel per C tile; the projections of the cuDNN attention shapes have k
 * = the embedding width (a few hundred to a few thousand). */
#define PROJECT_MAX_K 4096

/* FDNN_ATTN_PROJ_TILE_128: the tile the level picks for 128-row products
 * (on AVX-512 8x48 rather than 14x32 for the 1024 x 512 x 512 projections
 * of h8 e512 L128 n8: forward 14.4-15.2 ms against 16.0-16.6 ms, 3
 * alternations at load 8-9; the backward's projections showed no gain
 * and keep the default). */
#define PROJECT_TILE_ROWS 128

/* C rows per fdnn_sgemm_bpacked call when C is to stay in the caches:
 * below the 2 MiB at which that call streams C past them. */
static size_t
cached_rows(const fdnn_sgemm_args_t *g, size_t mr)
{
    size_t rows = ((size_t)1 << 20) / (g->ldc * sizeof(float));
    rows = rows / mr * mr;
    return rows < mr ? mr : rows;
}

bool
fdnn_attn_project_f32(cudnnHandle_t handle, const fdnn_sgemm_args_t *g, unsigned flags)
{
    bool cached = (flags & FDNN_ATTN_PROJ_CACHED) != 0;
    fdnn_pool_t pool = fdnn_handle_pool(handle);
    fdnn_isa_t isa = handle->isa;
    assert(!g->trans_a && g->alpha == 1.0f && g->beta == 0.0f);
    /* The tile: the level's choice for the whole product, or for
     * PROJECT_TILE_ROWS-row products (FDNN_ATTN_PROJ_TILE_128). */
    size_t hint = (flags & FDNN_ATTN_PROJ_TILE_128) && g->m > PROJECT_TILE_ROWS ? PROJECT_TILE_ROWS : g->m;
    size_t pb = g->k <= PROJECT_MAX_K ? fdnn_sgemm_bpack_bytes(hint, g->n, g->k, g->trans_b, isa) : 0;
    if (pb > 0) {
        /* The packed weights in the handle's scratch; A's row panels, where
         * the level's kernel packs A rather than reading it in place (none
         * on AVX-512; elsewhere all of A, m x k floats), in its second
         * buffer, sized once the tile is known. */
        char *buf = fdnn_handle_scratch(handle, pb);
        if (buf == NULL)
            return false;
        fdnn_sgemm_bpack_t pk;
        if (!fdnn_sgemm_bpack_init(&pk, hint, g->n, g->k, g->b, g->ldb, g->trans_b, pool, isa, buf, pb))
            return false;
        if (pk.buf != NULL) {
            size_t abytes = fdnn_sgemm_bpacked_scratch_size(&pk, g->m);
            void *ap = abytes > 0 ? fdnn_handle_stage(handle, abytes) : NULL;
            bool ok = abytes == 0 || ap != NULL;
            /* Each C tile is one microkernel call over the whole k, so the
             * row chunks give the same bits as one call. */
            size_t step = cached ? cached_rows(g, pk.mr) : g->m;
            for (size_t r0 = 0; ok && r0 < g->m; r0 += step) {
                size_t rows = g->m - r0 < step ? g->m - r0 : step;
                const float *a = g->a + r0 * g->lda;
                float *c = g->c + r0 * g->ldc;
                ok = fdnn_sgemm_bpacked(&pk, rows, 1.0f, a, g->lda, 0.0f, c, g->ldc, g->bias_col, pool, ap, abytes);
            }
            fdnn_sgemm_bpack_free(&pk);
            return ok;
        }
    }
    size_t need = fdnn_sgemm_scratch_size(g, handle->num_threads, isa);
    void *scratch = need > 0 ? fdnn_handle_scratch(handle, need) : NULL;
    return fdnn_sgemm(g, pool, isa, scratch, scratch ? need : 0);
}
