/* SPDX-License-Identifier: Apache-2.0
 * Backward-filter WINOGRAD_NONFUSED of 3x3 filters on 4x4 dy tiles
 * (src/cpu/conv/conv_winograd_bwd_filter43.c), through the cuDNN API:
 *
 *   - against the float64 reference (src/ref) on real-valued data: every
 *     dw element within BOUND_EPS * 2^-24 * sum |x * dy| of its sum (the
 *     documented bound; measured worst is printed), on odd sizes, padding
 *     0, 1 and 2, groups, channel counts that are not multiples of 16,
 *     partial tiles, N = 1..5, blocks of tiles across images, NHWC and
 *     strided (gapped) x and dy, NCHW and NHWC filters, CROSS_CORRELATION
 *     and CONVOLUTION, on every ISA level and 1 to 4 threads;
 *   - dw poisoned (NaN) before a beta = 0 call, and blended (alpha 2,
 *     beta -1) over known values; the gaps of x and dy poisoned (a read of
 *     one shows as NaN);
 *   - 1, 2, 3 and 4 threads bitwise identical per ISA level (up to 3: one
 *     task per range of transform rows, 6 / 3 + 3 / 2 + 2 + 2; 4: the
 *     per-block steps over channels and e; shapes of 12+ blocks: tile
 *     chunks, fewer and more chunks than threads), shapes whose tile count
 *     is not a multiple of the block (64) and cin not of 16 among them;
 *   - the workspace the size query reports is enough (a guarded
 *     allocation of exactly that size);
 *   - the _v7 heuristic lists it first where conv_list.c says it wins and
 *     not elsewhere. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/conv.h"
#include "freednn.h"
#include "ref/conv_ref.h"
#include "testutil.h"

/* Error bound in float ulps (2^-24) of sum |x * dy| behind each dw element:
 * the F(4,3) transforms scale the operands by up to ~10 and G^T has
 * fractions; measured at most about 20 on these shapes. */
#define BOUND_EPS 128.0

typedef struct shape {
    const char *name;
    int n, c, k, g, h, w, pad;
    bool nhwc;   /* x and dy channels-last */
    int gap;     /* extra elements after each row (NCHW) or position (NHWC) */
    bool w_nhwc; /* filter KRSC */
    bool conv;   /* CUDNN_CONVOLUTION */
} shape_t;

static const shape_t shapes[] = {
    {"plain", 2, 16, 16, 1, 8, 8, 1, false, 0, false, false},
    {"odd sizes", 3, 5, 7, 1, 9, 7, 1, false, 0, false, false},
    {"pad 0", 2, 17, 3, 1, 11, 10, 0, false, 0, false, false},
    {"pad 2", 1, 6, 9, 1, 6, 13, 2, false, 0, false, true},
    {"groups", 2, 12, 20, 2, 10, 9, 1, false, 0, false, false},
    {"one image, tile tails", 1, 20, 18, 1, 13, 14, 1, false, 0, false, false},
    {"N 4", 4, 3, 4, 1, 5, 5, 1, false, 0, false, true},
    {"N 5 tiny", 5, 2, 2, 1, 3, 4, 1, false, 0, false, false},
    {"NHWC", 3, 19, 10, 1, 9, 11, 1, true, 0, true, false},
    {"NHWC gaps groups", 2, 8, 6, 2, 7, 8, 1, true, 3, false, true},
    {"NCHW gaps", 2, 9, 5, 1, 10, 7, 2, false, 2, true, false},
    /* blocks of 64 tiles spanning images: 3 x 56 tiles (2 x 64 + 40) */
    {"blocks", 3, 24, 40, 1, 30, 27, 1, false, 0, false, false},
    {"blocks NHWC", 2, 33, 17, 1, 26, 29, 1, true, 1, false, false},
    /* G^T S G in runs of 256 input channels (finish_task): 2 x 261 per
     * group, the second run 5 channels in one 16-lane row */
    {"finish runs groups", 1, 522, 6, 2, 5, 6, 1, false, 0, false, true},
    /* tile chunks (run_chunks: blocks cut into 12, 6, 4 or 2 runs, each
     * with its own S, added in chunk order): 19 x 15 x 16 tiles = 72
     * blocks (the last of 16 tiles), 12 chunks of 6; 4 x 16 x 16 tiles
     * = 16 blocks, 2 chunks of 8, groups, NHWC with gaps */
    {"chunks 12", 19, 3, 2, 1, 58, 62, 1, false, 0, false, false},
    {"chunks 2 NHWC groups", 4, 6, 4, 2, 61, 63, 1, true, 1, false, true},
};
#define NSHAPES (int)(sizeof(shapes) / sizeof(shapes[0]))

