/* SPDX-License-Identifier: Apache-2.0
 * cudnnMakeFusedOpsPlan and cudnnFusedOpsExecute: each of the seven
 * cudnnFusedOps_t patterns against the float64 composition of the reference
 * ops (src/ref: convolution, batch-norm backward) and the documented
 * formulas, FLOAT and HALF, NCHW and NHWC, outputs poisoned before each run;
 * then bad packs (missing descriptor or pointer, wrong type or shape,
 * misaligned pointers under ELEM_ALIGNED / 16B_ALIGNED, a CUDNN_PTR_NULL
 * placeholder whose pointer must be ignored, short workspace) and their
 * statuses. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/conv.h"
#include "cpu/simd/cvt.h"
#include "freednn.h"
#include "ref/batchnorm_ref.h"
#include "ref/conv_ref.h"
#include "testutil.h"

static cudnnHandle_t H;
static fdnn_rng_t rng;

/* When set, the tests append their outputs' bytes here, for the bitwise
 * comparison of 1 and 2 threads. */
static unsigned char *cap;
static size_t cap_len, cap_max;

static void
capture(const void *p, size_t bytes)
{
    if (cap == NULL || cap_len + bytes > cap_max)
        return;
    memcpy(cap + cap_len, p, bytes);
    cap_len += bytes;
}

/* ---- buffers: FLOAT / HALF / INT32 storage of NCHW-ordered doubles ------- */

static size_t
dsize(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_HALF ? 2 : 4;
}

static void *
talloc(cudnnDataType_t dt, size_t n)
{
    /* 16-byte multiples: guarded buffers end on a page, so they start
     * 16-byte aligned. */
    return fdnn_guarded_alloc((n * dsize(dt) + 15) & ~(size_t)15);
}

static void
tput(cudnnDataType_t dt, void *p, size_t i, double v)
{
    if (dt == CUDNN_DATA_HALF)
        ((uint16_t *)p)[i] = fdnn_f32_to_f16((float)v);
    else
        ((float *)p)[i] = (float)v;
}

static double
tget(cudnnDataType_t dt, const void *p, size_t i)
{
    return dt == CUDNN_DATA_HALF ? fdnn_f16_to_f32(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

/* Offset of logical (n, c, h, w) of an N x C x H x W packed tensor. */
static size_t
idx(cudnnTensorFormat_t f, int N, int C, int Hh, int W, int n, int c, int h, int w)
{
    (void)N;
    if (f == CUDNN_TENSOR_NHWC)
        return (((size_t)n * Hh + h) * W + w) * C + c;
    return (((size_t)n * C + c) * Hh + h) * W + w;
}

/* Stores logical NCHW doubles src into buf (rounding to dt), then reads the
 * stored values back into src so the reference sees what the library does. */
static void
put4(cudnnDataType_t dt, cudnnTensorFormat_t f, const int d[4], double *src, void *buf)
{
    for (int n = 0; n < d[0]; n++)
        for (int c = 0; c < d[1]; c++)
            for (int h = 0; h < d[2]; h++)
                for (int w = 0; w < d[3]; w++) {
                    size_t l = (((size_t)n * d[1] + c) * d[2] + h) * d[3] + w;
                    size_t o = idx(f, d[0], d[1], d[2], d[3], n, c, h, w);
                    tput(dt, buf, o, src[l]);
                    src[l] = tget(dt, buf, o);
                }
}

static void
get4(cudnnDataType_t dt, cudnnTensorFormat_t f, const int d[4], const void *buf, double *dst)
{
    for (int n = 0; n < d[0]; n++)
        for (int c = 0; c < d[1]; c++)
            for (int h = 0; h < d[2]; h++)
                for (int w = 0; w < d[3]; w++)
                    dst[(((size_t)n * d[1] + c) * d[2] + h) * d[3] + w] =
                        tget(dt, buf, idx(f, d[0], d[1], d[2], d[3], n, c, h, w));
}

static size_t
count4(const int d[4])
{
    return (size_t)d[0] * d[1] * d[2] * d[3];
}

static double *
rand_vec(size_t n, double lo, double hi)
{
    double *v = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        v[i] = fdnn_rng_uniform(&rng, lo, hi);
    return v;
}

/* A data buffer of dims d filled from a random logical array (returned in
 * *vals, rounded to what was stored). */
static void *
rand_buf(cudnnDataType_t dt, cudnnTensorFormat_t f, const int d[4], double lo, double hi, double **vals)
{
    *vals = rand_vec(count4(d), lo, hi);
    void *b = talloc(dt, count4(d));
    put4(dt, f, d, *vals, b);
    return b;
}

static void *
poisoned(cudnnDataType_t dt, size_t n)
{
    void *b = talloc(dt, n);
    fdnn_poison_bytes(b, n * dsize(dt));
    return b;
}

/* max |got - ref| <= tol * max(|ref|), NaN failing. */
static void
compare(const char *what, const double *got, const double *ref, size_t n, double tol)
{
    double scale = 1e-30, worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++)
        scale = fmax(scale, fabs(ref[i]));
    for (size_t i = 0; i < n; i++) {
        double e = fabs(got[i] - ref[i]);
        if (!(e <= worst)) {
            worst = e;
            at = i;
            if (e != e)
                break;
        }
    }
    CHECK_MSG(worst <= tol * scale, "%s: error %g at %zu (got %g, want %g), tolerance %g", what, worst, at, got[at],
              ref[at], tol * scale);
}

static cudnnTensorDescriptor_t
tdesc(cudnnDataType_t dt, cudnnTensorFormat_t f, int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t d;
    CHECK_OK(cudnnCreateTensorDescriptor(&d));
    CHECK_OK(cudnnSetTensor4dDescriptor(d, f, dt, n, c, h, w));
    return d;
}

static double
tolerance(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_HALF ? 4e-3 : 2e-5;
}

#define SETC(cp, l, v) CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(cp, l, v))
#define SETV(vp, l, v) CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(vp, l, v))

static const cudnnFusedOpsPointerPlaceHolder_t ELEM = CUDNN_PTR_ELEM_ALIGNED, B16 = CUDNN_PTR_16B_ALIGNED,
                                               PNULL = CUDNN_PTR_NULL;

/* Makes a plan for cp, gives it a workspace, executes vp; returns the
 * status of the first call that fails. */
static cudnnStatus_t
run(cudnnFusedOpsConstParamPack_t cp, cudnnFusedOpsVariantParamPack_t vp, cudnnFusedOps_t op)
{
    cudnnFusedOpsPlan_t plan;
    CHECK_OK(cudnnCreateFusedOpsPlan(&plan, op));
    size_t ws = 12345;
    cudnnStatus_t st = cudnnMakeFusedOpsPlan(H, plan, cp, &ws);
    void *w = NULL;
    if (st == CUDNN_STATUS_SUCCESS) {
        w = ws > 0 ? fdnn_guarded_alloc(ws) : NULL;
        if (w != NULL)
            fdnn_poison_bytes(w, ws);
        CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_WORKSPACE, w));
        CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws));
        st = cudnnFusedOpsExecute(H, plan, vp);
    }
    if (w != NULL)
        fdnn_guarded_free(w);
    CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
    return st;
}

