/* SPDX-License-Identifier: Apache-2.0
 * cudnnRNNForward / cudnnRNNBackwardData_v8 / cudnnRNNBackwardWeights_v8,
 * cudnnGetRNNWeightParams and the size queries against the float64
 * reference (src/ref/rnn_ref.c): forward values (y, hy, cy) directly,
 * gradients (dx, dhx, dcx, every weight and bias) against central
 * differences of the reference loss  L = <dy, y> + <dhy, hy> + <dcy, cy>.
 * Cells RELU, TANH, LSTM (with and without clipping), GRU; every bias mode;
 * LINEAR and SKIP input; uni- and bidirectional; 1 and 2 layers; the three
 * data layouts with variable lengths (zero-length sequences in the unpacked
 * ones); NULL hx/cx/hy/cy/dhy/dcy; WGRAD ADD and SET; every ISA level, 1
 * and 2 threads with bitwise equal results; outputs poisoned, guard pages;
 * bad inputs with nothing written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "freednn.h"
#include "cpu/dropout/philox.h"
#include "ref/rnn_ref.h"
#include "testutil.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;
/* Gradients (central differences, the slow part) of every case on the first
 * ISA level with one thread; elsewhere the forward values of every case and
 * the gradients of one case per cell (test_threads checks bitwise equality
 * of 1 and 2 threads on each level). */
static bool all_grads;

typedef struct cfg {
    cudnnRNNMode_t cell;
    cudnnRNNBiasMode_t bias;
    cudnnDirectionMode_t dir;
    cudnnRNNInputMode_t input_mode;
    cudnnRNNDataLayout_t layout;
    int layers, in, H, T, B;
    int lens[8];
    bool clip;
    bool null_states; /* hx, cx, dhy, dcy NULL */
    int proj;         /* LSTM projSize < H, or 0 (none) */
    float drop;       /* dropout between layers, or 0 */
} cfg_t;

typedef struct param {
    double *canon;  /* the reference's value */
    int64_t offset; /* in floats in the weight space */
} param_t;

typedef struct setup {
    cfg_t c;
    int D, g, P;
    int Ph; /* width of h and y per direction: projSize, or H */
    cudnnRNNDescriptor_t rnn;
    cudnnDropoutDescriptor_t drop;
    void *drop_states;
    size_t drop_bytes;
    double **Pm;    /* projection matrices [Ph][H], per pseudo-layer */
    double **masks; /* dropout factors of the first training forward */
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd, cd;
    size_t wbytes, wsbytes, rsbytes, wsinf;
    float *w;
    double **W, **R, **bW, **bR;
    param_t *params;
    int nparams;
    fdnn_ref_rnn_t ref;
} setup_t;

/* User row of (t, b), or -1 for padding: the test's own mapping. */
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

#define DROP_SEED 0x5eedULL

/* The dropout factors (0 or 1/(1-p)) between layers of the training forward
 * that uses the states' call counter `call`: element (l, t*B + b, k) of the
 * time-major [T][B][D*Ph] output of layer l is kept when its Philox number
 * is at or above p * 2^32, as docs/rnn.md documents. */
static double **
make_masks(const cfg_t *c, int D, int Ph, uint64_t seed, uint64_t call)
{
    if (c->layers < 2)
        return NULL;
    int64_t tb = (int64_t)c->T * c->B, w = (int64_t)D * Ph;
    uint64_t thr = (uint64_t)((double)c->drop * 4294967296.0);
    double **m = calloc((size_t)c->layers - 1, sizeof(double *));
    for (int l = 0; l < c->layers - 1; l++) {
        m[l] = malloc(sizeof(double) * (size_t)(tb * w));
        for (int64_t i = 0; i < tb * w; i++)
            m[l][i] = fdnn_dropout_random(seed, call, (uint64_t)(l * tb * w + i)) >= thr ? 1.0 / (1.0 - c->drop) : 0;
    }
    return m;
}

static double
rnd_f(void)
{
    return (double)(float)fdnn_rng_uniform(&rng, -0.6, 0.6);
}

static double *
rnd_array(int64_t n)
{
    double *a = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        a[i] = rnd_f();
    return a;
}

static void
add_param(setup_t *s, double *canon, float *base, const float *addr, int64_t i)
{
    s->params[s->nparams].canon = canon;
    s->params[s->nparams].offset = (addr - base) + i;
    s->nparams++;
}

