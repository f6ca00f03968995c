/* SPDX-License-Identifier: Apache-2.0
 * Channel-blocked depthwise convolution (the contract is in
 * conv_depthwise_cb.h) on the kernels of src/cpu/kernels/dwconv_cb.h.
 *
 * A "view" is where a tensor's elements of one image sit for the kernels:
 * channel block b, row h, column w at base + b*bs + h*rs + w*ps, 16
 * channels consecutive.  Channels-innermost tensors are their own views;
 * other layouts are transposed, a group of channel blocks at a time, into a
 * scratch view [block][H][W][16] (and the output back).
 *
 * Forward and backward data compute one output row at a time.  Along each
 * spatial dimension, output position o and tap q read data position
 *
 *   forward        i = o*stride - pad + q*dil          (valid: 0 <= i < in)
 *   backward data  i = (o + pad - q*dil) / stride       (valid: divisible, 0 <= i < dy)
 *
 * (backward data: dx[o] gathers dy[i] * w[q]).  The positions of a row are
 * cut into runs (`run_t`) over which the set of valid W taps is the same
 * and i advances by a fixed step: the interior of a row is one run, each
 * border position its own; backward data with stride s has one family of
 * runs per phase o % s, over which the output advances by s.  A row's H
 * taps are found per row.  Each (row, run) is one kernel call over every
 * channel block of the task, with the valid taps in q order: every output
 * element is one sum in an order fixed by the problem, whatever the thread
 * count.
 *
 * Backward filter: per channel block the 16 channels' sums of each tap
 * over every image, row and run in order (runs as forward), the task being
 * a range of channel blocks: no reduction across tasks.  One chunk per
 * thread (each further chunk would be one more pass over x and dy), its
 * blocks taken a range at a time (`sub`: a range's share of one image
 * stays in L2 while its blocks pass over it).  Where a range would hold
 * few blocks (large images, channels innermost, two images or more:
 * grad_schedules), backward filter goes by images instead: a task is an
 * image or a band of its rows, every block over strips of rows that are
 * prefetched into L2 a strip ahead, its sums its own; dw is the tasks'
 * sums added in task order (reduce_block).  Either way the order of every
 * sum is fixed by the problem, not the thread count.
 *
 * Forward and backward data on user tensors (in place) pass the kernels a
 * prefetch hint: the data rows the next output row reads first
 * (prefetch_rows), which then arrive while this row computes.
 *
 * Channels-innermost tensors whose positions all fall into one L1 set (C
 * a multiple of 1024: l1_sets) are copied: backward filter reads x from
 * strips of rows copied into [block][row][W][16] (strips_pay,
 * grad_strips), forward and backward data read their data from a
 * [block][H][W][16] copy of a group of blocks and write the output in
 * place.  The copies change where the kernels read, not what
 * they add or in which order: the same bits. */
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/config/config.h"
#include "cpu/conv/conv_depthwise_cb.h"
#include "cpu/kernels/dwconv_cb.h"

#define BLK FDNN_DWCB_BLOCK
#define MAX_TAPS 64
#define MAX_KW 32
/* NCHW problems whose output planes have up to NCHW_MAX_OUT_PLANE
 * positions take this path (transposed a group of blocks at a time): 7x7
 * outputs, with 14x14 stride-2 inputs.  Where the ISA transposes planes in
 * registers (AVX-512), also one image of up to 28x28 outputs, and forward
 * and backward data with input and output planes of up to 14x14.  Larger
 * ones keep the plane path, which needs no transposes (measured in
 * docs/performance.md, "Depthwise round 2" and "Depthwise NHWC and
 * transposes": one image of 28x28 outputs runs 1.1-2x faster here in all
 * three directions, 56x56 stride 1 slower; at 32 images forward and
 * backward data on 14x14 planes 1.1-1.9x faster, backward filter mixed and
 * 28x28 stride 2 inputs slower). */
#define NCHW_MAX_OUT_PLANE 64
#define NCHW_MB1_MAX_OUT_PLANE 784
#define NCHW_SMALL_PLANE 196
/* Floats of scratch views per task (input and output together). */
#define GROUP_FLOATS 16384
#define CHUNKS_PER_THREAD 4
/* Backward filter: bytes of one image's x and dy per range of blocks (a
 * quarter of a 1 MB L2 with room for the rest, Zen 4/5; measured: 512_14
 * at 32 images slower with 20 blocks per range than with 8). */
#define GRAD_RANGE_BYTES (256 * 1024)
/* Backward filter strips (grad_strips): floats of the copy per chunk, and
 * the L1 geometry of strips_pay (48 KB, 12 ways of 64 sets: Zen 4/5, Intel
 * since Ice Lake). */
#define STRIP_FLOATS 16384
/* Backward filter by images (grad_schedules): images or bands per
 * problem at least (bands of one image's rows below it: two threads or
 * three get several tasks each), the bytes of x and dy rows per strip
 * (a quarter of a 1 MB L2), and the most partial sums (the schedule
 * declines above). */
#define GRAD_MIN_TASKS 8
#define GRAD_IMAGES_MAX_RANGE 8
#define GRAD_STRIP_BYTES (512 * 1024)
#define GRAD_PSUM_BYTES (64.0 * 1024 * 1024)
#define L1_WAY_BYTES 4096
#define L1_WAYS 12

typedef struct run {
    int64_t o0, ostep, count, istep;
    uint32_t mask; /* the valid W taps */
} run_t;

typedef struct view {
    float *base; /* image 0, block 0 */
    int64_t ns, bs, rs, ps;
} view_t;

