/* SPDX-License-Identifier: Apache-2.0
 * Channels-last backward data of one small image with the KRSC filter read
 * in place (see conv_gemm_nhwc_krsc_bwd.h for the contract). */
#include <stdint.h>
#include <string.h>

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_gemm_nhwc_krsc.h"
#include "cpu/conv/conv_gemm_nhwc_krsc_bwd.h"
#include "cpu/gemm/gemm.h"

/* The most output positions over the batch: the filter is read from memory
 * once per call and meets each of them; from about 100 on, the blocked
 * direct solver's reorder of the filter is amortised and its kernels
 * scale better (the forward's crossover, conv_list.c). */
#define MAX_POSITIONS 64
/* col's largest size in floats (positions x taps x Cg); a real layer's is
 * far smaller (res5 3x3: 49 x 4608). */
#define MAX_COL_FLOATS ((double)(1u << 28))
/* Channels of one dx pixel summed at a time (a stack buffer). */
#define CHANNEL_RUN 256

cudnnStatus_t
fdnn_conv_gemm_nhwc_krsc_bwd_data_applicable(const fdnn_conv_problem_t *p)
{
    size_t ldw;
    RETURN_IF_ERROR(fdnn_conv_krsc_operands(p, FDNN_CONV_BWD_DATA, "channels-last KRSC backward data", &ldw));
    if (fdnn_conv_taps(p) == 1)
        return FDNN_NOT_SUPPORTED("the channels-last KRSC backward data takes spatial filters (the 1x1 solvers "
                                  "take 1x1)");
    double positions = (double)p->n * (double)fdnn_conv_out_spatial(p);
    if (positions > MAX_POSITIONS)
        return FDNN_NOT_SUPPORTED("the channels-last KRSC backward data takes at most %d output positions over "
                                  "the batch, not %.0f (the direct solver takes more)", MAX_POSITIONS, positions);
    if (positions * (double)fdnn_conv_cg(p) * (double)fdnn_conv_taps(p) > MAX_COL_FLOATS)
        return FDNN_NOT_SUPPORTED("the channels-last KRSC backward data: filter rows of %lld values are too long",
                                  (long long)(fdnn_conv_cg(p) * fdnn_conv_taps(p)));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_krsc_bwd_data_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    (void)p;
    *bytes = 0; /* dy's rows, col and the GEMM core's packing live in the handle's scratch */
    return CUDNN_STATUS_SUCCESS;
}

typedef struct plan {
    const fdnn_conv_problem_t *p;
    const fdnn_conv_exec_t *e;
    int64_t cg, kg, taps, crs, osp, np, g;
    const float *col; /* [np][crs] of group g */
} plan_t;

/* dy_g's rows: position t (over the batch) of group g, Kg channels. */
static void
gather_dy(const plan_t *pl, float *dst)
{
    const fdnn_conv_problem_t *p = pl->p;
    const float *dy = pl->e->y_in;
    for (int64_t t = 0; t < pl->np; t++) {
        int64_t n = t / pl->osp, r = t % pl->osp;
        int64_t ow = r % p->out[2], oh = r / p->out[2] % p->out[1], od = r / (p->out[2] * p->out[1]);
        memcpy(dst + t * pl->kg, dy + fdnn_conv_off5(&p->y, n, pl->g * pl->kg, od, oh, ow),
               (size_t)pl->kg * sizeof(float));
    }
}

/* The output coordinate that reaches input coordinate i through formula
 * tap f of a dimension, or -1. */
static inline int64_t
reaching(int64_t i, int64_t f, int64_t pad, int64_t dil, int64_t stride, int64_t out)
{
    int64_t o = i + pad - f * dil;
    if (o < 0 || o % stride != 0 || o / stride >= out)
        return -1;
    return o / stride;
}

