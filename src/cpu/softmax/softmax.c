/* SPDX-License-Identifier: Apache-2.0
 * Softmax: choosing the walk for the layout, threading, dtype paths.
 * Contract and formulas: softmax.h.
 *
 * Fast paths (FLOAT data, layouts every operand shares):
 *   lanes  CHANNEL mode, spatial dims packed with unit stride (NCHW): vectors
 *          run along the spatial positions, the reduction walks C.  Tasks are
 *          (n, 256 positions).
 *   rows   CHANNEL mode with unit C stride (NHWC), or INSTANCE mode where an
 *          instance is one contiguous block: vectors run along the group.
 *          One task per group.
 * Anything else (other dtypes, mixed or gapped strides) gathers each group
 * into scratch, runs the row kernel (float) or the double code, and
 * scatters; that path runs on one thread. */
#include "cpu/softmax/softmax.h"

#include <math.h>
#include <string.h>

#include "core/fail.h"
#include "cpu/simd/rowio.h"
#include "cpu/config/config.h"

#define MAX_OPS 3
#define LANE_TILE FDNN_SOFTMAX_MAX_LANES

typedef struct sm_job {
    bool backward;
    cudnnSoftmaxMode_t mode;
    cudnnDataType_t dtype;
    fdnn_softmax_f32_params_t p;
    const fdnn_softmax_f32_kernels_t *k;
    double alpha, beta;
    int nops; /* forward: x, y; backward: y, dy, dx (the last one is written) */
    const fdnn_tensor_t *t[MAX_OPS];
    const void *in[MAX_OPS - 1];
    void *out;
    int64_t N, C, S;
    double *scratch; /* generic path: 3 * group length doubles */
} sm_job_t;

/* Offset of spatial position s (0 <= s < S) in tensor t. */
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

/* Dims 1.. of t form one dense block (any order). */
static bool
instance_dense(const fdnn_tensor_t *t)
{
    int idx[CUDNN_DIM_MAX];
    int n = fdnn_tensor_dims_by_stride(t, 1, idx);
    int64_t expect = 1;
    for (int k = 0; k < n; k++) {
        if (t->strides[idx[k]] != expect)
            return false;
        expect *= t->dims[idx[k]];
    }
    return true;
}

static bool
same_strides_from(const sm_job_t *j, int first_dim)
{
    for (int o = 1; o < j->nops; o++)
        for (int i = first_dim; i < j->t[0]->ndim; i++)
            if (j->t[0]->dims[i] > 1 && j->t[o]->strides[i] != j->t[0]->strides[i])
                return false;
    return true;
}

static const float *
cin(const sm_job_t *j, int o, int64_t off)
{
    return (const float *)j->in[o] + off;
}

/* ---- fast paths ------------------------------------------------------------ */

static void
lanes_task(void *ctx, size_t n, size_t k0, size_t count)
{
    const sm_job_t *j = ctx;
    int64_t base[MAX_OPS];
    for (int o = 0; o < j->nops; o++)
        base[o] = (int64_t)n * j->t[o]->strides[0] + (int64_t)k0;
    int64_t rs = j->t[0]->strides[1];
    float *out = (float *)j->out + base[j->nops - 1];
    if (!j->backward)
        j->k->lanes_fwd(&j->p, cin(j, 0, base[0]), out, (size_t)j->C, rs, count);
    else
        j->k->lanes_bwd(&j->p, cin(j, 0, base[0]), cin(j, 1, base[1]), out, (size_t)j->C, rs, count);
}

/* One group per index: CHANNEL (n, s) or INSTANCE n. */
static void
rows_task(void *ctx, size_t g)
{
    const sm_job_t *j = ctx;
    int64_t base[MAX_OPS];
    size_t len;
    if (j->mode == CUDNN_SOFTMAX_MODE_CHANNEL) {
        int64_t n = (int64_t)g / j->S, s = (int64_t)g % j->S;
        for (int o = 0; o < j->nops; o++)
            base[o] = n * j->t[o]->strides[0] + spatial_offset(j->t[o], s);
        len = (size_t)j->C;
    } else {
        for (int o = 0; o < j->nops; o++) {
            /* the block starts at its lowest address: n * sN */
            base[o] = (int64_t)g * j->t[o]->strides[0];
        }
        len = (size_t)(j->C * j->S);
    }
    float *out = (float *)j->out + base[j->nops - 1];
    if (!j->backward)
        j->k->row_fwd(&j->p, cin(j, 0, base[0]), out, len);
    else
        j->k->row_bwd(&j->p, cin(j, 0, base[0]), cin(j, 1, base[1]), out, len);
}

