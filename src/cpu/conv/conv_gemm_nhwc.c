/* SPDX-License-Identifier: Apache-2.0
 * 1x1 convolutions on channels-last tensors as one GEMM over the whole
 * batch, reading and writing the user's buffers in place (no im2col, no
 * copy, no per-image split).  See conv_gemm_nhwc.h for the contract. */
#include <stdint.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/conv_config.h"
#include "cpu/conv/conv_gemm_nhwc.h"
#include "cpu/conv/conv_gemm_nhwc_wgrad.h"
#include "cpu/gemm/gemm.h"

/* The positions of a 5-D view (n and the spatial dims, row-major) as the
 * rows of a matrix whose columns are the channels: true when channel c of
 * position r lies at r * *ld + c, i.e. channels dense (stride 1) and every
 * position, across images too, a constant *ld >= channels apart.  Dims of
 * size 1 do not count. */
static bool
rows_matrix(const fdnn_tensor_t *t, size_t *ld)
{
    if (t->dims[1] > 1 && t->strides[1] != 1)
        return false;
    static const int walk[4] = {4, 3, 2, 0}; /* W, H, D, then the image */
    int64_t s = -1, expect = 0;
    for (int i = 0; i < 4; i++) {
        int d = walk[i];
        if (t->dims[d] == 1)
            continue;
        if (s < 0) {
            s = t->strides[d];
            expect = s * t->dims[d];
        } else {
            if (t->strides[d] != expect)
                return false;
            expect *= t->dims[d];
        }
    }
    if (s < 0)
        s = t->dims[1]; /* one position: any ld */
    if (s < t->dims[1])
        return false; /* rows would overlap */
    *ld = (size_t)s;
    return true;
}

/* The 1x1 filter as the matrix W[K][Cg]: Cg dense, rows *ld >= Cg apart
 * (KCRS and KRSC store 1x1 filters the same way). */
static bool
filter_matrix(const fdnn_tensor_t *w, size_t *ld)
{
    if (w->dims[1] > 1 && w->strides[1] != 1)
        return false;
    int64_t s = w->dims[0] == 1 ? w->dims[1] : w->strides[0];
    if (s < w->dims[1])
        return false;
    *ld = (size_t)s;
    return true;
}

