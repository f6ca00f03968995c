/* SPDX-License-Identifier: Apache-2.0
 * The batch 1x1 GEMM solvers (src/cpu/conv/conv_gemm_nhwc.c: fwd
 * IMPLICIT_GEMM, backward data and filter ALGO_1 on channels-last 1x1
 * problems), through the cuDNN API:
 *
 *   - they are the ones that run (applicable on every shape here, declining
 *     NCHW data, padding and stride 2, where the per-image engine runs);
 *   - against the float64 reference (src/ref) on small-integer data (every
 *     sum exact, so the comparison is exact): groups, 3-D, odd sizes, one
 *     position, NHWC and NCHW filter descriptors, positions further apart
 *     than the channels (user strides with gaps), outputs poisoned (beta 0)
 *     or blended (alpha 2, beta -1), every ISA level; the gaps of a strided
 *     output stay untouched;
 *   - bitwise identical at 1, 2 and 3 threads on real-valued data over the
 *     pool's threshold;
 *   - workspace 0 (the zero-workspace algorithms stay so);
 *   - the rows path (forward and backward data, conv_gemm_nhwc_rows.h)
 *     takes exactly the shapes with a reduction of at most 512 channels,
 *     backward data only those with dx in place (stride 1); forward on
 *     strided or irregular x runs it by lines of output positions.
 *   (Forward problems of at most 64 output positions run the KRSC solver,
 *   listed ahead of these, a section at the end; channels-last backward
 *   filter of other filters into a KRSC dw, the last section.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/conv.h"
#include "cpu/conv/conv_gemm_nhwc.h"
#include "cpu/conv/conv_gemm_nhwc_krsc.h"
#include "cpu/conv/conv_gemm_nhwc_krsc_bwd.h"
#include "cpu/conv/conv_gemm_nhwc_krsc_wgrad.h"
#include "cpu/conv/conv_gemm_nhwc_rows.h"
#include "core/conv_solver.h"
#include "freednn.h"
#include "ref/conv_ref.h"
#include "testutil.h"

typedef struct shape {
    const char *name;
    int nsp, n, c, k, g;
    int sp[3];      /* D, H, W (D = 1 for 2-D) */
    int xgap, ygap; /* extra elements between positions of x and y */
    bool w_nhwc;
    int str[3];   /* D, H, W; 0 means 1 */
    int xline;    /* extra elements after each line (H row) of x: positions not uniform */
} shape_t;

static const shape_t shapes[] = {
    {"plain", 2, 3, 8, 6, 1, {1, 5, 7}, 0, 0, true, {0}, 0},
    {"nchw filter", 2, 2, 5, 7, 1, {1, 3, 3}, 0, 0, false, {0}, 0},
    {"groups", 2, 2, 6, 9, 3, {1, 4, 5}, 0, 0, true, {0}, 0},
    {"gaps", 2, 3, 7, 5, 1, {1, 6, 3}, 3, 2, true, {0}, 0},
    {"groups gaps", 2, 2, 4, 6, 2, {1, 3, 4}, 1, 5, false, {0}, 0},
    {"one position", 2, 1, 9, 4, 1, {1, 1, 1}, 0, 0, true, {0}, 0},
    {"one channel", 2, 4, 1, 3, 1, {1, 2, 3}, 0, 0, true, {0}, 0},
    {"3-D", 3, 2, 5, 3, 1, {3, 2, 4}, 2, 0, true, {0}, 0},
    /* Over 2^20 multiply-adds: the pool runs at 2 threads; a K block and
     * row blocks beyond one tile. */
    {"pool", 2, 3, 96, 80, 1, {1, 17, 19}, 0, 0, true, {0}, 0},
    /* Strided: x's rows gathered (forward, backward filter), dx written by
     * a scatter that blends the reached positions and scales the others. */
    {"stride 2", 2, 2, 6, 5, 1, {1, 7, 6}, 0, 0, true, {1, 2, 2}, 0},
    {"stride 2x3 groups gaps", 2, 3, 6, 4, 2, {1, 5, 7}, 2, 1, false, {1, 2, 3}, 0},
    {"3-D strided", 3, 2, 3, 4, 1, {3, 4, 5}, 1, 0, true, {2, 1, 2}, 0},
    {"stride 1 irregular", 2, 2, 5, 3, 1, {1, 4, 4}, 0, 0, true, {1, 1, 1}, 3},
    {"stride 2 pool", 2, 2, 64, 96, 1, {1, 27, 29}, 0, 0, true, {1, 2, 2}, 0},
    /* Forward's rows path on lines of 28 or 42 output positions (whole
     * kernel row tiles at MR 6, 7, 8 and 14; fewer, and the level's MR would
     * pad them by more than a sixth: the gather and the driver run). */
    {"rows lines stride 2", 2, 2, 20, 24, 1, {1, 9, 56}, 0, 0, true, {1, 2, 2}, 0},
    {"rows lines groups gaps", 2, 3, 2 * 10, 2 * 13, 2, {1, 7, 84}, 3, 1, false, {1, 3, 2}, 0},
    {"rows lines 3-D", 3, 2, 7, 9, 1, {3, 2, 28}, 1, 0, true, {2, 1, 1}, 5},
    /* Backward filter in place (conv_gemm_nhwc_wgrad.h): three k blocks,
     * Kg > Cg (T transposed into dW), a partial strip of the large operand
     * read from its packed copy; and Cg > Kg with gaps and groups. */
    {"wgrad blocks", 2, 2, 40, 70, 1, {1, 23, 29}, 0, 0, true, {0}, 0},
    {"wgrad groups gaps", 2, 3, 2 * 45, 2 * 18, 2, {1, 19, 21}, 3, 1, false, {0}, 0},
    /* A large operand of 32 columns: AVX-512 reads it in place in one 32-wide
     * strip rather than packing all of it as a partial 48-wide one
     * (b_strips_in_place); Cg > Kg, and Kg > Cg with gaps. */
    {"wgrad 32 wide", 2, 2, 32, 16, 1, {1, 23, 29}, 0, 0, true, {0}, 0},
    {"wgrad 32 wide transposed gaps", 2, 3, 12, 32, 1, {1, 13, 17}, 2, 3, true, {0}, 0},
    /* Over 512 channels: backward filter declines the in-place path and
     * runs the general GEMM driver; so does forward's rows path
     * (conv_gemm_nhwc_rows.h), while backward data runs it over 19 column
     * strips. */
    {"wide filter", 2, 2, 600, 20, 1, {1, 5, 7}, 1, 0, true, {0}, 0},
    /* Narrow channels on many positions: the rows path in several tasks
     * (forward 2, backward data 5) with a partial last row strip; backward
     * filter in 12 position chunks of 2 k blocks each. */
    {"rows tasks chunks", 2, 2, 5, 20, 1, {1, 61, 59}, 0, 0, true, {0}, 0},
    {"rows groups gaps", 2, 2, 2 * 12, 2 * 9, 2, {1, 40, 45}, 1, 3, false, {0}, 0},
    /* Backward data over 98 columns: AVX-512's 6x49 tile, its own B pack. */
    {"rows 6x49", 2, 2, 98, 20, 1, {1, 9, 11}, 0, 0, true, {0}, 0},
};
#define NSHAPES (int)(sizeof(shapes) / sizeof(shapes[0]))

