/* SPDX-License-Identifier: Apache-2.0
 * The algorithms cuDNN programs fall back to when they have no workspace to
 * give: forward IMPLICIT_GEMM, backward data ALGO_0 and ALGO_1, backward
 * filter ALGO_0 and ALGO_1 (docs/convolution.md, "Zero-workspace
 * algorithms").  Each must report a workspace of 0 and run with workSpace
 * NULL and size 0:
 *
 *   - against the float64 reference (src/ref) on shapes that reach every
 *     path of the GEMM engine (1x1 in place, fully connected, strided,
 *     groups, dilation, CONVOLUTION mode, 3-D, 7x7 panels, backward
 *     filter's rows and wide paths, image chunks run one after another and
 *     in parallel), NCHW and NHWC, FLOAT (every ISA level) and DOUBLE, 1 and
 *     2 threads, outputs poisoned (beta 0) or blended (alpha 2, beta -1);
 *     small integer data make every sum exact, so the comparison is exact;
 *   - bitwise identical at 1 and 2 threads on real-valued data;
 *   - listed first by the _v7 queries under CUDNN_CONV_WSCAP_DBG=0, with
 *     memory 0 there and in the Find results.
 * And a call refused for a short workspace logs both sizes
 * (CUDNN_LOGERR_DBG / the error callback). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/conv.h"
#include "freednn.h"
#include "ref/conv_ref.h"
#include "testutil.h"

typedef struct shape {
    const char *name;
    int nsp; /* 2 or 3 */
    int n, c, k, g;
    int in[3], ker[3], pad[3], str[3], dil[3]; /* D, H, W (D = 1 for 2-D) */
    cudnnConvolutionMode_t mode;
    bool two_threads; /* over the 2^20 multiply-adds from which the pool is used */
} shape_t;

#define S2(name, n, c, k, g, h, w, kh, kw, ph, pw, sh, sw, dh, dw, mode, par)                           \
    {                                                                                                     \
        name, 2, n, c, k, g, {1, h, w}, {1, kh, kw}, {0, ph, pw}, {1, sh, sw}, {1, dh, dw}, mode, par     \
    }
#define XC CUDNN_CROSS_CORRELATION
#define CV CUDNN_CONVOLUTION

static const shape_t shapes[] = {
    S2("3x3 pad1", 2, 3, 4, 1, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, XC, false),
    S2("1x1 in place", 3, 8, 6, 1, 8, 7, 1, 1, 0, 0, 1, 1, 1, 1, XC, false),
    S2("1x1 s2", 2, 6, 4, 1, 9, 7, 1, 1, 0, 0, 2, 2, 1, 1, XC, false),
    S2("groups conv-mode s2", 3, 4, 6, 2, 5, 5, 3, 3, 1, 1, 2, 2, 1, 1, CV, false),
    S2("dilated", 2, 3, 5, 1, 9, 8, 3, 3, 2, 2, 1, 1, 2, 2, XC, false),
    S2("fc as conv", 3, 5, 3, 1, 4, 4, 4, 4, 0, 0, 1, 1, 1, 1, XC, false),
    S2("odd asym", 1, 3, 2, 1, 11, 5, 2, 4, 0, 3, 3, 1, 1, 2, XC, false),
    S2("depthwise", 2, 4, 4, 4, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, XC, false),
    /* 11 images: 8 chunks, one after another at 1 thread (backward filter
     * adds each partial filter as its chunk completes). */
    S2("chunks", 11, 2, 3, 1, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, XC, false),
    /* Backward filter's rows path (images under 256 positions). */
    S2("rows path", 19, 3, 5, 1, 7, 6, 3, 3, 1, 1, 2, 2, 1, 1, CV, false),
    /* Backward filter's wide path (256+ positions, stride phases). */
    S2("wide path", 2, 6, 40, 2, 34, 33, 3, 3, 1, 1, 2, 2, 1, 1, CV, false),
    /* 7x7 outputs: forward and backward data panels on the GEMM core. */
    S2("7x7 groups", 3, 4, 6, 2, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, CV, false),
    {"3-D", 3, 2, 3, 4, 1, {5, 5, 4}, {3, 3, 2}, {1, 1, 0}, {1, 2, 1}, {1, 1, 2}, CV, false},
    /* Pool in use at 2 threads: parallel image chunks (each with its own
     * buffers), one image (the GEMM parallel inside), the wide path in
     * parallel chunks. */
    S2("par chunks", 20, 16, 32, 1, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, XC, true),
    S2("one image", 1, 32, 64, 1, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, XC, true),
    S2("wide par chunks", 4, 16, 16, 1, 40, 40, 3, 3, 1, 1, 1, 1, 1, 1, CV, true),
};
#define NSHAPES (int)(sizeof(shapes) / sizeof(shapes[0]))

