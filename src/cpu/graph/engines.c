/* SPDX-License-Identifier: Apache-2.0
 * The graph engines, best first (graph_ir.h).  No engine yet: every graph
 * is answered NOT_SUPPORTED by the API side, with the reason that no engine
 * runs it. */
#include <stddef.h>

#include "core/graph_ir.h"

const fdnn_graph_engine_t *
fdnn_graph_engines(int *count)
{
    *count = 0;
    return NULL;
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