typedef struct prob {
    const shape_t *s;
    int pos, ipos;            /* output and input positions per image */
    int out[3];               /* output D, H, W */
    int64_t xst[5], yst[5];   /* element strides N, C, D, H, W of x and y */
    size_t xs, ys, wn;        /* buffer elements of x, y (with gaps), w */
    int cg;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    double *xr, *wr, *yr;          /* packed NCHW operands */
    double *fwd, *bwd_d, *bwd_w;   /* reference results, packed NCHW */
    float *x, *w, *y;              /* user layout */
} prob_t;

/* Offset of (n, c, position p of sp[3]) in a buffer of strides st. */
static size_t
at(const int64_t *st, const int *sp, int n, int c, int p)
{
    int w = p % sp[2], h = p / sp[2] % sp[1], d = p / (sp[2] * sp[1]);
    return (size_t)(n * st[0] + c * st[1] + d * st[2] + h * st[3] + w * st[4]);
}

/* Channels-last strides with `gap` extra elements after each position and
 * `line` after each H row; returns the buffer's elements. */
static size_t
set_tensor(cudnnTensorDescriptor_t d, const shape_t *s, int c, const int *sp3, int gap, int line, int64_t *st5)
{
    st5[1] = 1;
    st5[4] = c + gap;
    st5[3] = st5[4] * sp3[2] + line;
    st5[2] = st5[3] * sp3[1];
    st5[0] = st5[2] * sp3[0];
    int dims[5] = {s->n, c}, st[5] = {(int)st5[0], 1};
    int nb = s->nsp + 2;
    for (int i = 0; i < s->nsp; i++) {
        dims[2 + i] = sp3[3 - s->nsp + i];
        st[2 + i] = (int)st5[5 - s->nsp + i];
    }
    CHECK_OK(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, nb, dims, st));
    return (size_t)(st5[0] * s->n);
}

static void
fill(fdnn_rng_t *rng, double *v, size_t n, bool real)
{
    for (size_t i = 0; i < n; i++)
        v[i] = real ? fdnn_rng_uniform(rng, -1, 1) : (double)fdnn_rng_int(rng, -3, 3);
}

static void
prob_init(prob_t *pb, const shape_t *s, bool real, uint64_t seed)
{
    memset(pb, 0, sizeof(*pb));
    pb->s = s;
    pb->ipos = s->sp[0] * s->sp[1] * s->sp[2];
    pb->pos = 1;
    int str[3];
    for (int i = 0; i < 3; i++) {
        str[i] = s->str[i] > 0 ? s->str[i] : 1;
        pb->out[i] = (s->sp[i] - 1) / str[i] + 1;
        pb->pos *= pb->out[i];
    }
    pb->cg = s->c / s->g;
    pb->wn = (size_t)s->k * (size_t)pb->cg;
    CHECK_OK(cudnnCreateTensorDescriptor(&pb->xd));
    CHECK_OK(cudnnCreateTensorDescriptor(&pb->yd));
    CHECK_OK(cudnnCreateFilterDescriptor(&pb->wd));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&pb->cd));
    pb->xs = set_tensor(pb->xd, s, s->c, s->sp, s->xgap, s->xline, pb->xst);
    pb->ys = set_tensor(pb->yd, s, s->k, pb->out, s->ygap, 0, pb->yst);
    int wdims[5] = {s->k, pb->cg, 1, 1, 1};
    CHECK_OK(cudnnSetFilterNdDescriptor(pb->wd, CUDNN_DATA_FLOAT, s->w_nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                        s->nsp + 2, wdims));
    int zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    CHECK_OK(cudnnSetConvolutionNdDescriptor(pb->cd, s->nsp, zero, str + 3 - s->nsp, one, CUDNN_CROSS_CORRELATION,
                                             CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(pb->cd, s->g));

    size_t xn = (size_t)s->n * (size_t)s->c * (size_t)pb->ipos, yn = (size_t)s->n * (size_t)s->k * (size_t)pb->pos;
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, seed);
    pb->xr = malloc(xn * 8);
    pb->wr = malloc(pb->wn * 8);
    pb->yr = malloc(yn * 8);
    fill(&rng, pb->xr, xn, real);
    fill(&rng, pb->wr, pb->wn, real);
    fill(&rng, pb->yr, yn, real);
    pb->x = fdnn_guarded_alloc(pb->xs * 4);
    pb->w = fdnn_guarded_alloc(pb->wn * 4);
    pb->y = fdnn_guarded_alloc(pb->ys * 4);
    fdnn_poison_f32(pb->x, pb->xs); /* the gaps are never read: NaN there would show */
    fdnn_poison_f32(pb->y, pb->ys);
    for (int n = 0; n < s->n; n++)
        for (int c = 0; c < s->c; c++)
            for (int p = 0; p < pb->ipos; p++)
                pb->x[at(pb->xst, s->sp, n, c, p)] =
                    (float)pb->xr[((size_t)n * (size_t)s->c + (size_t)c) * (size_t)pb->ipos + (size_t)p];
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++)
            for (int p = 0; p < pb->pos; p++)
                pb->y[at(pb->yst, pb->out, n, k, p)] =
                    (float)pb->yr[((size_t)n * (size_t)s->k + (size_t)k) * (size_t)pb->pos + (size_t)p];
    for (size_t i = 0; i < pb->wn; i++)
        pb->w[i] = (float)pb->wr[i]; /* 1x1: KCRS and KRSC alike */
    if (!real) {
        fdnn_conv_problem_t p;
        CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, pb->xd, pb->wd, pb->cd, pb->yd, &p));
        pb->fwd = malloc(yn * 8);
        pb->bwd_d = malloc(xn * 8);
        pb->bwd_w = malloc(pb->wn * 8);
        fdnn_ref_conv_fwd(&p, pb->xr, pb->wr, pb->fwd);
        fdnn_ref_conv_bwd_data(&p, pb->yr, pb->wr, pb->bwd_d);
        fdnn_ref_conv_bwd_filter(&p, pb->xr, pb->yr, pb->bwd_w);
    }
}

static void
prob_free(prob_t *pb)
{
    cudnnDestroyTensorDescriptor(pb->xd);
    cudnnDestroyTensorDescriptor(pb->yd);
    cudnnDestroyFilterDescriptor(pb->wd);
    cudnnDestroyConvolutionDescriptor(pb->cd);
    free(pb->xr);
    free(pb->wr);
    free(pb->yr);
    free(pb->fwd);
    free(pb->bwd_d);
    free(pb->bwd_w);
    fdnn_guarded_free(pb->x);
    fdnn_guarded_free(pb->w);
    fdnn_guarded_free(pb->y);
}

/* The output buffer's elements, and where reference element (n, c, p) of
 * it lives (filter: n = k, p = 0). */
static size_t
out_count(const prob_t *pb, fdnn_conv_dir_t dir)
{
    return dir == FDNN_CONV_FWD ? pb->ys : dir == FDNN_CONV_BWD_DATA ? pb->xs : pb->wn;
}

