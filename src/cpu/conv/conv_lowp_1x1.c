/* SPDX-License-Identifier: Apache-2.0
 * PSEUDO_HALF forward convolutions as GEMMs on half storage, without FP32
 * staging: 1x1 filters, and larger filters whose weights outweigh the
 * image (an im2col of the image, in half).  See conv_lowp.h
 * (fdnn_conv_lowp_1x1_*, fdnn_conv_lowp_im2col_applies). */
#include "cpu/conv/conv_lowp.h"

#include <stdint.h>
#include <string.h>

#include "core/ckd.h"
#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/gemm/sgemm_f16.h"
#include "cpu/tensor/convert_row.h"

/* The FP32 result tile (K x nb) is kept within this share of the L2 cache
 * (at least one full tile row of 16 columns), so the GEMM writes it and the
 * write pass reads it back from the cache. */
#define TILE_SHARE 2

bool
fdnn_conv_lowp_1x1_applies(const fdnn_conv_problem_t *p)
{
    if (p->dir != FDNN_CONV_FWD || p->config != FDNN_CONV_CFG_PSEUDO_HALF || fdnn_conv_lowp_rounds_to_bf16(p))
        return false;
    if (p->x.dtype != CUDNN_DATA_HALF || p->w.dtype != CUDNN_DATA_HALF || p->y.dtype != CUDNN_DATA_HALF)
        return false;
    if (p->g != 1 || p->in[0] != 1 || p->out[0] != 1)
        return false;
    for (int d = 0; d < 3; d++)
        if (p->ker[d] != 1 || p->pad[d] != 0)
            return false;
    return fdnn_tensor_is_packed(&p->x) && fdnn_tensor_is_packed(&p->w) && fdnn_tensor_is_packed(&p->y) &&
           p->n > 0 && p->c > 0 && p->k > 0 && p->out[1] > 0 && p->out[2] > 0;
}

bool
fdnn_conv_lowp_im2col_applies(const fdnn_conv_problem_t *p, int algo)
{
    if (algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM && algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM &&
        algo != CUDNN_CONVOLUTION_FWD_ALGO_GEMM)
        return false;
    if (p->dir != FDNN_CONV_FWD || p->config != FDNN_CONV_CFG_PSEUDO_HALF || fdnn_conv_lowp_rounds_to_bf16(p))
        return false;
    if (p->x.dtype != CUDNN_DATA_HALF || p->w.dtype != CUDNN_DATA_HALF || p->y.dtype != CUDNN_DATA_HALF)
        return false;
    if (p->g != 1 || p->in[0] != 1 || p->out[0] != 1 || p->ker[0] != 1 || p->pad[0] != 0)
        return false;
    int64_t osp = p->out[1] * p->out[2];
    /* Where the filter has at least as many rows as the image has output
     * positions (res5's 3x3 layers: 512 against 49), staging the filter in
     * FP32 was the cost of the staged path (0.66-0.73x of FP32 at mb=1);
     * elsewhere the staged FP32 solver, bitwise the FP32 result, is kept. */
    if (p->ker[1] * p->ker[2] == 1 || p->k < osp)
        return false;
    return fdnn_tensor_is_packed(&p->x) && fdnn_tensor_is_packed(&p->w) && fdnn_tensor_is_packed(&p->y) &&
           p->n > 0 && p->c > 0 && p->k > 0 && osp > 0;
}

/* The blocking of one call: output positions per tile, and the scratch. */
typedef struct plan1 {
    int64_t k, c, osp, isp, nb;
    int64_t crs; /* rows of B: c times the filter's taps */
    bool gather; /* strided or larger than 1x1: each image's im2col (as half) first */
    size_t tile_bytes; /* K x nb floats, rounded to 64 */
    size_t gather_bytes;
    size_t gemm_bytes;
    size_t total;
} plan1_t;

static fdnn_sgemm_f16_args_t
gemm_args(const plan1_t *pl, size_t ncols)
{
    return (fdnn_sgemm_f16_args_t){.m = (size_t)pl->k, .n = ncols, .k = (size_t)pl->crs, .alpha = 1.0f,
                                   .lda = (size_t)pl->crs, .ldb = (size_t)pl->osp, .beta = 0.0f, .ldc = ncols};
}

