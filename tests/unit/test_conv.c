/* SPDX-License-Identifier: Apache-2.0
 * Convolution forward, backward data, backward filter and backward bias
 * against the float64 reference (src/ref/conv_ref.c), through the public
 * API, for every implemented algorithm, every ISA level of the machine and
 * 1 and 2 threads, on NCHW, NHWC and padded-strided tensors, NCHW and NHWC
 * filters, FLOAT and DOUBLE.
 *
 * Data are small integers, so every product and partial sum is exact in
 * float and the comparison is exact (threshold 0) for the algorithms that
 * only multiply and add the data; transform algorithms (FFT) round, and are
 * held to a tolerance normalised by the sum of absolute products
 * (algo_tolerance); alpha/beta are exact too (2 and -1).  Outputs are poisoned (NaN) before
 * each run; the gaps of strided outputs must stay poisoned.  A second run
 * with real-valued data checks that 1, 2 and 3 threads give identical bits. */
#define _POSIX_C_SOURCE 200809L /* setenv: test_winograd_split */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fail.h"
#include "core/handle.h"
#include "cpu/conv/conv_direct_blocked.h"
#include "cpu/conv/conv_wgrad_small.h"
#include "freednn.h"
#include "ref/conv_ref.h"
#include "testutil.h"

typedef struct shape {
    const char *name;
    int nsp; /* 2 or 3 */
    int n, c, k, g;
    int in[3], ker[3], pad[3], str[3], dil[3]; /* D, H, W (D = 1 for 2-D) */
    cudnnConvolutionMode_t mode;
} shape_t;

#define S2(name, n, c, k, g, h, w, kh, kw, ph, pw, sh, sw, dh, dw, mode)                                   \
    {                                                                                                     \
        name, 2, n, c, k, g, {1, h, w}, {1, kh, kw}, {0, ph, pw}, {1, sh, sw}, {1, dh, dw}, mode          \
    }