static bool
make_setup(setup_t *s, const cfg_t *c)
{
    memset(s, 0, sizeof(*s));
    s->c = *c;
    s->D = c->dir == CUDNN_BIDIRECTIONAL ? 2 : 1;
    s->g = fdnn_ref_rnn_gates((int)c->cell);
    s->P = c->layers * s->D;
    int H = c->H, D = s->D, g = s->g, Ph = s->Ph = c->proj ? c->proj : c->H;
    CHECK_OK(cudnnCreateRNNDescriptor(&s->rnn));
    if (c->drop > 0) {
        CHECK_OK(cudnnCreateDropoutDescriptor(&s->drop));
        CHECK_OK(cudnnDropoutGetStatesSize(handle, &s->drop_bytes));
        s->drop_states = malloc(s->drop_bytes);
        CHECK_OK(cudnnSetDropoutDescriptor(s->drop, handle, c->drop, s->drop_states, s->drop_bytes, DROP_SEED));
        s->masks = make_masks(c, s->D, Ph, DROP_SEED, 0);
    }
    CHECK_OK(cudnnSetRNNDescriptor_v8(s->rnn, CUDNN_RNN_ALGO_STANDARD, c->cell, c->bias, c->dir, c->input_mode,
                                      CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, c->in, H, Ph, c->layers,
                                      s->drop, CUDNN_RNN_PADDED_IO_ENABLED));
    if (c->clip)
        CHECK_OK(cudnnRNNSetClip_v8(s->rnn, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, -0.3, 0.35));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&s->xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&s->yd));
    float zero = 0;
    CHECK_OK(cudnnSetRNNDataDescriptor(s->xd, CUDNN_DATA_FLOAT, c->layout, c->T, c->B, c->in, c->lens, &zero));
    CHECK_OK(cudnnSetRNNDataDescriptor(s->yd, CUDNN_DATA_FLOAT, c->layout, c->T, c->B, D * Ph, c->lens, NULL));
    int hdims[3] = {s->P, c->B, Ph}, hstr[3] = {c->B * Ph, Ph, 1};
    int cdims[3] = {s->P, c->B, H}, cstr[3] = {c->B * H, H, 1};
    CHECK_OK(cudnnCreateTensorDescriptor(&s->hd));
    CHECK_OK(cudnnCreateTensorDescriptor(&s->cd));
    CHECK_OK(cudnnSetTensorNdDescriptor(s->hd, CUDNN_DATA_FLOAT, 3, hdims, hstr));
    CHECK_OK(cudnnSetTensorNdDescriptor(s->cd, CUDNN_DATA_FLOAT, 3, cdims, cstr));
    CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, s->rnn, &s->wbytes));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, s->rnn, CUDNN_FWD_MODE_TRAINING, s->xd, &s->wsbytes, &s->rsbytes));
    size_t rs0 = 1;
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, s->rnn, CUDNN_FWD_MODE_INFERENCE, s->xd, &s->wsinf, &rs0));
    CHECK(rs0 == 0);
    s->w = fdnn_guarded_alloc(s->wbytes);
    fdnn_poison_f32(s->w, s->wbytes / 4);
    s->W = calloc((size_t)s->P, sizeof(double *));
    s->R = calloc((size_t)s->P, sizeof(double *));
    s->bW = calloc((size_t)s->P, sizeof(double *));
    s->bR = calloc((size_t)s->P, sizeof(double *));
    s->Pm = calloc((size_t)s->P, sizeof(double *));
    s->params = malloc(sizeof(param_t) * s->wbytes / 4 + 1);
    bool has_bw = c->bias == CUDNN_RNN_DOUBLE_BIAS || c->bias == CUDNN_RNN_SINGLE_INP_BIAS;
    bool has_br = c->bias == CUDNN_RNN_DOUBLE_BIAS || c->bias == CUDNN_RNN_SINGLE_REC_BIAS;
    cudnnTensorDescriptor_t md, bd;
    CHECK_OK(cudnnCreateTensorDescriptor(&md));
    CHECK_OK(cudnnCreateTensorDescriptor(&bd));
    for (int p = 0; p < s->P; p++) {
        int layer = p / D, in_l = layer == 0 ? c->in : D * Ph;
        bool has_w = !(layer == 0 && c->input_mode == CUDNN_SKIP_INPUT);
        s->W[p] = has_w ? rnd_array((int64_t)g * H * in_l) : NULL;
        s->R[p] = rnd_array((int64_t)g * H * Ph);
        s->Pm[p] = Ph < H ? rnd_array((int64_t)Ph * H) : NULL;
        s->bW[p] = has_bw ? rnd_array((int64_t)g * H) : NULL;
        s->bR[p] = has_br ? rnd_array((int64_t)g * H) : NULL;
        int nid = c->cell == CUDNN_LSTM ? 9 : 2 * g;
        for (int id = 0; id < nid; id++) {
            void *ma = (void *)1, *ba = (void *)1;
            CHECK_OK(cudnnGetRNNWeightParams(handle, s->rnn, p, s->wbytes, s->w, id, md, &ma, bd, &ba));
            cudnnDataType_t dt;
            int nb = -1, dims[4] = {0}, str[4] = {0};
            CHECK_OK(cudnnGetTensorNdDescriptor(md, 4, &dt, &nb, dims, str));
            bool inp = id < g, isproj = id == 2 * g;
            bool exists = id < 2 * g ? (inp ? has_w : true) : Ph < H;
            CHECK_MSG(exists ? ma != NULL && nb == 3 && dims[0] == 1 && dims[1] == (isproj ? Ph : H) &&
                                   dims[2] == (inp ? in_l : isproj ? H : Ph) && str[2] == 1
                             : ma == NULL && nb == 0,
                      "matrix params p %d id %d: addr %p nb %d dims %d %d %d", p, id, ma, nb, dims[0], dims[1], dims[2]);
            bool bexists = id < 2 * g && (inp ? has_bw : has_br);
            CHECK_OK(cudnnGetTensorNdDescriptor(bd, 4, &dt, &nb, dims, str));
            CHECK_MSG(bexists ? ba != NULL && nb == 3 && dims[1] == H && dims[2] == 1 : ba == NULL && nb == 0,
                      "bias params p %d id %d: addr %p nb %d", p, id, ba, nb);
            if (exists && ma) {
                double *m = isproj ? s->Pm[p]
                            : inp  ? s->W[p] + (int64_t)id * H * in_l
                                   : s->R[p] + (int64_t)(id - g) * H * Ph;
                int64_t n = isproj ? (int64_t)Ph * H : (int64_t)H * (inp ? in_l : Ph);
                for (int64_t i = 0; i < n; i++) {
                    ((float *)ma)[i] = (float)m[i];
                    add_param(s, m + i, s->w, ma, i);
                }
            }
            if (bexists && ba) {
                double *bv = inp ? s->bW[p] + id * H : s->bR[p] + (id - g) * H;
                for (int i = 0; i < H; i++) {
                    ((float *)ba)[i] = (float)bv[i];
                    add_param(s, bv + i, s->w, ba, i);
                }
            }
        }
    }
    cudnnDestroyTensorDescriptor(md);
    cudnnDestroyTensorDescriptor(bd);
    CHECK_MSG((size_t)s->nparams * 4 == s->wbytes, "weight space %zu bytes, %d parameters", s->wbytes, s->nparams);
    for (size_t i = 0; i < s->wbytes / 4; i++)
        if (isnan(s->w[i])) {
            CHECK_MSG(false, "weight space float %zu not covered by cudnnGetRNNWeightParams", i);
            break;
        }
    fdnn_ref_rnn_t r = {(int)c->cell, D, c->layers, c->in, H, c->input_mode == CUDNN_SKIP_INPUT, c->clip, -0.3,
                        0.35, c->T, c->B, s->c.lens, s->W, s->R, s->bW, s->bR, Ph, s->Pm,
                        (const double *const *)s->masks};
    s->ref = r;
    return true;
}

