/* SPDX-License-Identifier: Apache-2.0
 * Data-movement nodes of the generic engine: reshape (y's elements in
 * row-major order of y's dims are x's in row-major order of x's dims, as
 * numpy.reshape; with equal dims it is a layout change) and concatenation
 * along an axis (inputs in order; an in-place input, CUDNN_ATTR_OPERATION_
 * CONCAT_INPLACE_INDEX, that already sits in y is copied onto itself, which
 * changes nothing).  Elements are copied as bytes: exact for every type. */
#include <string.h>

#include "core/fail.h"
#include "cpu/graph/graph_exec.h"

/* Offset of the row-major element `flat` of t. */
static int64_t
offset_of(const fdnn_graph_tensor_t *t, int64_t flat)
{
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (flat % t->dims[d]) * t->strides[d];
        flat /= t->dims[d];
    }
    return off;
}

static cudnnStatus_t
reshape_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_reshape_t *r = &g->nodes[idx].u.reshape;
    const fdnn_graph_tensor_t *x = &g->tensors[r->x], *y = &g->tensors[r->y];
    int64_t nx, ny;
    if (x->dtype != y->dtype || gx_dtype_size(x->dtype) == 0)
        return FDNN_NOT_SUPPORTED("node %d (reshape): x is %s, y %s; equal storable types are done", idx,
                                  gx_dtype_name(x->dtype), gx_dtype_name(y->dtype));
    if (!gx_tensor_elements(x, &nx) || !gx_tensor_elements(y, &ny) || nx != ny)
        return FDNN_NOT_SUPPORTED("node %d (reshape): x and y have different element counts", idx);
    if (x->by_value || y->by_value)
        return FDNN_NOT_SUPPORTED("node %d (reshape): by-value operands", idx);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
no_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    (void)g, (void)idx;
    *bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
reshape_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch, (void)scratch_bytes;
    const fdnn_gop_reshape_t *r = &e->graph->nodes[idx].u.reshape;
    const fdnn_graph_tensor_t *x = &e->graph->tensors[r->x], *y = &e->graph->tensors[r->y];
    size_t es = gx_dtype_size(x->dtype);
    int64_t n;
    gx_tensor_elements(x, &n);
    for (int64_t i = 0; i < n; i++)
        memcpy((char *)ptr[r->y] + (size_t)offset_of(y, i) * es, (const char *)ptr[r->x] + (size_t)offset_of(x, i) * es,
               es);
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_reshape_exec = {reshape_supports, no_scratch, reshape_run};

static cudnnStatus_t
concat_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_concat_t *c = &g->nodes[idx].u.concat;
    const fdnn_graph_tensor_t *y = &g->tensors[c->y];
    if (c->axis < 0 || c->axis >= y->ndim)
        return FDNN_NOT_SUPPORTED("node %d (concat): axis %lld is not a dim of y", idx, (long long)c->axis);
    if (gx_dtype_size(y->dtype) == 0 || y->by_value)
        return FDNN_NOT_SUPPORTED("node %d (concat): y's type %s", idx, gx_dtype_name(y->dtype));
    int64_t total = 0;
    for (int i = 0; i < c->ninputs; i++) {
        const fdnn_graph_tensor_t *x = &g->tensors[c->inputs[i]];
        if (x->dtype != y->dtype || x->ndim != y->ndim || x->by_value)
            return FDNN_NOT_SUPPORTED("node %d (concat): input %d differs from y in type or rank", idx, i);
        for (int d = 0; d < y->ndim; d++)
            if (d != c->axis && x->dims[d] != y->dims[d])
                return FDNN_NOT_SUPPORTED("node %d (concat): input %d dim %d is %lld, y's %lld", idx, i, d,
                                          (long long)x->dims[d], (long long)y->dims[d]);
        total += x->dims[c->axis];
    }
    if (total != y->dims[c->axis])
        return FDNN_NOT_SUPPORTED("node %d (concat): the inputs add up to %lld along axis %lld, y has %lld", idx,
                                  (long long)total, (long long)c->axis, (long long)y->dims[c->axis]);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