/* x (dx) is read (written) in place: stride 1 and uniform positions. */
static bool
x_in_place(const fdnn_conv_problem_t *p, size_t *ld)
{
    for (int d = 0; d < 3; d++)
        if (p->stride[d] != 1)
            return false;
    return rows_matrix(&p->x, ld);
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_applicable(const fdnn_conv_problem_t *p)
{
    if (p->dtype != CUDNN_DATA_FLOAT || fdnn_conv_config_is_integer(p->config))
        return FDNN_NOT_SUPPORTED("the batch 1x1 GEMM runs FLOAT data only");
    for (int d = 0; d < 3; d++)
        if (p->ker[d] != 1 || p->pad[d] != 0)
            return FDNN_NOT_SUPPORTED("the batch 1x1 GEMM needs a 1x1 filter and no padding");
    size_t ld;
    if (!fdnn_conv_channels_dense(&p->x) || !rows_matrix(&p->y, &ld))
        return FDNN_NOT_SUPPORTED("the batch 1x1 GEMM needs x and y channels-last, y's positions uniformly strided");
    if (!filter_matrix(&p->w, &ld))
        return FDNN_NOT_SUPPORTED("the batch 1x1 GEMM needs the filter's channels dense");
    return CUDNN_STATUS_SUCCESS;
}

bool
fdnn_conv_gemm_nhwc_lds(const fdnn_conv_problem_t *p, size_t *ldx, size_t *ldy, size_t *ldw)
{
    rows_matrix(&p->y, ldy);
    filter_matrix(&p->w, ldw);
    return x_in_place(p, ldx);
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    (void)p;
    *bytes = 0; /* the gathered rows and the GEMM core's packing live in the handle's scratch */
    return CUDNN_STATUS_SUCCESS;
}

/* One line of output positions (n, od, oh; OW positions) of a strided
 * problem: x's rows of it gathered into `rows` (ld C), or, backward data,
 * dx's lines (n, id, ih; W positions) written from them. */
typedef struct lines_ctx {
    const fdnn_conv_problem_t *p;
    const float *x; /* gather: x */
    float *dx;      /* scatter: dx */
    float *rows;    /* [N*OD*OH*OW][C] */
    float alpha, beta;
} lines_ctx_t;

static void
gather_line(void *arg, size_t line)
{
    const lines_ctx_t *lc = arg;
    const fdnn_conv_problem_t *p = lc->p;
    const fdnn_tensor_t *t = &p->x;
    int64_t oh = (int64_t)line % p->out[1], od = (int64_t)line / p->out[1] % p->out[0],
            n = (int64_t)line / (p->out[1] * p->out[0]);
    const float *src = lc->x + n * t->strides[0] + od * p->stride[0] * t->strides[2] + oh * p->stride[1] * t->strides[3];
    int64_t step = p->stride[2] * t->strides[4], c = p->c;
    float *dst = lc->rows + (size_t)line * (size_t)(p->out[2] * c);
    for (int64_t ow = 0; ow < p->out[2]; ow++, src += step, dst += c)
        memcpy(dst, src, sizeof(float) * (size_t)c);
}

/* dx line (n, id, ih): alpha * rows + beta * dx on the positions a 1x1
 * filter reaches (every stride-th), beta * dx on the others (beta 0: 0,
 * dx not read). */
static void
scatter_line(void *arg, size_t line)
{
    const lines_ctx_t *lc = arg;
    const fdnn_conv_problem_t *p = lc->p;
    const fdnn_tensor_t *t = &p->x;
    int64_t ih = (int64_t)line % p->in[1], id = (int64_t)line / p->in[1] % p->in[0],
            n = (int64_t)line / (p->in[1] * p->in[0]);
    float *dst = lc->dx + n * t->strides[0] + id * t->strides[2] + ih * t->strides[3];
    bool reached = id % p->stride[0] == 0 && ih % p->stride[1] == 0;
    int64_t c = p->c, oline = (n * p->out[0] + id / p->stride[0]) * p->out[1] + ih / p->stride[1];
    const float *src = lc->rows + oline * p->out[2] * c;
    float alpha = lc->alpha, beta = lc->beta;
    for (int64_t iw = 0; iw < p->in[2]; iw++, dst += t->strides[4]) {
        if (reached && iw % p->stride[2] == 0) {
            const float *s = src + iw / p->stride[2] * c;
            if (beta == 0)
                for (int64_t j = 0; j < c; j++)
                    dst[j] = alpha * s[j];
            else
                for (int64_t j = 0; j < c; j++)
                    dst[j] = alpha * s[j] + beta * dst[j];
        } else if (beta == 0) {
            memset(dst, 0, sizeof(float) * (size_t)c);
        } else {
            for (int64_t j = 0; j < c; j++)
                dst[j] = beta * dst[j];
        }
    }
}

/* Group g's GEMM on the user's buffers (x, dx in place: ld ldx). */
static fdnn_sgemm_args_t
gemm_args(const fdnn_conv_exec_t *e, int64_t g, size_t rows, size_t ldx, size_t ldy, size_t ldw)
{
    const fdnn_conv_problem_t *p = e->p;
    size_t cg = (size_t)fdnn_conv_cg(p), kg = (size_t)fdnn_conv_kg(p);
    size_t xc = (size_t)g * cg, yc = (size_t)g * kg, wr = (size_t)g * kg * ldw;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    const float *x = e->x_in, *w = e->w_in, *dy = e->y_in, *bias = e->bias;
    float *out = e->out;
    switch (p->dir) {
    case FDNN_CONV_FWD: /* y[rows][Kg] = x[rows][Cg] * W_g^T (+ bias per column, ReLU) */
        return (fdnn_sgemm_args_t){.trans_b = true, .m = rows, .n = kg, .k = cg, .alpha = alpha, .a = x + xc,
                                   .lda = ldx, .b = w + wr, .ldb = ldw, .beta = beta, .c = out + yc, .ldc = ldy,
                                   .bias_col = bias != NULL ? bias + yc : NULL,
                                   .act = e->relu ? FDNN_GEMM_ACT_RELU : FDNN_GEMM_ACT_NONE};
    case FDNN_CONV_BWD_DATA: /* dx[rows][Cg] = dy[rows][Kg] * W_g */
        return (fdnn_sgemm_args_t){.m = rows, .n = cg, .k = kg, .alpha = alpha, .a = dy + yc, .lda = ldy,
                                   .b = w + wr, .ldb = ldw, .beta = beta, .c = out + xc, .ldc = ldx};
    case FDNN_CONV_BWD_FILTER: /* dW_g[Kg][Cg] = dy^T[Kg][rows] * x[rows][Cg] */
    default:
        return (fdnn_sgemm_args_t){.trans_a = true, .m = kg, .n = cg, .k = rows, .alpha = alpha, .a = dy + yc,
                                   .lda = ldy, .b = x + xc, .ldb = ldx, .beta = beta, .c = out + wr, .ldc = ldw};
    }
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    RETURN_IF_ERROR(fdnn_conv_gemm_nhwc_applicable(p));
    size_t ldx = 0, ldy = 0, ldw = 0;
    bool in_place = fdnn_conv_gemm_nhwc_lds(p, &ldx, &ldy, &ldw);
    size_t rows = (size_t)(p->n * fdnn_conv_out_spatial(p));
    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    /* Not in place: x's rows of the output positions gathered (forward,
     * backward filter) or dx's rows computed (backward data) into a
     * [rows][C] buffer in the scratch, ahead of the GEMM's packing. */
    size_t row_bytes = in_place ? 0 : fdnn_align_up(rows * (size_t)p->c * sizeof(float));
    size_t wgrad_bytes = 0;
    if (fdnn_conv_gemm_nhwc_wgrad_plan(e, rows, &wgrad_bytes)) {
        char *scratch = fdnn_handle_scratch(e->handle, row_bytes + wgrad_bytes);
        if (scratch == NULL)
            return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
        lines_ctx_t lc = {p, e->x_in, NULL, (float *)scratch, 1.0f, 0.0f};
        if (!in_place)
            fdnn_parallelize_1d(e->pool, gather_line, &lc, (size_t)(p->n * p->out[0] * p->out[1]), 0);
        return fdnn_conv_gemm_nhwc_wgrad(e, in_place ? e->x_in : lc.rows, in_place ? ldx : (size_t)p->c, e->y_in,
                                         ldy, ldw, rows, scratch + row_bytes);
    }
    /* The packing buffers (and the rows) from the handle's scratch, one
     * request for every group (each request may poison or move it), reused
     * call after call: fresh pages per call would fault in at a few GB/s.
     * Every group's GEMM has group 0's shape. */
    fdnn_sgemm_args_t a0 = gemm_args(e, 0, rows, ldx, ldy, ldw);
    a0.alpha = 1; /* with alpha 0 the core needs none, but backward data's unblended rows run at 1 */
    size_t need = fdnn_sgemm_scratch_size(&a0, threads, e->handle->isa);
    char *scratch = need + row_bytes > 0 ? fdnn_handle_scratch(e->handle, row_bytes + need) : NULL;
    if (need + row_bytes > 0 && scratch == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    lines_ctx_t lc = {p, e->x_in, e->out, (float *)scratch, (float)e->alpha, (float)e->beta};
    if (!in_place && p->dir != FDNN_CONV_BWD_DATA)
        fdnn_parallelize_1d(e->pool, gather_line, &lc, (size_t)(p->n * p->out[0] * p->out[1]), 0);
    for (int64_t g = 0; g < p->g; g++) {
        fdnn_sgemm_args_t a = gemm_args(e, g, rows, ldx, ldy, ldw);
        if (!in_place) {
            size_t xc = (size_t)(g * fdnn_conv_cg(p));
            if (p->dir == FDNN_CONV_BWD_DATA) /* dx's rows, unblended: the scatter blends */
                a.c = lc.rows + xc, a.ldc = (size_t)p->c, a.alpha = 1, a.beta = 0;
            else if (p->dir == FDNN_CONV_FWD)
                a.a = lc.rows + xc, a.lda = (size_t)p->c;
            else
                a.b = lc.rows + xc, a.ldb = (size_t)p->c;
        }
        if (!fdnn_sgemm(&a, e->pool, e->handle->isa, scratch != NULL ? scratch + row_bytes : NULL, need))
            return FDNN_ALLOC_FAILED("the GEMM core could not allocate its buffers");
    }
    if (!in_place && p->dir == FDNN_CONV_BWD_DATA)
        fdnn_parallelize_1d(e->pool, scatter_line, &lc, (size_t)(p->n * p->in[0] * p->in[1]), 0);
    return CUDNN_STATUS_SUCCESS;
}
