/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention on HALF and BFLOAT16 data (src/cpu/attn/attn_stage.c)
 * with the compute precisions cuDNN 8.9 allows: HALF/FLOAT, HALF/HALF,
 * BFLOAT16/FLOAT.
 *
 * Each case runs the same problem in FLOAT on the inputs and weights
 * rounded to the 16-bit type, and in the 16-bit type: the training and
 * inference forward (with residuals), backward data and backward weights
 * (ADD onto a prior dweights).
 *   - FLOAT compute: every 16-bit output element is the FP32 one rounded to
 *     nearest even, bitwise (untouched elements stay poisoned in both).
 *   - HALF compute: within the documented tolerance of FP32 and different
 *     from it somewhere (the rounding is in effect).
 *   - The forward output against the float64 reference (src/ref/attn_ref.c)
 *     on the rounded values, with the per-type tolerance.
 *   - 1 and 2 threads bitwise equal; rows past the lengths keep the poison
 *     or get the padding fill (given in the 16-bit type).
 * Last, the (data, compute) pairs cuDNN refuses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/gemm/gemm.h"
#include "cpu/simd/cvt.h"
#include "cudnn.h"
#include "freednn.h"
#include "ref/attn_ref.h"
#include "testutil.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

typedef struct cfg {
    int H, qS, kS, vS, qP, kP, vP, oP;
    bool biases, one_to_one, time_major, fill;
    int batch, beam, qT, kT;
    cudnnDataType_t dt, cp;
    cudnnMathType_t math; /* of the 16-bit descriptor */
} cfg_t;

/* True when the 16-bit run takes BF16 products (fdnn_attn_bf16_products,
 * src/cpu/attn/attn_gemm.c): BFLOAT16 data, or HALF data with TENSOR_OP
 * math, on a CPU with AVX512-BF16. */
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

static double
unit(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_HALF ? 0x1p-11 : 0x1p-8;
}

static const cudnnSeqDataAxis_t batch_major[4] = {CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                                  CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_VECT_DIM};
static const cudnnSeqDataAxis_t time_major[4] = {CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BATCH_DIM,
                                                 CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_VECT_DIM};

static void
strides(const cfg_t *c, int T, int beam, int64_t st[3])
{
    if (c->time_major)
        st[0] = (int64_t)c->batch * beam, st[1] = beam, st[2] = 1;
    else
        st[0] = 1, st[1] = (int64_t)beam * T, st[2] = T;
}

/* The descriptors of one data type. */
typedef struct descs {
    cudnnAttnDescriptor_t attn;
    cudnnSeqDataDescriptor_t qd, kd, vd, od;
    size_t wbytes, wsbytes, rsbytes;
} descs_t;

static cudnnSeqDataDescriptor_t
seq_desc(const cfg_t *c, cudnnDataType_t dt, int T, int beam, int vect, const int *lens)
{
    cudnnSeqDataDescriptor_t d;
    CHECK_OK(cudnnCreateSeqDataDescriptor(&d));
    int dims[4];
    dims[CUDNN_SEQDATA_TIME_DIM] = T, dims[CUDNN_SEQDATA_BATCH_DIM] = c->batch;
    dims[CUDNN_SEQDATA_BEAM_DIM] = beam, dims[CUDNN_SEQDATA_VECT_DIM] = vect;
    float f32 = -7.0f;
    uint16_t f16 = narrow(dt == CUDNN_DATA_FLOAT ? c->dt : dt, -7.0f);
    void *fill = c->fill ? (dt == CUDNN_DATA_FLOAT ? (void *)&f32 : (void *)&f16) : NULL;
    CHECK_OK(cudnnSetSeqDataDescriptor(d, dt, 4, dims, c->time_major ? time_major : batch_major,
                                       (size_t)c->batch * beam, lens, fill));
    return d;
}

