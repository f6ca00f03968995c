/* SPDX-License-Identifier: Apache-2.0
 * RNNs on HALF and BFLOAT16 data (src/cpu/rnn/rnn_stage.c), every math
 * precision cuDNN 8.9 allows: HALF/FLOAT, HALF/HALF, BFLOAT16/FLOAT.
 *
 * Each case runs the same problem twice: in FLOAT on the inputs and weights
 * rounded to the 16-bit type, and in the 16-bit type itself, through
 * cudnnRNNForward (training and inference), cudnnRNNBackwardData_v8 and
 * cudnnRNNBackwardWeights_v8 (ADD).
 *   - FLOAT math precision: every 16-bit output is the FP32 result rounded to
 *     nearest even, bitwise (the staging computes in FP32 on the same values).
 *   - HALF math precision: within the documented tolerance of the FP32
 *     results (docs/numerics.md, "RNN and attention in HALF / BFLOAT16").
 *   - Forward outputs against the float64 reference (src/ref/rnn_ref.c) fed
 *     the rounded weights and inputs, with the per-type tolerance.
 *   - Outputs poisoned: padding rows of y and dx keep the poison.
 *   - 1 and 2 threads give bitwise equal outputs.
 *   - Packed cases: the legacy cudnnRNNForwardInference, ForwardTraining,
 *     BackwardData, BackwardWeights and cudnnRNNForwardInferenceEx give
 *     results bitwise equal to the v8 calls (and a v6 descriptor with FLOAT
 *     mathPrec on HALF data, the HALF/FLOAT ones), and
 *     cudnnGetRNNLinLayerMatrixParams points where cudnnGetRNNWeightParams
 *     does.
 * Cells RELU, TANH, LSTM (with projection), GRU; uni/bidirectional; 1 and 2
 * layers (some with dropout between them); the three layouts.  Last, the (data, math) combinations and type
 * mismatches cuDNN refuses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/gemm/gemm.h"
#include "cpu/simd/cvt.h"
#include "cudnn.h"
#include "freednn.h"
#include "ref/rnn_ref.h"
#include "testutil.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

typedef struct cfg {
    cudnnRNNMode_t cell;
    cudnnDirectionMode_t dir;
    cudnnRNNDataLayout_t layout;
    int layers, in, H, proj, T, B;
    int lens[4];
    cudnnDataType_t dt, mp;
    float drop; /* dropout between layers (training), or 0 */
    cudnnMathType_t math; /* of the 16-bit descriptor (DEFAULT when 0) */
} cfg_t;

/* True when the 16-bit run takes its products in bfloat16 (the rule of
 * fdnn_rnn_bf16_products, src/cpu/rnn/rnn_stage.c): BFLOAT16 data, or HALF
 * data with TENSOR_OP math, on a CPU with AVX512-BF16. */
static bool
bf16_products(const cfg_t *c)
{
    bool allowed = c->dt == CUDNN_DATA_BFLOAT16 || (c->dt == CUDNN_DATA_HALF && c->math == CUDNN_TENSOR_OP_MATH);
    return allowed && fdnn_gemm_bf16dot_kernel(fdnn_cpu_max_isa()) == FDNN_BF16DOT_AVX512_BF16;
}

static uint16_t
narrow(cudnnDataType_t dt, float v)
{
    return dt == CUDNN_DATA_HALF ? fdnn_f32_to_f16(v) : fdnn_f32_to_bf16(v);
}

static float
widen(cudnnDataType_t dt, uint16_t v)
{
    return dt == CUDNN_DATA_HALF ? fdnn_f16_to_f32(v) : fdnn_bf16_to_f32(v);
}

/* Unit roundoff of the 16-bit type. */
static double
unit(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_HALF ? 0x1p-11 : 0x1p-8;
}

/* n random values in [-0.6, 0.6] rounded to dt: the FLOAT copy and the dt copy. */
static void
fill_pair(cudnnDataType_t dt, int64_t n, float *f, uint16_t *h)
{
    for (int64_t i = 0; i < n; i++) {
        h[i] = narrow(dt, (float)fdnn_rng_uniform(&rng, -0.6, 0.6));
        f[i] = widen(dt, h[i]);
    }
}

