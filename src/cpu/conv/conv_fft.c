/* SPDX-License-Identifier: Apache-2.0
 * FFT and FFT_TILING convolution, all three directions (conv_fft.h).
 *
 * Geometry, per spatial dimension (D, H, W), for stride 1 (the virtual
 * forward output of a strided FFT_TILING forward is subsampled at the end):
 *   forward:   y[o]   = sum_j x[o - pad + j] w'[j]
 *   bwd data:  dx[i]  = sum_j dy[i + pad - j] w'[j]
 *   bwd filt:  dw'[j] = sum_o dy[o] x[o - pad + j]
 * The result extent R (out, in, out) is cut into tiles of T positions (one
 * tile of R for FFT).  A tile starting at r0 loads, into a transform of
 * length L >= T + ker - 1 (zero elsewhere):
 *   forward, bwd filt:  x~[i] = x[r0 - pad + i]             i < T + ker - 1
 *   bwd data:           d~[i] = dy[r0 + pad - ker + 1 + i]   i < T + ker - 1
 *   bwd filt:           e~[t] = dy[r0 + t]                   t < T
 * and the filter w'[j] at j < ker.  Then, with circular indices that never
 * wrap for the positions read:
 *   forward:  y[r0 + t]   = IDFT(X~ conj(W'))[t]
 *   bwd data: dx[r0 + t]  = IDFT(D~ W')[t + ker - 1]
 *   bwd filt: dw'[j]     += IDFT(X~ conj(E~))[j]   (summed over images, tiles)
 * Spectra are real-to-complex in W (L_w / 2 + 1 frequencies kept), full in
 * D and H; the W transforms take two real rows per complex transform, both
 * ways.
 *
 * Work: (1) transform the two inputs, plane blocks of `pblk` planes per
 * transform (the batch the FFT vectorises over), blocks split into a fixed
 * number of slot chunks, each with its own buffers; (2) complex products,
 * one per frequency, `lanes` frequencies at a time (spectra are stored
 * [frequency vector][re, im][plane][lane], so the product is vertical SIMD
 * and each transform block writes contiguous runs); (3) inverse-transform
 * the result planes in blocks and blend them into the output.  Every
 * plane, frequency and output element is computed by the same operations
 * whatever the thread count, so results do not depend on it. */
#include <stdint.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_fft.h"
#include "cpu/fft/fft.h"

#define MAX_SLOTS 8
#define MAX_PBLK 16
#define BLOCK_BYTES (256u * 1024u)
/* cuDNN's FFT limit: input + 2 * padding at most 256 per dimension. */
#define FFT_MAX_PADDED 256

typedef enum src_kind { SRC_IMAGE, SRC_FILTER_CK, SRC_FILTER_KC } src_kind_t;

/* An input operand of the transforms. */
typedef struct fsrc {
    src_kind_t kind;
    const fdnn_tensor_t *t;
    int64_t ch;      /* images: channels per image (C or K) */
    int64_t ext[3];  /* source extent */
    int64_t off[3];  /* images: source position of tile 0's first element */
    int64_t lim[3];  /* elements loaded per tile (filters: ker) */
    int64_t planes;
} fsrc_t;

/* The result operand. */
typedef struct fdst {
    bool filter;     /* dw (planes k*Cg + c) rather than images (m*ch + c) */
    int64_t ch;
    int64_t ext[3];  /* result extent (virtual, stride 1, for a strided forward) */
    int64_t coff[3]; /* position in the circular result of result offset 0 */
    int64_t len[3];  /* positions per tile (T, or ker for filters) */
    int64_t stride[3];
    int64_t planes;
} fdst_t;

typedef struct fplan {
    const fdnn_conv_problem_t *p;
    size_t es;
    int64_t nf[3], tlen[3], nt[3], tiles, wh, F, rows, nfull;
    int64_t lanes, nfb; /* frequencies per product vector, and vectors (F rounded up) */
    int64_t pblk;
    int nslots;
    fsrc_t a, b;
    fdst_t c;
    size_t off_tw[3], off_a, off_b, off_c, off_slots, slot_bytes, total;
} fplan_t;

static const char *
dir_name(fdnn_conv_dir_t d)
{
    return d == FDNN_CONV_FWD ? "forward" : d == FDNN_CONV_BWD_DATA ? "backward-data" : "backward-filter";
}