typedef struct prob {
    const shape_t *s;
    int oh, ow, cg;
    int64_t xst[4], yst[4]; /* N, C, H, W element strides */
    size_t xs, ys, wn;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    double *ref, *mag; /* reference dw and sum |x dy|, packed K C/g R S */
    float *x, *y;
} prob_t;

/* Strides N, C, H, W of an x or dy of c channels; returns the buffer's
 * elements. */
static size_t
strides_of(const shape_t *s, int c, int h, int w, int64_t *st)
{
    if (s->nhwc) {
        st[1] = 1;
        st[3] = c + s->gap;
        st[2] = st[3] * w;
        st[0] = st[2] * h;
    } else {
        st[3] = 1;
        st[2] = w + s->gap;
        st[1] = st[2] * h;
        st[0] = st[1] * c;
    }
    return (size_t)(st[0] * s->n);
}

static void
set_desc(cudnnTensorDescriptor_t d, const shape_t *s, int c, int h, int w, const int64_t *st)
{
    CHECK_OK(cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_FLOAT, s->n, c, h, w, (int)st[0], (int)st[1], (int)st[2],
                                          (int)st[3]));
}

/* Offset of element (n, c, h, w) of a buffer of strides st. */
static size_t
at4(const int64_t *st, int n, int c, int h, int w)
{
    return (size_t)(n * st[0] + c * st[1] + h * st[2] + w * st[3]);
}

/* Offset of dw element (k, c, r, s) (cross-correlation taps) in the user's
 * filter layout. */
static size_t
w_at(const prob_t *pb, int k, int c, int r, int q)
{
    const shape_t *s = pb->s;
    if (s->conv)
        r = 2 - r, q = 2 - q;
    if (s->w_nhwc)
        return (size_t)(((k * 3 + r) * 3 + q) * pb->cg + c);
    return (size_t)(((k * pb->cg + c) * 3 + r) * 3 + q);
}

static void
prob_init(prob_t *pb, const shape_t *s, uint64_t seed)
{
    memset(pb, 0, sizeof(*pb));
    pb->s = s;
    pb->cg = s->c / s->g;
    pb->oh = s->h + 2 * s->pad - 2;
    pb->ow = s->w + 2 * s->pad - 2;
    pb->xs = strides_of(s, s->c, s->h, s->w, pb->xst);
    pb->ys = strides_of(s, s->k, pb->oh, pb->ow, pb->yst);
    pb->wn = (size_t)s->k * pb->cg * 9;
    cudnnCreateTensorDescriptor(&pb->xd);
    cudnnCreateTensorDescriptor(&pb->yd);
    cudnnCreateFilterDescriptor(&pb->wd);
    cudnnCreateConvolutionDescriptor(&pb->cd);
    set_desc(pb->xd, s, s->c, s->h, s->w, pb->xst);
    set_desc(pb->yd, s, s->k, pb->oh, pb->ow, pb->yst);
    CHECK_OK(cudnnSetFilter4dDescriptor(pb->wd, CUDNN_DATA_FLOAT, s->w_nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                        s->k, pb->cg, 3, 3));
    CHECK_OK(cudnnSetConvolution2dDescriptor(pb->cd, s->pad, s->pad, 1, 1, 1, 1,
                                             s->conv ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(pb->cd, s->g));
    pb->x = calloc(pb->xs, 4);
    pb->y = calloc(pb->ys, 4);
    size_t xn = (size_t)s->n * s->c * s->h * s->w, yn = (size_t)s->n * s->k * pb->oh * pb->ow;
    double *xr = malloc(xn * 8), *yr = malloc(yn * 8), *xa = malloc(xn * 8), *ya = malloc(yn * 8);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, seed);
    /* gaps poisoned: a read of one shows as NaN in dw */
    fdnn_poison_f32(pb->x, pb->xs);
    fdnn_poison_f32(pb->y, pb->ys);
    size_t i = 0;
    for (int n = 0; n < s->n; n++)
        for (int c = 0; c < s->c; c++)
            for (int h = 0; h < s->h; h++)
                for (int w = 0; w < s->w; w++, i++) {
                    float v = (float)fdnn_rng_uniform(&rng, -1, 1);
                    pb->x[at4(pb->xst, n, c, h, w)] = v;
                    xr[i] = v;
                    xa[i] = fabs(v);
                }
    i = 0;
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++)
            for (int h = 0; h < pb->oh; h++)
                for (int w = 0; w < pb->ow; w++, i++) {
                    float v = (float)fdnn_rng_uniform(&rng, -1, 1);
                    pb->y[at4(pb->yst, n, k, h, w)] = v;
                    yr[i] = v;
                    ya[i] = fabs(v);
                }
    fdnn_conv_problem_t p;
    memset(&p, 0, sizeof(p));
    p.dir = FDNN_CONV_BWD_FILTER;
    p.n = s->n, p.c = s->c, p.k = s->k, p.g = s->g, p.nsp = 2;
    int64_t in[3] = {1, s->h, s->w}, out[3] = {1, pb->oh, pb->ow};
    for (int d = 0; d < 3; d++) {
        p.in[d] = in[d];
        p.out[d] = out[d];
        p.ker[d] = d == 0 ? 1 : 3;
        p.pad[d] = d == 0 ? 0 : s->pad;
        p.stride[d] = 1;
        p.dil[d] = 1;
    }
    /* cross-correlation taps; w_at reverses them for CONVOLUTION */
    pb->ref = malloc(pb->wn * 8);
    pb->mag = malloc(pb->wn * 8);
    fdnn_ref_conv_bwd_filter(&p, xr, yr, pb->ref);
    fdnn_ref_conv_bwd_filter(&p, xa, ya, pb->mag);
    free(xr);
    free(yr);
    free(xa);
    free(ya);
}

