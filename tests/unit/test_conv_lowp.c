/* SPDX-License-Identifier: Apache-2.0
 * HALF and BFLOAT16 convolutions (PSEUDO_HALF, TRUE_HALF, PSEUDO_BFLOAT16
 * configurations) and the math types that round operands to BF16
 * (cpu/conv/conv_lowp.c; tolerances in docs/numerics.md, "Reduced-precision
 * convolutions"):
 *
 *   - every algorithm of every direction against the float64 reference fed
 *     the rounded inputs (the storage values, further rounded to BF16 under
 *     TENSOR_OP_MATH), NCHW and NHWC, strided, grouped, dilated,
 *     CONVOLUTION mode, 2-D and 3-D, DEFAULT, TENSOR_OP and
 *     TENSOR_OP_ALLOW_CONVERSION math, outputs
 *     poisoned (beta 0) or blended (alpha 2, beta -1);
 *   - the same algorithms apply as for FLOAT data, and the workspace holds
 *     the FP32 one plus the staging buffers (0 for the zero-workspace
 *     fallbacks);
 *   - bias-activation forward and backward bias in HALF and BFLOAT16;
 *   - TENSOR_OP_MATH_ALLOW_CONVERSION on FLOAT data changes the results
 *     only within the BF16 tolerance, NVIDIA_TF32_OVERRIDE=0 makes them
 *     bitwise the FP32 ones, and the _v7 / Find results report the math
 *     type used;
 *   - bitwise identical at 1 and 2 threads. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/conv.h"
#include "cpu/conv/conv_bf16.h"
#include "cpu/simd/cvt.h"
#include "freednn.h"
#include "ref/conv_ref.h"
#include "testutil.h"

typedef struct shape {
    const char *name;
    int nsp;
    int n, c, k, g;
    int in[3], ker[3], pad[3], str[3], dil[3];
    cudnnConvolutionMode_t mode;
} shape_t;

#define S2(name, n, c, k, g, h, w, kh, kw, ph, pw, sh, sw, dh, dw, mode)                              \
    {                                                                                                 \
        name, 2, n, c, k, g, {1, h, w}, {1, kh, kw}, {0, ph, pw}, {1, sh, sw}, {1, dh, dw}, mode    \
    }
#define XC CUDNN_CROSS_CORRELATION
#define CV CUDNN_CONVOLUTION

static const shape_t shapes[] = {
    S2("3x3 pad1", 2, 4, 5, 1, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, XC),
    S2("1x1 s2", 2, 6, 4, 1, 9, 7, 1, 1, 0, 0, 2, 2, 1, 1, XC),
    S2("groups conv-mode s2", 3, 4, 6, 2, 8, 8, 3, 3, 1, 1, 2, 2, 1, 1, CV),
    S2("dilated", 2, 3, 5, 1, 9, 8, 3, 3, 2, 2, 1, 1, 2, 2, XC),
    S2("depthwise", 2, 4, 4, 4, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, XC),
    {"3-D", 3, 2, 3, 4, 1, {5, 5, 4}, {3, 3, 2}, {1, 1, 0}, {1, 2, 1}, {1, 1, 2}, CV},
};
#define NSHAPES (int)(sizeof(shapes) / sizeof(shapes[0]))

/* One data-type configuration under test. */
typedef struct cfg {
    const char *name;
    cudnnDataType_t dt, compute;
    cudnnMathType_t math;
} cfg_t;

static const cfg_t cfgs[] = {
    {"PSEUDO_HALF", CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH},
    {"PSEUDO_HALF tensor-op", CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH},
    {"TRUE_HALF", CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DEFAULT_MATH},
    {"PSEUDO_BFLOAT16", CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH},
    {"PSEUDO_BFLOAT16 tensor-op", CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH},
    {"PSEUDO_HALF allow-conversion", CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION},
    {"FLOAT allow-conversion", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION},
};
#define NCFGS (int)(sizeof(cfgs) / sizeof(cfgs[0]))

static size_t
dt_size(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT ? 4 : 2;
}

static double
load(cudnnDataType_t dt, const void *buf, size_t i)
{
    if (dt == CUDNN_DATA_HALF)
        return fdnn_f16_to_f32(((const uint16_t *)buf)[i]);
    if (dt == CUDNN_DATA_BFLOAT16)
        return fdnn_bf16_to_f32(((const uint16_t *)buf)[i]);
    return ((const float *)buf)[i];
}

static void
put(cudnnDataType_t dt, void *buf, size_t i, double v)
{
    if (dt == CUDNN_DATA_HALF)
        ((uint16_t *)buf)[i] = fdnn_f32_to_f16((float)v);
    else if (dt == CUDNN_DATA_BFLOAT16)
        ((uint16_t *)buf)[i] = fdnn_f32_to_bf16((float)v);
    else
        ((float *)buf)[i] = (float)v;
}

