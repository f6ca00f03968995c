/* SPDX-License-Identifier: Apache-2.0
 * The channels-last implicit GEMM with the KRSC filter read in place (see
 * conv_gemm_nhwc_krsc.h for the contract). */
#include <stdint.h>
#include <string.h>

#include "core/conv_config.h"
#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/config/config.h"
#include "cpu/conv/conv_gemm_nhwc_krsc.h"
#include "cpu/gemm/gemm.h"
#include "cpu/kernels/transpose_ptrs.h"

/* Unpadded 1x1 filters over more output positions (over the batch) than
 * this are declined: the batch 1x1 GEMMs (conv_gemm_nhwc.h, listed next)
 * read x in place and pack W^T; under it the filter is the far larger
 * operand and reading it in place wins.  1-thread CPU time, min of 3
 * alternated runs, batch 1x1 GEMM / this solver (ms, 2026-12-06,
 * bench/results/2026-12-06-nhwcinf/res5_1x1_ab.txt): 49 positions (res5
 * at mb=1) 512 -> 2048: 0.64 / 0.54, 1024 -> 2048 stride 2: 1.40 / 1.06,
 * 2048 -> 512: 0.64 / 0.51; 98 (mb=2): 1.04 / 1.07, 2.13 / 1.99,
 * 1.00 / 1.03; 196 (res4 at mb=1) 256 -> 1024: 0.48 / 0.54,
 * 1024 -> 256: 0.51 / 0.52, 1024 -> 512: 0.94 / 0.99. */
#define MAX_1X1_POSITIONS 64
/* The fewest positions of a panel (one transpose block). */
#define MIN_PANEL 16
/* Larger im2col panels than this many floats are refused (no size_t
 * overflow; a real filter row is far shorter). */
#define MAX_COL_FLOATS ((double)(1ull << 40))

static const float zeros[16];

/* (conv_gemm_nhwc_krsc.h) */
bool
fdnn_conv_krsc_rows(const fdnn_conv_problem_t *p, size_t *lda)
{
    const fdnn_tensor_t *w = &p->w;
    int64_t cg = fdnn_conv_cg(p), crs = cg * fdnn_conv_taps(p);
    if ((cg > 1 && w->strides[1] != 1) || (p->ker[2] > 1 && w->strides[4] != cg) ||
        (p->ker[1] > 1 && w->strides[3] != p->ker[2] * cg) ||
        (p->ker[0] > 1 && w->strides[2] != p->ker[1] * p->ker[2] * cg))
        return false;
    int64_t s = p->k > 1 ? w->strides[0] : crs;
    if (s < crs)
        return false;
    *lda = (size_t)s;
    return true;
}