static bool
plan1(const fdnn_conv_problem_t *p, fdnn_isa_t isa, plan1_t *pl)
{
    pl->k = p->k;
    pl->c = p->c;
    pl->osp = p->out[1] * p->out[2];
    pl->isp = p->in[1] * p->in[2];
    pl->crs = p->c * p->ker[1] * p->ker[2];
    pl->gather = p->stride[1] != 1 || p->stride[2] != 1 || pl->crs != pl->c;
    size_t l2 = fdnn_cpu_l2_bytes() > 0 ? fdnn_cpu_l2_bytes() : ((size_t)1 << 20);
    size_t budget = l2 / TILE_SHARE;
    double whole = (double)pl->k * (double)pl->osp * sizeof(float);
    if (whole <= (double)l2) {
        pl->nb = pl->osp;
    } else {
        int64_t parts = (int64_t)((whole + (double)budget - 1) / (double)budget);
        int64_t nb = (pl->osp + parts - 1) / parts;
        nb = (nb + 15) / 16 * 16;
        pl->nb = nb < pl->osp ? nb : pl->osp;
    }
    size_t b = 0;
    if (!fdnn_ckd_mul_size((size_t)pl->k, (size_t)pl->nb * sizeof(float), &b) || !fdnn_ckd_add_size(b, 63, &b))
        return false;
    pl->tile_bytes = b & ~(size_t)63;
    pl->gather_bytes = 0;
    if (pl->gather) {
        if (!fdnn_ckd_mul_size((size_t)pl->crs, (size_t)pl->osp * sizeof(uint16_t), &b) ||
            !fdnn_ckd_add_size(b, 63, &b))
            return false;
        pl->gather_bytes = b & ~(size_t)63;
    }
    fdnn_sgemm_f16_args_t a = gemm_args(pl, (size_t)pl->nb);
    pl->gemm_bytes = fdnn_sgemm_f16_scratch_size(&a, isa);
    int64_t tail = pl->osp % pl->nb;
    if (tail > 0) {
        a = gemm_args(pl, (size_t)tail);
        size_t t = fdnn_sgemm_f16_scratch_size(&a, isa);
        pl->gemm_bytes = t > pl->gemm_bytes ? t : pl->gemm_bytes;
    }
    pl->gemm_bytes = (pl->gemm_bytes + 63) & ~(size_t)63;
    return fdnn_ckd_add_size(pl->tile_bytes, pl->gather_bytes, &pl->total) &&
           fdnn_ckd_add_size(pl->total, pl->gemm_bytes, &pl->total);
}

/* The write of one block: the GEMM's FP32 sums (alpha 1, beta 0) blended
 * and rounded to half as conv_lowp.c's write pass does (the same epilogue
 * function), tile by tile from the GEMM's tile hook, while each tile is
 * still in the cache of the core that computed it. */
typedef struct write1 {
    fdnn_convert_row_fn to_half, to_float; /* chosen once per call */
    uint16_t *y;                           /* the block's first column in channel 0 */
    int64_t osp;
    float alpha, beta;
    const uint16_t *bias;
    bool relu;
} write1_t;

#define ROW_CHUNK 256

/* One row of a tile: len sums s to y. */
static void
write_row(const write1_t *w, const float *s, size_t k, uint16_t *y, size_t len_all)
{
    if (w->alpha == 1 && w->beta == 0 && w->bias == NULL && !w->relu) {
        w->to_half(s, y, len_all);
        return;
    }
    float b = 0;
    if (w->bias != NULL)
        w->to_float(&w->bias[k], &b, 1);
    const float *bp = w->bias != NULL ? &b : NULL;
    float old[ROW_CHUNK], v[ROW_CHUNK];
    for (size_t j0 = 0; j0 < len_all; j0 += ROW_CHUNK) {
        size_t len = len_all - j0 < ROW_CHUNK ? len_all - j0 : ROW_CHUNK;
        if (w->beta != 0)
            w->to_float(y + j0, old, len);
        for (size_t j = 0; j < len; j++)
            v[j] = fdnn_conv_epilogue_f32(s[j0 + j], w->alpha, w->beta, &old[j], bp, w->relu);
        w->to_half(v, y + j0, len);
    }
}

/* fdnn_sgemm_f16's tile hook: rows [row, row + rows) (output channels) and
 * columns [col, col + cols) (positions of the block) of the sums at c. */
static void
write_tile(void *ctx, float *c, size_t ldc, size_t row, size_t col, size_t rows, size_t cols)
{
    const write1_t *w = ctx;
    for (size_t r = 0; r < rows; r++)
        write_row(w, c + r * ldc, row + r, w->y + (int64_t)(row + r) * w->osp + (int64_t)col, cols);
}

/* The im2col of one image, as half: dst[(c*R + r)*S + s][o] is the input
 * element tap (r, s) of filter column c reads for output position o (the
 * kernel reversed in CONVOLUTION mode), +0 where that falls in the padding.
 * For a 1x1 filter the strided gather of the positions it reads. */
typedef struct gather1 {
    const uint16_t *x; /* one image */
    uint16_t *dst;
    int64_t ih, iw, oh, ow, sh, sw, ph, pw, dh, dw, r, s;
    bool flip;
} gather1_t;