static void
free_setup(setup_t *s)
{
    for (int p = 0; p < s->P; p++)
        free(s->W[p]), free(s->R[p]), free(s->bW[p]), free(s->bR[p]), free(s->Pm[p]);
    free(s->W), free(s->R), free(s->bW), free(s->bR), free(s->Pm), free(s->params);
    for (int l = 0; s->masks && l < s->c.layers - 1; l++)
        free(s->masks[l]);
    free(s->masks);
    if (s->drop)
        cudnnDestroyDropoutDescriptor(s->drop);
    free(s->drop_states);
    fdnn_guarded_free(s->w);
    cudnnDestroyRNNDescriptor(s->rnn);
    cudnnDestroyRNNDataDescriptor(s->xd);
    cudnnDestroyRNNDataDescriptor(s->yd);
    cudnnDestroyTensorDescriptor(s->hd);
    cudnnDestroyTensorDescriptor(s->cd);
}

/* Reference loss for finite differences. */
static double
ref_loss(const setup_t *s, const double *x, const double *hx, const double *cx, const double *dy, const double *dhy,
         const double *dcy)
{
    const cfg_t *c = &s->c;
    int64_t ny = (int64_t)c->T * c->B * s->D * s->Ph, nh = (int64_t)s->P * c->B * s->Ph;
    int64_t nc = (int64_t)s->P * c->B * c->H;
    double *y = malloc(sizeof(double) * ny), *hy = malloc(sizeof(double) * nh), *cy = malloc(sizeof(double) * nc);
    fdnn_ref_rnn_forward(&s->ref, x, hx, cx, y, hy, cy);
    double L = 0;
    for (int64_t i = 0; i < ny; i++)
        L += dy[i] * y[i];
    for (int64_t i = 0; i < nh; i++)
        L += dhy ? dhy[i] * hy[i] : 0;
    for (int64_t i = 0; i < nc; i++)
        L += dcy && c->cell == CUDNN_LSTM ? dcy[i] * cy[i] : 0;
    free(y), free(hy), free(cy);
    return L;
}

static double
fd(const setup_t *s, double *v, const double *x, const double *hx, const double *cx, const double *dy,
   const double *dhy, const double *dcy)
{
    const double e = 1e-6;
    double keep = *v;
    *v = keep + e;
    double lp = ref_loss(s, x, hx, cx, dy, dhy, dcy);
    *v = keep - e;
    double lm = ref_loss(s, x, hx, cx, dy, dhy, dcy);
    *v = keep;
    return (lp - lm) / (2 * e);
}

static bool
close_to(double got, double want, double tol)
{
    return fabs(got - want) <= tol * (1 + fabs(want));
}

