/* SPDX-License-Identifier: Apache-2.0
 * The blocked direct convolution kernels (src/cpu/kernels/conv_direct.h) of
 * every ISA level the machine has (on AArch64: the portable and the NEON
 * kernel; on x86: portable, AVX2, AVX-512), each taken from the level's
 * configuration (src/cpu/config), on their own and through the API:
 *
 * - the microkernel on every (pixels, rows, blocks) tile up to the level's
 *   limits, channel blocks of 16, 3 and 7 channels (the three input pixel
 *   strides the kernels specialise, 16, 32 and 6 floats, and others),
 *   strides 1-3, dilation, 3-D taps, partial stores (fewer pixels and
 *   channels than the tile) along channels and along pixels: against the
 *   float64 sum of the contract within the rounding bound of its length,
 *   against the portable kernel within twice that, and bit for bit against
 *   the same level computing each pixel and block alone (an output's bits
 *   do not depend on the tile, which is what makes results independent of
 *   the thread count); operands end at guard pages and elements the call
 *   must not write stay poisoned;
 * - the 16-channel pack, bit for bit;
 * - the DIRECT forward, backward data (ALGO_0) and backward filter
 *   (ALGO_0) solvers on ResNet and VGG layer shapes (channels and filters
 *   as in the networks, images cut to a few rows so QEMU runs them in
 *   seconds) and odd ones, NCHW and NHWC: against the float64 reference
 *   (src/ref/conv_ref.h) within the rounding bound, against the portable
 *   level within twice it, and at the other levels 1, 2 and 3 threads bit
 *   for bit and beta = 0.5 (the tiles the solver blends itself). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/conv.h"
#include "core/cpu.h"
#include "cpu/config/config.h"
#include "cpu/kernels/conv_direct.h"
#include "freednn.h"
#include "ref/conv_ref.h"
#include "testutil.h"

#define KB FDNN_CONV_DIRECT_KB

static fdnn_rng_t rng;

/* Rounding bound of a float sum of n products whose absolute values sum to
 * `mag` (multiply-add or FMA chains: gamma_n, with a margin). */
static double
bound(double n, double mag)
{
    return 1.01 * (n + 2) * 0x1p-24 * mag;
}