/* ---- op 0 and 1: [scale] [bias] [ReLU] then conv / wgrad ----------------- */

typedef struct conv_case {
    cudnnDataType_t dt;
    cudnnTensorFormat_t f;
    bool scale, bias, relu, stats;
} conv_case_t;

static void
test_conv_bnstats(conv_case_t cc)
{
    const int xd[4] = {2, 8, 6, 5}, wd[4] = {16, 8, 3, 3}, yd[4] = {2, 16, 6, 5};
    const int C = xd[1], K = wd[0];
    cudnnTensorDescriptor_t xD = tdesc(cc.dt, cc.f, xd[0], xd[1], xd[2], xd[3]);
    cudnnTensorDescriptor_t yD = tdesc(cc.dt, cc.f, yd[0], yd[1], yd[2], yd[3]);
    cudnnTensorDescriptor_t eqD = tdesc(cc.dt, CUDNN_TENSOR_NCHW, 1, C, 1, 1);
    cudnnTensorDescriptor_t stD = tdesc(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, K, 1, 1);
    cudnnFilterDescriptor_t wD;
    CHECK_OK(cudnnCreateFilterDescriptor(&wD));
    CHECK_OK(cudnnSetFilter4dDescriptor(wD, cc.dt, cc.f, wd[0], wd[1], wd[2], wd[3]));
    cudnnConvolutionDescriptor_t cD;
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cD));
    CHECK_OK(cudnnSetConvolution2dDescriptor(cD, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    cudnnActivationDescriptor_t aD;
    CHECK_OK(cudnnCreateActivationDescriptor(&aD));
    CHECK_OK(cudnnSetActivationDescriptor(aD, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));

    double *x, *w, *s = rand_vec(C, 0.5, 1.5), *b = rand_vec(C, -0.5, 0.5);
    void *xb = rand_buf(cc.dt, cc.f, xd, -1, 1, &x), *wb = rand_buf(cc.dt, cc.f, wd, -0.5, 0.5, &w);
    const int cd[4] = {1, C, 1, 1};
    void *sb = talloc(cc.dt, C), *bb = talloc(cc.dt, C);
    put4(cc.dt, CUDNN_TENSOR_NCHW, cd, s, sb);
    put4(cc.dt, CUDNN_TENSOR_NCHW, cd, b, bb);

    /* Reference: xs = relu(x * s + b), y = conv(xs, w), sums of y. */
    size_t nx = count4(xd), ny = count4(yd);
    double *xs = malloc(nx * sizeof(double)), *yr = malloc(ny * sizeof(double));
    for (size_t i = 0; i < nx; i++) {
        int c = (int)(i / (size_t)(xd[2] * xd[3]) % (size_t)C);
        double v = x[i] * (cc.scale ? s[c] : 1.0) + (cc.bias ? b[c] : 0.0);
        xs[i] = cc.relu && v < 0 ? 0 : v;
    }
    fdnn_conv_problem_t p;
    CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, xD, wD, cD, yD, &p));
    fdnn_ref_conv_fwd(&p, xs, w, yr);
    double sum_r[16] = {0}, sq_r[16] = {0};
    for (size_t i = 0; i < ny; i++) {
        int k = (int)(i / (size_t)(yd[2] * yd[3]) % (size_t)K);
        sum_r[k] += yr[i];
        sq_r[k] += yr[i] * yr[i];
    }

    cudnnFusedOpsConstParamPack_t cp;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&cp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS));
    cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;
    SETC(cp, CUDNN_PARAM_XDESC, xD);
    SETC(cp, CUDNN_PARAM_XDATA_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_BN_MODE, &mode);
    SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
    SETC(cp, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, cc.scale ? &ELEM : &PNULL);
    SETC(cp, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, cc.bias ? &B16 : &PNULL);
    SETC(cp, CUDNN_PARAM_ACTIVATION_DESC, cc.relu ? (void *)aD : NULL);
    SETC(cp, CUDNN_PARAM_CONV_DESC, cD);
    SETC(cp, CUDNN_PARAM_WDESC, wD);
    SETC(cp, CUDNN_PARAM_WDATA_PLACEHOLDER, &B16);
    SETC(cp, CUDNN_PARAM_YDESC, yD);
    SETC(cp, CUDNN_PARAM_YDATA_PLACEHOLDER, &B16);
    SETC(cp, CUDNN_PARAM_YSTATS_DESC, stD);
    SETC(cp, CUDNN_PARAM_YSUM_PLACEHOLDER, cc.stats ? &B16 : &PNULL);
    SETC(cp, CUDNN_PARAM_YSQSUM_PLACEHOLDER, cc.stats ? &ELEM : &PNULL);

    void *yb = poisoned(cc.dt, ny), *sumb = poisoned(CUDNN_DATA_FLOAT, K), *sqb = poisoned(CUDNN_DATA_FLOAT, K);
    cudnnFusedOpsVariantParamPack_t vp;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS));
    SETV(vp, CUDNN_PTR_XDATA, xb);
    /* With a CUDNN_PTR_NULL placeholder the pointer is ignored: give a bad one. */
    SETV(vp, CUDNN_PTR_BN_EQSCALE, cc.scale ? sb : (void *)(uintptr_t)1);
    SETV(vp, CUDNN_PTR_BN_EQBIAS, cc.bias ? bb : (void *)(uintptr_t)1);
    SETV(vp, CUDNN_PTR_WDATA, wb);
    SETV(vp, CUDNN_PTR_YDATA, yb);
    SETV(vp, CUDNN_PTR_YSUM, sumb);
    SETV(vp, CUDNN_PTR_YSQSUM, sqb);
    CHECK_OK(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS));

    capture(yb, ny * dsize(cc.dt));
    capture(sumb, K * sizeof(float));
    capture(sqb, K * sizeof(float));
    double *yg = malloc(ny * sizeof(double));
    get4(cc.dt, cc.f, yd, yb, yg);
    compare("conv_bnstats y", yg, yr, ny, tolerance(cc.dt));
    if (cc.stats) {
        double sg[16], qg[16];
        for (int k = 0; k < K; k++) {
            sg[k] = ((float *)sumb)[k];
            qg[k] = ((float *)sqb)[k];
        }
        /* The sums are taken over the stored (rounded) y. */
        compare("conv_bnstats ySum", sg, sum_r, (size_t)K, cc.dt == CUDNN_DATA_HALF ? 2e-2 : 1e-4);
        compare("conv_bnstats ySqSum", qg, sq_r, (size_t)K, cc.dt == CUDNN_DATA_HALF ? 1e-2 : 1e-5);
    } else {
        CHECK(((uint32_t *)sumb)[0] == 0xFFFFFFFFu); /* not written */
    }

    if (cc.dt == CUDNN_DATA_FLOAT && cc.f == CUDNN_TENSOR_NCHW && cc.stats && cc.scale) {
        /* Bad packs, each restored after its check. */
        cudnnBatchNormMode_t per_act = CUDNN_BATCHNORM_PER_ACTIVATION;
        SETC(cp, CUDNN_PARAM_BN_MODE, &per_act);
        CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS), CUDNN_STATUS_NOT_SUPPORTED);
        SETC(cp, CUDNN_PARAM_BN_MODE, &mode);
        cudnnTensorDescriptor_t hD = tdesc(CUDNN_DATA_HALF, CUDNN_TENSOR_NCHW, 1, K, 1, 1);
        SETC(cp, CUDNN_PARAM_YSTATS_DESC, hD); /* HALF statistics */
        CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS), CUDNN_STATUS_NOT_SUPPORTED);
        SETC(cp, CUDNN_PARAM_YSTATS_DESC, stD);
        cudnnTensorDescriptor_t dD = tdesc(CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 1, C, 1, 1);
        SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, dD); /* DOUBLE scale */
        CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS), CUDNN_STATUS_NOT_SUPPORTED);
        SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, NULL); /* scale promised, no descriptor */
        CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS), CUDNN_STATUS_BAD_PARAM);
        SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
        SETC(cp, CUDNN_PARAM_CONV_DESC, NULL);
        CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS), CUDNN_STATUS_BAD_PARAM);
        SETC(cp, CUDNN_PARAM_CONV_DESC, cD);
        SETC(cp, CUDNN_PARAM_WDATA_PLACEHOLDER, &PNULL); /* w is not optional */
        CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS), CUDNN_STATUS_BAD_PARAM);
        SETC(cp, CUDNN_PARAM_WDATA_PLACEHOLDER, &B16);
        cudnnTensorDescriptor_t y2D = tdesc(cc.dt, cc.f, yd[0], yd[1], yd[2] + 1, yd[3]);
        SETC(cp, CUDNN_PARAM_YDESC, y2D); /* not the convolution's output size */
        CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS), CUDNN_STATUS_BAD_PARAM);
        SETC(cp, CUDNN_PARAM_YDESC, yD);
        SETV(vp, CUDNN_PTR_YSUM, (char *)sumb + 4); /* 16B_ALIGNED promised */
        CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS), CUDNN_STATUS_BAD_PARAM);
        SETV(vp, CUDNN_PTR_YSUM, sumb);
        /* The plan keeps what it needs: the pack may go after Make. */
        cudnnFusedOpsConstParamPack_t tmp;
        CHECK_OK(cudnnCreateFusedOpsConstParamPack(&tmp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS));
        static const int copy_labels[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 18};
        for (size_t i = 0; i < sizeof(copy_labels) / sizeof(copy_labels[0]); i++) {
            cudnnFusedOpsConstParamLabel_t l = (cudnnFusedOpsConstParamLabel_t)copy_labels[i];
            int isnull = 0;
            if (l == CUDNN_PARAM_XDESC || l == CUDNN_PARAM_BN_EQSCALEBIAS_DESC || l == CUDNN_PARAM_YDESC ||
                l == CUDNN_PARAM_YSTATS_DESC || l == CUDNN_PARAM_CONV_DESC || l == CUDNN_PARAM_WDESC ||
                l == CUDNN_PARAM_ACTIVATION_DESC)
                continue;
            int v = 0;
            CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(cp, l, &v, &isnull));
            SETC(tmp, l, &v);
        }
        SETC(tmp, CUDNN_PARAM_XDESC, xD);
        SETC(tmp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
        SETC(tmp, CUDNN_PARAM_YDESC, yD);
        SETC(tmp, CUDNN_PARAM_YSTATS_DESC, stD);
        SETC(tmp, CUDNN_PARAM_CONV_DESC, cD);
        SETC(tmp, CUDNN_PARAM_WDESC, wD);
        SETC(tmp, CUDNN_PARAM_ACTIVATION_DESC, cc.relu ? (void *)aD : NULL);
        cudnnFusedOpsPlan_t plan;
        CHECK_OK(cudnnCreateFusedOpsPlan(&plan, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS));
        size_t wsb = 0;
        CHECK_OK(cudnnMakeFusedOpsPlan(H, plan, tmp, &wsb));
        CHECK_OK(cudnnDestroyFusedOpsConstParamPack(tmp));
        void *wsp = fdnn_guarded_alloc(wsb);
        SETV(vp, CUDNN_PTR_WORKSPACE, wsp);
        SETV(vp, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &wsb);
        fdnn_poison_bytes(yb, ny * dsize(cc.dt));
        CHECK_OK(cudnnFusedOpsExecute(H, plan, vp));
        get4(cc.dt, cc.f, yd, yb, yg);
        compare("conv_bnstats y, pack destroyed after Make", yg, yr, ny, tolerance(cc.dt));
        CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
        fdnn_guarded_free(wsp);
        cudnnDestroyTensorDescriptor(hD);
        cudnnDestroyTensorDescriptor(dD);
        cudnnDestroyTensorDescriptor(y2D);
    }

    /* WGRAD on the same problem: dw = wgrad(relu(x * s + b), dy). */
    double *dy;
    void *dyb = rand_buf(cc.dt, cc.f, yd, -1, 1, &dy);
    size_t nw = count4(wd);
    double *dwr = malloc(nw * sizeof(double)), *dwg = malloc(nw * sizeof(double));
    fdnn_conv_problem_t pb;
    CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_BWD_FILTER, xD, wD, cD, yD, &pb));
    fdnn_ref_conv_bwd_filter(&pb, xs, dy, dwr);
    cudnnFusedOpsConstParamPack_t cw;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&cw, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    SETC(cw, CUDNN_PARAM_XDESC, xD);
    SETC(cw, CUDNN_PARAM_XDATA_PLACEHOLDER, &ELEM);
    SETC(cw, CUDNN_PARAM_BN_MODE, &mode);
    SETC(cw, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
    SETC(cw, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, cc.scale ? &ELEM : &PNULL);
    SETC(cw, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, cc.bias ? &ELEM : &PNULL);
    SETC(cw, CUDNN_PARAM_ACTIVATION_DESC, cc.relu ? (void *)aD : NULL);
    SETC(cw, CUDNN_PARAM_CONV_DESC, cD);
    SETC(cw, CUDNN_PARAM_DWDESC, wD);
    SETC(cw, CUDNN_PARAM_DWDATA_PLACEHOLDER, &B16);
    SETC(cw, CUDNN_PARAM_DYDESC, yD);
    SETC(cw, CUDNN_PARAM_DYDATA_PLACEHOLDER, &ELEM);
    void *dwb = poisoned(cc.dt, nw);
    cudnnFusedOpsVariantParamPack_t vw;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vw, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    SETV(vw, CUDNN_PTR_XDATA, xb);
    SETV(vw, CUDNN_PTR_BN_EQSCALE, sb);
    SETV(vw, CUDNN_PTR_BN_EQBIAS, bb);
    SETV(vw, CUDNN_PTR_DWDATA, dwb);
    SETV(vw, CUDNN_PTR_DYDATA, dyb);
    CHECK_OK(run(cw, vw, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    capture(dwb, nw * dsize(cc.dt));
    get4(cc.dt, cc.f, wd, dwb, dwg);
    compare("wgrad dw", dwg, dwr, nw, cc.dt == CUDNN_DATA_HALF ? 1e-2 : 2e-5);

    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(cp));
    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(cw));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(vp));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(vw));
    cudnnDestroyTensorDescriptor(xD);
    cudnnDestroyTensorDescriptor(yD);
    cudnnDestroyTensorDescriptor(eqD);
    cudnnDestroyTensorDescriptor(stD);
    cudnnDestroyFilterDescriptor(wD);
    cudnnDestroyConvolutionDescriptor(cD);
    cudnnDestroyActivationDescriptor(aD);
    fdnn_guarded_free(xb);
    fdnn_guarded_free(wb);
    fdnn_guarded_free(sb);
    fdnn_guarded_free(bb);
    fdnn_guarded_free(yb);
    fdnn_guarded_free(sumb);
    fdnn_guarded_free(sqb);
    fdnn_guarded_free(dyb);
    fdnn_guarded_free(dwb);
    free(x), free(w), free(s), free(b), free(xs), free(yr), free(yg), free(dy), free(dwr), free(dwg);
}

