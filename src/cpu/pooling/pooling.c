/* SPDX-License-Identifier: Apache-2.0
 * Pooling: problem setup, the generic path (any dtype, any strides) and the
 * choice of the vector kernels.  Semantics: pooling.h.
 *
 * Generic path: one task per (n, c) plane, values read and written one by
 * one through rowio (double arithmetic).  Backward runs a fixed number of
 * tasks, each accumulating its planes one after the other in a dense double
 * scratch plane it owns, then writing dx = alpha * acc + beta * dx.
 * Fast paths (FLOAT), the per-ISA kernels of pool_f32.inc:
 *   global average (the window is the whole input, no padding; kernels in
 *     pool_global_f32.inc): NCHW-like planes in fixed runs of planes, or
 *     channels last in (n, channel block) tasks; every output by one task;
 *   channels last (C stride 1 in every operand, 2 or more channels): tasks
 *     over output rows (forward); backward in a fixed number of tasks over
 *     (n, block of 64 channels) pairs, each with its scratch block;
 *   NCHW-like (W stride 1): tasks over (n, c) planes (forward), or a fixed
 *     number of tasks each owning one scratch plane (backward).
 * Which one runs is data: the ordered lists fwd_impls / bwd_impls at the
 * end, each entry with an applicability check that records why it declines
 * (fdnn_fail; printed with FREEDNN_LOG=1); the generic path takes all. */
#include "cpu/pooling/pooling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fail.h"
#include "cpu/simd/rowio.h"
#include "cpu/config/config.h"

#define CL_BLOCK 64
/* Forward outputs of FLOAT data at least this large (beta == 0) are
 * written with non-temporal stores: far beyond the L2 caches, a plain
 * store would read every line in only to evict it. */
#define STREAM_MIN_BYTES ((size_t)8 << 20)

void
fdnn_pool_problem_init(fdnn_pool_problem_t *p, const fdnn_pooling_t *pool, const fdnn_tensor_t *xt,
                       const fdnn_tensor_t *yt)
{
    memset(p, 0, sizeof(*p));
    p->mode = pool->mode;
    p->propagate_nan = pool->propagate_nan;
    p->is_max = pool->mode == CUDNN_POOLING_MAX || pool->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
    p->N = xt->dims[0];
    p->C = xt->dims[1];
    p->xs[0] = xt->strides[0];
    p->xs[1] = xt->strides[1];
    p->ys[0] = yt->strides[0];
    p->ys[1] = yt->strides[1];
    int nsp = pool->nsp;
    for (int i = 0; i < 3; i++) {
        int d = i - (3 - nsp); /* descriptor / tensor spatial index, < 0 for padded dims */
        p->in[i] = d >= 0 ? xt->dims[2 + d] : 1;
        p->out[i] = d >= 0 ? yt->dims[2 + d] : 1;
        p->k[i] = d >= 0 ? pool->window[d] : 1;
        p->pad[i] = d >= 0 ? pool->padding[d] : 0;
        p->str[i] = d >= 0 ? pool->stride[d] : 1;
        p->xs[2 + i] = d >= 0 ? xt->strides[2 + d] : 0;
        p->ys[2 + i] = d >= 0 ? yt->strides[2 + d] : 0;
    }
    memcpy(p->dxs, p->xs, sizeof(p->xs));
}

/* Window of output o along dim i, clipped: [*lo, *hi). */
static inline void
window(const fdnn_pool_problem_t *p, int i, int64_t o, int64_t *lo, int64_t *hi)
{
    int64_t s = o * p->str[i] - p->pad[i];
    int64_t e = s + p->k[i];
    *lo = s < 0 ? 0 : s;
    *hi = e > p->in[i] ? p->in[i] : e;
}