/* The storage value of v in dt (a double holding it exactly). */
static double
rounded(cudnnDataType_t dt, double v)
{
    uint32_t b[1];
    put(dt, b, 0, v);
    return load(dt, b, 0);
}

/* Half an ulp, relative, of the output type: the write's rounding. */
static double
unit_roundoff(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_HALF ? ldexp(1, -11) : dt == CUDNN_DATA_BFLOAT16 ? ldexp(1, -8) : ldexp(1, -24);
}

static bool
poisoned_out(cudnnDataType_t dt, const void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(load(dt, buf, i)))
            return true;
    return false;
}

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

/* One problem in one configuration: descriptors, the operands (packed NCHW
 * doubles holding the storage values, and in the user's layout and type),
 * and the float64 reference of each direction on the values the products
 * see (rounded to BF16 when the math type says so), with the sums of
 * absolute products that bound the FP32 accumulation error. */
typedef struct prob {
    const shape_t *s;
    const cfg_t *cf;
    bool nhwc;
    size_t es;
    int out[3], osp, isp, q, cg;
    size_t xn, wn, yn;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    fdnn_conv_problem_t geo;
    double *xr, *wr, *yr;
    double *ref[3], *mag[3]; /* fwd, bwd data, bwd filter */
    void *x, *w, *y;
} prob_t;

static void
to_user(const prob_t *pb, const double *src, void *dst, int n, int c, int sp)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < c; j++)
            for (int k = 0; k < sp; k++)
                put(pb->cf->dt, dst, elem(pb->nhwc, c, sp, i, j, k), src[elem(false, c, sp, i, j, k)]);
}

static void
references(prob_t *pb, bool round_bf16)
{
    size_t tot = pb->xn + pb->wn + pb->yn;
    double *v = malloc(tot * 8), *a = malloc(tot * 8);
    const double *src[3] = {pb->xr, pb->wr, pb->yr};
    size_t cnt[3] = {pb->xn, pb->wn, pb->yn}, off = 0;
    double *vx[3], *ax[3];
    for (int t = 0; t < 3; t++) {
        vx[t] = v + off;
        ax[t] = a + off;
        for (size_t i = 0; i < cnt[t]; i++) {
            vx[t][i] = round_bf16 ? rounded(CUDNN_DATA_BFLOAT16, src[t][i]) : src[t][i];
            ax[t][i] = fabs(vx[t][i]);
        }
        off += cnt[t];
    }
    for (int d = 0; d < 3; d++) {
        size_t n = d == 0 ? pb->yn : d == 1 ? pb->xn : pb->wn;
        free(pb->ref[d]);
        free(pb->mag[d]);
        pb->ref[d] = malloc(n * 8);
        pb->mag[d] = malloc(n * 8);
    }
    fdnn_ref_conv_fwd(&pb->geo, vx[0], vx[1], pb->ref[0]);
    fdnn_ref_conv_fwd(&pb->geo, ax[0], ax[1], pb->mag[0]);
    fdnn_ref_conv_bwd_data(&pb->geo, vx[2], vx[1], pb->ref[1]);
    fdnn_ref_conv_bwd_data(&pb->geo, ax[2], ax[1], pb->mag[1]);
    fdnn_ref_conv_bwd_filter(&pb->geo, vx[0], vx[2], pb->ref[2]);
    fdnn_ref_conv_bwd_filter(&pb->geo, ax[0], ax[2], pb->mag[2]);
    free(v);
    free(a);
}