static cudnnStatus_t
run(cudnnHandle_t h, const prob_t *pb, fdnn_conv_dir_t dir, float alpha, float beta, float *out)
{
    size_t ws = 99;
    switch (dir) {
    case FDNN_CONV_FWD:
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, pb->xd, pb->wd, pb->cd, pb->yd,
                                                         CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws));
        CHECK(ws == 0);
        return cudnnConvolutionForward(h, &alpha, pb->xd, pb->x, pb->wd, pb->w, pb->cd,
                                       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &beta, pb->yd, out);
    case FDNN_CONV_BWD_DATA:
        CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, pb->wd, pb->yd, pb->cd, pb->xd,
                                                              CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, &ws));
        CHECK(ws == 0);
        return cudnnConvolutionBackwardData(h, &alpha, pb->wd, pb->w, pb->yd, pb->y, pb->cd,
                                            CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, NULL, 0, &beta, pb->xd, out);
    case FDNN_CONV_BWD_FILTER:
        CHECK_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, pb->xd, pb->yd, pb->cd, pb->wd,
                                                                CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, &ws));
        CHECK(ws == 0);
        return cudnnConvolutionBackwardFilter(h, &alpha, pb->xd, pb->x, pb->yd, pb->y, pb->cd,
                                              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, NULL, 0, &beta, pb->wd, out);
    }
    return CUDNN_STATUS_INTERNAL_ERROR;
}

static const char *dir_name[3] = {"fwd", "bwd_data", "bwd_filter"};

/* Beta 0 into a poisoned output, then alpha 2, beta -1 over integer data
 * (2 ref - old, exact); every element outside the tensor (gaps) keeps its
 * poison. */
static void
check_exact(cudnnHandle_t h, const prob_t *pb, const char *where)
{
    const shape_t *s = pb->s;
    static const int one_sp[3] = {1, 1, 1};
    for (int d = 0; d < 3; d++) {
        fdnn_conv_dir_t dir = (fdnn_conv_dir_t)d;
        size_t count = out_count(pb, dir);
        const double *ref = dir == FDNN_CONV_FWD ? pb->fwd : dir == FDNN_CONV_BWD_DATA ? pb->bwd_d : pb->bwd_w;
        int rows = dir == FDNN_CONV_BWD_FILTER ? s->k : s->n;
        int ch = dir == FDNN_CONV_FWD ? s->k : dir == FDNN_CONV_BWD_DATA ? s->c : pb->cg;
        int pos = dir == FDNN_CONV_FWD ? pb->pos : dir == FDNN_CONV_BWD_DATA ? pb->ipos : 1;
        int64_t fst[5] = {pb->cg, 1, 0, 0, 0};
        const int64_t *st = dir == FDNN_CONV_FWD ? pb->yst : dir == FDNN_CONV_BWD_DATA ? pb->xst : fst;
        const int *sp = dir == FDNN_CONV_FWD ? pb->out : dir == FDNN_CONV_BWD_DATA ? s->sp : one_sp;
        float *out = fdnn_guarded_alloc(count * 4);
        char *inside = calloc(count, 1);
        for (int i = 0; i < rows; i++)
            for (int c = 0; c < ch; c++)
                for (int p = 0; p < pos; p++)
                    inside[at(st, sp, i, c, p)] = 1;
        for (int blend = 0; blend < 2; blend++) {
            fdnn_poison_f32(out, count);
            for (int i = 0; blend && i < rows; i++)
                for (int c = 0; c < ch; c++)
                    for (int p = 0; p < pos; p++)
                        out[at(st, sp, i, c, p)] = (float)((i + 3 * p + c) % 7 - 3);
            cudnnStatus_t st_ = run(h, pb, dir, blend ? 2.0f : 1.0f, blend ? -1.0f : 0.0f, out);
            CHECK_MSG(st_ == CUDNN_STATUS_SUCCESS, "%s %s blend %d: %s", where, dir_name[d], blend,
                      cudnnGetErrorString(st_));
            size_t bad = 0, gaps = 0;
            double got_first = 0, want_first = 0;
            for (int i = 0; i < rows; i++)
                for (int c = 0; c < ch; c++)
                    for (int p = 0; p < pos; p++) {
                        double r = ref[((size_t)i * (size_t)ch + (size_t)c) * (size_t)pos + (size_t)p];
                        double want = blend ? 2 * r - (double)((i + 3 * p + c) % 7 - 3) : r;
                        double got = out[at(st, sp, i, c, p)];
                        if (!(got == want) && bad++ == 0)
                            got_first = got, want_first = want;
                    }
            for (size_t j = 0; j < count; j++)
                gaps += !inside[j] && !isnan(out[j]);
            CHECK_MSG(bad == 0, "%s %s blend %d: %zu wrong (first: got %g, want %g)", where, dir_name[d], blend, bad,
                      got_first, want_first);
            CHECK_MSG(gaps == 0, "%s %s blend %d: %zu gap elements written", where, dir_name[d], blend, gaps);
        }
        free(inside);
        fdnn_guarded_free(out);
    }
}

/* The solvers accept every shape above and decline what they do not do. */
static void
test_applicability(void)
{
    for (int si = 0; si < NSHAPES; si++) {
        prob_t pb;
        prob_init(&pb, &shapes[si], true, 1);
        fdnn_conv_problem_t p;
        CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, pb.xd, pb.wd, pb.cd, pb.yd, &p));
        CHECK_MSG(fdnn_conv_gemm_nhwc_applicable(&p) == CUDNN_STATUS_SUCCESS, "%s: declined", shapes[si].name);
        prob_free(&pb);
    }
    /* NCHW x, padding, 3x3: the per-image engine's. */
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    CHECK_OK(cudnnCreateTensorDescriptor(&xd));
    CHECK_OK(cudnnCreateTensorDescriptor(&yd));
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cd));
    const struct {
        cudnnTensorFormat_t f;
        int pad, stride, r;
    } no[3] = {{CUDNN_TENSOR_NCHW, 0, 1, 1}, {CUDNN_TENSOR_NHWC, 1, 1, 1}, {CUDNN_TENSOR_NHWC, 0, 1, 3}};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 4, 8, no[i].r, no[i].r));
        CHECK_OK(cudnnSetTensor4dDescriptor(xd, no[i].f, CUDNN_DATA_FLOAT, 2, 8, 6, 6));
        CHECK_OK(cudnnSetConvolution2dDescriptor(cd, no[i].pad, no[i].pad, no[i].stride, no[i].stride, 1, 1,
                                                 CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        int on, oc, oh, ow;
        CHECK_OK(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow));
        CHECK_OK(cudnnSetTensor4dDescriptor(yd, no[i].f, CUDNN_DATA_FLOAT, on, oc, oh, ow));
        fdnn_conv_problem_t p;
        CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, xd, wd, cd, yd, &p));
        CHECK_MSG(fdnn_conv_gemm_nhwc_applicable(&p) == CUDNN_STATUS_NOT_SUPPORTED, "case %d accepted", i);
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

/* The rows path accepts the forward and backward data of the shapes whose
 * x is read in place and whose reduction is at most 512 deep. */