static void
prob_free(prob_t *pb)
{
    cudnnDestroyTensorDescriptor(pb->xd);
    cudnnDestroyTensorDescriptor(pb->yd);
    cudnnDestroyFilterDescriptor(pb->wd);
    cudnnDestroyConvolutionDescriptor(pb->cd);
    free(pb->x);
    free(pb->y);
    free(pb->ref);
    free(pb->mag);
}

/* dw through WINOGRAD_NONFUSED with exactly the reported workspace
 * (guarded: a write past it faults). */
static void
run_wino(cudnnHandle_t h, const prob_t *pb, float alpha, float beta, float *dw)
{
    size_t ws = 0;
    CHECK_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, pb->xd, pb->yd, pb->cd, pb->wd,
                                                            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, &ws));
    void *buf = fdnn_guarded_alloc(ws > 0 ? ws : 1);
    CHECK_OK(cudnnConvolutionBackwardFilter(h, &alpha, pb->xd, pb->x, pb->yd, pb->y, pb->cd,
                                            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, buf, ws, &beta, pb->wd,
                                            dw));
    fdnn_guarded_free(buf);
}

static double worst_eps;

/* got[k,c,r,s] == alpha * ref + beta * old within the bound. */
static void
check(const prob_t *pb, const float *got, double alpha, double beta, const float *old, const char *where)
{
    const shape_t *s = pb->s;
    int bad = 0;
    for (int k = 0; k < s->k; k++)
        for (int c = 0; c < pb->cg; c++)
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++) {
                    size_t ri = (size_t)((k * pb->cg + c) * 3 + r) * 3 + q, wi = w_at(pb, k, c, r, q);
                    double want = alpha * pb->ref[ri] + (beta != 0 ? beta * old[wi] : 0);
                    double err = fabs((double)got[wi] - want);
                    double scale = (fabs(alpha) * pb->mag[ri] + fabs(beta * (beta != 0 ? old[wi] : 0))) * 0x1p-24;
                    double eps = scale > 0 ? err / scale : err;
                    if (eps > worst_eps && !isnan(err))
                        worst_eps = eps;
                    if (!(err <= BOUND_EPS * scale + 1e-30) && bad++ < 3)
                        CHECK_MSG(false,
                                  "%s: dw[%d][%d][%d][%d] = %.9g, want %.9g (%.1f ulps of "
                                  "sum |x dy|)",
                                  where, k, c, r, q, got[wi], want, eps);
                }
}

