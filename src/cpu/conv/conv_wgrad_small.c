/* SPDX-License-Identifier: Apache-2.0
 * Backward filter with few input channels per group (conv_wgrad_small.h):
 * geometry, the slabs' GEMMs, the ordered sum into dw. */
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/pool.h"
#include "cpu/config/config.h"
#include "cpu/conv/conv_wgrad_small.h"

/* Positions per block: whole output rows up to this many (one row when a
 * row is longer).  A block's A rows (CRS x kc floats: 147 x 448 for the
 * ResNet stem, 257 KiB) stay in L2 while B streams through L1. */
#define BLOCK_POSITIONS 512
/* Slabs (partial sums) per call: one per (group, image) from this many
 * images on; fewer images are cut into bands of rows to reach it. */
#define MIN_SLABS 8
/* Bounds: CRS rows of A and K columns of B (T's partials: CRS x K floats
 * per slab). */
#define MAX_CRS 256
#define MAX_KG 256
/* Fewest output channels per group: below, B's strips are mostly zero
 * padding (depthwise filters, Kg = 1, are the direct solver's). */
#define MIN_KG 8
/* Longest output row: a block holds at least one, and a lane's buffers
 * (dy's strips, x's phases) grow with it. */
#define MAX_OW 4096
/* Most bytes of the slabs' partials (one CRS x Kg matrix per group and
 * image, Kg counted up to 64 for any level's strips). */
#define MAX_PARTIAL_BYTES (64.0 * 1024 * 1024)

typedef struct geom {
    int64_t cg, kg, crs, kpad; /* kpad: Kg up to whole strips of the tile */
    int64_t oh, ow, brows;     /* output rows per block */
    int64_t bands, slabs;      /* bands (of blocks) per image; slabs = g * n * bands */
    int64_t kc;                /* most positions per block: brows * ow */
    int64_t jw, xrows;         /* phase rows: length, and x rows per block */
    int64_t arows;             /* A's rows allocated: crs up to whole mr panels */
    /* the implicit-GEMM tile of the level (aptrs reads A's rows from the
     * phases; without it, A is copied and packed for ukernel) */
    fdnn_f32_gemm_ukernel_fn ukernel;
    fdnn_f32_gemm_aptrs_ukernel_fn aptrs;
    fdnn_f32_pack_t_fn pack_t;
    int64_t mr, nr;
    bool b_in_place;           /* dy read in place as B (channels-last, uniform, Kg % nr == 0) */
    size_t t_floats;           /* one partial: crs x kpad */
    size_t lane_floats;        /* one lane's buffers (lane_*_floats) */
} geom_t;

/* Whether dy's positions of one image are one uniform run (row stride =
 * OW x column stride). */
static bool
dy_uniform(const fdnn_conv_problem_t *p)
{
    return p->out[1] == 1 || p->y.strides[3] == p->out[2] * p->y.strides[4];
}