/* ---- ops 2 and 3: BN finalize ---------------------------------------------- */

static void
test_finalize(cudnnDataType_t eqdt)
{
    enum { C = 12 };
    const int64_t M = 2 * 7 * 7;
    const double eps = 1e-4, factor = 0.25;
    cudnnTensorDescriptor_t pD = tdesc(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, C, 1, 1);
    cudnnTensorDescriptor_t eqD = tdesc(eqdt, CUDNN_TENSOR_NCHW, 1, C, 1, 1);
    float sum[C], sq[C], scale[C], bias[C], rm[C], rv[C], rm0[C], rv0[C];
    double mean[C], var[C];
    for (int c = 0; c < C; c++) {
        mean[c] = fdnn_rng_uniform(&rng, -1, 1);
        var[c] = fdnn_rng_uniform(&rng, 0.1, 2);
        sum[c] = (float)(mean[c] * (double)M);
        sq[c] = (float)((var[c] + mean[c] * mean[c]) * (double)M);
        mean[c] = sum[c] / (double)M; /* what the stored sums say */
        var[c] = sq[c] / (double)M - mean[c] * mean[c];
        scale[c] = (float)fdnn_rng_uniform(&rng, 0.5, 1.5);
        bias[c] = (float)fdnn_rng_uniform(&rng, -0.5, 0.5);
        rm[c] = rm0[c] = (float)fdnn_rng_uniform(&rng, -1, 1);
        rv[c] = rv0[c] = (float)fdnn_rng_uniform(&rng, 0.5, 1.5);
    }
    float smean[C], sinv[C];
    void *eqs = poisoned(eqdt, C), *eqb = poisoned(eqdt, C);
    fdnn_poison_f32(smean, C);
    fdnn_poison_f32(sinv, C);

    cudnnFusedOpsConstParamPack_t cp;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&cp, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING));
    cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
    SETC(cp, CUDNN_PARAM_BN_MODE, &mode);
    SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
    SETC(cp, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_YSTATS_DESC, pD);
    SETC(cp, CUDNN_PARAM_YSUM_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_YSQSUM_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, pD);
    int labels[] = {CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
                    CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER,
                    CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER};
    for (int i = 0; i < 6; i++)
        SETC(cp, (cudnnFusedOpsConstParamLabel_t)labels[i], &ELEM);
    cudnnFusedOpsVariantParamPack_t vp;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vp, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING));
    int64_t m = M;
    double e = eps, f = factor;
    SETV(vp, CUDNN_PTR_YSUM, sum);
    SETV(vp, CUDNN_PTR_YSQSUM, sq);
    SETV(vp, CUDNN_PTR_BN_SCALE, scale);
    SETV(vp, CUDNN_PTR_BN_BIAS, bias);
    SETV(vp, CUDNN_PTR_BN_SAVED_MEAN, smean);
    SETV(vp, CUDNN_PTR_BN_SAVED_INVSTD, sinv);
    SETV(vp, CUDNN_PTR_BN_RUNNING_MEAN, rm);
    SETV(vp, CUDNN_PTR_BN_RUNNING_VAR, rv);
    SETV(vp, CUDNN_PTR_BN_EQSCALE, eqs);
    SETV(vp, CUDNN_PTR_BN_EQBIAS, eqb);
    SETV(vp, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &m);
    SETV(vp, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &e);
    SETV(vp, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &f);
    CHECK_OK(run(cp, vp, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING));

    /* Reference: the running update of the batch-norm reference, the rest
     * by the documented formulas. */
    fdnn_ref_bn_shape_t sh = {.n = 2, .c = C, .s = 49};
    double rmr[C], rvr[C], g[6][C], r[6][C];
    for (int c = 0; c < C; c++) {
        rmr[c] = rm0[c];
        rvr[c] = rv0[c];
    }
    fdnn_ref_bn_running(&sh, mean, var, factor, rmr, rvr);
    for (int c = 0; c < C; c++) {
        double inv = 1.0 / sqrt(var[c] + eps);
        r[0][c] = scale[c] * inv;
        r[1][c] = bias[c] - mean[c] * scale[c] * inv;
        r[2][c] = mean[c];
        r[3][c] = inv;
        r[4][c] = rmr[c];
        r[5][c] = rvr[c];
        g[0][c] = tget(eqdt, eqs, c);
        g[1][c] = tget(eqdt, eqb, c);
        g[2][c] = smean[c];
        g[3][c] = sinv[c];
        g[4][c] = rm[c];
        g[5][c] = rv[c];
    }
    static const char *names[6] = {"eqscale", "eqbias", "saved mean", "saved invstd", "running mean", "running var"};
    for (int i = 0; i < 6; i++)
        compare(names[i], g[i], r[i], C, i < 2 ? tolerance(eqdt) : 1e-5);

    /* Inference from the running statistics just updated. */
    cudnnFusedOpsConstParamPack_t ci;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&ci, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE));
    SETC(ci, CUDNN_PARAM_BN_MODE, &mode);
    SETC(ci, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
    SETC(ci, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, &ELEM);
    SETC(ci, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, &B16);
    SETC(ci, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, pD);
    SETC(ci, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, &ELEM);
    SETC(ci, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, &ELEM);
    SETC(ci, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, &ELEM);
    SETC(ci, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, &ELEM);
    cudnnFusedOpsVariantParamPack_t vi;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vi, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE));
    fdnn_poison_bytes(eqs, C * dsize(eqdt));
    fdnn_poison_bytes(eqb, C * dsize(eqdt));
    SETV(vi, CUDNN_PTR_BN_SCALE, scale);
    SETV(vi, CUDNN_PTR_BN_BIAS, bias);
    SETV(vi, CUDNN_PTR_BN_RUNNING_MEAN, rm);
    SETV(vi, CUDNN_PTR_BN_RUNNING_VAR, rv);
    SETV(vi, CUDNN_PTR_BN_EQSCALE, eqs);
    SETV(vi, CUDNN_PTR_BN_EQBIAS, eqb);
    SETV(vi, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &e);
    CHECK_OK(run(ci, vi, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE));
    for (int c = 0; c < C; c++) {
        double inv = 1.0 / sqrt((double)rv[c] + eps);
        r[0][c] = scale[c] * inv;
        r[1][c] = bias[c] - rm[c] * scale[c] * inv;
        g[0][c] = tget(eqdt, eqs, c);
        g[1][c] = tget(eqdt, eqb, c);
    }
    compare("inference eqscale", g[0], r[0], C, tolerance(eqdt));
    compare("inference eqbias", g[1], r[1], C, tolerance(eqdt));

    /* Bad scalars: no accumulation count, epsilon below the minimum. */
    int64_t zero = 0;
    SETV(vp, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &zero);
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING), CUDNN_STATUS_BAD_PARAM);
    double neg = -1.0;
    SETV(vi, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &neg);
    CHECK_STATUS(run(ci, vi, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE), CUDNN_STATUS_BAD_PARAM);
    /* Equivalent bias asked for without the BN bias. */
    SETC(ci, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, &PNULL);
    CHECK_STATUS(run(ci, vi, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE), CUDNN_STATUS_BAD_PARAM);

    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(cp));
    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(ci));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(vp));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(vi));
    cudnnDestroyTensorDescriptor(pD);
    cudnnDestroyTensorDescriptor(eqD);
    fdnn_guarded_free(eqs);
    fdnn_guarded_free(eqb);
}

