/* SPDX-License-Identifier: Apache-2.0
 * The engines of the table (engines.c) and their stable global indices.
 * An index is never reused for another engine: plans serialized as JSON and
 * CUDNN_ATTR_ENGINE_GLOBAL_INDEX refer to them. */
#ifndef FDNN_CPU_GRAPH_ENGINES_H
#define FDNN_CPU_GRAPH_ENGINES_H

#include "core/graph_ir.h"

enum {
    /* 0: node by node, virtual tensors in the workspace (fallback) */
    FDNN_GRAPH_ENGINE_GENERIC = 0,
    /* 1: convolution forward or matmul + a chain of pointwise ops, one pass */
    FDNN_GRAPH_ENGINE_FUSED_EPILOGUE = 1,
    /* 2: scaled dot-product attention forward and backward, tiled (flash) */
    FDNN_GRAPH_ENGINE_SDPA_FLASH = 2,
};

/* The functions of each engine (graph_ir.h's fdnn_graph_engine_t). */
cudnnStatus_t gx_generic_supports(const fdnn_graph_t *g);
cudnnStatus_t gx_generic_workspace(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs, size_t *bytes);
cudnnStatus_t gx_generic_execute(const fdnn_graph_exec_t *e);

cudnnStatus_t gx_fused_supports(const fdnn_graph_t *g);
cudnnStatus_t gx_fused_workspace(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs, size_t *bytes);
cudnnStatus_t gx_fused_execute(const fdnn_graph_exec_t *e);

cudnnStatus_t gx_sdpa_supports(const fdnn_graph_t *g);
cudnnStatus_t gx_sdpa_workspace(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs, size_t *bytes);
cudnnStatus_t gx_sdpa_execute(const fdnn_graph_exec_t *e);

#endif /* FDNN_CPU_GRAPH_ENGINES_H */