static void
test_rows_applicability(void)
{
    for (int si = 0; si < NSHAPES; si++) {
        const shape_t *s = &shapes[si];
        prob_t pb;
        prob_init(&pb, s, true, 1);
        bool strided = s->str[0] > 1 || s->str[1] > 1 || s->str[2] > 1 || s->xline > 0;
        for (int d = 0; d < 3; d++) {
            fdnn_conv_problem_t p;
            CHECK_OK(fdnn_conv_problem_from_desc((fdnn_conv_dir_t)d, pb.xd, pb.wd, pb.cd, pb.yd, &p));
            int depth = d == FDNN_CONV_FWD ? pb.cg : s->k / s->g;
            bool want = d != FDNN_CONV_BWD_FILTER && (d == FDNN_CONV_FWD || !strided) && depth <= 512;
            bool got = fdnn_conv_gemm_nhwc_rows_applicable(&p) == CUDNN_STATUS_SUCCESS;
            CHECK_MSG(got == want, "%s %s: rows path %s", s->name, dir_name[d], got ? "accepted" : "declined");
        }
        prob_free(&pb);
    }
}

static void
test_against_reference(cudnnHandle_t h)
{
    int isas = fdnn_test_isa_count();
    for (int si = 0; si < NSHAPES; si++) {
        prob_t pb;
        prob_init(&pb, &shapes[si], false, 100 + (uint64_t)si);
        for (int li = 0; li < isas; li++)
            for (int threads = 1; threads <= 2; threads++) {
                CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(li)));
                CHECK_OK(freednnSetNumThreads(h, threads));
                char where[160];
                snprintf(where, sizeof(where), "%s isa %s threads %d", shapes[si].name, fdnn_test_isa_name(li),
                         threads);
                check_exact(h, &pb, where);
            }
        prob_free(&pb);
    }
    CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isas - 1)));
    CHECK_OK(freednnSetNumThreads(h, 1));
}

static void
test_threads_bitwise(cudnnHandle_t h)
{
    for (int si = 0; si < NSHAPES; si++) {
        prob_t pb;
        prob_init(&pb, &shapes[si], true, 7 + (uint64_t)si);
        for (int d = 0; d < 3; d++) {
            size_t count = out_count(&pb, (fdnn_conv_dir_t)d);
            float *one = fdnn_guarded_alloc(count * 4), *two = fdnn_guarded_alloc(count * 4);
            fdnn_poison_f32(one, count);
            CHECK_OK(freednnSetNumThreads(h, 1));
            CHECK_OK(run(h, &pb, (fdnn_conv_dir_t)d, 1, 0, one));
            for (int threads = 2; threads <= 3; threads++) {
                fdnn_poison_f32(two, count);
                CHECK_OK(freednnSetNumThreads(h, threads));
                CHECK_OK(run(h, &pb, (fdnn_conv_dir_t)d, 1, 0, two));
                CHECK_MSG(memcmp(one, two, count * 4) == 0, "%s %s: 1 and %d threads differ", shapes[si].name,
                          dir_name[d], threads);
            }
            fdnn_guarded_free(one);
            fdnn_guarded_free(two);
        }
        prob_free(&pb);
    }
    CHECK_OK(freednnSetNumThreads(h, 1));
}

/* ---- The channels-last implicit GEMM with the KRSC filter in place
 * (conv_gemm_nhwc_krsc.h, solver 41: fwd IMPLICIT_GEMM of spatial filters):
 * small planes (7x7, 5x3), odd channels, groups, strides, dilation with
 * CONVOLUTION mode, 3-D, positions and lines with gaps, panels that cross
 * images; exact against the reference on small integers (beta 0 into a
 * poisoned y; alpha 2, beta -1; bias + ReLU through the fused call, with
 * and without z), every ISA level, 1 and 2 threads; 1, 2, 3 threads
 * bitwise on real data; the heuristic's choice on ResNet-50 shapes. */
typedef struct kshape {
    const char *name;
    int nsp, n, c, k, g;
    int sp[3], ker[3], pad[3], str[3], dil[3]; /* D, H, W */
    bool flip;
    int xgap, ygap, yline; /* extra elements after each position of x, y; after each row of y */
} kshape_t;