static void
test_shapes(cudnnHandle_t h)
{
    int isas = fdnn_test_isa_count();
    for (int si = 0; si < NSHAPES; si++) {
        prob_t pb;
        prob_init(&pb, &shapes[si], 1234 + (uint64_t)si);
        float *dw = malloc(pb.wn * 4), *one = malloc(pb.wn * 4), *old = malloc(pb.wn * 4);
        for (int li = 0; li < isas; li++) {
            CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(li)));
            for (int threads = 1; threads <= 4; threads++) {
                CHECK_OK(freednnSetNumThreads(h, threads));
                char where[160];
                snprintf(where, sizeof(where), "%s isa %s threads %d", shapes[si].name, fdnn_test_isa_name(li),
                         threads);
                fdnn_poison_f32(dw, pb.wn);
                run_wino(h, &pb, 1.0f, 0.0f, dw);
                check(&pb, dw, 1, 0, NULL, where);
                if (threads == 1)
                    memcpy(one, dw, pb.wn * 4);
                else
                    CHECK_MSG(memcmp(one, dw, pb.wn * 4) == 0, "%s: differs from 1 thread", where);
            }
            /* alpha 2, beta -1 over known values */
            fdnn_rng_t rng;
            fdnn_rng_seed(&rng, 99);
            for (size_t i = 0; i < pb.wn; i++)
                old[i] = dw[i] = (float)fdnn_rng_uniform(&rng, -4, 4);
            run_wino(h, &pb, 2.0f, -1.0f, dw);
            char where[160];
            snprintf(where, sizeof(where), "%s isa %s alpha 2 beta -1", shapes[si].name, fdnn_test_isa_name(li));
            check(&pb, dw, 2, -1, old, where);
        }
        CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isas - 1)));
        free(dw);
        free(one);
        free(old);
        prob_free(&pb);
    }
    printf("worst error: %.1f ulps of sum |x dy| (bound %.0f)\n", worst_eps, BOUND_EPS);
}

/* WINOGRAD_NONFUSED first in the backward-filter _v7 list for 3x3
 * stride-1 layers of 16..512 channels and >= 96 4x4 dy tiles; not
 * otherwise. */
static void
test_heuristic(cudnnHandle_t h)
{
    static const struct {
        int n, c, hw, ker, str;
        bool wino;
    } cases[] = {
        {8, 32, 28, 3, 1, true},    /* 392 tiles */
        {1, 64, 56, 3, 1, true},    /* 196 tiles, one image */
        {1, 32, 14, 3, 1, false},   /* 16 tiles */
        {8, 8, 28, 3, 1, false},    /* 8 channels */
        {8, 32, 28, 3, 2, false},   /* stride 2 */
        {8, 32, 28, 5, 1, false},   /* 5x5 */
        {8, 512, 14, 3, 1, true},   /* 512 channels, 128 tiles */
        {8, 512, 7, 3, 1, false},   /* 32 tiles */
        {8, 1024, 14, 3, 1, false}, /* 1024 channels: not measured */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int kr = cases[i].ker, o = (cases[i].hw + 2 * (kr / 2) - kr) / cases[i].str + 1;
        cudnnTensorDescriptor_t xd, yd;
        cudnnFilterDescriptor_t wd;
        cudnnConvolutionDescriptor_t cd;
        cudnnCreateTensorDescriptor(&xd);
        cudnnCreateTensorDescriptor(&yd);
        cudnnCreateFilterDescriptor(&wd);
        cudnnCreateConvolutionDescriptor(&cd);
        CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, cases[i].n, cases[i].c,
                                            cases[i].hw, cases[i].hw));
        CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, cases[i].n, cases[i].c, o, o));
        CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, cases[i].c, cases[i].c, kr, kr));
        CHECK_OK(cudnnSetConvolution2dDescriptor(cd, kr / 2, kr / 2, cases[i].str, cases[i].str, 1, 1,
                                                 CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        cudnnConvolutionBwdFilterAlgoPerf_t pf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        int n = 0;
        CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xd, yd, cd, wd,
                                                               CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, pf));
        CHECK_MSG(n > 0 && (pf[0].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED) == cases[i].wino,
                  "heuristic case %zu: backward filter lists algo %d first", i, n > 0 ? (int)pf[0].algo : -1);
        cudnnDestroyTensorDescriptor(xd);
        cudnnDestroyTensorDescriptor(yd);
        cudnnDestroyFilterDescriptor(wd);
        cudnnDestroyConvolutionDescriptor(cd);
    }
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    test_shapes(h);
    test_heuristic(h);
    cudnnDestroy(h);
    return fdnn_test_finish("test_conv_wino_bwd_filter");
}
