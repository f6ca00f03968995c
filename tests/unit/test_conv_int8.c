/* SPDX-License-Identifier: Apache-2.0
 * The integer convolutions (src/cpu/conv/conv_int8.c) through the API:
 * cudnnConvolutionForward and cudnnConvolutionBiasActivationForward over
 * every INT8 configuration, exact against an integer reference written here
 * (int64 sums, then the FLOAT epilogue alpha * S + beta * y0 + bias, ReLU,
 * round half to even and saturate), on every ISA level the machine has (and
 * AVX-512 without VNNI), 1 and 2 threads, outputs poisoned; the statuses of
 * the layouts, channel counts and algorithms cuDNN refuses; the queries;
 * INT8x32 filters and bias reordered by cudnnReorderFilterAndBias and run
 * under CUDNN_NO_REORDER. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/conv/conv_int8.h"
#include "freednn.h"
#include "testutil.h"

static cudnnHandle_t handle;

enum layout { L_NCHW, L_NHWC, L_VECT };

typedef struct cfg {
    const char *name;
    cudnnDataType_t xt, wt, yt;
    enum layout xl, yl; /* the filter has x's layout */
} cfg_t;

static const cfg_t cfgs[] = {
    {"INT8", CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT8, L_NHWC, L_NHWC},
    {"INT8_EXT", CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, L_NHWC, L_NHWC},
    {"INT8_EXT/nchw y", CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, L_NHWC, L_NCHW},
    {"INT8x4", CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x4, L_VECT, L_VECT},
    {"INT8x4_EXT", CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x4, CUDNN_DATA_FLOAT, L_VECT, L_NCHW},
    {"UINT8x4", CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x4, CUDNN_DATA_UINT8x4, L_VECT, L_VECT},
    {"UINT8x4_EXT", CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x4, CUDNN_DATA_FLOAT, L_VECT, L_NHWC},
    {"INT8x32", CUDNN_DATA_INT8x32, CUDNN_DATA_INT8x32, CUDNN_DATA_INT8x32, L_VECT, L_VECT},
};
enum { NCFG = sizeof(cfgs) / sizeof(cfgs[0]) };

typedef struct shape {
    int nsp, n, c, k, g;
    int in[3], ker[3], pad[3], str[3], dil[3];
    bool conv; /* CUDNN_CONVOLUTION (else cross-correlation) */
} shape_t;

/* What a run computes on top of the sums. */
typedef struct epi {
    float alpha, beta; /* beta: alpha2 for the bias-activation call */
    bool bias_act, relu;
    int z;    /* bias-activation: 0 z a separate buffer, 1 z is y */
    int fill; /* 0 random, 1 x = w = 127, 2 x = -128 and w = 127, 3 x = 255 (u8) w = -128 */
    bool reorder; /* INT8x32: filter and bias reordered, CUDNN_NO_REORDER */
} epi_t;

static int
vect_of(cudnnDataType_t t)
{
    return t == CUDNN_DATA_INT8x32 ? 32 : (t == CUDNN_DATA_INT8x4 || t == CUDNN_DATA_UINT8x4) ? 4 : 1;
}

/* Offset in elements of (n, c, d, h, w) of a packed N x C x D x H x W
 * tensor in layout l (v channels per vector for L_VECT). */
static size_t
off5(enum layout l, int v, const int dims[5], int n, int c, int d, int h, int w)
{
    const int C = dims[1], D = dims[2], H = dims[3], W = dims[4];
    switch (l) {
    case L_NCHW: return ((((size_t)n * C + c) * D + d) * H + h) * W + w;
    case L_NHWC: return ((((size_t)n * D + d) * H + h) * W + w) * C + c;
    case L_VECT: break;
    }
    return (((((size_t)n * (C / v) + c / v) * D + d) * H + h) * W + w) * v + c % v;
}

static cudnnTensorFormat_t
format_of(enum layout l)
{
    return l == L_NCHW ? CUDNN_TENSOR_NCHW : l == L_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW_VECT_C;
}

/* Descriptor dims (N, C, [D,] H, W) from 5-D dims. */
static int
desc_dims(int nsp, const int d5[5], int out[5])
{
    out[0] = d5[0];
    out[1] = d5[1];
    if (nsp == 3) {
        out[2] = d5[2];
        out[3] = d5[3];
        out[4] = d5[4];
        return 5;
    }
    out[2] = d5[3];
    out[3] = d5[4];
    return 4;
}

