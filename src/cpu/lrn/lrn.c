/* SPDX-License-Identifier: Apache-2.0
 * LRN and divisive normalization.  Formulas: lrn.h.  Generic over strides
 * and dtypes: values are read and written one by one through rowio into
 * double scratch owned by the task (per image for LRN; for divisive
 * normalization one plane per task, of a fixed number of tasks). */
#include "cpu/lrn/lrn.h"

#include <math.h>
#include <string.h>

#include "core/fail.h"
#include "cpu/simd/rowio.h"
#include "cpu/config/config.h"

typedef struct lrn_job {
    fdnn_lrn_t lrn;
    double alpha, beta;
    cudnnDataType_t dtype;
    const fdnn_tensor_t *xt, *yt, *dxt; /* yt: y (forward) or dy (LRN backward) */
    const void *x, *means, *dy;
    void *out, *dmeans;
    int64_t S;        /* spatial positions */
    double *scratch;  /* per task: `per_task` doubles */
    int64_t per_task;
} lrn_job_t;

static inline double
get(cudnnDataType_t dt, const void *base, int64_t off)
{
    double v;
    fdnn_row_load_f64(dt, base, off, 1, 1, &v);
    return v;
}

static inline void
blend(const lrn_job_t *j, void *base, int64_t off, double v)
{
    double r = j->alpha * v;
    if (j->beta != 0.0)
        r += j->beta * get(j->dtype, base, off);
    fdnn_row_store_f64(j->dtype, base, off, 1, 1, &r);
}

static int64_t
spatial_offset(const fdnn_tensor_t *t, int64_t s)
{
    int64_t off = 0;
    for (int i = t->ndim - 1; i >= 2; i--) {
        off += (s % t->dims[i]) * t->strides[i];
        s /= t->dims[i];
    }
    return off;
}

/* ---- LRN across channels ---------------------------------------------------- */

static void
lrn_image(void *ctx, size_t n)
{
    const lrn_job_t *j = ctx;
    int64_t C = j->xt->dims[1], lb = (j->lrn.n - 1) / 2, la = j->lrn.n - 1 - lb;
    double *xv = j->scratch + (int64_t)n * j->per_task, *sv = xv + C, *gv = sv + C, *tv = gv + C;
    double a_n = j->lrn.alpha / j->lrn.n;
    bool backward = j->dy != NULL;
    for (int64_t s = 0; s < j->S; s++) {
        int64_t xb = (int64_t)n * j->xt->strides[0] + spatial_offset(j->xt, s);
        for (int64_t c = 0; c < C; c++)
            xv[c] = get(j->dtype, j->x, xb + c * j->xt->strides[1]);
        for (int64_t c = 0; c < C; c++) {
            double sum = 0;
            for (int64_t q = c - lb < 0 ? 0 : c - lb; q <= c + la && q < C; q++)
                sum += xv[q] * xv[q];
            sv[c] = j->lrn.k + a_n * sum;
        }
        const fdnn_tensor_t *ot = backward ? j->dxt : j->yt;
        int64_t ob = (int64_t)n * ot->strides[0] + spatial_offset(ot, s);
        if (!backward) {
            for (int64_t c = 0; c < C; c++)
                blend(j, j->out, ob + c * ot->strides[1], xv[c] * pow(sv[c], -j->lrn.beta));
            continue;
        }
        int64_t gb = (int64_t)n * j->yt->strides[0] + spatial_offset(j->yt, s);
        for (int64_t c = 0; c < C; c++) {
            gv[c] = get(j->dtype, j->dy, gb + c * j->yt->strides[1]);
            tv[c] = gv[c] * xv[c] * pow(sv[c], -j->lrn.beta - 1.0);
        }
        for (int64_t c = 0; c < C; c++) {
            double sum = 0; /* over i with c in W(i): i in [c - la, c + lb] */
            for (int64_t i = c - la < 0 ? 0 : c - la; i <= c + lb && i < C; i++)
                sum += tv[i];
            double g = gv[c] * pow(sv[c], -j->lrn.beta) - 2.0 * a_n * j->lrn.beta * xv[c] * sum;
            blend(j, j->out, ob + c * ot->strides[1], g);
        }
    }
}

