/* SPDX-License-Identifier: Apache-2.0
 * The graph engines, best first (graph_ir.h): the order is the heuristic
 * (modes INSTANT, A, B); FALLBACK offers the engines flagged fallback.
 *
 *   index  name            behaviour notes       runs
 *   2      sdpa_flash      -                     attention forward / backward, one tiled pass (FP32 math)
 *   1      fused_epilogue  RUNTIME_COMPILATION   conv fwd / matmul + a pointwise chain
 *   3..22  conv_<solver>   FFT / WINOGRAD notes  node by node, every conv on that solver
 *                                                (engine_conv.c; reordered per graph)
 *   0      generic         -                     any graph of supported nodes (the fallback)
 *
 * Every engine is deterministic: the same bits for any thread count (cuDNN
 * 8.9 has no DETERMINISTIC note; the absence of NONDETERMINISTIC says it).
 * No engine has knobs yet: none would change anything measurable. */
#include <stddef.h>
#include <stdio.h>

#include "core/graph_ir.h"
#include "core/fail.h"
#include "cpu/graph/engines.h"
#include "cpu/graph/graph_exec.h"

static const fdnn_graph_engine_t list[] = {
    {
        .global_index = FDNN_GRAPH_ENGINE_SDPA_FLASH,
        .name = "sdpa_flash",
        .fallback = false,
        .supports = gx_sdpa_supports,
        .workspace = gx_sdpa_workspace,
        .execute = gx_sdpa_execute,
    },
    {
        .global_index = FDNN_GRAPH_ENGINE_FUSED_EPILOGUE,
        .name = "fused_epilogue",
        .fallback = false,
        .behavior_notes = 1u << CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION,
        .supports = gx_fused_supports,
        .workspace = gx_fused_workspace,
        .execute = gx_fused_execute,
    },
#define FDNN_CONV_ENGINE_ENTRY(INDEX, SOLVER, NAME, NOTES)                                                       \
    {                                                                                                              \
        .global_index = INDEX,                                                                                     \
        .name = NAME,                                                                                              \
        .fallback = false,                                                                                         \
        .numerical_notes = NOTES,                                                                                  \
        .supports = gx_conv_engine_supports_##SOLVER,                                                              \
        .workspace = gx_conv_engine_workspace_##SOLVER,                                                            \
        .execute = gx_conv_engine_execute_##SOLVER,                                                                \
    },
    FDNN_GRAPH_CONV_SOLVER_ENGINES(FDNN_CONV_ENGINE_ENTRY)
#undef FDNN_CONV_ENGINE_ENTRY
    {
        .global_index = FDNN_GRAPH_ENGINE_GENERIC,
        .name = "generic",
        .fallback = true,
        .supports = gx_generic_supports,
        .workspace = gx_generic_workspace,
        .execute = gx_generic_execute,
    },
};

const fdnn_graph_engine_t *
fdnn_graph_engines(int *count)
{
    *count = (int)(sizeof(list) / sizeof(list[0]));
    return list;
}

const fdnn_graph_engine_t *
fdnn_graph_engine_by_index(int64_t global_index)
{
    int n = 0;
    const fdnn_graph_engine_t *list = fdnn_graph_engines(&n);
    for (int i = 0; i < n; i++)
        if (list[i].global_index == global_index)
            return &list[i];
    return NULL;
}

static bool
is_conv_engine(const fdnn_graph_engine_t *e)
{
    return e->global_index >= FDNN_GRAPH_ENGINE_CONV_FIRST && e->supports != gx_generic_supports &&
           e->supports != gx_fused_supports && e->supports != gx_sdpa_supports;
}

/* The solver id of a conv-solver engine. */
static int
solver_of(int64_t global_index)
{
#define FDNN_CONV_ENGINE_SOLVER(INDEX, SOLVER, NAME, NOTES)                                                      \
    if (global_index == INDEX)                                                                                     \
        return SOLVER;
    FDNN_GRAPH_CONV_SOLVER_ENGINES(FDNN_CONV_ENGINE_SOLVER)
#undef FDNN_CONV_ENGINE_SOLVER
    return 0;
}

int
fdnn_graph_heuristic(const fdnn_graph_t *g, bool fallback_only, const fdnn_graph_engine_t **out, char *why,
                     size_t why_size)
{
    int n = 0, count = 0;
    const fdnn_graph_engine_t *table = fdnn_graph_engines(&n);
    size_t used = 0;
    if (why_size > 0)
        why[0] = 0;
    for (int i = 0; i < n; i++) {
        if (fallback_only && !table[i].fallback)
            continue;
        if (table[i].supports(g) == CUDNN_STATUS_SUCCESS) {
            out[count++] = &table[i];
        } else if (used < why_size) {
            int w = snprintf(why + used, why_size - used, "%s%s: %s", used ? "; " : "", table[i].name,
                             fdnn_fail_reason());
            used += w > 0 ? (size_t)w : 0;
        }
    }
    /* The conv-solver engines, contiguous in the table, in _v7's order for
     * the first convolution node (an insertion sort by rank: stable). */
    int first = 0;
    while (first < count && !is_conv_engine(out[first]))
        first++;
    int last = first;
    while (last < count && is_conv_engine(out[last]))
        last++;
    int conv = -1;
    for (int i = 0; i < g->nnodes && conv < 0; i++)
        if (g->nodes[i].kind == FDNN_GOP_CONV_FWD || g->nodes[i].kind == FDNN_GOP_CONV_BWD_DATA ||
            g->nodes[i].kind == FDNN_GOP_CONV_BWD_FILTER)
            conv = i;
    int ids[16], nids = 0;
    if (last - first > 1 && conv >= 0 && gx_conv_solver_order(g, conv, ids, &nids) == CUDNN_STATUS_SUCCESS) {
        for (int i = first + 1; i < last; i++) {
            const fdnn_graph_engine_t *e = out[i];
            int r = nids, j = i;
            for (int k = 0; k < nids; k++)
                if (ids[k] == solver_of(e->global_index))
                    r = k;
            while (j > first) {
                int rp = nids, sp = solver_of(out[j - 1]->global_index);
                for (int k = 0; k < nids; k++)
                    if (ids[k] == sp)
                        rp = k;
                if (rp <= r)
                    break;
                out[j] = out[j - 1];
                j--;
            }
            out[j] = e;
        }
    }
    return count;
}