static void
gather_row(void *ctx, size_t row)
{
    const gather1_t *g = ctx;
    int64_t c = (int64_t)row / (g->r * g->s), tap = (int64_t)row % (g->r * g->s);
    int64_t r = tap / g->s, s = tap % g->s;
    if (g->flip) {
        r = g->r - 1 - r;
        s = g->s - 1 - s;
    }
    const uint16_t *x = g->x + c * g->ih * g->iw;
    uint16_t *d = g->dst + (int64_t)row * g->oh * g->ow;
    int64_t off_w = s * g->dw - g->pw;
    /* output columns whose input column lies inside: lo <= ow < hi */
    int64_t lo = off_w >= 0 ? 0 : (-off_w + g->sw - 1) / g->sw;
    int64_t hi = g->iw - off_w <= 0 ? 0 : (g->iw - off_w - 1) / g->sw + 1;
    hi = hi < g->ow ? hi : g->ow;
    lo = lo < hi ? lo : hi;
    for (int64_t oh = 0; oh < g->oh; oh++, d += g->ow) {
        int64_t h = oh * g->sh - g->ph + r * g->dh;
        if (h < 0 || h >= g->ih) {
            memset(d, 0, (size_t)g->ow * sizeof(uint16_t));
            continue;
        }
        const uint16_t *xr = x + h * g->iw + off_w;
        memset(d, 0, (size_t)lo * sizeof(uint16_t));
        if (g->sw == 1)
            memcpy(d + lo, xr + lo, (size_t)(hi - lo) * sizeof(uint16_t));
        else
            for (int64_t o = lo; o < hi; o++)
                d[o] = xr[o * g->sw];
        memset(d + hi, 0, (size_t)(g->ow - hi) * sizeof(uint16_t));
    }
}

cudnnStatus_t
fdnn_conv_lowp_1x1_run(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    fdnn_isa_t isa = e->handle != NULL ? e->handle->isa : fdnn_cpu_max_isa();
    fdnn_pool_t pool = e->handle != NULL ? fdnn_handle_pool(e->handle) : NULL;
    plan1_t pl;
    if (!plan1(p, isa, &pl))
        return FDNN_NOT_SUPPORTED("the scratch of this HALF GEMM convolution overflows size_t");
    char *scratch = NULL, *own = NULL;
    if (e->workspace != NULL && e->workspace_bytes >= pl.total + 63)
        scratch = (char *)(((uintptr_t)e->workspace + 63) & ~(uintptr_t)63);
    else if (e->handle != NULL) {
        if ((scratch = fdnn_handle_stage(e->handle, pl.total)) == NULL)
            return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_stage */
    } else {
        if ((own = fdnn_aligned_alloc(pl.total)) == NULL)
            return FDNN_ALLOC_FAILED("cannot allocate the %zu bytes of scratch of a HALF GEMM convolution", pl.total);
        scratch = own;
    }
    float *tile = (float *)scratch;
    uint16_t *gathered = pl.gather ? (uint16_t *)(scratch + pl.tile_bytes) : NULL;
    void *gemm_scratch = scratch + pl.tile_bytes + pl.gather_bytes;
    const uint16_t *x = e->x_in, *w = e->w_in;
    uint16_t *y = e->out;
    fdnn_cvt_path_t path = fdnn_convert_row_path(isa);
    write1_t wr = {.to_half = fdnn_convert_row_kernel(path, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF),
                   .to_float = fdnn_convert_row_kernel(path, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT),
                   .osp = pl.osp,
                   .alpha = (float)e->alpha,
                   .beta = (float)e->beta,
                   .bias = e->bias,
                   .relu = e->relu};
    bool ok = true;
    for (int64_t n = 0; n < p->n && ok; n++) {
        const uint16_t *b = x + n * pl.c * pl.isp;
        if (pl.gather) {
            gather1_t g = {b,           gathered,    p->in[1],     p->in[2],  p->out[1], p->out[2], p->stride[1],
                           p->stride[2], p->pad[1],  p->pad[2],    p->dil[1], p->dil[2], p->ker[1], p->ker[2],
                           p->flip};
            bool big = (size_t)(pl.crs * pl.osp) > ((size_t)1 << 15);
            fdnn_parallelize_1d(big ? pool : NULL, gather_row, &g, (size_t)pl.crs, 0);
            b = gathered;
        }
        for (int64_t j0 = 0; j0 < pl.osp && ok; j0 += pl.nb) {
            size_t ncols = (size_t)(pl.osp - j0 < pl.nb ? pl.osp - j0 : pl.nb);
            fdnn_sgemm_f16_args_t a = gemm_args(&pl, ncols);
            a.a = w;
            a.b = b + j0;
            a.c = tile;
            wr.y = y + n * pl.k * pl.osp + j0;
            a.tile_hook = write_tile;
            a.tile_ctx = &wr;
            ok = fdnn_sgemm_f16(&a, pool, isa, gemm_scratch, pl.gemm_bytes);
        }
    }
    fdnn_aligned_free(own);
    if (!ok)
        return FDNN_ALLOC_FAILED("cannot allocate the packing buffers of a HALF GEMM convolution");
    return CUDNN_STATUS_SUCCESS;
}