/* ---- f32 vector path ---------------------------------------------------- */

#define LANE_TILE 256

typedef struct lrn_vec_job {
    const lrn_job_t *j;
    const fdnn_lrn_f32_kernels_t *k;
    fdnn_lrn_f32_params_t p;
} lrn_vec_job_t;

static void
lrn_vec_task(void *ctx, size_t n, size_t k0, size_t count)
{
    const lrn_vec_job_t *v = ctx;
    const lrn_job_t *j = v->j;
    int64_t C = j->xt->dims[1], cs = j->xt->strides[1];
    int64_t off = (int64_t)n * j->xt->strides[0] + (int64_t)k0; /* every operand has x's strides */
    const float *x = (const float *)j->x + off;
    float *out = (float *)j->out + off;
    if (j->dy == NULL)
        v->k->fwd(&v->p, x, out, C, cs, (int64_t)count);
    else
        v->k->bwd(&v->p, x, (const float *)j->dy + off, out, C, cs, (int64_t)count);
}

/* Spatial dims packed row-major with unit innermost stride. */
static bool
spatial_unit(const fdnn_tensor_t *t)
{
    int64_t expect = 1;
    for (int i = t->ndim - 1; i >= 2; i--) {
        if (t->dims[i] == 1)
            continue;
        if (t->strides[i] != expect)
            return false;
        expect *= t->dims[i];
    }
    return true;
}

static bool
lrn_vec(cudnnHandle_t handle, const lrn_job_t *j)
{
    if (j->dtype != CUDNN_DATA_FLOAT || !spatial_unit(j->xt) || j->S < 2)
        return false;
    if (j->dy != NULL && j->xt->dims[1] > FDNN_LRN_F32_MAX_C)
        return false;
    lrn_vec_job_t v = {.j = j};
    v.k = fdnn_isa_config(handle->isa)->lrn_f32;
    v.p.a_n = (float)(j->lrn.alpha / j->lrn.n);
    v.p.beta = (float)j->lrn.beta;
    v.p.k = (float)j->lrn.k;
    v.p.lb = (j->lrn.n - 1) / 2;
    v.p.la = j->lrn.n - 1 - v.p.lb;
    v.p.alpha_s = (float)j->alpha;
    v.p.beta_s = (float)j->beta;
    fdnn_parallelize_2d_tile_1d(fdnn_handle_pool(handle), lrn_vec_task, &v, (size_t)j->xt->dims[0], (size_t)j->S,
                                       LANE_TILE, 0);
    return true;
}