static void
make_descs(const cfg_t *c, cudnnDataType_t dt, cudnnDataType_t cp, const int *qlen, const int *klen, descs_t *d)
{
    int kv_beam = c->one_to_one ? c->beam : 1;
    int oLen = c->oP ? c->oP : c->H * (c->vP ? c->vP : c->vS);
    unsigned mode = (c->one_to_one ? CUDNN_ATTN_QUERYMAP_ONE_TO_ONE : CUDNN_ATTN_QUERYMAP_ALL_TO_ONE) |
                    (c->biases ? CUDNN_ATTN_ENABLE_PROJ_BIASES : CUDNN_ATTN_DISABLE_PROJ_BIASES);
    double scaler = 1.0 / sqrt((double)(c->qP ? c->qP : c->qS));
    CHECK_OK(cudnnCreateAttnDescriptor(&d->attn));
    cudnnMathType_t math = dt == CUDNN_DATA_FLOAT ? CUDNN_DEFAULT_MATH : c->math;
    CHECK_OK(cudnnSetAttnDescriptor(d->attn, mode, c->H, scaler, dt, cp, math, NULL, NULL, c->qS, c->kS,
                                    c->vS, c->qP, c->kP, c->vP, c->oP, c->qT, c->kT, c->batch, c->beam));
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(handle, d->attn, &d->wbytes, &d->wsbytes, &d->rsbytes));
    d->qd = seq_desc(c, dt, c->qT, c->beam, c->qS, qlen);
    d->od = seq_desc(c, dt, c->qT, c->beam, oLen, qlen);
    d->kd = seq_desc(c, dt, c->kT, kv_beam, c->kS, klen);
    d->vd = seq_desc(c, dt, c->kT, kv_beam, c->vS, klen);
}

static void
free_descs(descs_t *d)
{
    cudnnDestroyAttnDescriptor(d->attn);
    cudnnDestroySeqDataDescriptor(d->qd), cudnnDestroySeqDataDescriptor(d->kd);
    cudnnDestroySeqDataDescriptor(d->vd), cudnnDestroySeqDataDescriptor(d->od);
}

enum { W, Q, R, K, V, DOUT, DW0, NIN };
enum { OUT, OUTI, DQ, DK, DV, DW, NOUT };

typedef struct bufs {
    void *in[NIN], *out[NOUT];
} bufs_t;

typedef struct win {
    int *qlen, *klen, lo[80], hi[80];
} win_t;

static void
execute(const descs_t *d, const win_t *w, bufs_t *b, const int64_t *n_out, size_t es)
{
    for (int i = 0; i < NOUT; i++)
        memset(b->out[i], 0xff, (size_t)n_out[i] * es);
    memcpy(b->out[DW], b->in[DW0], (size_t)n_out[DW] * es);
    void *ws = fdnn_guarded_alloc(d->wsbytes), *rs = fdnn_guarded_alloc(d->rsbytes);
    CHECK_OK(cudnnMultiHeadAttnForward(handle, d->attn, -1, w->lo, w->hi, w->qlen, w->klen, d->qd, b->in[Q], b->in[R],
                                       d->kd, b->in[K], d->vd, b->in[V], d->od, b->out[OUTI], d->wbytes, b->in[W],
                                       d->wsbytes, ws, 0, NULL));
    CHECK_OK(cudnnMultiHeadAttnForward(handle, d->attn, -1, w->lo, w->hi, w->qlen, w->klen, d->qd, b->in[Q], b->in[R],
                                       d->kd, b->in[K], d->vd, b->in[V], d->od, b->out[OUT], d->wbytes, b->in[W],
                                       d->wsbytes, ws, d->rsbytes, rs));
    CHECK_OK(cudnnMultiHeadAttnBackwardData(handle, d->attn, w->lo, w->hi, w->qlen, w->klen, d->od, b->in[DOUT], d->qd,
                                            b->out[DQ], b->in[Q], d->kd, b->out[DK], b->in[K], d->vd, b->out[DV],
                                            b->in[V], d->wbytes, b->in[W], d->wsbytes, ws, d->rsbytes, rs));
    CHECK_OK(cudnnMultiHeadAttnBackwardWeights(handle, d->attn, CUDNN_WGRAD_MODE_ADD, d->qd, b->in[Q], d->kd,
                                               b->in[K], d->vd, b->in[V], d->od, b->in[DOUT], d->wbytes, b->in[W],
                                               b->out[DW], d->wsbytes, ws, d->rsbytes, rs));
    fdnn_guarded_free(ws), fdnn_guarded_free(rs);
}

