/* SPDX-License-Identifier: Apache-2.0
 * The batch 1x1 GEMM's forward and backward data as one parallel step over
 * runs of positions.  See conv_gemm_nhwc_rows.h for the contract. */
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/config/config.h"
#include "cpu/conv/conv_gemm_nhwc.h"
#include "cpu/conv/conv_gemm_nhwc_rows.h"
#include "cpu/gemm/gemm.h"

/* The reduction in one k block (the arows kernels' epilogue then finishes
 * C in the same call), and the packed filter small enough to stay in L2
 * next to the rows in flight. */
#define ROWS_MAX_K 512
#define ROWS_MAX_B_BYTES ((size_t)512 * 1024)
/* A rows per task, about: read from memory once, then from L2 for every
 * further column strip. */
#define ROWS_TASK_BYTES ((size_t)128 * 1024)
/* A C this large, written once (beta 0), goes out with streaming stores:
 * the GEMM driver's rule (STREAM_C_BYTES). */
#define ROWS_STREAM_BYTES ((double)2 * 1024 * 1024)

/* The reduction depth and the columns of C: (Cg, Kg) forward, (Kg, Cg)
 * backward data. */
static void
rows_shape(const fdnn_conv_problem_t *p, size_t *k, size_t *n)
{
    size_t cg = (size_t)fdnn_conv_cg(p), kg = (size_t)fdnn_conv_kg(p);
    bool fwd = p->dir == FDNN_CONV_FWD;
    *k = fwd ? cg : kg;
    *n = fwd ? kg : cg;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_rows_applicable(const fdnn_conv_problem_t *p)
{
    if (p->dir != FDNN_CONV_FWD && p->dir != FDNN_CONV_BWD_DATA)
        return FDNN_NOT_SUPPORTED("the batch 1x1 rows path runs forward and backward data only");
    cudnnStatus_t st = fdnn_conv_gemm_nhwc_applicable(p);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    size_t ldx, ldy, ldw;
    if (!fdnn_conv_gemm_nhwc_lds(p, &ldx, &ldy, &ldw) && p->dir != FDNN_CONV_FWD)
        return FDNN_NOT_SUPPORTED("the batch 1x1 rows path needs dx written in place (stride 1, uniform positions)");
    size_t k, n;
    rows_shape(p, &k, &n);
    if (k > ROWS_MAX_K)
        return FDNN_NOT_SUPPORTED("the batch 1x1 rows path reduces over at most 512 channels");
    if (k * n * sizeof(float) > ROWS_MAX_B_BYTES)
        return FDNN_NOT_SUPPORTED("the batch 1x1 rows path needs a filter of at most 512 KiB");
    return CUDNN_STATUS_SUCCESS;
}

typedef struct rows_ctx {
    fdnn_sgemm_tile_t tile;
    const float *a; /* position i's row of A (x or dy) at a + i * lda */
    size_t lda;
    const float *b; /* packed: strip j / nr at b + j * k */
    float *c;
    size_t ldc;
    size_t m, n, k, task_rows;
    /* Lines (forward, x not in place): C's rows in lines of `ow` output
     * positions, task t the lines [t * task_lines, ..); line l's A rows
     * from line_a(l), lda apart (x's W stride times the conv's).  ow 0:
     * the rows are A's uniformly. */
    size_t ow, task_lines, lines;
    int64_t oh, od;            /* output lines per depth slice, depth slices */
    int64_t sn, sd, sh;        /* x's element strides to the next image, depth and line a position reads */
    const float *bias; /* n entries or NULL */
    bool relu, stream;
    float alpha, beta;
} rows_ctx_t;

/* Task t: rows [t * task_rows, ..) of C, strip by strip of columns (the B
 * strip from L2 into L1, the task's A rows from L2 after the first).  The
 * first strip reads the A rows from memory: its kernel calls (the tile's
 * prefetching twins, where it has them) fetch the next tile's rows into L2
 * while they compute.  A tile whose rows span several lines is read as
 * interleaved streams the hardware prefetchers follow badly: MobileNet v2's
 * narrow layers (one strip) read A at a third of the memory bandwidth
 * without.  Rows of one line (k <= 16) are one sequential run the hardware
 * follows, and the twin only cost load slots there (32 -> 16 backward
 * data at 112x112: 1.3x slower), so those keep the plain kernel. */
static void
rows_task(void *arg, size_t t)
{
    const rows_ctx_t *r = arg;
    const fdnn_sgemm_tile_t *tl = &r->tile;
    size_t mr = tl->mr, nr = tl->nr;
    size_t i0 = t * r->task_rows, i1 = i0 + r->task_rows < r->m ? i0 + r->task_rows : r->m;
    /* Lines of one A row, one more where rows do not start on a line. */
    size_t lpr = (r->k * sizeof(float) + 63) / 64 + (((uintptr_t)r->a | r->lda * sizeof(float)) % 64 != 0);
    for (size_t j = 0; j < r->n; j += nr) {
        size_t ncols = r->n - j < nr ? r->n - j : nr;
        bool half = 2 * ncols <= nr && tl->arows_half != NULL;
        fdnn_f32_gemm_arows_ukernel_fn kern = half ? tl->arows_half : tl->arows;
        fdnn_f32_gemm_arows_pf_ukernel_fn kern_pf = j > 0 || r->k * sizeof(float) <= 64 ? NULL
                                                    : half                           ? tl->arows_half_ahead
                                                                                     : tl->arows_ahead;
        fdnn_f32_gemm_epilogue_t ep = {r->alpha, r->beta, NULL, r->bias != NULL ? r->bias + j : NULL, r->relu,
                                       r->stream};
        for (size_t i = i0; i < i1; i += mr) {
            size_t rows = i1 - i < mr ? i1 - i : mr, next = i + mr;
            const float *a = r->a + i * r->lda, *b = r->b + j * r->k;
            float *c = r->c + i * r->ldc + j;
            if (kern_pf == NULL || next >= i1) {
                kern(rows, ncols, r->k, a, r->lda, b, nr, c, r->ldc, &ep);
                continue;
            }
            size_t next_rows = i1 - next < mr ? i1 - next : mr;
            fdnn_gemm_pf_share_t pf = {(const char *)(r->a + next * r->lda), lpr, r->lda * sizeof(float), 0,
                                       next_rows * lpr};
            kern_pf(rows, ncols, r->k, a, r->lda, b, nr, c, r->ldc, &ep, &pf);
        }
    }
#if defined(__x86_64__) || defined(__i386__)
    if (r->stream)
        _mm_sfence(); /* the streamed rows are visible before the task reports done */
#endif
}

/* Output line l (n, od, oh) of a lines problem: its first A row in x. */
static const float *
line_a(const rows_ctx_t *r, size_t l)
{
    int64_t oh = (int64_t)l % r->oh, od = (int64_t)l / r->oh % r->od, n = (int64_t)l / (r->oh * r->od);
    return r->a + n * r->sn + od * r->sd + oh * r->sh; /* a: x, group offset included */
}

/* Lines task t: as rows_task, each line's rows in runs of at most MR
 * (a kernel call never spans two lines: their A rows are not lda apart). */
static void
lines_task(void *arg, size_t t)
{
    const rows_ctx_t *r = arg;
    const fdnn_sgemm_tile_t *tl = &r->tile;
    size_t mr = tl->mr, nr = tl->nr, ow = r->ow;
    size_t l0 = t * r->task_lines, l1 = l0 + r->task_lines < r->lines ? l0 + r->task_lines : r->lines;
    for (size_t j = 0; j < r->n; j += nr) {
        size_t ncols = r->n - j < nr ? r->n - j : nr;
        fdnn_f32_gemm_arows_ukernel_fn kern = 2 * ncols <= nr && tl->arows_half != NULL ? tl->arows_half : tl->arows;
        fdnn_f32_gemm_epilogue_t ep = {r->alpha, r->beta, NULL, r->bias != NULL ? r->bias + j : NULL, r->relu,
                                       r->stream};
        for (size_t l = l0; l < l1; l++) {
            const float *a = line_a(r, l);
            float *c = r->c + l * ow * r->ldc + j;
            for (size_t i = 0; i < ow; i += mr)
                kern(ow - i < mr ? ow - i : mr, ncols, r->k, a + i * r->lda, r->lda, r->b + j * r->k, nr,
                     c + i * r->ldc, r->ldc, &ep);
        }
    }
#if defined(__x86_64__) || defined(__i386__)
    if (r->stream)
        _mm_sfence();
#endif
}

/* Forward: B = W_g^T (B(p, j) = W[j][p]), each strip by the transposing
 * pack; backward data: B = W_g, the plain pack (or the tile's own). */
static void
pack_filter(const rows_ctx_t *r, bool fwd, const float *w, size_t ldw, float *dst)
{
    const fdnn_sgemm_tile_t *tl = &r->tile;
    size_t nr = tl->nr;
    if (fwd) {
        for (size_t j = 0; j < r->n; j += nr) {
            size_t ncols = r->n - j < nr ? r->n - j : nr;
            float *d = dst + j * r->k;
            if (tl->pack_t != NULL) {
                tl->pack_t(ncols, r->k, w + j * ldw, ldw, d, nr);
                continue;
            }
            for (size_t p = 0; p < r->k; p++)
                for (size_t jj = 0; jj < nr; jj++)
                    d[p * nr + jj] = jj < ncols ? w[(j + jj) * ldw + p] : 0.0f;
        }
        return;
    }
    fdnn_f32_pack_n_fn pack = tl->pack_b != NULL ? tl->pack_b : tl->pack_n;
    if (pack != NULL) {
        pack(r->k, r->n, w, ldw, dst, nr);
        return;
    }
    for (size_t j = 0; j < r->n; j += nr)
        for (size_t p = 0; p < r->k; p++)
            for (size_t jj = 0; jj < nr; jj++)
                dst[j * r->k + p * nr + jj] = j + jj < r->n ? w[p * ldw + j + jj] : 0.0f;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_rows_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    RETURN_IF_ERROR(fdnn_conv_gemm_nhwc_rows_applicable(p));
    bool fwd = p->dir == FDNN_CONV_FWD;
    rows_ctx_t r = {.m = (size_t)(p->n * fdnn_conv_out_spatial(p)), .alpha = (float)e->alpha,
                    .beta = (float)e->beta, .relu = fwd && e->relu};
    rows_shape(p, &r.k, &r.n);
    fdnn_sgemm_args_t shape = {.trans_b = fwd, .m = r.m, .n = r.n, .k = r.k, .alpha = r.alpha};
    r.tile = fdnn_isa_config(e->handle->isa)->sgemm_tile(&shape);
    if (r.tile.arows == NULL || r.alpha == 0 || r.m == 0)
        return fdnn_conv_gemm_nhwc_execute(e); /* the driver packs A, or skips the product */
    size_t ldx, ldy, ldw;
    bool in_place = fdnn_conv_gemm_nhwc_lds(p, &ldx, &ldy, &ldw);
    size_t mr = r.tile.mr, nr = r.tile.nr;
    size_t rows_fit = ROWS_TASK_BYTES / (r.k * sizeof(float)) / mr * mr;
    r.task_rows = rows_fit > mr ? rows_fit : mr;
    size_t tasks = (r.m + r.task_rows - 1) / r.task_rows;
    if (!in_place) { /* forward on strided or irregular x: lines (rows_applicable) */
        r.ow = (size_t)p->out[2];
        if ((r.ow + mr - 1) / mr * mr * 6 > 7 * r.ow)
            return fdnn_conv_gemm_nhwc_execute(e); /* short lines would run mostly empty kernel rows */
        r.lines = r.m / r.ow;
        r.task_lines = r.task_rows / r.ow > 1 ? r.task_rows / r.ow : 1;
        tasks = (r.lines + r.task_lines - 1) / r.task_lines;
        r.oh = p->out[1];
        r.od = p->out[0];
        r.sn = p->x.strides[0];
        r.sd = p->stride[0] * p->x.strides[2];
        r.sh = p->stride[1] * p->x.strides[3];
        ldx = (size_t)(p->stride[2] * p->x.strides[4]);
    }
    size_t b_bytes = (r.n + nr - 1) / nr * nr * r.k * sizeof(float);
    float *bpack = fdnn_handle_scratch(e->handle, b_bytes);
    if (bpack == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    r.b = bpack;
    r.lda = fwd ? ldx : ldy;
    r.ldc = fwd ? ldy : ldx;
    r.stream = r.beta == 0 && (double)r.m * (double)r.ldc * sizeof(float) >= ROWS_STREAM_BYTES;
    size_t cg = (size_t)fdnn_conv_cg(p), kg = (size_t)fdnn_conv_kg(p);
    for (int64_t g = 0; g < p->g; g++) {
        size_t xc = (size_t)g * cg, yc = (size_t)g * kg;
        pack_filter(&r, fwd, (const float *)e->w_in + (size_t)g * kg * ldw, ldw, bpack);
        r.a = fwd ? (const float *)e->x_in + xc : (const float *)e->y_in + yc;
        r.c = (float *)e->out + (fwd ? yc : xc);
        r.bias = fwd && e->bias != NULL ? (const float *)e->bias + yc : NULL;
        fdnn_parallelize_1d(e->pool, r.ow > 0 ? lines_task : rows_task, &r, tasks, 0);
    }
    return CUDNN_STATUS_SUCCESS;
}