static const kshape_t kshapes[] = {
    {"7x7 3x3", 2, 1, 32, 40, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    {"5x3 odd channels", 2, 2, 19, 21, 1, {1, 5, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    {"stride 2", 2, 2, 24, 17, 1, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}, false, 0, 0, 0},
    {"groups gaps", 2, 2, 2 * 12, 2 * 10, 2, {1, 6, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 3, 5, 2},
    {"flip dilation", 2, 3, 16, 33, 1, {1, 8, 9}, {1, 3, 2}, {0, 2, 1}, {1, 1, 2}, {1, 2, 3}, true, 0, 1, 0},
    {"3-D", 3, 2, 9, 8, 1, {3, 4, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 1, 0, 0},
    {"1x1 padded", 2, 2, 20, 12, 1, {1, 5, 6}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    /* unpadded 1x1 over at most 64 positions (res5's at mb=1): this solver,
     * ahead of the batch 1x1 GEMMs; strided, odd channels, gaps */
    {"1x1 49 positions", 2, 1, 40, 24, 1, {1, 7, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    {"1x1 stride 2 gaps", 2, 2, 33, 17, 1, {1, 9, 9}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}, {1, 1, 1}, false, 2, 1, 3},
    /* 1600-value filter rows: with a 1 MiB L2, panels of 160 positions
     * over images of 240 (a panel crosses an image) */
    {"panels", 2, 2, 64, 20, 1, {1, 16, 15}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    /* over 2^20 multiply-adds: 2 and 3 threads run */
    {"pool", 2, 2, 64, 48, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
};
#define NKSHAPES (int)(sizeof(kshapes) / sizeof(kshapes[0]))

typedef struct kprob {
    const kshape_t *s;
    int cg, taps, ipos, pos, out[3];
    int64_t xst[5], yst[5];
    size_t xs, ys, wn, xn, yn;
    cudnnTensorDescriptor_t xd, yd, bd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    double *xr, *wr, *fwd; /* packed NCHW / KCRS; reference result */
    float *x, *w, *bias;
} kprob_t;

/* Channels-last strides with `gap` extra elements after each position and
 * `line` after each row (H); returns the buffer's elements. */
static size_t
kset_tensor(cudnnTensorDescriptor_t d, const kshape_t *s, int c, const int *sp3, int gap, int line, int64_t *st5)
{
    st5[1] = 1;
    st5[4] = c + gap;
    st5[3] = st5[4] * sp3[2] + line;
    st5[2] = st5[3] * sp3[1];
    st5[0] = st5[2] * sp3[0];
    int dims[5] = {s->n, c}, st[5] = {(int)st5[0], 1};
    for (int i = 0; i < s->nsp; i++) {
        dims[2 + i] = sp3[3 - s->nsp + i];
        st[2 + i] = (int)st5[5 - s->nsp + i];
    }
    CHECK_OK(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, s->nsp + 2, dims, st));
    return (size_t)(st5[0] * s->n);
}

static void
kprob_init(kprob_t *pb, const kshape_t *s, bool real, uint64_t seed)
{
    memset(pb, 0, sizeof(*pb));
    pb->s = s;
    pb->cg = s->c / s->g;
    pb->taps = s->ker[0] * s->ker[1] * s->ker[2];
    pb->ipos = s->sp[0] * s->sp[1] * s->sp[2];
    pb->pos = 1;
    for (int i = 0; i < 3; i++) {
        pb->out[i] = (s->sp[i] + 2 * s->pad[i] - (s->ker[i] - 1) * s->dil[i] - 1) / s->str[i] + 1;
        pb->pos *= pb->out[i];
    }
    CHECK_OK(cudnnCreateTensorDescriptor(&pb->xd));
    CHECK_OK(cudnnCreateTensorDescriptor(&pb->yd));
    CHECK_OK(cudnnCreateTensorDescriptor(&pb->bd));
    CHECK_OK(cudnnCreateFilterDescriptor(&pb->wd));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&pb->cd));
    CHECK_OK(cudnnCreateActivationDescriptor(&pb->ad));
    CHECK_OK(cudnnSetActivationDescriptor(pb->ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
    pb->xs = kset_tensor(pb->xd, s, s->c, s->sp, s->xgap, 0, pb->xst);
    pb->ys = kset_tensor(pb->yd, s, s->k, pb->out, s->ygap, s->yline, pb->yst);
    int bdims[5] = {1, s->k, 1, 1, 1}, bst[5] = {s->k, 1, 1, 1, 1};
    CHECK_OK(cudnnSetTensorNdDescriptor(pb->bd, CUDNN_DATA_FLOAT, s->nsp + 2, bdims, bst));
    int wdims[5] = {s->k, pb->cg};
    for (int i = 0; i < s->nsp; i++)
        wdims[2 + i] = s->ker[3 - s->nsp + i];
    CHECK_OK(cudnnSetFilterNdDescriptor(pb->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, s->nsp + 2, wdims));
    int o = 3 - s->nsp;
    CHECK_OK(cudnnSetConvolutionNdDescriptor(pb->cd, s->nsp, s->pad + o, s->str + o, s->dil + o,
                                             s->flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                             CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(pb->cd, s->g));
    pb->xn = (size_t)s->n * (size_t)s->c * (size_t)pb->ipos;
    pb->yn = (size_t)s->n * (size_t)s->k * (size_t)pb->pos;
    pb->wn = (size_t)s->k * (size_t)pb->cg * (size_t)pb->taps;
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, seed);
    pb->xr = malloc(pb->xn * 8);
    pb->wr = malloc(pb->wn * 8);
    fill(&rng, pb->xr, pb->xn, real);
    fill(&rng, pb->wr, pb->wn, real);
    pb->x = fdnn_guarded_alloc(pb->xs * 4);
    pb->w = fdnn_guarded_alloc(pb->wn * 4);
    pb->bias = fdnn_guarded_alloc((size_t)s->k * 4);
    fdnn_poison_f32(pb->x, pb->xs); /* the gaps are never read: NaN there would show */
    for (int n = 0; n < s->n; n++)
        for (int c = 0; c < s->c; c++)
            for (int p = 0; p < pb->ipos; p++)
                pb->x[at(pb->xst, s->sp, n, c, p)] =
                    (float)pb->xr[((size_t)n * (size_t)s->c + (size_t)c) * (size_t)pb->ipos + (size_t)p];
    for (int k = 0; k < s->k; k++) /* KCRS -> KRSC */
        for (int c = 0; c < pb->cg; c++)
            for (int q = 0; q < pb->taps; q++)
                pb->w[((size_t)k * (size_t)pb->taps + (size_t)q) * (size_t)pb->cg + (size_t)c] =
                    (float)pb->wr[((size_t)k * (size_t)pb->cg + (size_t)c) * (size_t)pb->taps + (size_t)q];
    for (int k = 0; k < s->k; k++)
        pb->bias[k] = (float)(k % 7 - 3); /* (not periodic in the groups' Kg) */
    if (!real) {
        fdnn_conv_problem_t p;
        CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, pb->xd, pb->wd, pb->cd, pb->yd, &p));
        pb->fwd = malloc(pb->yn * 8);
        fdnn_ref_conv_fwd(&p, pb->xr, pb->wr, pb->fwd);
    }
}

static void
kprob_free(kprob_t *pb)
{
    cudnnDestroyTensorDescriptor(pb->xd);
    cudnnDestroyTensorDescriptor(pb->yd);
    cudnnDestroyTensorDescriptor(pb->bd);
    cudnnDestroyFilterDescriptor(pb->wd);
    cudnnDestroyConvolutionDescriptor(pb->cd);
    cudnnDestroyActivationDescriptor(pb->ad);
    free(pb->xr);
    free(pb->wr);
    free(pb->fwd);
    fdnn_guarded_free(pb->x);
    fdnn_guarded_free(pb->w);
    fdnn_guarded_free(pb->bias);
}

/* Modes: 0 beta 0 (y poisoned); 1 alpha 2, beta -1; 2 bias + ReLU, z not
 * read (alpha2 0); 3 bias + ReLU with z = y, alpha2 0.5. */
static cudnnStatus_t
krun(cudnnHandle_t h, const kprob_t *pb, int mode, float *y)
{
    float alpha = mode == 1 ? 2.0f : 1.0f, beta = mode == 1 ? -1.0f : 0.0f, alpha2 = mode == 3 ? 0.5f : 0.0f;
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    if (mode < 2)
        return cudnnConvolutionForward(h, &alpha, pb->xd, pb->x, pb->wd, pb->w, pb->cd, algo, NULL, 0, &beta, pb->yd,
                                       y);
    return cudnnConvolutionBiasActivationForward(h, &alpha, pb->xd, pb->x, pb->wd, pb->w, pb->cd, algo, NULL, 0,
                                                 &alpha2, pb->yd, y, pb->bd, pb->bias, pb->ad, pb->yd, y);
}

/* y's old value at (n, k, p) in the blending modes (small integers). */
static float
kold(int n, int k, int p)
{
    return (float)((n + 3 * p + k) % 7 - 3);
}

static void
kcheck_exact(cudnnHandle_t h, const kprob_t *pb, const char *where)
{
    const kshape_t *s = pb->s;
    float *y = fdnn_guarded_alloc(pb->ys * 4);
    char *inside = calloc(pb->ys, 1);
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++)
            for (int p = 0; p < pb->pos; p++)
                inside[at(pb->yst, pb->out, n, k, p)] = 1;
    for (int mode = 0; mode < 4; mode++) {
        fdnn_poison_f32(y, pb->ys);
        if (mode == 1 || mode == 3)
            for (int n = 0; n < s->n; n++)
                for (int k = 0; k < s->k; k++)
                    for (int p = 0; p < pb->pos; p++)
                        y[at(pb->yst, pb->out, n, k, p)] = kold(n, k, p);
        cudnnStatus_t st = krun(h, pb, mode, y);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s mode %d: %s", where, mode, cudnnGetErrorString(st));
        size_t bad = 0, gaps = 0;
        double got_first = 0, want_first = 0;
        for (int n = 0; n < s->n; n++)
            for (int k = 0; k < s->k; k++)
                for (int p = 0; p < pb->pos; p++) {
                    double r = pb->fwd[((size_t)n * (size_t)s->k + (size_t)k) * (size_t)pb->pos + (size_t)p];
                    double old = kold(n, k, p), want = r;
                    if (mode == 1)
                        want = 2 * r - old;
                    if (mode >= 2) {
                        want = r + (mode == 3 ? 0.5 * old : 0) + pb->bias[k];
                        want = want > 0 ? want : 0;
                    }
                    double got = y[at(pb->yst, pb->out, n, k, p)];
                    if (!(got == want) && bad++ == 0)
                        got_first = got, want_first = want;
                }
        for (size_t j = 0; j < pb->ys; j++)
            gaps += !inside[j] && !isnan(y[j]);
        CHECK_MSG(bad == 0, "%s mode %d: %zu wrong (first: got %g, want %g)", where, mode, bad, got_first,
                  want_first);
        CHECK_MSG(gaps == 0, "%s mode %d: %zu gap elements written", where, mode, gaps);
    }
    free(inside);
    fdnn_guarded_free(y);
}

static void
test_krsc(cudnnHandle_t h)
{
    int isas = fdnn_test_isa_count();
    for (int si = 0; si < NKSHAPES; si++) {
        const kshape_t *s = &kshapes[si];
        kprob_t pb;
        kprob_init(&pb, s, false, 300 + (uint64_t)si);
        fdnn_conv_problem_t p;
        CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, pb.xd, pb.wd, pb.cd, pb.yd, &p));
        /* the solver that runs IMPLICIT_GEMM here (listed first) */
        CHECK_MSG(fdnn_conv_gemm_nhwc_krsc_applicable(&p) == CUDNN_STATUS_SUCCESS, "%s: declined", s->name);
        /* over 64 positions it leaves unpadded 1x1 filters to the batch 1x1 GEMMs */
        if (s->ker[0] * s->ker[1] * s->ker[2] == 1 && s->pad[1] == 0 && s->pad[2] == 0) {
            fdnn_conv_problem_t more = p;
            more.n = 65;
            CHECK_MSG(fdnn_conv_gemm_nhwc_krsc_applicable(&more) == CUDNN_STATUS_NOT_SUPPORTED,
                      "%s at mb=65: accepted", s->name);
        }
        size_t ws = 99;
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, pb.xd, pb.wd, pb.cd, pb.yd,
                                                         CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws));
        CHECK(ws == 0);
        for (int li = 0; li < isas; li++)
            for (int threads = 1; threads <= 2; threads++) {
                CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(li)));
                CHECK_OK(freednnSetNumThreads(h, threads));
                char where[160];
                snprintf(where, sizeof(where), "krsc %s isa %s threads %d", s->name, fdnn_test_isa_name(li), threads);
                kcheck_exact(h, &pb, where);
            }
        kprob_free(&pb);
        /* real data: 1, 2 and 3 threads bitwise, at the top level */
        CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isas - 1)));
        kprob_init(&pb, s, true, 400 + (uint64_t)si);
        float *one = fdnn_guarded_alloc(pb.ys * 4), *two = fdnn_guarded_alloc(pb.ys * 4);
        fdnn_poison_f32(one, pb.ys);
        CHECK_OK(freednnSetNumThreads(h, 1));
        CHECK_OK(krun(h, &pb, 0, one));
        for (int threads = 2; threads <= 3; threads++) {
            fdnn_poison_f32(two, pb.ys);
            CHECK_OK(freednnSetNumThreads(h, threads));
            CHECK_OK(krun(h, &pb, 0, two));
            CHECK_MSG(memcmp(one, two, pb.ys * 4) == 0, "krsc %s: 1 and %d threads differ", s->name, threads);
        }
        fdnn_guarded_free(one);
        fdnn_guarded_free(two);
        kprob_free(&pb);
    }
    CHECK_OK(freednnSetNumThreads(h, 1));
}