/* (conv_gemm_nhwc_krsc.h) */
cudnnStatus_t
fdnn_conv_krsc_operands(const fdnn_conv_problem_t *p, fdnn_conv_dir_t dir, const char *who, size_t *lda)
{
    if (p->dir != dir || p->dtype != CUDNN_DATA_FLOAT || fdnn_conv_config_is_integer(p->config))
        return FDNN_NOT_SUPPORTED("the %s runs FLOAT %s only", who,
                                  dir == FDNN_CONV_FWD         ? "forward convolutions"
                                  : dir == FDNN_CONV_BWD_DATA ? "backward data"
                                                              : "backward filter");
    if (!fdnn_conv_channels_dense(&p->x) || !fdnn_conv_channels_dense(&p->y))
        return FDNN_NOT_SUPPORTED("the %s needs x and y channels-last (channel stride 1)", who);
    if (!fdnn_conv_krsc_rows(p, lda))
        return FDNN_NOT_SUPPORTED("the %s needs a packed KRSC (NHWC) filter", who);
    if (fdnn_conv_cg(p) < FDNN_CONV_KRSC_MIN_CHANNELS)
        return FDNN_NOT_SUPPORTED("the %s needs %d or more input channels per group, not %lld", who,
                                  FDNN_CONV_KRSC_MIN_CHANNELS, (long long)fdnn_conv_cg(p));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_krsc_applicable(const fdnn_conv_problem_t *p)
{
    size_t lda;
    RETURN_IF_ERROR(fdnn_conv_krsc_operands(p, FDNN_CONV_FWD, "channels-last implicit GEMM", &lda));
    double positions = (double)p->n * (double)fdnn_conv_out_spatial(p);
    if (fdnn_conv_taps(p) == 1 && p->pad[0] == 0 && p->pad[1] == 0 && p->pad[2] == 0 &&
        positions > MAX_1X1_POSITIONS)
        return FDNN_NOT_SUPPORTED("the channels-last implicit GEMM takes unpadded 1x1 filters over at most %d "
                                  "output positions, not %.0f (the batch 1x1 GEMMs take the others)",
                                  MAX_1X1_POSITIONS, positions);
    if ((double)fdnn_conv_cg(p) * (double)fdnn_conv_taps(p) * MIN_PANEL > MAX_COL_FLOATS)
        return FDNN_NOT_SUPPORTED("the channels-last implicit GEMM: filter rows of %lld values are too long",
                                  (long long)(fdnn_conv_cg(p) * fdnn_conv_taps(p)));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_krsc_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    (void)p;
    *bytes = 0; /* col, C and the GEMM core's packing live in the handle's scratch */
    return CUDNN_STATUS_SUCCESS;
}

typedef struct plan {
    const fdnn_conv_problem_t *p;
    int64_t cg, kg, taps, crs, osp, np; /* np: positions over the batch */
    size_t lda;
    int64_t panel; /* positions per panel (the last may be shorter) */
    fdnn_f32_transpose_ptrs_fn transpose;
} plan_t;

/* Positions per panel: col and C (crs + Kg floats per position) at most
 * about the L2 size (C bounded too: a padded 1x1 layer of few input and
 * many output channels would otherwise take a C of hundreds of MB); whole
 * images where one fits (several when they are small), else
 * runs of positions, a multiple of 49 dividing the image where there is
 * one (the GEMM core's 6x49 tile then reads the filter rows in place with
 * no idle lanes), else a multiple of 16. */
static int64_t
panel_positions(const plan_t *pl)
{
    double fit = (double)fdnn_cpu_l2_bytes() / ((double)(pl->crs + pl->kg) * sizeof(float));
    int64_t t = fit < MIN_PANEL ? MIN_PANEL : fit > (double)pl->np ? pl->np : (int64_t)fit;
    if (t >= pl->osp) {
        int64_t images = t / pl->osp;
        return images * pl->osp < pl->np ? images * pl->osp : pl->np;
    }
    if (pl->osp % 49 == 0) {
        int64_t best = 0;
        for (int64_t d = 49; d <= t; d += 49)
            if (pl->osp % d == 0)
                best = d;
        if (best > 0)
            return best;
    }
    return t < MIN_PANEL ? MIN_PANEL : t - t % MIN_PANEL;
}

/* Output position pos (over the batch) of p as its image n and its
 * coordinates od, oh, ow. */
static inline void
position(const fdnn_conv_problem_t *p, int64_t pos, int64_t *n, int64_t *od, int64_t *oh, int64_t *ow)
{
    int64_t osp = p->out[0] * p->out[1] * p->out[2];
    int64_t r = pos % osp;
    *n = pos / osp;
    *ow = r % p->out[2];
    *oh = r / p->out[2] % p->out[1];
    *od = r / (p->out[2] * p->out[1]);
}

/* The im2col of one panel and group: task = q * blocks + b writes rows
 * (q, 0 .. Cg) of col for positions [16b, 16b + 16) of the panel. */
typedef struct col_ctx {
    const plan_t *pl;
    const float *x;
    float *col;
    int64_t p0, tw, g, blocks;
} col_ctx_t;

static void
im2col_task(void *arg, size_t task)
{
    const col_ctx_t *c = arg;
    const plan_t *pl = c->pl;
    const fdnn_conv_problem_t *p = pl->p;
    int64_t q = (int64_t)task / c->blocks, j0 = (int64_t)task % c->blocks * 16;
    size_t ni = (size_t)(c->tw - j0 < 16 ? c->tw - j0 : 16);
    /* The formula's tap of stored tap q (reversed for CONVOLUTION mode). */
    int64_t qw = q % p->ker[2], qh = q / p->ker[2] % p->ker[1], qd = q / (p->ker[2] * p->ker[1]);
    if (p->flip) {
        qd = p->ker[0] - 1 - qd;
        qh = p->ker[1] - 1 - qh;
        qw = p->ker[2] - 1 - qw;
    }
    const float *px[16];
    bool real[16];
    for (size_t i = 0; i < ni; i++) {
        int64_t n, od, oh, ow;
        position(p, c->p0 + j0 + (int64_t)i, &n, &od, &oh, &ow);
        int64_t id = od * p->stride[0] - p->pad[0] + qd * p->dil[0];
        int64_t ih = oh * p->stride[1] - p->pad[1] + qh * p->dil[1];
        int64_t iw = ow * p->stride[2] - p->pad[2] + qw * p->dil[2];
        real[i] = id >= 0 && id < p->in[0] && ih >= 0 && ih < p->in[1] && iw >= 0 && iw < p->in[2];
        px[i] = real[i] ? c->x + fdnn_conv_off5(&p->x, n, c->g * pl->cg, id, ih, iw) : zeros;
    }
    const float *src[16];
    float *dst[16];
    float *rows = c->col + q * pl->cg * c->tw + j0;
    for (int64_t c0 = 0; c0 < pl->cg; c0 += 16) {
        size_t nj = (size_t)(pl->cg - c0 < 16 ? pl->cg - c0 : 16);
        for (size_t i = 0; i < ni; i++)
            src[i] = real[i] ? px[i] + c0 : zeros;
        for (size_t j = 0; j < nj; j++)
            dst[j] = rows + (c0 + (int64_t)j) * c->tw;
        pl->transpose(ni, nj, src, dst);
    }
}

/* The GEMM's tile hook: tile rows are output channels of the group, its
 * columns positions of the panel; into y's pixels, transposed.  raw: the
 * GEMM applied the whole epilogue (beta 0); else C holds the plain sums. */
typedef struct out_ctx {
    const plan_t *pl;
    const fdnn_conv_exec_t *e;
    int64_t p0, g;
    bool raw;
} out_ctx_t;

static void
store_tile(void *arg, float *c, size_t ldc, size_t row, size_t col, size_t rows, size_t cols)
{
    const out_ctx_t *o = arg;
    const plan_t *pl = o->pl;
    const fdnn_conv_problem_t *p = pl->p;
    const fdnn_conv_exec_t *e = o->e;
    float *y = (float *)e->out;
    int64_t k0 = o->g * pl->kg + (int64_t)row;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    const float *bias = e->bias != NULL ? (const float *)e->bias + k0 : NULL;
    for (size_t j0 = 0; j0 < cols; j0 += 16) {
        size_t nj = cols - j0 < 16 ? cols - j0 : 16;
        float *py[16];
        for (size_t j = 0; j < nj; j++) {
            int64_t n, od, oh, ow;
            position(p, o->p0 + (int64_t)(col + j0 + j), &n, &od, &oh, &ow);
            py[j] = y + fdnn_conv_off5(&p->y, n, k0, od, oh, ow);
        }
        if (!o->raw) {
            for (size_t j = 0; j < nj; j++)
                for (size_t i = 0; i < rows; i++)
                    py[j][i] = fdnn_conv_epilogue_f32(c[i * ldc + j0 + j], alpha, beta, py[j] + i,
                                                      bias != NULL ? bias + i : NULL, e->relu);
            continue;
        }
        const float *src[16];
        float *dst[16];
        for (size_t i0 = 0; i0 < rows; i0 += 16) {
            size_t ni = rows - i0 < 16 ? rows - i0 : 16;
            for (size_t i = 0; i < ni; i++)
                src[i] = c + (i0 + i) * ldc + j0;
            for (size_t j = 0; j < nj; j++)
                dst[j] = py[j] + i0;
            pl->transpose(ni, nj, src, dst);
        }
    }
}

/* The GEMM of panel (p0, tw) and group g (col built, C of tw columns). */
static fdnn_sgemm_args_t
panel_args(const plan_t *pl, const fdnn_conv_exec_t *e, int64_t tw, int64_t g, const float *col, float *tmp,
           bool raw)
{
    fdnn_sgemm_args_t a = {
        .m = (size_t)pl->kg,
        .n = (size_t)tw,
        .k = (size_t)pl->crs,
        .alpha = raw ? (float)e->alpha : 1.0f,
        .a = (const float *)e->w_in + (size_t)(g * pl->kg) * pl->lda,
        .lda = pl->lda,
        .b = col,
        .ldb = (size_t)tw,
        .beta = 0.0f,
        .c = tmp,
        .ldc = (size_t)tw,
        .bias_row = raw && e->bias != NULL ? (const float *)e->bias + g * pl->kg : NULL,
        .act = raw && e->relu ? FDNN_GEMM_ACT_RELU : FDNN_GEMM_ACT_NONE,
    };
    return a;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_krsc_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    RETURN_IF_ERROR(fdnn_conv_gemm_nhwc_krsc_applicable(p));
    plan_t pl = {.p = p};
    pl.cg = fdnn_conv_cg(p);
    pl.kg = fdnn_conv_kg(p);
    pl.taps = fdnn_conv_taps(p);
    pl.crs = pl.cg * pl.taps;
    pl.osp = fdnn_conv_out_spatial(p);
    pl.np = p->n * pl.osp;
    fdnn_conv_krsc_rows(p, &pl.lda);
    pl.panel = panel_positions(&pl);
    fdnn_isa_t isa = e->handle->isa;
    pl.transpose = fdnn_isa_config(isa)->conv_gemm.transpose_ptrs;
    if (pl.np == 0 || pl.kg == 0)
        return CUDNN_STATUS_SUCCESS;

    bool raw = e->beta == 0;
    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    size_t col_bytes = fdnn_align_up((size_t)(pl.crs * pl.panel) * sizeof(float));
    size_t tmp_bytes = fdnn_align_up((size_t)(pl.kg * pl.panel) * sizeof(float));
    /* The GEMM core's scratch for the widths the panels have (a full one
     * and the last). */
    size_t gemm_bytes = 0;
    int64_t widths[2] = {pl.panel, pl.np % pl.panel};
    for (int i = 0; i < 2; i++) {
        if (widths[i] == 0)
            continue;
        fdnn_sgemm_args_t a = panel_args(&pl, e, widths[i], 0, NULL, NULL, raw);
        a.alpha = 1; /* (alpha 0 needs none; the size for 1 covers it) */
        size_t s = fdnn_sgemm_scratch_size(&a, threads, isa);
        gemm_bytes = s > gemm_bytes ? s : gemm_bytes;
    }
    gemm_bytes = fdnn_align_up(gemm_bytes);
    char *base = fdnn_handle_scratch(e->handle, col_bytes + tmp_bytes + gemm_bytes);
    if (base == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    float *col = (float *)base, *tmp = (float *)(base + col_bytes);
    void *gemm_scratch = gemm_bytes > 0 ? base + col_bytes + tmp_bytes : NULL;

    for (int64_t p0 = 0; p0 < pl.np; p0 += pl.panel) {
        int64_t tw = pl.np - p0 < pl.panel ? pl.np - p0 : pl.panel;
        for (int64_t g = 0; g < p->g; g++) {
            col_ctx_t cc = {&pl, e->x_in, col, p0, tw, g, (tw + 15) / 16};
            fdnn_parallelize_1d(e->pool, im2col_task, &cc, (size_t)(pl.taps * cc.blocks), 0);
            out_ctx_t oc = {&pl, e, p0, g, raw};
            fdnn_sgemm_args_t a = panel_args(&pl, e, tw, g, col, tmp, raw);
            a.tile_hook = store_tile;
            a.tile_ctx = &oc;
            if (!fdnn_sgemm(&a, e->pool, isa, gemm_scratch, gemm_bytes))
                return FDNN_ALLOC_FAILED("the GEMM core could not allocate its buffers");
        }
    }
    return CUDNN_STATUS_SUCCESS;
}