static int64_t
user_row(const cfg_t *c, int t, int b)
{
    if (t >= c->lens[b])
        return -1;
    if (c->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED)
        return (int64_t)t * c->B + b;
    if (c->layout == CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
        return (int64_t)b * c->T + t;
    int64_t row = 0;
    for (int tt = 0; tt < t; tt++)
        for (int bb = 0; bb < c->B; bb++)
            row += tt < c->lens[bb];
    return row + b;
}

static int64_t
user_rows(const cfg_t *c)
{
    if (c->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
        return (int64_t)c->T * c->B;
    int64_t n = 0;
    for (int b = 0; b < c->B; b++)
        n += c->lens[b];
    return n;
}

/* Descriptors of one type. */
typedef struct descs {
    cudnnRNNDescriptor_t rnn;
    cudnnDropoutDescriptor_t dd; /* NULL without dropout */
    void *states;
    size_t states_bytes;
    float drop;
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd, cd;
    size_t wbytes, ws, rs, wsinf;
} descs_t;

static void
make_descs(const cfg_t *c, cudnnDataType_t dt, cudnnDataType_t mp, descs_t *d)
{
    int D = c->dir == CUDNN_BIDIRECTIONAL ? 2 : 1, P = c->proj ? c->proj : c->H;
    CHECK_OK(cudnnCreateRNNDescriptor(&d->rnn));
    d->dd = NULL, d->states = NULL, d->drop = c->drop;
    if (c->drop > 0) {
        CHECK_OK(cudnnCreateDropoutDescriptor(&d->dd));
        CHECK_OK(cudnnDropoutGetStatesSize(handle, &d->states_bytes));
        d->states = malloc(d->states_bytes);
        CHECK_OK(cudnnSetDropoutDescriptor(d->dd, handle, c->drop, d->states, d->states_bytes, 77));
    }
    CHECK_OK(cudnnSetRNNDescriptor_v8(d->rnn, CUDNN_RNN_ALGO_STANDARD, c->cell, CUDNN_RNN_DOUBLE_BIAS, c->dir,
                                      CUDNN_LINEAR_INPUT, dt, mp, dt == CUDNN_DATA_FLOAT ? CUDNN_DEFAULT_MATH : c->math,
                                      c->in, c->H, P, c->layers, d->dd,
                                      CUDNN_RNN_PADDED_IO_ENABLED));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&d->xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&d->yd));
    CHECK_OK(cudnnSetRNNDataDescriptor(d->xd, dt, c->layout, c->T, c->B, c->in, c->lens, NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(d->yd, dt, c->layout, c->T, c->B, D * P, c->lens, NULL));
    int L = c->layers * D, hdims[3] = {L, c->B, P}, hstr[3] = {c->B * P, P, 1};
    int cdims[3] = {L, c->B, c->H}, cstr[3] = {c->B * c->H, c->H, 1};
    CHECK_OK(cudnnCreateTensorDescriptor(&d->hd));
    CHECK_OK(cudnnCreateTensorDescriptor(&d->cd));
    CHECK_OK(cudnnSetTensorNdDescriptor(d->hd, dt, 3, hdims, hstr));
    CHECK_OK(cudnnSetTensorNdDescriptor(d->cd, dt, 3, cdims, cstr));
    CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, d->rnn, &d->wbytes));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, d->rnn, CUDNN_FWD_MODE_TRAINING, d->xd, &d->ws, &d->rs));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, d->rnn, CUDNN_FWD_MODE_INFERENCE, d->xd, &d->wsinf, NULL));
}

static void
free_descs(descs_t *d)
{
    cudnnDestroyRNNDescriptor(d->rnn);
    if (d->dd)
        cudnnDestroyDropoutDescriptor(d->dd);
    free(d->states);
    cudnnDestroyRNNDataDescriptor(d->xd), cudnnDestroyRNNDataDescriptor(d->yd);
    cudnnDestroyTensorDescriptor(d->hd), cudnnDestroyTensorDescriptor(d->cd);
}

/* The buffers of one run (elements of 4 or 2 bytes). */
enum { X, HX, CX, DY, DHY, DCY, W, DW0, NIN };
enum { Y, HY, CY, YI, DX, DHX, DCX, DW, NOUT };

typedef struct run {
    void *in[NIN], *out[NOUT];
} run_t;