typedef struct cb_job {
    const fdnn_conv_exec_t *e;
    const fdnn_conv_problem_t *p;
    fdnn_f32_dwcb_rows_fn rows_fn;
    fdnn_f32_dwcb_grad_fn grad_fn;
    fdnn_f32_dwcb_pack_fn pack_fn;     /* NULL: element by element */
    fdnn_f32_dwcb_unpack_fn unpack_fn; /* NULL: element by element */
    fdnn_f32_dwcb_gather_fn gather_fn; /* NULL: memcpy by block */
    bool bwd_data, bwd_filter, in_place;
    int64_t kh, kw, blocks, tail;
    int64_t data_h, data_w, out_h, out_w; /* the data read (x or dy) and the rows computed */
    const run_t *runs;
    int64_t nruns;
    const float *wpack; /* [block][tap][16], zeros past C */
    float *sums;        /* backward filter: [block][tap][16] */
    view_t data, out, dy; /* in place: the user tensors */
    /* Backward filter: blocks per range of a chunk (run_chunk). */
    int64_t sub;
    /* Transposed path: a task is (image, group of `group` blocks); each
     * chunk has a slot of slot_floats. */
    int64_t group, groups;
    float *slots;
    size_t slot_floats;
    char *segs; /* backward filter: per chunk, an image's segments */
    /* Backward filter on channels-innermost x by strips (grad_strips):
     * output rows per strip (0: none) and the data rows a strip reads. */
    int64_t strip_out, strip_in;
    /* Backward filter by images (grad_schedules): a task is (image, band
     * of band_rows output rows) over every block, its sums [block][tap][16]
     * at psums + task*psum_floats, added in task order by reduce_chunk;
     * strips of strip_out output rows (copied when strip_copy). */
    bool by_images, strip_copy;
    int64_t bands, band_rows;
    float *psums;
    size_t psum_floats;
    /* Forward / backward data on channels-innermost tensors, the data read
     * gathered a group of blocks at a time into a slot, the output written
     * in place (run_chunk). */
    bool gather;
    size_t seg_bytes;
    size_t tasks, chunks;
} cb_job_t;

static int64_t
ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Data position of output position o and tap q along a dimension (see the
 * top of the file), or -1 when the tap reads nothing there. */
static int64_t
tap_index(bool bwd_data, int64_t o, int64_t q, int64_t stride, int64_t pad, int64_t dil, int64_t size)
{
    int64_t i;
    if (bwd_data) {
        int64_t num = o + pad - q * dil;
        if (num < 0 || num % stride != 0)
            return -1;
        i = num / stride;
    } else {
        i = o * stride - pad + q * dil;
    }
    return i >= 0 && i < size ? i : -1;
}

bool
fdnn_conv_dwcb_applies(const fdnn_conv_problem_t *p, cudnnHandle_t handle)
{
    if (p->dtype != CUDNN_DATA_FLOAT || fdnn_conv_cg(p) != 1 || fdnn_conv_kg(p) != 1)
        return false;
    if (p->in[0] != 1 || p->ker[0] != 1 || p->out[0] != 1 || p->pad[0] != 0)
        return false; /* 2-D only */
    if (p->ker[1] * p->ker[2] > MAX_TAPS || p->ker[2] > MAX_KW)
        return false;
    bool chlast = p->x.strides[1] == 1 && p->y.strides[1] == 1;
    int64_t plane = p->out[1] * p->out[2];
    if (chlast || plane <= NCHW_MAX_OUT_PLANE)
        return true;
    /* Where the ISA transposes in registers (element by element, the
     * transposes cost more than they save): one image of up to 28x28
     * outputs, and forward and backward data on planes of up to 14x14 in
     * and out for any number of images. */
    const fdnn_isa_config_t *level = fdnn_isa_config(handle->isa);
    if (level->dwcb_pack == NULL || level->dwcb_unpack == NULL)
        return false;
    if (p->n == 1 && plane <= NCHW_MB1_MAX_OUT_PLANE)
        return true;
    return p->dir != FDNN_CONV_BWD_FILTER && plane <= NCHW_SMALL_PLANE && p->in[1] * p->in[2] <= NCHW_SMALL_PLANE;
}

/* The runs of every output column (see the top of the file). */
static int64_t
make_runs(const cb_job_t *j, run_t *runs)
{
    const fdnn_conv_problem_t *p = j->p;
    int64_t s = p->stride[2], phases = j->bwd_data ? (s < j->out_w ? s : j->out_w) : 1, n = 0;
    for (int64_t a = 0; a < phases; a++) {
        int64_t ostep = j->bwd_data ? s : 1;
        for (int64_t o = a; o < j->out_w; o += ostep) {
            uint32_t mask = 0;
            for (int64_t q = 0; q < j->kw; q++)
                if (tap_index(j->bwd_data, o, q, s, p->pad[2], p->dil[2], j->data_w) >= 0)
                    mask |= 1u << q;
            if (n > 0 && runs[n - 1].mask == mask && runs[n - 1].ostep == ostep &&
                runs[n - 1].o0 + runs[n - 1].count * ostep == o) {
                runs[n - 1].count++;
            } else {
                runs[n] = (run_t){o, ostep, 1, j->bwd_data ? 1 : s, mask};
                n++;
            }
        }
    }
    return n;
}

/* The valid H taps of output row oh: their q and data rows. */
static int64_t
row_taps(const cb_job_t *j, int64_t oh, int64_t *q, int64_t *ih)
{
    const fdnn_conv_problem_t *p = j->p;
    int64_t n = 0;
    for (int64_t k = 0; k < j->kh; k++) {
        int64_t i = tap_index(j->bwd_data, oh, k, p->stride[1], p->pad[1], p->dil[1], j->data_h);
        if (i >= 0) {
            q[n] = k;
            ih[n++] = i;
        }
    }
    return n;
}

/* The prefetch hint of output row oh (dwconv_cb.h: pf_rows, pf_off) on
 * in-place data d whose row oh reads rows ih[0 .. nh-1]: up to two rows
 * that the next output row reads and this one does not, in the same image
 * or, after its last row, at the top of the next one (more_images). */
static void
prefetch_rows(const cb_job_t *j, const view_t *d, int64_t oh, const int64_t *ih, int64_t nh, bool more_images,
              fdnn_f32_dwcb_rows_args_t *args)
{
    int64_t qn[MAX_TAPS], in[MAX_TAPS], base = 0, next = oh + 1;
    if (nh == 0)
        return;
    if (next == j->out_h) {
        if (!more_images)
            return;
        base = d->ns;
        next = 0;
    }
    int64_t nn = row_taps(j, next, qn, in);
    for (int64_t a = 0; a < nn && args->pf_rows < 2; a++) {
        bool read = false;
        for (int64_t k = 0; k < nh && base == 0; k++)
            read = read || ih[k] == in[a];
        if (!read)
            args->pf_off[args->pf_rows++] = base + (in[a] - ih[0]) * d->rs;
    }
}

/* Output row oh of blocks b0 .. b0+blocks-1 (the last with `tail`
 * channels) from data view d into output view o, both at block b0;
 * epilogue (alpha, beta, bias at block b0, relu) as given.  pf: d is a user
 * tensor (in place) whose next rows the kernels may prefetch (more_images:
 * an image follows this one in the task order). */