static const shape_t shapes[] = {
    S2("3x3 pad1", 2, 3, 4, 1, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("1x1 N=1 C=1", 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("groups conv-mode s2", 3, 4, 6, 2, 5, 5, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CONVOLUTION),
    S2("depthwise", 2, 4, 4, 4, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("dilated", 2, 3, 5, 1, 9, 8, 3, 3, 2, 2, 1, 1, 2, 2, CUDNN_CROSS_CORRELATION),
    S2("fc as conv", 3, 5, 3, 1, 4, 4, 4, 4, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("1x1 gemm", 2, 8, 6, 1, 8, 7, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("1x1 s2", 2, 6, 4, 1, 9, 7, 1, 1, 0, 0, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
    /* Backward data of strided 1x1 filters written straight from the panel
     * (scatter_1x1_channel): a last input row and column no output reads
     * (11 x 10 at stride 3 x 2), groups; 3-D with a different stride per
     * dimension. */
    S2("1x1 s3x2 unread edges groups", 3, 8, 10, 2, 11, 10, 1, 1, 0, 0, 3, 2, 1, 1, CUDNN_CONVOLUTION),
    {"1x1 3-D strides 2/1/3", 3, 2, 6, 8, 1, {5, 6, 7}, {1, 1, 1}, {0, 0, 0}, {2, 1, 3}, {1, 1, 1},
     CUDNN_CROSS_CORRELATION},
    S2("5x5 pad2 28x28", 2, 2, 3, 1, 28, 28, 5, 5, 2, 2, 1, 1, 1, 1, CUDNN_CONVOLUTION),
    S2("odd asym", 1, 3, 2, 1, 11, 5, 2, 4, 0, 3, 3, 1, 1, 2, CUDNN_CROSS_CORRELATION),
    S2("1-D as H=1", 2, 3, 4, 1, 1, 17, 1, 5, 0, 2, 1, 2, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("big batch", 11, 2, 3, 1, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    /* Padding, stride and dilation of 2^30 / 2^20 rows around a 2x1 image
     * (a fuzzer's): the blocked direct solver's padded copy would be 17 GB,
     * so it declines and the formula loops run; every algorithm answers
     * without a large workspace or scratch (test_far_padding_scratch). */
    S2("far padding", 2, 2, 1, 1, 2, 1, 2, 1, 1 << 30, 0, 1 << 30, 1, 1 << 20, 1, CUDNN_CONVOLUTION),
    /* Small images: backward filter's rows path with groups, 1x1 and
     * strided. */
    S2("small images batched 1x1 groups", 20, 4, 6, 2, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("small images batched 3x3 s2", 19, 3, 5, 1, 7, 6, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CONVOLUTION),
    /* 7x7 and 14x14 outputs: forward and backward data panels on the GEMM
     * core's 6x49 tile (W^T as plain rows for backward data), 1x1 too. */
    S2("7x7 groups", 3, 4, 6, 2, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
    S2("1x1 14x14", 2, 9, 7, 1, 14, 14, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    /* Backward data with dy the deeper operand: the 6x49 kernel prefetches
     * the next image's dy (next_panel), across groups and chunks. */
    S2("1x1 7x7 deep dy groups", 3, 6, 12, 2, 7, 7, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    /* One image, 1x1 on 7x7 / 14x14: backward data hands W to the GEMM
     * core as A transposed, each row tile packing its own block of W (no
     * W^T first), with a private B panel per thread (several row tiles:
     * 300 input channels), and with groups (dx written in place at the
     * group's channel offset). */
    S2("1x1 7x7 one image wide", 1, 300, 96, 1, 7, 7, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("1x1 14x14 one image groups", 1, 180, 64, 2, 14, 14, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION),
    /* One image of at most 64 output positions with a spatial filter:
     * backward data reads W in place as the GEMM's B (col^T = dy^T W, no
     * W^T) and col2im reads col^T in tasks of 16 channels (w_as_b):
     * 7x7 with 70 channels (CRS = 630, a partial strip of B; five col2im
     * tasks, the last of 6 channels; over 2^20 multiply-adds, so 2 threads
     * too), groups with stride 2 in CONVOLUTION mode (CRS = 180 per group),
     * dilation 2 with padding 2 (taps off the image on every side). */
    S2("one image 7x7 W as B", 1, 70, 48, 1, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("one image W as B s2 groups", 1, 40, 36, 2, 9, 9, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CONVOLUTION),
    S2("one image W as B dilated", 1, 33, 20, 1, 8, 8, 3, 3, 2, 2, 1, 1, 2, 2, CUDNN_CROSS_CORRELATION),
    /* 352 channels x 784 positions pass the 1 MiB panel: backward data
     * runs the image as one panel (make_plan's dx_whole), not two of 392. */
    S2("1x1 28x28 wide channels", 2, 352, 8, 1, 28, 28, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    /* Over 2^20 multiply-adds, so 2 threads too: parallel image chunks with
     * their own GEMM scratch, batched backward filter, 6x49 panels. */
    S2("7x7 batch 20 two threads", 20, 16, 32, 1, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    /* The blocked direct solver's batched mode at 2 threads: a filter over
     * 1 MiB (split in a range per thread, images in chunks of one) and a
     * small one (images in chunks, each task every filter slice). */
    S2("direct batched filter split", 2, 128, 256, 1, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("direct batched images", 5, 16, 16, 1, 20, 20, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
    /* Backward filter's rows path (images under 256 positions): 13 images
     * of 169 positions make two dy^T image groups (2048 positions each at
     * most), 20 x 9 rows per group two row blocks, Kg = 20 a partial strip,
     * and the position blocks straddle images. */
    S2("rows path groups", 13, 40, 40, 2, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    /* The rows path reading x in place (1x1, 128..255 dense positions, Kg
     * <= 256): 16 images of 144 make image groups of 14 and 2, 200 rows per
     * group two row blocks, Kg = 20 a partial strip. */
    S2("rows path 1x1 in place", 16, 400, 40, 2, 12, 12, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    /* Backward filter's wide path (images of 256+ output positions, the
     * virtual im2col read from stride phases of the input): stride 2 with
     * groups and a partial strip (Kg = 20), strides 2 and 3 with dilation
     * (every phase reached), rows over 256 positions (blocks are pieces of
     * a row), and a 1x1 stride-2 filter with padding, which reaches one
     * phase of four and takes the im2col panels instead. */
    S2("wide s2 groups", 2, 6, 40, 2, 34, 33, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CONVOLUTION),
    S2("wide s2/3 dilated", 1, 3, 5, 1, 40, 41, 3, 3, 1, 2, 2, 3, 1, 2, CUDNN_CROSS_CORRELATION),
    /* Channels-last x fills the band in blocks of 16 channels
     * (phase_fill_cl): 2 groups of 20 channels, a full and a partial block
     * each, padding on both sides. */
    S2("wide s2 channel blocks", 2, 40, 8, 2, 33, 32, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("wide long rows", 1, 2, 3, 1, 3, 530, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("wide 1x1 s2 padded", 1, 4, 5, 1, 40, 40, 1, 1, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
    /* Winograd edges: padding 0, 2 and 3 (backward data pads by r-1-pad,
     * negative here), partial tiles, groups in CONVOLUTION mode. */
    S2("3x3 conv-mode pad2/0 g2", 2, 4, 6, 2, 9, 7, 3, 3, 2, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION),
    S2("3x3 pad3/1 odd", 1, 3, 5, 1, 5, 11, 3, 3, 3, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("5x5 pad5/1", 2, 2, 3, 1, 4, 9, 5, 5, 5, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    /* The fused Winograd product's row steps (AVX-512: 12 rows, the last
     * 1-4 rows of a 96-channel chunk in a 4-row step, 5-11 in a 12-row step
     * whose extra rows are dropped): 13 rows per group forward (12 + 1) and
     * 8 backward; 100 rows both ways (96 + 4). */
    S2("wino product rows 13 g2", 2, 16, 26, 2, 9, 10, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("wino product rows 100", 1, 100, 100, 1, 6, 7, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
    {"3-D", 3, 2, 3, 4, 1, {5, 5, 4}, {3, 3, 2}, {1, 1, 0}, {1, 2, 1}, {1, 1, 2}, CUDNN_CONVOLUTION},
    /* The blocked direct solver's tiling (blocks of 16 channels, tiles of
     * up to 14 / 6 / 4 pixels per ISA, two-row tiles for short rows): row
     * widths that leave a partial tile, channel counts around 16, stride 3
     * with padding beyond the filter, dilation with stride, 1x1 images,
     * ragged groups, a stem-like 7x7 stride 2, ragged 3-D. */
    S2("direct tile tails", 2, 5, 19, 1, 9, 31, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("direct C,K ragged", 1, 37, 35, 1, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("direct s3 pad>k", 2, 3, 17, 1, 10, 11, 2, 2, 3, 3, 3, 3, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("direct dilated s2", 1, 18, 7, 1, 13, 12, 3, 3, 2, 2, 2, 2, 2, 2, CUDNN_CROSS_CORRELATION),
    S2("direct 1x1 image", 3, 17, 5, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
    S2("direct groups ragged", 2, 36, 34, 2, 5, 9, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
    S2("direct stem 7x7 s2", 1, 3, 20, 1, 23, 23, 7, 7, 3, 3, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
    {"direct 3-D ragged", 3, 1, 17, 18, 1, {4, 5, 6}, {2, 3, 3}, {1, 1, 1}, {2, 1, 2}, {1, 2, 1},
     CUDNN_CROSS_CORRELATION},
    /* Strided backward data on the blocked kernels, one forward
     * convolution per stride phase: stride 2 and 3, kernels 1 to 5, kernels
     * smaller than the stride (phases no tap reaches: alpha*0 + beta*dx),
     * padding 0 to 2 (phase paddings that go negative), odd sizes, a dx
     * extent not a multiple of the stride, groups, CONVOLUTION mode,
     * dilation with and without a common factor with the stride, 3-D. */
    S2("direct bwd s2 3x3", 2, 5, 19, 1, 13, 11, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("direct bwd s3 5x5 pad2", 1, 17, 6, 1, 16, 14, 5, 5, 2, 2, 3, 3, 1, 1, CUDNN_CONVOLUTION),
    S2("direct bwd 2x2 s3 empty phases", 2, 18, 7, 1, 11, 10, 2, 2, 0, 1, 3, 3, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("direct bwd 1x1 s2 groups", 1, 6, 4, 2, 9, 8, 1, 1, 0, 0, 2, 2, 1, 1, CUDNN_CONVOLUTION),
    S2("direct bwd s2 pad2 groups", 2, 36, 34, 2, 9, 10, 3, 3, 2, 2, 2, 2, 1, 1, CUDNN_CONVOLUTION),
    S2("direct bwd 5x2 s2/3", 1, 4, 3, 1, 12, 13, 5, 2, 1, 0, 2, 3, 1, 1, CUDNN_CROSS_CORRELATION),
    S2("direct bwd dilated s3/2", 1, 5, 6, 1, 14, 13, 3, 3, 2, 1, 3, 2, 2, 3, CUDNN_CONVOLUTION),
    S2("direct bwd 4x4 s2 pad2", 1, 3, 20, 1, 7, 9, 4, 4, 2, 2, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
    {"direct bwd 3-D s2", 3, 1, 17, 5, 1, {5, 7, 6}, {3, 2, 3}, {1, 0, 1}, {2, 2, 3}, {1, 1, 1},
     CUDNN_CONVOLUTION},
};

/* L_NHWC_4K: channels innermost with positions 1024 floats (4 KB) apart
 * whatever C: every channel block's positions in one L1 set, the case the
 * channel-blocked depthwise path copies (gathers, strips) for, with
 * channel tails that dense NHWC of such strides cannot have. */
typedef enum layout { L_NCHW, L_NHWC, L_STRIDED, L_NHWC_4K } layout_t;
static const char *const layout_names[] = {"nchw", "nhwc", "strided", "nhwc-4k"};

/* Strides of a (N, C, spatial...) tensor of rank nb in a layout. */
static void
make_strides(layout_t l, int nb, const int *dims, int *st)
{
    if (l == L_NHWC || l == L_NHWC_4K) {
        int s = 1;
        st[1] = s;
        s *= l == L_NHWC_4K ? 1024 : dims[1];
        for (int i = nb - 1; i >= 2; i--) {
            st[i] = s;
            s *= dims[i];
        }
        st[0] = s;
        return;
    }
    int s = 1;
    for (int i = nb - 1; i >= 0; i--) {
        int gap = l == L_STRIDED ? (i == nb - 1 ? 1 : 3) : 0;
        st[i] = s * (l == L_STRIDED && i == nb - 1 ? 2 : 1);
        s = st[i] * dims[i] + gap;
    }
}

static size_t
span_of(int nb, const int *dims, const int *st)
{
    size_t last = 0;
    for (int i = 0; i < nb; i++)
        last += (size_t)(dims[i] - 1) * (size_t)st[i];
    return last + 1;
}

/* Offset of logical element `idx` (row-major over dims) in a strided
 * tensor. */
static size_t
offset_of(int nb, const int *dims, const int *st, size_t idx)
{
    size_t off = 0;
    for (int i = nb - 1; i >= 0; i--) {
        off += (idx % (size_t)dims[i]) * (size_t)st[i];
        idx /= (size_t)dims[i];
    }
    return off;
}

static size_t
count_of(int nb, const int *dims)
{
    size_t n = 1;
    for (int i = 0; i < nb; i++)
        n *= (size_t)dims[i];
    return n;
}

/* One operand: its dims/strides, the buffer, and a packed double copy. */
typedef struct operand {
    int nb, dims[5], st[5];
    size_t span, count;
    void *buf;     /* guarded */
    double *ref;   /* packed logical values */
    bool is_filter;
    cudnnTensorFormat_t ffmt;
} operand_t;

static void
operand_init(operand_t *o, int nb, const int *dims, layout_t l, bool is_filter, cudnnTensorFormat_t ffmt,
             size_t es)
{
    memset(o, 0, sizeof(*o));
    o->nb = nb;
    memcpy(o->dims, dims, sizeof(int) * (size_t)nb);
    o->is_filter = is_filter;
    o->ffmt = ffmt;
    if (is_filter)
        make_strides(ffmt == CUDNN_TENSOR_NHWC ? L_NHWC : L_NCHW, nb, dims, o->st);
    else
        make_strides(l, nb, dims, o->st);
    o->span = span_of(nb, dims, o->st);
    o->count = count_of(nb, dims);
    o->buf = fdnn_guarded_alloc(o->span * es);
    o->ref = calloc(o->count, sizeof(double));
}

static void
operand_free(operand_t *o)
{
    fdnn_guarded_free(o->buf);
    free(o->ref);
}

static void
poison(operand_t *o, size_t es)
{
    if (es == 4)
        fdnn_poison_f32(o->buf, o->span);
    else
        fdnn_poison_f64(o->buf, o->span);
}

static void
fill(operand_t *o, size_t es, fdnn_rng_t *rng, bool integers)
{
    poison(o, es);
    for (size_t i = 0; i < o->count; i++) {
        double v = integers ? (double)fdnn_rng_int(rng, -3, 3) : fdnn_rng_uniform(rng, -1, 1);
        o->ref[i] = v;
        size_t off = offset_of(o->nb, o->dims, o->st, i);
        if (es == 4) {
            ((float *)o->buf)[off] = (float)v;
            o->ref[i] = (double)(float)v;
        } else {
            ((double *)o->buf)[off] = v;
        }
    }
}

static double
get(const operand_t *o, size_t es, size_t i)
{
    size_t off = offset_of(o->nb, o->dims, o->st, i);
    return es == 4 ? ((const float *)o->buf)[off] : ((const double *)o->buf)[off];
}

/* Number of elements of the buffer that are not logical elements and no
 * longer NaN (written outside the tensor). */
static size_t
gaps_written(const operand_t *o, size_t es)
{
    char *mark = calloc(o->span, 1);
    for (size_t i = 0; i < o->count; i++)
        mark[offset_of(o->nb, o->dims, o->st, i)] = 1;
    size_t bad = 0;
    for (size_t i = 0; i < o->span; i++) {
        if (mark[i])
            continue;
        double v = es == 4 ? ((const float *)o->buf)[i] : ((const double *)o->buf)[i];
        if (!isnan(v))
            bad++;
    }
    free(mark);
    return bad;
}

typedef struct descs {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
} descs_t;

static fdnn_conv_problem_t
geometry(const shape_t *s, const int *out)
{
    fdnn_conv_problem_t p;
    memset(&p, 0, sizeof(p));
    p.n = s->n;
    p.c = s->c;
    p.k = s->k;
    p.g = s->g;
    p.nsp = s->nsp;
    for (int i = 0; i < 3; i++) {
        p.in[i] = s->in[i];
        p.ker[i] = s->ker[i];
        p.pad[i] = s->pad[i];
        p.stride[i] = s->str[i];
        p.dil[i] = s->dil[i];
        p.out[i] = out[i];
    }
    p.flip = s->mode == CUDNN_CONVOLUTION;
    return p;
}

static int
algo_count(int dir)
{
    return dir == 0 ? CUDNN_CONVOLUTION_FWD_ALGO_COUNT
           : dir == 1 ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT
                      : CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
}

/* Allowed error of (dir, algo), in units of the data type's epsilon times
 * the sum of |products| behind an output element; algorithms not listed
 * must be exact on the integer data.  One line per inexact algorithm. */
static double
algo_tolerance(int dir, int algo, size_t es)
{
    static const struct {
        int dir, algo;
        double eps;
    } inexact[] = {
        /* FFT: a few ulps per transform level (measured: at most about 5) */
        {0, CUDNN_CONVOLUTION_FWD_ALGO_FFT, 64},
        {0, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, 64},
        {1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, 64},
        {1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING, 64},
        {2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, 64},
        {2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING, 64},
        /* Winograd: transforms with fractions (1/3, 16/15, ...) round at each
         * step; measured at most about 40 (fused F(4x4,3x3)) */
        {0, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, 128},
        {0, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, 128},
        {1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, 128},
        {1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, 128},
        {2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, 128},
    };
    for (size_t i = 0; i < sizeof(inexact) / sizeof(inexact[0]); i++)
        if (inexact[i].dir == dir && inexact[i].algo == algo)
            return inexact[i].eps * (es == 4 ? 0x1p-24 : 0x1p-53);
    return 0;
}

static cudnnStatus_t
ws_size(cudnnHandle_t h, int dir, descs_t *d, int algo, size_t *bytes)
{
    if (dir == 0)
        return cudnnGetConvolutionForwardWorkspaceSize(h, d->x, d->w, d->conv, d->y, algo, bytes);
    if (dir == 1)
        return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d->w, d->y, d->conv, d->x, algo, bytes);
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d->x, d->y, d->conv, d->w, algo, bytes);
}

static cudnnStatus_t
run(cudnnHandle_t h, int dir, descs_t *d, int algo, operand_t *x, operand_t *w, operand_t *y, void *ws,
    size_t wsb, double alpha, double beta, size_t es)
{
    float af = (float)alpha, bf = (float)beta;
    const void *a = es == 4 ? (const void *)&af : (const void *)&alpha;
    const void *b = es == 4 ? (const void *)&bf : (const void *)&beta;
    if (dir == 0)
        return cudnnConvolutionForward(h, a, d->x, x->buf, d->w, w->buf, d->conv, algo, ws, wsb, b, d->y, y->buf);
    if (dir == 1)
        return cudnnConvolutionBackwardData(h, a, d->w, w->buf, d->y, y->buf, d->conv, algo, ws, wsb, b, d->x,
                                            x->buf);
    return cudnnConvolutionBackwardFilter(h, a, d->x, x->buf, d->y, y->buf, d->conv, algo, ws, wsb, b, d->w,
                                          w->buf);
}

/* y = relu(alpha * conv(x, w) + beta * y + bias), y also as z. */
static cudnnStatus_t
run_bias_relu(cudnnHandle_t h, descs_t *d, int algo, operand_t *x, operand_t *w, operand_t *y, void *ws, size_t wsb,
              double alpha, double beta, size_t es, const void *bias)
{
    float af = (float)alpha, bf = (float)beta;
    const void *a = es == 4 ? (const void *)&af : (const void *)&alpha;
    const void *b = es == 4 ? (const void *)&bf : (const void *)&beta;
    int nb = y->nb, bdims[5] = {1, y->dims[1], 1, 1, 1}, bst[5];
    for (int i = nb - 1, s = 1; i >= 0; i--) {
        bst[i] = s;
        s *= bdims[i];
    }
    cudnnTensorDescriptor_t bd;
    cudnnActivationDescriptor_t act;
    cudnnCreateTensorDescriptor(&bd);
    cudnnCreateActivationDescriptor(&act);
    cudnnSetTensorNdDescriptor(bd, es == 4 ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE, nb, bdims, bst);
    cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    cudnnStatus_t st = cudnnConvolutionBiasActivationForward(h, a, d->x, x->buf, d->w, w->buf, d->conv, algo, ws,
                                                             wsb, b, d->y, y->buf, bd, bias, act, d->y, y->buf);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyActivationDescriptor(act);
    return st;
}

static int isa_count;

static void
test_shape(cudnnHandle_t h, const shape_t *s, layout_t l, cudnnTensorFormat_t ffmt, cudnnDataType_t dt,
           bool all_isas)
{
    size_t es = dt == CUDNN_DATA_FLOAT ? 4 : 8;
    int nb = s->nsp + 2, off = 3 - s->nsp;
    int xd[5] = {s->n, s->c}, wd[5] = {s->k, s->c / s->g}, yd[5];
    int pad[3], str[3], dil[3];
    for (int i = 0; i < s->nsp; i++) {
        xd[2 + i] = s->in[off + i];
        wd[2 + i] = s->ker[off + i];
        pad[i] = s->pad[off + i];
        str[i] = s->str[off + i];
        dil[i] = s->dil[off + i];
    }
    descs_t d;
    cudnnCreateTensorDescriptor(&d.x);
    cudnnCreateTensorDescriptor(&d.y);
    cudnnCreateFilterDescriptor(&d.w);
    cudnnCreateConvolutionDescriptor(&d.conv);
    CHECK_OK(cudnnSetConvolutionNdDescriptor(d.conv, s->nsp, pad, str, dil, s->mode, dt));
    CHECK_OK(cudnnSetConvolutionGroupCount(d.conv, s->g));
    CHECK_OK(cudnnSetFilterNdDescriptor(d.w, dt, ffmt, nb, wd));
    operand_t x, w, y;
    operand_init(&x, nb, xd, l, false, ffmt, es);
    CHECK_OK(cudnnSetTensorNdDescriptor(d.x, dt, nb, x.dims, x.st));
    int nbo = 0;
    CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(d.conv, d.x, d.w, nb, yd));
    (void)nbo;
    operand_init(&w, nb, wd, l, true, ffmt, es);
    operand_init(&y, nb, yd, l, false, ffmt, es);
    CHECK_OK(cudnnSetTensorNdDescriptor(d.y, dt, nb, y.dims, y.st));
    int out3[3] = {1, 1, 1};
    for (int i = 0; i < s->nsp; i++)
        out3[off + i] = yd[2 + i];
    fdnn_conv_problem_t p = geometry(s, out3);

    size_t out_spatial = count_of(nb - 2, yd + 2);
    operand_t bias; /* (1, K, 1, 1[, 1]) */
    int bd[5] = {1, s->k, 1, 1, 1};
    operand_init(&bias, nb, bd, L_NCHW, false, ffmt, es);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 42);
    fill(&bias, es, &rng, true);
    double *expect = malloc(sizeof(double) * (x.count + w.count + y.count));
    double *prior = malloc(sizeof(double) * (x.count + w.count + y.count));
    double *mag = malloc(sizeof(double) * (x.count + w.count + y.count));
    double *ax = malloc(sizeof(double) * x.count), *aw = malloc(sizeof(double) * w.count),
           *ay = malloc(sizeof(double) * y.count);
    for (int dir = 0; dir < 3; dir++) {
        operand_t *outp = dir == 0 ? &y : dir == 1 ? &x : &w;
        /* Inputs. */
        fill(&x, es, &rng, true);
        fill(&w, es, &rng, true);
        fill(&y, es, &rng, true);
        if (dir == 0)
            fdnn_ref_conv_fwd(&p, x.ref, w.ref, expect);
        else if (dir == 1)
            fdnn_ref_conv_bwd_data(&p, y.ref, w.ref, expect);
        else
            fdnn_ref_conv_bwd_filter(&p, x.ref, y.ref, expect);
        /* Sum of |products| behind each output element, for the inexact
         * algorithms' tolerance; never below the mean (an element with
         * no non-zero product still carries transform rounding). */
        for (size_t i = 0; i < x.count; i++)
            ax[i] = fabs(x.ref[i]);
        for (size_t i = 0; i < w.count; i++)
            aw[i] = fabs(w.ref[i]);
        for (size_t i = 0; i < y.count; i++)
            ay[i] = fabs(y.ref[i]);
        if (dir == 0)
            fdnn_ref_conv_fwd(&p, ax, aw, mag);
        else if (dir == 1)
            fdnn_ref_conv_bwd_data(&p, ay, aw, mag);
        else
            fdnn_ref_conv_bwd_filter(&p, ax, ay, mag);
        double mag_mean = 0;
        for (size_t i = 0; i < outp->count; i++)
            mag_mean += mag[i] / (double)outp->count;
        /* Prior output values for the beta test. */
        fill(outp, es, &rng, true);
        memcpy(prior, outp->ref, sizeof(double) * outp->count);
        void *saved = malloc(outp->span * es);
        memcpy(saved, outp->buf, outp->span * es);

        for (int algo = 0; algo < algo_count(dir); algo++) {
            size_t wsb = 0;
            cudnnStatus_t st = ws_size(h, dir, &d, algo, &wsb);
            if (st == CUDNN_STATUS_NOT_SUPPORTED)
                continue;
            CHECK_OK(st);
            void *ws = fdnn_guarded_alloc(wsb ? wsb : 1); /* (fdnn_guarded_free of 0 bytes faults) */
            for (int isa = all_isas ? 0 : isa_count - 1; isa < isa_count; isa++) {
                CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isa)));
                /* Below about 2^20 multiply-adds (2^16 depthwise) the
                 * library runs on one thread whatever the setting: one
                 * thread count is enough. */
                double macs = (double)s->n * s->k * (s->c / s->g) * (double)count_of(nb - 2, wd + 2) *
                              (double)count_of(nb - 2, yd + 2);
                int max_threads = macs >= (double)(s->c == s->g ? 1 << 16 : 1 << 20) ? 2 : 1;
                for (int threads = 1; threads <= max_threads; threads++) {
                    CHECK_OK(freednnSetNumThreads(h, threads));
                    /* 0: alpha 1, beta 0 on a poisoned output; 1: alpha 2,
                     * beta -1; 2 (forward): bias + ReLU through
                     * cudnnConvolutionBiasActivationForward, z = y. */
                    for (int beta_case = 0; beta_case < (dir == 0 ? 3 : 2); beta_case++) {
                        double alpha = beta_case ? 2 : 1, beta = beta_case ? -1 : 0;
                        if (beta_case)
                            memcpy(outp->buf, saved, outp->span * es);
                        else
                            poison(outp, es);
                        fdnn_poison_bytes(ws, wsb);
                        if (beta_case == 2)
                            st = run_bias_relu(h, &d, algo, &x, &w, &y, ws, wsb, alpha, beta, es, bias.buf);
                        else
                            st = run(h, dir, &d, algo, &x, &w, &y, ws, wsb, alpha, beta, es);
                        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s %s/%s %s dir %d algo %d case %d: status %s",
                                  s->name, layout_names[l], ffmt == CUDNN_TENSOR_NHWC ? "nhwc" : "nchw",
                                  es == 4 ? "f32" : "f64", dir, algo, beta_case, cudnnGetErrorString(st));
                        if (st != CUDNN_STATUS_SUCCESS)
                            continue;
                        size_t bad = 0;
                        double worst = 0, tol = algo_tolerance(dir, algo, es);
                        for (size_t i = 0; i < outp->count; i++) {
                            double want = alpha * expect[i] + beta * prior[i];
                            if (beta_case == 2) {
                                want += bias.ref[i / out_spatial % (size_t)s->k];
                                want = want > 0 ? want : 0;
                            }
                            double got = get(outp, es, i);
                            double allowed =
                                tol * (fabs(alpha) * fmax(mag[i], mag_mean) + fabs(beta * prior[i]));
                            if (!(fabs(got - want) <= allowed)) {
                                if (bad == 0)
                                    worst = got - want;
                                bad++;
                            }
                        }
                        CHECK_MSG(bad == 0,
                                  "%s %s/%s %s dir %d algo %d isa %s threads %d case %d: %zu of %zu wrong (first "
                                  "diff %g)",
                                  s->name, layout_names[l], ffmt == CUDNN_TENSOR_NHWC ? "nhwc" : "nchw",
                                  es == 4 ? "f32" : "f64", dir, algo, fdnn_test_isa_name(isa), threads, beta_case,
                                  bad, outp->count, worst);
                        if (!beta_case && (l == L_STRIDED || l == L_NHWC_4K))
                            CHECK_MSG(gaps_written(outp, es) == 0, "%s dir %d algo %d wrote between elements",
                                      s->name, dir, algo);
                    }
                }
            }
            fdnn_guarded_free(ws);
        }
        free(saved);
    }
    free(expect);
    free(prior);
    free(mag);
    free(ax);
    free(aw);
    free(ay);
    operand_free(&bias);
    operand_free(&x);
    operand_free(&w);
    operand_free(&y);
    cudnnDestroyTensorDescriptor(d.x);
    cudnnDestroyTensorDescriptor(d.y);
    cudnnDestroyFilterDescriptor(d.w);
    cudnnDestroyConvolutionDescriptor(d.conv);
}

/* Backward bias against the reference, NCHW and NHWC, alpha/beta. */
static void
test_bias(cudnnHandle_t h)
{
    const int dims[4] = {3, 5, 4, 7};
    for (int l = 0; l < 3; l++) {
        operand_t dy;
        operand_init(&dy, 4, dims, (layout_t)l, false, CUDNN_TENSOR_NCHW, 4);
        fdnn_rng_t rng;
        fdnn_rng_seed(&rng, 7);
        fill(&dy, 4, &rng, true);
        cudnnTensorDescriptor_t dyd, dbd;
        cudnnCreateTensorDescriptor(&dyd);
        cudnnCreateTensorDescriptor(&dbd);
        CHECK_OK(cudnnSetTensorNdDescriptor(dyd, CUDNN_DATA_FLOAT, 4, dy.dims, dy.st));
        CHECK_OK(cudnnSetTensor4dDescriptor(dbd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 5, 1, 1));
        float *db = fdnn_guarded_alloc(5 * sizeof(float));
        fdnn_conv_problem_t p;
        memset(&p, 0, sizeof(p));
        p.n = 3;
        p.k = 5;
        p.out[0] = 1;
        p.out[1] = 4;
        p.out[2] = 7;
        double want[5];
        fdnn_ref_conv_bwd_bias(&p, dy.ref, want);
        for (int threads = 1; threads <= 2; threads++) {
            CHECK_OK(freednnSetNumThreads(h, threads));
            float one = 1, zero = 0, two = 2, mone = -1;
            fdnn_poison_f32(db, 5);
            CHECK_OK(cudnnConvolutionBackwardBias(h, &one, dyd, dy.buf, &zero, dbd, db));
            for (int k = 0; k < 5; k++)
                CHECK(db[k] == (float)want[k]);
            for (int k = 0; k < 5; k++)
                db[k] = (float)k;
            CHECK_OK(cudnnConvolutionBackwardBias(h, &two, dyd, dy.buf, &mone, dbd, db));
            for (int k = 0; k < 5; k++)
                CHECK(db[k] == (float)(2 * want[k] - k));
        }
        fdnn_guarded_free(db);
        operand_free(&dy);
        cudnnDestroyTensorDescriptor(dyd);
        cudnnDestroyTensorDescriptor(dbd);
    }
}

/* A 2-D FLOAT problem of shape s (s.g groups; the depthwise shapes: g ==
 * c, cross-correlation, no dilation): x and y in `layout`, the filter
 * packed KCRS; yd gets y's dims. */
static void
problem_2d(shape_t s, layout_t layout, descs_t *d, operand_t *x, operand_t *w, operand_t *y, int yd[4])
{
    int xd[4] = {s.n, s.c, s.in[1], s.in[2]}, wd[4] = {s.k, s.c / s.g, s.ker[1], s.ker[2]};
    cudnnCreateTensorDescriptor(&d->x);
    cudnnCreateTensorDescriptor(&d->y);
    cudnnCreateFilterDescriptor(&d->w);
    cudnnCreateConvolutionDescriptor(&d->conv);
    CHECK_OK(cudnnSetConvolution2dDescriptor(d->conv, s.pad[1], s.pad[2], s.str[1], s.str[2], 1, 1,
                                             CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(d->conv, s.g));
    CHECK_OK(cudnnSetFilterNdDescriptor(d->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, wd));
    operand_init(x, 4, xd, layout, false, CUDNN_TENSOR_NCHW, 4);
    CHECK_OK(cudnnSetTensorNdDescriptor(d->x, CUDNN_DATA_FLOAT, 4, x->dims, x->st));
    CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(d->conv, d->x, d->w, 4, yd));
    operand_init(w, 4, wd, L_NCHW, true, CUDNN_TENSOR_NCHW, 4);
    operand_init(y, 4, yd, layout, false, CUDNN_TENSOR_NCHW, 4);
    CHECK_OK(cudnnSetTensorNdDescriptor(d->y, CUDNN_DATA_FLOAT, 4, y->dims, y->st));
}

static void
problem_2d_free(descs_t *d, operand_t *x, operand_t *w, operand_t *y)
{
    operand_free(x);
    operand_free(w);
    operand_free(y);
    cudnnDestroyTensorDescriptor(d->x);
    cudnnDestroyTensorDescriptor(d->y);
    cudnnDestroyFilterDescriptor(d->w);
    cudnnDestroyConvolutionDescriptor(d->conv);
}

/* Real-valued data: 1, 2 and 3 threads must give identical bits, per algorithm
 * (here on a shape large enough to have several chunks and panels; the
 * shape's filter size, padding and stride). */
static void test_thread_determinism_layout(cudnnHandle_t h, shape_t s, layout_t layout);

static void
test_thread_determinism(cudnnHandle_t h, shape_t s)
{
    test_thread_determinism_layout(h, s, L_NCHW);
}

/* The same with x and y in `layout` (L_NCHW or L_NHWC). */
static void
test_thread_determinism_layout(cudnnHandle_t h, shape_t s, layout_t layout)
{
    descs_t d;
    operand_t x, w, y;
    int yd[4];
    problem_2d(s, layout, &d, &x, &w, &y, yd);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 3);
    fill(&x, 4, &rng, false);
    fill(&w, 4, &rng, false);
    fill(&y, 4, &rng, false);
    for (int dir = 0; dir < 3; dir++) {
        operand_t *outp = dir == 0 ? &y : dir == 1 ? &x : &w;
        float *first = malloc(outp->span * 4);
        for (int algo = 0; algo < algo_count(dir); algo++) {
            size_t wsb = 0;
            if (ws_size(h, dir, &d, algo, &wsb) != CUDNN_STATUS_SUCCESS)
                continue;
            void *ws = fdnn_guarded_alloc(wsb ? wsb : 1); /* (fdnn_guarded_free of 0 bytes faults) */
            /* 3 threads: chunk boundaries that 1 and 2 do not have (the
             * depthwise backward filter's block ranges per thread, the GEMM
             * rows path's image groups). */
            for (int threads = 1; threads <= 3; threads++) {
                CHECK_OK(freednnSetNumThreads(h, threads));
                poison(outp, 4);
                CHECK_OK(run(h, dir, &d, algo, &x, &w, &y, ws, wsb, 1, 0, 4));
                if (threads == 1)
                    memcpy(first, outp->buf, outp->span * 4);
                else
                    CHECK_MSG(memcmp(first, outp->buf, outp->span * 4) == 0,
                              "%s dir %d algo %d: 1 and %d threads differ", s.name, dir, algo, threads);
            }
            fdnn_guarded_free(ws);
        }
        free(first);
    }
    problem_2d_free(&d, &x, &w, &y);
}

/* Descriptors of a packed NCHW FLOAT problem (nsp spatial dims, given in
 * D, H, W order of the last nsp entries). */
static void
fft_descs(descs_t *d, int nsp, int n, int c, int k, const int *in, const int *ker, const int *pad, const int *str,
          const int *dil)
{
    int nb = nsp + 2, xd[5] = {n, c}, wd[5] = {k, c}, yd[5], xs[5], ys[5];
    for (int i = 0; i < nsp; i++) {
        xd[2 + i] = in[i];
        wd[2 + i] = ker[i];
    }
    cudnnCreateTensorDescriptor(&d->x);
    cudnnCreateTensorDescriptor(&d->y);
    cudnnCreateFilterDescriptor(&d->w);
    cudnnCreateConvolutionDescriptor(&d->conv);
    CHECK_OK(cudnnSetConvolutionNdDescriptor(d->conv, nsp, pad, str, dil, CUDNN_CROSS_CORRELATION,
                                             CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetFilterNdDescriptor(d->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, nb, wd));
    make_strides(L_NCHW, nb, xd, xs);
    CHECK_OK(cudnnSetTensorNdDescriptor(d->x, CUDNN_DATA_FLOAT, nb, xd, xs));
    CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(d->conv, d->x, d->w, nb, yd));
    make_strides(L_NCHW, nb, yd, ys);
    CHECK_OK(cudnnSetTensorNdDescriptor(d->y, CUDNN_DATA_FLOAT, nb, yd, ys));
}

/* Dense NCHW FP32 operands of the 2-D problem d (fft_descs'), dims read
 * from its descriptors. */
static void
nchw_operands(const descs_t *d, operand_t *x, operand_t *w, operand_t *y)
{
    int xd[4], wd[4], yd[4], st[4], nb;
    cudnnDataType_t dt;
    cudnnTensorFormat_t f;
    CHECK_OK(cudnnGetTensorNdDescriptor(d->x, 4, &dt, &nb, xd, st));
    CHECK_OK(cudnnGetFilterNdDescriptor(d->w, 4, &dt, &f, &nb, wd));
    CHECK_OK(cudnnGetTensorNdDescriptor(d->y, 4, &dt, &nb, yd, st));
    operand_init(x, 4, xd, L_NCHW, false, CUDNN_TENSOR_NCHW, 4);
    operand_init(w, 4, wd, L_NCHW, true, CUDNN_TENSOR_NCHW, 4);
    operand_init(y, 4, yd, L_NCHW, false, CUDNN_TENSOR_NCHW, 4);
}

static void
descs_free(descs_t *d)
{
    cudnnDestroyTensorDescriptor(d->x);
    cudnnDestroyTensorDescriptor(d->y);
    cudnnDestroyFilterDescriptor(d->w);
    cudnnDestroyConvolutionDescriptor(d->conv);
}

/* The few-input-channel backward filter (conv_wgrad_small.h) takes 2-D
 * FP32 problems on channels-last dy with at most 4 channels per group, a
 * spatial filter and 8 to 256 output channels, and declines the rest
 * with a reason. */
static void
test_wgrad_small_applicability(void)
{
    static const struct {
        int nsp, c, k, ker;
        bool nhwc, ok;
    } cases[] = {{2, 3, 8, 3, true, true},   {2, 4, 256, 7, true, true}, {2, 5, 8, 3, true, false},
                 {2, 3, 8, 1, true, false},  {3, 3, 8, 3, true, false},  {2, 3, 7, 3, true, false},
                 {2, 3, 257, 3, true, false}, {2, 3, 8, 3, false, false}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int nsp = cases[i].nsp, r = cases[i].ker;
        const int in[3] = {9, 10, 11}, ker[3] = {r, r, r}, pad[3] = {1, 1, 1}, str[3] = {2, 2, 2}, one[3] = {1, 1, 1};
        descs_t d;
        fft_descs(&d, nsp, 2, cases[i].c, cases[i].k, in, ker, pad, str, one);
        if (cases[i].nhwc) { /* x and dy channels-last */
            int nb = nsp + 2, xd[5], yd[5], st[5];
            cudnnDataType_t dt;
            int got;
            CHECK_OK(cudnnGetTensorNdDescriptor(d.x, 5, &dt, &got, xd, st));
            make_strides(L_NHWC, nb, xd, st);
            CHECK_OK(cudnnSetTensorNdDescriptor(d.x, CUDNN_DATA_FLOAT, nb, xd, st));
            CHECK_OK(cudnnGetTensorNdDescriptor(d.y, 5, &dt, &got, yd, st));
            make_strides(L_NHWC, nb, yd, st);
            CHECK_OK(cudnnSetTensorNdDescriptor(d.y, CUDNN_DATA_FLOAT, nb, yd, st));
        }
        fdnn_conv_problem_t p;
        CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_FILTER, d.x, d.w, d.conv, d.y, &p));
        cudnnStatus_t st = fdnn_conv_wgrad_small_applicable(&p);
        CHECK_MSG(cases[i].ok ? st == CUDNN_STATUS_SUCCESS : st == CUDNN_STATUS_NOT_SUPPORTED,
                  "case %zu (%d-D, C %d, K %d, %dx%d, %s): status %d", i, nsp, cases[i].c, cases[i].k, r, r,
                  cases[i].nhwc ? "NHWC" : "NCHW", (int)st);
        CHECK(cases[i].ok || strstr(fdnn_fail_reason(), "small-C") != NULL);
        descs_free(&d);
    }
}

/* The FFT solvers decline what cuDNN 8.9 documents as unsupported, each
 * with a reason naming the condition, and accept the edge of each limit. */
static void
test_fft_applicability(cudnnHandle_t h)
{
    enum { FFT = 0, TILING = 1 };
    static const int algos[3][2] = {
        {CUDNN_CONVOLUTION_FWD_ALGO_FFT, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING},
        {CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING},
        {CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING},
    };
    static const struct {
        int nsp, in[3], ker[3], pad[3], str[3], dil[3];
        int dir, which;
        const char *reason; /* NULL: supported */
    } cases[] = {
        {2, {8, 8}, {3, 3}, {1, 1}, {2, 1}, {1, 1}, 0, FFT, "stride 1"},
        {2, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 2}, 0, TILING, "dilation 1"},
        {2, {8, 8}, {3, 3}, {3, 1}, {1, 1}, {1, 1}, 1, FFT, "greater than its padding"},
        {2, {8, 8}, {3, 3}, {1, 3}, {1, 1}, {1, 1}, 2, TILING, "greater than its padding"},
        {2, {251, 6}, {5, 3}, {3, 1}, {1, 1}, {1, 1}, 1, FFT, "<= 256"},
        {2, {251, 6}, {5, 3}, {3, 1}, {1, 1}, {1, 1}, 1, TILING, NULL},
        {2, {250, 6}, {5, 3}, {3, 1}, {1, 1}, {1, 1}, 1, FFT, NULL},
        {2, {248, 6}, {5, 3}, {4, 1}, {1, 1}, {1, 1}, 0, FFT, NULL},
        {2, {6, 255}, {5, 3}, {1, 1}, {1, 1}, {1, 1}, 2, FFT, "<= 256"},
        {2, {40, 40}, {33, 3}, {1, 1}, {1, 1}, {1, 1}, 0, TILING, "<= 32"},
        {2, {40, 40}, {32, 32}, {1, 1}, {1, 1}, {1, 1}, 0, TILING, NULL},
        {2, {2, 300}, {1, 257}, {0, 0}, {1, 1}, {1, 1}, 1, TILING, "<= 256"},
        {2, {9, 9}, {3, 3}, {1, 1}, {2, 2}, {1, 1}, 0, TILING, NULL},
        {2, {9, 9}, {1, 3}, {0, 1}, {1, 2}, {1, 1}, 0, TILING, "stride 1"},
        {2, {9, 9}, {3, 3}, {1, 1}, {2, 2}, {1, 1}, 1, TILING, "stride 1"},
        {2, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 2, TILING, "height or width 1"},
        {2, {1, 257}, {1, 3}, {0, 1}, {1, 1}, {1, 1}, 2, TILING, "<= 256"},
        {2, {1, 256}, {1, 3}, {0, 1}, {1, 1}, {1, 1}, 2, TILING, NULL},
        {3, {4, 4, 4}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0, FFT, "2-D"},
        {3, {20, 4, 4}, {17, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, TILING, "<= 16"},
        {3, {4, 4, 4}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 2, TILING, "2-D"},
        {3, {4, 4, 4}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, TILING, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        descs_t d;
        fft_descs(&d, cases[i].nsp, 2, 3, 4, cases[i].in, cases[i].ker, cases[i].pad, cases[i].str, cases[i].dil);
        size_t wsb = 0;
        cudnnStatus_t st = ws_size(h, cases[i].dir, &d, algos[cases[i].dir][cases[i].which], &wsb);
        if (cases[i].reason == NULL) {
            CHECK_MSG(st == CUDNN_STATUS_SUCCESS && wsb > 0, "case %zu: %s, %zu bytes", i, cudnnGetErrorString(st),
                      wsb);
        } else {
            CHECK_MSG(st == CUDNN_STATUS_NOT_SUPPORTED, "case %zu: %s", i, cudnnGetErrorString(st));
            CHECK_MSG(strstr(fdnn_fail_reason(), cases[i].reason) != NULL, "case %zu: reason \"%s\" lacks \"%s\"",
                      i, fdnn_fail_reason(), cases[i].reason);
        }
        descs_free(&d);
    }
}

/* An undersized workspace is BAD_PARAM with nothing written; the _v7
 * heuristics and Find list the FFT algorithms as SUCCESS where they apply,
 * with the workspace of the size query. */
static void
test_fft_api(cudnnHandle_t h)
{
    const int in[2] = {12, 10}, ker[2] = {3, 3}, pad[2] = {1, 1}, one[2] = {1, 1};
    descs_t d;
    fft_descs(&d, 2, 2, 3, 4, in, ker, pad, one, one);
    operand_t x, w, y;
    nchw_operands(&d, &x, &w, &y);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 11);
    fill(&x, 4, &rng, true);
    fill(&w, 4, &rng, true);
    fill(&y, 4, &rng, true);
    static const int fft_algos[3][2] = {
        {CUDNN_CONVOLUTION_FWD_ALGO_FFT, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING},
        {CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING},
        {CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT},
    };
    for (int dir = 0; dir < 3; dir++)
        for (int j = 0; j < 2; j++) {
            int algo = fft_algos[dir][j];
            operand_t *outp = dir == 0 ? &y : dir == 1 ? &x : &w;
            size_t wsb = 0;
            CHECK_OK(ws_size(h, dir, &d, algo, &wsb));
            void *ws = fdnn_guarded_alloc(wsb);
            poison(outp, 4);
            CHECK_STATUS(run(h, dir, &d, algo, &x, &w, &y, ws, wsb - 1, 1, 0, 4), CUDNN_STATUS_BAD_PARAM);
            CHECK_MSG(gaps_written(outp, 4) == 0 && isnan(get(outp, 4, 0)), "dir %d algo %d wrote with a short "
                      "workspace", dir, algo);
            CHECK_STATUS(run(h, dir, &d, algo, &x, &w, &y, NULL, wsb, 1, 0, 4), CUDNN_STATUS_BAD_PARAM);
            CHECK_OK(run(h, dir, &d, algo, &x, &w, &y, ws, wsb, 1, 0, 4));
            CHECK(!isnan(get(outp, 4, 0)));
            fdnn_guarded_free(ws);
        }
    /* Heuristic lists and Find: FFT algorithms present with SUCCESS. */
    int n = 0;
    cudnnConvolutionFwdAlgoPerf_t pf[8];
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, 8, &n, pf));
    int found = 0;
    for (int i = 0; i < n; i++)
        if (pf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT || pf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING) {
            size_t wsb = 0;
            CHECK_OK(ws_size(h, 0, &d, pf[i].algo, &wsb));
            found += pf[i].status == CUDNN_STATUS_SUCCESS && pf[i].memory == wsb;
        }
    CHECK(found == 2);
    CHECK_OK(cudnnFindConvolutionForwardAlgorithm(h, d.x, d.w, d.conv, d.y, 8, &n, pf));
    found = 0;
    for (int i = 0; i < n; i++)
        found += (pf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT ||
                  pf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING) &&
                 pf[i].status == CUDNN_STATUS_SUCCESS;
    CHECK(found == 2);
    cudnnConvolutionBwdDataAlgoPerf_t pd[6];
    CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x, 6, &n, pd));
    found = 0;
    for (int i = 0; i < n; i++)
        found += (pd[i].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT ||
                  pd[i].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING) &&
                 pd[i].status == CUDNN_STATUS_SUCCESS;
    CHECK(found == 2);
    CHECK_OK(cudnnFindConvolutionBackwardDataAlgorithm(h, d.w, d.y, d.conv, d.x, 6, &n, pd));
    found = 0;
    for (int i = 0; i < n; i++)
        found += (pd[i].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT ||
                  pd[i].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING) &&
                 pd[i].status == CUDNN_STATUS_SUCCESS;
    CHECK(found == 2);
    cudnnConvolutionBwdFilterAlgoPerf_t pw[7];
    CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w, 7, &n, pw));
    found = 0;
    for (int i = 0; i < n; i++) {
        if (pw[i].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT)
            found += pw[i].status == CUDNN_STATUS_SUCCESS;
        if (pw[i].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING) /* 2-D, not 1-D */
            found += pw[i].status == CUDNN_STATUS_NOT_SUPPORTED;
    }
    CHECK(found == 2);
    CHECK_OK(cudnnFindConvolutionBackwardFilterAlgorithm(h, d.x, d.y, d.conv, d.w, 7, &n, pw));
    found = 0;
    for (int i = 0; i < n; i++)
        found += pw[i].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT && pw[i].status == CUDNN_STATUS_SUCCESS;
    CHECK(found == 1);
    operand_free(&x);
    operand_free(&w);
    operand_free(&y);
    descs_free(&d);
}

/* cudnnConvolutionBiasActivationForward on the FFT algorithms: the
 * epilogue (alpha1, alpha2 * z, bias, ReLU) against the reference. */
static void
test_fft_bias_activation(cudnnHandle_t h)
{
    const int in[2] = {11, 9}, ker[2] = {3, 3}, pad[2] = {1, 1}, one[2] = {1, 1};
    descs_t d;
    fft_descs(&d, 2, 2, 3, 4, in, ker, pad, one, one);
    operand_t x, w, y;
    nchw_operands(&d, &x, &w, &y);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 21);
    fill(&x, 4, &rng, true);
    fill(&w, 4, &rng, true);
    fill(&y, 4, &rng, true); /* z, in place */
    float bias[4] = {-2, 0.5f, 3, -0.25f};
    cudnnTensorDescriptor_t bd;
    cudnnActivationDescriptor_t act;
    cudnnCreateTensorDescriptor(&bd);
    cudnnCreateActivationDescriptor(&act);
    CHECK_OK(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 1, 1));
    CHECK_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0));
    fdnn_conv_problem_t p;
    memset(&p, 0, sizeof(p));
    p.n = 2, p.c = 3, p.k = 4, p.g = 1, p.nsp = 2;
    for (int i = 0; i < 3; i++)
        p.stride[i] = p.dil[i] = 1;
    p.in[0] = p.ker[0] = p.out[0] = 1;
    p.in[1] = p.out[1] = 11, p.in[2] = p.out[2] = 9, p.ker[1] = p.ker[2] = 3, p.pad[1] = p.pad[2] = 1;
    double *conv = malloc(sizeof(double) * y.count), *z = malloc(sizeof(double) * y.count);
    fdnn_ref_conv_fwd(&p, x.ref, w.ref, conv);
    memcpy(z, y.ref, sizeof(double) * y.count);
    void *saved = malloc(y.span * 4);
    memcpy(saved, y.buf, y.span * 4);
    const int algos[2] = {CUDNN_CONVOLUTION_FWD_ALGO_FFT, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING};
    for (int i = 0; i < 2; i++) {
        size_t wsb = 0;
        CHECK_OK(ws_size(h, 0, &d, algos[i], &wsb));
        void *ws = fdnn_guarded_alloc(wsb);
        memcpy(y.buf, saved, y.span * 4);
        float a1 = 2, a2 = 0.5f;
        CHECK_OK(cudnnConvolutionBiasActivationForward(h, &a1, d.x, x.buf, d.w, w.buf, d.conv, algos[i], ws, wsb,
                                                       &a2, d.y, y.buf, bd, bias, act, d.y, y.buf));
        size_t bad = 0;
        for (size_t e = 0; e < y.count; e++) {
            int k = (int)(e / (11 * 9)) % 4;
            double want = 2 * conv[e] + 0.5 * z[e] + bias[k];
            want = want > 0 ? want : 0;
            bad += !(fabs(get(&y, 4, e) - want) <= 1e-4 * (1 + fabs(want)));
        }
        CHECK_MSG(bad == 0, "bias-activation algo %d: %zu wrong", algos[i], bad);
        fdnn_guarded_free(ws);
    }
    free(saved);
    free(conv);
    free(z);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyActivationDescriptor(act);
    operand_free(&x);
    operand_free(&w);
    operand_free(&y);
    descs_free(&d);
}

/* The Winograd algorithms of each direction, and whether each is the fused
 * one (3x3 only). */
static const struct {
    int dir, algo;
    bool fused;
} winograd_algos[] = {
    {0, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, true},
    {0, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, false},
    {1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, true},
    {1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, false},
    {2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, false},
};

typedef struct limit_case {
    const char *name;
    int nsp, ker, stride, dil;
    cudnnDataType_t dt;
    bool nonfused_ok, fused_ok;
    const char *reason; /* part of the reason of the declines */
} limit_case_t;

/* Applicability as the cuDNN 8.9 tables give it (2-D, FLOAT, stride 1,
 * dilation 1; 3x3 fused, 3x3 or 5x5 non-fused), with a reason for every
 * decline; undersized or missing workspaces are BAD_PARAM with nothing
 * written. */
static void
test_winograd_limits(cudnnHandle_t h)
{
    static const limit_case_t cases[] = {
        {"3x3", 2, 3, 1, 1, CUDNN_DATA_FLOAT, true, true, ""},
        {"5x5", 2, 5, 1, 1, CUDNN_DATA_FLOAT, true, false, "3x3 filter"},
        {"7x7", 2, 7, 1, 1, CUDNN_DATA_FLOAT, false, false, "filter, not 7x7"},
        {"1x1", 2, 1, 1, 1, CUDNN_DATA_FLOAT, false, false, "filter, not 1x1"},
        {"stride 2", 2, 3, 2, 1, CUDNN_DATA_FLOAT, false, false, "stride 1"},
        {"dilation 2", 2, 3, 1, 2, CUDNN_DATA_FLOAT, false, false, "dilation 1"},
        {"double", 2, 3, 1, 1, CUDNN_DATA_DOUBLE, false, false, "FLOAT only"},
        {"3-D", 3, 3, 1, 1, CUDNN_DATA_FLOAT, false, false, "2-D"},
    };
    for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
        const limit_case_t *lc = &cases[ci];
        int nb = lc->nsp + 2;
        int xd[5] = {2, 4, 11, 10, 9}, wd[5] = {6, 4, lc->ker, lc->ker, lc->ker}, yd[5];
        int pad[3] = {1, 1, 1}, str[3] = {lc->stride, lc->stride, lc->stride}, dil[3] = {lc->dil, lc->dil, lc->dil};
        size_t es = lc->dt == CUDNN_DATA_FLOAT ? 4 : 8;
        descs_t d;
        cudnnCreateTensorDescriptor(&d.x);
        cudnnCreateTensorDescriptor(&d.y);
        cudnnCreateFilterDescriptor(&d.w);
        cudnnCreateConvolutionDescriptor(&d.conv);
        CHECK_OK(cudnnSetConvolutionNdDescriptor(d.conv, lc->nsp, pad, str, dil, CUDNN_CROSS_CORRELATION, lc->dt));
        CHECK_OK(cudnnSetFilterNdDescriptor(d.w, lc->dt, CUDNN_TENSOR_NCHW, nb, wd));
        operand_t x, w, y;
        operand_init(&x, nb, xd, L_NCHW, false, CUDNN_TENSOR_NCHW, es);
        CHECK_OK(cudnnSetTensorNdDescriptor(d.x, lc->dt, nb, x.dims, x.st));
        CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(d.conv, d.x, d.w, nb, yd));
        operand_init(&w, nb, wd, L_NCHW, true, CUDNN_TENSOR_NCHW, es);
        operand_init(&y, nb, yd, L_NCHW, false, CUDNN_TENSOR_NCHW, es);
        CHECK_OK(cudnnSetTensorNdDescriptor(d.y, lc->dt, nb, y.dims, y.st));
        fdnn_rng_t rng;
        fdnn_rng_seed(&rng, 11);
        fill(&x, es, &rng, true);
        fill(&w, es, &rng, true);
        fill(&y, es, &rng, true);
        for (size_t ai = 0; ai < sizeof(winograd_algos) / sizeof(winograd_algos[0]); ai++) {
            int dir = winograd_algos[ai].dir, algo = winograd_algos[ai].algo;
            bool ok = winograd_algos[ai].fused ? lc->fused_ok : lc->nonfused_ok;
            operand_t *outp = dir == 0 ? &y : dir == 1 ? &x : &w;
            size_t wsb = 0;
            fdnn_fail_clear();
            cudnnStatus_t st = ws_size(h, dir, &d, algo, &wsb);
            CHECK_MSG(st == (ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED),
                      "winograd %s dir %d algo %d: workspace query %s", lc->name, dir, algo, cudnnGetErrorString(st));
            if (!ok)
                CHECK_MSG(strstr(fdnn_fail_reason(), lc->reason) != NULL,
                          "winograd %s dir %d algo %d: reason \"%s\" lacks \"%s\"", lc->name, dir, algo,
                          fdnn_fail_reason(), lc->reason);
            void *ws = fdnn_guarded_alloc(wsb + 64);
            char *before = malloc(outp->span * es);
            memcpy(before, outp->buf, outp->span * es);
            if (!ok) {
                st = run(h, dir, &d, algo, &x, &w, &y, ws, wsb + 64, 1, 0, es);
                CHECK_MSG(st == CUDNN_STATUS_NOT_SUPPORTED, "winograd %s dir %d algo %d runs: %s", lc->name, dir,
                          algo, cudnnGetErrorString(st));
            } else {
                CHECK(wsb > 0);
                st = run(h, dir, &d, algo, &x, &w, &y, ws, wsb - 1, 1, 0, es);
                CHECK_MSG(st == CUDNN_STATUS_BAD_PARAM, "winograd dir %d algo %d, workspace 1 byte short: %s", dir,
                          algo, cudnnGetErrorString(st));
                st = run(h, dir, &d, algo, &x, &w, &y, NULL, wsb, 1, 0, es);
                CHECK_MSG(st == CUDNN_STATUS_BAD_PARAM, "winograd dir %d algo %d, NULL workspace: %s", dir, algo,
                          cudnnGetErrorString(st));
            }
            CHECK_MSG(memcmp(before, outp->buf, outp->span * es) == 0, "winograd %s dir %d algo %d wrote on failure",
                      lc->name, dir, algo);
            if (ok) { /* and the exact size is enough */
                CHECK_OK(run(h, dir, &d, algo, &x, &w, &y, ws, wsb, 1, 0, es));
            }
            free(before);
            fdnn_guarded_free(ws);
        }
        CHECK_STATUS(ws_size(h, 2, &d, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD, &(size_t){0}),
                     CUDNN_STATUS_NOT_SUPPORTED);
        operand_free(&x);
        operand_free(&w);
        operand_free(&y);
        cudnnDestroyTensorDescriptor(d.x);
        cudnnDestroyTensorDescriptor(d.y);
        cudnnDestroyFilterDescriptor(d.w);
        cudnnDestroyConvolutionDescriptor(d.conv);
    }
}

/* The fused Winograd's split mode (conv_winograd_fused.c: every block's
 * patches transformed first, then items of up to 4 blocks x 64 output
 * channels; chosen for transformed filters of 8 MB and more, forced here
 * with FREEDNN_WINO_FUSED_SPLIT=1 on small shapes): forward and backward
 * data, NCHW and NHWC, every ISA level, 1-4 threads, alpha 1 / beta 0 on
 * a poisoned output and alpha 2 / beta -1, poisoned workspace.  Checked
 * against the float64 reference (the Winograd tolerance) and bitwise
 * against the block mode (FREEDNN_WINO_FUSED_SPLIT=0) at 1 thread.  The
 * shapes: 132 and 130 channels per group (items of 64 channels and a
 * short one; a 4-row product step), 2 groups, clipped tiles; 15 images:
 * 5 blocks of 32 tiles per group (one item of 4 blocks and one of 1, u
 * transformed for the whole call); 11 images: 4 blocks, the last partial
 * (one item of all blocks: each item transforms its own filter rows). */
static void
test_winograd_split(cudnnHandle_t h)
{
    static const int algos[2] = {CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD};
    for (int sl = 0; sl < 4; sl++) {
        const shape_t s = S2("wino split", sl < 2 ? 15 : 11, 260, 264, 2, 9, 10, 3, 3, 1, 1, 1, 1, 1, 1,
                             CUDNN_CROSS_CORRELATION);
        layout_t layout = sl % 2 == 0 ? L_NCHW : L_NHWC;
        descs_t d;
        operand_t x, w, y;
        int yd[4];
        problem_2d(s, layout, &d, &x, &w, &y, yd);
        int out3[3] = {1, yd[2], yd[3]};
        fdnn_conv_problem_t p = geometry(&s, out3);
        fdnn_rng_t rng;
        fdnn_rng_seed(&rng, 11);
        for (int dir = 0; dir < 2; dir++) {
            operand_t *outp = dir == 0 ? &y : &x;
            fill(&x, 4, &rng, false); /* (the previous direction wrote its output) */
            fill(&w, 4, &rng, false);
            fill(&y, 4, &rng, false);
            size_t n = outp->count;
            double *want = malloc(n * sizeof(double)), *mag = malloc(n * sizeof(double));
            double *ax = malloc(x.count * sizeof(double)), *aw = malloc(w.count * sizeof(double)),
                   *ay = malloc(y.count * sizeof(double));
            for (size_t i = 0; i < x.count; i++)
                ax[i] = fabs(x.ref[i]);
            for (size_t i = 0; i < w.count; i++)
                aw[i] = fabs(w.ref[i]);
            for (size_t i = 0; i < y.count; i++)
                ay[i] = fabs(y.ref[i]);
            if (dir == 0) {
                fdnn_ref_conv_fwd(&p, x.ref, w.ref, want);
                fdnn_ref_conv_fwd(&p, ax, aw, mag);
            } else {
                fdnn_ref_conv_bwd_data(&p, y.ref, w.ref, want);
                fdnn_ref_conv_bwd_data(&p, ay, aw, mag);
            }
            /* prior output values for alpha 2 / beta -1 */
            float *prior = malloc(outp->span * 4), *block = malloc(outp->span * 4);
            for (size_t i = 0; i < outp->span; i++)
                prior[i] = (float)((int)(i % 7) - 3);
            double tol = algo_tolerance(dir, algos[dir], 4), mag_mean = 0;
            for (size_t i = 0; i < n; i++)
                mag_mean += mag[i] / (double)n;
            for (int isa = 0; isa < isa_count; isa++) {
                CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isa)));
                for (int bc = 0; bc < 2; bc++) {
                    double alpha = bc ? 2 : 1, beta = bc ? -1 : 0;
                    for (int mode = 0; mode < 2; mode++) {
                        setenv("FREEDNN_WINO_FUSED_SPLIT", mode ? "1" : "0", 1);
                        size_t wsb = 0;
                        CHECK_OK(ws_size(h, dir, &d, algos[dir], &wsb));
                        void *ws = fdnn_guarded_alloc(wsb ? wsb : 1);
                        for (int threads = 1; threads <= (mode ? 4 : 1); threads++) {
                            CHECK_OK(freednnSetNumThreads(h, threads));
                            if (bc)
                                memcpy(outp->buf, prior, outp->span * 4);
                            else
                                poison(outp, 4);
                            fdnn_poison_bytes(ws, wsb);
                            CHECK_OK(run(h, dir, &d, algos[dir], &x, &w, &y, ws, wsb, alpha, beta, 4));
                            if (mode == 0) {
                                memcpy(block, outp->buf, outp->span * 4);
                                continue;
                            }
                            CHECK_MSG(memcmp(block, outp->buf, outp->span * 4) == 0,
                                      "wino split n=%d %s dir %d isa %s case %d threads %d: not the block mode's bits",
                                      s.n, layout_names[layout], dir, fdnn_test_isa_name(isa), bc, threads);
                            size_t bad = 0;
                            for (size_t i = 0; i < n; i++) {
                                size_t off = offset_of(outp->nb, outp->dims, outp->st, i);
                                double ref = alpha * want[i] + beta * prior[off];
                                if (!(fabs(get(outp, 4, i) - ref) <= tol * (alpha * fmax(mag[i], mag_mean) + fabs(prior[off]))))
                                    bad++;
                            }
                            CHECK_MSG(bad == 0, "wino split n=%d %s dir %d isa %s case %d threads %d: %zu of %zu wrong",
                                      s.n, layout_names[layout], dir, fdnn_test_isa_name(isa), bc, threads, bad, n);
                        }
                        fdnn_guarded_free(ws);
                    }
                }
            }
            unsetenv("FREEDNN_WINO_FUSED_SPLIT");
            free(prior);
            free(block);
            free(want);
            free(mag);
            free(ax);
            free(aw);
            free(ay);
        }
        problem_2d_free(&d, &x, &w, &y);
    }
}

/* cudnnConvolutionBiasActivationForward through the Winograd forward
 * solvers (their epilogue: alpha1, alpha2 * z, bias, ReLU) against the
 * reference, NCHW and NHWC, one thread and two. */
static void
test_winograd_bias_activation(cudnnHandle_t h)
{
    static const int algos[] = {CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED};
    shape_t s = S2("bias-act", 3, 5, 7, 1, 13, 11, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION);
    for (int l = 0; l < 2; l++) {
        layout_t lay = l ? L_NHWC : L_NCHW;
        int xd[4] = {s.n, s.c, s.in[1], s.in[2]}, wd[4] = {s.k, s.c, 3, 3}, yd[4];
        descs_t d;
        cudnnCreateTensorDescriptor(&d.x);
        cudnnCreateTensorDescriptor(&d.y);
        cudnnCreateFilterDescriptor(&d.w);
        cudnnCreateConvolutionDescriptor(&d.conv);
        CHECK_OK(cudnnSetConvolution2dDescriptor(d.conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                 CUDNN_DATA_FLOAT));
        CHECK_OK(cudnnSetFilterNdDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, wd));
        operand_t x, w, y, z;
        operand_init(&x, 4, xd, lay, false, CUDNN_TENSOR_NCHW, 4);
        CHECK_OK(cudnnSetTensorNdDescriptor(d.x, CUDNN_DATA_FLOAT, 4, x.dims, x.st));
        CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(d.conv, d.x, d.w, 4, yd));
        operand_init(&w, 4, wd, lay, true, CUDNN_TENSOR_NCHW, 4);
        operand_init(&y, 4, yd, lay, false, CUDNN_TENSOR_NCHW, 4);
        operand_init(&z, 4, yd, lay, false, CUDNN_TENSOR_NCHW, 4);
        CHECK_OK(cudnnSetTensorNdDescriptor(d.y, CUDNN_DATA_FLOAT, 4, y.dims, y.st));
        cudnnTensorDescriptor_t bd;
        cudnnCreateTensorDescriptor(&bd);
        CHECK_OK(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, s.k, 1, 1));
        cudnnActivationDescriptor_t act;
        CHECK_OK(cudnnCreateActivationDescriptor(&act));
        CHECK_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
        fdnn_rng_t rng;
        fdnn_rng_seed(&rng, 23);
        fill(&x, 4, &rng, true);
        fill(&w, 4, &rng, true);
        fill(&z, 4, &rng, true);
        float bias[7];
        for (int k = 0; k < s.k; k++)
            bias[k] = (float)fdnn_rng_int(&rng, -20, 20);
        int out3[3] = {1, yd[2], yd[3]};
        fdnn_conv_problem_t p = geometry(&s, out3);
        double *conv = malloc(sizeof(double) * y.count), *mag = malloc(sizeof(double) * y.count);
        fdnn_ref_conv_fwd(&p, x.ref, w.ref, conv);
        double *ax = malloc(sizeof(double) * x.count), *aw = malloc(sizeof(double) * w.count);
        for (size_t i = 0; i < x.count; i++)
            ax[i] = fabs(x.ref[i]);
        for (size_t i = 0; i < w.count; i++)
            aw[i] = fabs(w.ref[i]);
        fdnn_ref_conv_fwd(&p, ax, aw, mag);
        size_t osp = y.count / ((size_t)s.n * (size_t)s.k);
        float a1 = 2, a2 = -1;
        for (size_t ai = 0; ai < sizeof(algos) / sizeof(algos[0]); ai++) {
            size_t wsb = 0;
            CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, algos[ai], &wsb));
            void *ws = fdnn_guarded_alloc(wsb + 1);
            for (int threads = 1; threads <= 2; threads++) {
                CHECK_OK(freednnSetNumThreads(h, threads));
                poison(&y, 4);
                CHECK_OK(cudnnConvolutionBiasActivationForward(h, &a1, d.x, x.buf, d.w, w.buf, d.conv, algos[ai], ws,
                                                               wsb, &a2, d.y, z.buf, bd, bias, act, d.y, y.buf));
                size_t bad = 0;
                for (size_t i = 0; i < y.count; i++) {
                    size_t k = (i / osp) % (size_t)s.k;
                    double want = fmax(0.0, 2 * conv[i] - z.ref[i] + bias[k]);
                    double allowed = 128 * 0x1p-24 * (2 * mag[i] + fabs(z.ref[i]) + fabs(bias[k]) + 1);
                    if (!(fabs(get(&y, 4, i) - want) <= allowed))
                        bad++;
                }
                CHECK_MSG(bad == 0, "bias-act %s algo %d threads %d: %zu of %zu wrong", layout_names[lay], algos[ai],
                          threads, bad, y.count);
            }
            fdnn_guarded_free(ws);
        }
        free(conv);
        free(mag);
        free(ax);
        free(aw);
        operand_free(&x);
        operand_free(&w);
        operand_free(&y);
        operand_free(&z);
        cudnnDestroyActivationDescriptor(act);
        cudnnDestroyTensorDescriptor(bd);
        cudnnDestroyTensorDescriptor(d.x);
        cudnnDestroyTensorDescriptor(d.y);
        cudnnDestroyFilterDescriptor(d.w);
        cudnnDestroyConvolutionDescriptor(d.conv);
    }
}

/* Strided FP32 backward data with ALGO_0 runs on the blocked kernels: the
 * formula loops use no scratch memory, so a fresh handle's scratch grows
 * only when the blocked path ran.  The heuristic lists ALGO_0 first for 3x3
 * stride 2 (as res3's) and 5x5 stride 3 over 16 channels, and keeps ALGO_1
 * first for 1x1 stride 2 (the GEMM reads that filter in place) and for 3
 * channels (dx's channels fill 3 of 16 lanes). */
static void
test_direct_bwd_data_path(void)
{
    static const struct {
        int c, ker, pad, str, first;
    } cases[] = {
        {16, 3, 1, 2, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0},
        {16, 5, 2, 3, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0},
        {16, 1, 0, 2, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1},
        {3, 3, 1, 2, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cudnnHandle_t h;
        CHECK_OK(cudnnCreate(&h));
        int c = cases[i].c, kr = cases[i].ker;
        const int in[2] = {25, 24}, ker[2] = {kr, kr}, pad[2] = {cases[i].pad, cases[i].pad},
                  str[2] = {cases[i].str, cases[i].str}, one[2] = {1, 1};
        descs_t d;
        fft_descs(&d, 2, 2, c, 20, in, ker, pad, str, one);
        operand_t x, w, y;
        nchw_operands(&d, &x, &w, &y);
        fdnn_rng_t rng;
        fdnn_rng_seed(&rng, 5);
        fill(&w, 4, &rng, true);
        fill(&y, 4, &rng, true);
        poison(&x, 4);
        CHECK(h->scratch_bytes == 0);
        CHECK_OK(run(h, 1, &d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, &x, &w, &y, NULL, 0, 1, 0, 4));
        CHECK_MSG(h->scratch_bytes > 0, "C=%d %dx%d stride %d backward data ALGO_0 did not run the blocked kernels",
                  c, kr, kr, cases[i].str);
        CHECK(!isnan(get(&x, 4, 0)));
        int n = 0;
        cudnnConvolutionBwdDataAlgoPerf_t pd[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x,
                                                             CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, pd));
        CHECK_MSG(n > 0 && pd[0].algo == (cudnnConvolutionBwdDataAlgo_t)cases[i].first,
                  "C=%d %dx%d stride %d: heuristic lists algo %d first, expected %d", c, kr, kr, cases[i].str,
                  n > 0 ? (int)pd[0].algo : -1, cases[i].first);
        operand_free(&x);
        operand_free(&w);
        operand_free(&y);
        descs_free(&d);
        CHECK_OK(cudnnDestroy(h));
    }
}

/* A padding, stride and dilation far beyond the tensor (a fuzzer's input,
 * "far padding" in shapes[]): the blocked direct solver's padded copy of x
 * would be 17 GB, so it declines with its reason, and every algorithm of
 * every direction then runs on a fresh handle with a small workspace and
 * scratch (the formula loops and the GEMM need little).  Control: the same
 * tiny image with a padding of 1 runs on the blocked kernels. */
static void
test_far_padding_scratch(void)
{
    for (int far = 1; far >= 0; far--) {
        const int in[2] = {2, 1}, ker[2] = {2, 1}, pad[2] = {far ? 1 << 30 : 1, 0},
                  str[2] = {far ? 1 << 30 : 1, 1}, dil[2] = {far ? 1 << 20 : 1, 1};
        descs_t d;
        fft_descs(&d, 2, 2, 2, 1, in, ker, pad, str, dil);
        operand_t x, w, y;
        nchw_operands(&d, &x, &w, &y);
        fdnn_rng_t rng;
        fdnn_rng_seed(&rng, 3);
        fill(&x, 4, &rng, true);
        fill(&w, 4, &rng, true);
        fill(&y, 4, &rng, true);
        fdnn_conv_problem_t p;
        CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, d.x, d.w, d.conv, d.y, &p));
        cudnnHandle_t h;
        CHECK_OK(cudnnCreate(&h));
        fdnn_conv_exec_t e = {.handle = h, .p = &p, .x_in = x.buf, .w_in = w.buf, .out = y.buf, .alpha = 1};
        fdnn_fail_clear();
        cudnnStatus_t st = fdnn_conv_direct_blocked_execute(&e);
        CHECK_MSG(st == (far ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_SUCCESS),
                  "far padding %d: blocked direct forward %s", far, cudnnGetErrorString(st));
        CHECK_MSG(!far || strstr(fdnn_fail_reason(), "far beyond the tensor") != NULL,
                  "far padding: reason \"%s\"", fdnn_fail_reason());
        CHECK_OK(cudnnDestroy(h));
        for (int dir = 0; far && dir < 3; dir++)
            for (int algo = 0; algo < algo_count(dir); algo++) {
                CHECK_OK(cudnnCreate(&h));
                size_t wsb = 0;
                if (ws_size(h, dir, &d, algo, &wsb) == CUDNN_STATUS_SUCCESS) {
                    CHECK_MSG(wsb < (1u << 20), "far padding dir %d algo %d: workspace %zu bytes", dir, algo, wsb);
                    void *ws = wsb < (1u << 20) ? malloc(wsb + 1) : NULL;
                    st = ws != NULL ? run(h, dir, &d, algo, &x, &w, &y, ws, wsb, 1, 0, 4) : CUDNN_STATUS_SUCCESS;
                    CHECK_MSG(st == CUDNN_STATUS_SUCCESS || st == CUDNN_STATUS_NOT_SUPPORTED,
                              "far padding dir %d algo %d: %s", dir, algo, cudnnGetErrorString(st));
                    CHECK_MSG(h->scratch_bytes < (64u << 20), "far padding dir %d algo %d: %zu bytes of scratch",
                              dir, algo, h->scratch_bytes);
                    free(ws);
                }
                CHECK_OK(cudnnDestroy(h));
            }
        operand_free(&x);
        operand_free(&w);
        operand_free(&y);
        descs_free(&d);
    }
}

/* The heuristic lists the fused WINOGRAD first (forward and backward data)
 * for 3x3 stride-1 FLOAT layers with >= 16 channels per group and >= 96
 * 4x4 tiles over the batch (src/cpu/conv/conv_list.c), and not for few
 * tiles, few channels, stride 2 or a 5x5 filter. */
static void
test_winograd_heuristic(cudnnHandle_t h)
{
    static const struct {
        int n, c, hw, ker, str;
        bool wino;
    } cases[] = {
        {8, 32, 28, 3, 1, true},   /* 392 tiles */
        {1, 32, 40, 3, 1, true},   /* 100 tiles, one image */
        {1, 32, 14, 3, 1, false},  /* 16 tiles: the filter transform dominates */
        {8, 8, 28, 3, 1, false},   /* 8 channels */
        {8, 32, 28, 3, 2, false},  /* stride 2 */
        {8, 32, 28, 5, 1, false},  /* 5x5 */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int kr = cases[i].ker;
        const int in[2] = {cases[i].hw, cases[i].hw}, ker[2] = {kr, kr}, pad[2] = {kr / 2, kr / 2},
                  str[2] = {cases[i].str, cases[i].str}, one[2] = {1, 1};
        descs_t d;
        fft_descs(&d, 2, cases[i].n, cases[i].c, cases[i].c, in, ker, pad, str, one);
        int n = 0;
        cudnnConvolutionFwdAlgoPerf_t pf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                        &n, pf));
        CHECK_MSG(n > 0 && (pf[0].algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD) == cases[i].wino,
                  "winograd heuristic case %zu: forward lists algo %d first", i, n > 0 ? (int)pf[0].algo : -1);
        cudnnConvolutionBwdDataAlgoPerf_t pd[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x,
                                                             CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, pd));
        CHECK_MSG(n > 0 && (pd[0].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD) == cases[i].wino,
                  "winograd heuristic case %zu: backward data lists algo %d first", i, n > 0 ? (int)pd[0].algo : -1);
        descs_free(&d);
    }
}