cudnnStatus_t
fdnn_conv_fft_applicable(const fdnn_conv_problem_t *p, bool tiling)
{
    const char *algo = tiling ? "FFT_TILING" : "FFT";
    const char *dn = dir_name(p->dir);
    static const char *const dim[3] = {"depth", "height", "width"};
    int first = 3 - p->nsp;
    for (int i = first; i < 3; i++)
        if (p->dil[i] != 1)
            return FDNN_NOT_SUPPORTED("%s %s needs dilation 1 (%s dilation is %lld)", dn, algo, dim[i],
                                      (long long)p->dil[i]);
    for (int i = first; i < 3; i++)
        if (p->ker[i] <= p->pad[i])
            return FDNN_NOT_SUPPORTED("%s %s needs the filter %s (%lld) greater than its padding (%lld)", dn, algo,
                                      dim[i], (long long)p->ker[i], (long long)p->pad[i]);
    if (!tiling) {
        if (p->nsp != 2)
            return FDNN_NOT_SUPPORTED("%s FFT handles 2-D convolutions only (use FFT_TILING for 3-D)", dn);
        for (int i = 1; i < 3; i++) {
            if (p->stride[i] != 1)
                return FDNN_NOT_SUPPORTED("%s FFT needs stride 1 (%s stride is %lld)", dn, dim[i],
                                          (long long)p->stride[i]);
            if (p->in[i] + 2 * p->pad[i] > FFT_MAX_PADDED)
                return FDNN_NOT_SUPPORTED("%s FFT needs %s + 2 * padding <= %d (is %lld)", dn, dim[i],
                                          FFT_MAX_PADDED, (long long)(p->in[i] + 2 * p->pad[i]));
        }
        return CUDNN_STATUS_SUCCESS;
    }
    if (p->nsp == 3) {
        if (p->dir == FDNN_CONV_BWD_FILTER)
            return FDNN_NOT_SUPPORTED("backward-filter FFT_TILING handles 2-D convolutions only");
        for (int i = 0; i < 3; i++) {
            if (p->ker[i] > 16)
                return FDNN_NOT_SUPPORTED("3-D %s FFT_TILING needs filter %s <= 16 (is %lld)", dn, dim[i],
                                          (long long)p->ker[i]);
            if (p->stride[i] != 1)
                return FDNN_NOT_SUPPORTED("3-D %s FFT_TILING needs stride 1 (%s stride is %lld)", dn, dim[i],
                                          (long long)p->stride[i]);
        }
        return CUDNN_STATUS_SUCCESS;
    }
    if (p->dir == FDNN_CONV_BWD_FILTER) {
        /* cuDNN 8.9: 1-D problems only, tiles of 32 by at most 256. */
        int one = p->in[1] == 1 ? 1 : p->in[2] == 1 ? 2 : 0;
        if (one == 0)
            return FDNN_NOT_SUPPORTED("backward-filter FFT_TILING needs input height or width 1 (is %lldx%lld)",
                                      (long long)p->in[1], (long long)p->in[2]);
        if (p->out[one] != 1)
            return FDNN_NOT_SUPPORTED("backward-filter FFT_TILING needs dy %s 1 like x's (is %lld)", dim[one],
                                      (long long)p->out[one]);
        int other = 3 - one;
        if (p->in[other] > 256)
            return FDNN_NOT_SUPPORTED("backward-filter FFT_TILING needs input %s <= 256 (is %lld)", dim[other],
                                      (long long)p->in[other]);
        for (int i = 1; i < 3; i++)
            if (p->stride[i] != 1)
                return FDNN_NOT_SUPPORTED("backward-filter FFT_TILING needs stride 1 (%s stride is %lld)", dim[i],
                                          (long long)p->stride[i]);
        return CUDNN_STATUS_SUCCESS;
    }
    bool one_d = p->ker[1] == 1 || p->ker[2] == 1;
    for (int i = 1; i < 3; i++) {
        if (one_d && p->ker[i] > 256)
            return FDNN_NOT_SUPPORTED("%s FFT_TILING with a 1-D filter needs its length <= 256 (%s is %lld)", dn,
                                      dim[i], (long long)p->ker[i]);
        if (!one_d && p->ker[i] > 32)
            return FDNN_NOT_SUPPORTED("%s FFT_TILING needs filter %s <= 32 (is %lld)", dn, dim[i],
                                      (long long)p->ker[i]);
        int64_t smax = p->dir == FDNN_CONV_FWD && !one_d ? 2 : 1;
        if (p->stride[i] > smax)
            return FDNN_NOT_SUPPORTED("%s FFT_TILING needs stride %s (%s stride is %lld)", dn,
                                      smax == 2 ? "1 or 2" : "1", dim[i], (long long)p->stride[i]);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Transform length of a tile for a filter of `ker` taps. */
static int64_t
tile_length(int64_t ker)
{
    if (ker <= 16)
        return 32;
    int64_t l = 64;
    while (l < 2 * ker)
        l *= 2;
    return l;
}

static cudnnStatus_t
make_plan(const fdnn_conv_problem_t *p, bool tiling, fplan_t *f)
{
    memset(f, 0, sizeof(*f));
    f->p = p;
    f->es = fdnn_dtype_size(p->dtype);
    int64_t cg = fdnn_conv_cg(p);
    int64_t R[3];
    for (int i = 0; i < 3; i++) {
        R[i] = p->dir == FDNN_CONV_BWD_DATA ? p->in[i] : (p->out[i] - 1) * p->stride[i] + 1;
        int64_t need = R[i] + p->ker[i] - 1;
        int64_t tl = tiling ? tile_length(p->ker[i]) : 0;
        if (!tiling || need <= tl) {
            f->nf[i] = fdnn_fft_good_size(need);
            f->tlen[i] = R[i];
        } else {
            f->nf[i] = tl;
            f->tlen[i] = tl - p->ker[i] + 1;
        }
        f->nt[i] = (R[i] + f->tlen[i] - 1) / f->tlen[i];
    }
    f->tiles = f->nt[0] * f->nt[1] * f->nt[2];
    f->wh = f->nf[2] / 2 + 1;
    f->F = f->nf[0] * f->nf[1] * f->wh;
    f->nfull = f->nf[0] * f->nf[1] * f->nf[2];
    f->lanes = 64 / (int64_t)f->es;
    f->nfb = (f->F + f->lanes - 1) / f->lanes;
    f->rows = p->n * f->tiles;

    fsrc_t img_x = {SRC_IMAGE, &p->x, p->c, {0}, {0}, {0}, f->rows * p->c};
    for (int i = 0; i < 3; i++) {
        img_x.ext[i] = p->in[i];
        img_x.off[i] = -p->pad[i];
        img_x.lim[i] = f->tlen[i] + p->ker[i] - 1;
    }
    fsrc_t filt = {p->dir == FDNN_CONV_FWD ? SRC_FILTER_CK : SRC_FILTER_KC, &p->w, 0, {0}, {0}, {0}, p->k * cg};
    for (int i = 0; i < 3; i++)
        filt.ext[i] = filt.lim[i] = p->ker[i];
    fsrc_t img_dy = {SRC_IMAGE, &p->y, p->k, {0}, {0}, {0}, f->rows * p->k};
    for (int i = 0; i < 3; i++) {
        img_dy.ext[i] = p->out[i];
        img_dy.off[i] = p->dir == FDNN_CONV_BWD_DATA ? p->pad[i] - p->ker[i] + 1 : 0;
        img_dy.lim[i] = p->dir == FDNN_CONV_BWD_DATA ? f->tlen[i] + p->ker[i] - 1 : f->tlen[i];
    }
    fdst_t *c = &f->c;
    for (int i = 0; i < 3; i++) {
        c->stride[i] = 1;
        c->len[i] = f->tlen[i];
        c->ext[i] = R[i];
    }
    if (p->dir == FDNN_CONV_FWD) {
        f->a = filt;
        f->b = img_x;
        c->ch = p->k;
        c->planes = f->rows * p->k;
        for (int i = 0; i < 3; i++)
            c->stride[i] = p->stride[i];
    } else if (p->dir == FDNN_CONV_BWD_DATA) {
        f->a = filt;
        f->b = img_dy;
        c->ch = p->c;
        c->planes = f->rows * p->c;
        for (int i = 0; i < 3; i++)
            c->coff[i] = p->ker[i] - 1;
    } else {
        f->a = img_x;
        f->b = img_dy;
        c->filter = true;
        c->ch = cg;
        c->planes = p->k * cg;
        for (int i = 0; i < 3; i++)
            c->len[i] = c->ext[i] = p->ker[i];
    }

    /* Planes per transform block: buffers near BLOCK_BYTES. */
    size_t plane_bytes = (size_t)f->nfull * 2 * f->es;
    int64_t pb = (int64_t)(BLOCK_BYTES / plane_bytes);
    f->pblk = pb < 1 ? 1 : pb > MAX_PBLK ? MAX_PBLK : pb;
    int64_t most = f->a.planes > f->b.planes ? f->a.planes : f->b.planes;
    most = most > c->planes ? most : c->planes;
    int64_t nblk = (most + f->pblk - 1) / f->pblk;
    f->nslots = (int)(nblk < MAX_SLOTS ? nblk : MAX_SLOTS);

    /* Sizes in double first: the spectra of a large problem can exceed
     * size_t on 32-bit systems and must not wrap. */
    double spec = (double)(f->nfb * f->lanes) * 2.0 * (double)f->es;
    double slot = ((double)f->nfull * 4.0 + (double)f->nf[2] * 4.0) * (double)f->pblk * (double)f->es;
    double total = spec * (double)(f->a.planes + f->b.planes + c->planes) + slot * f->nslots + 65536.0 * 8;
    if (total > (double)(SIZE_MAX / 2))
        return FDNN_NOT_SUPPORTED("the %s workspace would need %.3g bytes", tiling ? "FFT_TILING" : "FFT", total);
    fdnn_carver_t cv = {NULL, 0};
    for (int i = 0; i < 3; i++) {
        f->off_tw[i] = cv.used;
        fdnn_carve(&cv, fdnn_fft_twiddle_doubles((int)f->nf[i]) * sizeof(double));
    }
    f->off_a = cv.used;
    size_t fpad = (size_t)(f->nfb * f->lanes);
    fdnn_carve(&cv, fpad * 2 * (size_t)f->a.planes * f->es);
    f->off_b = cv.used;
    fdnn_carve(&cv, fpad * 2 * (size_t)f->b.planes * f->es);
    f->off_c = cv.used;
    fdnn_carve(&cv, fpad * 2 * (size_t)c->planes * f->es);
    f->off_slots = cv.used;
    f->slot_bytes = fdnn_align_up((size_t)(f->nfull * 4 + f->nf[2] * 4) * (size_t)f->pblk * f->es);
    f->total = cv.used + f->slot_bytes * (size_t)f->nslots;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_fft_workspace(const fdnn_conv_problem_t *p, bool tiling, size_t *bytes)
{
    RETURN_IF_ERROR(fdnn_conv_fft_applicable(p, tiling));
    fplan_t f;
    RETURN_IF_ERROR(make_plan(p, tiling, &f));
    *bytes = f.total;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct fctx {
    const fdnn_conv_exec_t *e;
    const fplan_t *f;
    const fdnn_fft_kernels_t *k;
    fdnn_fft_plan_t pl[3];
    /* the operand being transformed in the current phase */
    const fsrc_t *src;
    const void *src_data;
    size_t src_spec;
    int64_t nblk;
} fctx_t;

/* Source element offset of plane `q` of an operand, and its tile's first
 * loaded position per dimension. */
static int64_t
src_plane(const fctx_t *x, const fsrc_t *s, int64_t q, int64_t start[3])
{
    const fplan_t *f = x->f;
    const fdnn_conv_problem_t *p = f->p;
    const fdnn_tensor_t *t = s->t;
    if (s->kind != SRC_IMAGE) {
        int64_t k, c;
        if (s->kind == SRC_FILTER_KC) {
            k = q / fdnn_conv_cg(p);
            c = q % fdnn_conv_cg(p);
        } else { /* (g, c, kk) */
            int64_t cg = fdnn_conv_cg(p), kg = fdnn_conv_kg(p);
            int64_t g = q / (cg * kg), rem = q % (cg * kg);
            c = rem / kg;
            k = g * kg + rem % kg;
        }
        start[0] = start[1] = start[2] = 0;
        return k * t->strides[0] + c * t->strides[1];
    }
    int64_t m = q / s->ch, ch = q % s->ch;
    int64_t n = m / f->tiles, tile = m % f->tiles;
    int64_t td = tile / (f->nt[1] * f->nt[2]), th = (tile / f->nt[2]) % f->nt[1], tw = tile % f->nt[2];
    start[0] = td * f->tlen[0] + s->off[0];
    start[1] = th * f->tlen[1] + s->off[1];
    start[2] = tw * f->tlen[2] + s->off[2];
    return n * t->strides[0] + ch * t->strides[1];
}

/* The row loops below run over disjoint buffers; tell the compiler. */
#if defined(__clang__)
#define IVDEP_C _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define IVDEP_C _Pragma("GCC ivdep")
#else
#define IVDEP_C
#endif

#define T float
#define SFX(name) name##_f32
#define FFT_FN fft_f32
#define CGEMM_FN cgemm_f32
#include "cpu/conv/conv_fft.inc"
#undef T
#undef SFX
#undef FFT_FN
#undef CGEMM_FN

#define T double
#define SFX(name) name##_f64
#define FFT_FN fft_f64
#define CGEMM_FN cgemm_f64
#include "cpu/conv/conv_fft.inc"
#undef T
#undef SFX
#undef FFT_FN
#undef CGEMM_FN

static void
run_slots(fctx_t *x, fdnn_pool_t pool, void (*fn)(void *, size_t))
{
    if (pool != NULL && x->f->nslots > 1)
        fdnn_parallelize_1d(pool, fn, x, (size_t)x->f->nslots, 0);
    else
        for (int i = 0; i < x->f->nslots; i++)
            fn(x, (size_t)i);
}

cudnnStatus_t
fdnn_conv_fft_execute(const fdnn_conv_exec_t *e, bool tiling)
{
    const fdnn_conv_problem_t *p = e->p;
    RETURN_IF_ERROR(fdnn_conv_fft_applicable(p, tiling));
    fplan_t f;
    RETURN_IF_ERROR(make_plan(p, tiling, &f));
    if (e->workspace_bytes < f.total || e->workspace == NULL)
        return FDNN_BAD_PARAM("workspace is %zu bytes, %s needs %zu", e->workspace_bytes,
                              tiling ? "FFT_TILING" : "FFT", f.total);
    fctx_t x;
    memset(&x, 0, sizeof(x));
    x.e = e;
    x.f = &f;
    x.k = fdnn_fft_kernels(e->handle->isa);
    for (int i = 0; i < 3; i++)
        fdnn_fft_plan_init(&x.pl[i], (int)f.nf[i], (double *)((char *)e->workspace + f.off_tw[i]));
    bool f32 = p->dtype == CUDNN_DATA_FLOAT;
    const void *a_data = p->dir == FDNN_CONV_BWD_FILTER ? e->x_in : e->w_in;
    const void *b_data = p->dir == FDNN_CONV_FWD ? e->x_in : e->y_in;
    /* (1) forward transforms of both inputs */
    x.src = &f.a;
    x.src_data = a_data;
    x.src_spec = f.off_a;
    x.nblk = (f.a.planes + f.pblk - 1) / f.pblk;
    run_slots(&x, e->pool, f32 ? fwd_slot_f32 : fwd_slot_f64);
    x.src = &f.b;
    x.src_data = b_data;
    x.src_spec = f.off_b;
    x.nblk = (f.b.planes + f.pblk - 1) / f.pblk;
    run_slots(&x, e->pool, f32 ? fwd_slot_f32 : fwd_slot_f64);
    /* (2) products, one vector of frequencies per task */
    if (e->pool != NULL)
        fdnn_parallelize_1d(e->pool, f32 ? product_f32 : product_f64, &x, (size_t)f.nfb, 0);
    else
        for (int64_t i = 0; i < f.nfb; i++)
            (f32 ? product_f32 : product_f64)(&x, (size_t)i);
    /* (3) inverse transforms and the blend */
    x.nblk = (f.c.planes + f.pblk - 1) / f.pblk;
    run_slots(&x, e->pool, f32 ? inv_slot_f32 : inv_slot_f64);
    return CUDNN_STATUS_SUCCESS;
}