typedef struct problem {
    const cfg_t *cf;
    shape_t s;
    int xd[5], wd[5], yd[5]; /* 5-D dims */
    size_t xn, wn, yn;       /* elements */
    int *x, *w;              /* logical values, NCDHW / KCDHW order */
    float *y0;               /* the blend source's logical values */
    float *bias;
    cudnnTensorDescriptor_t xdesc, ydesc, bdesc;
    cudnnFilterDescriptor_t wdesc;
    cudnnConvolutionDescriptor_t conv;
    cudnnActivationDescriptor_t act;
} problem_t;

static size_t
lin(const int d[5], int a, int b, int c, int e, int f)
{
    return ((((size_t)a * d[1] + b) * d[2] + c) * d[3] + e) * d[4] + f;
}

/* The expected output element (logical index) as float bits or an integer. */
static float
expect(const problem_t *P, const epi_t *E, int n, int k, int od, int oh, int ow)
{
    const shape_t *s = &P->s;
    const int cg = s->c / s->g, kg = s->k / s->g, g = k / kg;
    int64_t sum = 0;
    for (int c = 0; c < cg; c++)
        for (int qd = 0; qd < s->ker[0]; qd++)
            for (int qh = 0; qh < s->ker[1]; qh++)
                for (int qw = 0; qw < s->ker[2]; qw++) {
                    int id = od * s->str[0] - s->pad[0] + qd * s->dil[0];
                    int ih = oh * s->str[1] - s->pad[1] + qh * s->dil[1];
                    int iw = ow * s->str[2] - s->pad[2] + qw * s->dil[2];
                    if (id < 0 || id >= s->in[0] || ih < 0 || ih >= s->in[1] || iw < 0 || iw >= s->in[2])
                        continue;
                    int rd = s->conv ? s->ker[0] - 1 - qd : qd, rh = s->conv ? s->ker[1] - 1 - qh : qh,
                        rw = s->conv ? s->ker[2] - 1 - qw : qw;
                    sum += (int64_t)P->x[lin(P->xd, n, g * cg + c, id, ih, iw)] * P->w[lin(P->wd, k, c, rd, rh, rw)];
                }
    float v = E->alpha * (float)sum;
    if (E->beta != 0)
        v += E->beta * P->y0[lin(P->yd, n, k, od, oh, ow)];
    if (E->bias_act)
        v += P->bias[k];
    if (E->relu && !(v > 0) && v == v) /* ReLU keeps a NaN */
        v = 0;
    if (P->cf->yt == CUDNN_DATA_FLOAT)
        return v;
    if (v != v) /* NaN: 0 in the integer types */
        return 0;
    double lo = P->cf->yt == CUDNN_DATA_UINT8x4 ? 0 : -128, hi = P->cf->yt == CUDNN_DATA_UINT8x4 ? 255 : 127;
    double r = nearbyint((double)v);
    return (float)(r < lo ? lo : r > hi ? hi : r);
}

