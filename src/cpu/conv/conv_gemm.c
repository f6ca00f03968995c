/* SPDX-License-Identifier: Apache-2.0
 * The GEMM-based convolution engine: planning (tile width, chunks, workspace
 * layout) shared by both data types; the typed loops are in conv_gemm.inc,
 * compiled once for float and once for double.  See conv_gemm.h. */
#include "cpu/conv/conv_gemm.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "cpu/config/config.h"
#include "core/memory.h"
#include "cpu/gemm/gemm.h"
#include "cpu/kernels/gemm_ukernel.h"

/* Images are split into at most this many chunks (buffers: chunk_slot).
 * A fixed number (not the thread count) keeps backward-filter sums
 * identical for any number of threads. */
#define MAX_CHUNKS 8

/* Target size of one im2col panel: a panel of CRS rows is cut to about this
 * many bytes so that it stays in the L2 cache while the GEMM streams it. */
#define PANEL_BYTES (1024u * 1024u)

/* The fused paths (see conv_gemm.inc): k is cut in blocks of FUSED_KC rows
 * (a 32-column strip block of 128 KiB stays in L2; fewer blocks mean fewer
 * passes over C, which measured better than L1-sized blocks of 256 on the
 * ResNet 3x3 layers); rows in groups of about FUSED_MC.  FUSED_MR and
 * FUSED_NR bound the microkernel tiles of every ISA (workspace is sized for
 * the largest). */
#define FUSED_KC 1024
/* Backward filter packs dy^T for a block of positions: a smaller block keeps
 * that buffer (block x Kg) small. */
#define FUSED_KC_W 256
#define FUSED_MC 256
#define FUSED_MR 14
#define FUSED_NR 32

/* Backward data of one image reads the filter in place as the GEMM's B
 * (task_ctx_t.w_as_b) up to this many output positions: with few
 * positions per filter element, transposing W costs as much as the
 * product (measured at 49: res5 3x3, 7x7 planes); with many it is
 * amortised (res4 3x3 at 14x14 runs 4 panels of 49 on the narrow tile,
 * the transposition 20% of its product). */
#define W_AS_B_MAX_POSITIONS 64
/* ... and filters of at most this many taps (col2im_t_chunk lists the taps
 * of a position that land inside the image), its col2im in tasks of
 * COL2IM_T_CHANNELS channels (16 channels of 3x3 taps: 9 lines of col^T's
 * row per position). */
#define W_AS_B_MAX_TAPS 64
#define COL2IM_T_CHANNELS 16

/* Backward filter on small images (fewer than FUSED_KC_W positions each),
 * FP32, the "rows" path: the filter gradient is computed in blocks of
 * ROWS_TILES microkernel row tiles of CRS (x all of Kg), each block by one
 * task over every image, so the block stays in L2 for the whole batch
 * instead of the whole filter streaming through memory once per few images
 * (and no partial filters to add up).  Positions (image after image) go in
 * blocks of ROWS_KC; images in groups of at most ROWS_POSITIONS positions,
 * whose dy^T is packed once (the workspace holds one group).  ROWS_LANES
 * tasks at most, each with its own im2col block. */
#define ROWS_TILES 12
#define ROWS_KC 256
#define ROWS_POSITIONS 2048
#define ROWS_LANES 8

/* Backward filter on 2-D images of FUSED_KC_W or more positions, FP32, the
 * "wide" path: no im2col panel.  The input of one image is copied once,
 * padded and split into stride phases (phase (ph, pw) holds padded rows
 * ph, ph + sh, ... and columns pw, pw + sw, ...), so that the im2col row
 * of every (channel, tap) is a run of each phase row, WIDE_ROW apart: the
 * aptrs microkernel reads those runs in place, one pointer per row.  A band
 * of output rows is copied at a time, at most about PANEL_BYTES. */