typedef struct run_algo {
    fdnn_conv_dir_t dir;
    int algo;
    const char *name;
} run_algo_t;

static const run_algo_t algos[] = {
    {FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, "fwd IMPLICIT_GEMM"},
    {FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, "bwd data ALGO_0"},
    {FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, "bwd data ALGO_1"},
    {FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, "bwd filter ALGO_0"},
    {FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, "bwd filter ALGO_1"},
};
#define NALGOS (int)(sizeof(algos) / sizeof(algos[0]))

/* One problem: descriptors, operands in the user's layout, and the
 * reference results (packed N,C,D,H,W doubles). */
typedef struct prob {
    const shape_t *s;
    bool nhwc;
    cudnnDataType_t dt;
    size_t es;
    int out[3];
    int osp, isp, q, cg;
    size_t xn, wn, yn;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    double *xr, *wr, *yr;    /* operands, packed NCHW */
    double *fwd, *bwd_d, *bwd_w; /* reference results, packed NCHW */
    void *x, *w, *y;         /* operands in the user's layout and type */
} prob_t;

/* Offset of element (n, c, spatial position sp) of a packed tensor of
 * C channels and sp_count positions, NCHW or NHWC. */
static size_t
elem(bool nhwc, int c_count, int sp_count, int n, int c, int sp)
{
    if (nhwc)
        return ((size_t)n * (size_t)sp_count + (size_t)sp) * (size_t)c_count + (size_t)c;
    return ((size_t)n * (size_t)c_count + (size_t)c) * (size_t)sp_count + (size_t)sp;
}

static void
set_tensor(cudnnTensorDescriptor_t d, cudnnDataType_t dt, bool nhwc, int nsp, int n, int c, const int *sp3)
{
    int dims[5] = {n, c}, st[5];
    const int *sp = sp3 + (3 - nsp);
    for (int i = 0; i < nsp; i++)
        dims[2 + i] = sp[i];
    int nb = nsp + 2, s = 1;
    if (nhwc) {
        st[1] = 1;
        s = c;
        for (int i = nb - 1; i >= 2; i--) {
            st[i] = s;
            s *= dims[i];
        }
        st[0] = s;
    } else {
        for (int i = nb - 1; i >= 0; i--) {
            st[i] = s;
            s *= dims[i];
        }
    }
    CHECK_OK(cudnnSetTensorNdDescriptor(d, dt, nb, dims, st));
}

/* Converts packed NCHW doubles to the user's layout and type, and back. */
static void
to_user(const prob_t *pb, const double *src, void *dst, int n, int c, int sp)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < c; j++)
            for (int k = 0; k < sp; k++) {
                double v = src[elem(false, c, sp, i, j, k)];
                size_t o = elem(pb->nhwc, c, sp, i, j, k);
                if (pb->dt == CUDNN_DATA_FLOAT)
                    ((float *)dst)[o] = (float)v;
                else
                    ((double *)dst)[o] = v;
            }
}

static double
user_at(const prob_t *pb, const void *buf, int c, int sp, int i, int j, int k)
{
    size_t o = elem(pb->nhwc, c, sp, i, j, k);
    return pb->dt == CUDNN_DATA_FLOAT ? (double)((const float *)buf)[o] : ((const double *)buf)[o];
}

static void
fill(fdnn_rng_t *rng, double *v, size_t n, bool real)
{
    for (size_t i = 0; i < n; i++)
        v[i] = real ? fdnn_rng_uniform(rng, -1, 1) : (double)fdnn_rng_int(rng, -3, 3);
}

