/* SPDX-License-Identifier: Apache-2.0
 * The blocked direct convolution (conv_direct_blocked.h): plan, reorders,
 * tasks and epilogue around the microkernels of conv_direct.h. */
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_direct_blocked.h"
#include "cpu/kernels/conv_direct.h"
#include "cpu/kernels/transpose_ptrs.h"
#include "cpu/config/config.h"
#include "cpu/simd/cvt.h"
#include "cpu/tensor/convert_row.h"

#define KB FDNN_CONV_DIRECT_KB

/* Sizes beyond this many floats are refused (no size_t overflow below). */
#define MAX_FLOATS ((double)(1ull << 58))
/* The reordered filter and padded image are private copies of the
 * operands: a few times their size on network layers (channels rounded up
 * to KB, rows padded to the tile).  Past COPY_FLOOR_FLOATS (16 MiB) they
 * may be at most COPY_RATIO times the filter plus one image of x and y;
 * beyond that (a padding or dilation far larger than the tensor, which
 * only the padding would fill) the solver declines and the formula loops,
 * which need no scratch, run instead. */
#define COPY_FLOOR_FLOATS ((double)(1u << 22))
#define COPY_RATIO 64.0

typedef struct plan {
    int64_t g, cg, kg;
    int64_t cin, ncb, nkb, taps;
    int64_t dp, hp, wp; /* extents of the reordered image (padded) */
    size_t w_floats;    /* reordered filter, all groups */
    size_t in_floats;   /* one reordered image, all groups */
    /* Tiling of the chosen ISA. */
    fdnn_f32_conv_direct_fn kernel;
    fdnn_f32_conv_direct_pack_fn pack16;
    int64_t ur, tiles, kbt; /* pixels per tile, tiles per row, blocks per task */
    int64_t rows;           /* output rows per tile (2 when two rows fit a tile) */
} plan_t;

/* Tiles of at most `max_ur` pixels covering `ow`, all of the same width
 * (the last one may reach past the row: its extra pixels are computed on
 * zero padding and never stored). */
static void
tile_row(int64_t ow, int64_t max_ur, int64_t *ur, int64_t *tiles)
{
    *tiles = (ow + max_ur - 1) / max_ur;
    *ur = (ow + *tiles - 1) / *tiles;
}

static int64_t
padded_width(const fdnn_conv_problem_t *p, int64_t max_ur)
{
    int64_t ur, tiles;
    tile_row(p->out[2], max_ur, &ur, &tiles);
    return (tiles * ur - 1) * p->stride[2] + (p->ker[2] - 1) * p->dil[2] + 1;
}

static void
isa_tiling(fdnn_isa_t isa, plan_t *pl, int64_t *max_ur, int64_t *max_nkb)
{
    const fdnn_isa_config_t *level = fdnn_isa_config(isa);
    pl->pack16 = level->conv_direct.pack16;
    pl->kernel = level->conv_direct.ukernel;
    *max_ur = level->conv_direct.max_ur;
    *max_nkb = level->conv_direct.max_nkb;
}

/* The layout part of the plan (ISA-independent, sizes the scratch). */
static cudnnStatus_t
make_layout(const fdnn_conv_problem_t *p, plan_t *pl)
{
    memset(pl, 0, sizeof(*pl));
    pl->g = p->g;
    pl->cg = fdnn_conv_cg(p);
    pl->kg = fdnn_conv_kg(p);
    pl->cin = pl->cg < KB ? pl->cg : KB;
    pl->ncb = (pl->cg + pl->cin - 1) / pl->cin;
    pl->nkb = (pl->kg + KB - 1) / KB;
    pl->taps = fdnn_conv_taps(p);
    pl->dp = (p->out[0] - 1) * p->stride[0] + (p->ker[0] - 1) * p->dil[0] + 1;
    pl->hp = (p->out[1] - 1) * p->stride[1] + (p->ker[1] - 1) * p->dil[1] + 1;
    /* The widest padding any ISA's tiling needs: one layout for every
     * ISA level. */
    int64_t wp = padded_width(p, FDNN_SCALAR_CONV_DIRECT_UR);
    int64_t w2 = padded_width(p, FDNN_AVX2_CONV_DIRECT_UR), w3 = padded_width(p, FDNN_AVX512_CONV_DIRECT_UR);
    int64_t w4 = padded_width(p, FDNN_NEON_CONV_DIRECT_UR);
    wp = w2 > wp ? w2 : wp;
    wp = w4 > wp ? w4 : wp;
    pl->wp = w3 > wp ? w3 : wp;
    double wf = (double)pl->g * (double)pl->nkb * KB * (double)pl->ncb * (double)pl->cin * (double)pl->taps;
    double inf = (double)pl->g * (double)pl->ncb * (double)pl->cin * (double)pl->dp * (double)pl->hp * (double)pl->wp;
    if (wf + inf > MAX_FLOATS)
        return FDNN_NOT_SUPPORTED("direct convolution: reordered operands of %.3g floats are too large", wf + inf);
    double operands = (double)p->k * (double)pl->cg * (double)pl->taps +
                      (double)p->c * (double)p->in[0] * (double)p->in[1] * (double)p->in[2] +
                      (double)p->k * (double)p->out[0] * (double)p->out[1] * (double)p->out[2];
    if (wf + inf > COPY_FLOOR_FLOATS && wf + inf > COPY_RATIO * operands)
        return FDNN_NOT_SUPPORTED("direct convolution: reordered operands of %.3g floats for %.3g floats of "
                                  "filter and image (padding or dilation far beyond the tensor)",
                                  wf + inf, operands);
    pl->w_floats = (size_t)wf;
    pl->in_floats = (size_t)inf;
    return CUDNN_STATUS_SUCCESS;
}

bool
fdnn_conv_direct_blocked_applies(const fdnn_conv_problem_t *p)
{
    return p->dir == FDNN_CONV_FWD && p->dtype == CUDNN_DATA_FLOAT;
}

typedef struct job {
    const fdnn_conv_exec_t *e;
    const fdnn_conv_problem_t *p;
    plan_t pl;
    float *wbuf, *ibuf;
    int64_t n; /* the image being computed */
    int64_t nkt; /* tasks along K per group: ceil(nkb / kbt) */
    int64_t nrg; /* row groups per output depth: ceil(oh / rows) */
    bool transposed; /* filter element (k, c) is p->w's (c, k): backward data */
    /* Storage types (fdnn_conv_direct_blocked_converts): FLOAT, or HALF /
     * BFLOAT16 converted to FP32 in the reorders and rounded back in the
     * store; the converters of the handle's ISA for the 16-bit type. */
    cudnnDataType_t dt;
    fdnn_convert_row_fn to_f32, from_f32;
} job_t;

/* Element i of a 16-bit operand of type dt as FP32 (exact). */
static inline float
load16(cudnnDataType_t dt, const void *src, int64_t i)
{
    uint16_t v = ((const uint16_t *)src)[i];
    return dt == CUDNN_DATA_HALF ? fdnn_f16_to_f32(v) : fdnn_bf16_to_f32(v);
}

/* v rounded to dt (nearest even), one element (the rows use from_f32). */
static inline uint16_t
store16(cudnnDataType_t dt, float v)
{
    return dt == CUDNN_DATA_HALF ? fdnn_f32_to_f16(v) : fdnn_f32_to_bf16(v);
}

bool
fdnn_conv_direct_blocked_converts(const fdnn_conv_problem_t *p)
{
    cudnnDataType_t dt = p->x.dtype;
    if (p->dir != FDNN_CONV_FWD || (dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16))
        return false;
    return p->w.dtype == dt && p->y.dtype == dt;
}