static void
run_case(const cfg_t *c, bool grads)
{
    setup_t s;
    if (!make_setup(&s, c))
        return;
    int T = c->T, B = c->B, H = c->H, D = s.D, Ph = s.Ph;
    int64_t nx = (int64_t)T * B * c->in, ny = (int64_t)T * B * D * Ph, nh = (int64_t)s.P * B * Ph;
    int64_t nc = (int64_t)s.P * B * H; /* c is H wide, h projSize wide */
    int64_t urx = user_rows(c);
    /* Internal (time-major padded) doubles, and the user's float buffers. */
    double *x = calloc((size_t)nx, 8), *dy = calloc((size_t)ny, 8);
    double *hx = rnd_array(nh), *cx = rnd_array(nc), *dhy = rnd_array(nh), *dcy = rnd_array(nc);
    if (c->null_states)
        free(hx), free(cx), free(dhy), free(dcy), hx = cx = dhy = dcy = NULL;
    float *ux = fdnn_guarded_alloc(urx * c->in * 4), *uy = fdnn_guarded_alloc(urx * D * Ph * 4);
    float *udy = fdnn_guarded_alloc(urx * D * Ph * 4), *udx = fdnn_guarded_alloc(urx * c->in * 4);
    float *fh[4], *hy = fdnn_guarded_alloc(nh * 4), *cy = fdnn_guarded_alloc(nc * 4);
    float *dhx = fdnn_guarded_alloc(nh * 4), *dcx = fdnn_guarded_alloc(nc * 4);
    for (int i = 0; i < 4; i++) {
        double *src = i == 0 ? hx : i == 1 ? cx : i == 2 ? dhy : dcy;
        int64_t n = i & 1 ? nc : nh;
        fh[i] = src ? fdnn_guarded_alloc(n * 4) : NULL;
        for (int64_t k = 0; src && k < n; k++)
            fh[i][k] = (float)src[k];
    }
    fdnn_poison_f32(ux, urx * c->in);
    fdnn_poison_f32(udy, urx * D * Ph);
    for (int t = 0; t < T; t++)
        for (int b = 0; b < B; b++) {
            int64_t ur = user_row(c, t, b);
            if (ur < 0)
                continue;
            for (int k = 0; k < c->in; k++) {
                x[((int64_t)t * B + b) * c->in + k] = rnd_f();
                ux[ur * c->in + k] = (float)x[((int64_t)t * B + b) * c->in + k];
            }
            for (int k = 0; k < D * Ph; k++) {
                dy[((int64_t)t * B + b) * D * Ph + k] = rnd_f();
                udy[ur * D * Ph + k] = (float)dy[((int64_t)t * B + b) * D * Ph + k];
            }
        }
    double *ry = malloc(ny * 8), *rhy = malloc(nh * 8), *rcy = malloc(nc * 8);
    size_t wsmax = s.wsbytes > s.wsinf ? s.wsbytes : s.wsinf;
    float *ws = fdnn_guarded_alloc(wsmax), *rs = fdnn_guarded_alloc(s.rsbytes);
    float *dw = fdnn_guarded_alloc(s.wbytes);
    bool lstm = c->cell == CUDNN_LSTM;
    const char *what = "";
    char desc[160];
    snprintf(desc, sizeof desc,
             "cell %d bias %d dir %d inmode %d layout %d L%d in%d H%d P%d T%d B%d clip %d null %d drop %g", c->cell,
             c->bias, c->dir, c->input_mode, c->layout, c->layers, c->in, H, Ph, T, B, c->clip, c->null_states,
             (double)c->drop);
    const double *const *masks = s.ref.drop;
    for (int mode = 0; mode < 2; mode++) {
        /* Inference ignores the dropout; the training forward draws the
         * masks of call 0 (the descriptor was just set). */
        s.ref.drop = mode ? masks : NULL;
        fdnn_ref_rnn_forward(&s.ref, x, hx, cx, ry, rhy, rcy);
        fdnn_poison_f32(uy, urx * D * Ph);
        fdnn_poison_f32(hy, nh);
        fdnn_poison_f32(cy, nc);
        fdnn_poison_f32(ws, wsmax / 4);
        fdnn_poison_f32(rs, s.rsbytes / 4);
        size_t wsb = mode ? s.wsbytes : s.wsinf;
        CHECK_OK(cudnnRNNForward(handle, s.rnn, mode ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, c->lens,
                                 s.xd, ux, s.yd, uy, s.hd, fh[0], hy, s.cd, fh[1], cy, s.wbytes, s.w, wsb, ws,
                                 mode ? s.rsbytes : 0, mode ? rs : NULL));
        double err = 0;
        int bad_pad = 0;
        for (int t = 0; t < T; t++)
            for (int b = 0; b < B; b++) {
                int64_t ur = user_row(c, t, b);
                for (int k = 0; k < D * Ph; k++) {
                    if (ur < 0) {
                        if (c->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) {
                            int64_t pr = c->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED ? (int64_t)t * B + b
                                                                                             : (int64_t)b * T + t;
                            bad_pad += !isnan(uy[pr * D * Ph + k]); /* yDesc has no fill: untouched */
                        }
                        continue;
                    }
                    double want = ry[((int64_t)t * B + b) * D * Ph + k], got = uy[ur * D * Ph + k];
                    double e = fabs(got - want) / (1 + fabs(want));
                    err = e > err || isnan(got) ? (isnan(got) ? INFINITY : e) : err;
                }
            }
        for (int64_t i = 0; i < nh; i++) {
            double e = fabs(hy[i] - rhy[i]) / (1 + fabs(rhy[i]));
            err = e > err || isnan(hy[i]) ? (isnan(hy[i]) ? INFINITY : e) : err;
        }
        for (int64_t i = 0; i < nc; i++) {
            double e;
            if (lstm) {
                e = fabs(cy[i] - rcy[i]) / (1 + fabs(rcy[i]));
                err = e > err || isnan(cy[i]) ? (isnan(cy[i]) ? INFINITY : e) : err;
            } else {
                bad_pad += !isnan(cy[i]);
            }
        }
        CHECK_MSG(err < 2e-5, "forward %s mode %d: err %.3g", desc, mode, err);
        CHECK_MSG(bad_pad == 0, "forward %s: %d padding/cy values written", desc, bad_pad);
    }
    if (grads) {
        /* The reserve holds the training forward above. */
        fdnn_poison_f32(udx, urx * c->in);
        fdnn_poison_f32(dhx, nh);
        fdnn_poison_f32(dcx, nc);
        /* dy is an input: unchanged after the call (the kernels read it in
         * place when the rows match, test_values' full-length cases). */
        float *dy_before = malloc((size_t)(urx * D * Ph) * 4);
        memcpy(dy_before, udy, (size_t)(urx * D * Ph) * 4);
        CHECK_OK(cudnnRNNBackwardData_v8(handle, s.rnn, c->lens, s.yd, uy, udy, s.xd, udx, s.hd, fh[0], fh[2], dhx,
                                         s.cd, fh[1], fh[3], dcx, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs));
        CHECK_MSG(memcmp(dy_before, udy, (size_t)(urx * D * Ph) * 4) == 0, "backward data %s: dy changed", desc);
        free(dy_before);
        double err = 0;
        for (int t = 0; t < T; t++)
            for (int b = 0; b < B; b++) {
                int64_t ur = user_row(c, t, b);
                for (int k = 0; k < c->in && ur >= 0; k++) {
                    double want = fd(&s, &x[((int64_t)t * B + b) * c->in + k], x, hx, cx, dy, dhy, dcy);
                    if (!close_to(udx[ur * c->in + k], want, 1e-4)) {
                        err = 1;
                        what = "dx";
                    }
                }
            }
        double *zeros = calloc((size_t)nc, 8);
        for (int64_t i = 0; i < nh; i++) {
            /* NULL hx/cx are zeros: differentiate around a zero array. */
            double *h0 = hx ? hx : zeros;
            double want = fd(&s, &h0[i], x, h0, cx, dy, dhy, dcy);
            if (!close_to(dhx[i], want, 1e-4))
                err = 1, what = "dhx";
        }
        for (int64_t i = 0; i < nc; i++) {
            double want;
            if (lstm) {
                double *c0 = cx ? cx : zeros;
                want = fd(&s, &c0[i], x, hx, c0, dy, dhy, dcy);
                if (!close_to(dcx[i], want, 1e-4))
                    err = 1, what = "dcx";
            } else if (!isnan(dcx[i])) {
                err = 1, what = "dcx written";
            }
        }
        CHECK_MSG(err == 0, "backward data %s: %s wrong", desc, what);
        /* xDesc has a padding fill (0): dx padding gets it. */
        int dx_pad = 0;
        for (int t = 0; t < T && c->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED; t++)
            for (int b = 0; b < B; b++) {
                if (t < c->lens[b])
                    continue;
                int64_t pr = c->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED ? (int64_t)t * B + b
                                                                                 : (int64_t)b * T + t;
                for (int k = 0; k < c->in; k++)
                    dx_pad += udx[pr * c->in + k] != 0.0f;
            }
        CHECK_MSG(dx_pad == 0, "backward data %s: %d dx padding values are not the fill 0", desc, dx_pad);
        for (int add = 0; add < 2; add++) {
            if (add)
                for (size_t i = 0; i < s.wbytes / 4; i++)
                    dw[i] = (float)(i % 7) * 0.25f;
            else
                fdnn_poison_f32(dw, s.wbytes / 4);
            CHECK_OK(cudnnRNNBackwardWeights_v8(handle, s.rnn, add ? CUDNN_WGRAD_MODE_ADD : CUDNN_WGRAD_MODE_SET,
                                                c->lens, s.xd, ux, s.hd, fh[0], s.yd, uy, s.wbytes, dw, s.wsbytes, ws,
                                                s.rsbytes, rs));
            int nbad = 0, first = -1;
            for (int i = 0; i < s.nparams; i++) {
                param_t *pm = &s.params[i];
                double want = fd(&s, pm->canon, x, hx, cx, dy, dhy, dcy) + (add ? (pm->offset % 7) * 0.25 : 0);
                if (!close_to(dw[pm->offset], want, 1e-4)) {
                    if (first < 0)
                        first = i;
                    nbad++;
                }
            }
            CHECK_MSG(nbad == 0, "backward weights %s add %d: %d wrong, first param %d (offset %lld)", desc, add,
                      nbad, first, first >= 0 ? (long long)s.params[first].offset : -1LL);
        }
        free(zeros);
    }
    free(x), free(dy), free(hx), free(cx), free(dhy), free(dcy), free(ry), free(rhy), free(rcy);
    fdnn_guarded_free(ux), fdnn_guarded_free(uy), fdnn_guarded_free(udy), fdnn_guarded_free(udx);
    fdnn_guarded_free(hy), fdnn_guarded_free(cy), fdnn_guarded_free(dhx), fdnn_guarded_free(dcx);
    for (int i = 0; i < 4; i++)
        if (fh[i])
            fdnn_guarded_free(fh[i]);
    fdnn_guarded_free(ws), fdnn_guarded_free(rs), fdnn_guarded_free(dw);
    free_setup(&s);
}

