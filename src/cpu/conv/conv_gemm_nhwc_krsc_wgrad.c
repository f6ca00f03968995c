/* SPDX-License-Identifier: Apache-2.0
 * Channels-last backward filter into the KRSC filter in place (see
 * conv_gemm_nhwc_krsc_wgrad.h for the contract). */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/config/config.h"
#include "cpu/conv/conv_gemm_nhwc_krsc.h"
#include "cpu/conv/conv_gemm_nhwc_krsc_wgrad.h"

/* Positions per k block, at most: KC, and no more than keep a col strip
 * (kc x NR) within STRIP_BYTES, so that it stays in L1 while the dy^T
 * tiles of the block stream from L2 (256 at NR 32, 168 at NR 48). */
#define KC 256
#define STRIP_BYTES (32 * 1024)
/* Positions per dy^T panel, at most (a multiple of KC): the packed panel
 * (Kg x PANEL floats, 4 MiB at Kg 512) is read by every column block.
 * 2-D problems of more positions over the batch are declined: there the
 * per-image engine (stride phases of x read in place, no col strips) ran
 * faster, 1 thread, ResNet-50 3x3 at mb=32 (ms, base / this, 2 rounds):
 * res3 56->28 56-82 / 79-93, res3 49-57 / 58-62, res4 stride 2 52-58 /
 * 56-68 (its col strips re-read x from L3: 38% of the product's time),
 * res4 46-49 / 53-57; res5 at mb=32 (1568 positions, one panel) 62-65 /
 * 61-69 and its stride-2 layer 61-64 / 50-52 stay here, as do 3-D
 * problems (c3d 3x3x3 64 at 16x56x56: 142 / 83; the engine has no stride
 * phases in 3-D). */
#define PANEL 2048
/* A column block's C (Kg x its columns) is kept within this many bytes, so
 * that it stays in L2 across the panel's k blocks beside the dy^T tiles. */
#define C_BLOCK_BYTES (256 * 1024)
/* Column blocks aimed at, where the strips allow: an even share for 1, 2,
 * 3, 4 and 6 lanes. */
#define TARGET_BLOCKS 12
/* Strips per column block, at most (bounds the block's packing runs). */
#define MAX_SPB 16

typedef struct plan {
    const fdnn_conv_problem_t *p;
    const fdnn_conv_exec_t *e;
    int64_t cg, kg, ncols, osp, np; /* ncols = taps * Cg, np = positions over the batch */
    size_t ldw;
    int64_t mr, nr, kc, mtiles, nstrips, spb, nblocks; /* kc: the most positions per k block */
    fdnn_f32_gemm_ukernel_fn uk;
    /* per step: the group, the panel [p0, p0 + tw) and its packed dy^T */
    int64_t g, p0, tw, twp; /* twp: tw rounded up to 8 (each tile's panel stride) */
    float *apack;           /* [mtiles][twp][mr] */
    char *lanes;            /* per lane: a block's col strips, spb x kc x nr floats */
    size_t lane_bytes;
    atomic_llong next_block;
} plan_t;

cudnnStatus_t
fdnn_conv_gemm_nhwc_krsc_wgrad_applicable(const fdnn_conv_problem_t *p)
{
    size_t ldw;
    RETURN_IF_ERROR(fdnn_conv_krsc_operands(p, FDNN_CONV_BWD_FILTER, "channels-last backward filter GEMM", &ldw));
    double np = (double)p->n * (double)fdnn_conv_out_spatial(p);
    if (np == 0)
        return FDNN_NOT_SUPPORTED("the channels-last backward filter GEMM needs output positions");
    if (np > PANEL && p->in[0] == 1 && p->ker[0] == 1)
        return FDNN_NOT_SUPPORTED("the channels-last backward filter GEMM takes 2-D problems of at most %d "
                                  "positions over the batch, not %.0f (the per-image engine's stride phases ran "
                                  "faster there: the col strips re-read x from L3)",
                                  PANEL, np);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_krsc_wgrad_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    (void)p;
    *bytes = 0; /* the packs live in the handle's scratch */
    return CUDNN_STATUS_SUCCESS;
}