static void
make_problem(problem_t *P, const cfg_t *cf, const shape_t *s)
{
    memset(P, 0, sizeof(*P));
    P->cf = cf;
    P->s = *s;
    int od[3];
    for (int i = 0; i < 3; i++)
        od[i] = (s->in[i] + 2 * s->pad[i] - ((s->ker[i] - 1) * s->dil[i] + 1)) / s->str[i] + 1;
    int xd[5] = {s->n, s->c, s->in[0], s->in[1], s->in[2]};
    int wd[5] = {s->k, s->c / s->g, s->ker[0], s->ker[1], s->ker[2]};
    int yd[5] = {s->n, s->k, od[0], od[1], od[2]};
    memcpy(P->xd, xd, sizeof(xd));
    memcpy(P->wd, wd, sizeof(wd));
    memcpy(P->yd, yd, sizeof(yd));
    P->xn = (size_t)s->n * s->c * s->in[0] * s->in[1] * s->in[2];
    P->wn = (size_t)wd[0] * wd[1] * wd[2] * wd[3] * wd[4];
    P->yn = (size_t)yd[0] * yd[1] * yd[2] * yd[3] * yd[4];
    P->x = malloc(P->xn * sizeof(int));
    P->w = malloc(P->wn * sizeof(int));
    P->y0 = malloc(P->yn * sizeof(float));
    P->bias = malloc((size_t)s->k * sizeof(float));
    int dd[5];
    int nb;
    cudnnCreateTensorDescriptor(&P->xdesc);
    cudnnCreateTensorDescriptor(&P->ydesc);
    cudnnCreateTensorDescriptor(&P->bdesc);
    cudnnCreateFilterDescriptor(&P->wdesc);
    cudnnCreateConvolutionDescriptor(&P->conv);
    cudnnCreateActivationDescriptor(&P->act);
    nb = desc_dims(s->nsp, xd, dd);
    CHECK_OK(cudnnSetTensorNdDescriptorEx(P->xdesc, format_of(cf->xl), cf->xt, nb, dd));
    nb = desc_dims(s->nsp, yd, dd);
    CHECK_OK(cudnnSetTensorNdDescriptorEx(P->ydesc, format_of(cf->yl), cf->yt, nb, dd));
    nb = desc_dims(s->nsp, wd, dd);
    CHECK_OK(cudnnSetFilterNdDescriptor(P->wdesc, cf->wt, format_of(cf->xl), nb, dd));
    int bd[5] = {1, s->k, 1, 1, 1};
    CHECK_OK(cudnnSetTensorNdDescriptorEx(P->bdesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, nb, bd));
    int pad[3], str[3], dil[3], o = 3 - s->nsp;
    for (int i = 0; i < s->nsp; i++) {
        pad[i] = s->pad[o + i];
        str[i] = s->str[o + i];
        dil[i] = s->dil[o + i];
    }
    CHECK_OK(cudnnSetConvolutionNdDescriptor(P->conv, s->nsp, pad, str, dil,
                                             s->conv ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                             CUDNN_DATA_INT32));
    CHECK_OK(cudnnSetConvolutionGroupCount(P->conv, s->g));
}

static void
free_problem(problem_t *P)
{
    free(P->x);
    free(P->w);
    free(P->y0);
    free(P->bias);
    cudnnDestroyTensorDescriptor(P->xdesc);
    cudnnDestroyTensorDescriptor(P->ydesc);
    cudnnDestroyTensorDescriptor(P->bdesc);
    cudnnDestroyFilterDescriptor(P->wdesc);
    cudnnDestroyConvolutionDescriptor(P->conv);
    cudnnDestroyActivationDescriptor(P->act);
}

static void
fill_values(problem_t *P, const epi_t *E, uint64_t seed)
{
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, seed);
    const bool ux = P->cf->xt == CUDNN_DATA_UINT8x4;
    for (size_t i = 0; i < P->xn; i++)
        P->x[i] = E->fill == 1 ? 127 : E->fill == 2 ? (ux ? 255 : -128) : E->fill == 3 ? (ux ? 255 : -128)
                                                                        : (ux ? fdnn_rng_int(&rng, 0, 255)
                                                                              : fdnn_rng_int(&rng, -128, 127));
    for (size_t i = 0; i < P->wn; i++)
        P->w[i] = E->fill == 1 || E->fill == 2 ? 127 : E->fill == 3 ? -128 : fdnn_rng_int(&rng, -128, 127);
    const bool fy = P->cf->yt == CUDNN_DATA_FLOAT, uy = P->cf->yt == CUDNN_DATA_UINT8x4;
    for (size_t i = 0; i < P->yn; i++)
        P->y0[i] = fy ? (float)fdnn_rng_int(&rng, -4000, 4000) / 16 : (float)(uy ? fdnn_rng_int(&rng, 0, 255)
                                                                             : fdnn_rng_int(&rng, -128, 127));
    for (int k = 0; k < P->s.k; k++)
        P->bias[k] = (float)fdnn_rng_int(&rng, -40000, 40000) / 64;
}

/* Writes logical values into a buffer of the operand's layout and type. */
static void
store_operand(void *buf, cudnnDataType_t t, enum layout l, const int d[5], const int *iv, const float *fv)
{
    const int v = vect_of(t);
    for (int a = 0; a < d[0]; a++)
        for (int b = 0; b < d[1]; b++)
            for (int c = 0; c < d[2]; c++)
                for (int e = 0; e < d[3]; e++)
                    for (int f = 0; f < d[4]; f++) {
                        size_t o = off5(l, v, d, a, b, c, e, f), i = lin(d, a, b, c, e, f);
                        if (t == CUDNN_DATA_FLOAT)
                            ((float *)buf)[o] = fv[i];
                        else
                            ((uint8_t *)buf)[o] = (uint8_t)(iv != NULL ? iv[i] : (int)fv[i]);
                    }
}