static cfg_t
base_cfg(cudnnRNNMode_t cell)
{
    cfg_t c = {cell, CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT,
               CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 1, 5, 4, 4, 3, {4, 2, 3}, false, false, 0, 0.0f};
    return c;
}

static void
test_values(void)
{
    const cudnnRNNMode_t cells[4] = {CUDNN_RNN_RELU, CUDNN_RNN_TANH, CUDNN_LSTM, CUDNN_GRU};
    for (int ci = 0; ci < 4; ci++) {
        cfg_t c = base_cfg(cells[ci]);
        run_case(&c, all_grads);
        /* Bias modes. */
        for (int bm = 0; bm < 3; bm++) {
            cfg_t v = c;
            v.bias = bm == 0 ? CUDNN_RNN_NO_BIAS : bm == 1 ? CUDNN_RNN_SINGLE_INP_BIAS : CUDNN_RNN_SINGLE_REC_BIAS;
            run_case(&v, all_grads);
        }
        /* Two bidirectional layers, every layout, variable lengths. */
        const cudnnRNNDataLayout_t layouts[3] = {CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                                                 CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                                                 CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED};
        for (int li = 0; li < 3; li++) {
            cfg_t v = c;
            v.dir = CUDNN_BIDIRECTIONAL;
            v.layers = 2;
            v.layout = layouts[li];
            v.H = 3;
            v.T = 4, v.B = 4;
            int packed[4] = {4, 3, 3, 1}, unpacked[4] = {2, 4, 0, 3};
            memcpy(v.lens, li == 1 ? packed : unpacked, sizeof packed);
            v.null_states = li == 2;
            run_case(&v, all_grads || li == 1);
        }
        /* Full lengths (the user's rows are the internal ones: x, dy read
         * and y, dx written in place), two bidirectional layers, both
         * step-major layouts; and three layers with dropout. */
        for (int li = 0; li < 2; li++) {
            cfg_t v = c;
            v.dir = CUDNN_BIDIRECTIONAL;
            v.layers = 2;
            v.layout = li == 0 ? CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED : CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED;
            v.H = 3;
            v.T = 3, v.B = 2;
            v.lens[0] = v.lens[1] = 3;
            run_case(&v, all_grads || li == 1);
        }
        {
            cfg_t v = c;
            v.layers = 3, v.drop = 0.3f;
            v.T = 3, v.B = 2;
            v.lens[0] = v.lens[1] = 3;
            run_case(&v, true);
        }
        /* Skip input (input == hidden), N=1, C... one unit. */
        cfg_t v = c;
        v.input_mode = CUDNN_SKIP_INPUT;
        v.in = v.H = 3;
        v.dir = CUDNN_BIDIRECTIONAL;
        run_case(&v, all_grads);
        cfg_t one = c;
        one.B = 1, one.lens[0] = 1, one.T = 1, one.H = 1, one.in = 1;
        run_case(&one, all_grads);
    }
    cfg_t cl = base_cfg(CUDNN_LSTM);
    cl.clip = true;
    cl.T = 5, cl.lens[0] = 5;
    run_case(&cl, all_grads);
    /* Recurrent projection (projSize < hiddenSize), one and two
     * bidirectional layers, padded and packed layouts, NULL states. */
    cfg_t pj = base_cfg(CUDNN_LSTM);
    pj.proj = 3;
    run_case(&pj, true);
    pj.dir = CUDNN_BIDIRECTIONAL, pj.layers = 2, pj.H = 5, pj.proj = 2, pj.T = 4, pj.B = 4;
    int lens[4] = {2, 4, 0, 3}, packed[4] = {4, 3, 3, 1};
    memcpy(pj.lens, lens, sizeof lens);
    run_case(&pj, all_grads);
    pj.layout = CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, pj.null_states = true;
    memcpy(pj.lens, packed, sizeof packed);
    run_case(&pj, all_grads);
    /* Dropout between layers: GRU, and LSTM with a projection over three
     * layers (two masks). */
    cfg_t dr = base_cfg(CUDNN_GRU);
    dr.layers = 2, dr.drop = 0.4f;
    run_case(&dr, true);
    pj.drop = 0.3f, pj.layers = 3;
    run_case(&pj, all_grads);
}

