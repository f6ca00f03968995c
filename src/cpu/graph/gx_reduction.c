/* SPDX-License-Identifier: Apache-2.0
 * Reduction nodes through the legacy reduction (cudnnReduceTensor's
 * engine, src/cpu/tensor/reduce.c): y = reduce(x) over the dims where y has
 * extent 1, every cudnnReduceTensorOp_t, in a fixed order that depends on
 * the shape only.  NaN propagates (a NaN input gives a NaN output for
 * MIN / MAX / AMAX as for the sums): the graph reduction descriptor has no
 * NaN option, and hiding a NaN would be a silent wrong answer. */
#include <string.h>

#include "core/ckd.h"
#include "core/fail.h"
#include "cpu/graph/graph_exec.h"
#include "cpu/tensor/tensor_ops.h"

static cudnnStatus_t
red_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_reduction_t *r = &g->nodes[idx].u.reduction;
    const fdnn_graph_tensor_t *x = &g->tensors[r->x], *y = &g->tensors[r->y];
    if ((unsigned)r->op > (unsigned)CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
        return FDNN_NOT_SUPPORTED("node %d (reduction): operator %d is not a cudnnReduceTensorOp_t", idx, (int)r->op);
    bool f64 = r->compute_type == CUDNN_DATA_DOUBLE;
    cudnnDataType_t want = f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    /* FP8 operands compute in FLOAT through FLOAT copies */
    bool xok = x->dtype == want || (!f64 && gx_is_fp8(x->dtype));
    bool yok = y->dtype == want || (!f64 && gx_is_fp8(y->dtype));
    if ((r->compute_type != CUDNN_DATA_FLOAT && !f64) || !xok || !yok)
        return FDNN_NOT_SUPPORTED("node %d (reduction): x %s, y %s with compute type %s; FLOAT or DOUBLE "
                                  "throughout are done, and FP8 x or y with FLOAT compute",
                                  idx, gx_dtype_name(x->dtype), gx_dtype_name(y->dtype),
                                  gx_dtype_name(r->compute_type));
    if (x->ndim != y->ndim || x->ndim > CUDNN_DIM_MAX)
        return FDNN_NOT_SUPPORTED("node %d (reduction): x has %d dims, y %d", idx, x->ndim, y->ndim);
    for (int d = 0; d < x->ndim; d++)
        if (y->dims[d] != 1 && y->dims[d] != x->dims[d])
            return FDNN_NOT_SUPPORTED("node %d (reduction): y dim %d is %lld, neither 1 nor x's %lld", idx, d,
                                      (long long)y->dims[d], (long long)x->dims[d]);
    if (x->by_value || y->by_value)
        return FDNN_NOT_SUPPORTED("node %d (reduction): by-value operands", idx);
    return CUDNN_STATUS_SUCCESS;
}

static void
problem(const fdnn_graph_t *g, int idx, fdnn_reduce_t *p)
{
    const fdnn_gop_reduction_t *r = &g->nodes[idx].u.reduction;
    memset(p, 0, sizeof(*p));
    p->op = r->op;
    p->propagate_nan = true;
    p->f64 = r->compute_type == CUDNN_DATA_DOUBLE;
    p->alpha = 1;
    p->beta = 0;
    fdnn_graph_tensor_t x, y;
    gx_stage_retype(&g->tensors[r->x], &x);
    gx_stage_retype(&g->tensors[r->y], &y);
    gx_tensor_view(&x, &p->a);
    gx_tensor_view(&y, &p->c);
}

/* Scratch: the FLOAT copies of FP8 x and y, then the reduction's. */
static cudnnStatus_t
red_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    const fdnn_gop_reduction_t *r = &g->nodes[idx].u.reduction;
    fdnn_reduce_t p;
    size_t bx, by;
    problem(g, idx, &p);
    *bytes = fdnn_tensor_reduce_workspace(&p.a, &p.c);
    if (!gx_stage_bytes(&g->tensors[r->x], &bx) || !gx_stage_bytes(&g->tensors[r->y], &by) ||
        !fdnn_ckd_add_size(*bytes, bx, bytes) || !fdnn_ckd_add_size(*bytes, by, bytes))
        return FDNN_NOT_SUPPORTED("node %d (reduction): the FLOAT copies of the FP8 operands overflow the "
                                  "workspace size",
                                  idx);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
red_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch_bytes;
    const fdnn_graph_t *g = e->graph;
    fdnn_reduce_t p;
    problem(g, idx, &p);
    const fdnn_gop_reduction_t *r = &g->nodes[idx].u.reduction;
    const fdnn_graph_tensor_t *x = &g->tensors[r->x], *y = &g->tensors[r->y];
    size_t bx = 0, by = 0;
    (void)gx_stage_bytes(x, &bx); /* checked by red_scratch */
    (void)gx_stage_bytes(y, &by);
    char *at = scratch;
    p.a_data = ptr[r->x];
    p.c_data = ptr[r->y];
    if (bx != 0) {
        gx_stage_load(x, ptr[r->x], (float *)at);
        p.a_data = at;
        at += bx;
    }
    if (by != 0) {
        p.c_data = at;
        at += by;
    }
    fdnn_tensor_reduce(e->handle, &p, bx + by != 0 ? at : scratch);
    if (by != 0)
        gx_stage_store(y, p.c_data, ptr[r->y]);
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_reduction_exec = {red_supports, red_scratch, red_run};