/* A channels-last ResNet-50-like 3x3 layer (pad 1) and the algorithm the
 * heuristic should list first for it in direction dir. */
typedef struct heur_case {
    int n, c, hw, stride, algo;
} heur_case_t;

static void
check_heuristic(fdnn_conv_dir_t dir, const heur_case_t *cases, size_t count)
{
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    CHECK_OK(cudnnCreateTensorDescriptor(&xd));
    CHECK_OK(cudnnCreateTensorDescriptor(&yd));
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cd));
    for (size_t i = 0; i < count; i++) {
        const heur_case_t *k = &cases[i];
        CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, k->c, k->c, 3, 3));
        CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, k->n, k->c, k->hw, k->hw));
        CHECK_OK(cudnnSetConvolution2dDescriptor(cd, 1, 1, k->stride, k->stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                                 CUDNN_DATA_FLOAT));
        int on, oc, oh, ow;
        CHECK_OK(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow));
        CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, on, oc, oh, ow));
        fdnn_conv_problem_t p;
        CHECK_OK(fdnn_conv_problem_from_desc(dir, xd, wd, cd, yd, &p));
        int order[CUDNN_CONVOLUTION_FWD_ALGO_COUNT]; /* the longest of the three lists */
        fdnn_conv_heuristic_order(&p, order);
        CHECK_MSG(order[0] == k->algo, "dir %d case %zu (%d channels, %dx%d, stride %d): algo %d first, want %d",
                  (int)dir, i, k->c, k->hw, k->hw, k->stride, order[0], k->algo);
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

/* The heuristic on ResNet-50's channels-last 3x3 layers: the GEMM first
 * under 64 output positions (res5 at mb=1: 49), the direct solver from
 * there (res4 at mb=1: 196, res3: 784, res5 at mb=2: 98). */