/* Bitwise equality for 1, 2 and 3 threads on a larger problem (training
 * forward, backward data, backward weights, then an inference forward),
 * with dropout between the layers: the dropout descriptor is set again
 * with the same seed before each run, so every run draws the same masks.
 * Sizes not multiples of the tiles (H = 33, 40, 17), every cell, and
 * sequences of different lengths (padding rows in every step). */
static void
threads_case(cudnnRNNMode_t cell, int H)
{
    cfg_t c = base_cfg(cell);
    c.dir = CUDNN_BIDIRECTIONAL, c.layers = 2, c.in = 37, c.H = H, c.T = 6, c.B = 5, c.drop = 0.25f;
    int lens[5] = {6, 1, 5, 6, 3};
    memcpy(c.lens, lens, sizeof lens);
    setup_t s;
    make_setup(&s, &c);
    int64_t nx = (int64_t)c.T * c.B * c.in, ny = (int64_t)c.T * c.B * 2 * c.H, nh = (int64_t)s.P * c.B * c.H;
    float *x = malloc(nx * 4), *dy = malloc(ny * 4), *outs[3][9];
    for (int64_t i = 0; i < nx; i++)
        x[i] = (float)rnd_f();
    for (int64_t i = 0; i < ny; i++)
        dy[i] = (float)rnd_f();
    size_t wsi_bytes = 0;
    CHECK_OK(cudnnGetRNNTempSpaceSizes(handle, s.rnn, CUDNN_FWD_MODE_INFERENCE, s.xd, &wsi_bytes, NULL));
    float *ws = malloc(s.wsbytes), *rs = malloc(s.rsbytes), *wsi = malloc(wsi_bytes);
    for (int th = 0; th < 3; th++) {
        CHECK_OK(freednnSetNumThreads(handle, th + 1));
        float *y = outs[th][0] = calloc(ny, 4), *hy = outs[th][1] = calloc(nh, 4), *cy = outs[th][2] = calloc(nh, 4);
        float *dx = outs[th][3] = calloc(nx, 4), *dhx = outs[th][4] = calloc(nh, 4);
        float *dw = outs[th][5] = calloc(s.wbytes, 1);
        /* Inference outputs poisoned: every element must be written. */
        float *yi = outs[th][6] = malloc(ny * 4), *hyi = outs[th][7] = malloc(nh * 4);
        float *cyi = outs[th][8] = malloc(nh * 4);
        memset(yi, 0xff, ny * 4), memset(hyi, 0xff, nh * 4), memset(cyi, 0xff, nh * 4);
        CHECK_OK(cudnnSetDropoutDescriptor(s.drop, handle, c.drop, s.drop_states, s.drop_bytes, DROP_SEED));
        CHECK_OK(cudnnRNNForward(handle, s.rnn, CUDNN_FWD_MODE_TRAINING, c.lens, s.xd, x, s.yd, y, s.hd, NULL, hy,
                                 s.cd, NULL, cy, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs));
        CHECK_OK(cudnnRNNBackwardData_v8(handle, s.rnn, c.lens, s.yd, y, dy, s.xd, dx, s.hd, NULL, NULL, dhx, s.cd,
                                         NULL, NULL, NULL, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs));
        CHECK_OK(cudnnRNNBackwardWeights_v8(handle, s.rnn, CUDNN_WGRAD_MODE_SET, c.lens, s.xd, x, s.hd, NULL, s.yd,
                                            y, s.wbytes, dw, s.wsbytes, ws, s.rsbytes, rs));
        CHECK_OK(cudnnRNNForward(handle, s.rnn, CUDNN_FWD_MODE_INFERENCE, c.lens, s.xd, x, s.yd, yi, s.hd, NULL, hyi,
                                 s.cd, NULL, cyi, s.wbytes, s.w, wsi_bytes, wsi, 0, NULL));
        if (cell != CUDNN_LSTM) /* cy is not written: equal (0xff) in every run */
            memset(cyi, 0, nh * 4);
        /* Every active row written (the padding rows are the data
         * descriptor's fill, test_padding_fill); layout SEQ_MAJOR_UNPACKED. */
        for (int64_t i = 0; i < ny; i++) {
            int64_t row = i / (2 * c.H), t = row / c.B, b = row % c.B;
            if (t < c.lens[b])
                CHECK_MSG(yi[i] == yi[i], "inference y[%lld] not written (%d threads)", (long long)i, th + 1);
        }
    }
    /* A further training forward draws new masks (the states advanced). */
    float *y2 = calloc(ny, 4), *hy2 = calloc(nh, 4);
    CHECK_OK(cudnnRNNForward(handle, s.rnn, CUDNN_FWD_MODE_TRAINING, c.lens, s.xd, x, s.yd, y2, s.hd, NULL, hy2,
                             s.cd, NULL, NULL, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs));
    CHECK_MSG(memcmp(y2, outs[2][0], ny * 4) != 0, "a second training forward reused the dropout masks");
    free(y2), free(hy2);
    size_t sizes[9] = {ny * 4, nh * 4, nh * 4, nx * 4, nh * 4, s.wbytes, ny * 4, nh * 4, nh * 4};
    for (int i = 0; i < 9; i++) {
        for (int th = 1; th < 3; th++)
            CHECK_MSG(memcmp(outs[0][i], outs[th][i], sizes[i]) == 0,
                      "cell %d H %d: output %d differs between 1 and %d threads", (int)cell, H, i, th + 1);
        for (int th = 0; th < 3; th++)
            free(outs[th][i]);
    }
    free(x), free(dy), free(ws), free(rs), free(wsi);
    free_setup(&s);
}