typedef struct pool_job {
    const fdnn_pool_problem_t *p;
    cudnnDataType_t dtype;
    double alpha, beta;
    float alpha_f, beta_f;
    const void *x, *dy;
    void *y;
    double *acc;  /* generic backward: one plane per (n, c) */
    float *accf;  /* fast backward: one block per task */
    bool force_scratch; /* channels-last backward: do not sum in dx */
    const fdnn_pool_f32_kernels_t *k;
    bool backward;
    /* backward: dx shares no memory with x, and none with dy */
    bool dx_apart_x, dx_apart_dy;
} pool_job_t;

static inline double
get(cudnnDataType_t dt, const void *base, int64_t off)
{
    double v;
    fdnn_row_load_f64(dt, base, off, 1, 1, &v);
    return v;
}

static inline void
put(cudnnDataType_t dt, void *base, int64_t off, double v)
{
    fdnn_row_store_f64(dt, base, off, 1, 1, &v);
}

/* Pools one window of plane (x + base): result, and for MAX the argmax
 * offset (-1 when none). */
static double
pool_window(const pool_job_t *j, int64_t base, const int64_t *o, int64_t *arg)
{
    const fdnn_pool_problem_t *p = j->p;
    int64_t lo[3], hi[3];
    for (int i = 0; i < 3; i++)
        window(p, i, o[i], &lo[i], &hi[i]);
    double r = p->is_max ? -INFINITY : 0.0;
    int64_t best = -1, count = 0;
    bool seen_nan = false;
    for (int64_t d = lo[0]; d < hi[0]; d++)
        for (int64_t h = lo[1]; h < hi[1]; h++)
            for (int64_t w = lo[2]; w < hi[2]; w++) {
                int64_t off = base + d * p->xs[2] + h * p->xs[3] + w * p->xs[4];
                double v = get(j->dtype, j->x, off);
                count++;
                if (!p->is_max) {
                    r += v;
                } else if (isnan(v)) {
                    if (p->propagate_nan && !seen_nan) {
                        seen_nan = true;
                        r = v;
                        best = off;
                    }
                } else if (!seen_nan && (v > r || best < 0)) {
                    r = v;
                    best = off;
                }
            }
    if (arg != NULL)
        *arg = best;
    if (p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING)
        r /= (double)p->k[0] * p->k[1] * p->k[2];
    else if (p->mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING)
        r /= (double)count;
    return r;
}

static void
generic_fwd_plane(void *ctx, size_t plane)
{
    const pool_job_t *j = ctx;
    const fdnn_pool_problem_t *p = j->p;
    int64_t n = (int64_t)plane / p->C, c = (int64_t)plane % p->C;
    int64_t xb = n * p->xs[0] + c * p->xs[1], yb = n * p->ys[0] + c * p->ys[1];
    int64_t o[3];
    for (o[0] = 0; o[0] < p->out[0]; o[0]++)
        for (o[1] = 0; o[1] < p->out[1]; o[1]++)
            for (o[2] = 0; o[2] < p->out[2]; o[2]++) {
                double r = j->alpha * pool_window(j, xb, o, NULL);
                int64_t yo = yb + o[0] * p->ys[2] + o[1] * p->ys[3] + o[2] * p->ys[4];
                if (j->beta != 0.0)
                    r += j->beta * get(j->dtype, j->y, yo);
                put(j->dtype, j->y, yo, r);
            }
}