typedef struct wide_geom {
    int64_t offh, offw; /* largest tap offset in phase rows / columns */
    int64_t wq;         /* phase row length: OW + offw */
    int64_t band;       /* output rows per band (a multiple of block_rows, but the last) */
    int64_t hb;         /* phase rows per band: band + offh */
    int64_t plane;      /* one phase of one channel: hb * wq */
    int64_t chan;       /* one channel: sh * sw * plane */
    int64_t block_rows; /* output rows per k block (OW <= FUSED_KC_W), else 1 */
} wide_geom_t;

/* Backward filter keeps one partial filter per chunk; fewer chunks when
 * those would exceed this many bytes. */
#define PARTIAL_FILTER_BYTES (64u * 1024u * 1024u)

/* One index-table entry of the precomputed variant: a position (d, h, w)
 * and its element offset in the input.  64-bit: an output position minus
 * its padding, and a tap times its dilation, each fit in int64_t but not
 * in int32_t, nor does their sum (fuzz_conv crash input
 * crash-conv-precomp-int32-position). */
typedef struct tab_entry {
    int64_t d, h, w;
    uint64_t off; /* modulo 2^64: exact for the sum of a position and a tap
                   * inside the input, the only sums that are read */
} tab_entry_t;

typedef struct plan {
    const fdnn_conv_problem_t *p;
    fdnn_conv_gemm_variant_t v;
    size_t es; /* element size */
    int64_t n, g, cg, kg, q, crs, osp, isp;
    int64_t tile;   /* output positions per panel */
    int nchunks;    /* image chunks (fixed by the problem) */
    bool rows;      /* backward filter on the rows path (see ROWS_TILES) */
    bool wide;      /* backward filter on the wide path (see wide_geom_t) */
    bool rows_phased; /* the rows path may read whole images' stride phases (see wide_geom_t) */
    wide_geom_t wg;
    int64_t img_group; /* rows path: images per dy^T packing */
    bool one_by_one; /* 1x1, stride 1, no padding: x and dx are their own col */
    bool x_whole;    /* forward one_by_one with x sliced in place: no col buffer, one panel per image */
    bool pack_w;    /* the filter is repacked (NHWC or CONVOLUTION mode) */
    bool fused; /* FP32 implicit fwd/bwd data: panels fed to the microkernel directly */
    /* Workspace layout, bytes from the start. */
    size_t off_w, off_tab_p, off_tab_q, off_taps, off_apack, off_chunks, strip_bytes;
    size_t col_bytes, tmp_bytes, acc_bytes, chunk_bytes;
    size_t total;
} plan_t;

static bool
filter_is_canonical(const fdnn_conv_problem_t *p)
{
    return !p->flip && fdnn_tensor_is_packed(&p->w);
}

/* A logical row-major matrix M[r][c] stored either as is (element at
 * ptr[r*ld + c]) or transposed (ptr[c*ld + r]); offsets in elements. */
typedef struct mat {
    int64_t off; /* element offset from the operand's base pointer */
    size_t ld;
    bool trans;
} mat_t;

static bool spatial_uniform(const fdnn_tensor_t *t, int64_t *stride);
static bool slice_mat(const fdnn_tensor_t *t, int64_t n, int64_t c0, int64_t nch, int64_t p0, int64_t tw, mat_t *m);

/* The wide path (wide_geom_t) applies: a 2-D problem (no depth) whose taps
 * use every stride phase (a 1x1 stride-2 filter reads a quarter of the
 * input: the copy of all four phases would cost more than the im2col) and
 * whose dy positions are uniformly strided (packed from dy directly). */
static bool
wide_fits(const fdnn_conv_problem_t *p)
{
    if (p->in[0] != 1 || p->ker[0] != 1 || p->out[0] != 1)
        return false;
    for (int d = 1; d < 3; d++) {
        if (p->stride[d] > 8)
            return false;
        bool used[8] = {false};
        int64_t count = 0;
        for (int64_t k = 0; k < p->ker[d] && count < p->stride[d]; k++) {
            int64_t ph = k * p->dil[d] % p->stride[d];
            count += !used[ph];
            used[ph] = true;
        }
        if (count < p->stride[d])
            return false;
    }
    int64_t ps;
    return spatial_uniform(&p->y, &ps);
}