cudnnStatus_t
fdnn_conv_wgrad_small_applicable(const fdnn_conv_problem_t *p)
{
    if (p->dir != FDNN_CONV_BWD_FILTER || p->dtype != CUDNN_DATA_FLOAT || fdnn_conv_config_is_integer(p->config))
        return FDNN_NOT_SUPPORTED("small-C backward filter: FP32 backward filter only");
    if (p->in[0] != 1 || p->ker[0] != 1 || p->out[0] != 1)
        return FDNN_NOT_SUPPORTED("small-C backward filter: 2-D problems only");
    int64_t cg = fdnn_conv_cg(p), kg = fdnn_conv_kg(p);
    if (cg > FDNN_WGRAD_SMALL_MAX_CG)
        return FDNN_NOT_SUPPORTED("small-C backward filter: %lld input channels per group, at most %d",
                                  (long long)cg, FDNN_WGRAD_SMALL_MAX_CG);
    if (fdnn_conv_taps(p) == 1)
        return FDNN_NOT_SUPPORTED("small-C backward filter: 1x1 filters run on the GEMM engine");
    /* NCHW dy is transposed into B here as in the GEMM engine's wide path,
     * which also reads x's phases without a copy per block: 1.1x faster
     * there on MobileNet v2's stem, even on ResNet's (docs/performance.md,
     * "Stem backward filter"). */
    if (p->y.strides[1] != 1 || !dy_uniform(p))
        return FDNN_NOT_SUPPORTED("small-C backward filter: dy not channels-last with uniform positions");
    if (p->out[2] > MAX_OW)
        return FDNN_NOT_SUPPORTED("small-C backward filter: output rows of %lld positions, at most %d",
                                  (long long)p->out[2], MAX_OW);
    if (cg * fdnn_conv_taps(p) > MAX_CRS || kg > MAX_KG || kg < MIN_KG)
        return FDNN_NOT_SUPPORTED("small-C backward filter: CRS %lld over %d, or Kg %lld outside [%d, %d]",
                                  (long long)(cg * fdnn_conv_taps(p)), MAX_CRS, (long long)kg, MIN_KG, MAX_KG);
    double partials = (double)p->g * (double)p->n * (double)(p->n >= MIN_SLABS ? 1 : MIN_SLABS) *
                      (double)(cg * fdnn_conv_taps(p)) * (double)((kg + 63) / 64 * 64) * sizeof(float);
    if (partials > MAX_PARTIAL_BYTES)
        return FDNN_NOT_SUPPORTED("small-C backward filter: partial sums of %.0f bytes over %.0f", partials,
                                  MAX_PARTIAL_BYTES);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_wgrad_small_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    (void)p;
    *bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

/* One lane's buffers, in floats (each a multiple of 64 bytes): A
 * ([arows][kc]) and its packed panels (none with an aptrs kernel), B's
 * packed strips (none when dy is read in place), and the block's x rows
 * split into stride phases. */
static size_t
floats_up(int64_t n)
{
    return fdnn_align_up((size_t)n * sizeof(float)) / sizeof(float);
}

static size_t
lane_a_floats(const geom_t *gm)
{
    return gm->aptrs != NULL ? 0 : 2 * floats_up(gm->arows * gm->kc); /* A, then its panels */
}

static size_t
lane_b_floats(const geom_t *gm)
{
    return gm->b_in_place ? 0 : floats_up(gm->kpad * gm->kc);
}

static size_t
lane_p_floats(const fdnn_conv_problem_t *p, const geom_t *gm)
{
    return floats_up(gm->cg * gm->xrows * p->stride[2] * gm->jw) + floats_up(p->stride[2] * gm->jw);
}

static void
make_geom(const fdnn_conv_problem_t *p, fdnn_isa_t isa, geom_t *gm)
{
    memset(gm, 0, sizeof(*gm));
    gm->cg = fdnn_conv_cg(p);
    gm->kg = fdnn_conv_kg(p);
    gm->crs = gm->cg * fdnn_conv_taps(p);
    gm->oh = p->out[1];
    gm->ow = p->out[2];
    gm->brows = gm->ow >= BLOCK_POSITIONS ? 1 : BLOCK_POSITIONS / gm->ow;
    gm->brows = gm->brows > gm->oh ? gm->oh : gm->brows;
    gm->kc = gm->brows * gm->ow;
    int64_t blocks = (gm->oh + gm->brows - 1) / gm->brows;
    int64_t want = p->n >= MIN_SLABS ? 1 : (MIN_SLABS + p->n - 1) / p->n;
    gm->bands = want < blocks ? want : blocks;
    gm->slabs = p->g * p->n * gm->bands;
    const fdnn_isa_config_t *level = fdnn_isa_config(isa);
    gm->ukernel = level->conv_gemm.ukernel;
    gm->aptrs = level->conv_gemm.aptrs;
    gm->pack_t = level->conv_gemm.pack_t;
    int64_t nr = gm->nr = (int64_t)level->conv_gemm.nr, mr = gm->mr = (int64_t)level->conv_gemm.mr;
    gm->kpad = (gm->kg + nr - 1) / nr * nr;
    gm->arows = (gm->crs + mr - 1) / mr * mr;
    gm->b_in_place = p->y.strides[1] == 1 && dy_uniform(p) && gm->kpad == gm->kg;
    gm->t_floats = (size_t)(gm->crs * gm->kpad);
    gm->jw = gm->ow + (p->ker[2] - 1) * p->dil[2] / p->stride[2];
    gm->xrows = (gm->brows - 1) * p->stride[1] + (p->ker[1] - 1) * p->dil[1] + 1;
    gm->lane_floats = lane_a_floats(gm) + lane_b_floats(gm) + lane_p_floats(p, gm);
}

typedef struct ctx {
    const fdnn_conv_exec_t *e;
    const fdnn_conv_problem_t *p;
    geom_t gm;
    float *t;     /* slabs partials of t_floats */
    float *lanes; /* per lane: lane_floats */
    size_t nlanes;
} ctx_t;

/* The x rows that output rows [oh0, oh1) of image n, group g read,
 * split into stride phases along W with the padding as zeros:
 * ph[(c * xrows + xr) * sw + a][j] = x[c][ih0 + xr][j * sw + a - pad]
 * (ih0 = oh0 * sh - pad_h; rows outside the image are zeros); `row` holds the padded row on the way (jw * sw
 * floats).  Tap s of output column ow is then phase
 * (s * dw) % sw at j = ow + (s * dw) / sw: every A row is a copy of a
 * run of one phase row. */
static void
fill_phases(const ctx_t *cx, int64_t g, int64_t n, int64_t oh0, int64_t oh1, float *ph, float *row)
{
    const fdnn_conv_problem_t *p = cx->p;
    const geom_t *gm = &cx->gm;
    const int64_t *xs = p->x.strides;
    int64_t sw = p->stride[2], W = p->in[2], pw = p->pad[2], jw = gm->jw, len = jw * sw;
    int64_t ih0 = oh0 * p->stride[1] - p->pad[1];
    int64_t xrows = (oh1 - 1 - oh0) * p->stride[1] + (p->ker[1] - 1) * p->dil[1] + 1;
    /* the padded row's columns q = iw + pw in [lo, hi) are inside x */
    int64_t lo = pw < len ? pw : len, hi = W + pw < len ? W + pw : len;
    for (int64_t c = 0; c < gm->cg; c++)
        for (int64_t xr = 0; xr < xrows; xr++) {
            int64_t ih = ih0 + xr;
            float *dst = ph + (c * gm->xrows + xr) * sw * jw;
            if (ih < 0 || ih >= p->in[1]) {
                memset(dst, 0, sizeof(float) * (size_t)len);
                continue;
            }
            const float *src = (const float *)cx->e->x_in + n * xs[0] + (g * gm->cg + c) * xs[1] + ih * xs[3];
            /* the padded row (in place of phase 0 with stride 1), then its
             * phases */
            float *r = sw == 1 ? dst : row;
            memset(r, 0, sizeof(float) * (size_t)lo);
            if (xs[4] == 1)
                memcpy(r + lo, src, sizeof(float) * (size_t)(hi - lo));
            else
                for (int64_t q = lo; q < hi; q++)
                    r[q] = src[(q - pw) * xs[4]];
            memset(r + hi, 0, sizeof(float) * (size_t)(len - hi));
            if (sw == 2) {
                float *d0 = dst, *d1 = dst + jw;
                for (int64_t j = 0; j < jw; j++) {
                    d0[j] = r[2 * j];
                    d1[j] = r[2 * j + 1];
                }
            } else if (sw > 2) {
                for (int64_t a = 0; a < sw; a++)
                    for (int64_t j = 0; j < jw; j++)
                        dst[a * jw + j] = r[j * sw + a];
            }
        }
}

/* A's rows for output rows [oh0, oh1) (the block's phases in ph): row
 * (c, r, s) holds x at the tap (r, s) of each position, zero in the
 * padding; rows lda apart, rows past CRS up to whole panels zero. */
static void
fill_a(const ctx_t *cx, int64_t oh0, int64_t oh1, const float *ph, float *a, int64_t lda)
{
    const fdnn_conv_problem_t *p = cx->p;
    const geom_t *gm = &cx->gm;
    int64_t R = p->ker[1], S = p->ker[2], OW = gm->ow, sw = p->stride[2];
    for (int64_t c = 0; c < gm->cg; c++)
        for (int64_t r = 0; r < R; r++)
            for (int64_t s = 0; s < S; s++) {
                float *dst = a + ((c * R + r) * S + s) * lda;
                int64_t as = s * p->dil[2] % sw, js = s * p->dil[2] / sw;
                for (int64_t oh = oh0; oh < oh1; oh++, dst += OW) {
                    int64_t xr = (oh - oh0) * p->stride[1] + r * p->dil[1];
                    int64_t ih = oh0 * p->stride[1] - p->pad[1] + xr;
                    if (ih < 0 || ih >= p->in[1])
                        memset(dst, 0, sizeof(float) * (size_t)OW);
                    else
                        memcpy(dst, ph + ((c * gm->xrows + xr) * sw + as) * gm->jw + js, sizeof(float) * (size_t)OW);
                }
            }
    for (int64_t i = gm->crs; i < gm->arows; i++) /* the last panel's rows past CRS */
        memset(a + i * lda, 0, sizeof(float) * (size_t)((oh1 - oh0) * OW));
}

/* dy's block (image n, group g, output rows [oh0, oh1), kc positions) as
 * the kernel's packed B strips: strip st holds channels [st * nr, st * nr
 * + nr) as [kc][nr], zero past Kg.  Positions contiguous in dy (NCHW):
 * the level's transposing pack; otherwise element by element. */
static void
fill_b(const ctx_t *cx, int64_t g, int64_t n, int64_t oh0, int64_t oh1, float *b)
{
    const fdnn_conv_problem_t *p = cx->p;
    const geom_t *gm = &cx->gm;
    const int64_t *ys = p->y.strides;
    int64_t OW = gm->ow, nr = gm->nr, kc = (oh1 - oh0) * OW;
    const float *dy = (const float *)cx->e->y_in + n * ys[0] + g * gm->kg * ys[1] + oh0 * ys[3];
    bool runs = ys[4] == 1 && dy_uniform(p) && gm->pack_t != NULL;
    for (int64_t j0 = 0; j0 < gm->kg; j0 += nr) {
        int64_t cols = gm->kg - j0 < nr ? gm->kg - j0 : nr;
        float *dst = b + j0 * kc;
        if (runs) {
            gm->pack_t((size_t)cols, (size_t)kc, dy + j0 * ys[1], (size_t)ys[1], dst, (size_t)nr);
            continue;
        }
        for (int64_t q = 0; q < kc; q++) {
            const float *src = dy + (j0)*ys[1] + (q / OW) * ys[3] + (q % OW) * ys[4];
            float *d = dst + q * nr;
            for (int64_t k = 0; k < cols; k++)
                d[k] = src[k * ys[1]];
            for (int64_t k = cols; k < nr; k++)
                d[k] = 0;
        }
    }
}

/* Slab sl: its blocks' products summed into its partial T. */
static void
run_slab(const ctx_t *cx, float *lane, int64_t sl)
{
    const fdnn_conv_problem_t *p = cx->p;
    const geom_t *gm = &cx->gm;
    int64_t band = sl % gm->bands, n = sl / gm->bands % p->n, g = sl / gm->bands / p->n;
    int64_t blocks = (gm->oh + gm->brows - 1) / gm->brows;
    int64_t b0 = blocks * band / gm->bands, b1 = blocks * (band + 1) / gm->bands;
    float *t = cx->t + (size_t)sl * gm->t_floats;
    float *a = lane, *apack = a + lane_a_floats(gm) / 2, *b = a + lane_a_floats(gm), *ph = b + lane_b_floats(gm);
    float *row = ph + lane_p_floats(p, gm) - floats_up(p->stride[2] * gm->jw);
    size_t mr = (size_t)gm->mr, nr = (size_t)gm->nr;
    int64_t R = p->ker[1], S = p->ker[2], sw = p->stride[2];
    /* aptrs: output row j of the block starts runs[j] after row 0 in every
     * phase row (sh x rows further) */
    size_t runs[BLOCK_POSITIONS];
    for (int64_t j = 0; j < gm->brows; j++)
        runs[j] = (size_t)(j * p->stride[1] * sw * gm->jw);
    for (int64_t blk = b0; blk < b1; blk++) {
        int64_t oh0 = blk * gm->brows, oh1 = oh0 + gm->brows < gm->oh ? oh0 + gm->brows : gm->oh;
        size_t kc = (size_t)((oh1 - oh0) * gm->ow);
        fill_phases(cx, g, n, oh0, oh1, ph, row);
        if (gm->aptrs == NULL) { /* A copied, then the kernel's packed panels: a[p * mr + i] */
            fill_a(cx, oh0, oh1, ph, a, (int64_t)kc);
            for (size_t i0 = 0; i0 < (size_t)gm->arows; i0 += mr)
                for (size_t q = 0; q < kc; q++)
                    for (size_t i = 0; i < mr; i++)
                        apack[i0 * kc + q * mr + i] = a[(i0 + i) * kc + q];
        }
        if (!gm->b_in_place)
            fill_b(cx, g, n, oh0, oh1, b);
        fdnn_f32_gemm_epilogue_t ep = {1.0f, blk == b0 ? 0.0f : 1.0f, NULL, NULL, false, false};
        for (size_t j0 = 0; j0 < (size_t)gm->kg; j0 += nr) {
            /* B: dy's rows in place (all nr columns real), or strip j0 / nr */
            size_t cols = (size_t)gm->kg - j0 < nr ? (size_t)gm->kg - j0 : nr;
            const float *bs = gm->b_in_place ? (const float *)cx->e->y_in + n * p->y.strides[0] +
                                                   (g * gm->kg + (int64_t)j0) * p->y.strides[1] + oh0 * p->y.strides[3]
                                             : b + j0 * kc;
            size_t ldb = gm->b_in_place ? (size_t)p->y.strides[4] : nr;
            for (size_t i0 = 0; i0 < (size_t)gm->crs; i0 += mr) {
                size_t m = (size_t)gm->crs - i0 < mr ? (size_t)gm->crs - i0 : mr;
                float *c = t + i0 * (size_t)gm->kpad + j0;
                if (gm->aptrs == NULL) {
                    gm->ukernel(m, cols, kc, apack + i0 * kc, bs, ldb, c, (size_t)gm->kpad, &ep);
                    continue;
                }
                /* row (ch, r, s) of A: phase (s * dw) % sw of x row r * dh, from column (s * dw) / sw */
                const float *ptrs[64];
                for (size_t i = 0; i < m; i++) {
                    int64_t q = (int64_t)(i0 + i), ch = q / (R * S), r = q / S % R, s = q % S;
                    ptrs[i] = ph + ((ch * gm->xrows + r * p->dil[1]) * sw + s * p->dil[2] % sw) * gm->jw +
                              s * p->dil[2] / sw;
                }
                gm->aptrs(m, cols, kc, ptrs, runs, (size_t)gm->ow, bs, ldb, c, (size_t)gm->kpad, &ep);
            }
        }
    }
}

/* Lane l: slabs l, l + lanes, ... (each slab's sum is the same whichever
 * lane runs it). */
static void
lane_task(void *arg, size_t l)
{
    const ctx_t *cx = arg;
    float *lane = cx->lanes + l * cx->gm.lane_floats;
    for (int64_t sl = (int64_t)l; sl < cx->gm.slabs; sl += (int64_t)cx->nlanes)
        run_slab(cx, lane, sl);
}

/* dw row k of every group: the slabs' partials added in slab order, then
 * alpha and beta (CONVOLUTION mode stores the taps reversed). */
static void
store_row(void *arg, size_t item)
{
    const ctx_t *cx = arg;
    const fdnn_conv_problem_t *p = cx->p;
    const geom_t *gm = &cx->gm;
    int64_t g = (int64_t)item / gm->kg, k = (int64_t)item % gm->kg;
    int64_t R = p->ker[1], S = p->ker[2], per = p->n * gm->bands;
    float alpha = (float)cx->e->alpha, beta = (float)cx->e->beta;
    const int64_t *ws = p->w.strides;
    float *dw = (float *)cx->e->out + (g * gm->kg + k) * ws[0];
    /* (no partials when alpha is 0: cx->t is NULL and never read) */
    const float *t0 = cx->t != NULL ? cx->t + (size_t)(g * per) * gm->t_floats : NULL;
    for (int64_t c = 0; c < gm->cg; c++)
        for (int64_t r = 0; r < R; r++)
            for (int64_t s = 0; s < S; s++) {
                size_t i = (size_t)(((c * R + r) * S + s) * gm->kpad + k);
                float sum = 0;
                if (alpha != 0) {
                    sum = t0[i];
                    for (int64_t sl = 1; sl < per; sl++)
                        sum += t0[(size_t)sl * gm->t_floats + i];
                }
                int64_t rr = p->flip ? R - 1 - r : r, ss = p->flip ? S - 1 - s : s;
                float *d = dw + c * ws[1] + rr * ws[3] + ss * ws[4];
                *d = alpha == 0 ? (beta == 0 ? 0.0f : beta * *d) : fdnn_conv_epilogue_f32(sum, alpha, beta, d, NULL, false);
            }
}

cudnnStatus_t
fdnn_conv_wgrad_small_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    RETURN_IF_ERROR(fdnn_conv_wgrad_small_applicable(p));
    ctx_t cx = {.e = e, .p = p};
    make_geom(p, e->handle->isa, &cx.gm);
    const geom_t *gm = &cx.gm;
    if (e->alpha != 0) {
        size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
        cx.nlanes = threads < (size_t)gm->slabs ? threads : (size_t)gm->slabs;
        size_t t_bytes = fdnn_align_up((size_t)gm->slabs * gm->t_floats * sizeof(float));
        size_t lane_bytes = cx.nlanes * gm->lane_floats * sizeof(float);
        char *scratch = fdnn_handle_scratch(e->handle, t_bytes + lane_bytes);
        if (scratch == NULL)
            return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
        cx.t = (float *)scratch;
        cx.lanes = (float *)(scratch + t_bytes);
        fdnn_parallelize_1d(e->pool, lane_task, &cx, cx.nlanes, 0);
    }
    fdnn_parallelize_1d(e->pool, store_row, &cx, (size_t)(p->g * gm->kg), 0);
    return CUDNN_STATUS_SUCCESS;
}