static size_t
esize(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT ? 4 : 1;
}

/* The NO_REORDER filter of INT8x32: the natural one reordered by the library
 * (test_conv_reorder.c checks that order on its own). */
static void
reorder(const problem_t *P, void *wbuf, float *bias)
{
    void *r = malloc(P->wn);
    float *rb = malloc((size_t)P->s.k * 4);
    CHECK_OK(cudnnReorderFilterAndBias(handle, P->wdesc, CUDNN_DEFAULT_REORDER, wbuf, r, 1, bias, rb));
    memcpy(wbuf, r, P->wn);
    memcpy(bias, rb, (size_t)P->s.k * 4);
    free(r);
    free(rb);
}

static int n_runs;

/* Runs P with E on every ISA level and 1 and 2 threads; each output checked
 * element by element against the reference. */
static void
run_case(problem_t *P, const epi_t *E, const char *what)
{
    const cfg_t *cf = P->cf;
    const size_t ye = esize(cf->yt);
    void *x = fdnn_guarded_alloc(P->xn), *w = fdnn_guarded_alloc(P->wn);
    void *y = fdnn_guarded_alloc(P->yn * ye), *z = fdnn_guarded_alloc(P->yn * ye);
    float *bias = fdnn_guarded_alloc((size_t)P->s.k * 4);
    float *want = malloc(P->yn * sizeof(float));
    store_operand(x, cf->xt, cf->xl, P->xd, P->x, NULL);
    store_operand(w, cf->wt, cf->xl, P->wd, P->w, NULL);
    memcpy(bias, P->bias, (size_t)P->s.k * 4);
    CHECK_OK(cudnnSetConvolutionReorderType(P->conv, E->reorder ? CUDNN_NO_REORDER : CUDNN_DEFAULT_REORDER));
    if (E->reorder)
        reorder(P, w, bias);
    for (int n = 0; n < P->yd[0]; n++)
        for (int k = 0; k < P->yd[1]; k++)
            for (int d = 0; d < P->yd[2]; d++)
                for (int h = 0; h < P->yd[3]; h++)
                    for (int q = 0; q < P->yd[4]; q++)
                        want[lin(P->yd, n, k, d, h, q)] = expect(P, E, n, k, d, h, q);
    CHECK_OK(cudnnSetActivationDescriptor(P->act, E->relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                                          CUDNN_PROPAGATE_NAN, 0.0));
    const int algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t ws = 1;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, P->xdesc, P->wdesc, P->conv, P->ydesc, algo, &ws));
    CHECK(ws == 0);
    const int isas = fdnn_test_isa_count();
    for (int li = 0; li <= isas; li++) {
        /* li == isas: the top level again without VNNI. */
        const int isa = li < isas ? li : isas - 1;
        if (li == isas && strcmp(fdnn_test_isa_name(isa), "avx512") != 0)
            break;
        fdnn_conv_int8_allow_vnni(li < isas);
        CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
        for (int threads = 1; threads <= 2; threads++) {
            CHECK_OK(freednnSetNumThreads(handle, threads));
            /* The blend source holds y0; y is poisoned unless it is it. */
            const bool blend_in_y = !E->bias_act || E->z == 1;
            void *src = blend_in_y ? y : z;
            store_operand(src, cf->yt, cf->yl, P->yd, NULL, P->y0);
            if (!blend_in_y)
                fdnn_poison_bytes(y, P->yn * ye);
            else if (E->beta == 0)
                fdnn_poison_bytes(y, P->yn * ye);
            cudnnStatus_t st;
            if (E->bias_act)
                st = cudnnConvolutionBiasActivationForward(handle, &E->alpha, P->xdesc, x, P->wdesc, w, P->conv,
                                                           algo, NULL, 0, &E->beta, P->ydesc, src, P->bdesc, bias,
                                                           P->act, P->ydesc, y);
            else
                st = cudnnConvolutionForward(handle, &E->alpha, P->xdesc, x, P->wdesc, w, P->conv, algo, NULL, 0,
                                             &E->beta, P->ydesc, y);
            CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s %s: status %d", cf->name, what, (int)st);
            n_runs++;
            size_t bad = 0, first = 0;
            float got_first = 0;
            for (int n = 0; n < P->yd[0]; n++)
                for (int k = 0; k < P->yd[1]; k++)
                    for (int d = 0; d < P->yd[2]; d++)
                        for (int h = 0; h < P->yd[3]; h++)
                            for (int q = 0; q < P->yd[4]; q++) {
                                size_t o = off5(cf->yl, vect_of(cf->yt), P->yd, n, k, d, h, q);
                                float got;
                                if (cf->yt == CUDNN_DATA_FLOAT)
                                    got = ((float *)y)[o];
                                else if (cf->yt == CUDNN_DATA_UINT8x4)
                                    got = ((uint8_t *)y)[o];
                                else
                                    got = ((int8_t *)y)[o];
                                float e = want[lin(P->yd, n, k, d, h, q)];
                                if (memcmp(&got, &e, 4) != 0 && !(got == 0 && e == 0)) {
                                    if (bad++ == 0) {
                                        first = lin(P->yd, n, k, d, h, q);
                                        got_first = got;
                                    }
                                }
                            }
            CHECK_MSG(bad == 0, "%s %s isa %s%s threads %d: %zu of %zu wrong (first at %zu: %g, want %g)",
                      cf->name, what, fdnn_test_isa_name(isa), li == isas ? " (no VNNI)" : "", threads, bad, P->yn,
                      first, (double)got_first, (double)want[first]);
        }
    }
    fdnn_conv_int8_allow_vnni(true);
    fdnn_guarded_free(x);
    fdnn_guarded_free(w);
    fdnn_guarded_free(y);
    fdnn_guarded_free(z);
    fdnn_guarded_free(bias);
    free(want);
}

