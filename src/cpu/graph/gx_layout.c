/* SPDX-License-Identifier: Apache-2.0
 * The workspace of a graph execution and element access of any storage
 * type.  See graph_exec.h. */
#include <math.h>
#include <string.h>

#include "core/ckd.h"
#include "core/fail.h"
#include "cpu/graph/graph_exec.h"
#include "cpu/simd/cvt.h"
#include "cpu/tensor/convert_fp8.h"

size_t
gx_dtype_size(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_HALF: return 2;
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8: return 1;
    case CUDNN_DATA_UINT8: return 1;
    case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_BOOLEAN: return 1;
    case CUDNN_DATA_FP8_E4M3: return 1;
    case CUDNN_DATA_FP8_E5M2: return 1;
    default: return 0;
    }
}

bool
gx_dtype_storable(cudnnDataType_t dt)
{
    return gx_dtype_size(dt) != 0;
}

const char *
gx_dtype_name(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: return "FLOAT";
    case CUDNN_DATA_DOUBLE: return "DOUBLE";
    case CUDNN_DATA_HALF: return "HALF";
    case CUDNN_DATA_BFLOAT16: return "BFLOAT16";
    case CUDNN_DATA_INT8: return "INT8";
    case CUDNN_DATA_UINT8: return "UINT8";
    case CUDNN_DATA_INT32: return "INT32";
    case CUDNN_DATA_INT64: return "INT64";
    case CUDNN_DATA_BOOLEAN: return "BOOLEAN";
    case CUDNN_DATA_FP8_E4M3: return "FP8_E4M3";
    case CUDNN_DATA_FP8_E5M2: return "FP8_E5M2";
    case CUDNN_DATA_FAST_FLOAT_FOR_FP8: return "FAST_FLOAT_FOR_FP8";
    default: return "an unsupported type";
    }
}

double
gx_load(cudnnDataType_t dt, const void *base, int64_t off)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: return ((const float *)base)[off];
    case CUDNN_DATA_DOUBLE: return ((const double *)base)[off];
    case CUDNN_DATA_HALF: return fdnn_f16_to_f32(((const uint16_t *)base)[off]);
    case CUDNN_DATA_BFLOAT16: return fdnn_bf16_to_f32(((const uint16_t *)base)[off]);
    case CUDNN_DATA_INT8: return ((const int8_t *)base)[off];
    case CUDNN_DATA_UINT8: return ((const uint8_t *)base)[off];
    case CUDNN_DATA_INT32: return ((const int32_t *)base)[off];
    case CUDNN_DATA_INT64: return (double)((const int64_t *)base)[off];
    case CUDNN_DATA_BOOLEAN: return ((const uint8_t *)base)[off] != 0;
    case CUDNN_DATA_FP8_E4M3: return fdnn_fp8_to_f32(((const uint8_t *)base)[off], FDNN_FP8_E4M3);
    case CUDNN_DATA_FP8_E5M2: return fdnn_fp8_to_f32(((const uint8_t *)base)[off], FDNN_FP8_E5M2);
    default: return 0;
    }
}

/* Nearest integer of v clamped to [lo, hi]; NaN gives 0. */
static double
to_int(double v, double lo, double hi)
{
    if (v != v)
        return 0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

void
gx_store(cudnnDataType_t dt, void *base, int64_t off, double v)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: ((float *)base)[off] = (float)v; break;
    case CUDNN_DATA_DOUBLE: ((double *)base)[off] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)base)[off] = fdnn_f32_to_f16((float)v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)base)[off] = fdnn_f32_to_bf16((float)v); break;
    case CUDNN_DATA_INT8: ((int8_t *)base)[off] = (int8_t)to_int(v, -128, 127); break;
    case CUDNN_DATA_UINT8: ((uint8_t *)base)[off] = (uint8_t)to_int(v, 0, 255); break;
    case CUDNN_DATA_INT32: ((int32_t *)base)[off] = (int32_t)to_int(v, INT32_MIN, INT32_MAX); break;
    case CUDNN_DATA_INT64:
        /* (2^63 is not an int64_t: clamp just below it) */
        ((int64_t *)base)[off] = (int64_t)to_int(v, -9223372036854775808.0, 9223372036854774784.0);
        break;
    case CUDNN_DATA_BOOLEAN: ((uint8_t *)base)[off] = v != 0; break;
    /* FP8: nearest even, saturating to the largest finite value, NaN 0x7F
     * (convert_fp8.h; the behaviour of cuDNN's FP8 stores) */
    case CUDNN_DATA_FP8_E4M3: ((uint8_t *)base)[off] = fdnn_f64_to_fp8(v, FDNN_FP8_E4M3, FDNN_FP8_SATFINITE); break;
    case CUDNN_DATA_FP8_E5M2: ((uint8_t *)base)[off] = fdnn_f64_to_fp8(v, FDNN_FP8_E5M2, FDNN_FP8_SATFINITE); break;
    default: break;
    }
}

