/* SPDX-License-Identifier: Apache-2.0
 * Activation forward/backward: iteration, threading and the dtype paths.
 * Formulas and contract: activation.h.
 *
 * The tensors are walked as rows (eltwise.h).  A row of FLOAT data with unit
 * stride in every operand goes straight to the vector kernel; any other row
 * is processed in blocks of BLOCK elements gathered into float buffers
 * (double buffers and a scalar double kernel for DOUBLE data).  Work is cut
 * into tiles of TILE elements of a row: each output element is written by
 * exactly one tile with the same arithmetic whatever the thread count. */
#include "cpu/activation/activation.h"

#include <math.h>
#include <string.h>

#include "cpu/activation/eltwise.h"
#include "cpu/simd/rowio.h"
#include "cpu/config/config.h"

#define TILE 8192
#define BLOCK 256
/* Outputs of FLOAT data at least this large, written with beta == 0, go
 * out with non-temporal stores: far beyond the L2 caches they would be
 * evicted before anyone reads them, and plain stores read every line in
 * first. */
#define STREAM_MIN_BYTES ((size_t)8 << 20)

typedef struct act_job {
    fdnn_ew_plan_t plan;
    bool backward;
    cudnnDataType_t dtype;
    fdnn_act_f32_params_t p;
    fdnn_activation_t act;
    double alpha, beta;
    fdnn_act_fwd_f32_fn fwd;
    fdnn_act_bwd_f32_fn bwd;
    /* forward: op 0 = x, 1 = y; backward: 0 = x, 1 = y, 2 = dy, 3 = dx */
    const void *in[3];
    void *out;
} act_job_t;

/* ---- double path (DOUBLE tensors) ---------------------------------------- */

static double
fwd_f64(const fdnn_activation_t *a, double x)
{
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case CUDNN_ACTIVATION_TANH: return tanh(x);
    case CUDNN_ACTIVATION_RELU:
        if (isnan(x))
            return a->propagate_nan ? x : 0.0;
        return x > 0.0 ? x : 0.0;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (isnan(x))
            return a->propagate_nan ? x : 0.0;
        return fmin(x > 0.0 ? x : 0.0, a->coef);
    case CUDNN_ACTIVATION_ELU: return x > 0.0 ? x : a->coef * expm1(x);
    case CUDNN_ACTIVATION_SWISH: return x / (1.0 + exp(-a->swish_beta * x));
    case CUDNN_ACTIVATION_IDENTITY: return x;
    }
    return x;
}

static double
bwd_f64(const fdnn_activation_t *a, double x, double y, double dy)
{
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID: return dy * y * (1.0 - y);
    case CUDNN_ACTIVATION_TANH: return dy * (1.0 - y * y);
    case CUDNN_ACTIVATION_RELU:
        if (isnan(x) && a->propagate_nan)
            return x;
        return x > 0.0 ? dy : 0.0;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (isnan(x) && a->propagate_nan)
            return x;
        return x > 0.0 && x < a->coef ? dy : 0.0;
    case CUDNN_ACTIVATION_ELU: return x > 0.0 ? dy : dy * (y + a->coef);
    case CUDNN_ACTIVATION_SWISH: {
        double s = 1.0 / (1.0 + exp(-a->swish_beta * x));
        return dy * s * (1.0 + a->swish_beta * x * (1.0 - s));
    }
    case CUDNN_ACTIVATION_IDENTITY: return dy;
    }
    return dy;
}