/* ---- generic path ------------------------------------------------------------ */

/* Offset in tensor t of element e of group g. */
static int64_t
element_offset(const sm_job_t *j, const fdnn_tensor_t *t, int64_t g, int64_t e)
{
    if (j->mode == CUDNN_SOFTMAX_MODE_CHANNEL) {
        int64_t n = g / j->S, s = g % j->S;
        return n * t->strides[0] + e * t->strides[1] + spatial_offset(t, s);
    }
    int64_t c = e / j->S, s = e % j->S;
    return g * t->strides[0] + c * t->strides[1] + spatial_offset(t, s);
}

static void
gather(const sm_job_t *j, int o, const void *base, int64_t g, int64_t len, double *dst)
{
    for (int64_t e = 0; e < len; e++)
        fdnn_row_load_f64(j->dtype, base, element_offset(j, j->t[o], g, e), 1, 1, dst + e);
}

static void
scatter(const sm_job_t *j, int64_t g, int64_t len, const double *src)
{
    for (int64_t e = 0; e < len; e++)
        fdnn_row_store_f64(j->dtype, j->out, element_offset(j, j->t[j->nops - 1], g, e), 1, 1, src + e);
}

static void
group_f64(const sm_job_t *j, double *a, double *b, double *o, int64_t len)
{
    bool is_log = j->p.algo == CUDNN_SOFTMAX_LOG;
    if (!j->backward) {
        double m = 0;
        if (j->p.algo != CUDNN_SOFTMAX_FAST) {
            m = -INFINITY;
            for (int64_t i = 0; i < len; i++)
                m = a[i] > m ? a[i] : m;
        }
        double s = 0;
        for (int64_t i = 0; i < len; i++)
            s += exp(a[i] - m);
        for (int64_t i = 0; i < len; i++) {
            double r = is_log ? a[i] - m - log(s) : exp(a[i] - m) / s;
            o[i] = j->beta != 0.0 ? j->alpha * r + j->beta * o[i] : j->alpha * r;
        }
    } else {
        double d = 0;
        for (int64_t i = 0; i < len; i++)
            d += is_log ? b[i] : a[i] * b[i];
        for (int64_t i = 0; i < len; i++) {
            double r = is_log ? b[i] - exp(a[i]) * d : a[i] * (b[i] - d);
            o[i] = j->beta != 0.0 ? j->alpha * r + j->beta * o[i] : j->alpha * r;
        }
    }
}

static void
generic(const sm_job_t *j)
{
    int64_t groups = j->mode == CUDNN_SOFTMAX_MODE_CHANNEL ? j->N * j->S : j->N;
    int64_t len = j->mode == CUDNN_SOFTMAX_MODE_CHANNEL ? j->C : j->C * j->S;
    double *a = j->scratch, *b = a + len, *o = b + len;
    float *fa = (float *)(o + len), *fb = fa + len, *fo = fb + len;
    for (int64_t g = 0; g < groups; g++) {
        gather(j, 0, j->in[0], g, len, a);
        if (j->backward)
            gather(j, 1, j->in[1], g, len, b);
        if (j->beta != 0.0)
            gather(j, j->nops - 1, j->out, g, len, o);
        if (j->dtype == CUDNN_DATA_DOUBLE) {
            group_f64(j, a, b, o, len);
        } else {
            /* float arithmetic, as the fast path does */
            for (int64_t i = 0; i < len; i++) {
                fa[i] = (float)a[i];
                fb[i] = j->backward ? (float)b[i] : 0.0f;
                fo[i] = j->beta != 0.0 ? (float)o[i] : 0.0f;
            }
            if (!j->backward)
                j->k->row_fwd(&j->p, fa, fo, (size_t)len);
            else
                j->k->row_bwd(&j->p, fa, fb, fo, (size_t)len);
            for (int64_t i = 0; i < len; i++)
                o[i] = fo[i];
        }
        scatter(j, g, len, o);
    }
}

/* ---- driver ------------------------------------------------------------------ */

static const fdnn_softmax_f32_kernels_t *
pick(cudnnHandle_t handle)
{
    return fdnn_isa_config(handle->isa)->softmax_f32;
}