static void
prob_init(prob_t *pb, const shape_t *s, bool nhwc, cudnnDataType_t dt, bool real, uint64_t seed)
{
    memset(pb, 0, sizeof(*pb));
    pb->s = s;
    pb->nhwc = nhwc;
    pb->dt = dt;
    pb->es = dt == CUDNN_DATA_FLOAT ? 4 : 8;
    pb->osp = pb->isp = pb->q = 1;
    for (int i = 0; i < 3; i++) {
        pb->out[i] = (int)fdnn_conv_out_size(s->in[i], s->ker[i], s->pad[i], s->str[i], s->dil[i]);
        pb->osp *= pb->out[i];
        pb->isp *= s->in[i];
        pb->q *= s->ker[i];
    }
    pb->cg = s->c / s->g;
    pb->xn = (size_t)s->n * (size_t)s->c * (size_t)pb->isp;
    pb->wn = (size_t)s->k * (size_t)pb->cg * (size_t)pb->q;
    pb->yn = (size_t)s->n * (size_t)s->k * (size_t)pb->osp;

    cudnnCreateTensorDescriptor(&pb->xd);
    cudnnCreateTensorDescriptor(&pb->yd);
    cudnnCreateFilterDescriptor(&pb->wd);
    cudnnCreateConvolutionDescriptor(&pb->cd);
    set_tensor(pb->xd, dt, nhwc, s->nsp, s->n, s->c, s->in);
    set_tensor(pb->yd, dt, nhwc, s->nsp, s->n, s->k, pb->out);
    int wdims[5] = {s->k, pb->cg};
    for (int i = 0; i < s->nsp; i++)
        wdims[2 + i] = s->ker[3 - s->nsp + i];
    CHECK_OK(cudnnSetFilterNdDescriptor(pb->wd, dt, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, s->nsp + 2,
                                        wdims));
    int pad[3], str[3], dil[3];
    for (int i = 0; i < s->nsp; i++) {
        pad[i] = s->pad[3 - s->nsp + i];
        str[i] = s->str[3 - s->nsp + i];
        dil[i] = s->dil[3 - s->nsp + i];
    }
    CHECK_OK(cudnnSetConvolutionNdDescriptor(pb->cd, s->nsp, pad, str, dil, s->mode, dt));
    CHECK_OK(cudnnSetConvolutionGroupCount(pb->cd, s->g));

    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, seed);
    pb->xr = malloc(pb->xn * 8);
    pb->wr = malloc(pb->wn * 8);
    pb->yr = malloc(pb->yn * 8);
    fill(&rng, pb->xr, pb->xn, real);
    fill(&rng, pb->wr, pb->wn, real);
    fill(&rng, pb->yr, pb->yn, real);
    pb->x = fdnn_guarded_alloc(pb->xn * pb->es);
    pb->w = fdnn_guarded_alloc(pb->wn * pb->es);
    pb->y = fdnn_guarded_alloc(pb->yn * pb->es);
    to_user(pb, pb->xr, pb->x, s->n, s->c, pb->isp);
    to_user(pb, pb->wr, pb->w, s->k, pb->cg, pb->q);
    to_user(pb, pb->yr, pb->y, s->n, s->k, pb->osp);

    if (!real) {
        fdnn_conv_problem_t p;
        memset(&p, 0, sizeof(p));
        p.nsp = s->nsp;
        p.n = s->n, p.c = s->c, p.k = s->k, p.g = s->g;
        for (int i = 0; i < 3; i++) {
            p.in[i] = s->in[i];
            p.ker[i] = s->ker[i];
            p.pad[i] = s->pad[i];
            p.stride[i] = s->str[i];
            p.dil[i] = s->dil[i];
            p.out[i] = pb->out[i];
        }
        p.flip = s->mode == CUDNN_CONVOLUTION;
        pb->fwd = malloc(pb->yn * 8);
        pb->bwd_d = malloc(pb->xn * 8);
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

/* The output of a direction: its buffer and its shape (images, channels,
 * positions). */
static void
out_shape(const prob_t *pb, fdnn_conv_dir_t dir, size_t *count, int *n, int *c, int *sp)
{
    const shape_t *s = pb->s;
    if (dir == FDNN_CONV_FWD)
        *count = pb->yn, *n = s->n, *c = s->k, *sp = pb->osp;
    else if (dir == FDNN_CONV_BWD_DATA)
        *count = pb->xn, *n = s->n, *c = s->c, *sp = pb->isp;
    else
        *count = pb->wn, *n = s->k, *c = pb->cg, *sp = pb->q;
}

/* Runs one algorithm with workSpace NULL and size 0 into out. */
static cudnnStatus_t
run(cudnnHandle_t h, const prob_t *pb, const run_algo_t *a, double alpha, double beta, void *out)
{
    float af = (float)alpha, bf = (float)beta;
    const void *al = pb->dt == CUDNN_DATA_FLOAT ? (const void *)&af : (const void *)&alpha;
    const void *be = pb->dt == CUDNN_DATA_FLOAT ? (const void *)&bf : (const void *)&beta;
    switch (a->dir) {
    case FDNN_CONV_FWD:
        return cudnnConvolutionForward(h, al, pb->xd, pb->x, pb->wd, pb->w, pb->cd, a->algo, NULL, 0, be, pb->yd,
                                       out);
    case FDNN_CONV_BWD_DATA:
        return cudnnConvolutionBackwardData(h, al, pb->wd, pb->w, pb->yd, pb->y, pb->cd, a->algo, NULL, 0, be,
                                            pb->xd, out);
    case FDNN_CONV_BWD_FILTER:
        return cudnnConvolutionBackwardFilter(h, al, pb->xd, pb->x, pb->yd, pb->y, pb->cd, a->algo, NULL, 0, be,
                                              pb->wd, out);
    }
    return CUDNN_STATUS_INTERNAL_ERROR;
}

static cudnnStatus_t
workspace_size(cudnnHandle_t h, const prob_t *pb, const run_algo_t *a, size_t *bytes)
{
    switch (a->dir) {
    case FDNN_CONV_FWD:
        return cudnnGetConvolutionForwardWorkspaceSize(h, pb->xd, pb->wd, pb->cd, pb->yd, a->algo, bytes);
    case FDNN_CONV_BWD_DATA:
        return cudnnGetConvolutionBackwardDataWorkspaceSize(h, pb->wd, pb->yd, pb->cd, pb->xd, a->algo, bytes);
    case FDNN_CONV_BWD_FILTER:
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, pb->xd, pb->yd, pb->cd, pb->wd, a->algo, bytes);
    }
    return CUDNN_STATUS_INTERNAL_ERROR;
}