static void
prob_init(prob_t *pb, const shape_t *s, const cfg_t *cf, bool nhwc, uint64_t seed)
{
    memset(pb, 0, sizeof(*pb));
    pb->s = s;
    pb->cf = cf;
    pb->nhwc = nhwc;
    pb->es = dt_size(cf->dt);
    pb->osp = pb->isp = pb->q = 1;
    fdnn_conv_problem_t *p = &pb->geo;
    p->nsp = s->nsp;
    p->n = s->n, p->c = s->c, p->k = s->k, p->g = s->g;
    p->flip = s->mode == CUDNN_CONVOLUTION;
    for (int i = 0; i < 3; i++) {
        pb->out[i] = (int)fdnn_conv_out_size(s->in[i], s->ker[i], s->pad[i], s->str[i], s->dil[i]);
        pb->osp *= pb->out[i];
        pb->isp *= s->in[i];
        pb->q *= s->ker[i];
        p->in[i] = s->in[i];
        p->ker[i] = s->ker[i];
        p->pad[i] = s->pad[i];
        p->stride[i] = s->str[i];
        p->dil[i] = s->dil[i];
        p->out[i] = pb->out[i];
    }
    pb->cg = s->c / s->g;
    pb->xn = (size_t)s->n * (size_t)s->c * (size_t)pb->isp;
    pb->wn = (size_t)s->k * (size_t)pb->cg * (size_t)pb->q;
    pb->yn = (size_t)s->n * (size_t)s->k * (size_t)pb->osp;
    cudnnCreateTensorDescriptor(&pb->xd);
    cudnnCreateTensorDescriptor(&pb->yd);
    cudnnCreateFilterDescriptor(&pb->wd);
    cudnnCreateConvolutionDescriptor(&pb->cd);
    set_tensor(pb->xd, cf->dt, nhwc, s->nsp, s->n, s->c, s->in);
    set_tensor(pb->yd, cf->dt, nhwc, s->nsp, s->n, s->k, pb->out);
    int wdims[5] = {s->k, pb->cg};
    for (int i = 0; i < s->nsp; i++)
        wdims[2 + i] = s->ker[3 - s->nsp + i];
    CHECK_OK(cudnnSetFilterNdDescriptor(pb->wd, cf->dt, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, s->nsp + 2,
                                        wdims));
    int pad[3], str[3], dil[3];
    for (int i = 0; i < s->nsp; i++) {
        pad[i] = s->pad[3 - s->nsp + i];
        str[i] = s->str[3 - s->nsp + i];
        dil[i] = s->dil[3 - s->nsp + i];
    }
    CHECK_OK(cudnnSetConvolutionNdDescriptor(pb->cd, s->nsp, pad, str, dil, s->mode, cf->compute));
    CHECK_OK(cudnnSetConvolutionGroupCount(pb->cd, s->g));
    CHECK_OK(cudnnSetConvolutionMathType(pb->cd, cf->math));
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, seed);
    pb->xr = malloc(pb->xn * 8);
    pb->wr = malloc(pb->wn * 8);
    pb->yr = malloc(pb->yn * 8);
    double *all[3] = {pb->xr, pb->wr, pb->yr};
    size_t cnt[3] = {pb->xn, pb->wn, pb->yn};
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < cnt[t]; i++)
            all[t][i] = rounded(cf->dt, fdnn_rng_uniform(&rng, -1, 1));
    pb->x = fdnn_guarded_alloc(pb->xn * pb->es);
    pb->w = fdnn_guarded_alloc(pb->wn * pb->es);
    pb->y = fdnn_guarded_alloc(pb->yn * pb->es);
    to_user(pb, pb->xr, pb->x, s->n, s->c, pb->isp);
    to_user(pb, pb->wr, pb->w, s->k, pb->cg, pb->q);
    to_user(pb, pb->yr, pb->y, s->n, s->k, pb->osp);
    bool bf16_products = cf->math == CUDNN_TENSOR_OP_MATH || cf->math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    references(pb, bf16_products);
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
    for (int d = 0; d < 3; d++) {
        free(pb->ref[d]);
        free(pb->mag[d]);
    }
    fdnn_guarded_free(pb->x);
    fdnn_guarded_free(pb->w);
    fdnn_guarded_free(pb->y);
}

static void
out_shape(const prob_t *pb, int dir, size_t *count, int *n, int *c, int *sp)
{
    const shape_t *s = pb->s;
    if (dir == 0)
        *count = pb->yn, *n = s->n, *c = s->k, *sp = pb->osp;
    else if (dir == 1)
        *count = pb->xn, *n = s->n, *c = s->c, *sp = pb->isp;
    else
        *count = pb->wn, *n = s->k, *c = pb->cg, *sp = pb->q;
}

static int
algo_count(int dir)
{
    return dir == 0 ? CUDNN_CONVOLUTION_FWD_ALGO_COUNT
                    : dir == 1 ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT : CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
}

/* FFT and Winograd (transforms of whole tiles): their FP32 error is bounded
 * by the largest sum of absolute products of the output, not each one's. */
static bool
transform_algo(int dir, int algo)
{
    if (dir == 0)
        return algo >= CUDNN_CONVOLUTION_FWD_ALGO_FFT;
    if (dir == 1)
        return algo >= CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT;
    return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT || algo >= CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD;
}

static cudnnStatus_t
workspace(cudnnHandle_t h, const prob_t *pb, int dir, int algo, size_t *ws)
{
    if (dir == 0)
        return cudnnGetConvolutionForwardWorkspaceSize(h, pb->xd, pb->wd, pb->cd, pb->yd, algo, ws);
    if (dir == 1)
        return cudnnGetConvolutionBackwardDataWorkspaceSize(h, pb->wd, pb->yd, pb->cd, pb->xd, algo, ws);
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, pb->xd, pb->yd, pb->cd, pb->wd, algo, ws);
}

static cudnnStatus_t
run(cudnnHandle_t h, const prob_t *pb, int dir, int algo, float alpha, float beta, void *ws, size_t wsb, void *out)
{
    if (dir == 0)
        return cudnnConvolutionForward(h, &alpha, pb->xd, pb->x, pb->wd, pb->w, pb->cd, algo, ws, wsb, &beta,
                                       pb->yd, out);
    if (dir == 1)
        return cudnnConvolutionBackwardData(h, &alpha, pb->wd, pb->w, pb->yd, pb->y, pb->cd, algo, ws, wsb, &beta,
                                            pb->xd, out);
    return cudnnConvolutionBackwardFilter(h, &alpha, pb->xd, pb->x, pb->yd, pb->y, pb->cd, algo, ws, wsb, &beta,
                                          pb->wd, out);
}