static cudnnStatus_t
make_plan(const fdnn_conv_problem_t *p, fdnn_conv_gemm_variant_t v, plan_t *pl)
{
    memset(pl, 0, sizeof(*pl));
    pl->p = p;
    pl->v = v;
    pl->es = fdnn_dtype_size(p->dtype);
    pl->n = p->n;
    pl->g = p->g;
    pl->cg = fdnn_conv_cg(p);
    pl->kg = fdnn_conv_kg(p);
    pl->q = fdnn_conv_taps(p);
    pl->crs = pl->cg * pl->q;
    pl->osp = fdnn_conv_out_spatial(p);
    pl->isp = fdnn_conv_in_spatial(p);
    pl->one_by_one = pl->q == 1 && pl->osp == pl->isp;
    for (int i = 0; i < 3; i++)
        if (p->pad[i] != 0 || p->stride[i] != 1)
            pl->one_by_one = false;
    pl->pack_w = !filter_is_canonical(p);

    /* 1x1 with x usable in place (forward reads it as B, backward data
     * writes dx there): panels bound the im2col buffer, which these never
     * need, so images are cut only where whole ones measured slower.
     * Forward: always whole; a 28x28 image cut in two panels of 392 made
     * two short GEMMs of two row tiles each, which balanced poorly over
     * threads (res3 1x1 512 -> 128 at mb=1, 2 threads: 25% faster whole;
     * 1 thread and mb=32 unchanged).  Backward data: whole where an image
     * is at most two panels: res3 / res4 1x1 at 28x28 (Cg = 512), one GEMM
     * of 784 columns on the 14x32 tile instead of two of 392 on the 6x49
     * tile (512 -> 128: 0.80-0.94x the time, 512 -> 256: 0.94-0.98x); at
     * 56x56 (four panels of 784) whole images measured no faster. */
    mat_t probe;
    bool x_in_place = v != FDNN_CONV_GEMM_EXPLICIT && pl->one_by_one &&
                      slice_mat(&p->x, 0, 0, pl->cg, 0, pl->osp, &probe);
    int64_t t = (int64_t)PANEL_BYTES / (pl->crs * (int64_t)pl->es);
    t = t < 64 ? 64 : t - t % 64;
    pl->x_whole = x_in_place && p->dir == FDNN_CONV_FWD;
    bool dx_whole = x_in_place && p->dir == FDNN_CONV_BWD_DATA && pl->osp <= 2 * t;
    if (v == FDNN_CONV_GEMM_EXPLICIT || pl->x_whole || dx_whole) {
        pl->tile = pl->osp;
    } else {
        /* Images of 7m x 7n positions (ResNet's 56x56 .. 7x7): panels of a
         * multiple of 49 that divides them, for the GEMM core's 6x49 tile
         * (784 = 4 x 196, not 4 x 192 + 16). */
        if (v == FDNN_CONV_GEMM_IMPLICIT && pl->osp % 49 == 0 && t < pl->osp) {
            int64_t best = 0;
            for (int64_t d = 49; d <= t; d += 49)
                if (pl->osp % d == 0)
                    best = d;
            t = best > 0 ? best : t;
        }
        pl->tile = t < pl->osp ? t : pl->osp;
    }
    int64_t chunks = p->n < MAX_CHUNKS ? p->n : MAX_CHUNKS;
    if (p->dir == FDNN_CONV_BWD_FILTER) {
        double per = (double)p->k * (double)pl->crs * (double)pl->es;
        int64_t cap = (int64_t)(PARTIAL_FILTER_BYTES / (per > 1 ? per : 1));
        if (cap < 1)
            cap = 1;
        if (chunks > cap)
            chunks = cap;
    }
    pl->nchunks = (int)chunks;

    /* The rows path replaces the chunks: one partial (the whole filter
     * gradient, transposed), dy^T of one image group as the "tmp" buffer,
     * ROWS_LANES im2col blocks (plus one packed row tile each, for kernels
     * without in-place rows) as the "col" buffer. */
    pl->rows = p->dir == FDNN_CONV_BWD_FILTER && p->dtype == CUDNN_DATA_FLOAT && v == FDNN_CONV_GEMM_IMPLICIT &&
               pl->tile == pl->osp && pl->osp < FUSED_KC_W;
    if (pl->rows) {
        chunks = 1;
        pl->nchunks = 1;
        int64_t gsz = ROWS_POSITIONS / pl->osp;
        pl->img_group = gsz < 1 ? 1 : gsz > p->n ? p->n : gsz;
    }

    pl->wide = p->dir == FDNN_CONV_BWD_FILTER && p->dtype == CUDNN_DATA_FLOAT && v == FDNN_CONV_GEMM_IMPLICIT &&
               !pl->rows && !pl->one_by_one && wide_fits(p);
    bool phases = pl->wide || (pl->rows && wide_fits(p));
    if (phases) {
        wide_geom_t *wg = &pl->wg;
        wg->offh = (p->ker[1] - 1) * p->dil[1] / p->stride[1];
        wg->offw = (p->ker[2] - 1) * p->dil[2] / p->stride[2];
        wg->wq = p->out[2] + wg->offw;
        wg->block_rows = p->out[2] <= FUSED_KC_W ? FUSED_KC_W / p->out[2] : 1;
        int64_t row_el = pl->cg * p->stride[1] * p->stride[2] * wg->wq; /* one phase row of every channel */
        int64_t fit = (int64_t)PANEL_BYTES / (row_el * (int64_t)pl->es) - wg->offh;
        int64_t band = fit / wg->block_rows * wg->block_rows;
        band = band < wg->block_rows ? wg->block_rows : band;
        /* The rows path copies whole images. */
        wg->band = band < p->out[1] && !pl->rows ? band : p->out[1];
        wg->hb = wg->band + wg->offh;
        wg->plane = wg->hb * wg->wq;
        wg->chan = p->stride[1] * p->stride[2] * wg->plane;
    }
    /* The rows path's phases of one k block (the images it touches, the
     * channels of a row block) must fit the lane's im2col block, which
     * they replace. */
    if (pl->rows && phases) {
        double images = (double)(ROWS_KC / pl->osp + 2), chans = (double)(ROWS_TILES * FUSED_MR / pl->q + 2);
        pl->rows_phased = images * chans * (double)pl->wg.chan <= (double)((ROWS_TILES + 1) * FUSED_MR * ROWS_KC);
    }

    /* Sizes, overflow-checked in double first: anything beyond 2^62 bytes is
     * NOT_SUPPORTED (a real workspace could never hold it). */
    double w_el = (double)p->k * (double)pl->crs;
    double col_el = pl->x_whole ? 0 : (double)pl->crs * (double)pl->tile;
    double tmp_el = (double)(pl->kg > pl->cg ? pl->kg : pl->cg) * (double)pl->tile;
    if (pl->wide && (double)pl->cg * (double)pl->wg.chan > col_el)
        col_el = (double)pl->cg * (double)pl->wg.chan; /* the band (or the panel, if the ISA has no aptrs kernel) */
    if (pl->rows) {
        col_el = (double)ROWS_LANES * (ROWS_TILES + 1) * FUSED_MR * ROWS_KC;
        tmp_el = (double)((pl->kg + FUSED_NR - 1) / FUSED_NR * FUSED_NR) * (double)(pl->img_group * pl->osp);
    }
    double acc_el = p->dir == FDNN_CONV_BWD_DATA ? (double)pl->cg * (double)pl->isp
                    : p->dir == FDNN_CONV_BWD_FILTER ? w_el
                                                     : 0;
    double tab_el = v == FDNN_CONV_GEMM_PRECOMP      ? (double)(pl->osp + pl->q)
                    : pl->wide || pl->rows_phased ? (double)pl->q
                                                  : 0;
    double total = (w_el + (col_el + tmp_el + acc_el) * chunks) * (double)pl->es + tab_el * sizeof(tab_entry_t) +
                   64.0 * (6 + 3 * chunks);
    if (total > (double)(INT64_C(1) << 62))
        return FDNN_NOT_SUPPORTED("the GEMM convolution would need %.3g bytes of workspace", total);

    fdnn_carver_t c = {NULL, 0};
    pl->off_w = c.used;
    fdnn_carve(&c, pl->pack_w ? (size_t)w_el * pl->es : 0);
    pl->off_tab_p = c.used;
    fdnn_carve(&c, v == FDNN_CONV_GEMM_PRECOMP ? (size_t)pl->osp * sizeof(tab_entry_t) : 0);
    pl->off_tab_q = c.used;
    fdnn_carve(&c, v == FDNN_CONV_GEMM_PRECOMP ? (size_t)pl->q * sizeof(tab_entry_t) : 0);
    pl->off_taps = c.used; /* wide path: each tap's offset in a channel of the band */
    fdnn_carve(&c, pl->wide || pl->rows_phased ? (size_t)pl->q * sizeof(int64_t) : 0);
    /* The fused forward path: the filter packed for the microkernel (row
     * blocks of at most FUSED_MR rows, padded) and a strip for the last,
     * partial column strip of each panel. */
    pl->fused = p->dtype == CUDNN_DATA_FLOAT && v == FDNN_CONV_GEMM_IMPLICIT;
    pl->off_apack = c.used;
    int64_t a_rows = p->dir == FDNN_CONV_FWD ? pl->kg : pl->crs, a_cols = p->dir == FDNN_CONV_FWD ? pl->crs : pl->kg;
    bool packs_a = pl->fused && p->dir != FDNN_CONV_BWD_FILTER;
    fdnn_carve(&c, packs_a ? (size_t)(p->g * (a_rows + FUSED_MR - 1) * a_cols) * pl->es : 0);
    /* Backward filter packs dy^T strips: kc positions x (Kg rounded up to
     * whole strips). */
    size_t strip_el = p->dir == FDNN_CONV_BWD_FILTER ? (size_t)(FUSED_KC_W * (pl->kg + FUSED_NR - 1))
                                                     : (size_t)(FUSED_KC * FUSED_NR);
    pl->strip_bytes = pl->fused && !pl->rows ? fdnn_align_up(strip_el * pl->es) : 0;
    pl->off_chunks = c.used;
    pl->col_bytes = fdnn_align_up((size_t)col_el * pl->es);
    pl->tmp_bytes = fdnn_align_up((size_t)tmp_el * pl->es);
    pl->acc_bytes = fdnn_align_up((size_t)acc_el * pl->es);
    pl->chunk_bytes = pl->col_bytes + pl->tmp_bytes + pl->acc_bytes + pl->strip_bytes;
    pl->total = c.used + pl->chunk_bytes * (size_t)chunks;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_gemm_workspace(const fdnn_conv_problem_t *p, fdnn_conv_gemm_variant_t v, size_t *bytes)
{
    plan_t pl;
    RETURN_IF_ERROR(make_plan(p, v, &pl));
    /* IMPLICIT_GEMM is cuDNN's zero-workspace algorithm: its buffers come
     * from the handle's scratch (see fdnn_conv_gemm_in_scratch). */
    *bytes = fdnn_conv_gemm_in_scratch(v) ? 0 : pl.total;
    return CUDNN_STATUS_SUCCESS;
}

/* Flattened spatial positions of a 5-D view: true when position p (over
 * D*H*W in row-major order) lies at offset p * *stride, ignoring dims of
 * size 1. */
static bool
spatial_uniform(const fdnn_tensor_t *t, int64_t *stride)
{
    int64_t s = -1, expect = 0;
    for (int d = 4; d >= 2; d--) {
        if (t->dims[d] == 1)
            continue;
        if (s < 0) {
            s = t->strides[d];
            expect = s * t->dims[d];
        } else {
            if (t->strides[d] != expect)
                return false;
            expect *= t->dims[d];
        }
    }
    *stride = s < 0 ? 1 : s;
    return true;
}

/* Element offset of flattened spatial position p of a 5-D view. */
static inline int64_t
spatial_offset(const fdnn_tensor_t *t, int64_t p)
{
    int64_t w = p % t->dims[4];
    int64_t h = (p / t->dims[4]) % t->dims[3];
    int64_t d = p / (t->dims[4] * t->dims[3]);
    return d * t->strides[2] + h * t->strides[3] + w * t->strides[4];
}

/* Offsets of flattened spatial positions without a division per element
 * when the spatial dims are uniformly strided (the common case). */
typedef struct sp_walk {
    const fdnn_tensor_t *t;
    bool uniform;
    int64_t stride;
} sp_walk_t;

static inline sp_walk_t
sp_walk(const fdnn_tensor_t *t)
{
    sp_walk_t w = {t, false, 1};
    w.uniform = spatial_uniform(t, &w.stride);
    return w;
}

static inline int64_t
sp_off(const sp_walk_t *w, int64_t p)
{
    return w->uniform ? p * w->stride : spatial_offset(w->t, p);
}


/* The [nch][tw] slice (channels c0.., positions p0..) of image n of a 5-D
 * view as a GEMM operand, when its strides allow one. */
static bool
slice_mat(const fdnn_tensor_t *t, int64_t n, int64_t c0, int64_t nch, int64_t p0, int64_t tw, mat_t *m)
{
    int64_t ps;
    if (!spatial_uniform(t, &ps))
        return false;
    int64_t cs = t->strides[1];
    int64_t base = n * t->strides[0] + c0 * cs;
    if (ps == 1 && (nch == 1 || cs >= tw)) {
        m->off = base + p0;
        m->ld = (size_t)(nch == 1 ? tw : cs);
        m->trans = false;
        return true;
    }
    if ((cs == 1 || nch == 1) && (tw == 1 || ps >= nch)) {
        m->off = base + p0 * ps;
        m->ld = (size_t)(tw == 1 ? nch : ps);
        m->trans = true;
        return true;
    }
    return false;
}

/* The panel that fwd_chunk / bwd_data_chunk run after (n, g) in images
 * n .. n1-1 (groups, then images, one panel each; after image n1-1,
 * image n_after, the first of the lane's next chunk, or -1: none), when its
 * B is channels [g * nch, + nch) of t read in place (m: rows of the
 * product, C's): its rows for the GEMM's prefetch hint
 * (fdnn_sgemm_args_t.next), so that the pack of that B reads from cache
 * (from memory it was 12-18% of forward 1024 -> 256 at 14x14, with no FMA
 * running).  None (base NULL) for a B that is gathered or transposed, and
 * where the hint measured slower (below). */
static fdnn_gemm_prefetch_t
next_panel(const plan_t *pl, const fdnn_tensor_t *t, const void *base, int64_t nch, int64_t m, int64_t n,
           int64_t n1, int64_t n_after, int64_t g)
{
    fdnn_gemm_prefetch_t r = {NULL, 0, 0, 0};
    /* Only for panels of whole images, and where B (nch rows) is at least
     * as deep as the product has rows (m): the pack moves 2 / m bytes per
     * flop, 12-18% of forward 1024 -> 256 at 14x14 (m = 256) but 2-3% of
     * forward 256 -> 1024 (m = 1024), where the hint's traffic cost more
     * than it saved (5-9% slower).  Where an image has several panels (res3
     * backward data at 28x28: two of 392 positions), the next one is mostly
     * the other half of rows the pack just read, and the hint measured
     * slower too. */
    if (pl->tile != pl->osp || nch < m)
        return r;
    if (++g == pl->g) {
        g = 0;
        n++;
    }
    if (n >= n1)
        n = n_after;
    mat_t bm;
    if (n < 0 || !slice_mat(t, n, g * nch, nch, 0, pl->osp, &bm) || bm.trans)
        return r;
    r.base = (const char *)base + bm.off * (int64_t)pl->es;
    r.rows = (size_t)nch;
    r.row_bytes = (size_t)pl->osp * pl->es;
    r.ld_bytes = bm.ld * pl->es;
    return r;
}

/* Fully connected as a convolution: one output position, the filter covers
 * the unpadded input, one group.  Then image n's im2col column is the image
 * itself, given x's C, D, H, W lie packed in that order. */
static bool
is_fc(const plan_t *pl)
{
    const fdnn_conv_problem_t *p = pl->p;
    if (p->g != 1 || pl->osp != 1)
        return false;
    for (int i = 0; i < 3; i++)
        if (p->ker[i] != p->in[i] || p->pad[i] != 0)
            return false;
    /* CHW packed per image. */
    int64_t s = 1;
    for (int d = 4; d >= 1; d--) {
        if (p->x.dims[d] != 1 && p->x.strides[d] != s)
            return false;
        s *= p->x.dims[d];
    }
    return p->n == 1 || p->x.strides[0] >= s;
}

/* [rows][cols] matrix with row stride rs and column stride cs as a GEMM
 * operand. */
static bool
strided_mat(int64_t rows, int64_t cols, int64_t rs, int64_t cs, mat_t *m)
{
    m->off = 0;
    if (cols == 1 || cs == 1) {
        if (rows > 1 && rs < cols)
            return false;
        m->ld = (size_t)(rows == 1 ? cols : rs);
        m->trans = false;
        return true;
    }
    if (rows == 1 || rs == 1) {
        if (cols > 1 && cs < rows)
            return false;
        m->ld = (size_t)(cols == 1 ? rows : cs);
        m->trans = true;
        return true;
    }
    return false;
}

typedef struct task_ctx {
    const fdnn_conv_exec_t *e;
    const plan_t *pl;
    char *ws;
    const void *wc;     /* canonical filter [K][CRS] */
    fdnn_pool_t pool; /* for the work inside one chunk (NULL when chunks run in parallel) */
    char *gemm_scratch;
    size_t gemm_scratch_bytes; /* per concurrent GEMM */
    bool par_chunks; /* chunks run in parallel, each lane with its GEMM scratch copy (else copy 0;
                        pool alone cannot tell: it is NULL for one thread too) */
    size_t lanes; /* chunks that run at once: 1 one after another; in parallel, one per thread
                     (chunks ci, ci + lanes, ... in turn), or every chunk for backward filter */
    bool acc_transposed; /* backward filter accumulated as [G][CRS][Kg] (fused path) */
    bool dy_rows; /* backward filter on the fused path with the operands' roles exchanged:
                     acc [G][Kg][CRS] = dy * x^T, dy's rows read in place by the arows kernel
                     and x^T packed (1x1 layers with more output than input channels: the
                     transposing pack then moves the smaller operand) */
    bool narrow; /* fused fwd / bwd data, panels of one width (dividing the image) that the
                    GEMM core's narrow tile fits (49 .. 392): the GEMM core runs each panel;
                    backward data then keeps W^T as plain rows [G][CRS][Kg] in apack */
    bool w_as_b; /* backward data of one image with a spatial filter, the image one panel:
                    col^T [tw][CRS] = dy^T W, the filter read in place as the GEMM's B
                    (no W^T pass: for one image it cost as much as the product) and
                    col2im reading col^T (col2im_t_chunk) */
    fdnn_gemm_prefetch_t next; /* the GEMM's hint: the next panel's B (next_panel) */
    /* per-row task arguments (im2col / col2im) */
    int64_t n, grp, p0, tw;
    void *col;
    void *acc;
} task_ctx_t;

/* The slot of buffers (and, in parallel, of GEMM scratch) of image chunk
 * ci.  In parallel each lane has a slot, and runs its chunks in turn; one
 * after another every chunk uses slot 0, except that backward filter
 * computes the partial filter of every chunk after the first in slot 1
 * and adds it into slot 0's as soon as that chunk is done (add_partial_f*):
 * the same additions in the same order as the sum of the parallel chunks
 * (one slot each), so the same bits.  What IMPLICIT_GEMM's handle scratch
 * holds (chunk_slots). */
static inline size_t
chunk_slot(const task_ctx_t *tc, size_t ci)
{
    if (tc->pl->p->dir == FDNN_CONV_BWD_FILTER && !tc->par_chunks)
        return ci > 0 ? 1 : 0;
    return ci % tc->lanes;
}

static inline char *
chunk_buf(const task_ctx_t *tc, size_t ci)
{
    return tc->ws + tc->pl->off_chunks + chunk_slot(tc, ci) * tc->pl->chunk_bytes;
}

/* The GEMM core's scratch of chunk ci (NULL: the core allocates its own). */
static inline char *
chunk_gemm_scratch(const task_ctx_t *tc, size_t ci)
{
    if (tc->gemm_scratch == NULL)
        return NULL;
    return tc->gemm_scratch + (tc->par_chunks ? chunk_slot(tc, ci) : 0) * tc->gemm_scratch_bytes;
}

/* Slots of buffers that chunk_buf uses. */
static inline size_t
chunk_slots(const task_ctx_t *tc)
{
    if (tc->pl->p->dir == FDNN_CONV_BWD_FILTER && !tc->par_chunks)
        return tc->pl->nchunks > 1 ? 2 : 1;
    return tc->lanes;
}

static inline void
chunk_range(const plan_t *pl, int i, int64_t *n0, int64_t *n1)
{
    *n0 = pl->n * i / pl->nchunks;
    *n1 = pl->n * (i + 1) / pl->nchunks;
}

/* The first image of the chunk that the lane running chunk ci runs next
 * (chunks ci, ci + lanes, ...; see SFX(lane)), or -1: none. */
static int64_t
lane_next_image(const task_ctx_t *tc, size_t ci)
{
    size_t cn = ci + tc->lanes;
    int64_t a0, a1;
    if (cn >= (size_t)tc->pl->nchunks)
        return -1;
    chunk_range(tc->pl, (int)cn, &a0, &a1);
    return a1 > a0 ? a0 : -1;
}

#define T float
#define SFX(name) name##_f32
#define IS_FLOAT 1
#include "cpu/conv/conv_gemm.inc"
#undef T
#undef SFX
#undef IS_FLOAT

#define T double
#define SFX(name) name##_f64
#define IS_FLOAT 0
#include "cpu/conv/conv_gemm.inc"
#undef T
#undef SFX
#undef IS_FLOAT

cudnnStatus_t
fdnn_conv_gemm_execute(const fdnn_conv_exec_t *e, fdnn_conv_gemm_variant_t v)
{
    plan_t pl;
    RETURN_IF_ERROR(make_plan(e->p, v, &pl));
    if (!fdnn_conv_gemm_in_scratch(v) && e->workspace_bytes < pl.total)
        return FDNN_BAD_PARAM("workspace is %zu bytes, this algorithm needs %zu", e->workspace_bytes, pl.total);
    if (!fdnn_conv_gemm_in_scratch(v) && pl.total > 0 && e->workspace == NULL)
        return FDNN_BAD_PARAM("workSpace is NULL but %zu bytes are needed", pl.total);
    if (e->p->dtype == CUDNN_DATA_FLOAT)
        return run_f32(e, &pl);
    return run_f64(e, &pl);
}
