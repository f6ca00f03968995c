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
    /* 3..22: one per convolution solver (FDNN_GRAPH_CONV_SOLVER_ENGINES) */
    FDNN_GRAPH_ENGINE_CONV_FIRST = 3,
};

/* The convolution-solver engines (engine_conv.c): global index, solver id
 * of src/cpu/conv/conv_list.c, name, numerical notes.  Append only: an
 * index is never renumbered or reused.  Their order here is the ordered
 * list's; the heuristics reorder them per graph as _v7 orders the
 * algorithms (fdnn_graph_heuristic). */
#define FDNN_GRAPH_NOTE(n) (1u << CUDNN_NUMERICAL_NOTE_##n)
#define FDNN_GRAPH_CONV_SOLVER_ENGINES(X)                                                          \
    X(3, 1, "conv_fwd_implicit_gemm", 0)                                                           \
    X(4, 2, "conv_fwd_implicit_precomp_gemm", 0)                                                   \
    X(5, 3, "conv_fwd_gemm", 0)                                                                    \
    X(6, 4, "conv_fwd_direct", 0)                                                                  \
    X(7, 5, "conv_fwd_winograd_nonfused", FDNN_GRAPH_NOTE(WINOGRAD))                               \
    X(8, 8, "conv_fwd_fft", FDNN_GRAPH_NOTE(FFT))                                                  \
    X(9, 9, "conv_fwd_fft_tiling", FDNN_GRAPH_NOTE(FFT))                                           \
    X(10, 31, "conv_fwd_winograd", FDNN_GRAPH_NOTE(WINOGRAD))                                      \
    X(11, 11, "conv_bwd_data_direct", 0)                                                           \
    X(12, 12, "conv_bwd_data_gemm", 0)                                                             \
    X(13, 18, "conv_bwd_data_fft", FDNN_GRAPH_NOTE(FFT))                                           \
    X(14, 19, "conv_bwd_data_fft_tiling", FDNN_GRAPH_NOTE(FFT))                                    \
    X(15, 32, "conv_bwd_data_winograd", FDNN_GRAPH_NOTE(WINOGRAD))                                 \
    X(16, 33, "conv_bwd_data_winograd_nonfused", FDNN_GRAPH_NOTE(WINOGRAD))                        \
    X(17, 21, "conv_bwd_filter_direct", 0)                                                         \
    X(18, 22, "conv_bwd_filter_gemm", 0)                                                           \
    X(19, 23, "conv_bwd_filter_gemm_explicit", 0)                                                  \
    X(20, 28, "conv_bwd_filter_fft", FDNN_GRAPH_NOTE(FFT))                                         \
    X(21, 29, "conv_bwd_filter_fft_tiling", FDNN_GRAPH_NOTE(FFT))                                  \
    X(22, 34, "conv_bwd_filter_winograd_nonfused", FDNN_GRAPH_NOTE(WINOGRAD))

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

/* The generic engine with every convolution node on solver `solver` of
 * the ordered list (0: the heuristic's, as the generic engine). */
cudnnStatus_t gx_generic_supports_solver(const fdnn_graph_t *g, int solver);
cudnnStatus_t gx_generic_workspace_solver(const fdnn_graph_t *g, int solver, size_t *bytes);
cudnnStatus_t gx_generic_execute_solver(const fdnn_graph_exec_t *e, int solver);

#define FDNN_CONV_ENGINE_DECL(INDEX, SOLVER, NAME, NOTES)                                                     \
    cudnnStatus_t gx_conv_engine_supports_##SOLVER(const fdnn_graph_t *g);                                    \
    cudnnStatus_t gx_conv_engine_workspace_##SOLVER(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs,   \
                                                    size_t *bytes);                                           \
    cudnnStatus_t gx_conv_engine_execute_##SOLVER(const fdnn_graph_exec_t *e);
FDNN_GRAPH_CONV_SOLVER_ENGINES(FDNN_CONV_ENGINE_DECL)
#undef FDNN_CONV_ENGINE_DECL

#endif /* FDNN_CPU_GRAPH_ENGINES_H */