/* The tolerance of one output element (docs/numerics.md): the FP32
 * algorithm's error, bounded by e_alg times the sum of absolute products,
 * plus the roundings of the write: half an ulp of the output type on each
 * of alpha*s, beta*old and the result (TRUE_HALF rounds each step; the
 * others only the result, which this bound covers too), plus the smallest
 * subnormal of the type. */
static double
tolerance(const prob_t *pb, int dir, int algo, double mag, double mag_max, double as, double bo, double want)
{
    cudnnDataType_t dt = pb->cf->dt;
    double e_alg = transform_algo(dir, algo) ? 2e-4 * mag_max : 1e-5 * mag;
    double u = unit_roundoff(dt);
    double sub = dt == CUDNN_DATA_HALF ? ldexp(1, -24) : 0;
    return e_alg + u * (fabs(as) + fabs(bo) + fabs(want)) + sub;
}

/* Whether the native BF16 path (conv_bf16.h) runs this call. */
static bool
native_path(const prob_t *pb, int dir, int algo)
{
    fdnn_conv_problem_t q = pb->geo;
    const cfg_t *cf = pb->cf;
    q.dir = (fdnn_conv_dir_t)dir;
    q.dtype = q.x_dtype = q.w_dtype = q.y_dtype = cf->dt;
    q.compute_type = cf->compute;
    q.math_type = cf->math;
    q.config = cf->dt == CUDNN_DATA_FLOAT         ? FDNN_CONV_CFG_FLOAT
               : cf->compute == CUDNN_DATA_HALF   ? FDNN_CONV_CFG_TRUE_HALF
               : cf->dt == CUDNN_DATA_HALF        ? FDNN_CONV_CFG_PSEUDO_HALF
                                                  : FDNN_CONV_CFG_PSEUDO_BFLOAT16;
    return fdnn_conv_bf16_applies(&q, algo);
}

/* Every algorithm of every direction against the reference: same
 * applicability as FLOAT data, workspace, poisoned output (beta 0), blend
 * (alpha 2, beta -1). */
static void
check_all(cudnnHandle_t h, const prob_t *pb, const prob_t *fp32, const char *where)
{
    for (int dir = 0; dir < 3; dir++)
        for (int algo = 0; algo < algo_count(dir); algo++) {
            size_t ws = 0, ws32 = 0;
            cudnnStatus_t st = workspace(h, pb, dir, algo, &ws);
            cudnnStatus_t st32 = workspace(h, fp32, dir, algo, &ws32);
            CHECK_MSG(st == st32, "%s dir %d algo %d: status %d, FLOAT data %d", where, dir, algo, (int)st,
                      (int)st32);
            if (st != CUDNN_STATUS_SUCCESS)
                continue;
            bool fallback = dir == 0 ? algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM : algo <= 1;
            /* the native BF16 path (conv_bf16.h) needs no workspace */
            bool native = native_path(pb, dir, algo);
            CHECK_MSG(fallback || native ? ws == 0 : ws > ws32, "%s dir %d algo %d: workspace %zu (FP32 %zu)", where,
                      dir, algo, ws, ws32);
            /* Guarded: staging beyond the reported size faults. */
            void *wsp = ws > 0 ? fdnn_guarded_alloc(ws) : NULL;
            if (wsp != NULL)
                memset(wsp, 0xff, ws);
            size_t count;
            int n, c, sp;
            out_shape(pb, dir, &count, &n, &c, &sp);
            void *out = fdnn_guarded_alloc(count * pb->es);
            double *old = malloc(count * 8);
            double mag_max = 0;
            for (size_t i = 0; i < count; i++)
                mag_max = fmax(mag_max, pb->mag[dir][i]);
            for (int blend = 0; blend < 2; blend++) {
                if (blend) {
                    for (size_t i = 0; i < count; i++)
                        old[i] = rounded(pb->cf->dt, 0.25 * (double)((int)(i % 9) - 4));
                    to_user(pb, old, out, n, c, sp);
                } else {
                    fdnn_poison_bytes(out, count * pb->es);
                }
                st = run(h, pb, dir, algo, blend ? 2.0f : 1.0f, blend ? -1.0f : 0.0f, wsp, ws, out);
                CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s dir %d algo %d blend %d: %s", where, dir, algo, blend,
                          cudnnGetErrorString(st));
                if (st != CUDNN_STATUS_SUCCESS)
                    continue;
                size_t bad = 0;
                double worst = 0;
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < c; j++)
                        for (int k = 0; k < sp; k++) {
                            size_t r = elem(false, c, sp, i, j, k);
                            double s = pb->ref[dir][r];
                            double as = blend ? 2 * s : s, bo = blend ? -old[r] : 0, want = as + bo;
                            double got = load(pb->cf->dt, out, elem(pb->nhwc, c, sp, i, j, k));
                            double tol = tolerance(pb, dir, algo, (blend ? 2 : 1) * pb->mag[dir][r],
                                                   (blend ? 2 : 1) * mag_max, as, bo, want);
                            double err = fabs(got - want);
                            if (!(err <= tol))
                                bad++;
                            if (err / tol > worst || err != err)
                                worst = err / tol;
                        }
                CHECK_MSG(bad == 0, "%s dir %d algo %d blend %d: %zu of %zu outside the tolerance (worst %.3g x)",
                          where, dir, algo, blend, bad, count, worst);
            }
            if (fallback && !native) {
                /* Given a workspace anyway, a zero-workspace fallback stages
                 * there (guarded: its end is the staging's end, 3 buffers
                 * of 64-byte multiples): the same bits. */
                size_t big = ((pb->xn * 4 + 63) & ~(size_t)63) + ((pb->wn * 4 + 63) & ~(size_t)63) +
                             ((pb->yn * 4 + 63) & ~(size_t)63);
                void *bigws = fdnn_guarded_alloc(big), *out2 = fdnn_guarded_alloc(count * pb->es);
                fdnn_poison_bytes(out, count * pb->es);
                fdnn_poison_bytes(out2, count * pb->es);
                CHECK_OK(run(h, pb, dir, algo, 1.0f, 0.0f, NULL, 0, out));
                CHECK_OK(run(h, pb, dir, algo, 1.0f, 0.0f, bigws, big, out2));
                CHECK_MSG(memcmp(out, out2, count * pb->es) == 0, "%s dir %d algo %d: staging in the workspace differs",
                          where, dir, algo);
                fdnn_guarded_free(bigws);
                fdnn_guarded_free(out2);
            }
            free(old);
            fdnn_guarded_free(wsp);
            fdnn_guarded_free(out);
        }
}