static void
compute_row(const cb_job_t *j, const view_t *d, const view_t *o, int64_t oh, int64_t b0, int64_t blocks,
            int64_t tail, float alpha, float beta, const float *bias, bool relu, bool pf, bool more_images)
{
    const float *wpack = j->wpack + b0 * j->kh * j->kw * BLK;
    const fdnn_conv_problem_t *p = j->p;
    int64_t qh[MAX_TAPS], ih[MAX_TAPS];
    const float *src[MAX_TAPS], *wt[MAX_TAPS];
    int64_t nh = row_taps(j, oh, qh, ih);
    for (int64_t r = 0; r < j->nruns; r++) {
        const run_t *run = &j->runs[r];
        size_t taps = 0;
        for (int64_t a = 0; a < nh; a++)
            for (int64_t q = 0; q < j->kw; q++)
                if (run->mask >> q & 1u) {
                    int64_t iw = tap_index(j->bwd_data, run->o0, q, p->stride[2], p->pad[2], p->dil[2], j->data_w);
                    src[taps] = d->base + ih[a] * d->rs + iw * d->ps;
                    wt[taps++] = wpack + (qh[a] * j->kw + q) * BLK;
                }
        fdnn_f32_dwcb_rows_args_t args = {
            .src = src,
            .wt = wt,
            .taps = taps,
            .count = (size_t)run->count,
            .blocks = (size_t)blocks,
            .tail = (size_t)tail,
            .src_step = run->istep * d->ps,
            .src_bstride = d->bs,
            .w_bstride = j->kh * j->kw * BLK,
            .out = o->base + oh * o->rs + run->o0 * o->ps,
            .out_step = run->ostep * o->ps,
            .out_bstride = o->bs,
            .alpha = alpha,
            .beta = beta,
            .bias = bias,
            .relu = relu,
            /* A row's taps step by dil along W (forward), by -dil/stride
             * (backward data, where all three reach a column only when the
             * stride divides dil). */
            .rows_of_3 = j->kw == 3 && run->mask == 7u && (!j->bwd_data || p->dil[2] % p->stride[2] == 0),
            .tap_step = j->bwd_data ? -(p->dil[2] / p->stride[2]) * d->ps : p->dil[2] * d->ps,
        };
        if (pf)
            prefetch_rows(j, d, oh, ih, nh, more_images, &args);
        j->rows_fn(&args);
    }
}

/* The zero row of taps outside the image (dwconv_cb.h). */
static const float zeros[BLK];

/* The gradient segments of one image (every row's runs, rows in order)
 * over data view d (x) and dy view y, every tap listed in q order; returns
 * how many. */
static size_t
grad_segments(const cb_job_t *j, const view_t *d, const view_t *y, int64_t oh0, int64_t oh1, int64_t row0,
              const float **src, int64_t *step, const float **dy, size_t *count)
{
    const fdnn_conv_problem_t *p = j->p;
    int64_t qh[MAX_TAPS], ih[MAX_TAPS], row_ih[MAX_TAPS];
    size_t g = 0, taps = (size_t)(j->kh * j->kw);
    for (int64_t oh = oh0; oh < oh1; oh++) {
        for (int64_t k = 0; k < j->kh; k++)
            row_ih[k] = -1;
        int64_t nh = row_taps(j, oh, qh, ih);
        for (int64_t a = 0; a < nh; a++)
            row_ih[qh[a]] = ih[a];
        for (int64_t r = 0; r < j->nruns; r++, g++) {
            const run_t *run = &j->runs[r];
            for (int64_t k = 0; k < j->kh; k++)
                for (int64_t q = 0; q < j->kw; q++) {
                    const float **sp = &src[g * taps + (size_t)(k * j->kw + q)];
                    *sp = zeros;
                    if (row_ih[k] >= 0 && (run->mask >> q & 1u)) {
                        int64_t iw = tap_index(false, run->o0, q, p->stride[2], p->pad[2], p->dil[2], j->data_w);
                        *sp = d->base + (row_ih[k] - row0) * d->rs + iw * d->ps;
                    }
                }
            step[g] = run->istep * d->ps;
            dy[g] = y->base + oh * y->rs + run->o0 * y->ps;
            count[g] = (size_t)run->count;
        }
    }
    return g;
}

/* The view of image n, block b0 of a user tensor t (channels innermost). */
static view_t
user_view(const fdnn_tensor_t *t, const float *base, int64_t n, int64_t b0)
{
    return (view_t){(float *)base + n * t->strides[0] + b0 * BLK, t->strides[0], BLK, t->strides[3], t->strides[4]};
}

/* Channels c0 .. c0+nc-1 of image n of tensor t (h x w) into the scratch
 * view dst ([block][h][w][16]): by the ISA's transposes (j->pack_fn) when
 * the planes are contiguous, lanes past nc then zero; else element by
 * element, lanes past nc not written. */
static void
pack_planes(const cb_job_t *j, const fdnn_tensor_t *t, const float *src, int64_t n, int64_t c0, int64_t nc, int64_t h,
            int64_t w, float *dst)
{
    int64_t cs = t->strides[1], hs = t->strides[3], ws = t->strides[4];
    if (j->pack_fn != NULL && ws == 1 && hs == w) {
        j->pack_fn(src + n * t->strides[0] + c0 * cs, cs, (size_t)(h * w), (size_t)nc, dst);
        return;
    }
    for (int64_t c = 0; c < nc; c++) {
        const float *s = src + n * t->strides[0] + (c0 + c) * cs;
        float *d = dst + c / BLK * h * w * BLK + c % BLK;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                d[(y * w + x) * BLK] = s[y * hs + x * ws];
    }
}

/* The inverse of pack_planes into the user tensor, through the epilogue
 * (the plain case of contiguous planes by the ISA's transposes). */
static void
unpack_planes(const cb_job_t *j, const fdnn_tensor_t *t, float *dst, int64_t n, int64_t c0, int64_t nc, int64_t h,
              int64_t w, const float *src)
{
    const fdnn_conv_exec_t *e = j->e;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    const float *bias = e->bias;
    bool plain = alpha == 1.0f && beta == 0.0f && bias == NULL && !e->relu;
    int64_t cs = t->strides[1], hs = t->strides[3], ws = t->strides[4];
    if (plain && j->unpack_fn != NULL && ws == 1 && hs == w) {
        j->unpack_fn(src, (size_t)(h * w), (size_t)nc, dst + n * t->strides[0] + c0 * cs, cs);
        return;
    }
    for (int64_t c = 0; c < nc; c++) {
        float *d = dst + n * t->strides[0] + (c0 + c) * cs;
        const float *s = src + c / BLK * h * w * BLK + c % BLK;
        const float *bc = bias != NULL ? bias + c0 + c : NULL;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                float v = s[(y * w + x) * BLK];
                float *o = d + y * hs + x * ws;
                *o = plain ? v : fdnn_conv_epilogue_f32(v, alpha, beta, o, bc, e->relu);
            }
    }
}

