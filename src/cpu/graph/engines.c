/* SPDX-License-Identifier: Apache-2.0
 * The graph engines, best first (graph_ir.h): the order is the heuristic
 * (modes INSTANT, A, B); FALLBACK offers the engines flagged fallback.
 *
 *   index  name            behaviour notes       runs
 *   2      sdpa_flash      -                     attention forward / backward, one tiled pass (FP32 math)
 *   1      fused_epilogue  RUNTIME_COMPILATION   conv fwd / matmul + a pointwise chain
 *   0      generic         -                     any graph of supported nodes (the fallback)
 *
 * Every engine is deterministic: the same bits for any thread count (cuDNN
 * 8.9 has no DETERMINISTIC note; the absence of NONDETERMINISTIC says it).
 * No engine has knobs yet: none would change anything measurable. */
#include <stddef.h>

#include "core/graph_ir.h"
#include "cpu/graph/engines.h"

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