static void
test_against_reference(cudnnHandle_t h)
{
    for (int ci = 0; ci < NCFGS; ci++)
        for (int si = 0; si < NSHAPES; si++)
            for (int nhwc = 0; nhwc < 2; nhwc++) {
                prob_t pb, fp32;
                static const cfg_t float_cfg = {"FLOAT", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH};
                prob_init(&pb, &shapes[si], &cfgs[ci], nhwc, 10 + (uint64_t)si);
                prob_init(&fp32, &shapes[si], &float_cfg, nhwc, 10 + (uint64_t)si);
                char where[160];
                snprintf(where, sizeof(where), "%s %s %s", cfgs[ci].name, shapes[si].name, nhwc ? "nhwc" : "nchw");
                check_all(h, &pb, &fp32, where);
                prob_free(&pb);
                prob_free(&fp32);
            }
}

/* cudnnConvolutionBiasActivationForward (bias and z of y's type, as cuDNN's
 * table) and cudnnConvolutionBackwardBias in HALF and BFLOAT16. */
static void
test_bias(cudnnHandle_t h)
{
    for (int ci = 0; ci < NCFGS; ci++) {
        const cfg_t *cf = &cfgs[ci];
        if (cf->dt == CUDNN_DATA_FLOAT)
            continue;
        prob_t pb;
        prob_init(&pb, &shapes[0], cf, false, 77);
        int k = pb.s->k;
        cudnnTensorDescriptor_t bd;
        cudnnActivationDescriptor_t ad;
        cudnnCreateTensorDescriptor(&bd);
        cudnnCreateActivationDescriptor(&ad);
        CHECK_OK(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, cf->dt, 1, k, 1, 1));
        CHECK_OK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0));
        void *bias = malloc((size_t)k * pb.es), *z = malloc(pb.yn * pb.es), *y = fdnn_guarded_alloc(pb.yn * pb.es);
        double *bv = malloc((size_t)k * 8), *zv = malloc(pb.yn * 8);
        for (int i = 0; i < k; i++)
            put(cf->dt, bias, (size_t)i, bv[i] = rounded(cf->dt, 0.5 - 0.25 * i));
        for (size_t i = 0; i < pb.yn; i++)
            put(cf->dt, z, i, zv[i] = rounded(cf->dt, 0.125 * (double)((int)(i % 5) - 2)));
        int algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
        size_t ws = 0;
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, pb.xd, pb.wd, pb.cd, pb.yd, algo, &ws));
        void *wsp = malloc(ws + 1);
        fdnn_poison_bytes(y, pb.yn * pb.es);
        float a1 = 1.5f, a2 = 0.5f;
        CHECK_OK(cudnnConvolutionBiasActivationForward(h, &a1, pb.xd, pb.x, pb.wd, pb.w, pb.cd, algo, wsp, ws, &a2,
                                                       pb.yd, z, bd, bias, ad, pb.yd, y));
        size_t bad = 0;
        int osp = pb.osp;
        for (size_t i = 0; i < pb.yn; i++) {
            int ch = (int)(i / (size_t)osp) % k;
            double s = pb.ref[0][i], pre = 1.5 * s + 0.5 * zv[i] + bv[ch];
            double want = pre > 0 ? pre : 0;
            double tol = 1e-5 * 1.5 * pb.mag[0][i] +
                         unit_roundoff(cf->dt) * (1.5 * fabs(s) + 0.5 * fabs(zv[i]) + fabs(bv[ch]) + fabs(want)) * 2 +
                         ldexp(1, -24);
            if (!(fabs(load(cf->dt, y, i) - want) <= tol))
                bad++;
        }
        CHECK_MSG(bad == 0, "%s bias-activation: %zu of %zu wrong", cf->name, bad, pb.yn);

        /* Backward bias of dy = pb.y: db = 2 * sum - 1 * db_old. */
        void *db = fdnn_guarded_alloc((size_t)k * pb.es);
        for (int i = 0; i < k; i++)
            put(cf->dt, db, (size_t)i, 0.25 * i);
        float al = 2.0f, be = -1.0f;
        CHECK_OK(cudnnConvolutionBackwardBias(h, &al, pb.yd, pb.y, &be, bd, db));
        for (int ch = 0; ch < k; ch++) {
            double sum = 0, mag = 0;
            for (int n = 0; n < pb.s->n; n++)
                for (int p = 0; p < osp; p++) {
                    sum += pb.yr[((size_t)n * (size_t)k + (size_t)ch) * (size_t)osp + (size_t)p];
                    mag += fabs(pb.yr[((size_t)n * (size_t)k + (size_t)ch) * (size_t)osp + (size_t)p]);
                }
            double want = 2 * sum - rounded(cf->dt, 0.25 * ch);
            double got = load(cf->dt, db, (size_t)ch);
            CHECK_MSG(fabs(got - want) <= 1e-6 * mag + unit_roundoff(cf->dt) * fabs(want) * 1.01 + ldexp(1, -24),
                      "%s backward bias channel %d: %g, want %g", cf->name, ch, got, want);
        }
        fdnn_guarded_free(db);
        free(bias);
        free(z);
        free(bv);
        free(zv);
        free(wsp);
        fdnn_guarded_free(y);
        cudnnDestroyTensorDescriptor(bd);
        cudnnDestroyActivationDescriptor(ad);
        prob_free(&pb);
    }
}