/* Task: the dx pixels of one input row (n, id, ih), group g's channels. */
static void
gather_row(void *arg, size_t task)
{
    const plan_t *pl = arg;
    const fdnn_conv_problem_t *p = pl->p;
    const fdnn_conv_exec_t *e = pl->e;
    int64_t ih = (int64_t)task % p->in[1], id = (int64_t)task / p->in[1] % p->in[0];
    int64_t n = (int64_t)task / (p->in[1] * p->in[0]);
    float alpha = (float)e->alpha, beta = (float)e->beta;
    float acc[CHANNEL_RUN];
    for (int64_t iw = 0; iw < p->in[2]; iw++) {
        float *dx = (float *)e->out + fdnn_conv_off5(&p->x, n, pl->g * pl->cg, id, ih, iw);
        for (int64_t c0 = 0; c0 < pl->cg; c0 += CHANNEL_RUN) {
            int64_t nc = pl->cg - c0 < CHANNEL_RUN ? pl->cg - c0 : CHANNEL_RUN;
            for (int64_t c = 0; c < nc; c++)
                acc[c] = 0;
            /* stored tap q, in the filter's order; its formula tap is
             * reversed in CONVOLUTION mode */
            for (int64_t q = 0; q < pl->taps; q++) {
                int64_t qw = q % p->ker[2], qh = q / p->ker[2] % p->ker[1], qd = q / (p->ker[2] * p->ker[1]);
                if (p->flip) {
                    qd = p->ker[0] - 1 - qd;
                    qh = p->ker[1] - 1 - qh;
                    qw = p->ker[2] - 1 - qw;
                }
                int64_t od = reaching(id, qd, p->pad[0], p->dil[0], p->stride[0], p->out[0]);
                int64_t oh = reaching(ih, qh, p->pad[1], p->dil[1], p->stride[1], p->out[1]);
                int64_t ow = reaching(iw, qw, p->pad[2], p->dil[2], p->stride[2], p->out[2]);
                if (od < 0 || oh < 0 || ow < 0)
                    continue;
                int64_t t = n * pl->osp + (od * p->out[1] + oh) * p->out[2] + ow;
                const float *src = pl->col + t * pl->crs + q * pl->cg + c0;
                for (int64_t c = 0; c < nc; c++)
                    acc[c] += src[c];
            }
            float *d = dx + c0;
            if (beta == 0)
                for (int64_t c = 0; c < nc; c++)
                    d[c] = alpha * acc[c];
            else
                for (int64_t c = 0; c < nc; c++)
                    d[c] = alpha * acc[c] + beta * d[c];
        }
    }
}

/* The GEMM of group g: col[np][crs] = dy_g[np][Kg] * W_g (W in place). */
static fdnn_sgemm_args_t
group_args(const plan_t *pl, const float *dyg, float *col, size_t ldw)
{
    fdnn_sgemm_args_t a = {
        .m = (size_t)pl->np,
        .n = (size_t)pl->crs,
        .k = (size_t)pl->kg,
        .alpha = 1.0f,
        .a = dyg,
        .lda = (size_t)pl->kg,
        .b = (const float *)pl->e->w_in + (size_t)(pl->g * pl->kg) * ldw,
        .ldb = ldw,
        .beta = 0.0f,
        .c = col,
        .ldc = (size_t)pl->crs,
        .b_read_once = true,
    };
    return a;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_krsc_bwd_data_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    RETURN_IF_ERROR(fdnn_conv_gemm_nhwc_krsc_bwd_data_applicable(p));
    plan_t pl = {.p = p, .e = e};
    pl.cg = fdnn_conv_cg(p);
    pl.kg = fdnn_conv_kg(p);
    pl.taps = fdnn_conv_taps(p);
    pl.crs = pl.cg * pl.taps;
    pl.osp = fdnn_conv_out_spatial(p);
    pl.np = p->n * pl.osp;
    size_t ldw;
    fdnn_conv_krsc_rows(p, &ldw);
    int64_t rows = p->n * p->in[0] * p->in[1];
    if (rows == 0 || p->in[2] == 0 || pl.cg == 0)
        return CUDNN_STATUS_SUCCESS;
    fdnn_isa_t isa = e->handle->isa;
    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    size_t dy_bytes = fdnn_align_up((size_t)(pl.np * pl.kg) * sizeof(float));
    size_t col_bytes = fdnn_align_up((size_t)(pl.np * pl.crs) * sizeof(float));
    fdnn_sgemm_args_t probe = group_args(&pl, NULL, NULL, ldw);
    size_t gemm_bytes = pl.np > 0 && pl.kg > 0 ? fdnn_align_up(fdnn_sgemm_scratch_size(&probe, threads, isa)) : 0;
    char *base = fdnn_handle_scratch(e->handle, dy_bytes + col_bytes + gemm_bytes);
    if (base == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    float *dyg = (float *)base, *col = (float *)(base + dy_bytes);
    void *gemm_scratch = gemm_bytes > 0 ? base + dy_bytes + col_bytes : NULL;
    for (pl.g = 0; pl.g < p->g; pl.g++) {
        if (pl.np > 0 && pl.kg > 0) {
            gather_dy(&pl, dyg);
            fdnn_sgemm_args_t a = group_args(&pl, dyg, col, ldw);
            if (!fdnn_sgemm(&a, e->pool, isa, gemm_scratch, gemm_bytes))
                return FDNN_ALLOC_FAILED("the GEMM core could not allocate its buffers");
        } else {
            memset(col, 0, (size_t)(pl.np * pl.crs) * sizeof(float)); /* no dy channel: dx = beta dx */
        }
        pl.col = col;
        fdnn_parallelize_1d(e->pool, gather_row, &pl, (size_t)rows, 0);
    }
    return CUDNN_STATUS_SUCCESS;
}