/* Most FP32 values of reorder_filter16's converted rows (16 KiB, in L1). */
#define FILTER16_FLOATS 4096

/* reorder_filter of a 16-bit filter stored K x C x taps with the taps and
 * then the channels packed (KCRS): the block's 16 rows of cc x taps
 * contiguous values converted first (the row converter, exact), then
 * placed as the FP32 reorder places them; false (nothing written) for other
 * layouts or blocks too large, which convert element by element. */
static bool
reorder_filter16(const job_t *j, int64_t g, int64_t kb, int64_t cb, int64_t kc, int64_t cc, float *dst)
{
    const fdnn_conv_problem_t *p = j->p;
    const plan_t *pl = &j->pl;
    int64_t taps = pl->taps, row = cc * taps;
    const int64_t *st = p->w.strides;
    /* (a dimension of extent 1 may carry any stride) */
    bool packed = (p->ker[2] == 1 || st[4] == 1) && (p->ker[1] == 1 || st[3] == p->ker[2]) &&
                  (p->ker[0] == 1 || st[2] == p->ker[1] * p->ker[2]) && (cc == 1 || st[1] == taps);
    if (j->transposed || !packed || KB * row > FILTER16_FLOATS)
        return false;
    float rows[FILTER16_FLOATS];
    const uint16_t *w = (const uint16_t *)j->e->w_in + fdnn_conv_off5(&p->w, g * pl->kg + kb * KB, cb * pl->cin, 0, 0, 0);
    for (int64_t k = 0; k < kc; k++)
        j->to_f32(w + k * st[0], rows + k * row, (size_t)row);
    for (int64_t qd = 0; qd < p->ker[0]; qd++)
        for (int64_t qh = 0; qh < p->ker[1]; qh++)
            for (int64_t qw = 0; qw < p->ker[2]; qw++) {
                int64_t fd = p->flip ? p->ker[0] - 1 - qd : qd, fh = p->flip ? p->ker[1] - 1 - qh : qh;
                int64_t fw = p->flip ? p->ker[2] - 1 - qw : qw;
                const float *src = rows + (fd * p->ker[1] + fh) * p->ker[2] + fw;
                for (int64_t c = 0; c < pl->cin; c++, dst += KB) {
                    int64_t k = 0;
                    if (c < cc)
                        for (; k < kc; k++)
                            dst[k] = src[k * row + c * taps];
                    for (; k < KB; k++)
                        dst[k] = 0;
                }
            }
    return true;
}

/* reorder_filter of an FP32 filter whose channels are contiguous (KRSC,
 * the NHWC filter format): per tap, the block's kc rows of cc channels
 * (each a contiguous run of w) turned by the level's 16 x 16 transpose
 * (transpose_ptrs.h; the element loop below gathers each 16-float column
 * from 16 rows a filter row apart, which took 73% of ResNet-50 res5 3x3's
 * direct time at mb=1); false (nothing written) for other layouts. */
static bool
reorder_filter_krsc(const job_t *j, int64_t g, int64_t kb, int64_t cb, int64_t kc, int64_t cc, float *dst)
{
    const fdnn_conv_problem_t *p = j->p;
    const plan_t *pl = &j->pl;
    if (j->transposed || j->dt != CUDNN_DATA_FLOAT || (cc > 1 && p->w.strides[1] != 1))
        return false;
    fdnn_f32_transpose_ptrs_fn tr = fdnn_isa_config(j->e->handle->isa)->conv_gemm.transpose_ptrs;
    const float *w = j->e->w_in;
    size_t block = (size_t)(pl->cin * KB);
    for (int64_t qd = 0; qd < p->ker[0]; qd++)
        for (int64_t qh = 0; qh < p->ker[1]; qh++)
            for (int64_t qw = 0; qw < p->ker[2]; qw++, dst += block) {
                int64_t fd = p->flip ? p->ker[0] - 1 - qd : qd, fh = p->flip ? p->ker[1] - 1 - qh : qh;
                int64_t fw = p->flip ? p->ker[2] - 1 - qw : qw;
                const float *src[KB];
                float *rows[KB];
                for (int64_t k = 0; k < kc; k++)
                    src[k] = w + fdnn_conv_off5(&p->w, g * pl->kg + kb * KB + k, cb * pl->cin, fd, fh, fw);
                for (int64_t c = 0; c < cc; c++)
                    rows[c] = dst + c * KB;
                if (kc < KB || cc < pl->cin)
                    memset(dst, 0, sizeof(float) * block);
                tr((size_t)kc, (size_t)cc, src, rows);
            }
    return true;
}

/* Filter block (g, kb, cb) for task = (g*nkb + kb)*ncb + cb: taps in the
 * kernel's order, then cin channels, then 16 output channels. */
static void
reorder_filter(void *arg, size_t task)
{
    const job_t *j = arg;
    const fdnn_conv_problem_t *p = j->p;
    const plan_t *pl = &j->pl;
    const float *w = j->e->w_in;
    const uint16_t *w16 = j->e->w_in;
    int64_t cb = (int64_t)task % pl->ncb, kb = (int64_t)task / pl->ncb % pl->nkb;
    int64_t g = (int64_t)task / pl->ncb / pl->nkb;
    float *dst = j->wbuf + task * (size_t)(pl->taps * pl->cin * KB);
    int64_t kc = pl->kg - kb * KB < KB ? pl->kg - kb * KB : KB;
    int64_t cc = pl->cg - cb * pl->cin < pl->cin ? pl->cg - cb * pl->cin : pl->cin;
    if (j->dt != CUDNN_DATA_FLOAT && reorder_filter16(j, g, kb, cb, kc, cc, dst))
        return;
    if (reorder_filter_krsc(j, g, kb, cb, kc, cc, dst))
        return;
    for (int64_t qd = 0; qd < p->ker[0]; qd++)
        for (int64_t qh = 0; qh < p->ker[1]; qh++)
            for (int64_t qw = 0; qw < p->ker[2]; qw++) {
                int64_t fd = p->flip ? p->ker[0] - 1 - qd : qd, fh = p->flip ? p->ker[1] - 1 - qh : qh;
                int64_t fw = p->flip ? p->ker[2] - 1 - qw : qw;
                for (int64_t c = 0; c < pl->cin; c++, dst += KB) {
                    int64_t k = 0;
                    if (c < cc) {
                        int64_t o = j->transposed
                                        ? fdnn_conv_off5(&p->w, g * pl->cg + cb * pl->cin + c, kb * KB, fd, fh, fw)
                                        : fdnn_conv_off5(&p->w, g * pl->kg + kb * KB, cb * pl->cin + c, fd, fh, fw);
                        int64_t step = p->w.strides[j->transposed ? 1 : 0];
                        if (j->dt == CUDNN_DATA_FLOAT)
                            for (; k < kc; k++)
                                dst[k] = w[o + k * step];
                        else
                            for (; k < kc; k++)
                                dst[k] = load16(j->dt, w16, o + k * step);
                    }
                    for (; k < KB; k++)
                        dst[k] = 0;
                }
            }
}

/* Pixels per piece of reorder_row16's NCHW path: 16 channel rows of this
 * many FP32 values (4 KiB) stay in L1 between conversion and pack. */
#define PACK16_PIECE 64

/* reorder_input's columns [w0, w1) of a 16-bit image (src: the first one's
 * first channel; cc of cin channels real): the same layouts and the same
 * FP32 values as the FP32 reorder of the image converted first (the
 * conversion is exact), converted here while the row is read. */