static shape_t
shape2(int n, int c, int k, int g, int h, int w, int kh, int kw, int p, int s, int d, bool conv)
{
    shape_t sh = {2, n, c, k, g, {1, h, w}, {1, kh, kw}, {0, p, p}, {1, s, s}, {1, d, d}, conv};
    return sh;
}

static void
test_configurations(void)
{
    for (int ci = 0; ci < NCFG; ci++) {
        const cfg_t *cf = &cfgs[ci];
        const int v = vect_of(cf->xt) > 1 ? vect_of(cf->xt) : 4;
        const int kv = cf->yt == CUDNN_DATA_INT8x32 ? 32 : v; /* K in whole vectors of y */
        shape_t shapes[] = {
            /* 3x3 pad 1, over 2^20 multiply-adds: both threads work */
            shape2(2, v < 16 ? 32 : 2 * v, kv < 16 ? 48 : 3 * kv, 1, 9, 11, 3, 3, 1, 1, 1, false),
            /* 1x1 strided, odd widths (partial tiles) */
            shape2(1, v, kv, 1, 7, 13, 1, 1, 0, 2, 1, false),
            /* grouped, dilated, CONVOLUTION mode, asymmetric kernel */
            shape2(2, 2 * v, 2 * kv, 2, 8, 9, 2, 3, 2, 1, 2, true),
            /* 1x3 filter, stride 2 both ways, padded: the packing keeps
             * every other row only (a 1-tall filter) */
            {2, 1, v, kv, 1, {1, 9, 10}, {1, 1, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}, false},
            /* 3-D */
            {3, 1, v, kv, 1, {4, 5, 6}, {2, 3, 2}, {1, 1, 0}, {1, 2, 1}, {1, 1, 2}, false},
        };
        for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
            problem_t P;
            make_problem(&P, cf, &shapes[si]);
            epi_t E = {1.0f, 0.0f, false, false, 0, 0, false};
            fill_values(&P, &E, 1000 * ci + si);
            run_case(&P, &E, "alpha 1 beta 0");
            if (si == 0) {
                epi_t e2 = {0.03125f, 0.75f, false, false, 0, 0, false};
                run_case(&P, &e2, "alpha 1/32 beta 0.75");
                epi_t e3 = {0.0078125f, -0.5f, true, true, 0, 0, false};
                run_case(&P, &e3, "bias-act relu z separate");
                epi_t e4 = {0.0078125f, 1.0f, true, false, 1, 0, false};
                run_case(&P, &e4, "bias-act identity z is y");
                epi_t e5 = {0.001f, 0.0f, true, true, 0, 0, false};
                run_case(&P, &e5, "bias-act relu alpha2 0");
            }
            free_problem(&P);
        }
    }
}