/* Output position pos (over the batch) as its image and coordinates. */
static inline void
position(const fdnn_conv_problem_t *p, int64_t osp, int64_t pos, int64_t *n, int64_t *od, int64_t *oh, int64_t *ow)
{
    int64_t r = pos % osp;
    *n = pos / osp;
    *ow = r % p->out[2];
    *oh = r / p->out[2] % p->out[1];
    *od = r / (p->out[2] * p->out[1]);
}

/* dy^T row tile i of the panel: apack[i][t][j] = dy(p0 + t, g*Kg + i*mr + j),
 * zero past Kg and past tw (to twp). */
static void
pack_dy_tile(void *arg, size_t i)
{
    const plan_t *pl = arg;
    const fdnn_conv_problem_t *p = pl->p;
    const float *dy = pl->e->y_in;
    int64_t k0 = (int64_t)i * pl->mr, rows = pl->kg - k0 < pl->mr ? pl->kg - k0 : pl->mr;
    float *dst = pl->apack + (int64_t)i * pl->twp * pl->mr;
    for (int64_t t = 0; t < pl->twp; t++, dst += pl->mr) {
        int64_t j = 0;
        if (t < pl->tw) {
            int64_t n, od, oh, ow;
            position(p, pl->osp, pl->p0 + t, &n, &od, &oh, &ow);
            memcpy(dst, dy + fdnn_conv_off5(&p->y, n, pl->g * pl->kg + k0, od, oh, ow),
                   (size_t)rows * sizeof(float));
            j = rows;
        }
        for (; j < pl->mr; j++)
            dst[j] = 0.0f;
    }
}

/* One run of a block's columns within one tap and one strip: channels
 * [c, c + len) of tap (qd, qh, qw) (offsets in the input, dilation applied,
 * reversed for CONVOLUTION mode) go to dst + off + t * nr for position t. */
typedef struct seg {
    int64_t off, len, c, dd, dh, dw;
} seg_t;

/* Runs per strip, at most: one per tap it touches (Cg >= FDNN_CONV_KRSC_MIN_CHANNELS),
 * plus the two partial ones at its ends. */
#define SEGS_PER_STRIP (64 / FDNN_CONV_KRSC_MIN_CHANNELS + 2)

/* The col strips [s0, s1) of panel positions [k0, k0 + kc), strip s at
 * dst + (s - s0) * kc_max * nr: dst[t][j] = x at the tap's pixel of
 * position t, channel c, or 0 (padding, columns past ncols).  Position
 * after position, every strip of the block: each x pixel is read once per
 * tap as one run of the block's channels (strip by strip, the block
 * re-read x from L3 or memory once per strip: 38% of the product's time on
 * res4's 3x3 stride 2 at mb=32). */
static void
pack_col_block(const plan_t *pl, int64_t s0, int64_t s1, int64_t k0, int64_t kc, float *dst)
{
    const fdnn_conv_problem_t *p = pl->p;
    const float *x = pl->e->x_in;
    seg_t segs[MAX_SPB * SEGS_PER_STRIP];
    int nseg = 0;
    int64_t j1 = s1 * pl->nr < pl->ncols ? s1 * pl->nr : pl->ncols, sstride = pl->kc * pl->nr;
    for (int64_t j = s0 * pl->nr; j < j1;) {
        int64_t q = j / pl->cg, c = j % pl->cg, st = j / pl->nr, end = (st + 1) * pl->nr;
        end = end < j1 ? end : j1;
        int64_t len = pl->cg - c < end - j ? pl->cg - c : end - j;
        int64_t qw = q % p->ker[2], qh = q / p->ker[2] % p->ker[1], qd = q / (p->ker[2] * p->ker[1]);
        if (p->flip) {
            qd = p->ker[0] - 1 - qd;
            qh = p->ker[1] - 1 - qh;
            qw = p->ker[2] - 1 - qw;
        }
        segs[nseg++] = (seg_t){(st - s0) * sstride + j - st * pl->nr, len, pl->g * pl->cg + c, qd * p->dil[0],
                               qh * p->dil[1], qw * p->dil[2]};
        j += len;
    }
    /* the last strip's columns past ncols */
    int64_t tail = s1 * pl->nr - j1;
    float *tail_dst = dst + (s1 - 1 - s0) * sstride + (pl->nr - tail);
    /* positions walked in order: one division per block, not per position */
    int64_t n, od, oh, ow;
    position(p, pl->osp, pl->p0 + k0, &n, &od, &oh, &ow);
    for (int64_t t = 0; t < kc; t++) {
        int64_t bd = od * p->stride[0] - p->pad[0], bh = oh * p->stride[1] - p->pad[1];
        int64_t bw = ow * p->stride[2] - p->pad[2];
        const float *xn = x + n * p->x.strides[0];
        for (int s = 0; s < nseg; s++) {
            const seg_t *sg = &segs[s];
            int64_t id = bd + sg->dd, ih = bh + sg->dh, iw = bw + sg->dw;
            float *d = dst + sg->off + t * pl->nr;
            if (id >= 0 && id < p->in[0] && ih >= 0 && ih < p->in[1] && iw >= 0 && iw < p->in[2]) {
                const float *src = xn + fdnn_conv_off5(&p->x, 0, sg->c, id, ih, iw);
                for (int64_t j = 0; j < sg->len; j++)
                    d[j] = src[j];
            } else {
                for (int64_t j = 0; j < sg->len; j++)
                    d[j] = 0.0f;
            }
        }
        for (int64_t j = 0; j < tail; j++)
            tail_dst[t * pl->nr + j] = 0.0f;
        if (++ow == p->out[2]) {
            ow = 0;
            if (++oh == p->out[1]) {
                oh = 0;
                if (++od == p->out[0]) {
                    od = 0;
                    n++;
                }
            }
        }
    }
}