static void
run_f64(const act_job_t *j, const int64_t *offs, const int64_t *st, int64_t n)
{
    double xb[BLOCK], yb[BLOCK], db[BLOCK], ob[BLOCK];
    for (int64_t s = 0; s < n; s += BLOCK) {
        int64_t m = n - s < BLOCK ? n - s : BLOCK;
        if (!j->backward) {
            fdnn_row_load_f64(j->dtype, j->in[0], offs[0] + s * st[0], st[0], m, xb);
            if (j->beta != 0.0)
                fdnn_row_load_f64(j->dtype, j->out, offs[1] + s * st[1], st[1], m, ob);
            for (int64_t i = 0; i < m; i++) {
                double r = j->alpha * fwd_f64(&j->act, xb[i]);
                ob[i] = j->beta != 0.0 ? r + j->beta * ob[i] : r;
            }
            fdnn_row_store_f64(j->dtype, j->out, offs[1] + s * st[1], st[1], m, ob);
        } else {
            fdnn_row_load_f64(j->dtype, j->in[0], offs[0] + s * st[0], st[0], m, xb);
            fdnn_row_load_f64(j->dtype, j->in[1], offs[1] + s * st[1], st[1], m, yb);
            fdnn_row_load_f64(j->dtype, j->in[2], offs[2] + s * st[2], st[2], m, db);
            if (j->beta != 0.0)
                fdnn_row_load_f64(j->dtype, j->out, offs[3] + s * st[3], st[3], m, ob);
            for (int64_t i = 0; i < m; i++) {
                double r = j->alpha * bwd_f64(&j->act, xb[i], yb[i], db[i]);
                ob[i] = j->beta != 0.0 ? r + j->beta * ob[i] : r;
            }
            fdnn_row_store_f64(j->dtype, j->out, offs[3] + s * st[3], st[3], m, ob);
        }
    }
}

/* ---- float path ------------------------------------------------------------ */

static void
run_f32(const act_job_t *j, const int64_t *offs, const int64_t *st, int64_t n)
{
    int nops = j->backward ? 4 : 2;
    bool direct = j->dtype == CUDNN_DATA_FLOAT;
    for (int o = 0; o < nops && direct; o++)
        direct = st[o] == 1 || n == 1;
    if (direct) {
        if (!j->backward) {
            j->fwd(&j->p, (const float *)j->in[0] + offs[0], (float *)j->out + offs[1], (size_t)n);
        } else {
            j->bwd(&j->p, (const float *)j->in[0] + offs[0], (const float *)j->in[1] + offs[1],
                   (const float *)j->in[2] + offs[2], (float *)j->out + offs[3], (size_t)n);
        }
        return;
    }
    float xb[BLOCK], yb[BLOCK], db[BLOCK], ob[BLOCK];
    fdnn_act_f32_params_t p = j->p;
    p.stream = 0; /* the results go to a buffer read right after */
    for (int64_t s = 0; s < n; s += BLOCK) {
        int64_t m = n - s < BLOCK ? n - s : BLOCK;
        int oo = nops - 1;
        fdnn_row_load_f32(j->dtype, j->in[0], offs[0] + s * st[0], st[0], m, xb);
        if (j->p.beta != 0.0f)
            fdnn_row_load_f32(j->dtype, j->out, offs[oo] + s * st[oo], st[oo], m, ob);
        if (!j->backward) {
            j->fwd(&p, xb, ob, (size_t)m);
        } else {
            fdnn_row_load_f32(j->dtype, j->in[1], offs[1] + s * st[1], st[1], m, yb);
            fdnn_row_load_f32(j->dtype, j->in[2], offs[2] + s * st[2], st[2], m, db);
            j->bwd(&p, xb, yb, db, ob, (size_t)m);
        }
        fdnn_row_store_f32(j->dtype, j->out, offs[oo] + s * st[oo], st[oo], m, ob);
    }
}

/* pool task: row i, elements [start, start + count) of it. */
static void
act_tile(void *ctx, size_t row, size_t start, size_t count)
{
    const act_job_t *j = ctx;
    int64_t offs[FDNN_EW_MAX_OPS], st[FDNN_EW_MAX_OPS];
    fdnn_ew_row_offsets(&j->plan, (int64_t)row, offs);
    int last = j->plan.ndim - 1;
    for (int o = 0; o < j->plan.nops; o++) {
        st[o] = j->plan.strides[o][last];
        offs[o] += (int64_t)start * st[o];
    }
    if (j->dtype == CUDNN_DATA_DOUBLE)
        run_f64(j, offs, st, (int64_t)count);
    else
        run_f32(j, offs, st, (int64_t)count);
}

