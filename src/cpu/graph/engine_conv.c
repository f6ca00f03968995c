/* SPDX-License-Identifier: Apache-2.0
 * One engine per convolution solver of the ordered list
 * (src/cpu/conv/conv_list.c), so that the graph API's engines and
 * heuristics read the same list as cudnnGet*Algorithm_v7 / Find: engine
 * "conv_<solver>" runs a graph exactly as the generic engine does, node by
 * node, except that every convolution node takes that solver.  It declines
 * (NOT_SUPPORTED with the reason) a graph without a convolution node, a
 * convolution node of another direction, and a problem the solver declines
 * (its own reason, as _v7 would report it).  The heuristics order these
 * engines as _v7 orders their algorithms for the graph's first convolution
 * (fdnn_graph_heuristic, engines.c).  The table of them, with their stable
 * global indices, is FDNN_GRAPH_CONV_SOLVER_ENGINES in engines.h. */
#include "core/fail.h"
#include "cpu/graph/engines.h"
#include "cpu/graph/graph_exec.h"

static cudnnStatus_t
conv_engine_supports(const fdnn_graph_t *g, int solver, const char *name)
{
    bool any = false;
    for (int i = 0; i < g->nnodes; i++) {
        fdnn_graph_op_kind_t k = g->nodes[i].kind;
        any |= k == FDNN_GOP_CONV_FWD || k == FDNN_GOP_CONV_BWD_DATA || k == FDNN_GOP_CONV_BWD_FILTER;
    }
    if (!any)
        return FDNN_NOT_SUPPORTED("the graph has no convolution node (engine %s runs one convolution solver)", name);
    return gx_generic_supports_solver(g, solver);
}

#define FDNN_CONV_ENGINE_FNS(INDEX, SOLVER, NAME, NOTES)                                                           \
    cudnnStatus_t gx_conv_engine_supports_##SOLVER(const fdnn_graph_t *g)                                         \
    {                                                                                                              \
        return conv_engine_supports(g, SOLVER, NAME);                                                              \
    }                                                                                                              \
    cudnnStatus_t gx_conv_engine_workspace_##SOLVER(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs,        \
                                                    size_t *bytes)                                                 \
    {                                                                                                              \
        (void)knobs;                                                                                               \
        return gx_generic_workspace_solver(g, SOLVER, bytes);                                                      \
    }                                                                                                              \
    cudnnStatus_t gx_conv_engine_execute_##SOLVER(const fdnn_graph_exec_t *e)                                     \
    {                                                                                                              \
        return gx_generic_execute_solver(e, SOLVER);                                                               \
    }
FDNN_GRAPH_CONV_SOLVER_ENGINES(FDNN_CONV_ENGINE_FNS)