/* HALF compute against FP32 on the same values (relative to 1 + |want|). */
static double
tol_fp32(const cfg_t *c)
{
    /* HALF compute: rounding of Q, K, V, probabilities, head outputs: ~5u.
     * BF16 products: the same five values (and the gradients) rounded to
     * bfloat16 as the GEMMs read them, 2^-9 each (docs/numerics.md). */
    return (c->cp == CUDNN_DATA_HALF ? 8 * unit(c->dt) : 0) + (bf16_products(c) ? 8 * 0x1p-9 : 0);
}

static double
tol_ref(const cfg_t *c)
{
    return (c->cp == CUDNN_DATA_HALF ? 8 * unit(c->dt) : unit(c->dt) + 1e-5) + (bf16_products(c) ? 8 * 0x1p-9 : 0);
}

static void
run_case(const cfg_t *c)
{
    const cudnnDataType_t dt = c->dt;
    int kv_beam = c->one_to_one ? c->beam : 1;
    int64_t oLen = c->oP ? c->oP : (int64_t)c->H * (c->vP ? c->vP : c->vS);
    win_t w;
    w.qlen = malloc(sizeof(int) * (size_t)(c->batch * c->beam));
    w.klen = malloc(sizeof(int) * (size_t)(c->batch * kv_beam));
    for (int i = 0; i < c->batch * c->beam; i++)
        w.qlen[i] = c->qT - i % 2;
    for (int i = 0; i < c->batch * kv_beam; i++)
        w.klen[i] = c->kT - i % 3;
    for (int t = 0; t < c->qT; t++)
        w.lo[t] = t % 3 == 1 ? 1 : 0, w.hi[t] = t % 3 == 2 ? c->kT - 1 : c->kT + 1;
    descs_t d32, d16;
    make_descs(c, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, w.qlen, w.klen, &d32);
    make_descs(c, dt, c->cp, w.qlen, w.klen, &d16);
    int64_t nw = (int64_t)d32.wbytes / 4;
    CHECK_MSG(d16.wbytes == (size_t)nw * 2, "16-bit weights %zu bytes, FLOAT %zu", d16.wbytes, d32.wbytes);
    int64_t nq = (int64_t)c->qT * c->batch * c->beam, nk = (int64_t)c->kT * c->batch * kv_beam;
    int64_t n_in[NIN] = {nw, nq * c->qS, nq * c->qS, nk * c->kS, nk * c->vS, nq * oLen, nw};
    int64_t n_out[NOUT] = {nq * oLen, nq * oLen, nq * c->qS, nk * c->kS, nk * c->vS, nw};
    bufs_t b32, b16[2];
    for (int i = 0; i < NIN; i++) {
        b32.in[i] = fdnn_guarded_alloc((size_t)(n_in[i] ? n_in[i] : 1) * 4);
        b16[0].in[i] = b16[1].in[i] = fdnn_guarded_alloc((size_t)(n_in[i] ? n_in[i] : 1) * 2);
        double range = i == W ? 0.5 : 1.0;
        for (int64_t e = 0; e < n_in[i]; e++) {
            uint16_t h = narrow(dt, (float)fdnn_rng_uniform(&rng, -range, range));
            ((uint16_t *)b16[0].in[i])[e] = h;
            ((float *)b32.in[i])[e] = widen(dt, h);
        }
    }
    for (int i = 0; i < NOUT; i++) {
        b32.out[i] = fdnn_guarded_alloc((size_t)(n_out[i] ? n_out[i] : 1) * 4);
        for (int k = 0; k < 2; k++)
            b16[k].out[i] = fdnn_guarded_alloc((size_t)(n_out[i] ? n_out[i] : 1) * 2);
    }
    execute(&d32, &w, &b32, n_out, 4);
    for (int th = 0; th < 2; th++) {
        CHECK_OK(freednnSetNumThreads(handle, th + 1));
        execute(&d16, &w, &b16[th], n_out, 2);
    }
    double worst = 0;
    int64_t differ = 0;
    for (int i = 0; i < NOUT; i++) {
        CHECK_MSG(memcmp(b16[0].out[i], b16[1].out[i], (size_t)n_out[i] * 2) == 0,
                  "output %d differs between 1 and 2 threads", i);
        const uint16_t *g = b16[0].out[i];
        const float *f = b32.out[i];
        int bad = 0;
        for (int64_t e = 0; e < n_out[i]; e++) {
            bool ok;
            differ += g[e] != narrow(dt, f[e]);
            if ((c->cp == CUDNN_DATA_FLOAT && !bf16_products(c)) || isnan(f[e])) {
                ok = g[e] == narrow(dt, f[e]);
            } else {
                double err = fabs((double)widen(dt, g[e]) - f[e]) / (1 + fabs(f[e]));
                worst = err > worst ? err : worst;
                ok = err <= tol_fp32(c);
            }
            bad += !ok;
        }
        CHECK_MSG(bad == 0, "dt %d cp %d: output %d has %d wrong elements", dt, c->cp, i, bad);
    }
    if (c->cp == CUDNN_DATA_HALF || bf16_products(c))
        CHECK_MSG(differ > 0, "HALF compute or BF16 products gave the FP32 results (nothing rounded?)");
    /* The forward output against the float64 reference. */
    fdnn_ref_attn_t ref = {.H = c->H, .scaler = (float)(1.0 / sqrt((double)(c->qP ? c->qP : c->qS))),
                           .one_to_one = c->one_to_one, .biases = c->biases, .qS = c->qS, .kS = c->kS, .vS = c->vS,
                           .qProj = c->qP, .kProj = c->kP, .vProj = c->vP, .oProj = c->oP, .batch = c->batch,
                           .beam = c->beam, .qT = c->qT, .kT = c->kT, .q_len = w.qlen, .k_len = w.klen, .lo = w.lo,
                           .hi = w.hi, .curr = -1};
    strides(c, c->qT, c->beam, ref.q_st);
    strides(c, c->qT, c->beam, ref.o_st);
    strides(c, c->kT, kv_beam, ref.k_st);
    double *in64[NIN];
    for (int i = 0; i < NIN; i++) {
        in64[i] = malloc(8 * (size_t)(n_in[i] + 1));
        for (int64_t e = 0; e < n_in[i]; e++)
            in64[i][e] = ((float *)b32.in[i])[e];
    }
    double *out = calloc((size_t)n_out[OUT] + 1, 8);
    bool *written = calloc((size_t)nq + 1, 1);
    fdnn_ref_attn_forward(&ref, in64[W], in64[Q], in64[R], in64[K], in64[V], out, written);
    double worst_ref = 0;
    int bad = 0;
    for (int64_t row = 0; row < nq; row++)
        for (int64_t e = 0; e < oLen; e++) {
            uint16_t g = ((uint16_t *)b16[0].out[OUT])[row * oLen + e];
            if (!written[row]) {
                bad += g != (c->fill ? narrow(dt, -7.0f) : 0xffff);
                continue;
            }
            double want = out[row * oLen + e], err = fabs(widen(dt, g) - want) / (1 + fabs(want));
            worst_ref = err > worst_ref ? err : worst_ref;
            bad += !(err <= tol_ref(c));
        }
    CHECK_MSG(bad == 0, "dt %d cp %d: %d output elements off the float64 reference (worst %.3g, tol %.3g)", dt, c->cp,
              bad, worst_ref, tol_ref(c));
    if (getenv("FDNN_TEST_VERBOSE"))
        printf("dt %d cp %d math %d: worst vs FP32 %.3g (tol %.3g), vs ref %.3g (tol %.3g)\n", dt, c->cp, c->math,
               worst, tol_fp32(c),
               worst_ref, tol_ref(c));
    for (int i = 0; i < NIN; i++)
        free(in64[i]), fdnn_guarded_free(b32.in[i]), fdnn_guarded_free(b16[0].in[i]);
    for (int i = 0; i < NOUT; i++)
        fdnn_guarded_free(b32.out[i]), fdnn_guarded_free(b16[0].out[i]), fdnn_guarded_free(b16[1].out[i]);
    free(out), free(written), free(w.qlen), free(w.klen);
    free_descs(&d32), free_descs(&d16);
}

