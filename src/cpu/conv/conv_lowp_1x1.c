/* SPDX-License-Identifier: Apache-2.0
 * PSEUDO_HALF forward 1x1 convolutions without FP32 staging.  See
 * conv_lowp.h (fdnn_conv_lowp_1x1_*). */
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

/* The blocking of one call: output positions per tile, and the scratch. */
typedef struct plan1 {
    int64_t k, c, osp, isp, nb;
    bool gather;       /* strided: each image's positions read are gathered (as half) first */
    size_t tile_bytes; /* K x nb floats, rounded to 64 */
    size_t gather_bytes;
    size_t gemm_bytes;
    size_t total;
} plan1_t;

static fdnn_sgemm_f16_args_t
gemm_args(const plan1_t *pl, size_t ncols)
{
    return (fdnn_sgemm_f16_args_t){.m = (size_t)pl->k, .n = ncols, .k = (size_t)pl->c, .alpha = 1.0f,
                                   .lda = (size_t)pl->c, .ldb = (size_t)pl->osp, .beta = 0.0f, .ldc = ncols};
}

static bool
plan1(const fdnn_conv_problem_t *p, fdnn_isa_t isa, plan1_t *pl)
{
    pl->k = p->k;
    pl->c = p->c;
    pl->osp = p->out[1] * p->out[2];
    pl->isp = p->in[1] * p->in[2];
    pl->gather = p->stride[1] != 1 || p->stride[2] != 1;
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
        if (!fdnn_ckd_mul_size((size_t)pl->c, (size_t)pl->osp * sizeof(uint16_t), &b) ||
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

/* The write pass of one tile: rows of K, each nb sums, blended and rounded
 * to half as conv_lowp.c's write pass does (the same epilogue function). */
typedef struct write1 {
    fdnn_isa_t isa;
    const float *tile;
    size_t ncols;
    uint16_t *y; /* the tile's first column in channel 0 */
    int64_t osp;
    float alpha, beta;
    const uint16_t *bias;
    bool relu;
} write1_t;

#define ROW_CHUNK 256

static void
write_rows(void *ctx, size_t k)
{
    const write1_t *w = ctx;
    const float *s = w->tile + k * w->ncols;
    uint16_t *y = w->y + (int64_t)k * w->osp;
    if (w->alpha == 1 && w->beta == 0 && w->bias == NULL && !w->relu) {
        fdnn_convert_row(w->isa, CUDNN_DATA_FLOAT, s, CUDNN_DATA_HALF, y, w->ncols);
        return;
    }
    float b = 0;
    if (w->bias != NULL)
        fdnn_convert_row(w->isa, CUDNN_DATA_HALF, &w->bias[k], CUDNN_DATA_FLOAT, &b, 1);
    const float *bp = w->bias != NULL ? &b : NULL;
    float old[ROW_CHUNK], v[ROW_CHUNK];
    for (size_t j0 = 0; j0 < w->ncols; j0 += ROW_CHUNK) {
        size_t len = w->ncols - j0 < ROW_CHUNK ? w->ncols - j0 : ROW_CHUNK;
        if (w->beta != 0)
            fdnn_convert_row(w->isa, CUDNN_DATA_HALF, y + j0, CUDNN_DATA_FLOAT, old, len);
        for (size_t j = 0; j < len; j++)
            v[j] = fdnn_conv_epilogue_f32(s[j0 + j], w->alpha, w->beta, &old[j], bp, w->relu);
        fdnn_convert_row(w->isa, CUDNN_DATA_FLOAT, v, CUDNN_DATA_HALF, y + j0, len);
    }
}

/* Gathers the positions a strided 1x1 filter reads, as half: dst[c][o] for
 * every channel c and output position o. */
typedef struct gather1 {
    const uint16_t *x; /* one image */
    uint16_t *dst;
    int64_t ih, iw, oh, ow, sh, sw;
} gather1_t;

static void
gather_channel(void *ctx, size_t c)
{
    const gather1_t *g = ctx;
    const uint16_t *x = g->x + (int64_t)c * g->ih * g->iw;
    uint16_t *d = g->dst + (int64_t)c * g->oh * g->ow;
    for (int64_t h = 0; h < g->oh; h++)
        for (int64_t w = 0; w < g->ow; w++)
            d[h * g->ow + w] = x[h * g->sh * g->iw + w * g->sw];
}

cudnnStatus_t
fdnn_conv_lowp_1x1_run(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    fdnn_isa_t isa = e->handle != NULL ? e->handle->isa : fdnn_cpu_max_isa();
    fdnn_pool_t pool = e->handle != NULL ? fdnn_handle_pool(e->handle) : NULL;
    plan1_t pl;
    if (!plan1(p, isa, &pl))
        return FDNN_NOT_SUPPORTED("the scratch of this HALF 1x1 convolution overflows size_t");
    char *scratch = NULL, *own = NULL;
    if (e->workspace != NULL && e->workspace_bytes >= pl.total + 63)
        scratch = (char *)(((uintptr_t)e->workspace + 63) & ~(uintptr_t)63);
    else if (e->handle != NULL) {
        if ((scratch = fdnn_handle_stage(e->handle, pl.total)) == NULL)
            return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_stage */
    } else {
        if ((own = fdnn_aligned_alloc(pl.total)) == NULL)
            return FDNN_ALLOC_FAILED("cannot allocate the %zu bytes of scratch of a HALF 1x1 convolution", pl.total);
        scratch = own;
    }
    float *tile = (float *)scratch;
    uint16_t *gathered = pl.gather ? (uint16_t *)(scratch + pl.tile_bytes) : NULL;
    void *gemm_scratch = scratch + pl.tile_bytes + pl.gather_bytes;
    const uint16_t *x = e->x_in, *w = e->w_in;
    uint16_t *y = e->out;
    bool ok = true;
    for (int64_t n = 0; n < p->n && ok; n++) {
        const uint16_t *b = x + n * pl.c * pl.isp;
        if (pl.gather) {
            gather1_t g = {b, gathered, p->in[1], p->in[2], p->out[1], p->out[2], p->stride[1], p->stride[2]};
            bool big = (size_t)(pl.c * pl.osp) > ((size_t)1 << 15);
            fdnn_parallelize_1d(big ? pool : NULL, gather_channel, &g, (size_t)pl.c, 0);
            b = gathered;
        }
        for (int64_t j0 = 0; j0 < pl.osp && ok; j0 += pl.nb) {
            size_t ncols = (size_t)(pl.osp - j0 < pl.nb ? pl.osp - j0 : pl.nb);
            fdnn_sgemm_f16_args_t a = gemm_args(&pl, ncols);
            a.a = w;
            a.b = b + j0;
            a.c = tile;
            ok = fdnn_sgemm_f16(&a, pool, isa, gemm_scratch, pl.gemm_bytes);
            write1_t wr = {isa,        tile,          ncols,         y + n * pl.k * pl.osp + j0, pl.osp, (float)e->alpha,
                           (float)e->beta, e->bias, e->relu};
            bool big = (size_t)pl.k * ncols > ((size_t)1 << 15);
            fdnn_parallelize_1d(big ? pool : NULL, write_rows, &wr, (size_t)pl.k, 0);
        }
    }
    fdnn_aligned_free(own);
    if (!ok)
        return FDNN_ALLOC_FAILED("cannot allocate the packing buffers of a HALF 1x1 convolution");
    return CUDNN_STATUS_SUCCESS;
}