static void
section_layouts(cudnnHandle_t h)
{
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        /* Every ISA level on NCHW; the best level only on the rest (the ISA
         * changes the GEMM kernels, not the layout code), except NHWC for
         * the direct solver's shapes, whose kernels store NHWC differently
         * (masked channel tails) per ISA. */
        bool direct = strncmp(shapes[i].name, "direct", 6) == 0;
        test_shape(h, &shapes[i], L_NCHW, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, true);
        test_shape(h, &shapes[i], L_NHWC, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, direct);
        test_shape(h, &shapes[i], L_STRIDED, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, false);
        test_shape(h, &shapes[i], L_NCHW, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, false);
        test_shape(h, &shapes[i], L_NHWC, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, false);
    }
}

static void
section_large(cudnnHandle_t h)
{
    /* Shapes above the single-thread cut-off (about 2^20 multiply-adds),
     * so 2 threads really run in parallel: image chunks, panels, 1x1. */
    static const shape_t large[] = {
        S2("large 3x3", 9, 8, 16, 1, 13, 11, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("large grouped 1x1", 3, 32, 64, 2, 20, 20, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("large N=1 5x5", 1, 8, 16, 1, 24, 24, 5, 5, 2, 2, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        /* Many tiles, channel counts that are not multiples of the Winograd
         * kernels' row blocks. */
        S2("large 3x3 wide", 2, 32, 40, 1, 30, 29, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        /* Direct: 17 blocks of 16 output channels (filter reordered by the
         * compute tasks of the first image), 7-wide rows in two-row tiles
         * with an odd row count. */
        S2("large direct 7x7", 2, 24, 260, 1, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        /* Strided backward data on the blocked kernels with 2 threads:
         * image chunks in parallel, and one image with parallel steps. */
        S2("large direct bwd s2", 4, 32, 40, 1, 15, 16, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("large direct bwd s2 N=1", 1, 32, 40, 1, 30, 29, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CONVOLUTION),
        /* Backward filter's wide path in bands (64 channels of 100-wide
         * phase rows: 38 output rows a band, 50 in all), image chunks in
         * parallel, then one image with parallel tiles. */
        S2("large wide bands", 2, 64, 8, 1, 50, 98, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("large wide bands N=1", 1, 64, 40, 1, 50, 98, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        /* Backward filter of a 1x1 layer with more output than input
         * channels on images of 256+ positions: dy's rows read in place as
         * the microkernel's A, x^T packed (task_ctx_t.dy_rows): Kg = 45
         * leaves a partial row tile, CRS = 18 a partial strip, 323
         * positions a partial k block; NHWC dy is gathered. */
        S2("large 1x1 dy rows", 3, 36, 90, 2, 19, 17, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        /* Backward filter's rows path (images under 256 positions) with
         * more output than input channels: the roles exchanged
         * (conv_gemm_rows_dy.inc), acc [Kg][CRS] = dy * col^T.  1x1 with
         * groups: Kg = 45 a partial row tile, CRS = 20 a partial strip, 13
         * images of 81 in k blocks of 3 images and a last one of 1 (dy in
         * place through the aptrs kernel; NHWC and padded strides copy the
         * block's rows instead).  1x1 stride 2: 23 images of 210 in image
         * groups of 9, 9 and 5, col^T packed from each image's im2col
         * rows.  3x3: CRS = 27 < Kg = 64, col^T from im2col rows with
         * padding. */
        S2("large rows dy 1x1 groups", 13, 40, 90, 2, 9, 9, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("large rows dy 1x1 s2", 23, 24, 70, 1, 29, 27, 1, 1, 0, 0, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("large rows dy 3x3", 6, 3, 64, 1, 12, 11, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        /* The rows path's in-place readers take row blocks of up to 24 tiles
         * (ROWS_TILES_INPLACE, twice the lane block's): 1340 rows are 96
         * tiles, the last one of 10 rows, in 4 blocks of 24; dy in place
         * as A (Kg = 1340 > CRS = 24; the NHWC and padded layouts copy
         * the rows instead, in blocks of 12 tiles), then x in place as A
         * (CRS = 1340, 7x7 images: k blocks of 4 and 3 images). */
        S2("large rows dy 1x1 blocks of 24", 7, 24, 1340, 1, 7, 7, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("large rows x 1x1 blocks of 24", 7, 1340, 24, 1, 7, 7, 1, 1, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    };
    for (size_t i = 0; i < sizeof(large) / sizeof(large[0]); i++) {
        bool rows_1x1 =
            strcmp(large[i].name, "large 1x1 dy rows") == 0 || strncmp(large[i].name, "large rows dy", 13) == 0;
        test_shape(h, &large[i], L_NCHW, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, rows_1x1);
        if (rows_1x1)
            test_shape(h, &large[i], L_STRIDED, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, false);
        test_shape(h, &large[i], L_NHWC, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, false);
    }
}

static void
section_small_c(cudnnHandle_t h)
{
    /* Backward filter with few input channels on channels-last tensors
     * (conv_wgrad_small.h, ALGO_1; under 2^20 multiply-adds, one thread:
     * the determinism tests below run 2 and 3), every ISA level (AVX2 / AVX-512 read
     * A's rows from x's phases, portable C copies and packs them):
     * MobileNet v2's stem 3x3 s2 with K = 32 (dy read in place as B), the
     * ResNet stem's 7x7 s2 at N = 1 with K = 20 (dy copied, a partial
     * strip; the image cut in bands of rows), 4 channels per group with
     * 5x5 dilated filters in CONVOLUTION mode, rows longer than a block
     * (one row a block, 530 wide), stride 3 with padding beyond the
     * filter; positions 4 KB apart too. */
    static const shape_t small_c[] = {
        S2("small-C 3x3 s2", 2, 3, 32, 1, 40, 41, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("small-C 7x7 s2 N=1", 1, 3, 20, 1, 31, 30, 7, 7, 3, 3, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("small-C groups dilated", 2, 8, 40, 2, 10, 11, 5, 5, 3, 2, 1, 1, 2, 1, CUDNN_CONVOLUTION),
        S2("small-C long rows", 1, 2, 16, 1, 5, 530, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("small-C s3 pad>k", 2, 3, 17, 1, 10, 11, 2, 2, 3, 3, 3, 3, 1, 1, CUDNN_CROSS_CORRELATION),
    };
    for (size_t i = 0; i < sizeof(small_c) / sizeof(small_c[0]); i++) {
        test_shape(h, &small_c[i], L_NHWC, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, true);
        test_shape(h, &small_c[i], L_NHWC_4K, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, false);
    }
}

static void test_depthwise_flat_inf(cudnnHandle_t h);

static void
section_depthwise(cudnnHandle_t h)
{
    /* The depthwise path of DIRECT (one input channel per group, any K/g):
     * W stride phases (forward, backward filter) and upsampled dy
     * (backward data) for strides 2 and 3, dilation, padding beyond the
     * dilated filter (backward data's shift), channel multipliers 2 and 3,
     * flat planes (short rows: 7, 13, 15 wide) and rows of over 8 vectors,
     * CONVOLUTION mode, C = 1 with K = 5, 1x1 images, 1-D, 3-D, and two
     * shapes over the single-thread cut-off. */
    static const shape_t depthwise[] = {
        S2("dw 3x3", 2, 6, 6, 6, 9, 13, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw 3x3 s2", 2, 5, 5, 5, 14, 15, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CONVOLUTION),
        S2("dw s3/2 dil2", 1, 4, 8, 4, 17, 19, 3, 3, 3, 3, 3, 2, 2, 2, CUDNN_CROSS_CORRELATION),
        S2("dw pad beyond filter", 2, 3, 6, 3, 7, 6, 2, 2, 3, 3, 1, 2, 1, 1, CUDNN_CONVOLUTION),
        S2("dw long rows", 1, 3, 3, 3, 5, 150, 3, 5, 1, 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw 7x7 x3", 2, 4, 12, 4, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("dw 1x1 image 5x5", 3, 3, 3, 3, 1, 1, 5, 5, 2, 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw C=1 K=5", 2, 1, 5, 1, 10, 11, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw 1-D", 2, 4, 4, 4, 1, 37, 1, 7, 0, 3, 1, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        {"dw 3-D", 3, 2, 3, 6, 3, {5, 7, 6}, {3, 3, 2}, {1, 1, 1}, {2, 1, 2}, {1, 2, 1}, CUDNN_CONVOLUTION},
        S2("dw large", 3, 64, 64, 64, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw large s2 N=1", 1, 96, 96, 96, 60, 58, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CONVOLUTION),
        /* The channel-blocked path (conv_depthwise_cb.h: NHWC, small NCHW
         * planes): a last block of 5 channels (under AVX2's 8), of 8, a
         * 5x5 dilated stride-3/2 filter (25 taps: several gradient
         * passes), and several groups of blocks per image. */
        S2("dw cb 37ch tail 5", 2, 37, 37, 37, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("dw cb 40ch s2", 1, 40, 40, 40, 14, 13, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw cb 5x5 s3/2 dil2/1", 2, 20, 20, 20, 16, 17, 5, 5, 2, 3, 3, 2, 2, 1, CUDNN_CROSS_CORRELATION),
        S2("dw cb 100ch 28x28", 1, 100, 100, 100, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        /* One image of up to 28x28 outputs takes the blocked path with
         * AVX-512's in-register plane transposes: planes not a multiple of
         * 16 positions, channel tails of 5 and 3, strides, padding,
         * CONVOLUTION mode, exactly 28x28 outputs (784, the limit) and
         * one position over it (the plane path). */
        S2("dw cb N=1 21ch 27x25", 1, 21, 21, 21, 27, 25, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("dw cb N=1 35ch s2 45x41", 1, 35, 35, 35, 45, 41, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw cb N=1 19ch s2 56x56", 1, 19, 19, 19, 56, 56, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw cb N=1 17ch 785 out", 1, 17, 17, 17, 5, 157, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw cb N=1 33ch pad 2 s2/1", 1, 33, 33, 33, 19, 26, 3, 3, 2, 2, 2, 1, 1, 1, CUDNN_CONVOLUTION),
        /* ... and forward and backward data of several images with input
         * and output planes of up to 14x14 (196 positions: exactly, and a
         * 14x15 input over it). */
        S2("dw cb N=3 24ch 14x13", 3, 24, 24, 24, 14, 13, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("dw cb N=2 50ch 14x14", 2, 50, 50, 50, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw cb N=2 18ch 14x15 s2", 2, 18, 18, 18, 14, 15, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        /* NHWC with power-of-two channels (conv_depthwise_cb.c, l1_sets):
         * 256 and 512 in place (dilation 2 with padding 2), 1024 (one L1
         * set) through the copies: backward filter by strips of rows,
         * forward and backward data from a gathered copy. */
        S2("dw cb 256ch 21x19 strips", 2, 256, 256, 256, 21, 19, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("dw cb 512ch dil2 strips", 1, 512, 512, 512, 12, 10, 3, 3, 2, 2, 1, 1, 2, 2, CUDNN_CROSS_CORRELATION),
        S2("dw cb 1024ch 7x7", 1, 1024, 1024, 1024, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        /* NHWC backward filter by images (conv_depthwise_cb.c,
         * grad_schedules: images of over 32 KB per block): 9 images, one
         * task each, a channel tail of 5, stride 2; 2 images in 4 bands
         * of 6 rows, several strips per band (rows of 80 KB), a tail of 4;
         * 3 images in 3 bands each, with dilation 2. */
        S2("dw cb 9 images 37ch s2", 9, 37, 37, 37, 50, 47, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw cb N=2 100ch 4 bands", 2, 100, 100, 100, 24, 200, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("dw cb N=3 bands dil2", 3, 20, 20, 20, 45, 41, 3, 3, 2, 2, 1, 1, 2, 2, CUDNN_CROSS_CORRELATION),
        /* The generic tile's border columns over 8, 4, 2 and 1 blocks
         * (8 full blocks and an 8-channel last one; dwconv_cb_simd.inc,
         * cb_rest) and its epilogue with and without alpha / beta / bias;
         * stride 2 with dilation 2 on 2 blocks and a 2-channel tail. */
        S2("dw cb border tiles 136ch", 1, 136, 136, 136, 12, 20, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("dw cb s2 dil2 34ch", 2, 34, 34, 34, 25, 45, 3, 3, 2, 2, 2, 2, 2, 2, CUDNN_CROSS_CORRELATION),
        /* The flat planes (conv_depthwise_flat.h: stride 1, output plane
         * of the input's size, at least 784 positions, AVX-512): widths
         * not a multiple of 16 (rows wrapping inside a vector), a plane
         * ending mid-vector, 17 channels; interior 3x3 vectors and the
         * masked border ones in CONVOLUTION mode; dilation 2 with padding 2
         * (3x3 taps, no interior fast path), a 5x5 filter (25 taps: three
         * gradient passes), a 2x2 dilated filter with padding 1, 3 images,
         * and a 1-wide plane (every vector wraps). */
        S2("dw flat 17ch 29x31", 1, 17, 17, 17, 29, 31, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("dw flat N=3 5ch 28x30 dil2", 3, 5, 5, 5, 28, 30, 3, 3, 2, 2, 1, 1, 2, 2, CUDNN_CROSS_CORRELATION),
        S2("dw flat 3ch 5x5 33x27", 2, 3, 3, 3, 33, 27, 5, 5, 2, 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw flat 4ch 2x2 dil2 40x21", 1, 4, 4, 4, 40, 21, 2, 2, 1, 1, 1, 1, 2, 2, CUDNN_CONVOLUTION),
        S2("dw flat 6ch 800x1", 2, 6, 6, 6, 800, 1, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    };
    test_depthwise_flat_inf(h);
    for (size_t i = 0; i < sizeof(depthwise) / sizeof(depthwise[0]); i++) {
        test_shape(h, &depthwise[i], L_NCHW, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, true);
        test_shape(h, &depthwise[i], L_NHWC, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, true);
        test_shape(h, &depthwise[i], L_STRIDED, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, false);
        test_shape(h, &depthwise[i], L_NCHW, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, false);
    }
}

/* The flat depthwise planes' backward filter (conv_depthwise_flat.h) reads
 * rows wrapped around inside a vector; a wrapped element must never reach a
 * sum: with an Inf at the end of one row of x, the taps of filter column 0
 * (which read x one column to the left, never the last column) stay
 * finite and the others do not, at every ISA level. */
static void
test_depthwise_flat_inf(cudnnHandle_t h)
{
    shape_t s = S2("dw flat inf", 1, 2, 2, 2, 30, 30, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION);
    descs_t d;
    operand_t x, w, y;
    int yd[4];
    problem_2d(s, L_NCHW, &d, &x, &w, &y, yd);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 5);
    fill(&x, 4, &rng, false);
    fill(&y, 4, &rng, false);
    for (int c = 0; c < 2; c++)
        ((float *)x.buf)[c * x.st[1] + 5 * x.st[2] + 29 * x.st[3]] = INFINITY;
    for (int isa = 0; isa < isa_count; isa++) {
        CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isa)));
        poison(&w, 4);
        CHECK_OK(run(h, 2, &d, 0, &x, &w, &y, NULL, 0, 1, 0, 4));
        const float *dw = w.buf;
        for (int c = 0; c < 2; c++)
            for (int q = 0; q < 9; q++) {
                bool finite = isfinite(dw[c * 9 + q]);
                CHECK_MSG(finite == (q % 3 == 0), "dw flat inf isa %s: channel %d tap %d is %g",
                          fdnn_test_isa_name(isa), c, q, (double)dw[c * 9 + q]);
            }
    }
    CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isa_count - 1)));
    problem_2d_free(&d, &x, &w, &y);
}

static void
section_depthwise_4k(cudnnHandle_t h)
{
    /* Channels innermost, positions 4 KB apart (L_NHWC_4K): the gathered
     * forward / backward data and the strips with channel tails (37: a
     * last block of 5, under AVX2's 8; 20: of 4), stride 2, dilation 2,
     * several strips (61 rows), nothing written between the elements. */
    static const shape_t dw4k[] = {
        S2("dw cb 4k 37ch dil2", 2, 37, 37, 37, 12, 10, 3, 3, 2, 2, 1, 1, 2, 2, CUDNN_CONVOLUTION),
        S2("dw cb 4k 48ch s2", 1, 48, 48, 48, 15, 14, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("dw cb 4k 20ch 61 rows", 1, 20, 20, 20, 61, 17, 3, 3, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
    };
    for (size_t i = 0; i < sizeof(dw4k) / sizeof(dw4k[0]); i++)
        test_shape(h, &dw4k[i], L_NHWC_4K, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, true);
}

static void
section_fft(cudnnHandle_t h)
{
    /* Shapes for the FFT solvers: several tiles per dimension, a strided
     * tiled forward, 17..32 filters (64-point tiles), a long 1-D filter, 1-D
     * problems (backward-filter FFT_TILING) and 3-D tiles. */
    static const shape_t fft[] = {
        S2("fft tiles", 2, 3, 4, 1, 40, 37, 5, 3, 2, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("fft tiled s2", 2, 3, 2, 1, 45, 44, 3, 3, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("fft 17x3 filter", 1, 2, 2, 1, 70, 20, 17, 3, 0, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("fft 1x40 filter", 1, 2, 3, 1, 3, 300, 1, 40, 0, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        S2("fft 1-D W", 2, 3, 4, 1, 1, 40, 1, 5, 0, 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION),
        S2("fft 1-D H grouped", 2, 4, 6, 2, 37, 1, 4, 1, 3, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION),
        {"fft 3-D", 3, 2, 3, 4, 1, {6, 7, 5}, {3, 3, 2}, {1, 1, 0}, {1, 1, 1}, {1, 1, 1}, CUDNN_CONVOLUTION},
        {"fft 3-D tiles", 3, 1, 2, 2, 1, {34, 4, 5}, {3, 1, 2}, {1, 0, 1}, {1, 1, 1}, {1, 1, 1},
         CUDNN_CROSS_CORRELATION},
    };
    for (size_t i = 0; i < sizeof(fft) / sizeof(fft[0]); i++) {
        test_shape(h, &fft[i], L_NCHW, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, true);
        test_shape(h, &fft[i], L_STRIDED, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, false);
        test_shape(h, &fft[i], L_NCHW, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, false);
    }
}

static void
section_random_fft(cudnnHandle_t h)
{
    /* Random shapes (fixed seed) around the FFT solvers' edges: odd and
     * even lengths, tile boundaries, padding up to the filter size - 1,
     * stride 2 (tiled forward), groups, 1-D and 3-D problems. */
    fdnn_rng_t srng;
    fdnn_rng_seed(&srng, 2024);
    for (int i = 0; i < 40; i++) {
        shape_t r;
        memset(&r, 0, sizeof(r));
        r.name = "random fft";
        r.nsp = fdnn_rng_int(&srng, 0, 5) == 0 ? 3 : 2;
        r.g = fdnn_rng_int(&srng, 1, 2);
        r.n = fdnn_rng_int(&srng, 1, 3);
        r.c = r.g * fdnn_rng_int(&srng, 1, 3);
        r.k = r.g * fdnn_rng_int(&srng, 1, 3);
        r.mode = fdnn_rng_int(&srng, 0, 1) ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
        for (int d = 0; d < 3; d++) {
            bool used = d > 0 || r.nsp == 3;
            int maxin = r.nsp == 3 ? 12 : 45;
            r.in[d] = used ? fdnn_rng_int(&srng, 1, maxin) : 1;
            r.ker[d] = used ? fdnn_rng_int(&srng, 1, r.in[d] < 9 ? r.in[d] : 9) : 1;
            r.pad[d] = used ? fdnn_rng_int(&srng, 0, r.ker[d] - 1) : 0;
            r.str[d] = used && fdnn_rng_int(&srng, 0, 3) == 0 ? 2 : 1;
            r.dil[d] = 1;
        }
        test_shape(h, &r, L_NCHW, CUDNN_TENSOR_NCHW, fdnn_rng_int(&srng, 0, 1) ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT,
                   false);
    }
}

static void
section_random_direct(cudnnHandle_t h)
{
    fdnn_rng_t srng;
    /* Random shapes (fixed seed) for the blocked direct paths and the rows
     * path of backward filter: strides 1-3 (the phases of strided backward
     * data, some with no tap), dilation 1-2, padding up to the filter,
     * groups, small images, every layout, channel counts around the
     * 16-channel blocks. */
    fdnn_rng_seed(&srng, 2025);
    for (int i = 0; i < 20; i++) {
        shape_t r;
        memset(&r, 0, sizeof(r));
        r.name = "random direct";
        r.nsp = fdnn_rng_int(&srng, 0, 6) == 0 ? 3 : 2;
        r.g = fdnn_rng_int(&srng, 1, 3);
        r.n = fdnn_rng_int(&srng, 1, 4);
        r.c = r.g * fdnn_rng_int(&srng, 1, 20);
        r.k = r.g * fdnn_rng_int(&srng, 1, 20);
        r.mode = fdnn_rng_int(&srng, 0, 1) ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
        for (int d = 0; d < 3; d++) {
            bool used = d > 0 || r.nsp == 3;
            r.in[d] = used ? fdnn_rng_int(&srng, 1, r.nsp == 3 ? 7 : 16) : 1;
            r.ker[d] = used ? fdnn_rng_int(&srng, 1, 5) : 1;
            r.dil[d] = used ? fdnn_rng_int(&srng, 1, 2) : 1;
            r.pad[d] = used ? fdnn_rng_int(&srng, 0, r.ker[d]) : 0;
            r.str[d] = used ? fdnn_rng_int(&srng, 1, 3) : 1;
            int span = (r.ker[d] - 1) * r.dil[d] + 1;
            if (r.in[d] + 2 * r.pad[d] < span)
                r.pad[d] = (span - r.in[d] + 1) / 2;
        }
        layout_t l = (layout_t)fdnn_rng_int(&srng, 0, 2);
        test_shape(h, &r, l, l == L_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i % 7 == 0);
    }
}

static void
section_random_depthwise(cudnnHandle_t h)
{
    fdnn_rng_t srng;
    /* Random depthwise shapes (fixed seed): strides 1-3, dilation 1-3,
     * padding up to the dilated filter, multipliers 1-3, 1-D to 3-D. */
    fdnn_rng_seed(&srng, 2026);
    for (int i = 0; i < 24; i++) {
        shape_t r;
        memset(&r, 0, sizeof(r));
        r.name = "random depthwise";
        r.nsp = fdnn_rng_int(&srng, 0, 5) == 0 ? 3 : 2;
        r.g = fdnn_rng_int(&srng, 1, 9);
        r.n = fdnn_rng_int(&srng, 1, 3);
        r.c = r.g;
        r.k = r.g * fdnn_rng_int(&srng, 1, 3);
        r.mode = fdnn_rng_int(&srng, 0, 1) ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
        for (int d = 0; d < 3; d++) {
            bool used = d > 0 || r.nsp == 3;
            r.in[d] = used ? fdnn_rng_int(&srng, 1, r.nsp == 3 ? 8 : 40) : 1;
            r.ker[d] = used ? fdnn_rng_int(&srng, 1, 5) : 1;
            r.dil[d] = used ? fdnn_rng_int(&srng, 1, 3) : 1;
            int span = (r.ker[d] - 1) * r.dil[d] + 1;
            r.pad[d] = used ? fdnn_rng_int(&srng, 0, span) : 0;
            r.str[d] = used ? fdnn_rng_int(&srng, 1, 3) : 1;
            if (r.in[d] + 2 * r.pad[d] < span)
                r.pad[d] = (span - r.in[d] + 1) / 2;
        }
        layout_t l = (layout_t)fdnn_rng_int(&srng, 0, 2);
        test_shape(h, &r, l, l == L_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i % 4 == 0);
    }
}

static void
section_api(cudnnHandle_t h)
{
    test_fft_applicability(h);
    test_fft_api(h);
    test_fft_bias_activation(h);
    test_bias(h);
}

static void
section_determinism(cudnnHandle_t h)
{
    /* 9 images: image chunks in parallel; 1 image: parallel inside a chunk. */
    test_thread_determinism(h, (shape_t)S2("determinism", 9, 16, 24, 1, 17, 13, 3, 3, 1, 1, 1, 1, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    test_thread_determinism(h, (shape_t)S2("determinism N=1", 1, 16, 24, 1, 40, 37, 3, 3, 1, 1, 1, 1, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    /* 1x1 with more output than input channels: backward filter with dy's
     * rows in place (task_ctx_t.dy_rows), image chunks in parallel (9
     * images) or the tiles of one image (N=1). */
    test_thread_determinism(h, (shape_t)S2("determinism 1x1 dy rows", 9, 32, 96, 1, 17, 16, 1, 1, 0, 0, 1, 1, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    test_thread_determinism(h, (shape_t)S2("determinism 1x1 dy rows N=1", 1, 64, 160, 1, 20, 20, 1, 1, 0, 0, 1, 1, 1,
                                           1, CUDNN_CROSS_CORRELATION));
    /* Backward filter's rows path (images under 256 positions) with row
     * blocks of equal tiles: CRS = 420, 30 row tiles of 14, 3 blocks of
     * ROWS_TILES made 4. */
    test_thread_determinism(h, (shape_t)S2("determinism rows path 1x1", 4, 420, 40, 1, 12, 12, 1, 1, 0, 0, 1, 1, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    /* The rows path with the roles exchanged (Kg > CRS): Kg = 700, 50 row
     * tiles of 14 in 6 blocks claimed by the threads; dy in place (NCHW)
     * or copied (NHWC); stride 2 packs col^T from im2col rows. */
    test_thread_determinism(h, (shape_t)S2("determinism rows dy 1x1", 5, 100, 700, 1, 12, 12, 1, 1, 0, 0, 1, 1, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    test_thread_determinism_layout(h, (shape_t)S2("determinism rows dy 1x1 NHWC", 5, 100, 700, 1, 12, 12, 1, 1, 0, 0,
                                                  1, 1, 1, 1, CUDNN_CROSS_CORRELATION), L_NHWC);
    test_thread_determinism(h, (shape_t)S2("determinism rows dy 1x1 s2", 6, 64, 300, 1, 25, 25, 1, 1, 0, 0, 2, 2, 1,
                                           1, CUDNN_CROSS_CORRELATION));
    /* Row blocks of 24 tiles (in-place readers, see "large rows dy 1x1
     * blocks of 24"): 4 blocks over 1, 2 and 3 threads. */
    test_thread_determinism(h, (shape_t)S2("determinism rows dy 1x1 blocks of 24", 7, 24, 1340, 1, 7, 7, 1, 1, 0, 0,
                                           1, 1, 1, 1, CUDNN_CROSS_CORRELATION));
    /* Depthwise flat planes (conv_depthwise_flat.h): backward data's 80
     * planes in tasks of 9, backward filter's 40 channels in tasks of 4. */
    test_thread_determinism(h, (shape_t)S2("determinism dw flat", 2, 40, 40, 40, 30, 29, 3, 3, 1, 1, 1, 1, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    /* Backward filter's wide path (272 positions) with its image chunks in
     * parallel (3 chunks, 2 and 3 threads): the chunks' partial filters
     * (40 x 216 = 8640 elements) are summed in 3 blocks of SUM_PARTIALS_EL,
     * the last partial, each by any thread. */
    test_thread_determinism(h, (shape_t)S2("determinism wide partial sums", 3, 24, 40, 1, 17, 16, 3, 3, 1, 1, 1, 1,
                                           1, 1, CUDNN_CROSS_CORRELATION));
    /* Strided: the direct backward data's image chunks run in parallel
     * (9 images) or one image with every step parallel (N=1). */
    test_thread_determinism(h, (shape_t)S2("determinism s2", 9, 16, 24, 1, 17, 13, 3, 3, 1, 1, 2, 2, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    test_thread_determinism(h, (shape_t)S2("determinism s2 N=1", 1, 16, 24, 1, 40, 37, 3, 3, 1, 1, 2, 2, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    /* Depthwise: planes in parallel chunks (forward, backward data),
     * output channels in parallel (backward filter). */
    test_thread_determinism(h, (shape_t)S2("determinism depthwise", 9, 32, 32, 32, 33, 29, 3, 3, 1, 1, 1, 1, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    test_thread_determinism(h, (shape_t)S2("determinism depthwise s2 N=1", 1, 64, 128, 64, 80, 75, 3, 3, 1, 1, 2, 2,
                                           1, 1, CUDNN_CONVOLUTION));
    /* The channel-blocked path: NHWC in place (rows in parallel; blocks
     * for backward filter) and small NCHW planes (groups of blocks). */
    test_thread_determinism_layout(h, (shape_t)S2("determinism dw NHWC", 3, 48, 48, 48, 20, 19, 3, 3, 1, 1, 1, 1, 1, 1,
                                                  CUDNN_CROSS_CORRELATION), L_NHWC);
    test_thread_determinism_layout(h, (shape_t)S2("determinism dw NHWC s2 N=1", 1, 80, 80, 80, 30, 29, 3, 3, 1, 1, 2, 2,
                                                  1, 1, CUDNN_CROSS_CORRELATION), L_NHWC);
    /* 1024 channels: strips of 5 output rows at one thread, 12 at two. */
    test_thread_determinism_layout(h, (shape_t)S2("determinism dw NHWC 1024ch strips", 1, 1024, 1024, 1024, 21, 9, 3, 3,
                                                  1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION), L_NHWC);
    test_thread_determinism_layout(h, (shape_t)S2("determinism dw NHWC 1024ch gather", 2, 1024, 1024, 1024, 7, 7, 3, 3,
                                                  1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION), L_NHWC);
    /* NHWC backward filter by images: whole images (9) and bands of one
     * image (3 images, 3 bands each), partial sums added in task order. */
    test_thread_determinism_layout(h, (shape_t)S2("determinism dw NHWC 9 images", 9, 40, 40, 40, 50, 46, 3, 3, 1, 1, 2,
                                                  2, 1, 1, CUDNN_CROSS_CORRELATION), L_NHWC);
    test_thread_determinism_layout(h, (shape_t)S2("determinism dw NHWC bands", 3, 21, 21, 21, 48, 45, 3, 3, 1, 1, 1, 1,
                                                  1, 1, CUDNN_CONVOLUTION), L_NHWC);
    test_thread_determinism(h, (shape_t)S2("determinism dw 7x7", 2, 300, 300, 300, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1,
                                           CUDNN_CROSS_CORRELATION));
    test_thread_determinism(h, (shape_t)S2("determinism dw N=1 27x26", 1, 150, 150, 150, 27, 26, 3, 3, 1, 1, 1, 1, 1,
                                           1, CUDNN_CROSS_CORRELATION));
    test_thread_determinism(h, (shape_t)S2("determinism dw N=5 13x14", 5, 70, 70, 70, 13, 14, 3, 3, 1, 1, 1, 1, 1, 1,
                                           CUDNN_CONVOLUTION));
    /* Few input channels (conv_wgrad_small.h): slabs of one image in any
     * lane order (5 images), bands of one image (N = 1). */
    test_thread_determinism_layout(h, (shape_t)S2("determinism small-C NHWC s2", 5, 3, 32, 1, 41, 40, 3, 3, 1, 1, 2, 2,
                                                  1, 1, CUDNN_CROSS_CORRELATION), L_NHWC);
    test_thread_determinism_layout(h, (shape_t)S2("determinism small-C 7x7 N=1", 1, 3, 24, 1, 50, 48, 7, 7, 3, 3, 2, 2,
                                                  1, 1, CUDNN_CROSS_CORRELATION), L_NHWC);
}

static void
section_limits(cudnnHandle_t h)
{
    test_wgrad_small_applicability();
    test_winograd_limits(h);
    test_winograd_split(h);
    test_winograd_bias_activation(h);
    test_winograd_heuristic(h);
    test_direct_bwd_data_path();
    test_far_padding_scratch();
}

/* The sections of this test, each in one of FDNN_TEST_CONV_PARTS parts:
 * ctest runs the parts as separate entries (test_conv_1 ... test_conv_4,
 * tests/CMakeLists.txt) so that they share the CI's cores, balanced by their
 * time under ASan (each section prints it: 230-290 s for parts 1-3, 180 s
 * for part 4 on the 2-core host); `test_conv` with no argument runs every
 * section. */
#define FDNN_TEST_CONV_PARTS 4
static const struct {
    const char *name;
    int part;
    void (*run)(cudnnHandle_t h);
} sections[] = {
    {"layouts", 1, section_layouts},
    {"large", 2, section_large},
    {"small_c", 4, section_small_c},
    {"depthwise", 3, section_depthwise},
    {"depthwise_4k", 3, section_depthwise_4k},
    {"fft", 4, section_fft},
    {"random_fft", 4, section_random_fft},
    {"random_direct", 3, section_random_direct},
    {"random_depthwise", 3, section_random_depthwise},
    {"api", 4, section_api},
    {"determinism", 4, section_determinism},
    {"limits", 4, section_limits},
};

static double
seconds_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
    int part = 0; /* every part */
    if (argc > 2 || (argc == 2 && (sscanf(argv[1], "%d", &part) != 1 || part < 1 || part > FDNN_TEST_CONV_PARTS))) {
        fprintf(stderr, "usage: test_conv [PART]  (PART 1-%d; none: every part)\n", FDNN_TEST_CONV_PARTS);
        return 2;
    }
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    isa_count = fdnn_test_isa_count();
    for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
        if (part && sections[i].part != part)
            continue;
        double t0 = seconds_now();
        sections[i].run(h);
        printf("test_conv: section %s (part %d) %.1f s\n", sections[i].name, sections[i].part, seconds_now() - t0);
    }
    CHECK_OK(cudnnDestroy(h));
    return fdnn_test_finish("test_conv");
}