/* ---- op 4: y = relu(eqscale * conv(x, w) + zscale * z + zbias) ------------ */

static void
test_conv_scale_bias_add_act(cudnnDataType_t dt, cudnnTensorFormat_t f, bool with_z)
{
    const int xd[4] = {2, 6, 5, 7}, wd[4] = {10, 6, 3, 3}, yd[4] = {2, 10, 3, 5};
    const int K = wd[0];
    cudnnTensorDescriptor_t xD = tdesc(dt, f, xd[0], xd[1], xd[2], xd[3]);
    cudnnTensorDescriptor_t yD = tdesc(dt, f, yd[0], yd[1], yd[2], yd[3]);
    cudnnTensorDescriptor_t eqD = tdesc(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, K, 1, 1);
    cudnnFilterDescriptor_t wD;
    CHECK_OK(cudnnCreateFilterDescriptor(&wD));
    CHECK_OK(cudnnSetFilter4dDescriptor(wD, dt, f, wd[0], wd[1], wd[2], wd[3]));
    cudnnConvolutionDescriptor_t cD;
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cD));
    CHECK_OK(cudnnSetConvolution2dDescriptor(cD, 0, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT));
    cudnnActivationDescriptor_t aD;
    CHECK_OK(cudnnCreateActivationDescriptor(&aD));
    CHECK_OK(cudnnSetActivationDescriptor(aD, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    double *x, *w, *z;
    void *xb = rand_buf(dt, f, xd, -1, 1, &x), *wb = rand_buf(dt, f, wd, -0.5, 0.5, &w);
    void *zb = rand_buf(dt, f, yd, -1, 1, &z);
    float es[16], zs[16], zbias[16];
    for (int k = 0; k < K; k++) {
        es[k] = (float)fdnn_rng_uniform(&rng, 0.5, 1.5);
        zs[k] = (float)fdnn_rng_uniform(&rng, 0.5, 1.5);
        zbias[k] = (float)fdnn_rng_uniform(&rng, -0.5, 0.5);
    }
    size_t ny = count4(yd);
    double *yr = malloc(ny * sizeof(double)), *yg = malloc(ny * sizeof(double));
    fdnn_conv_problem_t p;
    CHECK_OK(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, xD, wD, cD, yD, &p));
    fdnn_ref_conv_fwd(&p, x, w, yr);
    for (size_t i = 0; i < ny; i++) {
        int k = (int)(i / (size_t)(yd[2] * yd[3]) % (size_t)K);
        double v = es[k] * yr[i] + (with_z ? zs[k] * z[i] : 0.0) + zbias[k];
        yr[i] = v > 0 ? v : 0;
    }
    cudnnFusedOpsConstParamPack_t cp;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&cp, CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION));
    SETC(cp, CUDNN_PARAM_XDESC, xD);
    SETC(cp, CUDNN_PARAM_XDATA_PLACEHOLDER, &B16);
    SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
    SETC(cp, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_ACTIVATION_DESC, aD);
    SETC(cp, CUDNN_PARAM_CONV_DESC, cD);
    SETC(cp, CUDNN_PARAM_WDESC, wD);
    SETC(cp, CUDNN_PARAM_WDATA_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_YDESC, yD);
    SETC(cp, CUDNN_PARAM_YDATA_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_ZDESC, yD);
    SETC(cp, CUDNN_PARAM_ZDATA_PLACEHOLDER, with_z ? &ELEM : &PNULL);
    SETC(cp, CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, eqD);
    SETC(cp, CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, with_z ? &ELEM : &PNULL);
    SETC(cp, CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER, &ELEM);
    void *yb = poisoned(dt, ny);
    cudnnFusedOpsVariantParamPack_t vp;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vp, CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION));
    SETV(vp, CUDNN_PTR_XDATA, xb);
    SETV(vp, CUDNN_PTR_WDATA, wb);
    SETV(vp, CUDNN_PTR_YDATA, yb);
    SETV(vp, CUDNN_PTR_BN_EQSCALE, es);
    SETV(vp, CUDNN_PTR_ZDATA, zb);
    SETV(vp, CUDNN_PTR_BN_Z_EQSCALE, zs);
    SETV(vp, CUDNN_PTR_BN_Z_EQBIAS, zbias);
    CHECK_OK(run(cp, vp, CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION));
    get4(dt, f, yd, yb, yg);
    compare("conv_scale_bias_add_act y", yg, yr, ny, tolerance(dt));

    /* z's scale without z is refused. */
    if (!with_z) {
        SETC(cp, CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, &ELEM);
        CHECK_STATUS(run(cp, vp, CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION), CUDNN_STATUS_BAD_PARAM);
    }
    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(cp));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(vp));
    cudnnDestroyTensorDescriptor(xD);
    cudnnDestroyTensorDescriptor(yD);
    cudnnDestroyTensorDescriptor(eqD);
    cudnnDestroyFilterDescriptor(wD);
    cudnnDestroyConvolutionDescriptor(cD);
    cudnnDestroyActivationDescriptor(aD);
    fdnn_guarded_free(xb);
    fdnn_guarded_free(wb);
    fdnn_guarded_free(zb);
    fdnn_guarded_free(yb);
    free(x), free(w), free(z), free(yr), free(yg);
}