/* INT8 NHWC with 2 channels per group (C and K multiples of 4 as cuDNN
 * asks, the groups not): the packing pads each group's channels. */
static void
test_small_groups(void)
{
    for (int ci = 0; ci < 3; ci++) {
        shape_t s = shape2(2, 8, 12, 4, 6, 7, 3, 3, 1, 1, 1, true);
        problem_t P;
        make_problem(&P, &cfgs[ci], &s);
        epi_t E = {0.25f, 0.0f, false, false, 0, 0, false};
        fill_values(&P, &E, 99 + ci);
        run_case(&P, &E, "4 groups of 2 channels");
        free_problem(&P);
    }
}

/* All products at the extremes: the sums saturate INT8 / UINT8 outputs and
 * test the VNNI bias at its limits (x = -128 encodes as 0). */
static void
test_saturation(void)
{
    for (int ci = 0; ci < NCFG; ci++) {
        const cfg_t *cf = &cfgs[ci];
        const int v = vect_of(cf->xt) > 1 ? vect_of(cf->xt) : 4;
        const int kv = cf->yt == CUDNN_DATA_INT8x32 ? 32 : v;
        shape_t s = shape2(1, 2 * v, kv, 1, 5, 6, 3, 3, 1, 1, 1, false);
        for (int fill = 1; fill <= 3; fill++) {
            problem_t P;
            make_problem(&P, cf, &s);
            epi_t E = {1.0f, 0.0f, false, false, 0, fill, false};
            fill_values(&P, &E, 7);
            run_case(&P, &E, fill == 1 ? "all 127" : fill == 2 ? "x -128 (255) w 127" : "x -128 (255) w -128");
            /* alpha small enough to land inside the range, with halves */
            epi_t e2 = {1.0f / 1024, 0.0f, false, false, 0, fill, false};
            run_case(&P, &e2, "all extremes scaled");
            free_problem(&P);
        }
    }
}

/* Rounding: alpha 0.5 on small sums gives exact halves, which round to
 * even. */
static void
test_round_half_even(void)
{
    problem_t P;
    shape_t s = shape2(1, 4, 4, 1, 4, 4, 1, 1, 0, 1, 1, false);
    make_problem(&P, &cfgs[0], &s);
    epi_t E = {0.5f, 0.0f, false, false, 0, 0, false};
    fill_values(&P, &E, 3);
    for (size_t i = 0; i < P.wn; i++)
        P.w[i] = i % 5 == 0 ? 1 : 0; /* each output one x value: odd ones give halves */
    run_case(&P, &E, "halves");
    free_problem(&P);
}

static void
test_reordered_int8x32(void)
{
    shape_t s = shape2(1, 64, 64, 1, 6, 7, 3, 3, 1, 1, 1, false);
    problem_t P;
    make_problem(&P, &cfgs[NCFG - 1], &s);
    epi_t E = {0.0078125f, 0.5f, true, true, 0, 0, true};
    fill_values(&P, &E, 11);
    run_case(&P, &E, "reordered filter and bias, NO_REORDER");
    epi_t e2 = {0.0078125f, 0.0f, false, false, 0, 0, true};
    run_case(&P, &e2, "reordered filter, NO_REORDER forward");
    free_problem(&P);
}

/* The paths of the VNNI kernel (and the same problems on every other
 * level): 1x1 inputs read in place (NHWC, NCHW_VECT_C) with channel counts
 * that are not multiples of 16 or 64, strided; K not a multiple of 64 or
 * 16 (a partial block, a partial quad of blocks); padded 1x1 and unpadded
 * 3x3 (packed); groups; tiles of 6 pixels across rows, images and chunks
 * of 96; the epilogue in the kernel (bias, ReLU), through the sums (beta),
 * and with infinite and NaN biases. */