/* Rows r0 .. r1-1 of image n, blocks b0 .. b0+nb-1 (the last with `tail`
 * channels) of the channels-innermost tensor t into buf as [block][row -
 * r0][W][16] (W: j->data_w), blocks `plane` floats apart, lanes past tail
 * not written. */
static void
gather_rows(const cb_job_t *j, const fdnn_tensor_t *t, const float *src, int64_t n, int64_t b0, int64_t nb,
            int64_t tail, int64_t r0, int64_t r1, float *buf, int64_t plane)
{
    const float *x = src + n * t->strides[0] + b0 * BLK;
    int64_t xrs = t->strides[3], xps = t->strides[4], w = j->data_w;
    for (int64_t r = r0; r < r1; r++) {
        float *dr = buf + (r - r0) * w * BLK;
        if (j->gather_fn != NULL) {
            j->gather_fn(x + r * xrs, xps, (size_t)w, (size_t)nb, (size_t)tail, dr, plane);
            continue;
        }
        for (int64_t c = 0; c < w; c++) {
            const float *sp = x + r * xrs + c * xps;
            float *dp = dr + c * BLK;
            for (int64_t b = 0; b + 1 < nb; b++)
                memcpy(dp + b * plane, sp + b * BLK, BLK * sizeof(float));
            memcpy(dp + (nb - 1) * plane, sp + (nb - 1) * BLK, (size_t)tail * sizeof(float));
        }
    }
}

/* One call of the gradient kernel: output rows oh0 .. oh1-1 of y against
 * the data view d (its first row is data row row0), blocks nb (the last
 * with tail lanes), added into sums ([block][tap][16]).  src, step, dyp and
 * count are the chunk's segment scratch that grad_segments fills. */
static void
grad_rows(const cb_job_t *j, const view_t *d, const view_t *y, int64_t oh0, int64_t oh1, int64_t row0, int64_t nb,
          int64_t tail, const float **src, int64_t *step, const float **dyp, size_t *count, float *sums)
{
    fdnn_f32_dwcb_grad_args_t args = {
        .src = src,
        .src_step = step,
        .dy = dyp,
        .count = count,
        .zeros = zeros,
        .segs = grad_segments(j, d, y, oh0, oh1, row0, src, step, dyp, count),
        .taps = (size_t)(j->kh * j->kw),
        .blocks = (size_t)nb,
        .tail = (size_t)tail,
        .src_bstride = d->bs,
        .dy_step = y->ps,
        .dy_bstride = y->bs,
        .sums = sums,
        .sums_bstride = j->kh * j->kw * BLK,
    };
    j->grad_fn(&args);
}

/* Backward filter of image n, blocks b0 .. b0+nb-1, on channels-innermost
 * x: for each strip of j->strip_out output rows, the data rows it reads
 * copied into buf ([block][row][W][16], positions 16 floats apart instead
 * of C), then the gradient over the strip's segments.  In place, a block's
 * positions are C*4 bytes apart and with C a power of two fall into a few
 * L1 sets, so each input vector comes from L2 for every one of its 9 taps;
 * copied, it is read once from the tensor and 9 times from L1.  Strips in
 * order, each continuing the sums of the one before: the same terms in the
 * same order as one pass over the image. */
static void
grad_strips(const cb_job_t *j, int64_t n, int64_t b0, int64_t nb, int64_t tail, int64_t oh_begin, int64_t oh_end,
            float *buf, const float **src, int64_t *step, const float **dyp, size_t *count, float *sums)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    int64_t s = p->stride[1], reach = (j->kh - 1) * p->dil[1];
    int64_t plane = j->strip_in * j->data_w * BLK;
    view_t y = user_view(&p->y, e->y_in, n, b0);
    view_t d = {buf, 0, plane, j->data_w * BLK, BLK};
    for (int64_t oh0 = oh_begin; oh0 < oh_end; oh0 += j->strip_out) {
        int64_t oh1 = oh0 + j->strip_out < oh_end ? oh0 + j->strip_out : oh_end;
        int64_t r0 = oh0 * s - p->pad[1], r1 = (oh1 - 1) * s - p->pad[1] + reach + 1;
        r0 = r0 < 0 ? 0 : r0;
        r1 = r1 > j->data_h ? j->data_h : r1;
        gather_rows(j, &p->x, e->x_in, n, b0, nb, tail, r0, r1, buf, plane);
        grad_rows(j, &d, &y, oh0, oh1, r0, nb, tail, src, step, dyp, count, sums);
    }
}

/* dw[k, tap] of channels c0 .. c1-1 from sums laid out [block][tap][16]
 * (block 0 at sums: lane k % 16 of block k / 16), through the epilogue;
 * fdnn_conv_w_off places the tap, reversed in CONVOLUTION mode. */
static void
store_dw(const cb_job_t *j, const float *sums, int64_t c0, int64_t c1)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    int64_t off[MAX_TAPS], taps = j->kh * j->kw;
    for (int64_t qh = 0; qh < j->kh; qh++)
        for (int64_t qw = 0; qw < j->kw; qw++)
            off[qh * j->kw + qw] = fdnn_conv_w_off(p, 0, 0, 0, qh, qw);
    float *dw = e->out;
    for (int64_t c = c0; c < c1; c++)
        for (int64_t t = 0; t < taps; t++) {
            float *dst = dw + c * p->w.strides[0] + off[t];
            float v = sums[(c / BLK * taps + t) * BLK + c % BLK];
            *dst = beta == 0.0f && alpha == 1.0f ? v : fdnn_conv_epilogue_f32(v, alpha, beta, dst, NULL, false);
        }
}

/* The segment arrays of a chunk's slot sb for cap segments (grad_rows). */
typedef struct seg_arrays {
    const float **src, **dyp;
    int64_t *step;
    size_t *count;
} seg_arrays_t;

static seg_arrays_t
seg_arrays(const cb_job_t *j, char *sb, size_t cap)
{
    size_t taps = (size_t)(j->kh * j->kw);
    seg_arrays_t a;
    a.src = (const float **)sb;
    a.dyp = (const float **)(sb + cap * taps * sizeof(float *));
    a.step = (int64_t *)(sb + cap * (taps + 1) * sizeof(float *));
    a.count = (size_t *)(sb + cap * (taps + 1) * sizeof(float *) + cap * sizeof(int64_t));
    return a;
}

