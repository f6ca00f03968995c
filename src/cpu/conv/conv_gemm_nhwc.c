/* SPDX-License-Identifier: Apache-2.0
 * 1x1 convolutions on channels-last tensors as one GEMM over the whole
 * batch, reading and writing the user's buffers in place (no im2col, no
 * copy, no per-image split).  See conv_gemm_nhwc.h for the contract. */
#include <stdint.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/conv_config.h"
#include "cpu/conv/conv_gemm_nhwc.h"
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

cudnnStatus_t
fdnn_conv_gemm_nhwc_applicable(const fdnn_conv_problem_t *p)
{
    if (p->dtype != CUDNN_DATA_FLOAT || fdnn_conv_config_is_integer(p->config))
        return FDNN_NOT_SUPPORTED("the batch 1x1 GEMM runs FLOAT data only");
    for (int d = 0; d < 3; d++)
        if (p->ker[d] != 1 || p->pad[d] != 0 || p->stride[d] != 1)
            return FDNN_NOT_SUPPORTED("the batch 1x1 GEMM needs a 1x1 filter, no padding and stride 1");
    size_t ld;
    if (!rows_matrix(&p->x, &ld) || !rows_matrix(&p->y, &ld))
        return FDNN_NOT_SUPPORTED("the batch 1x1 GEMM needs x and y channels-last with uniformly strided positions");
    if (!filter_matrix(&p->w, &ld))
        return FDNN_NOT_SUPPORTED("the batch 1x1 GEMM needs the filter's channels dense");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    (void)p;
    *bytes = 0; /* the GEMM core's packing buffers live in the handle's scratch */
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_gemm_nhwc_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    RETURN_IF_ERROR(fdnn_conv_gemm_nhwc_applicable(p));
    size_t ldx = 0, ldy = 0, ldw = 0;
    rows_matrix(&p->x, &ldx);
    rows_matrix(&p->y, &ldy);
    filter_matrix(&p->w, &ldw);
    size_t rows = (size_t)(p->n * fdnn_conv_out_spatial(p));
    size_t cg = (size_t)fdnn_conv_cg(p), kg = (size_t)fdnn_conv_kg(p);
    float alpha = (float)e->alpha, beta = (float)e->beta;
    const float *x = e->x_in, *w = e->w_in, *dy = e->y_in, *bias = e->bias;
    float *out = e->out;
    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    for (int64_t g = 0; g < p->g; g++) {
        size_t xc = (size_t)g * cg, yc = (size_t)g * kg, wr = (size_t)g * kg * ldw;
        fdnn_sgemm_args_t a = {.alpha = alpha, .beta = beta};
        switch (p->dir) {
        case FDNN_CONV_FWD: /* y[rows][Kg] = x[rows][Cg] * W_g^T (+ bias per column, ReLU) */
            a = (fdnn_sgemm_args_t){.trans_b = true, .m = rows, .n = kg, .k = cg, .alpha = alpha,
                                    .a = x + xc, .lda = ldx, .b = w + wr, .ldb = ldw, .beta = beta,
                                    .c = out + yc, .ldc = ldy, .bias_col = bias != NULL ? bias + yc : NULL,
                                    .act = e->relu ? FDNN_GEMM_ACT_RELU : FDNN_GEMM_ACT_NONE};
            break;
        case FDNN_CONV_BWD_DATA: /* dx[rows][Cg] = dy[rows][Kg] * W_g */
            a = (fdnn_sgemm_args_t){.m = rows, .n = cg, .k = kg, .alpha = alpha, .a = dy + yc, .lda = ldy,
                                    .b = w + wr, .ldb = ldw, .beta = beta, .c = out + xc, .ldc = ldx};
            break;
        case FDNN_CONV_BWD_FILTER: /* dW_g[Kg][Cg] = dy^T[Kg][rows] * x[rows][Cg] */
            a = (fdnn_sgemm_args_t){.trans_a = true, .m = kg, .n = cg, .k = rows, .alpha = alpha, .a = dy + yc,
                                    .lda = ldy, .b = x + xc, .ldb = ldx, .beta = beta, .c = out + wr, .ldc = ldw};
            break;
        }
        /* The packing buffers from the handle's scratch, reused call after
         * call: fresh pages per call would fault in at a few GB/s. */
        size_t need = fdnn_sgemm_scratch_size(&a, threads, e->handle->isa);
        void *scratch = need > 0 ? fdnn_handle_scratch(e->handle, need) : NULL;
        if (need > 0 && scratch == NULL)
            return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
        if (!fdnn_sgemm(&a, e->pool, e->handle->isa, scratch, need))
            return FDNN_ALLOC_FAILED("the GEMM core could not allocate its buffers");
    }
    return CUDNN_STATUS_SUCCESS;
}