static void
reorder_row16(const job_t *j, const uint16_t *src, int64_t sc, int64_t sw, int64_t cc, int64_t w0, int64_t w1,
              float *dst)
{
    int64_t cin = j->pl.cin;
    if (sc == 1 && cc == cin) { /* channels contiguous (NHWC): pixel by pixel */
        for (int64_t w = w0; w < w1; w++, src += sw)
            j->to_f32(src, dst + w * cin, (size_t)cin);
        return;
    }
    if (sw == 1 && cin == KB && cc == KB) { /* NCHW: 16 rows converted, then the FP32 transpose */
        float rows[KB * PACK16_PIECE];
        for (int64_t c0 = w0; c0 < w1; c0 += PACK16_PIECE) {
            int64_t len = w1 - c0 < PACK16_PIECE ? w1 - c0 : PACK16_PIECE;
            for (int64_t c = 0; c < KB; c++)
                j->to_f32(src + c * sc + (c0 - w0), rows + c * PACK16_PIECE, (size_t)len);
            j->pl.pack16((size_t)len, rows, PACK16_PIECE, dst + c0 * cin);
        }
        return;
    }
    if (sw == 1 && cin <= KB) { /* NCHW, fewer channels (the stem's 3): rows converted, then interleaved */
        float rows[KB * PACK16_PIECE];
        for (int64_t c0 = w0; c0 < w1; c0 += PACK16_PIECE) {
            int64_t len = w1 - c0 < PACK16_PIECE ? w1 - c0 : PACK16_PIECE;
            for (int64_t c = 0; c < cc; c++)
                j->to_f32(src + c * sc + (c0 - w0), rows + c * PACK16_PIECE, (size_t)len);
            float *d = dst + c0 * cin;
            for (int64_t w = 0; w < len; w++)
                for (int64_t c = 0; c < cin; c++)
                    d[w * cin + c] = c < cc ? rows[c * PACK16_PIECE + w] : 0;
        }
        return;
    }
    for (int64_t c = 0; c < cin; c++)
        for (int64_t w = w0; w < w1; w++)
            dst[w * cin + c] = c < cc ? load16(j->dt, src, c * sc + (w - w0) * sw) : 0;
}

/* Row (g, cb, dp, hp) of the reordered image j->n for
 * task = ((g*ncb + cb)*dp + d)*hp + h: W' pixels of cin channels. */
static void
reorder_input(void *arg, size_t task)
{
    const job_t *j = arg;
    const fdnn_conv_problem_t *p = j->p;
    const plan_t *pl = &j->pl;
    const float *x = j->e->x_in;
    int64_t h = (int64_t)task % pl->hp, d = (int64_t)task / pl->hp % pl->dp;
    int64_t cb = (int64_t)task / pl->hp / pl->dp % pl->ncb, g = (int64_t)task / pl->hp / pl->dp / pl->ncb;
    int64_t cin = pl->cin, wp = pl->wp;
    float *dst = j->ibuf + task * (size_t)(wp * cin);
    int64_t id = d - p->pad[0], ih = h - p->pad[1];
    if (id < 0 || id >= p->in[0] || ih < 0 || ih >= p->in[1]) {
        memset(dst, 0, sizeof(float) * (size_t)(wp * cin));
        return;
    }
    /* Padded columns [w0, w1) hold input columns 0.. */
    int64_t w0 = p->pad[2] < wp ? p->pad[2] : wp;
    int64_t w1 = p->pad[2] + p->in[2] < wp ? p->pad[2] + p->in[2] : wp;
    int64_t cc = pl->cg - cb * cin < cin ? pl->cg - cb * cin : cin;
    memset(dst, 0, sizeof(float) * (size_t)(w0 * cin));
    if (w1 <= w0)
        return; /* the row is all padding */
    memset(dst + w1 * cin, 0, sizeof(float) * (size_t)((wp - w1) * cin));
    int64_t sc = p->x.strides[1], sw = p->x.strides[4];
    int64_t xo = fdnn_conv_off5(&p->x, j->n, g * pl->cg + cb * cin, id, ih, w0 - p->pad[2]);
    if (j->dt != CUDNN_DATA_FLOAT) {
        reorder_row16(j, (const uint16_t *)j->e->x_in + xo, sc, sw, cc, w0, w1, dst);
        return;
    }
    const float *src = x + xo;
    if (sc == 1 && cc == cin) { /* channels contiguous (NHWC): pixel by pixel */
        for (int64_t w = w0; w < w1; w++, src += sw)
            memcpy(dst + w * cin, src, sizeof(float) * (size_t)cin);
        return;
    }
    if (sw == 1 && cin == KB && cc == KB) { /* pixels contiguous (NCHW): transposed in vector blocks */
        pl->pack16((size_t)(w1 - w0), src, (size_t)sc, dst + w0 * cin);
        return;
    }
    for (int64_t c = 0; c < cin; c++) {
        if (c >= cc) {
            for (int64_t w = w0; w < w1; w++)
                dst[w * cin + c] = 0;
            continue;
        }
        const float *s = src + c * sc;
        for (int64_t w = w0; w < w1; w++)
            dst[w * cin + c] = s[(w - w0) * sw];
    }
}

/* Whether tiles go to y channel-major: y's pixels along W are closer than
 * its channels (NCHW-like, or the every-s-th-pixel view of a backward-data
 * phase), so each channel's pixels are one run, contiguous or short-strided.
 * The kernel itself stores channel-major only with W contiguous. */
static bool
kmajor_output(const fdnn_conv_problem_t *p)
{
    return p->y.strides[1] != 1 && p->y.strides[4] < p->y.strides[1];
}

/* The first `pixels` pixels and `kc` channels of one row of a tile
 * (channel k of pixel u at tile[k*t_k + u*t_px]) blended into y at
 * (n, k0, od, oh, ow0). */
static void
store_tile(const job_t *j, const float *tile, size_t t_k, size_t t_px, int64_t k0, int64_t kc, int64_t od,
           int64_t oh, int64_t ow0, int64_t pixels)
{
    const fdnn_conv_exec_t *e = j->e;
    const fdnn_conv_problem_t *p = j->p;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    const float *bias = e->bias;
    bool relu = e->relu;
    float *y = (float *)e->out + fdnn_conv_off5(&p->y, j->n, k0, od, oh, ow0);
    int64_t sk = p->y.strides[1], sw = p->y.strides[4];
    if (kmajor_output(p)) {
        for (int64_t k = 0; k < kc; k++) {
            const float *b = bias != NULL ? bias + k0 + k : NULL;
            for (int64_t u = 0; u < pixels; u++)
                y[k * sk + u * sw] = fdnn_conv_epilogue_f32(tile[(size_t)k * t_k + (size_t)u * t_px], alpha, beta,
                                            y + k * sk + u * sw, b, relu);
        }
        return;
    }
    for (int64_t u = 0; u < pixels; u++)
        for (int64_t k = 0; k < kc; k++)
            y[k * sk + u * sw] = fdnn_conv_epilogue_f32(tile[(size_t)k * t_k + (size_t)u * t_px], alpha, beta, y + k * sk + u * sw,
                                        bias != NULL ? bias + k0 + k : NULL, relu);
}

/* store_tile for a HALF / BFLOAT16 y: the blend in FP32 as the staged
 * path's write pass does it (conv_lowp.c: alpha, beta times y's old value
 * converted, bias in y's type converted, ReLU; alpha 1, beta 0, no bias,
 * no ReLU leaves the raw sums), rounded to y's type; each run of the tile
 * that is contiguous in y (a channel's pixels, or a pixel's channels) by
 * the row converter while the tile is in L1. */