/* TENSOR_OP_MATH_ALLOW_CONVERSION on FLOAT data: within the BF16 tolerance
 * of the FP32 result (each product of BF16-rounded operands is within
 * 2 * 2^-8 of the exact one); NVIDIA_TF32_OVERRIDE=0: bitwise FP32.  And the
 * math type the _v7 / Find results report. */
static void
test_allow_conversion(cudnnHandle_t h)
{
    static const cfg_t f32 = {"FLOAT", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH};
    const cfg_t *conv = &cfgs[NCFGS - 1];
    prob_t a, b;
    prob_init(&a, &shapes[2], &f32, true, 5);
    prob_init(&b, &shapes[2], conv, true, 5);
    for (int dir = 0; dir < 3; dir++)
        for (int algo = 0; algo < algo_count(dir); algo++) {
            size_t ws = 0, ws2 = 0;
            if (workspace(h, &a, dir, algo, &ws) != CUDNN_STATUS_SUCCESS)
                continue;
            size_t count;
            int n, c, sp;
            out_shape(&a, dir, &count, &n, &c, &sp);
            float *ya = fdnn_guarded_alloc(count * 4), *yb = fdnn_guarded_alloc(count * 4);
            fdnn_poison_f32(ya, count);
            fdnn_poison_f32(yb, count);
            CHECK_OK(workspace(h, &b, dir, algo, &ws2));
            void *wsp = malloc(ws2 + ws + 1);
            CHECK_OK(run(h, &a, dir, algo, 1, 0, wsp, ws, ya));
            CHECK_OK(run(h, &b, dir, algo, 1, 0, wsp, ws2, yb));
            size_t bad = 0, same = 0;
            for (size_t i = 0; i < count; i++) {
                size_t r = elem(false, c, sp, (int)(i / ((size_t)c * (size_t)sp)), (int)(i / (size_t)sp % (size_t)c),
                                (int)(i % (size_t)sp));
                size_t o = elem(true, c, sp, (int)(i / ((size_t)c * (size_t)sp)), (int)(i / (size_t)sp % (size_t)c),
                                (int)(i % (size_t)sp));
                double mag = a.mag[dir][r];
                if (!(fabs((double)ya[o] - (double)yb[o]) <= ldexp(1, -7) * mag + 1e-4 * mag))
                    bad++;
                same += ya[o] == yb[o];
            }
            CHECK_MSG(bad == 0, "allow-conversion dir %d algo %d: %zu of %zu beyond the BF16 tolerance", dir, algo,
                      bad, count);
            CHECK_MSG(same < count, "allow-conversion dir %d algo %d: bitwise the FP32 result (no conversion?)", dir,
                      algo);
            setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
            size_t ws3 = 99;
            CHECK_OK(workspace(h, &b, dir, algo, &ws3));
            CHECK_MSG(ws3 == ws, "dir %d algo %d: workspace %zu under NVIDIA_TF32_OVERRIDE=0, FP32 %zu", dir, algo,
                      ws3, ws);
            fdnn_poison_f32(yb, count);
            CHECK_OK(run(h, &b, dir, algo, 1, 0, wsp, ws, yb));
            CHECK_MSG(memcmp(ya, yb, count * 4) == 0, "dir %d algo %d: NVIDIA_TF32_OVERRIDE=0 not bitwise FP32", dir,
                      algo);
            unsetenv("NVIDIA_TF32_OVERRIDE");
            free(wsp);
            fdnn_guarded_free(ya);
            fdnn_guarded_free(yb);
        }

    /* Reported math types. */
    int n = 0;
    cudnnConvolutionFwdAlgoPerf_t pf[8];
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, b.xd, b.wd, b.cd, b.yd, 8, &n, pf));
    for (int i = 0; i < n; i++)
        CHECK(pf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, a.xd, a.wd, a.cd, a.yd, 8, &n, pf));
    for (int i = 0; i < n; i++)
        CHECK(pf[i].mathType == CUDNN_DEFAULT_MATH);
    setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, b.xd, b.wd, b.cd, b.yd, 8, &n, pf));
    for (int i = 0; i < n; i++)
        CHECK(pf[i].mathType == CUDNN_DEFAULT_MATH);
    unsetenv("NVIDIA_TF32_OVERRIDE");
    /* TENSOR_OP_MATH on FLOAT data converts nothing. */
    CHECK_OK(cudnnSetConvolutionMathType(a.cd, CUDNN_TENSOR_OP_MATH));
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, a.xd, a.wd, a.cd, a.yd, 8, &n, pf));
    for (int i = 0; i < n; i++)
        CHECK(pf[i].mathType == CUDNN_DEFAULT_MATH);
    prob_free(&a);
    prob_free(&b);
    for (int ci = 0; ci < NCFGS - 1; ci++) {
        prob_init(&a, &shapes[0], &cfgs[ci], false, 9);
        cudnnMathType_t want = cfgs[ci].math;
        CHECK_OK(cudnnFindConvolutionForwardAlgorithm(h, a.xd, a.wd, a.cd, a.yd, 8, &n, pf));
        for (int i = 0; i < n; i++)
            CHECK_MSG(pf[i].mathType == want, "%s: Find reports math type %d", cfgs[ci].name, (int)pf[i].mathType);
        cudnnConvolutionBwdDataAlgoPerf_t pd[6];
        CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, a.wd, a.yd, a.cd, a.xd, 6, &n, pd));
        for (int i = 0; i < n; i++)
            CHECK(pd[i].mathType == want);
        cudnnConvolutionBwdFilterAlgoPerf_t pw[7];
        CHECK_OK(cudnnFindConvolutionBackwardFilterAlgorithm(h, a.xd, a.yd, a.cd, a.wd, 7, &n, pw));
        for (int i = 0; i < n; i++)
            CHECK(pw[i].mathType == want);
        prob_free(&a);
    }
}