/* Every algorithm against the reference: beta 0 into a poisoned output,
 * then alpha 2, beta -1 over integer data (2*ref - old, exact). */
static void
check_exact(cudnnHandle_t h, const prob_t *pb, const char *where)
{
    for (int ai = 0; ai < NALGOS; ai++) {
        const run_algo_t *a = &algos[ai];
        size_t ws = 99;
        CHECK_OK(workspace_size(h, pb, a, &ws));
        CHECK_MSG(ws == 0, "%s %s: workspace %zu, not 0", where, a->name, ws);
        size_t count;
        int n, c, sp;
        out_shape(pb, a->dir, &count, &n, &c, &sp);
        const double *ref = a->dir == FDNN_CONV_FWD ? pb->fwd : a->dir == FDNN_CONV_BWD_DATA ? pb->bwd_d : pb->bwd_w;
        void *out = fdnn_guarded_alloc(count * pb->es);
        double *old = malloc(count * 8);
        for (int blend = 0; blend < 2; blend++) {
            if (blend) {
                for (size_t i = 0; i < count; i++)
                    old[i] = (double)((int)(i % 7) - 3);
                to_user(pb, old, out, n, c, sp);
            } else if (pb->dt == CUDNN_DATA_FLOAT) {
                fdnn_poison_f32(out, count);
            } else {
                fdnn_poison_f64(out, count);
            }
            cudnnStatus_t st = run(h, pb, a, blend ? 2 : 1, blend ? -1 : 0, out);
            CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s %s blend %d: %s", where, a->name, blend,
                      cudnnGetErrorString(st));
            if (st != CUDNN_STATUS_SUCCESS)
                continue;
            size_t bad = 0, first = 0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < c; j++)
                    for (int k = 0; k < sp; k++) {
                        size_t r = elem(false, c, sp, i, j, k);
                        double want = blend ? 2 * ref[r] - old[r] : ref[r];
                        if (!(user_at(pb, out, c, sp, i, j, k) == want) && bad++ == 0)
                            first = r;
                    }
            CHECK_MSG(bad == 0, "%s %s blend %d: %zu of %zu wrong (first at %zu: want %g)", where, a->name, blend,
                      bad, count, first, blend ? 2 * ref[first] - old[first] : ref[first]);
        }
        free(old);
        fdnn_guarded_free(out);
    }
}