bool
gx_tensor_span(const fdnn_graph_tensor_t *t, int64_t *span)
{
    int64_t s = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (t->dims[d] <= 0) {
            *span = 0;
            return true;
        }
        if (!fdnn_ckd_madd_i64(&s, t->dims[d] - 1, t->strides[d]))
            return false;
    }
    *span = s;
    return true;
}

bool
gx_tensor_elements(const fdnn_graph_tensor_t *t, int64_t *count)
{
    return fdnn_ckd_prod_i64(t->dims, t->ndim, count);
}

void
gx_tensor_view(const fdnn_graph_tensor_t *t, fdnn_tensor_t *v)
{
    memset(v, 0, sizeof(*v));
    v->dtype = t->dtype;
    v->ndim = t->ndim;
    for (int d = 0; d < CUDNN_DIM_MAX; d++) {
        v->dims[d] = d < t->ndim ? t->dims[d] : 1;
        v->strides[d] = d < t->ndim ? t->strides[d] : 0;
    }
}

/* offset rounded up to GX_ALIGN, then `bytes` more: false on overflow. */
static bool
place(size_t *cursor, size_t bytes, size_t *at)
{
    size_t a = *cursor;
    if (!fdnn_ckd_add_size(a, GX_ALIGN - 1, &a))
        return false;
    a -= a % GX_ALIGN;
    *at = a;
    return fdnn_ckd_add_size(a, bytes, cursor);
}

cudnnStatus_t
gx_layout_init(const fdnn_graph_t *g, const bool *materialize, size_t scratch_bytes, gx_layout_t *lay)
{
    size_t cur = 0, bytes;
    if (!fdnn_ckd_mul_size((size_t)g->ntensors, sizeof(void *), &bytes) || !place(&cur, bytes, &lay->table_offset))
        return FDNN_NOT_SUPPORTED("graph workspace: the tensor table of %d tensors overflows", g->ntensors);
    for (int i = 0; i < g->ntensors; i++) {
        const fdnn_graph_tensor_t *t = &g->tensors[i];
        lay->tensor_offset[i] = SIZE_MAX;
        if (!t->is_virtual || t->by_value || (materialize != NULL && !materialize[i]))
            continue;
        int64_t span;
        if (!gx_tensor_span(t, &span) || !fdnn_ckd_bytes(span, gx_dtype_size(t->dtype), &bytes) ||
            !place(&cur, bytes, &lay->tensor_offset[i]))
            return FDNN_NOT_SUPPORTED("graph workspace: virtual tensor %d (uid %lld) "
                                      "overflows the workspace size",
                                      i, (long long)t->uid);
    }
    if (!place(&cur, scratch_bytes, &lay->scratch_offset))
        return FDNN_NOT_SUPPORTED("graph workspace: %zu scratch bytes overflow the workspace size", scratch_bytes);
    lay->scratch_bytes = scratch_bytes;
    /* The base pointer is only as aligned as the user made it: ask for
     * GX_ALIGN - 1 more bytes so every slot can be aligned at run time. */
    if (!fdnn_ckd_add_size(cur, GX_ALIGN - 1, &lay->total))
        return FDNN_NOT_SUPPORTED("graph workspace size overflows");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_bind(const fdnn_graph_exec_t *e, const gx_layout_t *lay, void ***table)
{
    const fdnn_graph_t *g = e->graph;
    if (e->workspace_bytes < lay->total)
        return FDNN_BAD_PARAM("workspace is %zu bytes, the plan needs %zu", e->workspace_bytes, lay->total);
    if (lay->total > 0 && e->workspace == NULL)
        return FDNN_BAD_PARAM("workspace is NULL, the plan needs %zu bytes", lay->total);
    uintptr_t base = (uintptr_t)e->workspace;
    base = (base + GX_ALIGN - 1) / GX_ALIGN * GX_ALIGN;
    void **ptr = (void **)(base + lay->table_offset);
    for (int i = 0; i < g->ntensors; i++) {
        const fdnn_graph_tensor_t *t = &g->tensors[i];
        if (t->by_value)
            ptr[i] = (void *)t->value;
        else if (t->is_virtual)
            ptr[i] = lay->tensor_offset[i] == SIZE_MAX ? NULL : (void *)(base + lay->tensor_offset[i]);
        else if ((ptr[i] = e->data[i]) == NULL)
            return FDNN_BAD_PARAM("tensor %d (uid %lld) has a NULL data pointer", i, (long long)t->uid);
    }
    *table = ptr;
    return CUDNN_STATUS_SUCCESS;
}

void *
gx_scratch_ptr(const fdnn_graph_exec_t *e, const gx_layout_t *lay)
{
    uintptr_t base = ((uintptr_t)e->workspace + GX_ALIGN - 1) / GX_ALIGN * GX_ALIGN;
    return lay->scratch_bytes == 0 ? NULL : (void *)(base + lay->scratch_offset);
}