/* 1 and 2 threads give the same bits (a problem over the pool's cut). */
static void
test_threads(cudnnHandle_t h)
{
    static const shape_t big = S2("big", 4, 32, 32, 1, 20, 20, 3, 3, 1, 1, 1, 1, 1, 1, XC);
    for (int ci = 0; ci < NCFGS; ci += 2) {
        prob_t pb;
        prob_init(&pb, &big, &cfgs[ci], ci % 4 == 0, 3);
        for (int dir = 0; dir < 3; dir++)
            for (int algo = 0; algo < algo_count(dir); algo++) {
                size_t ws = 0;
                if (workspace(h, &pb, dir, algo, &ws) != CUDNN_STATUS_SUCCESS)
                    continue;
                size_t count;
                int n, c, sp;
                out_shape(&pb, dir, &count, &n, &c, &sp);
                void *one = fdnn_guarded_alloc(count * pb.es), *two = fdnn_guarded_alloc(count * pb.es);
                fdnn_poison_bytes(one, count * pb.es);
                fdnn_poison_bytes(two, count * pb.es);
                void *wsp = malloc(ws + 1);
                CHECK_OK(freednnSetNumThreads(h, 1));
                CHECK_OK(run(h, &pb, dir, algo, 1, 0, wsp, ws, one));
                CHECK_OK(freednnSetNumThreads(h, 2));
                CHECK_OK(run(h, &pb, dir, algo, 1, 0, wsp, ws, two));
                CHECK_MSG(memcmp(one, two, count * pb.es) == 0, "%s dir %d algo %d: 1 and 2 threads differ",
                          cfgs[ci].name, dir, algo);
                CHECK_MSG(!poisoned_out(pb.cf->dt, one, count), "%s dir %d algo %d: output not fully written",
                          cfgs[ci].name, dir, algo);
                free(wsp);
                fdnn_guarded_free(one);
                fdnn_guarded_free(two);
            }
        prob_free(&pb);
    }
    CHECK_OK(freednnSetNumThreads(h, 1));
}