static void
store_tile16(const job_t *j, const float *tile, size_t t_k, size_t t_px, int64_t k0, int64_t kc, int64_t od,
             int64_t oh, int64_t ow0, int64_t pixels)
{
    const fdnn_conv_exec_t *e = j->e;
    const fdnn_conv_problem_t *p = j->p;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    bool raw = alpha == 1 && beta == 0 && e->bias == NULL && !e->relu;
    uint16_t *y = (uint16_t *)e->out + fdnn_conv_off5(&p->y, j->n, k0, od, oh, ow0);
    bool km = kmajor_output(p);
    /* runs along pixels (k-major y) or along channels */
    int64_t runs = km ? kc : pixels, len = km ? pixels : kc;
    size_t t_run = km ? t_k : t_px, t_el = km ? t_px : t_k;
    int64_t s_run = km ? p->y.strides[1] : p->y.strides[4], s_el = km ? p->y.strides[4] : p->y.strides[1];
    float v[4 * KB]; /* len <= max(ur, nkb * KB) = 32 */
    for (int64_t r = 0; r < runs; r++) {
        const float *t = tile + (size_t)r * t_run;
        uint16_t *yr = y + r * s_run;
        if (raw && s_el == 1 && t_el == 1) { /* straight from the tile */
            j->from_f32(t, yr, (size_t)len);
            continue;
        }
        for (int64_t i = 0; i < len; i++) {
            float s = t[(size_t)i * t_el];
            if (!raw) {
                int64_t k = k0 + (km ? r : i);
                float b = e->bias != NULL ? load16(j->dt, e->bias, k) : 0;
                float old = beta != 0 ? load16(j->dt, yr, i * s_el) : 0;
                s = fdnn_conv_epilogue_f32(s, alpha, beta, &old, e->bias != NULL ? &b : NULL, e->relu);
            }
            v[i] = s;
        }
        if (s_el == 1)
            j->from_f32(v, yr, (size_t)len);
        else
            for (int64_t i = 0; i < len; i++)
                yr[i * s_el] = store16(j->dt, v[i]);
    }
}

/* Output rows of image j->n for task = ((g*nkt + kt)*od + d)*nrg + rg:
 * rows [rg*rows, rg*rows + rows) of depth d (fewer in the last group),
 * every tile, blocks [kt*kbt, kt*kbt + kbt) of group g. */
static void
compute_row(void *arg, size_t task)
{
    const job_t *j = arg;
    const fdnn_conv_problem_t *p = j->p;
    const plan_t *pl = &j->pl;
    int64_t nrg = j->nrg;
    int64_t rg = (int64_t)task % nrg, od = (int64_t)task / nrg % p->out[0];
    int64_t kt = (int64_t)task / nrg / p->out[0] % j->nkt, g = (int64_t)task / nrg / p->out[0] / j->nkt;
    int64_t oh = rg * pl->rows, rows = p->out[1] - oh < pl->rows ? p->out[1] - oh : pl->rows;
    int64_t kb0 = kt * pl->kbt;
    int64_t nkb = pl->nkb - kb0 < pl->kbt ? pl->nkb - kb0 : pl->kbt;
    int64_t k0 = kb0 * KB, kc = pl->kg - k0 < nkb * KB ? pl->kg - k0 : nkb * KB;
    int64_t cin = pl->cin;
    size_t plane = (size_t)(pl->hp * pl->wp * cin);
    fdnn_f32_conv_direct_args_t a;
    a.w_kb = (size_t)(pl->ncb * pl->taps * cin * KB);
    a.w = j->wbuf + (size_t)(g * pl->nkb + kb0) * a.w_kb;
    a.pixels = (size_t)pl->ur;
    a.rows = (size_t)rows;
    a.nkb = (size_t)nkb;
    a.cblocks = (size_t)pl->ncb;
    a.kd = (size_t)p->ker[0];
    a.kh = (size_t)p->ker[1];
    a.kw = (size_t)p->ker[2];
    a.cin = (size_t)cin;
    a.in_cb = plane * (size_t)pl->dp;
    a.in_d = plane * (size_t)p->dil[0];
    a.in_h = (size_t)(pl->wp * cin * p->dil[1]);
    a.in_w = (size_t)(cin * p->dil[2]);
    a.in_px = (size_t)(cin * p->stride[2]);
    a.in_row = (size_t)(pl->wp * cin * p->stride[1]);
    const float *in = j->ibuf + (size_t)(g * pl->ncb) * a.in_cb + (size_t)(od * p->stride[0]) * plane +
                      (size_t)oh * a.in_row;
    a.kmajor = kmajor_output(p);
    a.y_channels = (size_t)kc;
    /* Plain results (alpha 1, beta 0, no bias or ReLU) into a y whose
     * pixels or channels are contiguous: the kernel stores them itself;
     * otherwise into a tile blended by store_tile. */
    const fdnn_conv_exec_t *e = j->e;
    bool direct_out = j->dt == CUDNN_DATA_FLOAT && e->alpha == 1 && e->beta == 0 && e->bias == NULL && !e->relu &&
                      (a.kmajor ? p->y.strides[4] == 1 : p->y.strides[1] == 1);
    /* rows x 32 channels x 16 pixels; two for a 16-bit y, whose tiles are
     * converted one kernel call late: read right after the kernel's
     * stores, the converter's loads wait for them (store forwarding
     * fails), a stall that cost the stem as much as its conversion */
    float tiles[2][2 * FDNN_AVX512_CONV_DIRECT_NKB * KB * KB];
    float *tile = tiles[0];
    float *yrow = direct_out ? (float *)e->out + fdnn_conv_off5(&p->y, j->n, g * pl->kg + k0, od, oh, 0) : NULL;
    size_t t_k = a.kmajor ? (size_t)rows * KB : 1, t_px = a.kmajor ? 1 : (size_t)(nkb * KB);
    if (direct_out) {
        a.y_k = (size_t)p->y.strides[1];
        a.y_px = (size_t)p->y.strides[4];
        a.y_row = (size_t)p->y.strides[3];
    } else {
        a.y_k = t_k;
        a.y_px = t_px;
        a.y_row = a.kmajor ? KB : (size_t)pl->ur * t_px;
    }
    bool late = j->dt != CUDNN_DATA_FLOAT;
    for (int64_t t = 0; t < pl->tiles + late; t++) {
        int64_t ow0 = t * pl->ur;
        int64_t pixels = p->out[2] - ow0 < pl->ur ? p->out[2] - ow0 : pl->ur;
        if (t < pl->tiles) {
            tile = tiles[t & 1];
            a.in = in + (size_t)ow0 * a.in_px;
            a.y = direct_out ? yrow + ow0 * p->y.strides[4] : tile;
            a.y_pixels = (size_t)pixels;
            pl->kernel(&a);
            if (!direct_out && !late)
                for (int64_t r = 0; r < rows; r++)
                    store_tile(j, tile + (size_t)r * a.y_row, t_k, t_px, g * pl->kg + k0, kc, od, oh + r, ow0, pixels);
        }
        if (late && t > 0) { /* the previous tile */
            int64_t pw0 = (t - 1) * pl->ur, pp = p->out[2] - pw0 < pl->ur ? p->out[2] - pw0 : pl->ur;
            for (int64_t r = 0; r < rows; r++)
                store_tile16(j, tiles[(t - 1) & 1] + (size_t)r * a.y_row, t_k, t_px, g * pl->kg + k0, kc, od, oh + r,
                             pw0, pp);
        }
    }
}