static float *
random_floats(size_t n)
{
    float *p = fdnn_guarded_alloc((n > 0 ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++)
        p[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    return p;
}

/* ---- the microkernel ---------------------------------------------------- */

typedef struct kcase {
    size_t cin, cblocks, kd, kh, kw, sw, dw, sh, dh;
    size_t rows, pixels, nkb, y_pixels, y_channels;
    int kmajor;
} kcase_t;

/* Element (r, u, k) of the tile in y (the kernel's store formula). */
static size_t
y_index(const fdnn_f32_conv_direct_args_t *a, size_t r, size_t u, size_t k)
{
    return r * a->y_row + u * a->y_px + k * a->y_k;
}

static void
check_ukernel(const fdnn_isa_config_t *cfg, const kcase_t *c)
{
    const char *isa = fdnn_isa_name(cfg->isa);
    fdnn_f32_conv_direct_args_t a;
    memset(&a, 0, sizeof(a));
    size_t wpx = (c->pixels - 1) * c->sw + (c->kw - 1) * c->dw + 1;
    size_t hpx = (c->rows - 1) * c->sh + (c->kh - 1) * c->dh + 1;
    a.pixels = c->pixels;
    a.rows = c->rows;
    a.nkb = c->nkb;
    a.cblocks = c->cblocks;
    a.kd = c->kd;
    a.kh = c->kh;
    a.kw = c->kw;
    a.cin = c->cin;
    a.in_px = c->sw * c->cin;
    a.in_w = c->dw * c->cin;
    a.in_h = c->dh * wpx * c->cin;
    a.in_row = c->sh * wpx * c->cin;
    a.in_d = hpx * wpx * c->cin;
    a.in_cb = c->kd * a.in_d;
    size_t taps = c->cblocks * c->kd * c->kh * c->kw * c->cin;
    a.w_kb = taps * KB + (size_t)fdnn_rng_int(&rng, 0, 1) * KB; /* sometimes a gap between blocks */
    size_t in_n = c->cblocks * a.in_cb, w_n = c->nkb * a.w_kb;
    float *in = random_floats(in_n), *w = random_floats(w_n);
    a.in = in;
    a.w = w;
    a.kmajor = c->kmajor;
    a.y_pixels = c->y_pixels;
    a.y_channels = c->y_channels;
    size_t gap = (size_t)fdnn_rng_int(&rng, 0, 3);
    if (c->kmajor) { /* rows interleaved per channel, as the driver's tile */
        a.y_px = 1;
        a.y_row = c->pixels + gap;
        a.y_k = c->rows * a.y_row;
    } else {
        a.y_k = 1;
        a.y_px = c->nkb * KB + gap;
        a.y_row = c->pixels * a.y_px + gap;
    }
    size_t y_n = y_index(&a, c->rows - 1, c->pixels - 1, c->nkb * KB - 1) + 1;
    float *y = fdnn_guarded_alloc(y_n * sizeof(float));
    fdnn_poison_f32(y, y_n);
    a.y = y;
    cfg->conv_direct.ukernel(&a);

    /* Every pixel and block alone, at this level and at the portable one. */
    const fdnn_isa_config_t *portable = fdnn_isa_config(FDNN_ISA_SCALAR);
    float *one = fdnn_guarded_alloc(KB * sizeof(float)), *ref1 = fdnn_guarded_alloc(KB * sizeof(float));
    char *named = calloc(y_n, 1);
    size_t bad_ref = 0, bad_port = 0, bad_bits = 0, bad_gap = 0;
    double worst = 0;
    for (size_t r = 0; r < c->rows; r++)
        for (size_t u = 0; u < c->y_pixels; u++)
            for (size_t b = 0; b < c->nkb; b++) {
                fdnn_f32_conv_direct_args_t s = a;
                s.in = in + r * a.in_row + u * a.in_px;
                s.w = w + b * a.w_kb;
                s.pixels = s.rows = s.nkb = s.y_pixels = 1;
                s.y_channels = KB;
                s.kmajor = 0;
                s.y_k = 1;
                s.y_px = s.y_row = KB;
                s.y = one;
                cfg->conv_direct.ukernel(&s);
                s.y = ref1;
                portable->conv_direct.ukernel(&s);
                for (size_t kk = 0; kk < KB && b * KB + kk < c->y_channels; kk++) {
                    size_t k = b * KB + kk;
                    double sum = 0, mag = 0;
                    for (size_t cb = 0; cb < c->cblocks; cb++)
                        for (size_t qd = 0; qd < c->kd; qd++)
                            for (size_t qh = 0; qh < c->kh; qh++)
                                for (size_t qw = 0; qw < c->kw; qw++)
                                    for (size_t ci = 0; ci < c->cin; ci++) {
                                        double xv = in[cb * a.in_cb + qd * a.in_d + qh * a.in_h + qw * a.in_w +
                                                       r * a.in_row + u * a.in_px + ci];
                                        double wv = w[b * a.w_kb + (((cb * c->kd + qd) * c->kh + qh) * c->kw + qw) *
                                                                       c->cin * KB +
                                                      ci * KB + kk];
                                        sum += xv * wv;
                                        mag += fabs(xv * wv);
                                    }
                    size_t at = y_index(&a, r, u, k);
                    named[at] = 1;
                    double got = y[at], tol = bound((double)taps, mag);
                    if (!(fabs(got - sum) <= tol)) {
                        if (bad_ref == 0)
                            worst = got - sum;
                        bad_ref++;
                    }
                    bad_port += !(fabs(got - (double)ref1[kk]) <= 2 * tol);
                    bad_bits += memcmp(&y[at], &one[kk], sizeof(float)) != 0;
                }
            }
    float nan = NAN;
    for (size_t i = 0; i < y_n; i++)
        bad_gap += !named[i] && memcmp(&y[i], &nan, sizeof(float)) != 0;
    CHECK_MSG(bad_ref + bad_port + bad_bits + bad_gap == 0,
              "%s ukernel cin %zu cb %zu taps %zux%zux%zu s %zu/%zu d %zu/%zu tile %zux%zu nkb %zu store %zu px "
              "%zu ch %s: %zu off the reference (first %g), %zu off the portable kernel, %zu differ from "
              "pixel-alone bits, %zu written outside",
              isa, c->cin, c->cblocks, c->kd, c->kh, c->kw, c->sh, c->sw, c->dh, c->dw, c->rows, c->pixels, c->nkb,
              c->y_pixels, c->y_channels, c->kmajor ? "kmajor" : "pixel-major", bad_ref, worst, bad_port, bad_bits,
              bad_gap);
    free(named);
    fdnn_guarded_free(one);
    fdnn_guarded_free(ref1);
    fdnn_guarded_free(y);
    fdnn_guarded_free(in);
    fdnn_guarded_free(w);
}

static void
test_ukernels(fdnn_isa_t isa)
{
    const fdnn_isa_config_t *cfg = fdnn_isa_config(isa);
    size_t max_ur = (size_t)cfg->conv_direct.max_ur, max_nkb = (size_t)cfg->conv_direct.max_nkb;
    /* channel block, pixel stride, dilation: the kernels' specialised
     * pixel strides (16, 32, 6 floats) and generic ones */
    static const size_t chans[][3] = {{16, 1, 1}, {16, 2, 1}, {3, 2, 1}, {16, 1, 2}, {7, 1, 1}, {3, 3, 2}, {16, 3, 1}};
    static const size_t kers[][3] = {{1, 3, 3}, {1, 1, 1}, {2, 2, 3}, {1, 7, 7}, {1, 1, 5}};
    int n = 0;
    for (size_t rows = 1; rows <= 2; rows++)
        for (size_t pixels = 1; pixels * rows <= max_ur; pixels++)
            for (size_t nkb = 1; nkb <= max_nkb; nkb++)
                for (int kmajor = 0; kmajor <= 1; kmajor++)
                    for (int draw = 0; draw < 2; draw++, n++) {
                        kcase_t c;
                        const size_t *ch = chans[(size_t)n % (sizeof(chans) / sizeof(chans[0]))];
                        const size_t *k = kers[(size_t)(n / 3) % (sizeof(kers) / sizeof(kers[0]))];
                        c.cin = ch[0];
                        c.sw = ch[1];
                        c.dw = ch[2];
                        c.kd = k[0];
                        c.kh = k[1];
                        c.kw = k[2];
                        if (c.kh == 7 && c.cin == 16)
                            c.kh = c.kw = 5; /* keep the sums short */
                        c.cblocks = c.cin == 16 && c.kh * c.kw <= 9 ? (size_t)fdnn_rng_int(&rng, 1, 2) : 1;
                        c.sh = (size_t)fdnn_rng_int(&rng, 1, 2);
                        c.dh = (size_t)fdnn_rng_int(&rng, 1, 2);
                        c.rows = rows;
                        c.pixels = pixels;
                        c.nkb = nkb;
                        c.kmajor = kmajor;
                        c.y_pixels = draw ? (size_t)fdnn_rng_int(&rng, 1, (int)pixels) : pixels;
                        c.y_channels = draw ? (size_t)fdnn_rng_int(&rng, 1, (int)(nkb * KB)) : nkb * KB;
                        check_ukernel(cfg, &c);
                    }
}

static void
test_pack16(fdnn_isa_t isa)
{
    const fdnn_isa_config_t *cfg = fdnn_isa_config(isa);
    for (size_t pixels = 1; pixels <= 37; pixels += pixels < 18 ? 1 : 19) {
        size_t src_c = pixels + (size_t)fdnn_rng_int(&rng, 0, 5);
        float *src = random_floats((KB - 1) * src_c + pixels), *dst = fdnn_guarded_alloc(pixels * KB * sizeof(float));
        fdnn_poison_f32(dst, pixels * KB);
        cfg->conv_direct.pack16(pixels, src, src_c, dst);
        size_t bad = 0;
        for (size_t j = 0; j < pixels; j++)
            for (size_t c = 0; c < KB; c++)
                bad += memcmp(&dst[j * KB + c], &src[c * src_c + j], sizeof(float)) != 0;
        CHECK_MSG(bad == 0, "%s pack16 pixels %zu: %zu wrong", fdnn_isa_name(isa), pixels, bad);
        fdnn_guarded_free(src);
        fdnn_guarded_free(dst);
    }
}

/* ---- the solvers through the API ---------------------------------------- */

typedef struct shape {
    const char *name;
    int n, c, k, g;
    int in[3], ker[3], pad[3], str[3], dil[3]; /* D, H, W; D = 1: 2-D */
    cudnnConvolutionMode_t mode;
    int dirs; /* bit d: run direction d (0 fwd, 1 bwd data, 2 bwd filter) */
} shape_t;

#define S2(name, n, c, k, h, w, kh, kw, ph, pw, sh, sw, dirs)                                                 \
    {                                                                                                        \
        name, n, c, k, 1, {1, h, w}, {1, kh, kw}, {0, ph, pw}, {1, sh, sw}, {1, 1, 1},                        \
            CUDNN_CROSS_CORRELATION, dirs                                                                    \
    }

static const shape_t shapes[] = {
    /* ResNet-50 (images cut to a few rows; widths kept where short) */
    S2("resnet stem 7x7 s2", 1, 3, 64, 11, 40, 7, 7, 3, 3, 2, 2, 1),
    S2("resnet res2 3x3", 1, 64, 64, 3, 56, 3, 3, 1, 1, 1, 1, 3),
    S2("resnet res3 3x3 s2", 1, 128, 128, 5, 28, 3, 3, 1, 1, 2, 2, 1),
    S2("resnet res4 3x3", 1, 256, 64, 4, 14, 3, 3, 1, 1, 1, 1, 1),
    S2("resnet res5 3x3", 1, 512, 32, 7, 7, 3, 3, 1, 1, 1, 1, 1),
    /* VGG-16 */
    S2("vgg conv1_1", 1, 3, 64, 3, 224, 3, 3, 1, 1, 1, 1, 1),
    S2("vgg conv3_2", 1, 256, 32, 2, 56, 3, 3, 1, 1, 1, 1, 1),
    /* odd: tails, strides, padding, dilation, groups, 3-D, CONVOLUTION */
    {"odd 5x3 s3/2 d2 pad2", 2, 19, 21, 1, {1, 11, 29}, {1, 5, 3}, {0, 2, 2}, {1, 3, 2}, {1, 2, 2},
     CUDNN_CROSS_CORRELATION, 7},
    {"odd groups conv-mode", 2, 36, 34, 2, {1, 9, 13}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1},
     CUDNN_CONVOLUTION, 7},
    {"odd 3-D", 1, 17, 18, 1, {4, 5, 9}, {2, 3, 3}, {1, 1, 1}, {2, 1, 2}, {1, 1, 1}, CUDNN_CROSS_CORRELATION, 7},
    S2("bwd res3 3x3 s2", 2, 32, 48, 9, 14, 3, 3, 1, 1, 2, 2, 6),
    S2("bwd 1x7 rows", 3, 20, 16, 2, 31, 1, 7, 0, 3, 1, 1, 6),
};

static int shape_nb(const shape_t *s) { return s->in[0] > 1 || s->ker[0] > 1 ? 5 : 4; }

/* Strides of a packed (N, C, spatial...) tensor, channels last if nhwc. */
static void
packed_strides(int nb, const int *d, bool nhwc, int *st)
{
    int s = 1;
    if (nhwc) {
        st[1] = s;
        s *= d[1];
        for (int i = nb - 1; i >= 2; i--) {
            st[i] = s;
            s *= d[i];
        }
        st[0] = s;
        return;
    }
    for (int i = nb - 1; i >= 0; i--) {
        st[i] = s;
        s *= d[i];
    }
}

static size_t
count(int nb, const int *d)
{
    size_t c = 1;
    for (int i = 0; i < nb; i++)
        c *= (size_t)d[i];
    return c;
}

/* Buffer offset of the i-th element in packed NCDHW order. */
static size_t
offset(int nb, const int *d, const int *st, size_t i)
{
    size_t off = 0;
    for (int a = nb - 1; a >= 0; a--) {
        off += (i % (size_t)d[a]) * (size_t)st[a];
        i /= (size_t)d[a];
    }
    return off;
}

typedef struct operand {
    int nb, d[5], st[5];
    size_t n;
    float *buf;
    double *ref, *mag; /* the logical elements in NCDHW order, and their |.| */
} operand_t;

static void
operand_init(operand_t *o, int nb, const int *d, bool nhwc)
{
    o->nb = nb;
    memcpy(o->d, d, sizeof(int) * (size_t)nb);
    packed_strides(nb, d, nhwc, o->st);
    o->n = count(nb, d);
    o->buf = fdnn_guarded_alloc(o->n * sizeof(float));
    o->ref = malloc(sizeof(double) * o->n);
    o->mag = malloc(sizeof(double) * o->n);
    for (size_t i = 0; i < o->n; i++) {
        float v = (float)fdnn_rng_uniform(&rng, -1, 1);
        o->buf[offset(nb, d, o->st, i)] = v;
        o->ref[i] = v;
        o->mag[i] = fabs(v);
    }
}

static void
operand_free(operand_t *o)
{
    fdnn_guarded_free(o->buf);
    free(o->ref);
    free(o->mag);
}

static cudnnStatus_t
run(cudnnHandle_t h, int dir, cudnnTensorDescriptor_t xd, cudnnFilterDescriptor_t wd, cudnnTensorDescriptor_t yd,
    cudnnConvolutionDescriptor_t cd, operand_t *x, operand_t *w, operand_t *y, float beta)
{
    float one = 1;
    size_t wsb = 0;
    cudnnStatus_t st;
    if (dir == 0) {
        st = cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, &wsb);
    } else if (dir == 1) {
        st = cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, yd, cd, xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, &wsb);
    } else {
        st = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,
                                                            &wsb);
    }
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    void *ws = fdnn_guarded_alloc(wsb > 0 ? wsb : 1);
    if (dir == 0)
        st = cudnnConvolutionForward(h, &one, xd, x->buf, wd, w->buf, cd, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, ws, wsb,
                                     &beta, yd, y->buf);
    else if (dir == 1)
        st = cudnnConvolutionBackwardData(h, &one, wd, w->buf, yd, y->buf, cd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, ws,
                                          wsb, &beta, xd, x->buf);
    else
        st = cudnnConvolutionBackwardFilter(h, &one, xd, x->buf, yd, y->buf, cd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,
                                            ws, wsb, &beta, wd, w->buf);
    fdnn_guarded_free(ws);
    return st;
}