static void
test_vnni_paths(void)
{
    for (int ci = 0; ci < NCFG; ci++) {
        const cfg_t *cf = &cfgs[ci];
        const bool v32 = vect_of(cf->xt) == 32;
        const int c1 = v32 ? 64 : 20, k1 = v32 ? 96 : 100, c2 = v32 ? 32 : 12, k2 = v32 ? 32 : 36;
        shape_t shapes[] = {
            /* in place, 585 pixels over 3 images */
            shape2(3, c1, k1, 1, 5, 13, 1, 1, 0, 1, 1, false),
            /* 18 (24) units a tap: the filter packed by a transpose of
             * 16 units and gathers for the rest */
            shape2(1, v32 ? 96 : 72, v32 ? 32 : 20, 1, 3, 5, 1, 1, 0, 1, 1, false),
            /* 3x3 over 80 (96) channels: 180 (216) units a sum */
            shape2(1, v32 ? 96 : 80, v32 ? 32 : 20, 1, 5, 4, 3, 3, 1, 1, 1, false),
            /* in place, stride 2 */
            shape2(2, c2, k2, 1, 9, 7, 1, 1, 0, 2, 1, false),
            /* 1x1 padded: packed */
            shape2(1, c1, v32 ? 64 : 68, 1, 6, 5, 1, 1, 1, 1, 1, false),
            /* 3x3 unpadded: packed */
            shape2(2, v32 ? 32 : 8, v32 ? 32 : 20, 1, 7, 9, 3, 3, 0, 1, 1, false),
            /* groups of 12 (32) channels in place, 20 (32) outputs each */
            shape2(2, v32 ? 64 : 24, v32 ? 64 : 40, 2, 4, 5, 1, 1, 0, 1, 1, false),
            /* 4 groups of 2 outputs (8 with INT8x32): the sums through the
             * portable epilogue (output quads split between groups) */
            shape2(1, v32 ? 128 : vect_of(cf->xt) == 4 ? 16 : 8, v32 ? 32 : 8, 4, 5, 6, 1, 1, 0, 1, 1, false),
        };
        for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
            problem_t P;
            make_problem(&P, cf, &shapes[si]);
            epi_t E = {1.0f / 64, 0.0f, false, false, 0, 0, false};
            fill_values(&P, &E, 5000 + 100 * ci + si);
            run_case(&P, &E, "vnni paths: alpha 1/64");
            epi_t e2 = {1.0f / 128, 0.0f, true, true, 0, 0, false};
            run_case(&P, &e2, "vnni paths: bias relu");
            epi_t e3 = {1.0f / 32, 0.5f, false, false, 0, 0, false};
            run_case(&P, &e3, "vnni paths: beta 0.5");
            if (si == 0) { /* (K >= 96) */
                P.bias[0] = NAN;
                P.bias[1] = INFINITY;
                P.bias[2] = -INFINITY;
                P.bias[P.s.k - 1] = NAN;
                epi_t e4 = {1.0f / 16, 0.0f, true, false, 0, 0, false};
                run_case(&P, &e4, "vnni paths: NaN and infinite bias");
                epi_t e5 = {1.0f / 16, 0.0f, true, true, 0, 0, false};
                run_case(&P, &e5, "vnni paths: NaN and infinite bias, relu");
            }
            free_problem(&P);
        }
    }
}