/* Prefetches into L2 the rows of x and dy that output rows oh0 .. oh1-1
 * of image n read (every channel, channels innermost), a line at a time:
 * the blocks' passes over a strip read each position's channels 64 or 128
 * bytes at a time, C*4 bytes apart, a pattern the hardware prefetchers
 * follow poorly (the gradient kernel waited on its loads); the strip read
 * in order ahead of them streams. */
static void
prefetch_strip(const cb_job_t *j, int64_t n, int64_t oh0, int64_t oh1)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    int64_t s = p->stride[1], reach = (j->kh - 1) * p->dil[1];
    int64_t r0 = oh0 * s - p->pad[1], r1 = (oh1 - 1) * s - p->pad[1] + reach + 1;
    r0 = r0 < 0 ? 0 : r0;
    r1 = r1 > j->data_h ? j->data_h : r1;
    int64_t c = p->g;
    for (int t = 0; t < 2; t++) {
        const fdnn_tensor_t *ts = t == 0 ? &p->x : &p->y;
        const float *base = (const float *)(t == 0 ? e->x_in : e->y_in) + n * ts->strides[0];
        int64_t a = t == 0 ? r0 : oh0, b = t == 0 ? r1 : oh1, w = t == 0 ? j->data_w : j->out_w;
        for (int64_t r = a; r < b; r++) {
            const float *row = base + r * ts->strides[3];
            if (ts->strides[4] == c) {
                /* Dense rows: one sweep, a prefetch per line. */
                for (int64_t k = 0; k < w * c; k += 16)
                    __builtin_prefetch(row + k, 0, 2);
                __builtin_prefetch(row + w * c - 1, 0, 2);
                continue;
            }
            for (int64_t q = 0; q < w; q++) {
                const float *pos = row + q * ts->strides[4];
                for (int64_t k = 0; k < c; k += 16)
                    __builtin_prefetch(pos + k, 0, 2);
                __builtin_prefetch(pos + c - 1, 0, 2);
            }
        }
    }
}

/* Backward filter by images, one task (see cb_job_t.by_images): image n,
 * output rows oh0 .. oh1-1, every block, a strip of rows at a time (the
 * strip's x and dy stay in L2 while the blocks pass over them, where block
 * ranges over whole images read x from memory once per range), into the
 * task's own sums. */
static void
grad_image_task(const cb_job_t *j, size_t task, float *buf, char *sb)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    int64_t n = (int64_t)task / j->bands, oh0 = (int64_t)task % j->bands * j->band_rows;
    int64_t oh1 = oh0 + j->band_rows < j->out_h ? oh0 + j->band_rows : j->out_h;
    float *sums = j->psums + task * j->psum_floats;
    memset(sums, 0, j->psum_floats * sizeof(float));
    seg_arrays_t a = seg_arrays(j, sb, (size_t)(j->strip_out * j->nruns));
    if (j->strip_copy) {
        grad_strips(j, n, 0, j->blocks, j->tail, oh0, oh1, buf, a.src, a.step, a.dyp, a.count, sums);
        return;
    }
    view_t d = user_view(&p->x, e->x_in, n, 0), y = user_view(&p->y, e->y_in, n, 0);
    for (int64_t s0 = oh0; s0 < oh1; s0 += j->strip_out) {
        int64_t s1 = s0 + j->strip_out < oh1 ? s0 + j->strip_out : oh1;
        /* This strip (the task's first) and the next one, or the next
         * task's first, stream in while this one computes. */
        if (s0 == oh0)
            prefetch_strip(j, n, s0, s1);
        if (s1 < oh1) {
            prefetch_strip(j, n, s1, s1 + j->strip_out < oh1 ? s1 + j->strip_out : oh1);
        } else if (task + 1 < j->tasks) {
            int64_t nn = (int64_t)(task + 1) / j->bands, nh0 = (int64_t)(task + 1) % j->bands * j->band_rows;
            int64_t nh1 = nh0 + j->strip_out < j->out_h ? nh0 + j->strip_out : j->out_h;
            prefetch_strip(j, nn, nh0, nh1 < nh0 + j->band_rows ? nh1 : nh0 + j->band_rows);
        }
        grad_rows(j, &d, &y, s0, s1, 0, j->blocks, j->tail, a.src, a.step, a.dyp, a.count, sums);
    }
}

/* Backward filter by images, the second step: block b of dw, each element
 * the tasks' partial sums added in task order (the same order at any
 * thread count). */
static void
reduce_block(void *arg, size_t block)
{
    const cb_job_t *j = arg;
    int64_t b = (int64_t)block;
    size_t floats = (size_t)(j->kh * j->kw * BLK);
    float *acc = j->sums + b * (int64_t)floats;
    const float *src = j->psums + b * (int64_t)floats;
    memcpy(acc, src, floats * sizeof(float));
    for (size_t t = 1; t < j->tasks; t++) {
        src += j->psum_floats;
        for (size_t i = 0; i < floats; i++)
            acc[i] += src[i];
    }
    store_dw(j, j->sums, b * BLK, b * BLK + (b + 1 < j->blocks ? BLK : j->tail));
}