static void
generic_bwd_plane(const pool_job_t *j, int64_t plane, double *acc)
{
    const fdnn_pool_problem_t *p = j->p;
    int64_t n = plane / p->C, c = plane % p->C;
    int64_t xb = n * p->xs[0] + c * p->xs[1], yb = n * p->ys[0] + c * p->ys[1];
    int64_t plane_size = p->in[0] * p->in[1] * p->in[2];
    for (int64_t i = 0; i < plane_size; i++)
        acc[i] = 0.0;
    double vol = (double)p->k[0] * p->k[1] * p->k[2];
    int64_t o[3];
    for (o[0] = 0; o[0] < p->out[0]; o[0]++)
        for (o[1] = 0; o[1] < p->out[1]; o[1]++)
            for (o[2] = 0; o[2] < p->out[2]; o[2]++) {
                double g = get(j->dtype, j->dy, yb + o[0] * p->ys[2] + o[1] * p->ys[3] + o[2] * p->ys[4]);
                int64_t lo[3], hi[3];
                for (int i = 0; i < 3; i++)
                    window(p, i, o[i], &lo[i], &hi[i]);
                if (p->is_max) {
                    int64_t arg;
                    pool_window(j, xb, o, &arg);
                    if (arg < 0)
                        continue;
                    /* back from the x offset to the plane position */
                    for (int64_t d = lo[0]; d < hi[0]; d++)
                        for (int64_t h = lo[1]; h < hi[1]; h++)
                            for (int64_t w = lo[2]; w < hi[2]; w++)
                                if (xb + d * p->xs[2] + h * p->xs[3] + w * p->xs[4] == arg) {
                                    acc[(d * p->in[1] + h) * p->in[2] + w] += g;
                                    d = hi[0], h = hi[1], w = hi[2]; /* done */
                                }
                    continue;
                }
                double share = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                   ? g / vol
                                   : g / (double)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
                for (int64_t d = lo[0]; d < hi[0]; d++)
                    for (int64_t h = lo[1]; h < hi[1]; h++)
                        for (int64_t w = lo[2]; w < hi[2]; w++)
                            acc[(d * p->in[1] + h) * p->in[2] + w] += share;
            }
    int64_t db = n * p->dxs[0] + c * p->dxs[1];
    for (int64_t d = 0; d < p->in[0]; d++)
        for (int64_t h = 0; h < p->in[1]; h++)
            for (int64_t w = 0; w < p->in[2]; w++) {
                int64_t off = db + d * p->dxs[2] + h * p->dxs[3] + w * p->dxs[4];
                double r = j->alpha * acc[(d * p->in[1] + h) * p->in[2] + w];
                if (j->beta != 0.0)
                    r += j->beta * get(j->dtype, j->y, off);
                put(j->dtype, j->y, off, r);
            }
}

/* Task t of a fixed count: planes [t * P / T, (t + 1) * P / T), scratch slot t. */
#define PLANE_TASKS 64

static void
generic_bwd_task(void *ctx, size_t t)
{
    const pool_job_t *j = ctx;
    const fdnn_pool_problem_t *p = j->p;
    int64_t planes = p->N * p->C, tasks = planes < PLANE_TASKS ? planes : PLANE_TASKS;
    double *acc = j->acc + (int64_t)t * p->in[0] * p->in[1] * p->in[2];
    for (int64_t pl = (int64_t)t * planes / tasks; pl < ((int64_t)t + 1) * planes / tasks; pl++)
        generic_bwd_plane(j, pl, acc);
}

/* ---- fast channels-last path --------------------------------------------- */

static const fdnn_pool_f32_kernels_t *
pick(cudnnHandle_t handle)
{
    return fdnn_isa_config(handle->isa)->pool_f32;
}

static bool
channels_last(const fdnn_pool_problem_t *p, cudnnDataType_t dt, bool backward)
{
    return dt == CUDNN_DATA_FLOAT && p->C >= 2 && p->xs[1] == 1 && p->ys[1] == 1 && (!backward || p->dxs[1] == 1);
}

static void
cl_fwd_row(void *ctx, size_t row)
{
    const pool_job_t *j = ctx;
    const fdnn_pool_problem_t *p = j->p;
    int64_t oh = (int64_t)row % p->out[1], od = ((int64_t)row / p->out[1]) % p->out[0];
    int64_t n = (int64_t)row / (p->out[1] * p->out[0]);
    j->k->fwd_cl(p, j->x, j->y, n, od, oh, j->alpha_f, j->beta_f);
}

/* Channels-last backward: a fixed number of tasks (CL_TASKS, or fewer
 * (n, channel block) pairs), each owning one scratch block, takes pairs
 * [t * P / T, (t + 1) * P / T). */