/* ---- ops 5 and 6: forward with bitmask, then its backward ---------------- */

static bool
mask_bit(const uint32_t *m, const int md[4], int n, int c, int h, int w)
{
    return (m[(((size_t)n * md[1] + c / 32) * md[2] + h) * md[3] + w] >> (c % 32)) & 1u;
}

static void
test_bitmask_and_backward(cudnnDataType_t dt, cudnnTensorFormat_t f)
{
    const int xd[4] = {3, 40, 4, 5}; /* 40 channels: two mask words, the second half used */
    const int C = xd[1], md[4] = {xd[0], (C + 31) / 32, xd[2], xd[3]};
    size_t nx = count4(xd), nm = count4(md);
    cudnnTensorDescriptor_t xD = tdesc(dt, f, xd[0], xd[1], xd[2], xd[3]);
    cudnnTensorDescriptor_t eqD = tdesc(dt, CUDNN_TENSOR_NCHW, 1, C, 1, 1);
    cudnnTensorDescriptor_t pD = tdesc(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, C, 1, 1);
    cudnnTensorDescriptor_t mD = tdesc(CUDNN_DATA_INT32, CUDNN_TENSOR_NCHW, md[0], md[1], md[2], md[3]);
    cudnnActivationDescriptor_t aD;
    CHECK_OK(cudnnCreateActivationDescriptor(&aD));
    CHECK_OK(cudnnSetActivationDescriptor(aD, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    double *x, *z, *s = rand_vec(C, 0.5, 1.5), *b = rand_vec(C, -0.5, 0.5), *zs = rand_vec(C, 0.5, 1.5),
                   *zbv = rand_vec(C, -0.2, 0.2);
    void *xb = rand_buf(dt, f, xd, -1, 1, &x), *zb = rand_buf(dt, f, xd, -1, 1, &z);
    const int cd[4] = {1, C, 1, 1};
    void *sb = talloc(dt, C), *bb = talloc(dt, C), *zsb = talloc(dt, C), *zbb = talloc(dt, C);
    put4(dt, CUDNN_TENSOR_NCHW, cd, s, sb);
    put4(dt, CUDNN_TENSOR_NCHW, cd, b, bb);
    put4(dt, CUDNN_TENSOR_NCHW, cd, zs, zsb);
    put4(dt, CUDNN_TENSOR_NCHW, cd, zbv, zbb);

    cudnnFusedOpsConstParamPack_t cp;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&cp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK));
    cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;
    SETC(cp, CUDNN_PARAM_XDESC, xD);
    SETC(cp, CUDNN_PARAM_XDATA_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_BN_MODE, &mode);
    SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
    SETC(cp, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_ACTIVATION_DESC, aD);
    SETC(cp, CUDNN_PARAM_YDESC, xD);
    SETC(cp, CUDNN_PARAM_YDATA_PLACEHOLDER, &B16);
    SETC(cp, CUDNN_PARAM_ZDESC, xD);
    SETC(cp, CUDNN_PARAM_ZDATA_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, eqD);
    SETC(cp, CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER, &ELEM);
    SETC(cp, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, mD);
    SETC(cp, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, &B16);
    void *yb = poisoned(dt, nx);
    uint32_t *mb = poisoned(CUDNN_DATA_INT32, nm);
    cudnnFusedOpsVariantParamPack_t vp;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK));
    SETV(vp, CUDNN_PTR_XDATA, xb);
    SETV(vp, CUDNN_PTR_BN_EQSCALE, sb);
    SETV(vp, CUDNN_PTR_BN_EQBIAS, bb);
    SETV(vp, CUDNN_PTR_ZDATA, zb);
    SETV(vp, CUDNN_PTR_BN_Z_EQSCALE, zsb);
    SETV(vp, CUDNN_PTR_BN_Z_EQBIAS, zbb);
    SETV(vp, CUDNN_PTR_YDATA, yb);
    SETV(vp, CUDNN_PTR_ACTIVATION_BITMASK, mb);
    CHECK_OK(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK));

    capture(yb, nx * dsize(dt));
    capture(mb, nm * sizeof(uint32_t));
    double *yr = malloc(nx * sizeof(double)), *yg = malloc(nx * sizeof(double));
    get4(dt, f, xd, yb, yg);
    int bad_bits = 0;
    for (int n = 0; n < xd[0]; n++)
        for (int c = 0; c < C; c++)
            for (int h = 0; h < xd[2]; h++)
                for (int w = 0; w < xd[3]; w++) {
                    size_t i = (((size_t)n * C + c) * xd[2] + h) * xd[3] + w;
                    double pre = x[i] * s[c] + b[c] + z[i] * zs[c] + zbv[c];
                    yr[i] = pre > 0 ? pre : 0;
                    bool bit = mask_bit(mb, md, n, c, h, w);
                    /* The bit says where the ReLU passed: exactly where y > 0
                     * here, and where the exact pre-activation is positive
                     * unless it is within rounding of 0. */
                    if (bit != (yg[i] > 0) && !(yg[i] == 0 && bit && fabs(pre) < 1e-2))
                        bad_bits++;
                    if (fabs(pre) > 1e-2 && bit != (pre > 0))
                        bad_bits++;
                }
    for (int n = 0; n < xd[0]; n++)
        for (int h = 0; h < xd[2]; h++)
            for (int w = 0; w < xd[3]; w++)
                for (int c = C; c < 64; c++)
                    bad_bits += mask_bit(mb, md, n, c, h, w); /* channels past C: 0 */
    CHECK_MSG(bad_bits == 0, "bitmask: %d wrong bits", bad_bits);
    compare("gen_bitmask y", yg, yr, nx, tolerance(dt));

    /* Op 6 on the mask just made: dt = dy * mask, dz = dt, dBN(x, dt). */
    double *dy;
    void *dyb = rand_buf(dt, f, xd, -1, 1, &dy);
    fdnn_ref_bn_shape_t sh = {.n = xd[0], .c = C, .s = xd[2] * xd[3]};
    double *mean = malloc(C * sizeof(double)), *var = malloc(C * sizeof(double)), *inv = malloc(C * sizeof(double));
    fdnn_ref_bn_stats(&sh, x, 1e-5, mean, var, inv);
    float *scale = talloc(CUDNN_DATA_FLOAT, C), *bias = talloc(CUDNN_DATA_FLOAT, C);
    float *smean = talloc(CUDNN_DATA_FLOAT, C), *sinv = talloc(CUDNN_DATA_FLOAT, C);
    double *scd = malloc(C * sizeof(double));
    for (int c = 0; c < C; c++) {
        scale[c] = (float)s[c];
        scd[c] = scale[c];
        bias[c] = (float)b[c];
        smean[c] = (float)mean[c];
        sinv[c] = (float)inv[c];
    }
    double *yfwd = malloc(nx * sizeof(double));
    for (int n = 0; n < xd[0]; n++)
        for (int c = 0; c < C; c++)
            for (int h = 0; h < xd[2]; h++)
                for (int w = 0; w < xd[3]; w++)
                    yfwd[(((size_t)n * C + c) * xd[2] + h) * xd[3] + w] = mask_bit(mb, md, n, c, h, w) ? 1.0 : 0.0;
    double *dxr = malloc(nx * sizeof(double)), *dzr = malloc(nx * sizeof(double));
    double *dsr = malloc(C * sizeof(double)), *dbr = malloc(C * sizeof(double));
    fdnn_ref_bn_backward(&sh, x, dy, yfwd, true, scd, mean, inv, dxr, dsr, dbr, dzr);

    cudnnFusedOpsConstParamPack_t cb;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&cb, CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM));
    SETC(cb, CUDNN_PARAM_XDESC, xD);
    SETC(cb, CUDNN_PARAM_XDATA_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_BN_MODE, &mode);
    SETC(cb, CUDNN_PARAM_ACTIVATION_DESC, aD);
    SETC(cb, CUDNN_PARAM_DYDESC, xD);
    SETC(cb, CUDNN_PARAM_DYDATA_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, pD);
    SETC(cb, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, mD);
    SETC(cb, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_DXDESC, xD);
    SETC(cb, CUDNN_PARAM_DXDATA_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_DZDESC, xD);
    SETC(cb, CUDNN_PARAM_DZDATA_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_BN_DSCALE_PLACEHOLDER, &ELEM);
    SETC(cb, CUDNN_PARAM_BN_DBIAS_PLACEHOLDER, &ELEM);
    void *dxb = poisoned(dt, nx), *dzb = poisoned(dt, nx);
    float *dsb = poisoned(CUDNN_DATA_FLOAT, C), *dbb = poisoned(CUDNN_DATA_FLOAT, C);
    cudnnFusedOpsVariantParamPack_t vb;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vb, CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM));
    SETV(vb, CUDNN_PTR_XDATA, xb);
    SETV(vb, CUDNN_PTR_DYDATA, dyb);
    SETV(vb, CUDNN_PTR_BN_SCALE, scale);
    SETV(vb, CUDNN_PTR_BN_BIAS, bias);
    SETV(vb, CUDNN_PTR_BN_SAVED_MEAN, smean);
    SETV(vb, CUDNN_PTR_BN_SAVED_INVSTD, sinv);
    SETV(vb, CUDNN_PTR_ACTIVATION_BITMASK, mb);
    SETV(vb, CUDNN_PTR_DXDATA, dxb);
    SETV(vb, CUDNN_PTR_DZDATA, dzb);
    SETV(vb, CUDNN_PTR_BN_DSCALE, dsb);
    SETV(vb, CUDNN_PTR_BN_DBIAS, dbb);
    CHECK_OK(run(cb, vb, CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM));
    double *dxg = malloc(nx * sizeof(double)), *dzg = malloc(nx * sizeof(double));
    double *dsg = malloc(C * sizeof(double)), *dbg = malloc(C * sizeof(double));
    capture(dxb, nx * dsize(dt));
    capture(dzb, nx * dsize(dt));
    capture(dsb, C * sizeof(float));
    capture(dbb, C * sizeof(float));
    get4(dt, f, xd, dxb, dxg);
    get4(dt, f, xd, dzb, dzg);
    for (int c = 0; c < C; c++) {
        dsg[c] = dsb[c];
        dbg[c] = dbb[c];
    }
    compare("dact_fork_dbn dz", dzg, dzr, nx, 0.0);
    compare("dact_fork_dbn dx", dxg, dxr, nx, dt == CUDNN_DATA_HALF ? 1e-2 : 1e-4);
    compare("dact_fork_dbn dscale", dsg, dsr, C, 1e-4);
    compare("dact_fork_dbn dbias", dbg, dbr, C, 1e-5);

    /* Bad packs on op 5 (each restored after its check). */
    cudnnTensorDescriptor_t badD = tdesc(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, md[0], md[1], md[2], md[3]);
    SETC(cp, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, badD); /* FLOAT, not INT32 */
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t shortD = tdesc(CUDNN_DATA_INT32, CUDNN_TENSOR_NCHW, md[0], 1, md[2], md[3]);
    SETC(cp, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, shortD); /* one word for 40 channels */
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_BAD_PARAM);
    SETC(cp, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, mD);
    SETC(cp, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, &PNULL); /* the mask is not optional */
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_BAD_PARAM);
    SETC(cp, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, &B16);
    SETV(vp, CUDNN_PTR_ACTIVATION_BITMASK, (char *)mb + 4); /* not 16-byte aligned */
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_BAD_PARAM);
    SETV(vp, CUDNN_PTR_ACTIVATION_BITMASK, mb);
    SETV(vp, CUDNN_PTR_XDATA, (char *)xb + 1); /* not element aligned */
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_BAD_PARAM);
    SETV(vp, CUDNN_PTR_XDATA, NULL); /* promised, missing */
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_BAD_PARAM);
    SETV(vp, CUDNN_PTR_XDATA, xb);
    cudnnActivationDescriptor_t sig;
    CHECK_OK(cudnnCreateActivationDescriptor(&sig));
    CHECK_OK(cudnnSetActivationDescriptor(sig, CUDNN_ACTIVATION_SIGMOID, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    SETC(cp, CUDNN_PARAM_ACTIVATION_DESC, sig);
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_NOT_SUPPORTED);
    SETC(cp, CUDNN_PARAM_ACTIVATION_DESC, aD);
    cudnnTensorDescriptor_t wideD = tdesc(dt, CUDNN_TENSOR_NCHW, 1, C + 1, 1, 1);
    SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, wideD); /* C + 1 values */
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_BAD_PARAM);
    SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
    cudnnBatchNormMode_t per_act = CUDNN_BATCHNORM_PER_ACTIVATION;
    SETC(cp, CUDNN_PARAM_BN_MODE, &per_act);
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_NOT_SUPPORTED);
    SETC(cp, CUDNN_PARAM_BN_MODE, &mode);
    cudnnTensorDescriptor_t dblD = tdesc(CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, xd[0], xd[1], xd[2], xd[3]);
    SETC(cp, CUDNN_PARAM_YDESC, dblD); /* DOUBLE data */
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_NOT_SUPPORTED);
    SETC(cp, CUDNN_PARAM_YDESC, NULL); /* missing descriptor */
    CHECK_STATUS(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), CUDNN_STATUS_BAD_PARAM);
    SETC(cp, CUDNN_PARAM_YDESC, xD);
    /* The plan checks the workspace it asked for. */
    {
        cudnnFusedOpsPlan_t plan;
        CHECK_OK(cudnnCreateFusedOpsPlan(&plan, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK));
        size_t ws = 0;
        CHECK_OK(cudnnMakeFusedOpsPlan(H, plan, cp, &ws));
        CHECK(ws > 0);
        void *wsb = fdnn_guarded_alloc(ws);
        size_t less = ws - 1;
        SETV(vp, CUDNN_PTR_WORKSPACE, wsb);
        SETV(vp, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &less);
        CHECK_STATUS(cudnnFusedOpsExecute(H, plan, vp), CUDNN_STATUS_BAD_PARAM);
        SETV(vp, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws);
        SETV(vp, CUDNN_PTR_WORKSPACE, NULL);
        CHECK_STATUS(cudnnFusedOpsExecute(H, plan, vp), CUDNN_STATUS_BAD_PARAM);
        /* A variant pack of another op; a constant pack of another op. */
        CHECK_STATUS(cudnnFusedOpsExecute(H, plan, vb), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMakeFusedOpsPlan(H, plan, cb, &ws), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMakeFusedOpsPlan(NULL, plan, cp, &ws), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMakeFusedOpsPlan(H, plan, cp, NULL), CUDNN_STATUS_BAD_PARAM);
        fdnn_guarded_free(wsb);
        CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
    }
    /* Op 6 with the saved statistics half given. */
    SETC(cb, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, &PNULL);
    CHECK_STATUS(run(cb, vb, CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM), CUDNN_STATUS_BAD_PARAM);

    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(cp));
    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(cb));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(vp));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(vb));
    cudnnTensorDescriptor_t ds[] = {xD, eqD, pD, mD, badD, shortD, wideD, dblD};
    for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
        cudnnDestroyTensorDescriptor(ds[i]);
    cudnnDestroyActivationDescriptor(aD);
    cudnnDestroyActivationDescriptor(sig);
    void *bufs[] = {xb, zb, sb, bb, zsb, zbb, yb, mb, dyb, scale, bias, smean, sinv, dxb, dzb, dsb, dbb};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        fdnn_guarded_free(bufs[i]);
    double *ds2[] = {x,   z,   s,   b,    zs,  zbv, yr,  yg,  dy,  mean, var,
                     inv, scd, yfwd, dxr, dzr, dsr, dbr, dxg, dzg, dsg,  dbg};
    for (size_t i = 0; i < sizeof(ds2) / sizeof(ds2[0]); i++)
        free(ds2[i]);
}