static void
run_chunk(void *arg, size_t chunk)
{
    const cb_job_t *j = arg;
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    size_t first = chunk * j->tasks / j->chunks, last = (chunk + 1) * j->tasks / j->chunks;
    if (first >= last)
        return;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    if (j->by_images) {
        float *buf = j->slots + chunk * j->slot_floats;
        char *sb = j->segs + chunk * j->seg_bytes;
        for (size_t task = first; task < last; task++)
            grad_image_task(j, task, buf, sb);
        return;
    }
    if (j->bwd_filter) {
        /* Tasks are blocks: this chunk's blocks [first, last). */
        int64_t b0 = (int64_t)first, nb = (int64_t)(last - first);
        int64_t tail = b0 + nb == j->blocks ? j->tail : BLK;
        float *sums = j->sums + b0 * j->kh * j->kw * BLK;
        memset(sums, 0, (size_t)(nb * j->kh * j->kw * BLK) * sizeof(float));
        int64_t nc = (b0 + nb - 1) * BLK + tail - b0 * BLK;
        float *xs = j->slots + chunk * j->slot_floats, *ys = xs + nb * j->data_h * j->data_w * BLK;
        size_t cap = (size_t)(j->out_h * j->nruns), taps = (size_t)(j->kh * j->kw);
        char *sb = j->segs + chunk * j->seg_bytes;
        const float **src = (const float **)sb, **dyp = (const float **)(sb + cap * taps * sizeof(float *));
        int64_t *step = (int64_t *)(sb + cap * (taps + 1) * sizeof(float *));
        size_t *count = (size_t *)(sb + cap * (taps + 1) * sizeof(float *) + cap * sizeof(int64_t));
        /* The chunk's blocks `sub` at a time, each range over every image:
         * a range's share of one image stays in L2 across its blocks'
         * passes, and the ranges read disjoint bytes of the tensors. */
        for (int64_t s0 = b0; s0 < b0 + nb; s0 += j->sub) {
            int64_t sn = b0 + nb - s0 < j->sub ? b0 + nb - s0 : j->sub;
            int64_t st = s0 + sn == j->blocks ? j->tail : BLK, snc = (sn - 1) * BLK + st;
            float *ss = sums + (s0 - b0) * j->kh * j->kw * BLK;
            for (int64_t n = 0; n < p->n; n++) {
                view_t d, y;
                if (j->strip_copy) {
                    grad_strips(j, n, s0, sn, st, 0, j->out_h, xs, src, step, dyp, count, ss);
                    continue;
                }
                if (j->in_place) {
                    d = user_view(&p->x, e->x_in, n, s0);
                    y = user_view(&p->y, e->y_in, n, s0);
                } else {
                    pack_planes(j, &p->x, e->x_in, n, s0 * BLK, snc, j->data_h, j->data_w, xs);
                    pack_planes(j, &p->y, e->y_in, n, s0 * BLK, snc, j->out_h, j->out_w, ys);
                    d = (view_t){xs, 0, j->data_h * j->data_w * BLK, j->data_w * BLK, BLK};
                    y = (view_t){ys, 0, j->out_h * j->out_w * BLK, j->out_w * BLK, BLK};
                }
                grad_rows(j, &d, &y, 0, j->out_h, 0, sn, st, src, step, dyp, count, ss);
            }
        }
        store_dw(j, j->sums, b0 * BLK, b0 * BLK + nc);
        return;
    }
    const fdnn_tensor_t *dt = j->bwd_data ? &p->y : &p->x, *ot = j->bwd_data ? &p->x : &p->y;
    const float *dsrc = j->bwd_data ? e->y_in : e->x_in;
    const float *bias = j->bwd_data ? NULL : e->bias;
    if (j->gather) {
        /* Tasks are (image, group of blocks): the data gathered, the
         * output in place. */
        float *ds = j->slots + chunk * j->slot_floats;
        int64_t plane = j->data_h * j->data_w * BLK;
        for (size_t task = first; task < last; task++) {
            int64_t n = (int64_t)task / j->groups, b0 = (int64_t)task % j->groups * j->group;
            int64_t nb = j->blocks - b0 < j->group ? j->blocks - b0 : j->group;
            int64_t tail = b0 + nb == j->blocks ? j->tail : BLK;
            gather_rows(j, dt, dsrc, n, b0, nb, tail, 0, j->data_h, ds, plane);
            view_t d = {ds, 0, plane, j->data_w * BLK, BLK};
            view_t o = user_view(ot, e->out, n, b0);
            for (int64_t oh = 0; oh < j->out_h; oh++)
                compute_row(j, &d, &o, oh, b0, nb, tail, alpha, beta, bias != NULL ? bias + b0 * BLK : NULL, e->relu,
                            false, false);
        }
        return;
    }
    if (j->in_place) {
        /* Tasks are (image, output row). */
        for (size_t task = first; task < last; task++) {
            int64_t n = (int64_t)task / j->out_h, oh = (int64_t)task % j->out_h;
            view_t d = user_view(dt, dsrc, n, 0), o = user_view(ot, e->out, n, 0);
            compute_row(j, &d, &o, oh, 0, j->blocks, j->tail, alpha, beta, bias, e->relu, true, n + 1 < p->n);
        }
        return;
    }
    /* Tasks are (image, group of blocks), transposed in and out. */
    float *ds = j->slots + chunk * j->slot_floats, *os = ds + j->group * j->data_h * j->data_w * BLK;
    for (size_t task = first; task < last; task++) {
        int64_t n = (int64_t)task / j->groups, b0 = (int64_t)task % j->groups * j->group;
        int64_t nb = j->blocks - b0 < j->group ? j->blocks - b0 : j->group;
        int64_t tail = b0 + nb == j->blocks ? j->tail : BLK, nc = (nb - 1) * BLK + tail;
        pack_planes(j, dt, dsrc, n, b0 * BLK, nc, j->data_h, j->data_w, ds);
        view_t d = {ds, 0, j->data_h * j->data_w * BLK, j->data_w * BLK, BLK};
        view_t o = {os, 0, j->out_h * j->out_w * BLK, j->out_w * BLK, BLK};
        for (int64_t oh = 0; oh < j->out_h; oh++)
            compute_row(j, &d, &o, oh, b0, nb, tail, 1.0f, 0.0f, NULL, false, false, false);
        unpack_planes(j, ot, e->out, n, b0 * BLK, nc, j->out_h, j->out_w, os);
    }
}

/* The L1 sets that one channel block's positions along W of tensor t
 * (channels innermost) fall into: positions P bytes apart take
 * L1_WAY_BYTES / gcd(P, L1_WAY_BYTES) sets of L1_WAYS lines each (C a
 * power of two: 256 channels 4 sets, 1024 channels one). */
static int64_t
l1_sets(const fdnn_tensor_t *t)
{
    int64_t bytes = t->strides[4] * (int64_t)sizeof(float);
    return bytes > 0 ? L1_WAY_BYTES / fdnn_gcd_i64(bytes, L1_WAY_BYTES) : L1_WAY_BYTES / 64;
}

/* Whether backward filter on channels-innermost x copies strips
 * (grad_strips): at unit strides, with every position of a block in one
 * L1 set (C a multiple of 1024) and more of them in kh rows than the set
 * holds.  Measured in docs/performance.md ("Depthwise NHWC: strips and
 * gathers"): 1.4-1.5x faster on 256..1024 channels where x and dy sit at
 * the same offset modulo 4 KB (ab_drv), but 10-20% slower on 256 and 512
 * channels in freednn-bench's buffers, 1.1x faster on 1024; at stride 2
 * slower (a copied vector serves 9/4 reads there, not 9). */
static bool
strips_pay(const fdnn_conv_problem_t *p)
{
    if (p->stride[1] != 1 || p->stride[2] != 1)
        return false;
    return l1_sets(&p->x) == 1 && p->ker[1] * p->in[2] > L1_WAYS;
}

