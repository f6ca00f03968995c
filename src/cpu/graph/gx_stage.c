/* SPDX-License-Identifier: Apache-2.0
 * FP8 operands of the compute nodes (convolution, matmul, reduction) as
 * FLOAT: "storage with FP32 compute", as cuDNN 8.9 defines its FP8 types.
 * Each FP8 operand gets a FLOAT copy with the same dims and strides in the
 * node's scratch (its span of floats), the node runs its FLOAT kernel on
 * the copies, and an FP8 output is stored back element by element, rounded
 * to nearest even and saturated (cpu/tensor/convert_fp8.h).  See
 * graph_exec.h. */
#include "core/ckd.h"
#include "cpu/graph/graph_exec.h"
#include "cpu/tensor/convert_fp8.h"

bool
gx_is_fp8(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FP8_E4M3 || dt == CUDNN_DATA_FP8_E5M2;
}

bool
gx_stage_bytes(const fdnn_graph_tensor_t *t, size_t *bytes)
{
    int64_t span;
    *bytes = 0;
    if (!gx_is_fp8(t->dtype))
        return true;
    if (!gx_tensor_span(t, &span) || !fdnn_ckd_bytes(span, sizeof(float), bytes) ||
        !fdnn_ckd_add_size(*bytes, GX_ALIGN - 1, bytes))
        return false;
    *bytes -= *bytes % GX_ALIGN;
    return true;
}

void
gx_stage_load(const fdnn_graph_tensor_t *t, const void *src, float *dst)
{
    fdnn_fp8_kind_t kind;
    int64_t span;
    if (!fdnn_fp8_kind_of(t->dtype, &kind) || !gx_tensor_span(t, &span))
        return;
    /* the whole span, gaps included: every byte of it is the caller's */
    fdnn_fp8_to_f32_row(kind, (const uint8_t *)src, (size_t)span, dst);
}

void
gx_stage_store(const fdnn_graph_tensor_t *t, const float *src, void *dst)
{
    gx_rows_t r;
    int64_t idx[FDNN_GRAPH_MAX_DIMS];
    gx_rows_init(t, &r);
    for (int64_t row = 0; row < r.nrows; row++) {
        gx_rows_pos(&r, row, idx);
        int64_t off = 0;
        for (int d = 0; d < t->ndim; d++)
            off += idx[d] * t->strides[d];
        int64_t st = t->strides[r.row_dim];
        if (st == 1)
            gx_store_row_f32(t->dtype, dst, off, 1, r.row_len, src + off);
        else
            for (int64_t i = 0; i < r.row_len; i++)
                gx_store(t->dtype, dst, off + i * st, src[off + i * st]);
    }
}

void
gx_stage_retype(const fdnn_graph_tensor_t *t, fdnn_graph_tensor_t *copy)
{
    *copy = *t;
    if (gx_is_fp8(t->dtype))
        copy->dtype = CUDNN_DATA_FLOAT;
}