static void
test_against_reference(cudnnHandle_t h)
{
    int isas = fdnn_test_isa_count();
    for (int si = 0; si < NSHAPES; si++)
        for (int nhwc = 0; nhwc < 2; nhwc++)
            for (int dt = 0; dt < 2; dt++) {
                cudnnDataType_t type = dt ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
                prob_t pb;
                prob_init(&pb, &shapes[si], nhwc, type, false, 100 + (uint64_t)si);
                /* FLOAT on every ISA level (the fused kernels are per
                 * level) at 1 thread; the default level at 2 threads. */
                int levels = type == CUDNN_DATA_FLOAT ? isas : 1;
                for (int li = 0; li < levels + 1; li++) {
                    bool two = li == levels;
                    if (two && !shapes[si].two_threads && !(si == 0 && nhwc == 0))
                        continue;
                    CHECK_OK(freednnSetIsa(h, two ? fdnn_test_isa_name(isas - 1) : fdnn_test_isa_name(li)));
                    CHECK_OK(freednnSetNumThreads(h, two ? 2 : 1));
                    char where[160];
                    snprintf(where, sizeof(where), "%s %s %s isa %s threads %d", shapes[si].name,
                             nhwc ? "nhwc" : "nchw", dt ? "double" : "float",
                             two ? fdnn_test_isa_name(isas - 1) : fdnn_test_isa_name(li), two ? 2 : 1);
                    check_exact(h, &pb, where);
                }
                prob_free(&pb);
            }
    CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(isas - 1)));
    CHECK_OK(freednnSetNumThreads(h, 1));
}

/* Real-valued data: 1 and 2 threads give the same bits (image chunks in
 * parallel, each with its own partial filter, against one after another
 * adding each partial as it completes). */
static void
test_threads_bitwise(cudnnHandle_t h)
{
    for (int si = 0; si < NSHAPES; si++) {
        if (!shapes[si].two_threads && si != 8 && si != 10)
            continue;
        for (int nhwc = 0; nhwc < 2; nhwc++) {
            prob_t pb;
            prob_init(&pb, &shapes[si], nhwc, CUDNN_DATA_FLOAT, true, 7 + (uint64_t)si);
            for (int ai = 0; ai < NALGOS; ai++) {
                const run_algo_t *a = &algos[ai];
                size_t count;
                int n, c, sp;
                out_shape(&pb, a->dir, &count, &n, &c, &sp);
                float *one = fdnn_guarded_alloc(count * 4), *two = fdnn_guarded_alloc(count * 4);
                fdnn_poison_f32(one, count);
                fdnn_poison_f32(two, count);
                CHECK_OK(freednnSetNumThreads(h, 1));
                CHECK_OK(run(h, &pb, a, 1, 0, one));
                CHECK_OK(freednnSetNumThreads(h, 2));
                CHECK_OK(run(h, &pb, a, 1, 0, two));
                CHECK_MSG(memcmp(one, two, count * 4) == 0, "%s %s %s: 1 and 2 threads differ", shapes[si].name,
                          nhwc ? "nhwc" : "nchw", a->name);
                bool finite = true;
                for (size_t i = 0; i < count; i++)
                    finite = finite && isfinite(one[i]);
                CHECK_MSG(finite, "%s %s: output not fully written", shapes[si].name, a->name);
                fdnn_guarded_free(one);
                fdnn_guarded_free(two);
            }
            prob_free(&pb);
        }
    }
    CHECK_OK(freednnSetNumThreads(h, 1));
}

/* _v7 under CUDNN_CONV_WSCAP_DBG=0 lists the zero-workspace fallbacks first
 * (forward: IMPLICIT_GEMM, even where the heuristic prefers DIRECT);
 * every success has memory 0; Find reports memory 0 for them. */