/* Bands of output rows per image for backward filter by images: one for
 * GRAD_MIN_TASKS images or more, else enough for GRAD_MIN_TASKS tasks (at
 * most one per row); a function of the problem only. */
static int64_t
image_bands(const fdnn_conv_problem_t *p)
{
    int64_t bands = p->n >= GRAD_MIN_TASKS ? 1 : ceil_div(GRAD_MIN_TASKS, p->n);
    return bands < p->out[1] ? bands : p->out[1];
}

static cudnnStatus_t
grad_by_images_applicable(const fdnn_conv_problem_t *p)
{
    if (p->x.strides[1] != 1 || p->y.strides[1] != 1)
        return FDNN_NOT_SUPPORTED("depthwise backward filter by images: channels not innermost");
    /* One image: by blocks each range reads its slice of the image once;
     * by images (bands) measured mixed, 0.7-1.6x at mb=1, 112x112 slower. */
    if (p->n < 2)
        return FDNN_NOT_SUPPORTED("depthwise backward filter by images: one image");
    /* By blocks, a range of GRAD_RANGE_BYTES / block_bytes blocks passes
     * over every image; with few blocks per range, each range reads a thin
     * slice of every position from memory, which the hardware prefetchers
     * follow poorly (measured: 2-2.5x slower at 56x56 and 112x112). */
    double block_bytes = (double)(p->in[1] * p->in[2] + p->out[1] * p->out[2]) * BLK * sizeof(float);
    if ((double)GRAD_RANGE_BYTES / block_bytes >= GRAD_IMAGES_MAX_RANGE)
        return FDNN_NOT_SUPPORTED("depthwise backward filter by images: %.0f blocks per range by blocks",
                                  floor((double)GRAD_RANGE_BYTES / block_bytes));
    double psums = (double)p->n * (double)image_bands(p) * (double)ceil_div(p->g, BLK) * (double)p->ker[1] *
                   (double)p->ker[2] * BLK * sizeof(float);
    if (psums > GRAD_PSUM_BYTES)
        return FDNN_NOT_SUPPORTED("depthwise backward filter by images: %.3g bytes of partial sums", psums);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
grad_by_blocks_applicable(const fdnn_conv_problem_t *p)
{
    (void)p;
    return CUDNN_STATUS_SUCCESS;
}

/* Backward filter schedules, the first applicable one runs: by images
 * (tasks of whole images or bands, partial sums added in task order) where
 * the tensors are channels-innermost, else by channel blocks (each task's
 * blocks over every image, no reduction; the transposed NCHW planes). */
static const struct grad_schedule {
    const char *name;
    bool by_images;
    cudnnStatus_t (*applicable)(const fdnn_conv_problem_t *p);
} grad_schedules[] = {
    {"images", true, grad_by_images_applicable},
    {"blocks", false, grad_by_blocks_applicable},
};

cudnnStatus_t
fdnn_conv_dwcb_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    cb_job_t j;
    memset(&j, 0, sizeof(j));
    j.e = e;
    j.p = p;
    j.bwd_data = p->dir == FDNN_CONV_BWD_DATA;
    j.bwd_filter = p->dir == FDNN_CONV_BWD_FILTER;
    j.in_place = p->x.strides[1] == 1 && p->y.strides[1] == 1;
    j.gather = j.in_place && !j.bwd_filter && l1_sets(j.bwd_data ? &p->y : &p->x) == 1;
    j.kh = p->ker[1];
    j.kw = p->ker[2];
    int64_t c = p->g;
    j.blocks = ceil_div(c, BLK);
    j.tail = c - (j.blocks - 1) * BLK;
    j.data_h = j.bwd_data ? p->out[1] : p->in[1];
    j.data_w = j.bwd_data ? p->out[2] : p->in[2];
    j.out_h = j.bwd_data ? p->in[1] : p->out[1];
    j.out_w = j.bwd_data ? p->in[2] : p->out[2];
    int64_t taps = j.kh * j.kw;

    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    if (j.bwd_filter) {
        size_t s = 0;
        while (grad_schedules[s].applicable(p) != CUDNN_STATUS_SUCCESS)
            s++; /* the last one always applies */
        j.by_images = grad_schedules[s].by_images;
    }
    if (j.by_images) {
        j.band_rows = ceil_div(j.out_h, image_bands(p));
        j.bands = ceil_div(j.out_h, j.band_rows);
        j.tasks = (size_t)(p->n * j.bands);
        j.psum_floats = (size_t)(j.blocks * taps * BLK);
    } else if (j.bwd_filter) {
        j.tasks = (size_t)j.blocks;
        j.group = 1;
    } else if (j.in_place && !j.gather) {
        j.tasks = (size_t)(p->n * j.out_h);
    } else if (j.gather) {
        int64_t per_block = j.data_h * j.data_w * BLK;
        j.group = GROUP_FLOATS / per_block;
        j.group = j.group < 1 ? 1 : j.group > j.blocks ? j.blocks : j.group;
        j.groups = ceil_div(j.blocks, j.group);
        j.tasks = (size_t)(p->n * j.groups);
    } else {
        int64_t per_block = (j.data_h * j.data_w + j.out_h * j.out_w) * BLK;
        j.group = GROUP_FLOATS / per_block;
        j.group = j.group < 1 ? 1 : j.group > j.blocks ? j.blocks : j.group;
        j.groups = ceil_div(j.blocks, j.group);
        j.tasks = (size_t)(p->n * j.groups);
    }
    /* Backward filter: one chunk per thread.  Each chunk's blocks take every
     * image, so every further chunk is one more pass over x and dy (at 32
     * images, from memory); forward and backward data tasks are small and
     * balance over several chunks per thread. */
    j.chunks = j.bwd_filter && !j.by_images ? threads : threads * CHUNKS_PER_THREAD;
    j.chunks = j.chunks < j.tasks ? j.chunks : j.tasks;
    if (j.by_images) {
        int64_t reach = (j.kh - 1) * p->dil[1] + 1, s = p->stride[1];
        j.strip_copy = strips_pay(p);
        if (j.strip_copy) {
            /* Strips of as many rows of every block as GRAD_STRIP_BYTES
             * holds, at least one output row's. */
            int64_t rows = GRAD_STRIP_BYTES / (int64_t)sizeof(float) / (j.blocks * j.data_w * BLK);
            rows = rows < reach ? reach : rows > j.data_h ? j.data_h : rows;
            j.strip_out = rows > reach ? (rows - reach) / s + 1 : 1;
        } else {
            /* Strips whose rows of x and dy take at most GRAD_STRIP_BYTES
             * (at least one output row). */
            int64_t xrow = j.data_w * p->x.strides[4] * (int64_t)sizeof(float);
            int64_t yrow = j.out_w * p->y.strides[4] * (int64_t)sizeof(float);
            j.strip_out = 1;
            while (j.strip_out < j.band_rows &&
                   (j.strip_out * s + reach) * xrow + (j.strip_out + 1) * yrow <= GRAD_STRIP_BYTES)
                j.strip_out++;
        }
        j.strip_out = j.strip_out < j.band_rows ? j.strip_out : j.band_rows;
        j.strip_in = (j.strip_out - 1) * s + reach;
        if (j.strip_copy)
            j.slot_floats = (size_t)(j.blocks * j.strip_in * j.data_w * BLK);
    } else if (j.bwd_filter) {
        /* Ranges of blocks whose share of one image (x and dy) fits
         * GRAD_RANGE_BYTES, an even number (the kernels take full blocks
         * in pairs), at least two. */
        int64_t per_block = (j.data_h * j.data_w + j.out_h * j.out_w) * BLK * (int64_t)sizeof(float);
        j.sub = GRAD_RANGE_BYTES / per_block / 2 * 2;
        j.sub = j.sub < 2 ? 2 : j.sub;
    }
    if (j.by_images) {
        /* Set above. */
    } else if (j.bwd_filter && j.in_place && strips_pay(p)) {
        /* Strips of as many rows as STRIP_FLOATS holds for the chunk's
         * blocks, at least one output row's. */
        int64_t most = ceil_div(j.blocks, (int64_t)j.chunks), reach = (j.kh - 1) * p->dil[1] + 1;
        int64_t rows = STRIP_FLOATS / (most * j.data_w * BLK);
        rows = rows < reach ? reach : rows > j.data_h ? j.data_h : rows;
        j.strip_out = rows > reach ? (rows - reach) / p->stride[1] + 1 : 1;
        j.strip_in = (j.strip_out - 1) * p->stride[1] + reach;
        j.strip_copy = true;
        j.slot_floats = (size_t)(most * j.strip_in * j.data_w * BLK);
    } else if (j.bwd_filter && !j.in_place) {
        /* A chunk transposes all of its blocks: each its own slot. */
        int64_t most = ceil_div(j.blocks, (int64_t)j.chunks);
        j.slot_floats = (size_t)(most * (j.data_h * j.data_w + j.out_h * j.out_w) * BLK);
    } else if (j.gather) {
        j.slot_floats = (size_t)(j.group * j.data_h * j.data_w * BLK);
    } else if (!j.in_place) {
        j.slot_floats = (size_t)(j.group * (j.data_h * j.data_w + j.out_h * j.out_w) * BLK);
    }
    size_t wpack_bytes = fdnn_align_up((size_t)(j.blocks * taps * BLK) * sizeof(float));
    size_t sums_bytes = j.bwd_filter ? wpack_bytes : 0;
    size_t runs_bytes = fdnn_align_up((size_t)j.out_w * sizeof(run_t));
    size_t slots_bytes = fdnn_align_up(j.chunks * j.slot_floats * sizeof(float));
    if (j.bwd_filter)
        j.seg_bytes = fdnn_align_up((size_t)((j.by_images ? j.strip_out : j.out_h) * j.out_w) * ((size_t)taps + 3) * 8);
    size_t segs_bytes = j.chunks * j.seg_bytes;
    size_t psums_bytes = fdnn_align_up(j.tasks * j.psum_floats * sizeof(float));
    char *scratch = fdnn_handle_scratch(e->handle,
                                        wpack_bytes + sums_bytes + runs_bytes + slots_bytes + segs_bytes + psums_bytes);
    if (scratch == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    j.psums = j.by_images ? (float *)(scratch + wpack_bytes + sums_bytes + runs_bytes + slots_bytes + segs_bytes) : NULL;
    float *wpack = (float *)scratch;
    j.sums = j.bwd_filter ? (float *)(scratch + wpack_bytes) : NULL;
    run_t *runs = (run_t *)(scratch + wpack_bytes + sums_bytes);
    j.slots = (float *)(scratch + wpack_bytes + sums_bytes + runs_bytes);
    j.segs = scratch + wpack_bytes + sums_bytes + runs_bytes + slots_bytes;
    if (!j.bwd_filter) {
        /* [block][tap][16]: tap t of filter k from w + k*stride + off[t]
         * (fdnn_conv_w_off, CONVOLUTION mode's reversal included). */
        int64_t off[MAX_TAPS];
        for (int64_t qh = 0; qh < j.kh; qh++)
            for (int64_t qw = 0; qw < j.kw; qw++)
                off[qh * j.kw + qw] = fdnn_conv_w_off(p, 0, 0, 0, qh, qw);
        const float *w = e->w_in;
        int64_t kst = p->w.strides[0];
        for (int64_t b = 0; b < j.blocks; b++) {
            float *dst = wpack + b * taps * BLK;
            int64_t nc = b + 1 < j.blocks ? BLK : j.tail;
            for (int64_t t = 0; t < taps; t++)
                for (int64_t l = 0; l < BLK; l++)
                    dst[t * BLK + l] = l < nc ? w[(b * BLK + l) * kst + off[t]] : 0.0f;
        }
    }
    j.wpack = wpack;
    j.runs = runs;
    j.nruns = make_runs(&j, runs);

    const fdnn_isa_config_t *level = fdnn_isa_config(e->handle->isa); /* never a kernel the CPU lacks */
    j.rows_fn = level->dwcb_rows;
    j.grad_fn = level->dwcb_grad;
    j.pack_fn = level->dwcb_pack;
    j.unpack_fn = level->dwcb_unpack;
    j.gather_fn = level->dwcb_gather;
    if (e->pool != NULL && j.chunks > 1)
        fdnn_parallelize_1d(e->pool, run_chunk, &j, j.chunks, 0);
    else
        for (size_t ch = 0; ch < j.chunks; ch++)
            run_chunk(&j, ch);
    if (j.by_images) {
        if (e->pool != NULL && j.blocks > 1)
            fdnn_parallelize_1d(e->pool, reduce_block, &j, (size_t)j.blocks, 0);
        else
            for (int64_t b = 0; b < j.blocks; b++)
                reduce_block(&j, (size_t)b);
    }
    return CUDNN_STATUS_SUCCESS;
}
