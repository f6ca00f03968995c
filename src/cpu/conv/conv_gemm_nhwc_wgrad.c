/* SPDX-License-Identifier: Apache-2.0
 * Backward filter of the batch 1x1 GEMM (conv_gemm_nhwc.h) with both
 * operands read in place.  See conv_gemm_nhwc_wgrad.h for the contract. */
#include <string.h>

#include "core/conv_config.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/config/config.h"
#include "cpu/conv/conv_gemm_nhwc_wgrad.h"
#include "cpu/conv/conv_partials.h"
#include "cpu/gemm/gemm.h"

/* Positions per k block, at most: equal blocks to a multiple of 8.  A B
 * strip of 512 rows (64 KiB) streams from L2 while the A panel (at most
 * 2048 x 512 floats for ResNet-50's widest) stays in L2 / L3; T, re-read
 * once per block, is at most 8 MiB. */
#define WGRAD_KC 512

/* Where this path runs: the small operand at most 128 wide (its A panel,
 * <= 256 KiB at WGRAD_KC, stays in L2 across the B strips) and the large
 * one at most 512 (a B strip reads 128 of every <= 2 KiB of the row).  On
 * ResNet-50's layers at 1 thread (docs/performance.md, "NHWC 1x1 backward
 * filter in place") it ran 1.1-1.9x faster than the general driver inside
 * these bounds and 0.73-0.96x outside (res4 / res5, 256-2048 wide on both
 * sides: the A panel outgrew L2 and each k step of a B strip was a new
 * page), so it declines those. */
#define WGRAD_MAX_SMALL 128
#define WGRAD_MAX_LARGE 512

/* Position chunks: the NP positions are cut into `chunks` runs of equal
 * length (a multiple of 8, the last one shorter), a number that depends on
 * the shape only: the largest of 12, 6, 4, 2 that leaves each chunk at least
 * WGRAD_MIN_CHUNK positions, else 1.  Each chunk is one task with its own
 * sums T_c (all of T's columns, its k blocks in order) and its own packing
 * lane; the chunks' sums are then added in chunk order.  So every element
 * of dW has the same operations in the same order whatever the thread
 * count, and the tasks split the positions: each packs only its own rows
 * of the small operand (a split of T's columns made every task pack all of
 * them, and narrow layers had one or two column strips to share).  12
 * chunks spread evenly over 1, 2, 3, 4 and 6 threads. */
#define WGRAD_MIN_CHUNK 256

typedef struct wgrad_ctx {
    fdnn_sgemm_tile_t tile;
    const float *s, *l; /* position p's row of the small / large operand at + p * lds / ldl */
    size_t lds, ldl;
    size_t ns, nl;      /* their columns: each T_c is ns x nl, ldt nl */
    size_t rows, chunk, kc; /* positions, positions per chunk, the k block length */
    float *t;           /* T_c at t + c * t_elems */
    size_t t_elems;
    char *lanes;        /* per chunk: the packed A panel, then the partial B strip */
    size_t lane_bytes;
} wgrad_ctx_t;

/* The portable plain pack (gemm_ukernel.h, fdnn_f32_pack_n_fn), for levels
 * without one. */
static void
pack_n_portable(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t width)
{
    for (size_t t = 0; t * width < cols; t++) {
        size_t valid = cols - t * width < width ? cols - t * width : width;
        for (size_t r = 0; r < rows; r++) {
            float *d = dst + (t * rows + r) * width;
            memcpy(d, src + r * src_ld + t * width, valid * sizeof(float));
            for (size_t c = valid; c < width; c++)
                d[c] = 0;
        }
    }
}

/* Chunk c: T_c over positions [c * chunk, (c + 1) * chunk), k block by k
 * block.  Each block packs the small operand's rows as the A panel (MR
 * strips, one pass over each row) and reads the large operand's full strips
 * in place; a last partial strip is packed, zero-padded. */
static void
wgrad_task(void *arg, size_t c)
{
    const wgrad_ctx_t *w = arg;
    const fdnn_sgemm_tile_t *tl = &w->tile;
    size_t p0 = c * w->chunk, p1 = p0 + w->chunk < w->rows ? p0 + w->chunk : w->rows;
    fdnn_f32_pack_n_fn pack = tl->pack_n != NULL ? tl->pack_n : pack_n_portable;
    size_t mr = tl->mr, nr = tl->nr;
    float *t = w->t + c * w->t_elems;
    float *apack = (float *)(w->lanes + c * w->lane_bytes);
    float *bpart = apack + (w->ns + mr - 1) / mr * mr * w->kc;
    for (size_t k0 = p0; k0 < p1; k0 += w->kc) {
        size_t kc = p1 - k0 < w->kc ? p1 - k0 : w->kc;
        pack(kc, w->ns, w->s + k0 * w->lds, w->lds, apack, mr);
        fdnn_f32_gemm_epilogue_t ep = {1.0f, k0 == p0 ? 0.0f : 1.0f, NULL, NULL, false, false};
        for (size_t j0 = 0; j0 < w->nl; j0 += nr) {
            size_t ncols = w->nl - j0 < nr ? w->nl - j0 : nr;
            const float *b = w->l + k0 * w->ldl + j0;
            size_t b_stride = w->ldl;
            if (ncols < nr) {
                pack(kc, ncols, b, w->ldl, bpart, nr);
                b = bpart;
                b_stride = nr;
            }
            for (size_t i0 = 0; i0 < w->ns; i0 += mr)
                tl->ukernel(w->ns - i0 < mr ? w->ns - i0 : mr, ncols, kc, apack + i0 * kc, b, b_stride,
                            t + i0 * w->nl + j0, w->nl, &ep);
        }
    }
}