static cudnnStatus_t
lrn_run(cudnnHandle_t handle, lrn_job_t *j)
{
    j->S = 1;
    for (int i = 2; i < j->xt->ndim; i++)
        j->S *= j->xt->dims[i];
    if (lrn_vec(handle, j))
        return CUDNN_STATUS_SUCCESS;
    j->per_task = 4 * j->xt->dims[1];
    size_t bytes = (size_t)(j->xt->dims[0] * j->per_task) * sizeof(double);
    j->scratch = fdnn_handle_scratch(handle, bytes);
    if (j->scratch == NULL)
        return FDNN_ALLOC_FAILED("no memory for LRN scratch (%zu bytes)", bytes);
    fdnn_parallelize_1d(fdnn_handle_pool(handle), lrn_image, j, (size_t)j->xt->dims[0], 0);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_lrn_forward(cudnnHandle_t handle, const fdnn_lrn_t *lrn, double alpha, const fdnn_tensor_t *xt, const void *x,
                 double beta, const fdnn_tensor_t *yt, void *y)
{
    lrn_job_t j = {.lrn = *lrn, .alpha = alpha, .beta = beta, .dtype = xt->dtype, .xt = xt, .yt = yt, .x = x,
                   .out = y};
    return lrn_run(handle, &j);
}

cudnnStatus_t
fdnn_lrn_backward(cudnnHandle_t handle, const fdnn_lrn_t *lrn, double alpha, const fdnn_tensor_t *dyt, const void *dy,
                  const fdnn_tensor_t *xt, const void *x, double beta, const fdnn_tensor_t *dxt, void *dx)
{
    lrn_job_t j = {.lrn = *lrn, .alpha = alpha, .beta = beta, .dtype = xt->dtype, .xt = xt, .yt = dyt, .dxt = dxt,
                   .x = x, .dy = dy, .out = dx};
    return lrn_run(handle, &j);
}

/* ---- divisive normalization ------------------------------------------------ */

/* A fixed number of tasks, each owning one plane of scratch, so scratch stays
 * small and the split does not depend on the thread count. */
#define DN_TASKS 64

/* Spatial dims as (D, H, W) with leading 1s. */
static void
spatial3(const fdnn_tensor_t *t, int64_t *dims, int64_t *strides)
{
    int nsp = t->ndim - 2;
    for (int i = 0; i < 3; i++) {
        int d = i - (3 - nsp);
        dims[i] = d >= 0 ? t->dims[2 + d] : 1;
        strides[i] = d >= 0 ? t->strides[2 + d] : 0;
    }
}

static void
divnorm_one(const lrn_job_t *j, int64_t plane, double *xv);

/* Task t of DN_TASKS: planes [t * P / T, (t + 1) * P / T) with scratch slot t. */
static void
divnorm_task(void *ctx, size_t t)
{
    const lrn_job_t *j = ctx;
    int64_t planes = j->xt->dims[0] * j->xt->dims[1], tasks = planes < DN_TASKS ? planes : DN_TASKS;
    for (int64_t pl = (int64_t)t * planes / tasks; pl < ((int64_t)t + 1) * planes / tasks; pl++)
        divnorm_one(j, pl, j->scratch + (int64_t)t * j->per_task);
}

static void
divnorm_one(const lrn_job_t *j, int64_t plane, double *xv)
{
    int64_t C = j->xt->dims[1], n = plane / C, c = plane % C;
    int64_t dims[3], xs[3], os[3];
    spatial3(j->xt, dims, xs);
    const fdnn_tensor_t *ot = j->dy != NULL ? j->dxt : j->yt;
    spatial3(ot, dims, os);
    int64_t P = dims[0] * dims[1] * dims[2];
    double *uv = xv + P, *sv = uv + P, *tv = sv + P;
    int lb = (j->lrn.n - 1) / 2, la = j->lrn.n - 1 - lb;
    int nsp = j->xt->ndim - 2;
    double a_n = j->lrn.alpha / pow((double)j->lrn.n, nsp);
    int64_t xb = n * j->xt->strides[0] + c * j->xt->strides[1];
    for (int64_t p = 0; p < P; p++) {
        int64_t d = p / (dims[1] * dims[2]), h = (p / dims[2]) % dims[1], w = p % dims[2];
        int64_t off = xb + d * xs[0] + h * xs[1] + w * xs[2];
        xv[p] = get(j->dtype, j->x, off);
        uv[p] = xv[p] - (j->means != NULL ? get(j->dtype, j->means, off) : 0.0);
    }
    /* s over the box [p - lb, p + la] per dim (dims of extent 1 see one
     * element whatever n is) */
    for (int64_t p = 0; p < P; p++) {
        int64_t d = p / (dims[1] * dims[2]), h = (p / dims[2]) % dims[1], w = p % dims[2];
        int64_t o[3] = {d, h, w};
        int64_t lo[3], hi[3];
        for (int i = 0; i < 3; i++) {
            lo[i] = o[i] - lb < 0 ? 0 : o[i] - lb;
            hi[i] = o[i] + la + 1 > dims[i] ? dims[i] : o[i] + la + 1;
        }
        double sum = 0;
        for (int64_t a = lo[0]; a < hi[0]; a++)
            for (int64_t b = lo[1]; b < hi[1]; b++)
                for (int64_t e = lo[2]; e < hi[2]; e++) {
                    double u = uv[(a * dims[1] + b) * dims[2] + e];
                    sum += u * u;
                }
        sv[p] = j->lrn.k + a_n * sum;
    }
    int64_t ob = n * ot->strides[0] + c * ot->strides[1];
    if (j->dy == NULL) {
        for (int64_t p = 0; p < P; p++) {
            int64_t d = p / (dims[1] * dims[2]), h = (p / dims[2]) % dims[1], w = p % dims[2];
            blend(j, j->out, ob + d * os[0] + h * os[1] + w * os[2], xv[p] * pow(sv[p], -j->lrn.beta));
        }
        return;
    }
    /* backward: dy has x's layout (xt) */
    for (int64_t p = 0; p < P; p++) {
        int64_t d = p / (dims[1] * dims[2]), h = (p / dims[2]) % dims[1], w = p % dims[2];
        double g = get(j->dtype, j->dy, xb + d * xs[0] + h * xs[1] + w * xs[2]);
        tv[p] = g * xv[p] * pow(sv[p], -j->lrn.beta - 1.0);
        xv[p] = g * pow(sv[p], -j->lrn.beta); /* xv now holds the direct term */
    }
    for (int64_t q = 0; q < P; q++) {
        int64_t d = q / (dims[1] * dims[2]), h = (q / dims[2]) % dims[1], w = q % dims[2];
        int64_t o[3] = {d, h, w};
        int64_t lo[3], hi[3];
        for (int i = 0; i < 3; i++) { /* p with q in W(p): p in [q - la, q + lb] */
            lo[i] = o[i] - la < 0 ? 0 : o[i] - la;
            hi[i] = o[i] + lb + 1 > dims[i] ? dims[i] : o[i] + lb + 1;
        }
        double sum = 0;
        for (int64_t a = lo[0]; a < hi[0]; a++)
            for (int64_t b = lo[1]; b < hi[1]; b++)
                for (int64_t e = lo[2]; e < hi[2]; e++)
                    sum += tv[(a * dims[1] + b) * dims[2] + e];
        double cross = 2.0 * a_n * j->lrn.beta * uv[q] * sum;
        int64_t off = ob + d * os[0] + h * os[1] + w * os[2];
        blend(j, j->out, off, xv[q] - cross);
        if (j->dmeans != NULL)
            blend(j, j->dmeans, off, cross);
    }
}

static cudnnStatus_t
divnorm_run(cudnnHandle_t handle, lrn_job_t *j)
{
    int64_t P = 1;
    for (int i = 2; i < j->xt->ndim; i++)
        P *= j->xt->dims[i];
    j->per_task = 4 * P;
    int64_t planes = j->xt->dims[0] * j->xt->dims[1], tasks = planes < DN_TASKS ? planes : DN_TASKS;
    size_t bytes = (size_t)(tasks * j->per_task) * sizeof(double);
    j->scratch = fdnn_handle_scratch(handle, bytes);
    if (j->scratch == NULL)
        return FDNN_ALLOC_FAILED("no memory for divisive normalization scratch (%zu bytes)", bytes);
    fdnn_parallelize_1d(fdnn_handle_pool(handle), divnorm_task, j, (size_t)tasks, 0);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_divnorm_forward(cudnnHandle_t handle, const fdnn_lrn_t *lrn, double alpha, const fdnn_tensor_t *xt,
                     const void *x, const void *means, double beta, const fdnn_tensor_t *yt, void *y)
{
    lrn_job_t j = {.lrn = *lrn, .alpha = alpha, .beta = beta, .dtype = xt->dtype, .xt = xt, .yt = yt, .x = x,
                   .means = means, .out = y};
    return divnorm_run(handle, &j);
}

cudnnStatus_t
fdnn_divnorm_backward(cudnnHandle_t handle, const fdnn_lrn_t *lrn, double alpha, const fdnn_tensor_t *xt,
                      const void *x, const void *means, const void *dy, double beta, const fdnn_tensor_t *dxt,
                      void *dx, void *dmeans)
{
    lrn_job_t j = {.lrn = *lrn, .alpha = alpha, .beta = beta, .dtype = xt->dtype, .xt = xt, .dxt = dxt, .x = x,
                   .means = means, .dy = dy, .out = dx, .dmeans = dmeans};
    return divnorm_run(handle, &j);
}