static void
execute(const descs_t *d, const cfg_t *c, run_t *r, const int64_t *n_out, size_t es, int32_t *seq)
{
    for (int i = 0; i < NOUT; i++)
        memset(r->out[i], 0xff, (size_t)n_out[i] * es); /* NaN in all three types */
    memcpy(r->out[DW], r->in[DW0], (size_t)n_out[DW] * es);
    void *ws = fdnn_guarded_alloc(d->ws), *wsi = fdnn_guarded_alloc(d->wsinf), *rs = fdnn_guarded_alloc(d->rs);
    if (d->dd) /* the same seed and call counter: the same masks in every run */
        CHECK_OK(cudnnSetDropoutDescriptor(d->dd, handle, d->drop, d->states, d->states_bytes, 77));
    CHECK_OK(cudnnRNNForward(handle, d->rnn, CUDNN_FWD_MODE_TRAINING, seq, d->xd, r->in[X], d->yd, r->out[Y], d->hd,
                             r->in[HX], r->out[HY], d->cd, r->in[CX], r->out[CY], d->wbytes, r->in[W], d->ws, ws,
                             d->rs, rs));
    CHECK_OK(cudnnRNNForward(handle, d->rnn, CUDNN_FWD_MODE_INFERENCE, seq, d->xd, r->in[X], d->yd, r->out[YI], d->hd,
                             r->in[HX], NULL, d->cd, r->in[CX], NULL, d->wbytes, r->in[W], d->wsinf, wsi, 0, NULL));
    CHECK_OK(cudnnRNNBackwardData_v8(handle, d->rnn, seq, d->yd, r->out[Y], r->in[DY], d->xd, r->out[DX], d->hd,
                                     r->in[HX], r->in[DHY], r->out[DHX], d->cd, r->in[CX], r->in[DCY], r->out[DCX],
                                     d->wbytes, r->in[W], d->ws, ws, d->rs, rs));
    CHECK_OK(cudnnRNNBackwardWeights_v8(handle, d->rnn, CUDNN_WGRAD_MODE_ADD, seq, d->xd, r->in[X], d->hd, r->in[HX],
                                        d->yd, r->out[Y], d->wbytes, r->out[DW], d->ws, ws, d->rs, rs));
    (void)c;
    fdnn_guarded_free(ws), fdnn_guarded_free(wsi), fdnn_guarded_free(rs);
}

/* Tolerance (relative to 1 + |want|) of a 16-bit output against the FP32
 * run on the same rounded values (HALF math precision) or against the
 * float64 reference (forward outputs); see docs/numerics.md. */
static double
tol_fp32(const cfg_t *c)
{
    double t = c->mp == CUDNN_DATA_HALF ? 4 * unit(c->dt) * c->T : 0; /* HALF math: c, h, gates every step */
    /* BF16 products: h, x (HALF data) and the gradients rounded to bfloat16
     * as the GEMMs read them, 2^-9 relative each, per step (docs/numerics.md) */
    return t + (bf16_products(c) ? 0x1p-9 * 2 * c->T : 0);
}

static double
tol_ref(const cfg_t *c)
{
    double u = unit(c->dt);
    return (c->mp == CUDNN_DATA_HALF ? 4 * u * c->T : u + 1e-5) + (bf16_products(c) ? 0x1p-9 * 2 * c->T : 0);
}

/* The float64 reference's forward outputs from the FLOAT weight space. */
static void
reference(const cfg_t *c, const descs_t *d32, const float *w, const float *ux, const float *hx, const float *cx,
          double *y, double *hy, double *cy)
{
    int D = c->dir == CUDNN_BIDIRECTIONAL ? 2 : 1, P = c->proj ? c->proj : c->H, H = c->H, L = c->layers * D;
    int g = fdnn_ref_rnn_gates((int)c->cell);
    double **W = calloc((size_t)L, sizeof(double *)), **R = calloc((size_t)L, sizeof(double *));
    double **bW = calloc((size_t)L, sizeof(double *)), **bR = calloc((size_t)L, sizeof(double *));
    double **Pm = calloc((size_t)L, sizeof(double *));
    cudnnTensorDescriptor_t md, bd;
    CHECK_OK(cudnnCreateTensorDescriptor(&md));
    CHECK_OK(cudnnCreateTensorDescriptor(&bd));
    for (int p = 0; p < L; p++) {
        int in_l = p < D ? c->in : D * P;
        W[p] = calloc((size_t)g * H * in_l, 8), R[p] = calloc((size_t)g * H * P, 8);
        bW[p] = calloc((size_t)g * H, 8), bR[p] = calloc((size_t)g * H, 8);
        Pm[p] = P < H ? calloc((size_t)P * H, 8) : NULL;
        for (int id = 0; id < (c->cell == CUDNN_LSTM ? 9 : 2 * g); id++) {
            void *ma = NULL, *ba = NULL;
            CHECK_OK(cudnnGetRNNWeightParams(handle, d32->rnn, p, d32->wbytes, w, id, md, &ma, bd, &ba));
            int cols = id < g ? in_l : P;
            double *mdst = id < g       ? W[p] + (int64_t)id * H * in_l
                           : id < 2 * g ? R[p] + (int64_t)(id - g) * H * P
                                        : Pm[p];
            int64_t n = id == 2 * g ? (int64_t)P * H : (int64_t)H * cols;
            for (int64_t i = 0; ma && i < n; i++)
                mdst[i] = ((const float *)ma)[i];
            double *bdst = id < g ? bW[p] + id * H : id < 2 * g ? bR[p] + (id - g) * H : NULL;
            for (int i = 0; ba && bdst && i < H; i++)
                bdst[i] = ((const float *)ba)[i];
        }
    }
    cudnnDestroyTensorDescriptor(md), cudnnDestroyTensorDescriptor(bd);
    double *x = calloc((size_t)c->T * c->B * c->in, 8);
    for (int t = 0; t < c->T; t++)
        for (int b = 0; b < c->B; b++) {
            int64_t r = user_row(c, t, b);
            for (int k = 0; r >= 0 && k < c->in; k++)
                x[((int64_t)t * c->B + b) * c->in + k] = ux[r * c->in + k];
        }
    int64_t nh = (int64_t)L * c->B * P, nc = (int64_t)L * c->B * H;
    double *hx64 = malloc(8 * (size_t)nh), *cx64 = malloc(8 * (size_t)nc);
    for (int64_t i = 0; i < nh; i++)
        hx64[i] = hx[i];
    for (int64_t i = 0; i < nc; i++)
        cx64[i] = cx[i];
    fdnn_ref_rnn_t r = {(int)c->cell, D, c->layers, c->in, H, false, false, 0, 0, c->T, c->B, c->lens, W, R, bW, bR,
                        P, Pm, NULL};
    fdnn_ref_rnn_forward(&r, x, hx64, cx64, y, hy, cy);
    for (int p = 0; p < L; p++)
        free(W[p]), free(R[p]), free(bW[p]), free(bR[p]), free(Pm[p]);
    free(W), free(R), free(bW), free(bR), free(Pm), free(x), free(hx64), free(cx64);
}