/* dW_g from T: alpha T (or T^T) + beta dW_g, one filter row per item. */
typedef struct blend_ctx {
    const float *t;
    float *dw;
    size_t ldw, cg, kg, ldt;
    bool transposed; /* T is dW_g^T (Cg x Kg) */
    float alpha, beta;
} blend_ctx_t;

static void
blend_row(void *arg, size_t k)
{
    const blend_ctx_t *b = arg;
    float *d = b->dw + k * b->ldw;
    for (size_t c = 0; c < b->cg; c++) {
        float s = b->transposed ? b->t[c * b->ldt + k] : b->t[k * b->ldt + c];
        d[c] = fdnn_conv_epilogue_f32(s, b->alpha, b->beta, &d[c], NULL, false);
    }
}

static fdnn_sgemm_tile_t
wgrad_tile(fdnn_isa_t isa, size_t ns, size_t nl, size_t rows)
{
    fdnn_sgemm_args_t shape = {.trans_a = true, .m = ns, .n = nl, .k = rows, .alpha = 1, .b_strips_in_place = true};
    return fdnn_isa_config(isa)->sgemm_tile(&shape);
}

/* The chunks (see WGRAD_MIN_CHUNK) and their length, a multiple of 8:
 * depend on the shape only. */
static size_t
wgrad_chunk(size_t rows, size_t *chunks)
{
    static const size_t counts[] = {12, 6, 4, 2};
    size_t n = 1;
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]) && n == 1; i++)
        if (rows >= counts[i] * WGRAD_MIN_CHUNK)
            n = counts[i];
    size_t len = ((rows + n - 1) / n + 7) / 8 * 8;
    *chunks = (rows + len - 1) / len; /* rounding up may leave fewer */
    return len;
}

/* The k block of a chunk: equal blocks of at most WGRAD_KC positions, to a
 * multiple of 8. */
static size_t
wgrad_kc(size_t chunk)
{
    size_t blocks = (chunk + WGRAD_KC - 1) / WGRAD_KC;
    return ((chunk + blocks - 1) / blocks + 7) / 8 * 8;
}

/* Bytes of one chunk's lane: the A panel and one partial B strip. */
static size_t
wgrad_lane_bytes(const fdnn_sgemm_tile_t *tl, size_t ns, size_t kc)
{
    return fdnn_align_up(((ns + tl->mr - 1) / tl->mr * tl->mr + tl->nr) * kc * sizeof(float));
}

bool
fdnn_conv_gemm_nhwc_wgrad_plan(const fdnn_conv_exec_t *e, size_t rows, size_t *bytes)
{
    const fdnn_conv_problem_t *p = e->p;
    size_t cg = (size_t)fdnn_conv_cg(p), kg = (size_t)fdnn_conv_kg(p);
    if (p->dir != FDNN_CONV_BWD_FILTER || rows == 0 || e->alpha == 0)
        return false;
    size_t ns = cg < kg ? cg : kg, nl = cg < kg ? kg : cg;
    if (ns > WGRAD_MAX_SMALL || nl > WGRAD_MAX_LARGE)
        return false;
    fdnn_sgemm_tile_t tl = wgrad_tile(e->handle->isa, ns, nl, rows);
    if (tl.ukernel == NULL)
        return false; /* a tile that only reads A in place */
    size_t chunks, chunk = wgrad_chunk(rows, &chunks);
    *bytes = chunks * (fdnn_align_up(ns * nl * sizeof(float)) + wgrad_lane_bytes(&tl, ns, wgrad_kc(chunk)));
    return true;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_wgrad(const fdnn_conv_exec_t *e, const float *x, size_t ldx, const float *dy, size_t ldy,
                          size_t ldw, size_t rows, char *scratch)
{
    const fdnn_conv_problem_t *p = e->p;
    size_t cg = (size_t)fdnn_conv_cg(p), kg = (size_t)fdnn_conv_kg(p);
    bool transposed = kg > cg; /* dy is the large operand: T = x^T dy = dW_g^T */
    wgrad_ctx_t w = {.ns = transposed ? cg : kg, .nl = transposed ? kg : cg, .rows = rows};
    size_t chunks;
    w.chunk = wgrad_chunk(rows, &chunks);
    w.kc = wgrad_kc(w.chunk);
    w.tile = wgrad_tile(e->handle->isa, w.ns, w.nl, rows);
    w.lane_bytes = wgrad_lane_bytes(&w.tile, w.ns, w.kc);
    w.t = (float *)scratch;
    w.t_elems = fdnn_align_up(w.ns * w.nl * sizeof(float)) / sizeof(float);
    w.lanes = scratch + chunks * w.t_elems * sizeof(float);
    float *dw = e->out;
    for (int64_t g = 0; g < p->g; g++) {
        const float *xg = x + (size_t)g * cg, *dyg = dy + (size_t)g * kg;
        w.s = transposed ? xg : dyg;
        w.lds = transposed ? ldx : ldy;
        w.l = transposed ? dyg : xg;
        w.ldl = transposed ? ldy : ldx;
        fdnn_parallelize_1d(e->pool, wgrad_task, &w, chunks, 0);
        fdnn_conv_sum_partials_f32(e->pool, w.t, w.t_elems, w.ns * w.nl, chunks); /* T_0 += T_1, ... */
        blend_ctx_t b = {w.t, dw + (size_t)g * kg * ldw, ldw, cg, kg, w.nl, transposed, (float)e->alpha,
                         (float)e->beta};
        fdnn_parallelize_1d(e->pool, blend_row, &b, kg, 0);
    }
    return CUDNN_STATUS_SUCCESS;
}