/* Layouts, channel counts, types and algorithms cuDNN refuses. */
static void
test_statuses(void)
{
    cudnnTensorDescriptor_t x, y, yf, b, bh;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateTensorDescriptor(&yf);
    cudnnCreateTensorDescriptor(&b);
    cudnnCreateTensorDescriptor(&bh);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    CHECK_OK(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32));
    size_t ws = 0;
    const int pg = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    /* INT8 in NCHW: NOT_SUPPORTED (NHWC only). */
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 1, 8, 5, 5));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, 8, 8, 3, 3));
    CHECK_OK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, 1, 8, 5, 5));
    CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, pg, &ws),
                 CUDNN_STATUS_NOT_SUPPORTED);
    /* NHWC but a filter in NCHW */
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, 1, 8, 5, 5));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8, CUDNN_TENSOR_NCHW, 8, 8, 3, 3));
    CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, pg, &ws),
                 CUDNN_STATUS_NOT_SUPPORTED);
    /* All NHWC: runs with IMPLICIT_PRECOMP_GEMM only. */
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, 8, 8, 3, 3));
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, pg, &ws));
    for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; a++)
        if (a != pg)
            CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, a, &ws),
                         CUDNN_STATUS_NOT_SUPPORTED);
    /* _v7 lists it first, the rest NOT_SUPPORTED; Find times it. */
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int got = 0;
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got,
                                                    perf));
    CHECK(got == CUDNN_CONVOLUTION_FWD_ALGO_COUNT && perf[0].algo == pg && perf[0].status == CUDNN_STATUS_SUCCESS &&
          perf[1].status == CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnFindConvolutionForwardAlgorithm(handle, x, w, conv, y, 3, &got, perf));
    CHECK(got == 3 && perf[0].algo == pg && perf[0].status == CUDNN_STATUS_SUCCESS && perf[0].memory == 0);
    /* INT8_EXT: Find allocates FLOAT outputs */
    CHECK_OK(cudnnSetTensor4dDescriptor(yf, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 5, 5));
    CHECK_OK(cudnnFindConvolutionForwardAlgorithm(handle, x, w, conv, yf, 1, &got, perf));
    CHECK(got == 1 && perf[0].algo == pg && perf[0].status == CUDNN_STATUS_SUCCESS);
    /* C = 6: not a multiple of 4 */
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, 1, 6, 5, 5));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, 8, 6, 3, 3));
    CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, pg, &ws),
                 CUDNN_STATUS_NOT_SUPPORTED);
    /* INT8 with FLOAT compute: NOT_SUPPORTED; INT8 x with FLOAT w: BAD_PARAM */
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, 1, 8, 5, 5));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, 8, 8, 3, 3));
    cudnnConvolutionDescriptor_t cf;
    cudnnCreateConvolutionDescriptor(&cf);
    CHECK_OK(cudnnSetConvolution2dDescriptor(cf, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, cf, y, pg, &ws), CUDNN_STATUS_NOT_SUPPORTED);
    cudnnDestroyConvolutionDescriptor(cf);
    /* INT8x4 in NCHW (one vector per element): NOT_SUPPORTED */
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8x4, 1, 8, 5, 5));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8x4, CUDNN_TENSOR_NCHW_VECT_C, 8, 8, 3, 3));
    CHECK_OK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 1, 8, 5, 5));
    CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, pg, &ws),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 1, 8, 5, 5));
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, pg, &ws));
    /* cudnnIm2Col of vectorized data: not implemented (and nothing read) */
    {
        int8_t xi[200], col[8 * 9 * 25];
        memset(xi, 1, sizeof(xi));
        CHECK_STATUS(cudnnIm2Col(handle, x, xi, w, conv, col), CUDNN_STATUS_NOT_SUPPORTED);
    }
    /* Integer configurations have no backward calls. */
    CHECK_STATUS(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w, y, conv, x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                                                              &ws),
                 CUDNN_STATUS_BAD_PARAM);
    /* Bias-activation: the bias must be FLOAT, z of y's type. */
    cudnnActivationDescriptor_t act;
    cudnnCreateActivationDescriptor(&act);
    CHECK_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
    CHECK_OK(cudnnSetTensor4dDescriptor(b, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 1, 1));
    CHECK_OK(cudnnSetTensor4dDescriptor(bh, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 8, 1, 1));
    int8_t xb[200], wb[600], yb[200];
    float bb[8] = {0}, one = 1, zero = 0;
    memset(xb, 1, sizeof(xb));
    memset(wb, 1, sizeof(wb));
    CHECK_STATUS(cudnnConvolutionBiasActivationForward(handle, &one, x, xb, w, wb, conv, pg, NULL, 0, &zero, y, yb,
                                                       bh, bb, act, y, yb),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t zf;
    cudnnCreateTensorDescriptor(&zf);
    CHECK_OK(cudnnSetTensor4dDescriptor(zf, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 5, 5));
    CHECK_STATUS(cudnnConvolutionBiasActivationForward(handle, &one, x, xb, w, wb, conv, pg, NULL, 0, &zero, zf, yb,
                                                       b, bb, act, y, yb),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnConvolutionBiasActivationForward(handle, &one, x, xb, w, wb, conv,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &zero, y, yb,
                                                       b, bb, act, y, yb),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnConvolutionBiasActivationForward(handle, &one, x, xb, w, wb, conv, pg, NULL, 0, &zero, y, yb, b, bb,
                                                   act, y, yb));
    CHECK(yb[0] == 32); /* 8 channels x 4 taps (a corner), all ones */
    cudnnDestroyTensorDescriptor(zf);
    cudnnDestroyActivationDescriptor(act);
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(yf);
    cudnnDestroyTensorDescriptor(b);
    cudnnDestroyTensorDescriptor(bh);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    test_statuses();
    test_round_half_even();
    test_small_groups();
    test_saturation();
    test_reordered_int8x32();
    test_configurations();
    test_vnni_paths();
    cudnnDestroy(handle);
    printf("%d runs\n", n_runs);
    return fdnn_test_finish("test_conv_int8");
}