#define CL_TASKS 16

static void
cl_bwd_task(void *ctx, size_t t)
{
    const pool_job_t *j = ctx;
    const fdnn_pool_problem_t *p = j->p;
    int64_t nblk = (p->C + CL_BLOCK - 1) / CL_BLOCK, pairs = p->N * nblk;
    int64_t tasks = pairs < CL_TASKS ? pairs : CL_TASKS;
    int64_t vol = p->in[0] * p->in[1] * p->in[2];
    /* beta == 0: the kernel sums in dx and needs no scratch */
    float *acc = j->accf != NULL ? j->accf + (int64_t)t * vol * CL_BLOCK : NULL;
    for (int64_t q = (int64_t)t * pairs / tasks; q < ((int64_t)t + 1) * pairs / tasks; q++) {
        int64_t n = q / nblk, c0 = (q % nblk) * CL_BLOCK;
        int64_t nc = p->C - c0 < CL_BLOCK ? p->C - c0 : CL_BLOCK;
        j->k->bwd_cl(p, j->dy, j->x, j->y, acc, n, c0, nc, j->alpha_f, j->beta_f, j->force_scratch);
    }
}

/* The same pairs by rows (D = 1): each task owns a ring of k[1] rows of
 * W * CL_BLOCK floats. */
static void
cl_rows_bwd_task(void *ctx, size_t t)
{
    const pool_job_t *j = ctx;
    const fdnn_pool_problem_t *p = j->p;
    int64_t nblk = (p->C + CL_BLOCK - 1) / CL_BLOCK, pairs = p->N * nblk;
    int64_t tasks = pairs < CL_TASKS ? pairs : CL_TASKS;
    float *ring = j->accf + (int64_t)t * p->k[1] * p->in[2] * CL_BLOCK;
    for (int64_t q = (int64_t)t * pairs / tasks; q < ((int64_t)t + 1) * pairs / tasks; q++) {
        int64_t n = q / nblk, c0 = (q % nblk) * CL_BLOCK;
        int64_t nc = p->C - c0 < CL_BLOCK ? p->C - c0 : CL_BLOCK;
        j->k->bwd_cl_rows(p, j->dy, j->x, j->y, ring, n, c0, nc, j->alpha_f, j->beta_f);
    }
}

/* NCHW-like: FLOAT with unit W stride (and the D, H, W dims real). */
static bool
rows_unit(const fdnn_pool_problem_t *p, cudnnDataType_t dt, bool backward)
{
    return dt == CUDNN_DATA_FLOAT && (p->xs[4] == 1 || p->in[2] == 1) && (p->ys[4] == 1 || p->out[2] == 1) &&
           (!backward || p->dxs[4] == 1 || p->in[2] == 1);
}

static void
nchw_fwd_plane(void *ctx, size_t plane)
{
    const pool_job_t *j = ctx;
    j->k->fwd_nchw(j->p, j->x, j->y, (int64_t)plane / j->p->C, (int64_t)plane % j->p->C, j->alpha_f, j->beta_f);
}

/* Backward tasks: a fixed number (NCHW_TASKS, or fewer planes) so each task
 * owns one scratch plane; task t takes planes [t * P / T, (t + 1) * P / T). */
#define NCHW_TASKS PLANE_TASKS

static void
nchw_bwd_task(void *ctx, size_t t)
{
    const pool_job_t *j = ctx;
    const fdnn_pool_problem_t *p = j->p;
    int64_t planes = p->N * p->C, tasks = planes < NCHW_TASKS ? planes : NCHW_TASKS;
    int64_t vol = p->in[0] * p->in[1] * p->in[2];
    float *acc = j->accf + (int64_t)t * vol;
    for (int64_t pl = (int64_t)t * planes / tasks; pl < ((int64_t)t + 1) * planes / tasks; pl++)
        j->k->bwd_nchw(p, j->dy, j->x, j->y, acc, pl / p->C, pl % p->C, j->alpha_f, j->beta_f);
}