/* Op 5 on 5-D data with padded strides (x's rows longer than W), and a
 * 5-D bitmask: y and the bits against the formula. */
static void
test_bitmask_5d(void)
{
    enum { N = 2, C = 35, D = 3, Hh = 2, W = 3, CW = 2 };
    const int dims[5] = {N, C, D, Hh, W};
    const int strides[5] = {C * D * Hh * (W + 2), D * Hh * (W + 2), Hh * (W + 2), W + 2, 1};
    const int mdims[5] = {N, CW, D, Hh, W};
    const int mstrides[5] = {CW * D * Hh * W, D * Hh * W, Hh * W, W, 1};
    const int pdims[5] = {1, C, 1, 1, 1}, pstrides[5] = {C, 1, 1, 1, 1};
    cudnnTensorDescriptor_t xD, mD, pD;
    CHECK_OK(cudnnCreateTensorDescriptor(&xD));
    CHECK_OK(cudnnCreateTensorDescriptor(&mD));
    CHECK_OK(cudnnCreateTensorDescriptor(&pD));
    CHECK_OK(cudnnSetTensorNdDescriptor(xD, CUDNN_DATA_FLOAT, 5, dims, strides));
    CHECK_OK(cudnnSetTensorNdDescriptor(mD, CUDNN_DATA_INT32, 5, mdims, mstrides));
    CHECK_OK(cudnnSetTensorNdDescriptor(pD, CUDNN_DATA_FLOAT, 5, pdims, pstrides));
    cudnnActivationDescriptor_t aD;
    CHECK_OK(cudnnCreateActivationDescriptor(&aD));
    CHECK_OK(cudnnSetActivationDescriptor(aD, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    const size_t span = (size_t)N * strides[0], nm = (size_t)N * mstrides[0];
    float *x = talloc(CUDNN_DATA_FLOAT, span), *y = poisoned(CUDNN_DATA_FLOAT, span);
    uint32_t *m = poisoned(CUDNN_DATA_INT32, nm);
    float *sc = talloc(CUDNN_DATA_FLOAT, C), *bi = talloc(CUDNN_DATA_FLOAT, C);
    for (size_t i = 0; i < span; i++)
        x[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (int c = 0; c < C; c++) {
        sc[c] = (float)fdnn_rng_uniform(&rng, 0.5, 1.5);
        bi[c] = (float)fdnn_rng_uniform(&rng, -0.3, 0.3);
    }
    cudnnFusedOpsConstParamPack_t cp;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&cp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK));
    cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;
    SETC(cp, CUDNN_PARAM_XDESC, xD);
    SETC(cp, CUDNN_PARAM_YDESC, xD);
    SETC(cp, CUDNN_PARAM_BN_MODE, &mode);
    SETC(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, pD);
    SETC(cp, CUDNN_PARAM_ACTIVATION_DESC, aD);
    SETC(cp, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, mD);
    const cudnnFusedOpsConstParamLabel_t phs[] = {
        CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,
        CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER};
    for (size_t i = 0; i < sizeof(phs) / sizeof(phs[0]); i++)
        SETC(cp, phs[i], &ELEM);
    cudnnFusedOpsVariantParamPack_t vp;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK));
    SETV(vp, CUDNN_PTR_XDATA, x);
    SETV(vp, CUDNN_PTR_YDATA, y);
    SETV(vp, CUDNN_PTR_BN_EQSCALE, sc);
    SETV(vp, CUDNN_PTR_BN_EQBIAS, bi);
    SETV(vp, CUDNN_PTR_ACTIVATION_BITMASK, m);
    CHECK_OK(run(cp, vp, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK));
    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < 32 * CW; c++)
            for (int d = 0; d < D; d++)
                for (int h = 0; h < Hh; h++)
                    for (int w = 0; w < W; w++) {
                        uint32_t word = m[n * mstrides[0] + (c / 32) * mstrides[1] + d * mstrides[2] +
                                          h * mstrides[3] + w];
                        bool bit = (word >> (c % 32)) & 1u;
                        if (c >= C) {
                            bad += bit;
                            continue;
                        }
                        size_t o = (size_t)n * strides[0] + (size_t)c * strides[1] + (size_t)d * strides[2] +
                                   (size_t)h * strides[3] + (size_t)w;
                        double v = (double)x[o] * sc[c] + bi[c];
                        float want = (float)(v > 0 ? v : 0);
                        bad += y[o] != want;
                        bad += bit != (v > 0);
                    }
    /* The padding between rows is not an element: left as it was. */
    CHECK(((uint32_t *)y)[W] == 0xFFFFFFFFu);
    CHECK_MSG(bad == 0, "5-D bitmask op: %d wrong values or bits", bad);
    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(cp));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(vp));
    cudnnDestroyTensorDescriptor(xD);
    cudnnDestroyTensorDescriptor(mD);
    cudnnDestroyTensorDescriptor(pD);
    cudnnDestroyActivationDescriptor(aD);
    void *bufs[] = {x, y, m, sc, bi};
    for (size_t i = 0; i < 5; i++)
        fdnn_guarded_free(bufs[i]);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 14);
    CHECK_OK(cudnnCreate(&H));
    const cudnnDataType_t dts[2] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF};
    const cudnnTensorFormat_t fmts[2] = {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC};
    for (int threads = 1; threads <= 2; threads++) {
        CHECK_OK(freednnSetNumThreads(H, threads));
        for (int d = 0; d < 2; d++)
            for (int f = 0; f < 2; f++) {
                test_conv_bnstats((conv_case_t){dts[d], fmts[f], true, true, true, true});
                test_conv_scale_bias_add_act(dts[d], fmts[f], f == 0);
                test_bitmask_and_backward(dts[d], fmts[f]);
            }
        test_conv_bnstats((conv_case_t){CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, false, true, false, false});
        test_conv_bnstats((conv_case_t){CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, true, false, true, true});
        test_bitmask_5d();
        test_finalize(CUDNN_DATA_FLOAT);
        test_finalize(CUDNN_DATA_HALF);
    }
    /* The same problems with 1 and 2 threads: the same bits. */
    unsigned char *bits[2];
    size_t lens[2];
    for (int t = 0; t < 2; t++) {
        CHECK_OK(freednnSetNumThreads(H, t + 1));
        cap_max = (size_t)4 << 20;
        cap = bits[t] = malloc(cap_max);
        cap_len = 0;
        fdnn_rng_seed(&rng, 1414);
        for (int d = 0; d < 2; d++) {
            test_conv_bnstats((conv_case_t){dts[d], fmts[1 - d], true, true, true, true});
            test_bitmask_and_backward(dts[d], fmts[d]);
        }
        lens[t] = cap_len;
        cap = NULL;
    }
    CHECK(lens[0] == lens[1] && lens[0] > 0);
    CHECK_MSG(memcmp(bits[0], bits[1], lens[0]) == 0, "1 and 2 threads give different bits");
    free(bits[0]);
    free(bits[1]);
    CHECK_OK(cudnnDestroy(H));
    return fdnn_test_finish("test_fusedops_exec");
}