/* A lane claims column blocks until none is left.  Per block and k block
 * of the panel (equal lengths, multiples of 8): the block's strips packed,
 * then each strip against every dy^T row tile into dW (strips outer: the
 * strip stays in L1, the block's C in L2 across the k blocks).  Every element is
 * one fixed sequence of k blocks whichever lane runs it. */
static void
wgrad_lane(void *arg, size_t lane)
{
    plan_t *pl = arg;
    const fdnn_conv_exec_t *e = pl->e;
    float *strips = (float *)(pl->lanes + lane * pl->lane_bytes);
    float *dw = (float *)e->out + (size_t)(pl->g * pl->kg) * pl->ldw;
    int64_t kblocks = (pl->tw + pl->kc - 1) / pl->kc, kstep = ((pl->tw + kblocks - 1) / kblocks + 7) / 8 * 8;
    for (;;) {
        int64_t b = (int64_t)atomic_fetch_add_explicit(&pl->next_block, 1, memory_order_relaxed);
        if (b >= pl->nblocks)
            break;
        int64_t s1 = (b + 1) * pl->spb < pl->nstrips ? (b + 1) * pl->spb : pl->nstrips;
        for (int64_t k0 = 0; k0 < pl->tw; k0 += kstep) {
            int64_t kc = pl->tw - k0 < kstep ? pl->tw - k0 : kstep;
            fdnn_f32_gemm_epilogue_t ep = {(float)e->alpha, pl->p0 == 0 && k0 == 0 ? (float)e->beta : 1.0f,
                                           NULL, NULL, false, false};
            pack_col_block(pl, b * pl->spb, s1, k0, kc, strips);
            for (int64_t s = b * pl->spb; s < s1; s++) {
                int64_t j0 = s * pl->nr, ncols = pl->ncols - j0 < pl->nr ? pl->ncols - j0 : pl->nr;
                const float *strip = strips + (s - b * pl->spb) * pl->kc * pl->nr;
                for (int64_t i = 0; i < pl->mtiles; i++) {
                    int64_t r0 = i * pl->mr, rows = pl->kg - r0 < pl->mr ? pl->kg - r0 : pl->mr;
                    pl->uk((size_t)rows, (size_t)ncols, (size_t)kc, pl->apack + (i * pl->twp + k0) * pl->mr, strip,
                           (size_t)pl->nr, dw + (size_t)r0 * pl->ldw + (size_t)j0, pl->ldw, &ep);
                }
            }
        }
    }
}