static void
test_queries(cudnnHandle_t h)
{
    /* "dilated" (DIRECT first without a cap: 144 output positions, 3
     * channels, 3x3) and "1x1 in place". */
    const int picks[2] = {4, 1};
    for (int pi = 0; pi < 2; pi++) {
        prob_t pb;
        prob_init(&pb, &shapes[picks[pi]], false, CUDNN_DATA_FLOAT, true, 3);
        const char *name = shapes[picks[pi]].name;
        int n = 0;
        cudnnConvolutionFwdAlgoPerf_t pf[8];
        if (pi == 0) {
            CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, pb.xd, pb.wd, pb.cd, pb.yd, 8, &n, pf));
            CHECK_MSG(pf[0].algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, "%s: no cap, first algo %d", name,
                      (int)pf[0].algo);
        }
        setenv("CUDNN_CONV_WSCAP_DBG", "0", 1);
        CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, pb.xd, pb.wd, pb.cd, pb.yd, 8, &n, pf));
        CHECK_MSG(n == 8 && pf[0].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM &&
                      pf[0].status == CUDNN_STATUS_SUCCESS && pf[0].memory == 0,
                  "%s: fwd _v7 under a zero cap starts with algo %d (status %d, memory %zu)", name, (int)pf[0].algo,
                  (int)pf[0].status, pf[0].memory);
        for (int i = 0; i < n; i++)
            if (pf[i].status == CUDNN_STATUS_SUCCESS)
                CHECK(pf[i].memory == 0);
        cudnnConvolutionBwdDataAlgoPerf_t pd[6];
        CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, pb.wd, pb.yd, pb.cd, pb.xd, 6, &n, pd));
        CHECK(n == 6);
        for (int i = 0; i < 2; i++)
            CHECK_MSG((pd[i].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 ||
                       pd[i].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1) &&
                          pd[i].status == CUDNN_STATUS_SUCCESS && pd[i].memory == 0,
                      "%s: bwd data _v7 entry %d is algo %d", name, i, (int)pd[i].algo);
        cudnnConvolutionBwdFilterAlgoPerf_t pw[7];
        CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, pb.xd, pb.yd, pb.cd, pb.wd, 7, &n, pw));
        CHECK(n == 7);
        for (int i = 0; i < 2; i++)
            CHECK_MSG((pw[i].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 ||
                       pw[i].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1) &&
                          pw[i].status == CUDNN_STATUS_SUCCESS && pw[i].memory == 0,
                      "%s: bwd filter _v7 entry %d is algo %d", name, i, (int)pw[i].algo);
        unsetenv("CUDNN_CONV_WSCAP_DBG");

        /* Without a cap too, these report memory 0 in _v7 and Find. */
        CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, pb.xd, pb.wd, pb.cd, pb.yd, 8, &n, pf));
        for (int i = 0; i < n; i++)
            if (pf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM)
                CHECK(pf[i].status == CUDNN_STATUS_SUCCESS && pf[i].memory == 0);
        CHECK_OK(cudnnFindConvolutionForwardAlgorithm(h, pb.xd, pb.wd, pb.cd, pb.yd, 8, &n, pf));
        for (int i = 0; i < n; i++)
            if (pf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM)
                CHECK(pf[i].status == CUDNN_STATUS_SUCCESS && pf[i].memory == 0);
        CHECK_OK(cudnnFindConvolutionBackwardDataAlgorithm(h, pb.wd, pb.yd, pb.cd, pb.xd, 6, &n, pd));
        for (int i = 0; i < n; i++)
            if (pd[i].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 || pd[i].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1)
                CHECK(pd[i].status == CUDNN_STATUS_SUCCESS && pd[i].memory == 0);
        CHECK_OK(cudnnFindConvolutionBackwardFilterAlgorithm(h, pb.xd, pb.yd, pb.cd, pb.wd, 7, &n, pw));
        for (int i = 0; i < n; i++)
            if (pw[i].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 ||
                pw[i].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1)
                CHECK(pw[i].status == CUDNN_STATUS_SUCCESS && pw[i].memory == 0);
        /* FindEx with no workspace at all: IMPLICIT_GEMM runs. */
        CHECK_OK(cudnnFindConvolutionForwardAlgorithmEx(h, pb.xd, pb.x, pb.wd, pb.w, pb.cd, pb.yd, pb.y, 8, &n, pf,
                                                        NULL, 0));
        for (int i = 0; i < n; i++)
            if (pf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM)
                CHECK(pf[i].status == CUDNN_STATUS_SUCCESS && pf[i].memory == 0);
        prob_free(&pb);
    }
}