/* The 16-bit run's output element i compared with the FP32 one. */
static bool
same_as_fp32(const cfg_t *c, uint16_t got, float want, double *worst)
{
    if (c->mp == CUDNN_DATA_FLOAT && !bf16_products(c))
        return got == narrow(c->dt, want);
    double e = fabs((double)widen(c->dt, got) - want) / (1 + fabs(want));
    *worst = e > *worst ? e : *worst;
    return e <= tol_fp32(c);
}

static void
run_case(const cfg_t *c)
{
    const cudnnDataType_t dt = c->dt;
    int D = c->dir == CUDNN_BIDIRECTIONAL ? 2 : 1, P = c->proj ? c->proj : c->H, L = c->layers * D;
    descs_t d32, d16;
    make_descs(c, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, &d32);
    make_descs(c, dt, c->mp, &d16);
    int64_t nw = (int64_t)d32.wbytes / 4;
    CHECK_MSG(d16.wbytes == (size_t)nw * 2, "16-bit weight space %zu bytes, FLOAT %zu", d16.wbytes, d32.wbytes);
    int64_t rows = user_rows(c), nx = rows * c->in, ny = rows * D * P, nh = (int64_t)L * c->B * P;
    int64_t nc = (int64_t)L * c->B * c->H;
    int64_t n_in[NIN] = {nx, nh, nc, ny, nh, nc, nw, nw};
    int64_t n_out[NOUT] = {ny, nh, nc, ny, nx, nh, nc, nw};
    run_t r32, r16[2];
    for (int i = 0; i < NIN; i++) {
        r32.in[i] = fdnn_guarded_alloc((size_t)n_in[i] * 4);
        r16[0].in[i] = r16[1].in[i] = fdnn_guarded_alloc((size_t)n_in[i] * 2);
        fill_pair(dt, n_in[i], r32.in[i], r16[0].in[i]);
    }
    for (int i = 0; i < NOUT; i++) {
        r32.out[i] = fdnn_guarded_alloc((size_t)n_out[i] * 4);
        for (int k = 0; k < 2; k++)
            r16[k].out[i] = fdnn_guarded_alloc((size_t)n_out[i] * 2);
    }
    int32_t seq[4];
    memcpy(seq, c->lens, sizeof(seq));
    execute(&d32, c, &r32, n_out, 4, seq);
    for (int th = 0; th < 2; th++) {
        CHECK_OK(freednnSetNumThreads(handle, th + 1));
        execute(&d16, c, &r16[th], n_out, 2, seq);
    }
    for (int i = 0; i < NOUT; i++)
        CHECK_MSG(memcmp(r16[0].out[i], r16[1].out[i], (size_t)n_out[i] * 2) == 0,
                  "output %d differs between 1 and 2 threads", i);
    if (c->drop > 0)
        CHECK_MSG(memcmp(r16[0].out[Y], r16[0].out[YI], (size_t)ny * 2) != 0, "dropout had no effect on y");
    /* Per output: the active elements against FP32; padding rows of y, dx
     * keep the poison. */
    double worst = 0;
    int64_t differ = 0; /* elements where HALF math changed the FP32 result's rounding */
    for (int i = 0; i < NOUT; i++) {
        const uint16_t *g = r16[0].out[i];
        const float *f = r32.out[i];
        bool rowwise = i == Y || i == YI || i == DX;
        int64_t width = i == DX ? c->in : D * P;
        int bad = 0;
        for (int64_t e = 0; e < n_out[i]; e++) {
            bool active = true;
            if (rowwise && c->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) {
                int64_t row = e / width, t, b;
                if (c->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED)
                    t = row / c->B, b = row % c->B;
                else
                    b = row / c->T, t = row % c->T;
                active = t < c->lens[b];
            }
            if (i == CY && c->cell != CUDNN_LSTM)
                active = false; /* cy is not written */
            if (i == DCX && c->cell != CUDNN_LSTM)
                active = false;
            bool ok = active ? same_as_fp32(c, g[e], f[e], &worst) : g[e] == 0xffff;
            differ += active && g[e] != narrow(dt, f[e]);
            bad += !ok;
        }
        CHECK_MSG(bad == 0, "cell %d dt %d mp %d layout %d: output %d has %d wrong elements", c->cell, dt, c->mp,
                  c->layout, i, bad);
    }
    if (c->mp == CUDNN_DATA_HALF || bf16_products(c))
        CHECK_MSG(differ > 0, "HALF math precision or BF16 products gave the FP32 results (nothing rounded?)");
    /* Forward outputs against the float64 reference (without dropout: the
     * inference outputs, YI, are the same then). */
    int64_t nyr = (int64_t)c->T * c->B * D * P;
    double *y = calloc((size_t)nyr, 8), *hy = calloc((size_t)nh, 8), *cy = calloc((size_t)nc, 8);
    reference(c, &d32, r32.in[W], r32.in[X], r32.in[HX], r32.in[CX], y, hy, cy);
    const int yref = c->drop > 0 ? YI : Y;
    double worst_ref = 0;
    int bad = 0;
    for (int t = 0; t < c->T; t++)
        for (int b = 0; b < c->B; b++) {
            int64_t ur = user_row(c, t, b);
            for (int k = 0; ur >= 0 && k < D * P; k++) {
                double want = y[((int64_t)t * c->B + b) * D * P + k];
                double e = fabs(widen(dt, ((uint16_t *)r16[0].out[yref])[ur * D * P + k]) - want) / (1 + fabs(want));
                worst_ref = e > worst_ref ? e : worst_ref;
                bad += e > tol_ref(c);
            }
        }
    for (int64_t i = 0; c->drop == 0 && i < nh; i++) {
        double e = fabs(widen(dt, ((uint16_t *)r16[0].out[HY])[i]) - hy[i]) / (1 + fabs(hy[i]));
        worst_ref = e > worst_ref ? e : worst_ref;
        bad += e > tol_ref(c);
    }
    for (int64_t i = 0; c->drop == 0 && c->cell == CUDNN_LSTM && i < nc; i++) {
        double e = fabs(widen(dt, ((uint16_t *)r16[0].out[CY])[i]) - cy[i]) / (1 + fabs(cy[i]));
        worst_ref = e > worst_ref ? e : worst_ref;
        bad += e > tol_ref(c);
    }
    CHECK_MSG(bad == 0, "cell %d dt %d mp %d: %d forward outputs off the float64 reference (worst %.3g, tol %.3g)",
              c->cell, dt, c->mp, bad, worst_ref, tol_ref(c));
    if (getenv("FDNN_TEST_VERBOSE"))
        printf("cell %d dt %d mp %d math %d layout %d: worst vs FP32 %.3g (tol %.3g), vs ref %.3g (tol %.3g)\n",
               c->cell, dt, c->mp, c->math, c->layout, worst, tol_fp32(c), worst_ref, tol_ref(c));
    free(y), free(hy), free(cy);

    /* Packed: the legacy and Ex interfaces on the same buffers. */
    if (c->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED && c->drop == 0) {
        cudnnTensorDescriptor_t xs[8], ys[8];
        for (int t = 0; t < c->T; t++) {
            int n = 0;
            for (int b = 0; b < c->B; b++)
                n += t < c->lens[b];
            int xdim[3] = {n, c->in, 1}, xstr[3] = {c->in, 1, 1}, ydim[3] = {n, D * P, 1}, ystr[3] = {D * P, 1, 1};
            CHECK_OK(cudnnCreateTensorDescriptor(&xs[t]));
            CHECK_OK(cudnnCreateTensorDescriptor(&ys[t]));
            CHECK_OK(cudnnSetTensorNdDescriptor(xs[t], dt, 3, xdim, xstr));
            CHECK_OK(cudnnSetTensorNdDescriptor(ys[t], dt, 3, ydim, ystr));
        }
        cudnnFilterDescriptor_t wd;
        int wdim[3] = {(int)nw, 1, 1};
        CHECK_OK(cudnnCreateFilterDescriptor(&wd));
        CHECK_OK(cudnnSetFilterNdDescriptor(wd, dt, CUDNN_TENSOR_NCHW, 3, wdim));
        size_t wsl = 0, psize = 0;
        CHECK_OK(cudnnGetRNNParamsSize(handle, d16.rnn, xs[0], &psize, dt));
        CHECK(psize == d16.wbytes);
        CHECK_OK(cudnnGetRNNWorkspaceSize(handle, d16.rnn, c->T, xs, &wsl));
        void *wsb = fdnn_guarded_alloc(wsl);
        uint16_t *yl = fdnn_guarded_alloc((size_t)ny * 2);
        memset(yl, 0xff, (size_t)ny * 2);
        CHECK_OK(cudnnRNNForwardInference(handle, d16.rnn, c->T, xs, r16[0].in[X], d16.hd, r16[0].in[HX], d16.cd,
                                          r16[0].in[CX], wd, r16[0].in[W], ys, yl, d16.hd, NULL, d16.cd, NULL, wsb,
                                          wsl));
        CHECK_MSG(memcmp(yl, r16[0].out[YI], (size_t)ny * 2) == 0, "legacy forward differs from cudnnRNNForward");
        memset(yl, 0xff, (size_t)ny * 2);
        CHECK_OK(cudnnRNNForwardInferenceEx(handle, d16.rnn, d16.xd, r16[0].in[X], d16.hd, r16[0].in[HX], d16.cd,
                                            r16[0].in[CX], wd, r16[0].in[W], d16.yd, yl, d16.hd, NULL, d16.cd, NULL,
                                            NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, wsb, wsl));
        CHECK_MSG(memcmp(yl, r16[0].out[YI], (size_t)ny * 2) == 0, "Ex forward differs from cudnnRNNForward");
        /* Legacy training: forward, backward data, backward weights (adds). */
        size_t rsl = 0;
        CHECK_OK(cudnnGetRNNTrainingReserveSize(handle, d16.rnn, c->T, xs, &rsl));
        void *rsb = fdnn_guarded_alloc(rsl);
        uint16_t *dxl = fdnn_guarded_alloc((size_t)nx * 2), *dwl = fdnn_guarded_alloc((size_t)nw * 2);
        uint16_t *hyl = fdnn_guarded_alloc((size_t)nh * 2), *dhxl = fdnn_guarded_alloc((size_t)nh * 2);
        memset(yl, 0xff, (size_t)ny * 2), memset(dxl, 0xff, (size_t)nx * 2), memset(hyl, 0xff, (size_t)nh * 2);
        memset(dhxl, 0xff, (size_t)nh * 2);
        memcpy(dwl, r16[0].in[DW0], (size_t)nw * 2);
        CHECK_OK(cudnnRNNForwardTraining(handle, d16.rnn, c->T, xs, r16[0].in[X], d16.hd, r16[0].in[HX], d16.cd,
                                         r16[0].in[CX], wd, r16[0].in[W], ys, yl, d16.hd, hyl, d16.cd, NULL, wsb, wsl,
                                         rsb, rsl));
        CHECK_MSG(memcmp(yl, r16[0].out[Y], (size_t)ny * 2) == 0 && memcmp(hyl, r16[0].out[HY], (size_t)nh * 2) == 0,
                  "legacy training forward differs from cudnnRNNForward");
        CHECK_OK(cudnnRNNBackwardData(handle, d16.rnn, c->T, ys, yl, ys, r16[0].in[DY], d16.hd, r16[0].in[DHY], d16.cd,
                                      r16[0].in[DCY], wd, r16[0].in[W], d16.hd, r16[0].in[HX], d16.cd, r16[0].in[CX],
                                      xs, dxl, d16.hd, dhxl, d16.cd, NULL, wsb, wsl, rsb, rsl));
        CHECK_MSG(memcmp(dxl, r16[0].out[DX], (size_t)nx * 2) == 0 &&
                      memcmp(dhxl, r16[0].out[DHX], (size_t)nh * 2) == 0,
                  "legacy backward data differs from cudnnRNNBackwardData_v8");
        CHECK_OK(cudnnRNNBackwardWeights(handle, d16.rnn, c->T, xs, r16[0].in[X], d16.hd, r16[0].in[HX], ys, yl, wsb,
                                         wsl, wd, dwl, rsb, rsl));
        CHECK_MSG(memcmp(dwl, r16[0].out[DW], (size_t)nw * 2) == 0,
                  "legacy backward weights differs from cudnnRNNBackwardWeights_v8");
        fdnn_guarded_free(rsb), fdnn_guarded_free(dxl), fdnn_guarded_free(dwl), fdnn_guarded_free(hyl);
        fdnn_guarded_free(dhxl);
        if (dt == CUDNN_DATA_HALF && c->mp == CUDNN_DATA_FLOAT && c->proj == 0 && c->math == CUDNN_DEFAULT_MATH) {
            /* cudnnSetRNNDescriptor_v6 with FLOAT mathPrec takes HALF data
             * from xDesc (pseudo-half): the same results. */
            cudnnRNNDescriptor_t r6;
            cudnnDropoutDescriptor_t dd;
            CHECK_OK(cudnnCreateRNNDescriptor(&r6));
            CHECK_OK(cudnnCreateDropoutDescriptor(&dd));
            CHECK_OK(cudnnSetRNNDescriptor_v6(handle, r6, c->H, c->layers, dd, CUDNN_LINEAR_INPUT, c->dir, c->cell,
                                              CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_FLOAT));
            size_t p6 = 0, ws6 = 0;
            CHECK_OK(cudnnGetRNNParamsSize(handle, r6, xs[0], &p6, CUDNN_DATA_HALF));
            CHECK(p6 == d16.wbytes);
            CHECK_OK(cudnnGetRNNWorkspaceSize(handle, r6, c->T, xs, &ws6));
            void *wsb6 = fdnn_guarded_alloc(ws6);
            memset(yl, 0xff, (size_t)ny * 2);
            CHECK_OK(cudnnRNNForwardInference(handle, r6, c->T, xs, r16[0].in[X], d16.hd, r16[0].in[HX], d16.cd,
                                              r16[0].in[CX], wd, r16[0].in[W], ys, yl, d16.hd, NULL, d16.cd, NULL,
                                              wsb6, ws6));
            CHECK_MSG(memcmp(yl, r16[0].out[YI], (size_t)ny * 2) == 0, "v6 pseudo-half forward differs");
            fdnn_guarded_free(wsb6);
            cudnnDestroyRNNDescriptor(r6), cudnnDestroyDropoutDescriptor(dd);
        }
        cudnnTensorDescriptor_t md;
        cudnnFilterDescriptor_t fd;
        CHECK_OK(cudnnCreateTensorDescriptor(&md));
        CHECK_OK(cudnnCreateFilterDescriptor(&fd));
        void *a1 = NULL, *a2 = NULL;
        CHECK_OK(cudnnGetRNNLinLayerMatrixParams(handle, d16.rnn, L - 1, xs[0], wd, r16[0].in[W], 1, fd, &a1));
        CHECK_OK(cudnnGetRNNWeightParams(handle, d16.rnn, L - 1, d16.wbytes, r16[0].in[W], 1, md, &a2, NULL, NULL));
        CHECK_MSG(a1 == a2 && a1 != NULL, "legacy matrix %p, v8 %p", a1, a2);
        cudnnDataType_t mdt;
        int nb, dims[3], str[3];
        CHECK_OK(cudnnGetTensorNdDescriptor(md, 3, &mdt, &nb, dims, str));
        CHECK(mdt == dt);
        cudnnDestroyTensorDescriptor(md), cudnnDestroyFilterDescriptor(fd);
        for (int t = 0; t < c->T; t++)
            cudnnDestroyTensorDescriptor(xs[t]), cudnnDestroyTensorDescriptor(ys[t]);
        cudnnDestroyFilterDescriptor(wd);
        fdnn_guarded_free(wsb), fdnn_guarded_free(yl);
    }
    for (int i = 0; i < NIN; i++)
        fdnn_guarded_free(r32.in[i]), fdnn_guarded_free(r16[0].in[i]);
    for (int i = 0; i < NOUT; i++)
        fdnn_guarded_free(r32.out[i]), fdnn_guarded_free(r16[0].out[i]), fdnn_guarded_free(r16[1].out[i]);
    free_descs(&d32), free_descs(&d16);
}