/* The filter reorder of slice g*nkt + kt: blocks [kt*kbt, kt*kbt + kbt) of
 * group g. */
static void
reorder_filter_slice(const job_t *j, size_t slice)
{
    const plan_t *pl = &j->pl;
    size_t g = slice / (size_t)j->nkt, kt = slice % (size_t)j->nkt;
    size_t kb0 = kt * (size_t)pl->kbt, kb1 = kb0 + (size_t)pl->kbt < (size_t)pl->nkb ? kb0 + (size_t)pl->kbt : (size_t)pl->nkb;
    for (size_t kb = kb0; kb < kb1; kb++)
        for (size_t cb = 0; cb < (size_t)pl->ncb; cb++)
            reorder_filter((void *)j, (g * (size_t)pl->nkb + kb) * (size_t)pl->ncb + cb);
}

/* Slice `task` (see reorder_filter_slice): its filter reorder, then every
 * output row of image j->n with it, while the reordered slice is still in
 * cache.  The first image runs this way when there are enough such tasks,
 * which saves the filter a trip through memory when it is large and the
 * image small (mb=1); the sums are the same as compute_row's. */
static void
compute_kgroup(void *arg, size_t task)
{
    const job_t *j = arg;
    const fdnn_conv_problem_t *p = j->p;
    reorder_filter_slice(j, task);
    size_t rows = (size_t)(p->out[0] * j->nrg);
    for (size_t r = 0; r < rows; r++)
        compute_row(arg, task * rows + r);
}

/* Fewest (group, block pair) tasks for compute_kgroup. */
#define KGROUP_TASKS 8

/* The job of the forward convolution e->p (for backward data, an
 * equivalent forward problem with the filter read transposed): layout and
 * the tiling of the handle's ISA; the buffers are the caller's to set. */
static cudnnStatus_t
make_job(const fdnn_conv_exec_t *e, bool transposed, job_t *j)
{
    const fdnn_conv_problem_t *p = e->p;
    memset(j, 0, sizeof(*j));
    j->e = e;
    j->p = p;
    j->transposed = transposed;
    j->dt = CUDNN_DATA_FLOAT;
    if (fdnn_conv_direct_blocked_converts(p)) {
        fdnn_cvt_path_t path = fdnn_convert_row_path(e->handle->isa);
        j->dt = p->x.dtype;
        j->to_f32 = fdnn_convert_row_kernel(path, j->dt, CUDNN_DATA_FLOAT);
        j->from_f32 = fdnn_convert_row_kernel(path, CUDNN_DATA_FLOAT, j->dt);
        if (j->to_f32 == NULL || j->from_f32 == NULL)
            return FDNN_NOT_SUPPORTED("direct convolution: no row converter for %s", fdnn_dtype_name(j->dt));
    }
    RETURN_IF_ERROR(make_layout(p, &j->pl));
    int64_t max_ur, max_nkb;
    isa_tiling(e->handle->isa, &j->pl, &max_ur, &max_nkb);
    tile_row(p->out[2], max_ur, &j->pl.ur, &j->pl.tiles);
    j->pl.kbt = max_nkb;
    /* Short rows: two rows per tile, so each weight vector loaded serves
     * twice as many pixels. */
    j->pl.rows = j->pl.ur * 2 <= max_ur && p->out[1] >= 2 ? 2 : 1;
    j->nrg = (p->out[1] + j->pl.rows - 1) / j->pl.rows;
    j->nkt = (j->pl.nkb + j->pl.kbt - 1) / j->pl.kbt;
    return CUDNN_STATUS_SUCCESS;
}

/* Scratch bytes of a job's reordered filter and of its reordered image. */
static size_t
job_w_bytes(const job_t *j)
{
    return fdnn_align_up(j->pl.w_floats * sizeof(float));
}

static size_t
job_in_bytes(const job_t *j)
{
    return fdnn_align_up(j->pl.in_floats * sizeof(float));
}

/* Image n of a job whose filter is reordered: its input reorder, then
 * every output row. */
static void
run_image(job_t *j, int64_t n)
{
    j->n = n;
    fdnn_parallelize_1d(j->e->pool, reorder_input, j, (size_t)(j->pl.g * j->pl.ncb * j->pl.dp * j->pl.hp), 0);
    fdnn_parallelize_1d(j->e->pool, compute_row, j,
                               (size_t)(j->pl.g * j->nkt) * (size_t)(j->p->out[0] * j->nrg), 0);
}

/* The batched mode (at least as many images as threads): task (h, c)
 * computes the filter slices of range h (of `ksplit`) on the images of
 * chunk c (of `chunks`), one image after the other, each reordered into the
 * task's own buffer.  One or two parallel calls per convolution instead of
 * two per image: every parallel call waits for all the pool's threads, and
 * when the machine is oversubscribed (another process on one of the cores)
 * each wait can last a scheduler time slice; with two per image a batch of
 * 32 took ten times as long (ResNet-50 res2/res5 3x3, mb=32: 500 ms against
 * 90 ms now, with another process busy; 3-5% slower than per image on
 * res4/res5 on a quiet machine, within noise on res2/res3).
 * A filter over BATCHED_SPLIT_FILTER_BYTES is split in one range per thread
 * (ksplit = threads, chunks = 1): each task reorders its own range and runs
 * every image with it, so the range stays in the thread's cache across
 * images (an image is reordered once per range, a small price beside the
 * filter).  A smaller filter is reordered first, in a parallel call of its
 * own, and the images go in 2 x threads chunks (ksplit = 1). */
typedef struct batched {
    const job_t *j;
    int64_t ksplit, chunks;
    size_t buf_floats; /* one task's image buffer */
} batched_t;

static void
compute_batched(void *arg, size_t t)
{
    const batched_t *b = arg;
    job_t j = *b->j;
    j.ibuf = b->j->ibuf + t * b->buf_floats;
    int64_t h = (int64_t)t / b->chunks, c = (int64_t)t % b->chunks;
    size_t inputs = (size_t)(j.pl.g * j.pl.ncb * j.pl.dp * j.pl.hp);
    size_t rows = (size_t)(j.p->out[0] * j.nrg), slices = (size_t)(j.pl.g * j.nkt);
    size_t s0 = slices * (size_t)h / (size_t)b->ksplit, s1 = slices * (size_t)(h + 1) / (size_t)b->ksplit;
    int64_t n0 = j.p->n * c / b->chunks, n1 = j.p->n * (c + 1) / b->chunks;
    if (b->chunks == 1) /* the task's own filter range, reordered here while it is about to be used */
        for (size_t sl = s0; sl < s1; sl++)
            reorder_filter_slice(&j, sl);
    for (j.n = n0; j.n < n1; j.n++) {
        for (size_t i = 0; i < inputs; i++)
            reorder_input(&j, i);
        for (size_t r = s0 * rows; r < s1 * rows; r++)
            compute_row(&j, r);
    }
}

/* Image buffers of the batched mode take at most this many bytes. */
#define BATCHED_BYTES (64u << 20)
/* A filter larger than this is split across the threads in the batched
 * mode (each thread's share then fits its L2). */
#define BATCHED_SPLIT_FILTER_BYTES (1u << 20)

/* The batched mode's shape, false for images one at a time (fewer images
 * than threads: each image's rows in parallel instead, as for mb=1). */