static void
test_shape(cudnnHandle_t h, const shape_t *s, bool nhwc)
{
    int nb = shape_nb(s), off = 5 - nb;
    int xdim[5] = {s->n, s->c}, wdim[5] = {s->k, s->c / s->g}, ydim[5];
    int pad[3], str[3], dil[3];
    for (int i = 0; i < nb - 2; i++) {
        xdim[2 + i] = s->in[off + i];
        wdim[2 + i] = s->ker[off + i];
        pad[i] = s->pad[off + i];
        str[i] = s->str[off + i];
        dil[i] = s->dil[off + i];
    }
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);
    CHECK_OK(cudnnSetConvolutionNdDescriptor(cd, nb - 2, pad, str, dil, s->mode, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(cd, s->g));
    CHECK_OK(cudnnSetFilterNdDescriptor(wd, CUDNN_DATA_FLOAT, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, nb, wdim));
    operand_t x, w, y;
    operand_init(&x, nb, xdim, nhwc);
    operand_init(&w, nb, wdim, nhwc);
    CHECK_OK(cudnnSetTensorNdDescriptor(xd, CUDNN_DATA_FLOAT, nb, x.d, x.st));
    CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(cd, xd, wd, nb, ydim));
    operand_init(&y, nb, ydim, nhwc);
    CHECK_OK(cudnnSetTensorNdDescriptor(yd, CUDNN_DATA_FLOAT, nb, y.d, y.st));

    fdnn_conv_problem_t p;
    memset(&p, 0, sizeof(p));
    p.n = s->n;
    p.c = s->c;
    p.k = s->k;
    p.g = s->g;
    p.nsp = nb - 2;
    for (int i = 0; i < 3; i++) {
        p.in[i] = s->in[i];
        p.ker[i] = s->ker[i];
        p.pad[i] = s->pad[i];
        p.stride[i] = s->str[i];
        p.dil[i] = s->dil[i];
        p.out[i] = i < off ? 1 : ydim[2 + i - off];
    }
    p.flip = s->mode == CUDNN_CONVOLUTION;
    double taps = (double)count(nb - 2, wdim + 2), outs = (double)count(nb - 2, ydim + 2);

    for (int dir = 0; dir < 3; dir++) {
        if (!(s->dirs >> dir & 1))
            continue;
        operand_t *o = dir == 0 ? &y : dir == 1 ? &x : &w;
        double *want = malloc(sizeof(double) * o->n), *mag = malloc(sizeof(double) * o->n);
        double terms;
        if (dir == 0) {
            fdnn_ref_conv_fwd(&p, x.ref, w.ref, want);
            fdnn_ref_conv_fwd(&p, x.mag, w.mag, mag);
            terms = (double)(s->c / s->g) * taps;
        } else if (dir == 1) {
            fdnn_ref_conv_bwd_data(&p, y.ref, w.ref, want);
            fdnn_ref_conv_bwd_data(&p, y.mag, w.mag, mag);
            terms = (double)(s->k / s->g) * taps;
        } else {
            fdnn_ref_conv_bwd_filter(&p, x.ref, y.ref, want);
            fdnn_ref_conv_bwd_filter(&p, x.mag, y.mag, mag);
            terms = (double)s->n * outs;
        }
        float *first = malloc(sizeof(float) * o->n), *portable = malloc(sizeof(float) * o->n);
        float *prior = malloc(sizeof(float) * o->n);
        for (size_t i = 0; i < o->n; i++)
            prior[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
        for (int level = 0; level <= (int)fdnn_cpu_max_isa(); level++) {
            const char *isa = fdnn_isa_name((fdnn_isa_t)level);
            CHECK_OK(freednnSetIsa(h, isa));
            /* the portable level once (its thread counts are test_conv's) */
            for (int threads = 1; threads <= (level > 0 ? 3 : 1); threads++) {
                CHECK_OK(freednnSetNumThreads(h, threads));
                fdnn_poison_f32(o->buf, o->n);
                cudnnStatus_t st = run(h, dir, xd, wd, yd, cd, &x, &w, &y, 0.0f);
                CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s dir %d %s: %s", s->name, dir, isa, cudnnGetErrorString(st));
                size_t bad = 0, bad_port = 0;
                double worst = 0;
                for (size_t i = 0; i < o->n; i++) {
                    float got = o->buf[offset(nb, o->d, o->st, i)];
                    if (threads > 1) {
                        bad += memcmp(&got, &first[i], sizeof(float)) != 0;
                        continue;
                    }
                    first[i] = got;
                    double tol = bound(terms, mag[i]);
                    if (!(fabs(got - want[i]) <= tol)) {
                        if (bad == 0)
                            worst = got - want[i];
                        bad++;
                    }
                    if (level == 0)
                        portable[i] = got;
                    else
                        bad_port += !(fabs((double)got - portable[i]) <= 2 * tol);
                }
                CHECK_MSG(bad == 0 && bad_port == 0, "%s %s dir %d %s threads %d: %zu of %zu %s (first %g), %zu off the portable level",
                          s->name, nhwc ? "nhwc" : "nchw", dir, isa, threads, bad, o->n,
                          threads > 1 ? "differ from 1 thread" : "off the reference", worst, bad_port);
            }
            /* beta: the tiles the solver blends itself */
            if (level == 0)
                continue;
            for (size_t i = 0; i < o->n; i++)
                o->buf[offset(nb, o->d, o->st, i)] = prior[i];
            CHECK_OK(run(h, dir, xd, wd, yd, cd, &x, &w, &y, 0.5f));
            size_t bad = 0;
            for (size_t i = 0; i < o->n; i++) {
                double got = o->buf[offset(nb, o->d, o->st, i)], ref = want[i] + 0.5 * prior[i];
                bad += !(fabs(got - ref) <= bound(terms + 2, mag[i] + fabs(prior[i])));
            }
            CHECK_MSG(bad == 0, "%s %s dir %d %s beta 0.5: %zu of %zu wrong", s->name, nhwc ? "nhwc" : "nchw", dir,
                      isa, bad, o->n);
        }
        /* the operand's data again, for the next direction */
        for (size_t i = 0; i < o->n; i++)
            o->buf[offset(nb, o->d, o->st, i)] = (float)o->ref[i];
        free(want);
        free(mag);
        free(first);
        free(portable);
        free(prior);
    }
    operand_free(&x);
    operand_free(&w);
    operand_free(&y);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 20);
    for (int level = 0; level <= (int)fdnn_cpu_max_isa(); level++) {
        test_pack16((fdnn_isa_t)level);
        test_ukernels((fdnn_isa_t)level);
    }
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        test_shape(h, &shapes[i], i % 2 == 1);
    CHECK_OK(cudnnDestroy(h));
    return fdnn_test_finish("test_conv_direct_kernels");
}