/* Below this many elements (about 6 us of work on one core) a softmax runs
 * on the calling thread: handing out the work costs as much (results do not
 * depend on the choice).  Above it the workers are woken; between calls
 * that follow each other within the handle's linger time (core/handle.h)
 * they are still awake, and the hand-out costs about a microsecond. */
#define SERIAL_MAX_ELEMENTS 16384

static fdnn_pool_t
pool_for(cudnnHandle_t handle, const sm_job_t *j)
{
    return (double)j->N * (double)j->C * (double)j->S < SERIAL_MAX_ELEMENTS ? NULL : fdnn_handle_pool(handle);
}

static cudnnStatus_t
run(cudnnHandle_t handle, sm_job_t *j)
{
    const fdnn_tensor_t *t0 = j->t[0];
    j->N = t0->dims[0];
    j->C = t0->ndim > 1 ? t0->dims[1] : 1;
    j->S = 1;
    for (int i = 2; i < t0->ndim; i++)
        j->S *= t0->dims[i];
    j->k = pick(handle);
    if (j->dtype == CUDNN_DATA_FLOAT) {
        if (j->mode == CUDNN_SOFTMAX_MODE_CHANNEL && same_strides_from(j, 1)) {
            bool unit_s = true, unit_c = true;
            for (int o = 0; o < j->nops; o++) {
                unit_s = unit_s && spatial_unit(j->t[o]);
                unit_c = unit_c && (j->t[o]->strides[1] == 1 || j->C == 1);
            }
            if (unit_s && j->S > 1 && !(unit_c && j->S < 16)) {
                fdnn_parallelize_2d_tile_1d(pool_for(handle, j), lanes_task, j, (size_t)j->N, (size_t)j->S,
                                                   LANE_TILE, 0);
                return CUDNN_STATUS_SUCCESS;
            }
            if (unit_c) {
                fdnn_parallelize_1d(pool_for(handle, j), rows_task, j, (size_t)(j->N * j->S), 0);
                return CUDNN_STATUS_SUCCESS;
            }
        }
        if (j->mode == CUDNN_SOFTMAX_MODE_INSTANCE && same_strides_from(j, 1) && instance_dense(t0)) {
            fdnn_parallelize_1d(pool_for(handle, j), rows_task, j, (size_t)j->N, 0);
            return CUDNN_STATUS_SUCCESS;
        }
    }
    int64_t len = j->mode == CUDNN_SOFTMAX_MODE_CHANNEL ? j->C : j->C * j->S;
    j->scratch = fdnn_handle_scratch(handle, (size_t)len * (3 * sizeof(double) + 3 * sizeof(float)));
    if (j->scratch == NULL)
        return FDNN_ALLOC_FAILED("no memory for softmax scratch (%lld elements)", (long long)len);
    generic(j);
    return CUDNN_STATUS_SUCCESS;
}

static void
init_job(sm_job_t *j, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha, double beta,
         cudnnDataType_t dtype)
{
    memset(j, 0, sizeof(*j));
    j->mode = mode;
    j->dtype = dtype;
    j->alpha = alpha;
    j->beta = beta;
    j->p.algo = algo;
    j->p.alpha = (float)alpha;
    j->p.beta = (float)beta;
}

cudnnStatus_t
fdnn_softmax_forward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                     const fdnn_tensor_t *xt, const void *x, double beta, const fdnn_tensor_t *yt, void *y)
{
    sm_job_t j;
    init_job(&j, algo, mode, alpha, beta, xt->dtype);
    j.nops = 2;
    j.t[0] = xt;
    j.t[1] = yt;
    j.in[0] = x;
    j.out = y;
    return run(handle, &j);
}

cudnnStatus_t
fdnn_softmax_backward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                      const fdnn_tensor_t *yt, const void *y, const fdnn_tensor_t *dyt, const void *dy, double beta,
                      const fdnn_tensor_t *dxt, void *dx)
{
    sm_job_t j;
    init_job(&j, algo, mode, alpha, beta, yt->dtype);
    j.backward = true;
    j.nops = 3;
    j.t[0] = yt;
    j.t[1] = dyt;
    j.t[2] = dxt;
    j.in[0] = y;
    j.in[1] = dy;
    j.out = dx;
    return run(handle, &j);
}