static bool
batched_shape(const fdnn_conv_exec_t *e, const job_t *j, size_t w_bytes, size_t in_bytes, batched_t *b)
{
    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    size_t n = (size_t)e->p->n, slices = (size_t)(j->pl.g * j->nkt);
    if (threads < 2 || n < threads)
        return false;
    size_t ksplit = w_bytes > BATCHED_SPLIT_FILTER_BYTES && slices >= threads ? threads : 1;
    size_t chunks = ksplit > 1 ? 1 : 2 * threads < n ? 2 * threads : n;
    while (chunks > 1 && ksplit * chunks * in_bytes > BATCHED_BYTES)
        chunks--;
    if (ksplit * chunks < threads || ksplit * chunks * in_bytes > BATCHED_BYTES)
        return false;
    b->j = j;
    b->ksplit = (int64_t)ksplit;
    b->chunks = (int64_t)chunks;
    b->buf_floats = in_bytes / sizeof(float);
    return true;
}

/* The forward convolution e->p (for backward data, the equivalent forward
 * problem with the filter read transposed). */
static cudnnStatus_t
run_forward(const fdnn_conv_exec_t *e, bool transposed)
{
    const fdnn_conv_problem_t *p = e->p;
    job_t j;
    RETURN_IF_ERROR(make_job(e, transposed, &j));
    size_t wbytes = job_w_bytes(&j), in_bytes = job_in_bytes(&j);
    batched_t b;
    bool batched = batched_shape(e, &j, wbytes, in_bytes, &b);
    size_t buffers = batched ? (size_t)(b.ksplit * b.chunks) : 1;
    char *scratch = fdnn_handle_scratch(e->handle, wbytes + in_bytes * buffers);
    if (scratch == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    j.wbuf = (float *)scratch;
    j.ibuf = (float *)(scratch + wbytes);
    if (batched) {
        if (b.chunks > 1)
            fdnn_parallelize_1d(e->pool, reorder_filter, &j, (size_t)(j.pl.g * j.pl.nkb * j.pl.ncb), 0);
        fdnn_parallelize_1d(e->pool, compute_batched, &b, buffers, 0);
        return CUDNN_STATUS_SUCCESS;
    }
    size_t kgroups = (size_t)(j.pl.g * j.nkt);
    if (kgroups < KGROUP_TASKS)
        fdnn_parallelize_1d(e->pool, reorder_filter, &j, (size_t)(j.pl.g * j.pl.nkb * j.pl.ncb), 0);
    for (int64_t n = 0; n < p->n; n++) {
        if (n == 0 && kgroups >= KGROUP_TASKS) {
            j.n = 0;
            fdnn_parallelize_1d(e->pool, reorder_input, &j, (size_t)(j.pl.g * j.pl.ncb * j.pl.dp * j.pl.hp), 0);
            fdnn_parallelize_1d(e->pool, compute_kgroup, &j, kgroups, 0);
        } else {
            run_image(&j, n);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_direct_blocked_execute(const fdnn_conv_exec_t *e)
{
    return run_forward(e, false);
}

/* Backward data, dx[i] = sum_{o, q: i = o*s - pad + q*d} dy[o] * w[q] per
 * spatial dimension (s stride, d dilation; w's taps reversed in
 * CONVOLUTION mode), by the polyphase decomposition.  The dx positions
 * i = a + s*iq of phase a (0 <= a < s) are reached only by the taps q with
 * q*d = a + pad (mod s).  With g = gcd(s, d) these are q = q0 + (s/g)*j,
 * j = 0 .. nj-1 (none when no q0 < min(s/g, ker) solves it), and tap j
 * reads dy at o = iq + off - (d/g)*j, off = (a + pad - q0*d) / s (exact).
 * So each phase is the stride-1 forward correlation of dy with that
 * sub-filter reversed, dilation d/g and padding (nj-1)*(d/g) - off, giving
 * the view dx[a::s]; with stride 1 there is one phase, the whole filter
 * reversed and padding (ker-1)*d - pad.  A negative padding skips that
 * many leading dy positions instead.  The phases partition dx, so alpha and
 * beta apply once per element; a phase no tap reaches is alpha*0 + beta*dx.
 * The filter is read transposed per group (K and C swapped). */
typedef struct phase_dim {
    int64_t count; /* dx positions in the phase (0: a >= the dx extent) */
    int64_t taps;  /* nj; 0 when no tap reaches the phase (or only dy's padding) */
    int64_t tap0;  /* stored tap of the view's first tap */
    int64_t step;  /* stored taps between consecutive view taps */
    int64_t dil;   /* dilation of the sub-convolution over dy */
    int64_t pad;   /* its padding, >= 0 */
    int64_t skip;  /* leading dy positions it never reads */
} phase_dim_t;

static void
phase_dim(const fdnn_conv_problem_t *p, int i, int64_t a, phase_dim_t *ph)
{
    int64_t s = p->stride[i], d = p->dil[i], ker = p->ker[i];
    int64_t g = fdnn_gcd_i64(s, d), r = (a + p->pad[i]) % s;
    memset(ph, 0, sizeof(*ph));
    ph->count = a < p->in[i] ? (p->in[i] - a + s - 1) / s : 0;
    ph->step = s / g;
    ph->dil = d / g;
    int64_t q0 = 0;
    while (q0 < ph->step && q0 < ker && q0 * d % s != r)
        q0++;
    if (q0 == ph->step || q0 == ker)
        return; /* no tap lands on this phase */
    int64_t nj = (ker - 1 - q0) / ph->step + 1;
    int64_t off = (a + p->pad[i] - q0 * d) / s;
    int64_t pad = (nj - 1) * ph->dil - off;
    if (pad < 0 && -pad >= p->out[i])
        return; /* every tap falls beyond dy's end */
    ph->skip = pad < 0 ? -pad : 0;
    ph->pad = pad < 0 ? 0 : pad;
    ph->taps = nj;
    ph->tap0 = p->flip ? ker - 1 - q0 - ph->step * (nj - 1) : q0;
}

/* The phase pa[] of e: its dx view in *f and *fe (the forward problem of
 * the phase when it has taps in every dimension, *empty otherwise).  False
 * when the phase holds no dx element. */
static bool
make_phase(const fdnn_conv_exec_t *e, const int64_t pa[3], fdnn_conv_problem_t *f, fdnn_conv_exec_t *fe,
           bool *empty)
{
    const fdnn_conv_problem_t *p = e->p;
    *f = *p;
    f->dir = FDNN_CONV_FWD;
    f->c = p->k;
    f->k = p->c;
    f->x = p->y; /* dy */
    f->y = p->x; /* dx */
    f->flip = !p->flip;
    *fe = *e;
    fe->p = f;
    fe->y_in = NULL;
    fe->bias = NULL;
    fe->relu = false;
    *empty = false;
    int64_t x_off = 0, w_off = 0, y_off = 0;
    for (int i = 0; i < 3; i++) {
        phase_dim_t ph;
        phase_dim(p, i, pa[i], &ph);
        if (ph.count == 0)
            return false;
        *empty = *empty || ph.taps == 0;
        y_off += pa[i] * p->x.strides[2 + i];
        f->y.dims[2 + i] = ph.count;
        f->y.strides[2 + i] *= p->stride[i];
        f->out[i] = ph.count;
        x_off += ph.skip * p->y.strides[2 + i];
        f->x.dims[2 + i] = p->out[i] - ph.skip;
        f->in[i] = p->out[i] - ph.skip;
        w_off += ph.tap0 * p->w.strides[2 + i];
        f->w.dims[2 + i] = ph.taps;
        f->w.strides[2 + i] *= ph.step;
        f->ker[i] = ph.taps;
        f->pad[i] = ph.pad;
        f->stride[i] = 1;
        f->dil[i] = ph.dil;
    }
    fe->out = (float *)e->out + y_off;
    fe->x_in = (const float *)e->y_in + x_off;
    fe->w_in = (const float *)e->w_in + w_off;
    return true;
}

bool
fdnn_conv_direct_blocked_bwd_data_applies(const fdnn_conv_problem_t *p)
{
    return p->dir == FDNN_CONV_BWD_DATA && p->dtype == CUDNN_DATA_FLOAT &&
           p->stride[0] * p->stride[1] * p->stride[2] <= FDNN_CONV_DIRECT_MAX_PHASES;
}

/* Strided backward data, per image: every phase's forward convolution
 * stores its plain sums (kernel stores, no blend) into a packed buffer of
 * its own, then one pass interleaves the phases into dx with alpha and
 * beta.  Storing each phase straight into its strided dx view would send
 * every tile through the scalar blend (every s-th pixel is not a run the
 * kernel can store): that cost a third of the time on res3 3x3 s2. */
typedef struct phases {
    const fdnn_conv_exec_t *e;
    int64_t n;
    bool chan_last;                             /* buffers [d][h][w][c] (dx's channels closest), else [c][d][h][w] */
    const float *buf[FDNN_CONV_DIRECT_MAX_PHASES]; /* phase (a0*s1 + a1)*s2 + a2 */
} phases_t;

/* Positions of phase a along one dimension of extent `in`, stride s. */
static inline int64_t
phase_count(int64_t in, int64_t a, int64_t s)
{
    return a < in ? (in - a + s - 1) / s : 0;
}

/* The sums of dx row (c, d, h) in the phase of W offset b, for every
 * b < min(s_w, W): rows[b] points at pixel 0 of that phase's row (for
 * channel-major buffers, channel c's; channel-last, every channel's), and
 * the row below in the same phase (h + s_h) is cw_b pixels further. */
static void
phase_rows(const phases_t *ph, int64_t c, int64_t d, int64_t h, const float **rows)
{
    const fdnn_conv_problem_t *p = ph->e->p;
    const int64_t *in = p->in, *s = p->stride;
    int64_t ad = d % s[0], ah = h % s[1];
    int64_t cd = phase_count(in[0], ad, s[0]), ch = phase_count(in[1], ah, s[1]);
    for (int64_t b = 0; b < s[2] && b < in[2]; b++) {
        int64_t cw = phase_count(in[2], b, s[2]);
        const float *buf = ph->buf[(ad * s[1] + ah) * s[2] + b];
        rows[b] = ph->chan_last ? buf + (d / s[0] * ch + h / s[1]) * cw * p->c
                                : buf + ((c * cd + d / s[0]) * ch + h / s[1]) * cw;
    }
}

/* One dx row (n, c, d, h) from its phases' rows (channel-major buffers):
 * dst = alpha*sum + beta*dst over W pixels of stride sw. */
static void
interleave_row(const float *const *rows, int64_t width, int64_t s, float alpha, float beta, float *dst, int64_t sw)
{
    if (s == 2 && width >= 2) {
        /* Stride 2 (the common case): pairs of pixels from the two rows. */
        const float *e0 = rows[0], *e1 = rows[1];
        int64_t pairs = width / 2;
        if (beta == 0 && sw == 1)
            for (int64_t q = 0; q < pairs; q++) {
                dst[2 * q] = alpha * e0[q];
                dst[2 * q + 1] = alpha * e1[q];
            }
        else
            for (int64_t q = 0; q < pairs; q++) {
                float v0 = alpha * e0[q], v1 = alpha * e1[q];
                if (beta != 0) {
                    v0 += beta * dst[2 * q * sw];
                    v1 += beta * dst[(2 * q + 1) * sw];
                }
                dst[2 * q * sw] = v0;
                dst[(2 * q + 1) * sw] = v1;
            }
        if (width % 2 != 0) {
            float v = alpha * e0[pairs];
            dst[2 * pairs * sw] = beta != 0 ? v + beta * dst[2 * pairs * sw] : v;
        }
        return;
    }
    /* Any stride: phase by phase, every s-th pixel. */
    for (int64_t b = 0; b < s && b < width; b++) {
        const float *src = rows[b];
        float *o = dst + b * sw;
        int64_t cw = phase_count(width, b, s), step = s * sw;
        for (int64_t q = 0; q < cw; q++) {
            float v = alpha * src[q];
            o[q * step] = beta != 0 ? v + beta * o[q * step] : v;
        }
    }
}

/* Image ph->n of dx, dx = alpha*sum + beta*dx with each element's sum read
 * from its phase (zeros for phases no tap reaches).  Channel-major buffers:
 * task = c*D + d, every row of that plane (the phase rows found once per
 * phase of H, then stepped); channel-last: task = d*H + h, one row of every
 * channel, pixel by pixel. */
static void
interleave_task(void *arg, size_t task)
{
    const phases_t *ph = arg;
    const fdnn_conv_exec_t *e = ph->e;
    const fdnn_conv_problem_t *p = e->p;
    const int64_t *in = p->in, *s = p->stride;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    const float *rows[FDNN_CONV_DIRECT_MAX_PHASES];
    if (ph->chan_last) {
        int64_t h = (int64_t)task % in[1], d = (int64_t)task / in[1];
        int64_t sc = p->x.strides[1];
        phase_rows(ph, 0, d, h, rows);
        for (int64_t w = 0; w < in[2]; w++) {
            const float *v = rows[w % s[2]] + w / s[2] * p->c;
            float *dst = (float *)e->out + fdnn_conv_off5(&p->x, ph->n, 0, d, h, w);
            if (beta == 0)
                for (int64_t k = 0; k < p->c; k++)
                    dst[k * sc] = alpha * v[k];
            else
                for (int64_t k = 0; k < p->c; k++)
                    dst[k * sc] = alpha * v[k] + beta * dst[k * sc];
        }
        return;
    }
    int64_t d = (int64_t)task % in[0], c = (int64_t)task / in[0];
    int64_t sw = s[2] < in[2] ? s[2] : in[2], cw[FDNN_CONV_DIRECT_MAX_PHASES]; /* phases along W, their widths */
    for (int64_t b = 0; b < sw; b++)
        cw[b] = phase_count(in[2], b, s[2]);
    for (int64_t ah = 0; ah < s[1] && ah < in[1]; ah++) {
        phase_rows(ph, c, d, ah, rows + ah * sw);
        for (int64_t h = ah, hq = 0; h < in[1]; h += s[1], hq++) {
            const float *r[FDNN_CONV_DIRECT_MAX_PHASES];
            for (int64_t b = 0; b < sw; b++)
                r[b] = rows[ah * sw + b] + hq * cw[b];
            interleave_row(r, in[2], s[2], alpha, beta, (float *)e->out + fdnn_conv_off5(&p->x, ph->n, c, d, h, 0),
                           p->x.strides[4]);
        }
    }
}

/* make_phase with the phase's output redirected to its packed buffer, as
 * plain sums (alpha 1, beta 0). */
static bool
make_buffered_phase(const fdnn_conv_exec_t *e, const int64_t pa[3], bool chan_last, float *buf,
                    fdnn_conv_problem_t *f, fdnn_conv_exec_t *fe, bool *empty)
{
    if (!make_phase(e, pa, f, fe, empty))
        return false;
    int64_t cd = f->out[0], ch = f->out[1], cw = f->out[2];
    f->y.strides[0] = 0; /* one image at a time */
    f->y.strides[1] = chan_last ? 1 : cd * ch * cw;
    f->y.strides[2] = chan_last ? ch * cw * e->p->c : ch * cw;
    f->y.strides[3] = chan_last ? cw * e->p->c : cw;
    f->y.strides[4] = chan_last ? e->p->c : 1;
    fe->out = buf;
    fe->alpha = 1;
    fe->beta = 0;
    return true;
}

/* Image chunks of strided backward data: at most this many, each with its
 * own reordered image and phase buffers.  They run in parallel (one thread
 * each) when there are at least as many as threads, else one after another
 * with every step parallel inside; an image's results are the same either
 * way (every element is one kernel sum and one blend), but chunks need 3
 * pool barriers per call instead of 2 per phase and image. */
#define BWD_CHUNKS 8

typedef struct bwd_strided {
    const fdnn_conv_exec_t *e;
    bool chan_last;
    int64_t chunks;
    bool parallel_chunks;
    char *wbuf;        /* every phase's reordered filter, in phase order */
    char *slots;       /* per chunk slot: reordered image, then phase buffers */
    size_t in_bytes;   /* the largest reordered image of a phase */
    size_t slot_bytes; /* in_bytes + every phase's buffer */
} bwd_strided_t;

/* Image n with the reordered image and phase buffers at `slot`, the pool
 * `pool` (NULL: this thread only). */
static void
bwd_strided_image(const bwd_strided_t *b, char *slot, fdnn_pool_t pool, int64_t n)
{
    const fdnn_conv_exec_t *e = b->e;
    const fdnn_conv_problem_t *p = e->p;
    fdnn_conv_exec_t pe = *e;
    pe.pool = pool;
    phases_t ph;
    memset(&ph, 0, sizeof(ph));
    ph.e = &pe;
    ph.n = n;
    ph.chan_last = b->chan_last;
    float *obuf = (float *)(slot + b->in_bytes);
    fdnn_conv_problem_t f;
    fdnn_conv_exec_t fe;
    job_t j;
    bool empty;
    int64_t pa[3];
    size_t w_off = 0, o_off = 0;
    for (pa[0] = 0; pa[0] < p->stride[0]; pa[0]++)
        for (pa[1] = 0; pa[1] < p->stride[1]; pa[1]++)
            for (pa[2] = 0; pa[2] < p->stride[2]; pa[2]++) {
                if (!make_buffered_phase(&pe, pa, b->chan_last, obuf + o_off, &f, &fe, &empty))
                    continue;
                ph.buf[(pa[0] * p->stride[1] + pa[1]) * p->stride[2] + pa[2]] = obuf + o_off;
                size_t floats = (size_t)(p->c * fdnn_conv_out_spatial(&f));
                o_off += floats;
                if (empty) {
                    memset(fe.out, 0, floats * sizeof(float)); /* the empty sums */
                    continue;
                }
                (void)make_job(&fe, true, &j); /* succeeded for this phase in bwd_data_strided */
                j.wbuf = (float *)(b->wbuf + w_off);
                j.ibuf = (float *)slot;
                w_off += job_w_bytes(&j);
                run_image(&j, n);
            }
    size_t tasks = (size_t)(p->in[0] * (ph.chan_last ? p->in[1] : p->c)); /* interleave_task's */
    fdnn_parallelize_1d(pool, interleave_task, &ph, tasks, 0);
}

/* Images of chunk `chunk` (an even split of the batch), on this thread
 * with the chunk's own slot. */
static void
bwd_strided_chunk(void *arg, size_t chunk)
{
    const bwd_strided_t *b = arg;
    int64_t n = b->e->p->n, c = (int64_t)chunk;
    for (int64_t i = c * n / b->chunks; i < (c + 1) * n / b->chunks; i++)
        bwd_strided_image(b, b->slots + chunk * b->slot_bytes, NULL, i);
}

/* Reorders the filter of every phase that taps reach, in phase order. */
static void
bwd_strided_filters(const bwd_strided_t *b)
{
    const fdnn_conv_problem_t *p = b->e->p;
    fdnn_conv_problem_t f;
    fdnn_conv_exec_t fe;
    job_t j;
    bool empty;
    int64_t pa[3];
    size_t w_off = 0;
    for (pa[0] = 0; pa[0] < p->stride[0]; pa[0]++)
        for (pa[1] = 0; pa[1] < p->stride[1]; pa[1]++)
            for (pa[2] = 0; pa[2] < p->stride[2]; pa[2]++) {
                if (!make_buffered_phase(b->e, pa, b->chan_last, NULL, &f, &fe, &empty) || empty)
                    continue;
                (void)make_job(&fe, true, &j); /* succeeded in bwd_data_strided */
                j.wbuf = (float *)(b->wbuf + w_off);
                w_off += job_w_bytes(&j);
                fdnn_parallelize_1d(b->e->pool, reorder_filter, &j, (size_t)(j.pl.g * j.pl.nkb * j.pl.ncb), 0);
            }
}

static cudnnStatus_t
bwd_data_strided(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    bwd_strided_t b;
    memset(&b, 0, sizeof(b));
    b.e = e;
    b.chan_last = p->x.strides[1] < p->x.strides[4];
    /* Every phase's plan and the scratch before anything is written. */
    fdnn_conv_problem_t f;
    fdnn_conv_exec_t fe;
    job_t j;
    bool empty;
    int64_t pa[3];
    size_t w_total = 0, out_floats = 0;
    for (pa[0] = 0; pa[0] < p->stride[0]; pa[0]++)
        for (pa[1] = 0; pa[1] < p->stride[1]; pa[1]++)
            for (pa[2] = 0; pa[2] < p->stride[2]; pa[2]++) {
                if (!make_buffered_phase(e, pa, b.chan_last, NULL, &f, &fe, &empty))
                    continue;
                out_floats += (size_t)(p->c * fdnn_conv_out_spatial(&f));
                if (empty)
                    continue;
                RETURN_IF_ERROR(make_job(&fe, true, &j));
                w_total += job_w_bytes(&j);
                b.in_bytes = job_in_bytes(&j) > b.in_bytes ? job_in_bytes(&j) : b.in_bytes;
            }
    b.slot_bytes = b.in_bytes + fdnn_align_up(out_floats * sizeof(float));
    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    b.chunks = p->n < BWD_CHUNKS ? p->n : BWD_CHUNKS;
    b.parallel_chunks = threads > 1 && (size_t)b.chunks >= threads;
    size_t slots = b.parallel_chunks ? (size_t)b.chunks : 1;
    char *scratch = fdnn_handle_scratch(e->handle, w_total + slots * b.slot_bytes);
    if (scratch == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    b.wbuf = scratch;
    b.slots = scratch + w_total;
    bwd_strided_filters(&b);
    if (b.parallel_chunks)
        fdnn_parallelize_1d(e->pool, bwd_strided_chunk, &b, (size_t)b.chunks, 0);
    else
        for (int64_t n = 0; n < p->n; n++)
            bwd_strided_image(&b, b.slots, e->pool, n);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_direct_blocked_bwd_data(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    fdnn_conv_problem_t f;
    fdnn_conv_exec_t fe;
    bool empty;
    const int64_t zero[3] = {0, 0, 0};
    /* Stride 1: one phase, dx itself (a phase no tap reaches cannot occur
     * with stride 1 but takes the general path if it did). */
    if (p->stride[0] * p->stride[1] * p->stride[2] == 1 && make_phase(e, zero, &f, &fe, &empty) && !empty)
        return run_forward(&fe, true);
    return bwd_data_strided(e);
}
