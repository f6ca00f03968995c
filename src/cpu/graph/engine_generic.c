/* SPDX-License-Identifier: Apache-2.0
 * The generic engine: runs any graph whose every node it has an executor
 * for, node by node in the graph's order, each virtual tensor in its own
 * slot of the workspace (exact sizes: the span of its dims and strides),
 * plus one scratch region of the largest size any node needs (convolution
 * solver workspaces, reduction partials).  The fallback of the table. */
#include <stdlib.h>

#include "core/fail.h"
#include "cpu/graph/engines.h"
#include "cpu/graph/graph_exec.h"

const gx_node_exec_t *
gx_node_exec_for(fdnn_graph_op_kind_t kind)
{
    switch (kind) {
    case FDNN_GOP_CONV_FWD:
    case FDNN_GOP_CONV_BWD_DATA:
    case FDNN_GOP_CONV_BWD_FILTER: return &gx_conv_exec;
    case FDNN_GOP_MATMUL: return &gx_matmul_exec;
    case FDNN_GOP_POINTWISE: return &gx_pointwise_exec;
    case FDNN_GOP_REDUCTION: return &gx_reduction_exec;
    case FDNN_GOP_RESHAPE: return &gx_reshape_exec;
    case FDNN_GOP_CONCAT: return &gx_concat_exec;
    case FDNN_GOP_GEN_STATS: return &gx_gen_stats_exec;
    case FDNN_GOP_RNG: return &gx_rng_exec;
    case FDNN_GOP_NORM_FWD: return &gx_norm_fwd_exec;
    case FDNN_GOP_NORM_BWD: return &gx_norm_bwd_exec;
    case FDNN_GOP_BN_BWD_WEIGHTS: return &gx_bn_bwd_weights_exec;
    case FDNN_GOP_BN_FINALIZE: return &gx_bn_finalize_exec;
    case FDNN_GOP_RESAMPLE_FWD: return &gx_resample_fwd_exec;
    case FDNN_GOP_RESAMPLE_BWD: return &gx_resample_bwd_exec;
    case FDNN_GOP_SIGNAL: return &gx_signal_exec;
    case FDNN_GOP_COUNT: break;
    }
    return NULL;
}

static bool
is_conv(fdnn_graph_op_kind_t k)
{
    return k == FDNN_GOP_CONV_FWD || k == FDNN_GOP_CONV_BWD_DATA || k == FDNN_GOP_CONV_BWD_FILTER;
}

/* `solver`: 0 lets every convolution node take the heuristic's solver;
 * otherwise every convolution node takes that solver of the ordered list
 * (the conv-solver engines, engine_conv.c). */
cudnnStatus_t
gx_generic_supports_solver(const fdnn_graph_t *g, int solver)
{
    if (g->nnodes <= 0)
        return FDNN_NOT_SUPPORTED("the graph has no operation");
    for (int i = 0; i < g->nnodes; i++) {
        const gx_node_exec_t *x = gx_node_exec_for(g->nodes[i].kind);
        if (x == NULL)
            return FDNN_NOT_SUPPORTED("node %d (%s): the generic engine does not run "
                                      "this operation kind yet",
                                      i, fdnn_graph_op_name(g->nodes[i].kind));
        if (is_conv(g->nodes[i].kind))
            RETURN_IF_ERROR(gx_conv_supports_solver(g, i, solver));
        else
            RETURN_IF_ERROR(x->supports(g, i));
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_generic_supports(const fdnn_graph_t *g)
{
    return gx_generic_supports_solver(g, 0);
}

static cudnnStatus_t
max_scratch(const fdnn_graph_t *g, int solver, size_t *bytes)
{
    *bytes = 0;
    for (int i = 0; i < g->nnodes; i++) {
        size_t b = 0;
        if (is_conv(g->nodes[i].kind))
            RETURN_IF_ERROR(gx_conv_scratch_solver(g, i, solver, &b));
        else
            RETURN_IF_ERROR(gx_node_exec_for(g->nodes[i].kind)->scratch(g, i, &b));
        if (b > *bytes)
            *bytes = b;
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
layout(const fdnn_graph_t *g, int solver, gx_layout_t *lay)
{
    size_t scratch;
    RETURN_IF_ERROR(gx_generic_supports_solver(g, solver));
    RETURN_IF_ERROR(max_scratch(g, solver, &scratch));
    lay->tensor_offset = malloc(sizeof(size_t) * (size_t)(g->ntensors > 0 ? g->ntensors : 1));
    if (lay->tensor_offset == NULL)
        return FDNN_ALLOC_FAILED("graph workspace layout: out of memory");
    cudnnStatus_t st = gx_layout_init(g, NULL, scratch, lay);
    if (st != CUDNN_STATUS_SUCCESS)
        free(lay->tensor_offset);
    return st;
}

cudnnStatus_t
gx_generic_workspace_solver(const fdnn_graph_t *g, int solver, size_t *bytes)
{
    gx_layout_t lay;
    RETURN_IF_ERROR(layout(g, solver, &lay));
    *bytes = lay.total;
    free(lay.tensor_offset);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_generic_workspace(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs, size_t *bytes)
{
    (void)knobs;
    return gx_generic_workspace_solver(g, 0, bytes);
}

cudnnStatus_t
gx_generic_execute_solver(const fdnn_graph_exec_t *e, int solver)
{
    const fdnn_graph_t *g = e->graph;
    gx_layout_t lay;
    void **ptr;
    RETURN_IF_ERROR(layout(g, solver, &lay));
    cudnnStatus_t st = gx_bind(e, &lay, &ptr);
    void *scratch = gx_scratch_ptr(e, &lay);
    for (int i = 0; i < g->nnodes && st == CUDNN_STATUS_SUCCESS; i++) {
        if (is_conv(g->nodes[i].kind))
            st = gx_conv_run_solver(e, ptr, i, solver, scratch, lay.scratch_bytes);
        else
            st = gx_node_exec_for(g->nodes[i].kind)->run(e, ptr, i, scratch, lay.scratch_bytes);
    }
    free(lay.tensor_offset);
    return st;
}

cudnnStatus_t
gx_generic_execute(const fdnn_graph_exec_t *e)
{
    return gx_generic_execute_solver(e, 0);
}