static void
test_threads(void)
{
    threads_case(CUDNN_LSTM, 33);
    threads_case(CUDNN_GRU, 33);
    threads_case(CUDNN_RNN_TANH, 40);
    threads_case(CUDNN_RNN_RELU, 17);
}

/* The float64 reference on 3 threads (more threads than cores here), every
 * cell, bidirectional with variable lengths, and LSTM cell clipping. */
static void
test_split_values(void)
{
    const cudnnRNNMode_t cells[4] = {CUDNN_RNN_RELU, CUDNN_RNN_TANH, CUDNN_LSTM, CUDNN_GRU};
    CHECK_OK(freednnSetNumThreads(handle, 3));
    for (int ci = 0; ci < 4; ci++) {
        cfg_t c = base_cfg(cells[ci]);
        c.H = 40, c.in = 7, c.T = 5, c.B = 4;
        int lens[4] = {5, 2, 4, 5};
        memcpy(c.lens, lens, sizeof lens);
        c.dir = CUDNN_BIDIRECTIONAL;
        run_case(&c, false);
        c.H = 20, c.dir = CUDNN_UNIDIRECTIONAL, c.clip = cells[ci] == CUDNN_LSTM;
        run_case(&c, false);
    }
}

/* The fraction of dropped elements is p (within 4 standard deviations of
 * the binomial), for the masks that the forward tests above showed the
 * implementation draws. */
static void
test_drop_fraction(void)
{
    const float ps[3] = {0.1f, 0.5f, 0.9f};
    for (int i = 0; i < 3; i++) {
        cfg_t c = base_cfg(CUDNN_LSTM);
        c.layers = 2, c.T = 50, c.B = 40, c.drop = ps[i];
        int D = 1, Ph = 50;
        double **m = make_masks(&c, D, Ph, DROP_SEED + (uint64_t)i, 3);
        int64_t n = (int64_t)c.T * c.B * D * Ph, dropped = 0;
        for (int64_t k = 0; k < n; k++)
            dropped += m[0][k] == 0;
        double f = (double)dropped / (double)n, sd = sqrt(ps[i] * (1 - ps[i]) / (double)n);
        CHECK_MSG(fabs(f - ps[i]) < 4 * sd, "dropout p %g: fraction dropped %g", (double)ps[i], f);
        free(m[0]), free(m);
    }
}

/* yDesc with a padding fill: the padding rows of y get it (both unpacked
 * layouts). */
static void
test_padding_fill(void)
{
    for (int li = 0; li < 2; li++) {
        cfg_t c = base_cfg(CUDNN_GRU);
        c.layout = li ? CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED : CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
        setup_t s;
        make_setup(&s, &c);
        float fill = 7.0f;
        CHECK_OK(cudnnSetRNNDataDescriptor(s.yd, CUDNN_DATA_FLOAT, c.layout, c.T, c.B, c.H, c.lens, &fill));
        size_t nx = (size_t)c.T * c.B * c.in, ny = (size_t)c.T * c.B * c.H;
        float *x = calloc(nx, 4), *y = malloc(ny * 4), *ws = malloc(s.wsinf);
        fdnn_poison_f32(y, ny);
        CHECK_OK(cudnnRNNForward(handle, s.rnn, CUDNN_FWD_MODE_INFERENCE, c.lens, s.xd, x, s.yd, y, s.hd, NULL, NULL,
                                 s.cd, NULL, NULL, s.wbytes, s.w, s.wsinf, ws, 0, NULL));
        int bad = 0;
        for (int t = 0; t < c.T; t++)
            for (int b = 0; b < c.B; b++) {
                int64_t row = li ? (int64_t)b * c.T + t : (int64_t)t * c.B + b;
                for (int k = 0; k < c.H; k++)
                    bad += t < c.lens[b] ? !isfinite(y[row * c.H + k]) : y[row * c.H + k] != fill;
            }
        CHECK_MSG(bad == 0, "padding fill, layout %d: %d wrong values", c.layout, bad);
        free(x), free(y), free(ws);
        free_setup(&s);
    }
}