/* The combinations cuDNN refuses, and type mismatches. */
static void
test_bad(void)
{
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    const cudnnDataType_t bad[][2] = {{CUDNN_DATA_BFLOAT16, CUDNN_DATA_HALF},
                                      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
                                      {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},
                                      {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16},
                                      {CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_STATUS(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                              CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, bad[i][0], bad[i][1],
                                              CUDNN_DEFAULT_MATH, 4, 4, 4, 1, NULL, 0),
                     CUDNN_STATUS_NOT_SUPPORTED);
    /* BFLOAT16 is no legacy mathPrec. */
    cudnnDropoutDescriptor_t dd;
    CHECK_OK(cudnnCreateDropoutDescriptor(&dd));
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(handle, r, 4, 1, dd, CUDNN_LINEAR_INPUT, CUDNN_UNIDIRECTIONAL, CUDNN_LSTM,
                                          CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_BFLOAT16),
                 CUDNN_STATUS_NOT_SUPPORTED);
    /* A BFLOAT16 RNN given HALF data, FLOAT states or another dataType. */
    cfg_t c = {CUDNN_LSTM, CUDNN_UNIDIRECTIONAL, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 1, 4, 4, 0, 2, 2, {2, 2},
               CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, 0, CUDNN_DEFAULT_MATH};
    descs_t d, h;
    make_descs(&c, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, &d);
    make_descs(&c, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, &h);
    size_t ws, rs;
    CHECK_STATUS(cudnnGetRNNTempSpaceSizes(handle, d.rnn, CUDNN_FWD_MODE_TRAINING, h.xd, &ws, &rs),
                 CUDNN_STATUS_BAD_PARAM);
    uint16_t buf[4096];
    memset(buf, 0xff, sizeof(buf));
    int32_t seq[2] = {2, 2};
    CHECK_STATUS(cudnnRNNForward(handle, d.rnn, CUDNN_FWD_MODE_INFERENCE, seq, d.xd, buf, d.yd, buf + 100, h.hd, buf,
                                 NULL, d.cd, buf, NULL, d.wbytes, buf, d.wsinf, buf, 0, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNForward(handle, d.rnn, CUDNN_FWD_MODE_INFERENCE, seq, d.xd, buf, h.yd, buf + 100, d.hd, buf,
                                 NULL, d.cd, buf, NULL, d.wbytes, buf, d.wsinf, buf, 0, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    size_t psize;
    cudnnTensorDescriptor_t xs;
    int xdim[3] = {2, 4, 1}, xstr[3] = {4, 1, 1};
    CHECK_OK(cudnnCreateTensorDescriptor(&xs));
    CHECK_OK(cudnnSetTensorNdDescriptor(xs, CUDNN_DATA_BFLOAT16, 3, xdim, xstr));
    CHECK_STATUS(cudnnGetRNNParamsSize(handle, d.rnn, xs, &psize, CUDNN_DATA_HALF), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetRNNParamsSize(handle, d.rnn, xs, &psize, CUDNN_DATA_BFLOAT16));
    CHECK(psize == d.wbytes);
    bool untouched = true;
    for (int i = 100; i < 4096; i++)
        untouched &= buf[i] == 0xffff;
    CHECK_MSG(untouched, "a refused call wrote y");
    cudnnDestroyTensorDescriptor(xs);
    cudnnDestroyDropoutDescriptor(dd);
    cudnnDestroyRNNDescriptor(r);
    free_descs(&d), free_descs(&h);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    fdnn_rng_seed(&rng, 1616);
    const cudnnDataType_t types[5][2] = {
        {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
        {CUDNN_DATA_HALF, CUDNN_DATA_HALF},
        {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
        {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT}, /* these two with TENSOR_OP math */
        {CUDNN_DATA_HALF, CUDNN_DATA_HALF}};
    const cudnnRNNDataLayout_t layouts[3] = {CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                                             CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                                             CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED};
    const cudnnRNNMode_t cells[4] = {CUDNN_RNN_RELU, CUDNN_RNN_TANH, CUDNN_LSTM, CUDNN_GRU};
    int k = 0;
    for (int ty = 0; ty < 5; ty++)
        for (int ce = 0; ce < 4; ce++)
            for (int la = 0; la < 3; la++, k++) {
                bool packed = la == 0;
                cfg_t c = {cells[ce], k % 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, layouts[la], 1 + (k / 2) % 2,
                           5, 8, cells[ce] == CUDNN_LSTM && la != 1 ? 5 : 0, 6, 3,
                           {6, packed ? 4 : 0, packed ? 2 : 5}, types[ty][0], types[ty][1], 0,
                           ty >= 3 ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH};
                run_case(&c);
                if (c.layers == 2 && la == 2) { /* the same with dropout between the layers */
                    c.drop = 0.3f;
                    run_case(&c);
                }
            }
    CHECK_OK(freednnSetNumThreads(handle, 1));
    test_bad();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_rnn_half");
}
