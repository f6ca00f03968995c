/* SPDX-License-Identifier: Apache-2.0
 * The integer convolution engine (conv_int8.h): checks, packing, the
 * microkernels of src/cpu/kernels/s8_conv.h, and the FLOAT epilogue.
 *
 * The input is packed into a padded channels-last buffer (every window
 * then lies inside it, so the kernels need no bounds): one pixel is g *
 * units 4-byte units, a unit being 4 channels as uint8 (VNNI: INT8 inputs
 * biased by +128, padding holds the biased zero 128) or 2 channels as
 * int16 (the wide kernels: values as they are, padding 0).  The VNNI path
 * reads unpadded 1x1 NHWC / NCHW_VECT_C inputs where they are instead, and
 * packs small images several at a time.  The filter is packed once per
 * call (wide: [g][k block][tap][unit][VK][4]; VNNI: the 4 blocks of a
 * kernel call interleaved unit by unit) with zeros past K/g and C/g; for
 * VNNI with INT8 inputs, comp[k] = 128 * sum(w[k]) undoes the bias
 * (sum (x + 128) w - 128 sum w = sum x w, exactly, in int32).  u8 x s8
 * with the bias rather than s8 x s8 through widening: vpdpbusd takes 4
 * products per lane and instruction, twice the wide kernels' vpmaddwd.
 *
 * Work is split over output rows x pairs of k blocks (wide) or chunks of
 * output pixels x quads of k blocks (VNNI, whose kernel also runs the
 * epilogue when there is no blend); every output element is written by
 * one task, from an exact sum and its own epilogue, so the results are
 * bitwise the same for any thread count and every ISA. */
#include "cpu/conv/conv_int8.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/pool.h"
#include "cpu/config/config.h"
#include "cpu/kernels/s8_conv.h"

/* Below this many multiply-adds the workers cost more than the work. */
#define INT8_SMALL_MACS (1 << 20)

static atomic_bool vnni_disallowed;

void
fdnn_conv_int8_allow_vnni(bool allow)
{
    atomic_store(&vnni_disallowed, !allow);
}

static bool
is_vector_config(fdnn_conv_config_t cfg)
{
    return cfg != FDNN_CONV_CFG_INT8 && cfg != FDNN_CONV_CFG_INT8_EXT;
}

/* Channels per vector of an operand: its type's width in NCHW_VECT_C, else 1. */
static int64_t
operand_vect(cudnnDataType_t dtype, cudnnTensorFormat_t format)
{
    return format == CUDNN_TENSOR_NCHW_VECT_C && fdnn_dtype_vect(dtype) > 0 ? fdnn_dtype_vect(dtype) : 1;
}

/* Channel stride 1 (or a single channel): the data is channels-last. */
static bool
channels_last(const fdnn_tensor_t *t)
{
    return t->strides[1] == 1 || t->dims[1] == 1;
}