static void
test_krsc_heuristic(void)
{
    const heur_case_t cases[] = {
        {1, 512, 7, 1, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
        {1, 512, 14, 2, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
        {1, 256, 14, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {2, 512, 7, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {1, 128, 28, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {1, 128, 56, 2, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
    };
    check_heuristic(FDNN_CONV_FWD, cases, sizeof(cases) / sizeof(cases[0]));
}

/* ---- The channels-last backward filter into the KRSC filter in place
 * (conv_gemm_nhwc_krsc_wgrad.h, solver 42: backward filter ALGO_1): short
 * reductions (49 positions: res5 at mb=1), tails in Cg*taps (strips) and
 * in K (row tiles), stride 2, groups with gaps, CONVOLUTION mode with
 * dilation, 3-D, a padded 1x1 filter, more positions than a panel (two
 * panels, k blocks per panel); exact against the reference on small
 * integers (beta 0 into a poisoned dw; alpha 2, beta -1; alpha 0,
 * beta 0.5), every ISA level, 1 and 2 threads; 1, 2, 3 threads bitwise on
 * real data. */
static const kshape_t wshapes[] = {
    {"short k tails", 2, 1, 40, 36, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    {"stride 2", 2, 2, 24, 17, 1, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}, false, 0, 0, 0},
    {"groups gaps", 2, 2, 2 * 12, 2 * 10, 2, {1, 6, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 3, 5, 2},
    {"flip dilation", 2, 3, 16, 33, 1, {1, 8, 9}, {1, 3, 2}, {0, 2, 1}, {1, 1, 2}, {1, 2, 3}, true, 0, 1, 0},
    {"3-D", 3, 2, 9, 8, 1, {3, 4, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 1, 0, 0},
    {"1x1 padded", 2, 2, 20, 12, 1, {1, 5, 6}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    /* 3-D, 2400 positions: two panels, k blocks of 256 or fewer in each */
    {"panels", 3, 2, 8, 10, 1, {3, 20, 20}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    /* over 2^20 multiply-adds: 2 and 3 threads run */
    {"pool", 2, 2, 64, 48, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
};
#define NWSHAPES (int)(sizeof(wshapes) / sizeof(wshapes[0]))

/* Modes: 0 beta 0 (dw poisoned); 1 alpha 2, beta -1; 2 alpha 0, beta 0.5. */
static cudnnStatus_t
wrun(cudnnHandle_t h, const kprob_t *pb, const float *dy, int mode, float *dw)
{
    float alpha = mode == 1 ? 2.0f : mode == 2 ? 0.0f : 1.0f, beta = mode == 1 ? -1.0f : mode == 2 ? 0.5f : 0.0f;
    return cudnnConvolutionBackwardFilter(h, &alpha, pb->xd, pb->x, pb->yd, dy, pb->cd,
                                          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, NULL, 0, &beta, pb->wd, dw);
}

/* dy from doubles (poison in the gaps) */
static float *
wdy(const kprob_t *pb, const double *dyr)
{
    const kshape_t *s = pb->s;
    float *dy = fdnn_guarded_alloc(pb->ys * 4);
    fdnn_poison_f32(dy, pb->ys);
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++)
            for (int p = 0; p < pb->pos; p++)
                dy[at(pb->yst, pb->out, n, k, p)] = (float)dyr[((size_t)n * (size_t)s->k + (size_t)k) * pb->pos + p];
    return dy;
}

static void
wcheck_exact(cudnnHandle_t h, const kprob_t *pb, const float *dy, const double *ref, const char *where)
{
    float *dw = fdnn_guarded_alloc(pb->wn * 4);
    for (int mode = 0; mode < 3; mode++) {
        fdnn_poison_f32(dw, pb->wn);
        if (mode > 0)
            for (size_t i = 0; i < pb->wn; i++)
                dw[i] = (float)((int)(i % 7) - 3);
        cudnnStatus_t st = wrun(h, pb, dy, mode, dw);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s mode %d: %s", where, mode, cudnnGetErrorString(st));
        size_t bad = 0;
        double got_first = 0, want_first = 0;
        for (int k = 0; k < pb->s->k; k++)
            for (int c = 0; c < pb->cg; c++)
                for (int q = 0; q < pb->taps; q++) {
                    size_t i = ((size_t)k * (size_t)pb->taps + (size_t)q) * (size_t)pb->cg + (size_t)c; /* KRSC */
                    double r = ref[((size_t)k * (size_t)pb->cg + (size_t)c) * (size_t)pb->taps + (size_t)q];
                    double old = (double)((int)(i % 7) - 3);
                    double want = mode == 0 ? r : mode == 1 ? 2 * r - old : 0.5 * old;
                    if (!((double)dw[i] == want) && bad++ == 0)
                        got_first = dw[i], want_first = want;
                }
        CHECK_MSG(bad == 0, "%s mode %d: %zu of %zu wrong (first: got %g, want %g)", where, mode, bad, pb->wn,
                  got_first, want_first);
    }
    fdnn_guarded_free(dw);
}

static void
test_krsc_wgrad(cudnnHandle_t h)
{
    int isas = fdnn_test_isa_count();
    for (int si = 0; si < NWSHAPES; si++) {
        const kshape_t *s = &wshapes[si];
        for (int real = 0; real < 2; real++) {
            kprob_t pb;
            kprob_init(&pb, s, real, 500 + (uint64_t)si + 50 * (uint64_t)real);
            fdnn_conv_problem_t p;
            CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_FILTER, pb.xd, pb.wd, pb.cd, pb.yd, &p));
            CHECK_MSG(fdnn_conv_gemm_nhwc_krsc_wgrad_applicable(&p) == CUDNN_STATUS_SUCCESS, "%s: declined",
                      s->name);
            /* 2-D over more than 2048 positions: the per-image engine's */
            fdnn_conv_problem_t more = p;
            more.n = 2049;
            CHECK_MSG((fdnn_conv_gemm_nhwc_krsc_wgrad_applicable(&more) == CUDNN_STATUS_SUCCESS) == (s->nsp == 3),
                      "%s at mb=2049: accepted or declined wrongly", s->name);
            double *dyr = malloc(pb.yn * 8), *ref = malloc(pb.wn * 8);
            fdnn_rng_t rng;
            fdnn_rng_seed(&rng, 600 + (uint64_t)si);
            fill(&rng, dyr, pb.yn, real);
            float *dy = wdy(&pb, dyr);
            if (!real) {
                size_t ws = 99;
                CHECK_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(
                    h, pb.xd, pb.yd, pb.cd, pb.wd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, &ws));
                CHECK(ws == 0);
                fdnn_ref_conv_bwd_filter(&p, pb.xr, dyr, ref);
                for (int li = 0; li < isas; li++)
                    for (int threads = 1; threads <= 2; threads++) {
                        CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(li)));
                        CHECK_OK(freednnSetNumThreads(h, threads));
                        char where[160];
                        snprintf(where, sizeof(where), "krsc wgrad %s isa %s threads %d", s->name,
                                 fdnn_test_isa_name(li), threads);
                        wcheck_exact(h, &pb, dy, ref, where);
                    }
            } else {
                /* 1, 2 and 3 threads bitwise, at the top level */
                CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isas - 1)));
                float *one = fdnn_guarded_alloc(pb.wn * 4), *two = fdnn_guarded_alloc(pb.wn * 4);
                fdnn_poison_f32(one, pb.wn);
                CHECK_OK(freednnSetNumThreads(h, 1));
                CHECK_OK(wrun(h, &pb, dy, 0, one));
                for (int threads = 2; threads <= 3; threads++) {
                    fdnn_poison_f32(two, pb.wn);
                    CHECK_OK(freednnSetNumThreads(h, threads));
                    CHECK_OK(wrun(h, &pb, dy, 0, two));
                    CHECK_MSG(memcmp(one, two, pb.wn * 4) == 0, "krsc wgrad %s: 1 and %d threads differ", s->name,
                              threads);
                }
                fdnn_guarded_free(one);
                fdnn_guarded_free(two);
            }
            fdnn_guarded_free(dy);
            free(dyr);
            free(ref);
            kprob_free(&pb);
        }
    }
    CHECK_OK(freednnSetNumThreads(h, 1));
}

/* ---- Its backward data (conv_gemm_nhwc_krsc_bwd.h, solver 43: backward
 * data ALGO_1 of spatial filters over at most 64 output positions): odd
 * channels, groups with gaps in dx and dy and a row gap in dy, stride 2,
 * CONVOLUTION mode with dilation and padding on every side, 3-D, more
 * channels than one gathered run (300 = 256 + 44); exact against the
 * float64 reference on small integers (beta 0 into a poisoned dx; alpha 2,
 * beta -1), the gaps untouched, every ISA level, 1 and 2 threads; 1, 2, 3
 * threads bitwise on real data; the heuristic's choice. */
static const kshape_t bshapes[] = {
    {"7x7 3x3", 2, 1, 32, 40, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    {"5x3 odd channels", 2, 2, 19, 21, 1, {1, 5, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
    {"stride 2", 2, 2, 24, 17, 1, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}, false, 0, 0, 0},
    {"groups gaps", 2, 1, 2 * 12, 2 * 10, 2, {1, 6, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 3, 5, 2},
    {"flip dilation", 2, 1, 16, 33, 1, {1, 8, 9}, {1, 3, 2}, {0, 2, 1}, {1, 1, 2}, {1, 2, 3}, true, 0, 1, 0},
    {"3-D", 3, 1, 9, 8, 1, {3, 4, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 1, 0, 0},
    /* over 2^20 multiply-adds: 2 and 3 threads run */
    {"pool 300 channels", 2, 1, 300, 64, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 0, 0, 0},
};
#define NBSHAPES (int)(sizeof(bshapes) / sizeof(bshapes[0]))

static cudnnStatus_t
brun(cudnnHandle_t h, const kprob_t *pb, const float *dy, bool blend, float *dx)
{
    float alpha = blend ? 2.0f : 1.0f, beta = blend ? -1.0f : 0.0f;
    return cudnnConvolutionBackwardData(h, &alpha, pb->wd, pb->w, pb->yd, dy, pb->cd,
                                        CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, NULL, 0, &beta, pb->xd, dx);
}

static void
bcheck_exact(cudnnHandle_t h, const kprob_t *pb, const float *dy, const double *ref, const char *where)
{
    const kshape_t *s = pb->s;
    float *dx = fdnn_guarded_alloc(pb->xs * 4);
    char *inside = calloc(pb->xs, 1);
    for (int n = 0; n < s->n; n++)
        for (int c = 0; c < s->c; c++)
            for (int p = 0; p < pb->ipos; p++)
                inside[at(pb->xst, s->sp, n, c, p)] = 1;
    for (int mode = 0; mode < 2; mode++) {
        fdnn_poison_f32(dx, pb->xs);
        if (mode == 1)
            for (int n = 0; n < s->n; n++)
                for (int c = 0; c < s->c; c++)
                    for (int p = 0; p < pb->ipos; p++)
                        dx[at(pb->xst, s->sp, n, c, p)] = kold(n, c, p);
        cudnnStatus_t st = brun(h, pb, dy, mode == 1, dx);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s mode %d: %s", where, mode, cudnnGetErrorString(st));
        size_t bad = 0, gaps = 0;
        double got_first = 0, want_first = 0;
        for (int n = 0; n < s->n; n++)
            for (int c = 0; c < s->c; c++)
                for (int p = 0; p < pb->ipos; p++) {
                    double r = ref[((size_t)n * (size_t)s->c + (size_t)c) * (size_t)pb->ipos + (size_t)p];
                    double want = mode == 1 ? 2 * r - kold(n, c, p) : r;
                    double got = dx[at(pb->xst, s->sp, n, c, p)];
                    if (!(got == want) && bad++ == 0)
                        got_first = got, want_first = want;
                }
        for (size_t j = 0; j < pb->xs; j++)
            gaps += !inside[j] && !isnan(dx[j]);
        CHECK_MSG(bad == 0, "%s mode %d: %zu wrong (first: got %g, want %g)", where, mode, bad, got_first,
                  want_first);
        CHECK_MSG(gaps == 0, "%s mode %d: %zu gap elements written", where, mode, gaps);
    }
    free(inside);
    fdnn_guarded_free(dx);
}

static void
test_krsc_bwd_data(cudnnHandle_t h)
{
    int isas = fdnn_test_isa_count();
    for (int si = 0; si < NBSHAPES; si++) {
        const kshape_t *s = &bshapes[si];
        for (int real = 0; real < 2; real++) {
            kprob_t pb;
            kprob_init(&pb, s, real, 500 + (uint64_t)si + 100 * (uint64_t)real);
            fdnn_conv_problem_t p;
            CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_DATA, pb.xd, pb.wd, pb.cd, pb.yd, &p));
            CHECK_MSG(fdnn_conv_gemm_nhwc_krsc_bwd_data_applicable(&p) == CUDNN_STATUS_SUCCESS, "%s: declined",
                      s->name);
            fdnn_conv_problem_t more = p; /* over 64 positions: the direct solver's */
            more.n = 64 / pb.pos + 1;
            CHECK_MSG(fdnn_conv_gemm_nhwc_krsc_bwd_data_applicable(&more) == CUDNN_STATUS_NOT_SUPPORTED,
                      "%s at mb=%d: accepted", s->name, (int)more.n);
            fdnn_rng_t rng;
            fdnn_rng_seed(&rng, 700 + (uint64_t)si);
            double *dyr = malloc(pb.yn * 8), *ref = malloc(pb.xn * 8);
            fill(&rng, dyr, pb.yn, real);
            fdnn_ref_conv_bwd_data(&p, dyr, pb.wr, ref);
            float *dy = wdy(&pb, dyr);
            if (!real) {
                size_t ws = 99;
                CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, pb.wd, pb.yd, pb.cd, pb.xd,
                                                                      CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, &ws));
                CHECK(ws == 0);
                for (int li = 0; li < isas; li++)
                    for (int threads = 1; threads <= 2; threads++) {
                        CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(li)));
                        CHECK_OK(freednnSetNumThreads(h, threads));
                        char where[160];
                        snprintf(where, sizeof(where), "krsc bwd data %s isa %s threads %d", s->name,
                                 fdnn_test_isa_name(li), threads);
                        bcheck_exact(h, &pb, dy, ref, where);
                    }
            } else { /* 1, 2 and 3 threads bitwise, at the top level */
                CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isas - 1)));
                float *one = fdnn_guarded_alloc(pb.xs * 4), *two = fdnn_guarded_alloc(pb.xs * 4);
                fdnn_poison_f32(one, pb.xs);
                CHECK_OK(freednnSetNumThreads(h, 1));
                CHECK_OK(brun(h, &pb, dy, false, one));
                for (int threads = 2; threads <= 3; threads++) {
                    fdnn_poison_f32(two, pb.xs);
                    CHECK_OK(freednnSetNumThreads(h, threads));
                    CHECK_OK(brun(h, &pb, dy, false, two));
                    CHECK_MSG(memcmp(one, two, pb.xs * 4) == 0, "krsc bwd data %s: 1 and %d threads differ",
                              s->name, threads);
                }
                fdnn_guarded_free(one);
                fdnn_guarded_free(two);
            }
            fdnn_guarded_free(dy);
            free(dyr);
            free(ref);
            kprob_free(&pb);
        }
    }
    CHECK_OK(freednnSetNumThreads(h, 1));
}

/* The heuristic on ResNet-50's channels-last 3x3 backward data: ALGO_1
 * (this solver) under 64 output positions (res5 at mb=1), the direct
 * solver (ALGO_0) from there. */
static void
test_krsc_bwd_data_heuristic(void)
{
    const heur_case_t cases[] = {
        {1, 512, 7, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1},
        {1, 512, 14, 2, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1},
        {1, 256, 14, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0},
        {2, 512, 7, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0},
    };
    check_heuristic(FDNN_CONV_BWD_DATA, cases, sizeof(cases) / sizeof(cases[0]));
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    test_applicability();
    test_rows_applicability();
    test_against_reference(h);
    test_threads_bitwise(h);
    test_krsc(h);
    test_krsc_heuristic();
    test_krsc_wgrad(h);
    test_krsc_bwd_data(h);
    test_krsc_bwd_data_heuristic();
    CHECK_OK(cudnnDestroy(h));
    return fdnn_test_finish("test_conv_gemm_nhwc");
}