concat_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch, (void)scratch_bytes;
    const fdnn_gop_concat_t *c = &e->graph->nodes[idx].u.concat;
    const fdnn_graph_tensor_t *y = &e->graph->tensors[c->y];
    size_t es = gx_dtype_size(y->dtype);
    int64_t base = 0;
    for (int k = 0; k < c->ninputs; k++) {
        const fdnn_graph_tensor_t *x = &e->graph->tensors[c->inputs[k]];
        int64_t n;
        gx_tensor_elements(x, &n);
        for (int64_t i = 0; i < n; i++) {
            int64_t f = i, xo = 0, yo = 0;
            for (int d = x->ndim - 1; d >= 0; d--) {
                int64_t j = f % x->dims[d];
                f /= x->dims[d];
                xo += j * x->strides[d];
                yo += (d == c->axis ? j + base : j) * y->strides[d];
            }
            memmove((char *)ptr[c->y] + (size_t)yo * es, (const char *)ptr[c->inputs[k]] + (size_t)xo * es, es);
        }
        base += x->dims[c->axis];
    }
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_concat_exec = {concat_supports, no_scratch, concat_run};

/* Signal nodes: y = x (a pass-through, when the graph has them); SET then
 * writes `value` into the flag tensor (INT64 or INT32), WAIT checks that
 * the flag holds `value`.  Execution is synchronous on the CPU: nothing
 * else can set the flag while the graph runs, so a WAIT that does not hold
 * fails (EXECUTION_FAILED with the reason) instead of hanging. */
static cudnnStatus_t
signal_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_signal_t *s = &g->nodes[idx].u.signal;
    if (s->mode != CUDNN_SIGNAL_SET && s->mode != CUDNN_SIGNAL_WAIT)
        return FDNN_NOT_SUPPORTED("node %d (signal): mode %d", idx, (int)s->mode);
    if (s->flag == FDNN_GRAPH_NONE ||
        (g->tensors[s->flag].dtype != CUDNN_DATA_INT64 && g->tensors[s->flag].dtype != CUDNN_DATA_INT32))
        return FDNN_NOT_SUPPORTED("node %d (signal): the flag must be an INT64 or INT32 tensor", idx);
    if ((s->x == FDNN_GRAPH_NONE) != (s->y == FDNN_GRAPH_NONE))
        return FDNN_NOT_SUPPORTED("node %d (signal): x without y or y without x", idx);
    if (s->x != FDNN_GRAPH_NONE) {
        const fdnn_graph_tensor_t *x = &g->tensors[s->x], *y = &g->tensors[s->y];
        if (x->dtype != y->dtype || x->ndim != y->ndim ||
            memcmp(x->dims, y->dims, sizeof(int64_t) * (size_t)x->ndim) != 0 || gx_dtype_size(x->dtype) == 0)
            return FDNN_NOT_SUPPORTED("node %d (signal): x and y differ in type or dims", idx);
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
signal_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch, (void)scratch_bytes;
    const fdnn_gop_signal_t *s = &e->graph->nodes[idx].u.signal;
    const fdnn_graph_tensor_t *f = &e->graph->tensors[s->flag];
    if (s->x != FDNN_GRAPH_NONE) {
        const fdnn_graph_tensor_t *x = &e->graph->tensors[s->x], *y = &e->graph->tensors[s->y];
        size_t es = gx_dtype_size(x->dtype);
        int64_t n;
        gx_tensor_elements(x, &n);
        for (int64_t i = 0; i < n; i++)
            memmove((char *)ptr[s->y] + (size_t)offset_of(y, i) * es,
                    (const char *)ptr[s->x] + (size_t)offset_of(x, i) * es, es);
    }
    int64_t have = f->dtype == CUDNN_DATA_INT32 ? ((const int32_t *)ptr[s->flag])[0] : 0;
    if (f->dtype == CUDNN_DATA_INT64)
        memcpy(&have, ptr[s->flag], sizeof(have));
    if (s->mode == CUDNN_SIGNAL_SET) {
        if (f->dtype == CUDNN_DATA_INT32)
            ((int32_t *)ptr[s->flag])[0] = (int32_t)s->value;
        else
            memcpy(ptr[s->flag], &s->value, sizeof(s->value));
    } else if (have != s->value) {
        return fdnn_fail(CUDNN_STATUS_EXECUTION_FAILED,
                         "node %d (signal WAIT): the flag holds %lld, not %lld, and nothing can set it while the "
                         "graph runs",
                         idx, (long long)have, (long long)s->value);
    }
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_signal_exec = {signal_supports, no_scratch, signal_run};