/* alpha 0: dW = beta dW (0 where beta is 0: dW is not read). */
static void
scale_only(const plan_t *pl)
{
    const fdnn_conv_exec_t *e = pl->e;
    float beta = (float)e->beta, *dw = e->out;
    for (int64_t k = 0; k < pl->p->k; k++)
        for (int64_t j = 0; j < pl->ncols; j++) {
            float *d = dw + (size_t)k * pl->ldw + (size_t)j;
            *d = beta == 0 ? 0.0f : beta * *d;
        }
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_krsc_wgrad_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    RETURN_IF_ERROR(fdnn_conv_gemm_nhwc_krsc_wgrad_applicable(p));
    plan_t pl = {.p = p, .e = e};
    pl.cg = fdnn_conv_cg(p);
    pl.kg = fdnn_conv_kg(p);
    pl.ncols = pl.cg * fdnn_conv_taps(p);
    pl.osp = fdnn_conv_out_spatial(p);
    pl.np = p->n * pl.osp;
    fdnn_conv_krsc_rows(p, &pl.ldw);
    if (e->alpha == 0) {
        scale_only(&pl);
        return CUDNN_STATUS_SUCCESS;
    }
    /* The level's tile for the product (A packed: 8x48 rather than 14x32
     * where it pads less, e.g. Kg 128 on AVX-512: 10 tiles of 14 rows
     * spent 9% on padding). */
    const fdnn_isa_config_t *level = fdnn_isa_config(e->handle->isa);
    fdnn_sgemm_args_t shape = {.trans_a = true, .m = (size_t)pl.kg, .n = (size_t)pl.ncols, .k = (size_t)pl.np,
                               .alpha = 1};
    fdnn_sgemm_tile_t tile = level->sgemm_tile(&shape);
    if (tile.nr > 64)
        tile.ukernel = NULL; /* (no level has one: SEGS_PER_STRIP assumes at most 64 columns) */
    pl.uk = tile.ukernel != NULL ? tile.ukernel : level->conv_gemm.ukernel;
    pl.mr = (int64_t)(tile.ukernel != NULL ? tile.mr : level->conv_gemm.mr);
    pl.nr = (int64_t)(tile.ukernel != NULL ? tile.nr : level->conv_gemm.nr);
    pl.kc = STRIP_BYTES / (pl.nr * (int64_t)sizeof(float)) / 8 * 8;
    pl.kc = pl.kc > KC ? KC : pl.kc < 8 ? 8 : pl.kc;
    pl.mtiles = (pl.kg + pl.mr - 1) / pl.mr;
    pl.nstrips = (pl.ncols + pl.nr - 1) / pl.nr;
    /* Column blocks (see C_BLOCK_BYTES, TARGET_BLOCKS): the shape only. */
    int64_t fit = C_BLOCK_BYTES / (pl.kg * pl.nr * (int64_t)sizeof(float));
    int64_t share = (pl.nstrips + TARGET_BLOCKS - 1) / TARGET_BLOCKS;
    pl.spb = fit < share ? fit : share;
    pl.spb = pl.spb < 1 ? 1 : pl.spb > MAX_SPB ? MAX_SPB : pl.spb;
    pl.nblocks = (pl.nstrips + pl.spb - 1) / pl.spb;

    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    size_t lanes = threads < (size_t)pl.nblocks ? threads : (size_t)pl.nblocks;
    int64_t panel = pl.np < PANEL ? pl.np : PANEL;
    size_t apack_bytes = fdnn_align_up((size_t)(pl.mtiles * pl.mr * ((panel + 7) / 8 * 8)) * sizeof(float));
    pl.lane_bytes = fdnn_align_up((size_t)(pl.spb * pl.kc * pl.nr) * sizeof(float));
    char *base = fdnn_handle_scratch(e->handle, apack_bytes + lanes * pl.lane_bytes);
    if (base == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    pl.apack = (float *)base;
    pl.lanes = base + apack_bytes;

    for (pl.g = 0; pl.g < p->g; pl.g++) {
        for (pl.p0 = 0; pl.p0 < pl.np; pl.p0 += PANEL) {
            pl.tw = pl.np - pl.p0 < PANEL ? pl.np - pl.p0 : PANEL;
            pl.twp = (pl.tw + 7) / 8 * 8;
            fdnn_parallelize_1d(e->pool, pack_dy_tile, &pl, (size_t)pl.mtiles, 0);
            atomic_store_explicit(&pl.next_block, 0, memory_order_relaxed);
            fdnn_parallelize_1d(e->pool, wgrad_lane, &pl, lanes, 0);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}