cudnnStatus_t
fdnn_conv_int8_algo_check(const fdnn_conv_problem_t *p, int algo, size_t *workspace_bytes)
{
    const char *cfg = fdnn_conv_config_name(p->config);
    if (p->dir != FDNN_CONV_FWD)
        return FDNN_BAD_PARAM("%s exists only for forward convolutions", cfg);
    if (algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
        return FDNN_NOT_SUPPORTED("%s runs with CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM only (algo %d)", cfg,
                                  algo);
    if (is_vector_config(p->config)) {
        if (p->x_format != CUDNN_TENSOR_NCHW_VECT_C || p->w_format != CUDNN_TENSOR_NCHW_VECT_C)
            return FDNN_NOT_SUPPORTED("%s takes xDesc and wDesc in CUDNN_TENSOR_NCHW_VECT_C", cfg);
        if (p->y_dtype != CUDNN_DATA_FLOAT && p->y_format != CUDNN_TENSOR_NCHW_VECT_C)
            return FDNN_NOT_SUPPORTED("%s takes yDesc in CUDNN_TENSOR_NCHW_VECT_C", cfg);
    } else {
        if (!channels_last(&p->x) || p->w_format != CUDNN_TENSOR_NHWC ||
            (p->y_dtype != CUDNN_DATA_FLOAT && !channels_last(&p->y)))
            return FDNN_NOT_SUPPORTED("%s takes xDesc, wDesc and yDesc in NHWC (channels last)", cfg);
        if (p->c % 4 != 0 || p->k % 4 != 0)
            return FDNN_NOT_SUPPORTED("%s needs input and output channels that are multiples of 4 (C %lld, K %lld)",
                                      cfg, (long long)p->c, (long long)p->k);
    }
    /* The exact int32 sum: |x w| <= 255 * 128 per product (the biased
     * VNNI sums included). */
    double terms = (double)fdnn_conv_cg(p) * (double)fdnn_conv_taps(p);
    if (terms * 255.0 * 128.0 >= 2147483648.0)
        return FDNN_NOT_SUPPORTED("%s: %.0f products per output could overflow the INT32 accumulator", cfg, terms);
    *workspace_bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

void
fdnn_conv_int8_unreorder_bias(const float *src, float *dst, int64_t k)
{
    /* cudnnReorderFilterAndBias puts channel 32q + 8a + 4h + i at
     * 32q + 16h + 4a + i (src/cpu/tensor/reorder.c). */
    for (int64_t j = 0; j < k; j++) {
        int64_t q = j / 32, a = (j % 32) / 8, h = (j % 8) / 4, i = j % 4;
        dst[j] = src[q * 32 + 16 * h + 4 * a + i];
    }
}

typedef struct plan {
    const fdnn_conv_exec_t *e;
    const fdnn_conv_problem_t *p;
    fdnn_s8_conv_fn fn;           /* the wide kernels (NULL: vnni, the fused kernel) */
    void (*fused)(const fdnn_s8_conv_fused_args_t *a); /* vnni: fdnn_s8_conv_fused__avx512vnni */
    fdnn_s8_conv_pack_block_fn pack_block; /* vnni: its filter pack (NULL: the portable one) */
    fdnn_s8_conv_epilogue_fn epi; /* NULL: epilogue_c */
    bool vnni;      /* encoding: vnni (uint8 quads, the fused kernel) or wide (int16 pairs) */
    bool x_signed;  /* x is INT8 (else UINT8) */
    int vk, mr, cpu; /* lanes, pixels per call, channels per unit */
    int64_t cg, kg, units, nkb, npair, taps;
    int64_t dp, hp, wp, pix_bytes; /* the packed input's extents and pixel size */
    int64_t sub[3]; /* packed pixel i is input pixel i * sub - pad (per D, H, W) */
    int64_t st[3];  /* the stride in packed pixels */
    int64_t xv, yv;    /* channels per vector of x and y (1: plain) */
    int64_t wblock;    /* bytes of one packed k block */
    uint8_t *xp;       /* the current image, packed */
    uint8_t *wpk;      /* [g][npair * 2][taps][units][vk][4] */
    int32_t *comp;     /* [g][npair * 2 * vk]; NULL: none */
    int64_t *tap_off;  /* [taps] */
    int64_t *x_coff;   /* [C] byte offset of input channel c within a pixel of x */
    bool x_dense;      /* x_coff[c] == c: every group's channels adjacent */
    bool x_quads;      /* each group's channels in adjacent quads (C/g a multiple of 4) */
    int64_t *y_koff;   /* [K] byte offset of output channel k within a pixel of y */
    int64_t *y_run;    /* [K] channels from k on stored next to each other in y */
    int64_t *w_ct;     /* [taps][C/g] byte offset of (c, stored tap) in an output channel's filter;
                        * NULL for reordered INT8x32 filters (filter_off) */
    int64_t w_kstride; /* bytes from one output channel's filter to the next */
    int64_t y_pix[3];  /* bytes per step of d, h, w in y */
    int64_t n;         /* the current image (the first of the packed batch) */
    int64_t nimg;      /* vnni: images packed together (tiles cross them) */
    float alpha, beta;
    const float *bias;
    bool relu;
    const uint8_t *y0; /* the blend source */
    /* The vnni path (fdnn_s8_conv_fused__avx512vnni): */
    int64_t nquad;       /* calls' worth of k blocks (4 each) per group */
    int64_t qbytes;      /* bytes of one quad of packed blocks */
    int64_t *w_tu;       /* byte offset of each whole filter quad, in the kernel's order; NULL: one by one */
    bool u_outer;        /* the kernel's order: [units][taps] (NCHW_VECT_C filters), else [taps][units] */
    int64_t *x_off;      /* [taps * units] in the kernel's order: each unit's offset from the window origin */
    bool inplace;        /* x read where it is (1x1, unpadded, NHWC or NCHW_VECT_C of 4) */
    int64_t x_us;        /* in place: bytes from one unit of x to the next */
    int out_kind;        /* the fused kernel's out: 0..2 its epilogue, 3 the sums for store_outputs */
    int64_t quad_stride; /* out_kind < 3: bytes between quads of output channels */
    bool nan_free;       /* alpha and the bias finite */
} plan_t;

/* Byte offset of element (n, c, d, h, w) of x or y (5-D views; NCHW_VECT_C
 * strides count vectors of v channels of esz bytes). */
static inline int64_t
operand_off(const fdnn_tensor_t *t, int64_t v, int64_t esz, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w)
{
    return (n * t->strides[0] + (c / v) * t->strides[1] + d * t->strides[2] + h * t->strides[3] +
            w * t->strides[4]) *
               v * esz +
           (c % v) * esz;
}

/* Byte offset of filter value (k, c, tap qd qh qw as stored). */
static int64_t
filter_off(const fdnn_conv_problem_t *p, int64_t k, int64_t c, int64_t qd, int64_t qh, int64_t qw)
{
    if (p->w_format != CUDNN_TENSOR_NCHW_VECT_C)
        return k * p->w.strides[0] + c * p->w.strides[1] + qd * p->w.strides[2] + qh * p->w.strides[3] +
               qw * p->w.strides[4];
    const int64_t v = fdnn_dtype_vect(p->w_dtype), cg = p->w.dims[1];
    const int64_t row = cg * fdnn_conv_taps(p); /* bytes per output channel */
    const int64_t col = (((c / v) * p->ker[0] + qd) * p->ker[1] + qh) * p->ker[2] * v + qw * v + c % v;
    if (p->w_dtype != CUDNN_DATA_INT8x32 || p->reorder != CUDNN_NO_REORDER)
        return k * row + col;
    /* Under CUDNN_NO_REORDER the filter is as cudnnReorderFilterAndBias
     * (CUDNN_DEFAULT_REORDER) left it: row k = 8a + 2b + c2, byte col =
     * 32t + 4y + l lies at ((((t * K/8 + a) * 2 + c2) * 8 + y) * 4 + b) * 4
     * + l (src/cpu/tensor/reorder.c). */
    const int64_t a = k / 8, b = (k % 8) / 2, c2 = k % 2;
    const int64_t t = col / 32, y = (col % 32) / 4, l = col % 4;
    return ((((t * (p->k / 8) + a) * 2 + c2) * 8 + y) * 4 + b) * 4 + l;
}

/* One block of VK output channels: task = g * nkb + kb (vnni: the blocks
 * of a quad interleaved unit by unit, [g][quad][taps][units][nkbq][16][4]),
 * or g * npair * 2 + kb (wide: [g][kb][taps][units][VK][4], the blocks of a
 * pair padded). */
static void
pack_filter(void *ctx, size_t task)
{
    plan_t *pl = ctx;
    const fdnn_conv_problem_t *p = pl->p;
    const int8_t *w = pl->e->w_in;
    const int64_t nkb = pl->vnni ? pl->nkb : pl->npair * 2;
    const int64_t g = (int64_t)task / nkb, kb = (int64_t)task % nkb;
    uint8_t *dst;
    int64_t step; /* bytes from one unit's lanes to the next unit's */
    int32_t *comp = NULL;
    if (pl->vnni) {
        const int64_t quad = kb / 4, nkbq = pl->nkb - quad * 4 < 4 ? pl->nkb - quad * 4 : 4;
        dst = pl->wpk + (g * pl->nquad + quad) * pl->qbytes + (kb % 4) * 64;
        step = nkbq * 64;
        comp = pl->comp != NULL ? pl->comp + (g * pl->nkb + kb) * 16 : NULL;
    } else {
        dst = pl->wpk + (int64_t)task * pl->wblock;
        step = pl->vk * 4;
    }
    int32_t sums[16] = {0};
    if (pl->vnni && pl->pack_block != NULL && pl->w_tu != NULL) { /* every unit a whole quad: gathers */
        const int64_t lanes = pl->kg - kb * pl->vk < pl->vk ? pl->kg - kb * pl->vk : pl->vk;
        pl->pack_block(w + (g * pl->kg + kb * pl->vk) * pl->w_kstride, pl->w_kstride, lanes > 0 ? (int)lanes : 0,
                       pl->w_tu, pl->taps * pl->units, dst, step, sums);
        if (comp != NULL)
            for (int l = 0; l < 16; l++)
                comp[l] = 128 * sums[l];
        return;
    }
    /* The output channels of the block (NULL past K/g) and, per formula
     * tap, where its stored tap is (reversed for CUDNN_CONVOLUTION). */
    const int8_t *rows[16];
    for (int l = 0; l < pl->vk; l++) {
        const int64_t k = kb * pl->vk + l;
        rows[l] = k < pl->kg ? w + (g * pl->kg + k) * pl->w_kstride : NULL;
    }
    int64_t t = 0;
    for (int64_t qd = 0; qd < p->ker[0]; qd++)
        for (int64_t qh = 0; qh < p->ker[1]; qh++)
            for (int64_t qw = 0; qw < p->ker[2]; qw++, t++) {
                const int64_t sd = p->flip ? p->ker[0] - 1 - qd : qd, sh = p->flip ? p->ker[1] - 1 - qh : qh,
                              sw = p->flip ? p->ker[2] - 1 - qw : qw;
                const int64_t *ct = pl->w_ct + t * pl->cg;
                for (int64_t u = 0; u < pl->units; u++) {
                    uint8_t *d = dst + (pl->u_outer ? u * pl->taps + t : t * pl->units + u) * step;
                    const int64_t c0 = u * pl->cpu;
                    /* The common case: a whole quad adjacent in the filter
                     * (NHWC, NCHW_VECT_C), copied as one word. */
                    if (pl->vnni && pl->w_ct != NULL && c0 + 3 < pl->cg && ct[c0 + 1] == ct[c0] + 1 &&
                        ct[c0 + 2] == ct[c0] + 2 && ct[c0 + 3] == ct[c0] + 3) {
                        for (int l = 0; l < pl->vk; l++, d += 4) {
                            int8_t v[4] = {0, 0, 0, 0};
                            if (rows[l] != NULL)
                                memcpy(v, rows[l] + ct[c0], 4);
                            memcpy(d, v, 4);
                            sums[l] += v[0] + v[1] + v[2] + v[3];
                        }
                        continue;
                    }
                    /* ... and a whole pair for the wide encoding. */
                    if (!pl->vnni && pl->w_ct != NULL && c0 + 1 < pl->cg && ct[c0 + 1] == ct[c0] + 1) {
                        for (int l = 0; l < pl->vk; l++, d += 4) {
                            int8_t v[2] = {0, 0};
                            if (rows[l] != NULL)
                                memcpy(v, rows[l] + ct[c0], 2);
                            const int16_t v16[2] = {v[0], v[1]};
                            memcpy(d, v16, 4);
                        }
                        continue;
                    }
                    for (int l = 0; l < pl->vk; l++, d += 4) {
                        int8_t v[4] = {0, 0, 0, 0};
                        for (int j = 0; j < pl->cpu; j++) {
                            const int64_t c = u * pl->cpu + j;
                            if (rows[l] == NULL || c >= pl->cg)
                                continue;
                            if (pl->w_ct != NULL)
                                v[j] = rows[l][ct[c]];
                            else /* reordered INT8x32 */
                                v[j] = w[filter_off(p, g * pl->kg + kb * pl->vk + l, c, sd, sh, sw)];
                            sums[l] += v[j];
                        }
                        if (pl->vnni) {
                            memcpy(d, v, 4);
                        } else {
                            const int16_t v16[2] = {v[0], v[1]};
                            memcpy(d, v16, 4);
                        }
                    }
                }
            }
    if (comp != NULL)
        for (int l = 0; l < pl->vk; l++)
            comp[l] = 128 * sums[l];
}

/* One packed row (n, d, h) of the input, n = pl->n + img: task = (img * dp
 * + d) * hp + h (the images of a batch back to back). */
static void
pack_input_row(void *ctx, size_t task)
{
    plan_t *pl = ctx;
    const fdnn_conv_problem_t *p = pl->p;
    const uint8_t *x = pl->e->x_in;
    const int64_t img = (int64_t)task / (pl->dp * pl->hp), row = (int64_t)task % (pl->dp * pl->hp);
    const int64_t n = pl->n + img, d = row / pl->hp, h = row % pl->hp;
    const int64_t id = d * pl->sub[0] - p->pad[0], ih = h * pl->sub[1] - p->pad[1];
    uint8_t *dst = pl->xp + (int64_t)task * pl->wp * pl->pix_bytes;
    const bool row_in = id >= 0 && id < p->in[0] && ih >= 0 && ih < p->in[1];
    /* VNNI: INT8 biased to uint8 (x ^ 0x80 = x + 128); padding holds the
     * encoded zero. */
    const uint8_t flip = pl->vnni && pl->x_signed ? 0x80 : 0;
    const int64_t cu = pl->units * pl->cpu; /* channels per group, padded */
    /* vnni, one group of whole quads, NHWC or NCHW_VECT_C: the padding in
     * two fills, the pixels inside a word at a time with no per-pixel
     * bookkeeping (the stem's 4 channels: one word a pixel). */
    if (pl->vnni && p->g == 1 && cu == pl->cg && (pl->x_dense || pl->x_quads) && row_in) {
        const int64_t pad = p->pad[2], sub = pl->sub[2];
        int64_t lo = (pad + sub - 1) / sub, hi = (p->in[2] - 1 + pad) / sub + 1;
        lo = lo < pl->wp ? lo : pl->wp;
        hi = hi < pl->wp ? hi : pl->wp;
        hi = hi > lo ? hi : lo;
        memset(dst, flip, (size_t)(lo * pl->pix_bytes));
        memset(dst + hi * pl->pix_bytes, flip, (size_t)((pl->wp - hi) * pl->pix_bytes));
        const uint8_t *src = x + operand_off(&p->x, pl->xv, 1, n, 0, id, ih, lo * sub - pad);
        const int64_t xs = (operand_off(&p->x, pl->xv, 1, 0, 0, 0, 0, sub) - operand_off(&p->x, pl->xv, 1, 0, 0, 0, 0, 0));
        const uint32_t f4 = 0x01010101u * flip;
        uint8_t *o = dst + lo * pl->pix_bytes;
        if (pl->x_dense) { /* pixel by pixel, both sides contiguous */
            for (int64_t wq = 0; wq < hi - lo; wq++)
                for (int64_t c = 0; c < cu; c++)
                    o[wq * pl->pix_bytes + c] = src[wq * xs + c] ^ flip;
            return;
        }
        for (int64_t u = 0; u < pl->units; u++) { /* plane by plane */
            const uint8_t *su = src + pl->x_coff[4 * u];
            for (int64_t wq = 0; wq < hi - lo; wq++) {
                uint32_t v;
                memcpy(&v, su + wq * xs, 4);
                v ^= f4;
                memcpy(o + wq * pl->pix_bytes + 4 * u, &v, 4);
            }
        }
        return;
    }
    for (int64_t wq = 0; wq < pl->wp; wq++, dst += pl->pix_bytes) {
        const int64_t iw = wq * pl->sub[2] - p->pad[2];
        if (!row_in || iw < 0 || iw >= p->in[2]) {
            if (pl->vnni)
                memset(dst, flip, (size_t)pl->pix_bytes);
            else
                memset(dst, 0, (size_t)pl->pix_bytes);
            continue;
        }
        const uint8_t *src = x + operand_off(&p->x, pl->xv, 1, n, 0, id, ih, iw);
        for (int64_t g = 0; g < p->g; g++) {
            const int64_t *co = pl->x_coff + g * pl->cg;
            if (pl->vnni) {
                uint8_t *o = dst + g * cu;
                int64_t c = 0;
                if (pl->x_dense) { /* channels adjacent: a loop the compiler vectorizes */
                    const uint8_t *sg = src + co[0];
                    for (; c < pl->cg; c++)
                        o[c] = sg[c] ^ flip;
                } else if (pl->x_quads) { /* NCHW_VECT_C: one word per quad */
                    const uint32_t flip4 = 0x01010101u * flip;
                    for (; c < pl->cg; c += 4) {
                        uint32_t v;
                        memcpy(&v, src + co[c], 4);
                        v ^= flip4;
                        memcpy(o + c, &v, 4);
                    }
                }
                for (; c < pl->cg; c++)
                    o[c] = src[co[c]] ^ flip;
                for (; c < cu; c++)
                    o[c] = flip;
            } else {
                int16_t *o = (int16_t *)(void *)(dst + g * cu * 2);
                int64_t c = 0;
                if (pl->x_signed)
                    for (; c < pl->cg; c++)
                        o[c] = (int8_t)src[co[c]];
                else
                    for (; c < pl->cg; c++)
                        o[c] = src[co[c]];
                for (; c < cu; c++)
                    o[c] = 0;
            }
        }
    }
}

/* v rounded half to even and saturated to [lo, hi] (NaN: 0), as
 * fdnn_sat_round but without a libm call: after the clamp |v| <= 255, and
 * adding and subtracting 1.5 * 2^23 rounds to an integer in the current
 * (default: nearest-even) rounding mode. */
static inline int32_t
round_sat(float v, float lo, float hi)
{
    v = v == v ? v : 0.0f;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return (int32_t)((v + 12582912.0f) - 12582912.0f);
}

/* The portable epilogue of `count` lanes (fdnn_s8_conv_epilogue_fn's
 * contract, with the blend): the bytes to store into q. */
static void
epilogue_c(const plan_t *pl, int64_t pix, int64_t ko0, int count, const int32_t *sums, const int32_t *comp,
           uint8_t *q)
{
    const cudnnDataType_t yt = pl->p->y_dtype;
    const int64_t *koff = pl->y_koff + ko0;
    for (int l = 0; l < count; l++) {
        float old = 0;
        if (pl->beta != 0) {
            if (yt == CUDNN_DATA_FLOAT)
                memcpy(&old, pl->y0 + pix + koff[l], 4);
            else if (yt == CUDNN_DATA_UINT8x4)
                old = (float)pl->y0[pix + koff[l]];
            else
                old = (float)(int8_t)pl->y0[pix + koff[l]];
        }
        const int32_t s = sums[l] - (comp != NULL ? comp[l] : 0);
        const float v = fdnn_conv_epilogue_f32((float)s, pl->alpha, pl->beta, &old,
                                               pl->bias != NULL ? pl->bias + ko0 + l : NULL, pl->relu);
        if (yt == CUDNN_DATA_FLOAT)
            memcpy(q + 4 * l, &v, 4);
        else if (yt == CUDNN_DATA_UINT8x4)
            q[l] = (uint8_t)round_sat(v, 0.0f, 255.0f);
        else
            q[l] = (uint8_t)round_sat(v, -128.0f, 127.0f);
    }
}

/* The outputs of one pixel's sums: output channels ko0 .. ko0 + count - 1
 * (count <= 16) of y at byte offset pix, stored in runs of adjacent
 * channels. */
static inline void
store_outputs(const plan_t *pl, int64_t pix, int64_t ko0, int count, const int32_t *sums, const int32_t *comp)
{
    const cudnnDataType_t yt = pl->p->y_dtype;
    const size_t es = yt == CUDNN_DATA_FLOAT ? 4 : 1;
    const int64_t *koff = pl->y_koff + ko0;
    uint8_t *y = (uint8_t *)pl->e->out + pix;
    uint8_t tmp[16 * 4];
    /* Adjacent channels (NHWC, INT8x32) are written in place. */
    const bool direct = pl->y_run[ko0] >= count;
    uint8_t *q = direct ? y + koff[0] : tmp;
    if (pl->epi != NULL && pl->beta == 0)
        pl->epi(sums, comp, pl->bias != NULL ? pl->bias + ko0 : NULL, pl->alpha, pl->relu,
                yt == CUDNN_DATA_FLOAT ? 2 : yt == CUDNN_DATA_UINT8x4 ? 1 : 0, count, q);
    else
        epilogue_c(pl, pix, ko0, count, sums, comp, q);
    if (direct)
        return;
    for (int l = 0; l < count;) {
        int run = (int)pl->y_run[ko0 + l];
        if (run > count - l)
            run = count - l;
        if (run == 4 && es == 1)
            memcpy(y + koff[l], q + l, 4); /* (INT8x4 vectors: a fixed-size copy) */
        else
            memcpy(y + koff[l], q + (size_t)l * es, (size_t)run * es);
        l += run;
    }
}

/* One output row (od, oh) of the current image, for one group and one pair
 * of k blocks: i = od * oh_count + oh, j = g * npair + pair. */
static void
compute_row(void *ctx, size_t i, size_t j)
{
    const plan_t *pl = ctx;
    const fdnn_conv_problem_t *p = pl->p;
    const int64_t od = (int64_t)i / p->out[1], oh = (int64_t)i % p->out[1];
    const int64_t g = (int64_t)j / pl->npair, pair = (int64_t)j % pl->npair;
    const int64_t kb0 = pair * 2;
    const int nkb = kb0 + 1 < pl->nkb ? 2 : 1;
    int32_t acc[8 * 2 * 16];
    const uint8_t *row = pl->xp + ((od * pl->st[0]) * pl->hp + oh * pl->st[1]) * pl->wp * pl->pix_bytes +
                         g * pl->units * 4;
    const int32_t *comp = pl->comp != NULL ? pl->comp + (g * pl->npair * 2 + kb0) * pl->vk : NULL;
    const int64_t ybase = operand_off(&p->y, pl->yv, p->y_dtype == CUDNN_DATA_FLOAT ? 4 : 1, pl->n, 0, od, oh, 0);
    for (int64_t ow0 = 0; ow0 < p->out[2]; ow0 += pl->mr) {
        const int m = (int)(p->out[2] - ow0 < pl->mr ? p->out[2] - ow0 : pl->mr);
        fdnn_s8_conv_args_t a = {
            .x = row + ow0 * pl->st[2] * pl->pix_bytes,
            .x_step = pl->st[2] * pl->pix_bytes,
            .tap_off = pl->tap_off,
            .taps = pl->taps,
            .units = pl->units,
            .w = pl->wpk + (g * pl->npair * 2 + kb0) * pl->wblock,
            .w_block = pl->wblock,
            .nkb = nkb,
            .m = m,
            .acc = acc,
        };
        pl->fn(&a);
        for (int px = 0; px < m; px++) {
            const int64_t pix = ybase + (ow0 + px) * pl->y_pix[2];
            for (int b = 0; b < nkb; b++) {
                const int64_t k0 = (kb0 + b) * pl->vk;
                const int count = (int)(pl->kg - k0 < pl->vk ? pl->kg - k0 : pl->vk);
                store_outputs(pl, pix, g * pl->kg + k0, count, acc + (px * 2 + b) * pl->vk,
                              comp != NULL ? comp + b * pl->vk : NULL);
            }
        }
    }
}

/* Output pixels per task of the vnni path (a multiple of the kernel's 6):
 * the chunk's inputs stay in cache while the filter's quads stream by. */
#define INT8_CHUNK 96

/* The vnni path: one chunk of INT8_CHUNK output pixels, counted over the
 * packed images' (n, od, oh, ow), or over all of x's when x is read in
 * place, for one group and one quad of k blocks: i = chunk, j = g * nquad
 * + quad. */
static void
compute_chunk(void *ctx, size_t i, size_t j)
{
    enum { TILES = INT8_CHUNK / 6 };
    const plan_t *pl = ctx;
    const fdnn_conv_problem_t *p = pl->p;
    const int64_t g = (int64_t)j / pl->nquad, quad = (int64_t)j % pl->nquad;
    const int64_t kb0 = quad * 4;
    const int nkbq = (int)(pl->nkb - kb0 < 4 ? pl->nkb - kb0 : 4);
    const int64_t k0 = g * pl->kg + kb0 * 16; /* the first output channel */
    const int last = (int)(pl->kg - (kb0 + nkbq - 1) * 16 < 16 ? pl->kg - (kb0 + nkbq - 1) * 16 : 16);
    const int64_t ow_n = p->out[2], oh_n = p->out[1], od_n = p->out[0];
    const int64_t total = (pl->inplace ? p->n : pl->nimg) * od_n * oh_n * ow_n;
    const int64_t img_bytes = pl->dp * pl->hp * pl->wp * pl->pix_bytes;
    const int64_t q0 = (int64_t)i * INT8_CHUNK, q1 = q0 + INT8_CHUNK < total ? q0 + INT8_CHUNK : total;
    int64_t ow = q0 % ow_n, r = q0 / ow_n;
    int64_t oh = r % oh_n;
    r /= oh_n;
    int64_t od = r % od_n, n = (pl->inplace ? 0 : pl->n) + r / od_n;
    const int yes = p->y_dtype == CUDNN_DATA_FLOAT ? 4 : 1;
    const uint8_t *x_in = pl->e->x_in;
    const int64_t x_goff = pl->inplace ? pl->x_coff[g * pl->cg] : g * pl->units * 4;
    uint8_t *out = pl->e->out;
    /* The chunk's tiles: window origins, outputs.  Along a row the
     * addresses step by a constant; they are recomputed at each new row. */
    const int64_t x_wstep = pl->inplace ? operand_off(&p->x, pl->xv, 1, 0, 0, 0, 0, p->stride[2])
                                        : pl->st[2] * pl->pix_bytes;
    const int64_t y_wstep = pl->y_pix[2];
    const uint8_t *xs[TILES][6];
    uint8_t *ys[TILES][6];
    int64_t ypix[TILES][6];
    int ms[TILES];
    int tiles = 0;
    /* pixel (n, od, oh, ow)'s window origin (from xbase) and output offset */
    const uint8_t *xbase = pl->inplace ? x_in : pl->xp;
    int64_t xr = 0, yr = 0;
    bool fresh = true;
    for (int64_t q = q0; q < q1; q += 6, tiles++) {
        ms[tiles] = (int)(q1 - q < 6 ? q1 - q : 6);
        for (int ii = 0; ii < ms[tiles]; ii++) {
            if (fresh) {
                if (pl->inplace)
                    xr = operand_off(&p->x, pl->xv, 1, n, 0, od * p->stride[0], oh * p->stride[1], ow * p->stride[2]) +
                         x_goff;
                else
                    xr = (n - pl->n) * img_bytes +
                         ((od * pl->st[0] * pl->hp + oh * pl->st[1]) * pl->wp + ow * pl->st[2]) * pl->pix_bytes +
                         x_goff;
                yr = operand_off(&p->y, pl->yv, yes, n, 0, od, oh, ow);
                fresh = false;
            }
            xs[tiles][ii] = xbase + xr;
            ypix[tiles][ii] = yr;
            ys[tiles][ii] = out + yr + pl->y_koff[k0];
            xr += x_wstep;
            yr += y_wstep;
            if (++ow == ow_n) {
                ow = 0;
                fresh = true;
                if (++oh == oh_n) {
                    oh = 0;
                    if (++od == od_n) {
                        od = 0;
                        n++;
                    }
                }
            }
        }
    }
    /* Sums for the portable epilogue.  (Passes over parts of the units
     * with the sums kept here in between, the filter's part staying in
     * L1, measured 2% slower on this machine than one pass a tile.) */
    int32_t acc[6 * 4 * 16];
    fdnn_s8_conv_fused_args_t a = {
        .flip = pl->inplace && pl->x_signed,
        .w_unit = nkbq * 64,
        .nkb = nkbq,
        .last = last,
        .comp = pl->comp != NULL ? pl->comp + (g * pl->nkb + kb0) * 16 : NULL,
        .bias = pl->bias != NULL ? pl->bias + k0 : NULL,
        .alpha = pl->alpha,
        .relu = pl->relu,
        .nan_free = pl->nan_free,
        .quad_stride = pl->quad_stride,
    };
    for (int b = 0; b < nkbq; b++)
        a.y_blk[b] = pl->y_koff[k0 + 16 * b] - pl->y_koff[k0];
    a.x_off = pl->x_off;
    a.nj = pl->taps * pl->units;
    a.w = pl->wpk + (g * pl->nquad + quad) * pl->qbytes;
    a.out = pl->out_kind;
    a.acc = acc;
    /* NCHW_VECT_C read in place: a tile reads a few bytes from each of
     * units planes, more streams than the hardware prefetcher follows; the
     * kernel asks for the next tile's lines while it runs (when they are
     * new lines: the planes lie whole lines apart). */
    const bool planes = pl->inplace && pl->xv == 4 && pl->units > 1;
    const bool lines = pl->x_us % 64 == 0;
    if (planes)
        for (int64_t u = 0; u < pl->units; u++) {
            __builtin_prefetch(xs[0][0] + u * pl->x_us);
            __builtin_prefetch(xs[0][ms[0] - 1] + u * pl->x_us);
        }
    for (int t = 0; t < tiles; t++) {
        a.x_next = NULL;
        if (planes && t + 1 < tiles) {
            const uint8_t *xn = xs[t + 1][ms[t + 1] - 1];
            if (!lines || (uintptr_t)xn / 64 != (uintptr_t)xs[t][ms[t] - 1] / 64)
                a.x_next = xn;
        }
        a.m = ms[t];
        memcpy(a.x, xs[t], sizeof(a.x));
        memcpy(a.y, ys[t], sizeof(a.y));
        a.y_adjacent = 1;
        for (int ii = 1; ii < ms[t]; ii++)
            a.y_adjacent = a.y_adjacent && ys[t][ii] == ys[t][ii - 1] + 4;
        pl->fused(&a);
        if (pl->out_kind != 3)
            continue;
        for (int ii = 0; ii < ms[t]; ii++)
            for (int b = 0; b < nkbq; b++)
                store_outputs(pl, ypix[t][ii], k0 + 16 * b, b == nkbq - 1 ? last : 16, acc + (ii * 4 + b) * 16,
                              NULL);
    }
}

/* The kernel for the handle's ISA level. */
static void
choose_kernel(const fdnn_conv_exec_t *e, plan_t *pl)
{
    fdnn_isa_t isa = e->handle != NULL ? e->handle->isa : FDNN_ISA_SCALAR;
    const fdnn_isa_config_t *cfg = fdnn_isa_config(isa);
    const fdnn_s8_conv_kernels_t *k = cfg->s8conv.base;
    if (cfg->s8conv.with_ext != NULL && fdnn_cpu_has_ext(cfg->s8conv.ext) && !atomic_load(&vnni_disallowed))
        k = cfg->s8conv.with_ext;
    pl->fn = k->wide;
    pl->fused = k->fused;
    pl->pack_block = k->pack_block;
    pl->epi = k->epi;
    pl->vnni = k->fused != NULL;
    pl->vk = k->vk;
    pl->mr = k->mr;
    pl->cpu = pl->vnni ? 4 : 2;
}

/* The vnni path's choices: x read in place, the epilogue in the kernel,
 * the filter's quads gathered whole (tables already filled). */
static void
plan_vnni(const fdnn_conv_exec_t *e, plan_t *pl)
{
    const fdnn_conv_problem_t *p = e->p;
    pl->nquad = (pl->nkb + 3) / 4;
    pl->qbytes = pl->taps * pl->units * 4 * 64;
    /* In place: one tap, no padding, each group's channels whole quads at
     * one stride (NHWC: adjacent; NCHW_VECT_C of 4: one plane apart). */
    pl->inplace = false;
    if (pl->taps == 1 && p->pad[0] == 0 && p->pad[1] == 0 && p->pad[2] == 0 && pl->cg % 4 == 0 &&
        (pl->xv == 1 || pl->xv == 4)) {
        const int64_t us = p->c > 4 ? pl->x_coff[4] - pl->x_coff[0] : 4;
        bool ok = true;
        for (int64_t c = 0; c < p->c && ok; c++)
            ok = pl->x_coff[c] == (c / 4) * us + (c % 4);
        pl->inplace = ok && (pl->xv == 4 || us == 4);
        pl->x_us = us;
    }
    /* The epilogue in the kernel: no blend, and each block's channels
     * adjacent in y, or in quads one plane apart (NCHW_VECT_C of 4). */
    const int64_t yes = p->y_dtype == CUDNN_DATA_FLOAT ? 4 : 1;
    pl->out_kind = 3;
    pl->quad_stride = 4 * yes;
    if (pl->beta == 0) {
        bool adjacent = true;
        for (int64_t g = 0; g < p->g && adjacent; g++)
            for (int64_t kb = 0; kb < pl->nkb && adjacent; kb++) {
                const int64_t k = g * pl->kg + kb * 16, cnt = pl->kg - kb * 16 < 16 ? pl->kg - kb * 16 : 16;
                adjacent = pl->y_run[k] >= cnt;
            }
        const int kind = p->y_dtype == CUDNN_DATA_FLOAT ? 2 : p->y_dtype == CUDNN_DATA_UINT8x4 ? 1 : 0;
        if (adjacent) {
            pl->out_kind = kind;
        } else if (yes == 1 && pl->yv == 4 && pl->kg % 4 == 0) {
            pl->out_kind = kind;
            pl->quad_stride = p->k > 4 ? pl->y_koff[4] - pl->y_koff[0] : 0;
        }
    }
    pl->nan_free = isfinite(pl->alpha);
    for (int64_t k = 0; pl->bias != NULL && k < p->k && pl->nan_free; k++)
        pl->nan_free = isfinite(pl->bias[k]);
    /* Whole quads in the filter: the packing gathers a unit of 16 rows at
     * a time (row offsets in an int32). */
    bool quads = pl->w_ct != NULL && pl->cg % 4 == 0 && pl->w_kstride * 16 < ((int64_t)1 << 31);
    for (int64_t t = 0; t < pl->taps && quads; t++)
        for (int64_t u = 0; u < pl->units && quads; u++) {
            const int64_t *ct = pl->w_ct + t * pl->cg + 4 * u;
            quads = ct[1] == ct[0] + 1 && ct[2] == ct[0] + 2 && ct[3] == ct[0] + 3;
            pl->w_tu[t * pl->units + u] = ct[0];
        }
    /* Units then taps where that order is the filter's own (NCHW_VECT_C):
     * the packing then reads 16 units at a time from each row. */
    pl->u_outer = false;
    if (quads && pl->taps > 1 && pl->units > 1 && pl->w_tu[pl->taps > 1 ? pl->units : 0] - pl->w_tu[0] == 4 &&
        pl->w_tu[1] - pl->w_tu[0] == 4 * pl->taps) {
        pl->u_outer = true;
        for (int64_t t = 0; t < pl->taps; t++)
            for (int64_t u = 0; u < pl->units; u++)
                pl->w_tu[u * pl->taps + t] = pl->w_ct[t * pl->cg + 4 * u];
    }
    if (!quads)
        pl->w_tu = NULL;
    const int64_t us = pl->inplace ? pl->x_us : 4;
    for (int64_t t = 0; t < pl->taps; t++)
        for (int64_t u = 0; u < pl->units; u++)
            pl->x_off[pl->u_outer ? u * pl->taps + t : t * pl->units + u] = pl->tap_off[t] + u * us;
}

cudnnStatus_t
fdnn_conv_int8_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    plan_t pl;
    memset(&pl, 0, sizeof(pl));
    pl.e = e;
    pl.p = p;
    choose_kernel(e, &pl);
    pl.x_signed = p->x_dtype != CUDNN_DATA_UINT8x4;
    pl.cg = fdnn_conv_cg(p);
    pl.kg = fdnn_conv_kg(p);
    pl.units = (pl.cg + pl.cpu - 1) / pl.cpu;
    pl.nkb = (pl.kg + pl.vk - 1) / pl.vk;
    pl.npair = (pl.nkb + 1) / 2;
    pl.nquad = (pl.nkb + 3) / 4;
    pl.taps = fdnn_conv_taps(p);
    /* Along a dimension with a 1-wide filter only every stride-th input
     * is read: the packing keeps just those (strided 1x1 layers), and the
     * kernels step by 1 there. */
    for (int i = 0; i < 3; i++) {
        pl.sub[i] = p->ker[i] == 1 ? p->stride[i] : 1;
        pl.st[i] = p->stride[i] / pl.sub[i];
    }
    pl.dp = (p->out[0] - 1) * pl.st[0] + (p->ker[0] - 1) * p->dil[0] + 1;
    pl.hp = (p->out[1] - 1) * pl.st[1] + (p->ker[1] - 1) * p->dil[1] + 1;
    pl.wp = (p->out[2] - 1) * pl.st[2] + (p->ker[2] - 1) * p->dil[2] + 1;
    pl.pix_bytes = p->g * pl.units * 4;
    pl.xv = operand_vect(p->x_dtype, p->x_format);
    pl.yv = p->y_dtype == CUDNN_DATA_FLOAT ? 1 : operand_vect(p->y_dtype, p->y_format);
    pl.wblock = pl.taps * pl.units * pl.vk * 4;
    pl.alpha = (float)e->alpha;
    pl.beta = (float)e->beta;
    pl.bias = e->bias;
    pl.relu = e->relu;
    pl.y0 = e->y_in != NULL ? e->y_in : e->out;
    if (fdnn_conv_out_spatial(p) == 0 || p->n == 0 || p->k == 0)
        return CUDNN_STATUS_SUCCESS;

    /* Sizes that do not fit the address space (descriptors allow dims up
     * to 2^31 each) are refused before any product can wrap. */
    const double wneed = pl.vnni ? (double)p->g * (double)pl.nquad * 4 * (double)pl.wblock
                                 : (double)p->g * (double)pl.npair * 2 * (double)pl.wblock;
    const double need = wneed + (double)pl.dp * (double)pl.hp * (double)pl.wp * (double)pl.pix_bytes +
                        ((double)pl.taps * (double)(pl.cg + 2 * pl.units + 1) + (double)p->c + 2 * (double)p->k) * 8 +
                        (double)p->g * (double)pl.nkb * 64;
    if (need > (double)(SIZE_MAX / 4))
        return FDNN_ALLOC_FAILED("the packed operands would take %.3g bytes", need);
    const size_t wbytes = (size_t)wneed;
    const size_t cbytes = pl.vnni && pl.x_signed ? (size_t)(p->g * pl.nkb * 16) * 4 : 0;
    const size_t tbytes = (size_t)(pl.taps + p->c + 2 * p->k + pl.taps * pl.cg + 2 * pl.taps * pl.units) * 8;
    /* vnni: small images packed several at a time, so that the tiles of 6
     * pixels run across them (7 x 7 outputs: 9 tiles an image otherwise,
     * 1 of them a single pixel), within about 2 MiB. */
    const int64_t img_bytes = pl.dp * pl.hp * pl.wp * pl.pix_bytes;
    pl.nimg = 1;
    if (pl.vnni) {
        const int64_t spatial = fdnn_conv_out_spatial(p);
        pl.nimg = (8 * INT8_CHUNK + spatial - 1) / spatial;
        if (pl.nimg * img_bytes > ((int64_t)2 << 20))
            pl.nimg = ((int64_t)2 << 20) / (img_bytes > 0 ? img_bytes : 1);
        pl.nimg = pl.nimg < 1 ? 1 : pl.nimg > p->n ? p->n : pl.nimg;
    }
    const size_t xbytes = (size_t)(pl.nimg * img_bytes);
    char *scratch = fdnn_handle_scratch(e->handle, wbytes + cbytes + tbytes + xbytes + 64);
    if (scratch == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    pl.wpk = (uint8_t *)scratch;
    pl.comp = cbytes > 0 ? (int32_t *)(scratch + wbytes) : NULL;
    pl.tap_off = (int64_t *)(scratch + wbytes + cbytes);
    pl.xp = (uint8_t *)(scratch + wbytes + cbytes + tbytes);
    pl.x_coff = pl.tap_off + pl.taps;
    pl.y_koff = pl.x_coff + p->c;
    for (int64_t c = 0; c < p->c; c++)
        pl.x_coff[c] = operand_off(&p->x, pl.xv, 1, 0, c, 0, 0, 0);
    pl.x_dense = true;
    pl.x_quads = pl.cg % 4 == 0;
    for (int64_t c = 0; c < p->c; c++) {
        pl.x_dense = pl.x_dense && pl.x_coff[c] == c;
        if (c % 4 != 0)
            pl.x_quads = pl.x_quads && pl.x_coff[c] == pl.x_coff[c - 1] + 1;
    }
    const int64_t yes = p->y_dtype == CUDNN_DATA_FLOAT ? 4 : 1;
    for (int64_t k = 0; k < p->k; k++)
        pl.y_koff[k] = operand_off(&p->y, pl.yv, yes, 0, k, 0, 0, 0);
    pl.y_run = pl.y_koff + p->k;
    pl.w_ct = pl.y_run + p->k;
    pl.w_tu = pl.w_ct + pl.taps * pl.cg;
    pl.x_off = pl.w_tu + pl.taps * pl.units;
    pl.w_kstride = filter_off(p, 1, 0, 0, 0, 0) - filter_off(p, 0, 0, 0, 0, 0);
    if (p->w_dtype == CUDNN_DATA_INT8x32 && p->reorder == CUDNN_NO_REORDER) {
        pl.w_ct = NULL;
    } else {
        int64_t tt = 0;
        for (int64_t qd = 0; qd < p->ker[0]; qd++)
            for (int64_t qh = 0; qh < p->ker[1]; qh++)
                for (int64_t qw = 0; qw < p->ker[2]; qw++, tt++)
                    for (int64_t c = 0; c < pl.cg; c++)
                        pl.w_ct[tt * pl.cg + c] = filter_off(p, 0, c, p->flip ? p->ker[0] - 1 - qd : qd,
                                                             p->flip ? p->ker[1] - 1 - qh : qh,
                                                             p->flip ? p->ker[2] - 1 - qw : qw);
    }
    for (int64_t k = p->k - 1; k >= 0; k--)
        pl.y_run[k] = k + 1 < p->k && pl.y_koff[k + 1] == pl.y_koff[k] + yes ? pl.y_run[k + 1] + 1 : 1;
    for (int i = 0; i < 3; i++)
        pl.y_pix[i] = p->y.strides[2 + i] * pl.yv * yes;
    int64_t t = 0;
    for (int64_t qd = 0; qd < p->ker[0]; qd++)
        for (int64_t qh = 0; qh < p->ker[1]; qh++)
            for (int64_t qw = 0; qw < p->ker[2]; qw++)
                pl.tap_off[t++] =
                    ((qd * p->dil[0] * pl.hp + qh * p->dil[1]) * pl.wp + qw * p->dil[2]) * pl.pix_bytes;

    fdnn_pool_t pool = fdnn_conv_macs(p) < INT8_SMALL_MACS ? NULL : e->pool;
    if (pl.vnni) {
        plan_vnni(e, &pl);
        fdnn_parallelize_1d(pool, pack_filter, &pl, (size_t)(p->g * pl.nkb), 0);
        const int64_t spatial = fdnn_conv_out_spatial(p);
        if (pl.inplace) {
            const int64_t chunks = (p->n * spatial + INT8_CHUNK - 1) / INT8_CHUNK;
            fdnn_parallelize_2d(pool, compute_chunk, &pl, (size_t)chunks, (size_t)(p->g * pl.nquad), 0);
            return CUDNN_STATUS_SUCCESS;
        }
        const int64_t batch = pl.nimg;
        for (int64_t n = 0; n < p->n; n += batch) {
            pl.n = n;
            pl.nimg = p->n - n < batch ? p->n - n : batch;
            fdnn_parallelize_1d(pool, pack_input_row, &pl, (size_t)(pl.nimg * pl.dp * pl.hp), 0);
            fdnn_parallelize_2d(pool, compute_chunk, &pl,
                                (size_t)((pl.nimg * spatial + INT8_CHUNK - 1) / INT8_CHUNK), (size_t)(p->g * pl.nquad),
                                0);
        }
        return CUDNN_STATUS_SUCCESS;
    }
    fdnn_parallelize_1d(pool, pack_filter, &pl, (size_t)(p->g * pl.npair * 2), 0);
    for (int64_t n = 0; n < p->n; n++) {
        pl.n = n;
        fdnn_parallelize_1d(pool, pack_input_row, &pl, (size_t)(pl.dp * pl.hp), 0);
        fdnn_parallelize_2d(pool, compute_row, &pl, (size_t)(p->out[0] * p->out[1]), (size_t)(p->g * pl.npair), 0);
    }
    return CUDNN_STATUS_SUCCESS;
}