static void
test_bad_inputs(void)
{
    cfg_t c = base_cfg(CUDNN_LSTM);
    setup_t s;
    make_setup(&s, &c);
    int64_t nx = (int64_t)c.T * c.B * c.in, ny = (int64_t)c.T * c.B * c.H, nh = (int64_t)c.B * c.H;
    float *x = calloc(nx, 4), *y = malloc(ny * 4), *hy = malloc(nh * 4);
    float *ws = malloc(s.wsbytes), *rs = malloc(s.rsbytes);
    fdnn_poison_f32(y, ny);
    fdnn_poison_f32(hy, nh);
#define FWD(lens, xd, xp, yd, yp, hd, wsz, wsp, wss, wspp, rss, rsp)                                                \
    cudnnRNNForward(handle, s.rnn, CUDNN_FWD_MODE_TRAINING, lens, xd, xp, yd, yp, hd, NULL, hy, s.cd, NULL, NULL, wsz, \
                    wsp, wss, wspp, rss, rsp)
    CHECK_STATUS(FWD(c.lens, s.xd, NULL, s.yd, y, s.hd, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(c.lens, s.xd, x, s.yd, NULL, s.hd, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(NULL, s.xd, x, s.yd, y, s.hd, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(c.lens, s.xd, x, s.yd, y, s.hd, s.wbytes - 4, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(c.lens, s.xd, x, s.yd, y, s.hd, s.wbytes, s.w, s.wsbytes - 4, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(c.lens, s.xd, x, s.yd, y, s.hd, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes - 4, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(c.lens, s.xd, x, s.yd, y, s.hd, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(c.lens, s.xd, x, s.xd, y, s.hd, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM); /* yDesc vector size is the input size */
    CHECK_STATUS(FWD(c.lens, s.yd, x, s.yd, y, s.hd, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM); /* xDesc vector size is the hidden size */
    int wrong_lens[3] = {4, 1, 3};
    CHECK_STATUS(FWD(wrong_lens, s.xd, x, s.yd, y, s.hd, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t hbad;
    int d3[3] = {2, c.B, c.H}, s3[3] = {c.B * c.H, c.H, 1};
    CHECK_OK(cudnnCreateTensorDescriptor(&hbad));
    CHECK_OK(cudnnSetTensorNdDescriptor(hbad, CUDNN_DATA_FLOAT, 3, d3, s3));
    CHECK_STATUS(FWD(c.lens, s.xd, x, s.yd, y, hbad, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNForward(handle, s.rnn, (cudnnForwardMode_t)7, c.lens, s.xd, x, s.yd, y, s.hd, NULL, hy,
                                 s.cd, NULL, NULL, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    /* cDesc missing for LSTM. */
    CHECK_STATUS(cudnnRNNForward(handle, s.rnn, CUDNN_FWD_MODE_INFERENCE, c.lens, s.xd, x, s.yd, y, s.hd, NULL, hy,
                                 NULL, NULL, NULL, s.wbytes, s.w, s.wsbytes, ws, 0, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    bool untouched = true;
    for (int64_t i = 0; i < ny; i++)
        untouched &= isnan(y[i]) != 0;
    for (int64_t i = 0; i < nh; i++)
        untouched &= isnan(hy[i]) != 0;
    CHECK_MSG(untouched, "a failing cudnnRNNForward wrote its outputs");
    /* Weight params: pseudo-layer and ID ranges, small weight space. */
    cudnnTensorDescriptor_t md;
    void *ma;
    CHECK_OK(cudnnCreateTensorDescriptor(&md));
    CHECK_STATUS(cudnnGetRNNWeightParams(handle, s.rnn, 1, s.wbytes, s.w, 0, md, &ma, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(handle, s.rnn, 0, s.wbytes, s.w, 9, md, &ma, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(handle, s.rnn, 0, s.wbytes - 1, s.w, 0, md, &ma, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    /* Backward: undersized reserve, NULL dx, bad wgrad mode. */
    float *dx = malloc(nx * 4);
    fdnn_poison_f32(dx, nx);
    CHECK_STATUS(cudnnRNNBackwardData_v8(handle, s.rnn, c.lens, s.yd, y, y, s.xd, NULL, s.hd, NULL, NULL, NULL, s.cd,
                                         NULL, NULL, NULL, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNBackwardData_v8(handle, s.rnn, c.lens, s.yd, y, y, s.xd, dx, s.hd, NULL, NULL, NULL, s.cd,
                                         NULL, NULL, NULL, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes / 2, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNBackwardWeights_v8(handle, s.rnn, (cudnnWgradMode_t)5, c.lens, s.xd, x, s.hd, NULL, s.yd,
                                            y, s.wbytes, s.w, s.wsbytes, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNBackwardWeights_v8(handle, s.rnn, CUDNN_WGRAD_MODE_ADD, c.lens, s.xd, x, s.hd, NULL, s.yd,
                                            y, s.wbytes, s.w, s.wsbytes - 8, ws, s.rsbytes, rs),
                 CUDNN_STATUS_BAD_PARAM);
    untouched = true;
    for (int64_t i = 0; i < nx; i++)
        untouched &= isnan(dx[i]) != 0;
    CHECK_MSG(untouched, "a failing cudnnRNNBackwardData_v8 wrote dx");
    /* HALF: 2 bytes an element (4 gates x (4x4 W + 4x4 R + 2x4 biases)). */
    cudnnRNNDescriptor_t r2;
    size_t sz;
    CHECK_OK(cudnnCreateRNNDescriptor(&r2));
    CHECK_OK(cudnnSetRNNDescriptor_v8(r2, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT,
                                      CUDNN_DEFAULT_MATH, 4, 4, 4, 1, NULL, 0));
    CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, r2, &sz));
    CHECK_MSG(sz == 2 * 4 * (16 + 16 + 8), "HALF weight space %zu bytes", sz);
    /* A projection adds R [4H][P] instead of [4H][H], and Pm [P][H]. */
    CHECK_OK(cudnnSetRNNDescriptor_v8(r2, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                      CUDNN_DEFAULT_MATH, 4, 4, 2, 1, NULL, 0));
    CHECK_OK(cudnnGetRNNWeightSpaceSize(handle, r2, &sz));
    CHECK_MSG(sz == 4 * (16 * 4 + 16 * 2 + 2 * 16 + 2 * 4), "projection weight space %zu bytes", sz);
    /* Unpacked layout without PADDED_IO_ENABLED. */
    CHECK_OK(cudnnSetRNNDescriptor_v8(r2, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                      CUDNN_DEFAULT_MATH, c.in, c.H, c.H, 1, NULL, 0));
    size_t a, b;
    CHECK_STATUS(cudnnGetRNNTempSpaceSizes(handle, r2, CUDNN_FWD_MODE_TRAINING, s.xd, &a, &b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(handle, r2, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyRNNDescriptor(r2);
    cudnnDestroyTensorDescriptor(md);
    cudnnDestroyTensorDescriptor(hbad);
    free(x), free(y), free(hy), free(ws), free(rs), free(dx);
    free_setup(&s);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    fdnn_rng_seed(&rng, 1234);
    for (int i = 0; i < fdnn_test_isa_count(); i++) {
        CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(i)));
        for (int t = 1; t <= 2; t++) {
            CHECK_OK(freednnSetNumThreads(handle, t));
            all_grads = i == 0 && t == 1;
            test_values();
        }
        test_threads();
        test_split_values();
    }
    test_bad_inputs();
    test_padding_fill();
    test_drop_fraction();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_rnn_ops");
}