static void
pick_kernels(cudnnHandle_t handle, act_job_t *j)
{
    const fdnn_isa_config_t *cfg = fdnn_isa_config(handle->isa);
    j->fwd = cfg->act_fwd_f32;
    j->bwd = cfg->act_bwd_f32;
}

static void
job_common(cudnnHandle_t handle, act_job_t *j, const fdnn_activation_t *act, double alpha, double beta,
           cudnnDataType_t dtype)
{
    j->act = *act;
    j->alpha = alpha;
    j->beta = beta;
    j->dtype = dtype;
    j->p.mode = act->mode;
    j->p.propagate_nan = act->propagate_nan;
    j->p.coef = (float)act->coef;
    j->p.swish_beta = (float)act->swish_beta;
    j->p.alpha = (float)alpha;
    j->p.beta = (float)beta;
    pick_kernels(handle, j);
}

static void
run(cudnnHandle_t handle, act_job_t *j, const fdnn_tensor_t *out)
{
    j->p.stream = j->dtype == CUDNN_DATA_FLOAT && j->beta == 0.0 &&
                  (size_t)fdnn_tensor_elements(out) * sizeof(float) >= STREAM_MIN_BYTES;
    fdnn_parallelize_2d_tile_1d(fdnn_handle_pool(handle), act_tile, j, (size_t)j->plan.rows, (size_t)j->plan.len, TILE,
                                       0);
}

cudnnStatus_t
fdnn_activation_forward(cudnnHandle_t handle, const fdnn_activation_t *act, double alpha, const fdnn_tensor_t *xt,
                        const void *x, double beta, const fdnn_tensor_t *yt, void *y)
{
    act_job_t j;
    memset(&j, 0, sizeof(j));
    const fdnn_tensor_t *ts[2] = {yt, xt};
    fdnn_ew_plan_t p;
    fdnn_ew_plan_init(&p, 2, ts); /* ordered by y, the written operand */
    /* put operands back in the job's order: 0 = x, 1 = y */
    j.plan = p;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        j.plan.strides[0][i] = p.strides[1][i];
        j.plan.strides[1][i] = p.strides[0][i];
    }
    job_common(handle, &j, act, alpha, beta, yt->dtype);
    j.in[0] = x;
    j.out = y;
    run(handle, &j, yt);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_activation_backward(cudnnHandle_t handle, const fdnn_activation_t *act, double alpha, const fdnn_tensor_t *yt,
                         const void *y, const fdnn_tensor_t *dyt, const void *dy, const fdnn_tensor_t *xt,
                         const void *x, double beta, const fdnn_tensor_t *dxt, void *dx)
{
    act_job_t j;
    memset(&j, 0, sizeof(j));
    const fdnn_tensor_t *ts[4] = {dxt, xt, yt, dyt};
    fdnn_ew_plan_t p;
    fdnn_ew_plan_init(&p, 4, ts); /* ordered by dx, the written operand */
    j.plan = p;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        j.plan.strides[0][i] = p.strides[1][i]; /* x */
        j.plan.strides[1][i] = p.strides[2][i]; /* y */
        j.plan.strides[2][i] = p.strides[3][i]; /* dy */
        j.plan.strides[3][i] = p.strides[0][i]; /* dx */
    }
    job_common(handle, &j, act, alpha, beta, dxt->dtype);
    j.backward = true;
    j.in[0] = x;
    j.in[1] = y;
    j.in[2] = dy;
    j.out = dx;
    run(handle, &j, dxt);
    return CUDNN_STATUS_SUCCESS;
}