/* ---- global average pooling ---------------------------------------------- */

/* NCHW-like planes per task (fixed: the split never depends on the threads;
 * 256 planes of 7x7 are 50 KiB of x). */
#define GAP_PLANES 256
/* Channels per channels-last task (at most the kernels' GAP_CL_MAX, 2048):
 * runs of 8 KiB of each position, the whole row of ResNet-50's 2048. */
#define GAP_CL_CHANNELS 2048

static cudnnStatus_t
gap_applicable(const pool_job_t *j)
{
    const fdnn_pool_problem_t *p = j->p;
    if (j->dtype != CUDNN_DATA_FLOAT)
        return FDNN_NOT_SUPPORTED("global average: %s data, not FLOAT", fdnn_dtype_name(j->dtype));
    if (p->is_max)
        return FDNN_NOT_SUPPORTED("global average: a maximum pooling");
    for (int i = 0; i < 3; i++)
        if (p->k[i] != p->in[i] || p->pad[i] != 0 || p->out[i] != 1)
            return FDNN_NOT_SUPPORTED("global average: dim %d has window %d over %lld inputs, padding %d", i,
                                      p->k[i], (long long)p->in[i], p->pad[i]);
    if (j->backward && !j->dx_apart_dy)
        return FDNN_NOT_SUPPORTED("global average: dx overlaps dy");
    return CUDNN_STATUS_SUCCESS;
}

/* Whether the D*H*W elements of each plane are contiguous with strides s. */
static bool
plane_dense(const fdnn_pool_problem_t *p, const int64_t *s)
{
    return (p->in[2] == 1 || s[4] == 1) && (p->in[1] == 1 || s[3] == p->in[2]) &&
           (p->in[0] == 1 || s[2] == p->in[1] * p->in[2]);
}