static void
test_bad(void)
{
    cudnnAttnDescriptor_t a;
    CHECK_OK(cudnnCreateAttnDescriptor(&a));
    const cudnnDataType_t bad[][2] = {{CUDNN_DATA_BFLOAT16, CUDNN_DATA_HALF},
                                      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
                                      {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},
                                      {CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cudnnStatus_t st = cudnnSetAttnDescriptor(a, 0, 2, 1.0, bad[i][0], bad[i][1], CUDNN_DEFAULT_MATH, NULL, NULL, 8,
                                                  8, 8, 4, 4, 4, 6, 5, 6, 2, 1);
        CHECK_MSG(st == CUDNN_STATUS_BAD_PARAM || st == CUDNN_STATUS_NOT_SUPPORTED,
                  "cudnnSetAttnDescriptor(%d, %d) gave %d", bad[i][0], bad[i][1], st);
    }
    cudnnDestroyAttnDescriptor(a);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    fdnn_rng_seed(&rng, 1617);
    const cudnnDataType_t types[5][2] = {
        {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
        {CUDNN_DATA_HALF, CUDNN_DATA_HALF},
        {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
        {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT}, /* these two with TENSOR_OP math */
        {CUDNN_DATA_HALF, CUDNN_DATA_HALF}};
    const cfg_t shapes[] = {
        /* H qS kS vS qP kP vP oP biases 1:1 tmajor fill batch beam qT kT (residuals need oLen == qS) */
        {4, 16, 16, 16, 4, 4, 4, 16, true, false, false, false, 3, 1, 7, 9, 0, 0, 0},
        {2, 8, 6, 5, 3, 3, 4, 8, true, false, true, true, 2, 3, 5, 6, 0, 0, 0},
        {2, 6, 6, 3, 0, 0, 0, 0, false, true, false, true, 2, 1, 4, 3, 0, 0, 0},
        {2, 6, 6, 4, 0, 0, 3, 6, true, false, true, false, 2, 2, 5, 4, 0, 0, 0},
        /* More than one 64-row block per (sequence, head), and more keys
         * than one column strip: with BF16 products K_h^T, V_h (forward)
         * and V_h^T, K_h (backward) are packed once per task and reused by
         * every block (attn_t.inc, attn_bwd_t.inc). */
        {2, 16, 12, 10, 8, 8, 6, 16, true, false, false, true, 1, 2, 70, 75, 0, 0, 0},
    };
    for (int ty = 0; ty < 5; ty++)
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            cfg_t c = shapes[s];
            c.dt = types[ty][0], c.cp = types[ty][1];
            c.math = ty >= 3 ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH;
            run_case(&c);
        }
    CHECK_OK(freednnSetNumThreads(handle, 1));
    test_bad();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_attn_half");
}