static char last_error[2048];
static int errors;

static void
capture(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)udata;
    (void)dbg;
    if (sev != CUDNN_SEV_ERROR)
        return;
    errors++;
    strncpy(last_error, msg, sizeof(last_error) - 1);
}

/* A call refused for its workspace logs the size given and the size
 * needed, in every direction; the zero-workspace algorithms log nothing. */
static void
test_log_sizes(cudnnHandle_t h)
{
    prob_t pb;
    prob_init(&pb, &shapes[0], false, CUDNN_DATA_FLOAT, true, 4);
    CHECK_OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN, NULL, capture));
    const run_algo_t needy[3] = {
        {FDNN_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, "fwd GEMM"},
        {FDNN_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, "bwd data FFT"},
        {FDNN_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3, "bwd filter ALGO_3"},
    };
    float one = 1, zero = 0;
    char given[64], needed[64];
    for (int i = 0; i < 3; i++) {
        const run_algo_t *a = &needy[i];
        size_t need = 0;
        CHECK_OK(workspace_size(h, &pb, a, &need));
        CHECK_MSG(need > 8, "%s: needs %zu bytes", a->name, need);
        void *ws = fdnn_guarded_alloc(need);
        size_t short_by_one = need - 1;
        size_t count;
        int n, c, sp;
        out_shape(&pb, a->dir, &count, &n, &c, &sp);
        float *out = fdnn_guarded_alloc(count * 4);
        fdnn_poison_f32(out, count);
        errors = 0;
        last_error[0] = '\0';
        cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
        if (a->dir == FDNN_CONV_FWD)
            st = cudnnConvolutionForward(h, &one, pb.xd, pb.x, pb.wd, pb.w, pb.cd, a->algo, ws, short_by_one, &zero,
                                         pb.yd, out);
        else if (a->dir == FDNN_CONV_BWD_DATA)
            st = cudnnConvolutionBackwardData(h, &one, pb.wd, pb.w, pb.yd, pb.y, pb.cd, a->algo, ws, short_by_one,
                                              &zero, pb.xd, out);
        else
            st = cudnnConvolutionBackwardFilter(h, &one, pb.xd, pb.x, pb.yd, pb.y, pb.cd, a->algo, ws,
                                                short_by_one, &zero, pb.wd, out);
        CHECK_STATUS(st, CUDNN_STATUS_BAD_PARAM);
        snprintf(given, sizeof(given), "workSpaceSizeInBytes is %zu", short_by_one);
        snprintf(needed, sizeof(needed), "needs %zu", need);
        CHECK_MSG(errors >= 1 && strstr(last_error, given) != NULL && strstr(last_error, needed) != NULL,
                  "%s: the error log does not name %zu and %zu: \"%s\"", a->name, short_by_one, need, last_error);
        bool untouched = true;
        for (size_t j = 0; j < count; j++)
            untouched = untouched && isnan(out[j]);
        CHECK_MSG(untouched, "%s: a refused call wrote its output", a->name);
        fdnn_guarded_free(out);
        fdnn_guarded_free(ws);
    }
    /* The zero-workspace algorithms: no error at all. */
    errors = 0;
    for (int ai = 0; ai < NALGOS; ai++) {
        size_t count;
        int n, c, sp;
        out_shape(&pb, algos[ai].dir, &count, &n, &c, &sp);
        float *out = fdnn_guarded_alloc(count * 4);
        CHECK_OK(run(h, &pb, &algos[ai], 1, 0, out));
        fdnn_guarded_free(out);
    }
    CHECK(errors == 0);
    CHECK_OK(cudnnSetCallback(0, NULL, NULL));
    prob_free(&pb);
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    test_against_reference(h);
    test_threads_bitwise(h);
    test_queries(h);
    test_log_sizes(h);
    CHECK_OK(cudnnDestroy(h));
    return fdnn_test_finish("test_conv_zero_workspace");
}