static cudnnStatus_t
gap_nchw_applicable(const pool_job_t *j)
{
    RETURN_IF_ERROR(gap_applicable(j));
    if (!plane_dense(j->p, j->backward ? j->p->dxs : j->p->xs))
        return FDNN_NOT_SUPPORTED("global average NCHW: the planes are not contiguous");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
gap_cl_applicable(const pool_job_t *j)
{
    RETURN_IF_ERROR(gap_applicable(j));
    const fdnn_pool_problem_t *p = j->p;
    /* the operands read and written: x and y, or dy and dx */
    const int64_t in_c = j->backward ? p->ys[1] : p->xs[1], out_c = j->backward ? p->dxs[1] : p->ys[1];
    if (p->C < 2 || in_c != 1 || out_c != 1)
        return FDNN_NOT_SUPPORTED("global average channels last: C is %lld with C strides %lld and %lld",
                                  (long long)p->C, (long long)in_c, (long long)out_c);
    return CUDNN_STATUS_SUCCESS;
}

static void
gap_nchw_task(void *ctx, size_t t)
{
    const pool_job_t *j = ctx;
    const fdnn_pool_problem_t *p = j->p;
    int64_t planes = p->N * p->C, q0 = (int64_t)t * GAP_PLANES;
    int64_t q1 = q0 + GAP_PLANES < planes ? q0 + GAP_PLANES : planes;
    if (j->backward)
        j->k->gap_bwd_nchw(p, j->dy, j->y, q0, q1, j->alpha_f, j->beta_f);
    else
        j->k->gap_fwd_nchw(p, j->x, j->y, q0, q1, j->alpha_f, j->beta_f);
}

static cudnnStatus_t
gap_nchw_run(cudnnHandle_t handle, pool_job_t *j)
{
    size_t tasks = (size_t)((j->p->N * j->p->C + GAP_PLANES - 1) / GAP_PLANES);
    fdnn_parallelize_1d(fdnn_handle_pool(handle), gap_nchw_task, j, tasks, 0);
    return CUDNN_STATUS_SUCCESS;
}

static void
gap_cl_task(void *ctx, size_t t)
{
    const pool_job_t *j = ctx;
    const fdnn_pool_problem_t *p = j->p;
    int64_t nblk = (p->C + GAP_CL_CHANNELS - 1) / GAP_CL_CHANNELS;
    int64_t n = (int64_t)t / nblk, c0 = ((int64_t)t % nblk) * GAP_CL_CHANNELS;
    int64_t c1 = c0 + GAP_CL_CHANNELS < p->C ? c0 + GAP_CL_CHANNELS : p->C;
    if (j->backward)
        j->k->gap_bwd_cl(p, j->dy, j->y, n, c0, c1, j->alpha_f, j->beta_f);
    else
        j->k->gap_fwd_cl(p, j->x, j->y, n, c0, c1, j->alpha_f, j->beta_f);
}

static cudnnStatus_t
gap_cl_run(cudnnHandle_t handle, pool_job_t *j)
{
    size_t tasks = (size_t)(j->p->N * ((j->p->C + GAP_CL_CHANNELS - 1) / GAP_CL_CHANNELS));
    fdnn_parallelize_1d(fdnn_handle_pool(handle), gap_cl_task, j, tasks, 0);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the row and plane paths as list entries ------------------------------ */

static cudnnStatus_t
cl_applicable(const pool_job_t *j)
{
    if (!channels_last(j->p, j->dtype, j->backward))
        return FDNN_NOT_SUPPORTED("channels last: needs FLOAT, C >= 2 and C stride 1 in every operand");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
cl_rows_applicable(const pool_job_t *j)
{
    RETURN_IF_ERROR(cl_applicable(j));
    if (j->p->in[0] != 1)
        return FDNN_NOT_SUPPORTED("channels last by rows: 3-D pooling (D = %lld)", (long long)j->p->in[0]);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
rows_applicable(const pool_job_t *j)
{
    if (!rows_unit(j->p, j->dtype, j->backward))
        return FDNN_NOT_SUPPORTED("NCHW rows: needs FLOAT and W stride 1 in every operand");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
always(const pool_job_t *j)
{
    (void)j;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
cl_fwd_run(cudnnHandle_t handle, pool_job_t *j)
{
    const fdnn_pool_problem_t *p = j->p;
    fdnn_parallelize_1d(fdnn_handle_pool(handle), cl_fwd_row, j, (size_t)(p->N * p->out[0] * p->out[1]), 0);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
rows_fwd_run(cudnnHandle_t handle, pool_job_t *j)
{
    fdnn_parallelize_1d(fdnn_handle_pool(handle), nchw_fwd_plane, j, (size_t)(j->p->N * j->p->C), 0);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
generic_fwd_run(cudnnHandle_t handle, pool_job_t *j)
{
    fdnn_parallelize_1d(fdnn_handle_pool(handle), generic_fwd_plane, j, (size_t)(j->p->N * j->p->C), 0);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
cl_bwd_run(cudnnHandle_t handle, pool_job_t *j)
{
    const fdnn_pool_problem_t *p = j->p;
    int64_t vol = p->in[0] * p->in[1] * p->in[2];
    int64_t pairs = p->N * ((p->C + CL_BLOCK - 1) / CL_BLOCK), tasks = pairs < CL_TASKS ? pairs : CL_TASKS;
    size_t bytes = (size_t)(tasks * vol * CL_BLOCK) * sizeof(float);
    /* summing in dx needs beta == 0 and a dx that shares no memory with x
     * or dy (it is zeroed first) */
    if (j->beta != 0.0 || !j->dx_apart_x || !j->dx_apart_dy) {
        j->force_scratch = true;
        j->accf = fdnn_handle_scratch(handle, bytes);
        if (j->accf == NULL)
            return FDNN_ALLOC_FAILED("no memory for pooling backward scratch (%zu bytes)", bytes);
    }
    fdnn_parallelize_1d(fdnn_handle_pool(handle), cl_bwd_task, j, (size_t)tasks, 0);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
cl_rows_bwd_run(cudnnHandle_t handle, pool_job_t *j)
{
    const fdnn_pool_problem_t *p = j->p;
    int64_t pairs = p->N * ((p->C + CL_BLOCK - 1) / CL_BLOCK), tasks = pairs < CL_TASKS ? pairs : CL_TASKS;
    size_t bytes = (size_t)(tasks * p->k[1] * p->in[2] * CL_BLOCK) * sizeof(float);
    j->accf = fdnn_handle_scratch(handle, bytes);
    if (j->accf == NULL)
        return FDNN_ALLOC_FAILED("no memory for pooling backward scratch (%zu bytes)", bytes);
    fdnn_parallelize_1d(fdnn_handle_pool(handle), cl_rows_bwd_task, j, (size_t)tasks, 0);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
rows_bwd_run(cudnnHandle_t handle, pool_job_t *j)
{
    const fdnn_pool_problem_t *p = j->p;
    int64_t vol = p->in[0] * p->in[1] * p->in[2];
    int64_t tasks = p->N * p->C < NCHW_TASKS ? p->N * p->C : NCHW_TASKS;
    size_t bytes = (size_t)(tasks * vol) * sizeof(float);
    j->accf = fdnn_handle_scratch(handle, bytes);
    if (j->accf == NULL)
        return FDNN_ALLOC_FAILED("no memory for pooling backward scratch (%zu bytes)", bytes);
    fdnn_parallelize_1d(fdnn_handle_pool(handle), nchw_bwd_task, j, (size_t)tasks, 0);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
generic_bwd_run(cudnnHandle_t handle, pool_job_t *j)
{
    const fdnn_pool_problem_t *p = j->p;
    int64_t vol = p->in[0] * p->in[1] * p->in[2];
    int64_t tasks = p->N * p->C < PLANE_TASKS ? p->N * p->C : PLANE_TASKS;
    size_t bytes = (size_t)(tasks * vol) * sizeof(double);
    j->acc = fdnn_handle_scratch(handle, bytes);
    if (j->acc == NULL)
        return FDNN_ALLOC_FAILED("no memory for pooling backward scratch (%zu bytes)", bytes);
    fdnn_parallelize_1d(fdnn_handle_pool(handle), generic_bwd_task, j, (size_t)tasks, 0);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the lists ------------------------------------------------------------ */

typedef struct pool_impl {
    const char *name;
    /* SUCCESS, or NOT_SUPPORTED with the reason (fdnn_fail) */
    cudnnStatus_t (*applicable)(const pool_job_t *j);
    cudnnStatus_t (*run)(cudnnHandle_t handle, pool_job_t *j);
} pool_impl_t;

/* Specialised first; the last entry takes every problem. */
static const pool_impl_t fwd_impls[] = {
    {"global_avg_nchw", gap_nchw_applicable, gap_nchw_run},
    {"global_avg_channels_last", gap_cl_applicable, gap_cl_run},
    {"channels_last", cl_applicable, cl_fwd_run},
    {"nchw_rows", rows_applicable, rows_fwd_run},
    {"generic", always, generic_fwd_run},
};

static const pool_impl_t bwd_impls[] = {
    {"global_avg_nchw", gap_nchw_applicable, gap_nchw_run},
    {"global_avg_channels_last", gap_cl_applicable, gap_cl_run},
    {"channels_last_rows", cl_rows_applicable, cl_rows_bwd_run},
    {"channels_last", cl_applicable, cl_bwd_run},
    {"nchw_rows", rows_applicable, rows_bwd_run},
    {"generic", always, generic_bwd_run},
};

/* The first entry of list[0, n) that accepts j.  With FREEDNN_LOG=1 every
 * declining entry's reason and the choice go to stderr. */
static const pool_impl_t *
select_impl(const pool_impl_t *list, size_t n, const pool_job_t *j, const char *dir)
{
    const char *v = getenv("FREEDNN_LOG");
    const bool log = v != NULL && strcmp(v, "1") == 0;
    size_t i = 0;
    for (; i + 1 < n; i++) {
        if (list[i].applicable(j) == CUDNN_STATUS_SUCCESS)
            break;
        if (log)
            fprintf(stderr, "freednn: pooling %s: %s declines: %s\n", dir, list[i].name, fdnn_fail_reason());
    }
    fdnn_fail_clear();
    if (log)
        fprintf(stderr, "freednn: pooling %s: %s\n", dir, list[i].name);
    return &list[i];
}

/* ---- entry points ------------------------------------------------------------ */

cudnnStatus_t
fdnn_pooling_forward(cudnnHandle_t handle, const fdnn_pooling_t *pool, double alpha, const fdnn_tensor_t *xt,
                     const void *x, double beta, const fdnn_tensor_t *yt, void *y)
{
    fdnn_pool_problem_t p;
    fdnn_pool_problem_init(&p, pool, xt, yt);
    p.stream = xt->dtype == CUDNN_DATA_FLOAT && beta == 0.0 &&
               (size_t)fdnn_tensor_elements(yt) * sizeof(float) >= STREAM_MIN_BYTES;
    pool_job_t j = {.p = &p, .dtype = xt->dtype, .alpha = alpha, .beta = beta, .alpha_f = (float)alpha,
                    .beta_f = (float)beta, .x = x, .y = y, .k = pick(handle)};
    const pool_impl_t *impl = select_impl(fwd_impls, sizeof(fwd_impls) / sizeof(fwd_impls[0]), &j, "forward");
    return impl->run(handle, &j);
}

/* Whether [a, a + na) and [b, b + nb) (elements of es bytes) share no byte. */
static bool
apart(const void *a, int64_t na, const void *b, int64_t nb, size_t es)
{
    const char *al = a, *ah = al + (size_t)na * es, *bl = b, *bh = bl + (size_t)nb * es;
    return ah <= bl || bh <= al;
}

cudnnStatus_t
fdnn_pooling_backward(cudnnHandle_t handle, const fdnn_pooling_t *pool, double alpha, const fdnn_tensor_t *dyt,
                      const void *dy, const fdnn_tensor_t *xt, const void *x, double beta, const fdnn_tensor_t *dxt,
                      void *dx)
{
    fdnn_pool_problem_t p;
    fdnn_pool_problem_init(&p, pool, xt, dyt);
    p.dxs[0] = dxt->strides[0];
    p.dxs[1] = dxt->strides[1];
    for (int i = 0; i < 3; i++) {
        int d = i - (3 - pool->nsp);
        p.dxs[2 + i] = d >= 0 ? dxt->strides[2 + d] : 0;
    }
    /* the NCHW 3x3 stride-2 max-pooling backward streams a large dx */
    p.stream = xt->dtype == CUDNN_DATA_FLOAT && beta == 0.0 &&
               (size_t)fdnn_tensor_elements(dxt) * sizeof(float) >= STREAM_MIN_BYTES;
    size_t es = fdnn_dtype_size(xt->dtype);
    pool_job_t j = {.p = &p, .dtype = xt->dtype, .alpha = alpha, .beta = beta, .alpha_f = (float)alpha,
                    .beta_f = (float)beta, .x = x, .dy = dy, .y = dx, .k = pick(handle), .backward = true,
                    .dx_apart_x = apart(dx, fdnn_tensor_span(dxt), x, fdnn_tensor_span(xt), es),
                    .dx_apart_dy = apart(dx, fdnn_tensor_span(dxt), dy, fdnn_tensor_span(dyt), es)};
    const pool_impl_t *impl = select_impl(bwd_impls, sizeof(bwd_impls) / sizeof(bwd_impls[0]), &j, "backward");
    return impl->run(handle, &j);
}