/* Every 16-bit code through the conversions of the path: a 1x1
 * convolution with the filter 1 over all 65536 codes gives each code back
 * (NaN as NaN, -0 as either zero); under TENSOR_OP_MATH a HALF code comes
 * back rounded to BF16 precision first. */
static void
test_all_codes(cudnnHandle_t h)
{
    for (int ci = 0; ci < NCFGS - 1; ci++) {
        const cfg_t *cf = &cfgs[ci];
        cudnnTensorDescriptor_t xd, yd;
        cudnnFilterDescriptor_t wd;
        cudnnConvolutionDescriptor_t cd;
        cudnnCreateTensorDescriptor(&xd);
        cudnnCreateTensorDescriptor(&yd);
        cudnnCreateFilterDescriptor(&wd);
        cudnnCreateConvolutionDescriptor(&cd);
        CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, cf->dt, 1, 1, 256, 256));
        CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, cf->dt, 1, 1, 256, 256));
        CHECK_OK(cudnnSetFilter4dDescriptor(wd, cf->dt, CUDNN_TENSOR_NCHW, 1, 1, 1, 1));
        CHECK_OK(cudnnSetConvolution2dDescriptor(cd, 0, 0, 1, 1, 1, 1, XC, cf->compute));
        CHECK_OK(cudnnSetConvolutionMathType(cd, cf->math));
        uint16_t *x = malloc(65536 * 2), *y = fdnn_guarded_alloc(65536 * 2);
        uint32_t w = 0; /* (room for put's FLOAT case; the first half holds the code) */
        put(cf->dt, &w, 0, 1.0);
        for (int i = 0; i < 65536; i++)
            x[i] = (uint16_t)i;
        for (int algo = 0; algo < 2; algo++) {
            bool native_bf16 = cf->math != CUDNN_DEFAULT_MATH && cf->compute == CUDNN_DATA_FLOAT &&
                               fdnn_conv_bf16_cpu_has();
            size_t ws = 0;
            CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws));
            void *wsp = malloc(ws + 1);
            fdnn_poison_bytes(y, 65536 * 2);
            float one = 1, zero = 0;
            CHECK_OK(cudnnConvolutionForward(h, &one, xd, x, wd, &w, cd, algo, wsp, ws, &zero, yd, y));
            int bad = 0;
            for (int i = 0; i < 65536; i++) {
                double in = load(cf->dt, x, (size_t)i);
                if (cf->math != CUDNN_DEFAULT_MATH)
                    in = rounded(CUDNN_DATA_BFLOAT16, in);
                /* vdpbf16ps reads subnormal bfloat16 inputs as zero */
                if (native_bf16 && fabs(in) < 0x1p-126)
                    in = 0 * in;
                double want = rounded(cf->dt, in), got = load(cf->dt, y, (size_t)i);
                if (!(got == want || (isnan(got) && isnan(want))))
                    bad++;
            }
            CHECK_MSG(bad == 0, "%s algo %d: %d of 65536 codes not given back", cf->name, algo, bad);
            free(wsp);
        }
        free(x);
        fdnn_guarded_free(y);
        cudnnDestroyTensorDescriptor(xd);
        cudnnDestroyTensorDescriptor(yd);
        cudnnDestroyFilterDescriptor(wd);
        cudnnDestroyConvolutionDescriptor(cd);
    }
}

/* BFLOAT16_CONFIG (BFLOAT16 compute) cannot be asked for: the descriptor
 * refuses the compute type. */
static void
test_configs(void)
{
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateConvolutionDescriptor(&cd);
    CHECK_STATUS(cudnnSetConvolution2dDescriptor(cd, 0, 0, 1, 1, 1, 1, XC, CUDNN_DATA_BFLOAT16),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyConvolutionDescriptor(cd);
}

int
main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    CHECK_OK(freednnSetNumThreads(h, 1));
    unsetenv("NVIDIA_TF32_OVERRIDE");
    test_configs();
    test_all_codes(h);
    test_against_reference(h);
    test_bias(h);
    test_allow_conversion(h);
    test_threads(h);
    cudnnDestroy(h);
    return fdnn_test_finish("test_conv_lowp");
}
