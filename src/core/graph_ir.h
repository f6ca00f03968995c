/* SPDX-License-Identifier: Apache-2.0
 * The operation graph as plain data: what the graph API's descriptors
 * become once finalized, and what the graph engines run.
 *
 * Two sides meet here.  The backend API (src/api/backend/: the
 * cudnnBackend* descriptors, their attributes, finalize checks, heuristics,
 * execution plans, variant packs, JSON) turns a finalized OPERATIONGRAPH
 * into one fdnn_graph_t.  The engines (src/cpu/graph/) each say whether they
 * run a graph, with which workspace, and run it.  Neither side includes the
 * other's headers; this file is their whole contract.
 *
 * Conventions:
 *   - Tensors are referred to by their index in fdnn_graph_t.tensors
 *     (FDNN_GRAPH_NONE = absent optional operand), never by pointer.
 *   - Dims and strides are in elements, in the order the user gave them
 *     (cuDNN's graph tensors are N, C, spatial... for convolutions and
 *     batch..., M, N/K for matmul), up to FDNN_GRAPH_MAX_DIMS.
 *   - Every operand shape, type and reference was checked by the API side at
 *     finalize (the node is well formed as cuDNN 8.9 defines it); an engine
 *     only decides whether it supports it, and says why not.
 *   - Nodes are in an order in which every node's inputs are produced before
 *     it (the API side sorts them; a graph with a cycle never gets here).
 *   - A tensor is an input of the graph when no node writes it, an output
 *     when it is not virtual and some node writes it; virtual tensors live
 *     only inside the graph (engines place them in the workspace).
 *   - Scalars given as by-value tensors (alpha/beta/epsilon/...) are tensors
 *     with by_value set; their value is in `value`, of the tensor's dtype.
 *     Scalars given as attributes (conv alpha/beta, pointwise alpha1/2) are
 *     doubles in the node. */
#ifndef FDNN_CORE_GRAPH_IR_H
#define FDNN_CORE_GRAPH_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_GRAPH_MAX_DIMS 8
#define FDNN_GRAPH_MAX_SPATIAL (FDNN_GRAPH_MAX_DIMS - 2)
#define FDNN_GRAPH_MAX_INPUTS 16 /* concatenation inputs, norm peer stats */
#define FDNN_GRAPH_NONE (-1)

typedef struct fdnn_graph_tensor {
    int64_t uid;
    cudnnDataType_t dtype;
    int ndim;
    int64_t dims[FDNN_GRAPH_MAX_DIMS];
    int64_t strides[FDNN_GRAPH_MAX_DIMS];
    int64_t alignment; /* CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT */
    bool is_virtual;
    bool by_value;
    _Alignas(16) unsigned char value[16]; /* by_value: the scalar (of dtype), as set; aligned for any type */
    int64_t vector_count;    /* 1 when not vectorized */
    int64_t vector_dim;      /* meaningful when vector_count > 1 */
    cudnnBackendTensorReordering_t reordering;
} fdnn_graph_tensor_t;

typedef enum fdnn_graph_op_kind {
    FDNN_GOP_CONV_FWD = 0,
    FDNN_GOP_CONV_BWD_DATA,
    FDNN_GOP_CONV_BWD_FILTER,
    FDNN_GOP_MATMUL,
    FDNN_GOP_POINTWISE,
    FDNN_GOP_REDUCTION,
    FDNN_GOP_GEN_STATS,
    FDNN_GOP_BN_FINALIZE,
    FDNN_GOP_BN_BWD_WEIGHTS,
    FDNN_GOP_NORM_FWD,
    FDNN_GOP_NORM_BWD,
    FDNN_GOP_RESAMPLE_FWD,
    FDNN_GOP_RESAMPLE_BWD,
    FDNN_GOP_RESHAPE,
    FDNN_GOP_CONCAT,
    FDNN_GOP_RNG,
    FDNN_GOP_SIGNAL,
    FDNN_GOP_COUNT
} fdnn_graph_op_kind_t;

/* Convolution in all three directions, operands by their role in the
 * forward problem: forward reads x, w and writes y; backward data reads y
 * (dy), w and writes x (dx); backward filter reads x, y (dy) and writes w
 * (dw).  out = alpha * conv + beta * out (beta 0: out is not read). */
typedef struct fdnn_gop_conv {
    int x, w, y;
    double alpha, beta;
    cudnnDataType_t compute_type;
    cudnnConvolutionMode_t mode;
    int nsp; /* spatial dims */
    int64_t pre_pad[FDNN_GRAPH_MAX_SPATIAL], post_pad[FDNN_GRAPH_MAX_SPATIAL];
    int64_t stride[FDNN_GRAPH_MAX_SPATIAL], dilation[FDNN_GRAPH_MAX_SPATIAL];
} fdnn_gop_conv_t;

/* C[b] = A[b] x B[b] over the last two dims (batch dims broadcast); the
 * override tensors (per-batch M, N, K, INT32/INT64) may be NONE. */
typedef struct fdnn_gop_matmul {
    int a, b, c;
    int m_override, n_override, k_override;
    cudnnDataType_t compute_type;
    double padding_value;
    int64_t irregular_batch_count; /* 0 when not set */
} fdnn_gop_matmul_t;

/* y = op(alpha1 * x [, alpha2 * b [, t]]) for the forward modes;
 * dx = op'(x or y, dy) for the *_BWD modes (x as given, dy, dx);
 * BINARY_SELECT: y = t ? x : b; GEN_INDEX: y = index of x along axis. */
typedef struct fdnn_gop_pointwise {
    cudnnPointwiseMode_t mode;
    cudnnDataType_t math_prec;
    cudnnNanPropagation_t nan_prop;
    double relu_lower_clip, relu_upper_clip, relu_lower_clip_slope;
    double elu_alpha, softplus_beta, swish_beta;
    int64_t axis;
    double alpha1, alpha2;
    int x, b, t, y, dx, dy;
} fdnn_gop_pointwise_t;

/* y = reduce(x) over the dims where y's size is 1 and x's is not. */
typedef struct fdnn_gop_reduction {
    cudnnReduceTensorOp_t op;
    cudnnDataType_t compute_type;
    int x, y;
} fdnn_gop_reduction_t;

/* sum and sum of squares of x per channel (mode CUDNN_GENSTATS_SUM_SQSUM). */
typedef struct fdnn_gop_gen_stats {
    cudnnGenStatsMode_t mode;
    cudnnDataType_t math_prec;
    int x, sum, sqsum;
} fdnn_gop_gen_stats_t;

/* Batch-norm statistics finalization (from gen-stats sums). */
typedef struct fdnn_gop_bn_finalize {
    cudnnBnFinalizeStatsMode_t mode;
    cudnnDataType_t math_prec;
    int y_sum, y_sq_sum, scale, bias;
    int prev_running_mean, prev_running_var, updated_running_mean, updated_running_var;
    int saved_mean, saved_inv_std, eq_scale, eq_bias;
    int accum_count, epsilon, exp_avg_factor; /* by-value or 1-element tensors */
} fdnn_gop_bn_finalize_t;

typedef struct fdnn_gop_bn_bwd_weights {
    cudnnDataType_t math_prec;
    int mean, inv_std, bn_scale, x, dy;
    int dbn_scale, dbn_bias, eq_dy_scale, eq_x_scale, eq_bias;
} fdnn_gop_bn_bwd_weights_t;

typedef struct fdnn_gop_norm_fwd {
    cudnnBackendNormMode_t mode;
    cudnnBackendNormFwdPhase_t phase;
    int x, mean, inv_variance, scale, bias, epsilon, exp_avg_factor;
    int input_running_mean, input_running_var, output_running_mean, output_running_var;
    int y;
    int npeer;
    int peer_stats[FDNN_GRAPH_MAX_INPUTS];
} fdnn_gop_norm_fwd_t;

typedef struct fdnn_gop_norm_bwd {
    cudnnBackendNormMode_t mode;
    int x, mean, inv_variance, dy, scale, epsilon, dscale, dbias, dx;
    int npeer;
    int peer_stats[FDNN_GRAPH_MAX_INPUTS];
} fdnn_gop_norm_bwd_t;

/* Pooling / interpolation.  Forward reads x, writes y (and idx for max
 * pooling in training); backward reads dy (and idx or x/y), writes dx. */
typedef struct fdnn_gop_resample {
    cudnnResampleMode_t mode;
    cudnnDataType_t compute_type;
    cudnnNanPropagation_t nan_prop;
    cudnnPaddingMode_t padding_mode;
    int nsp;
    int64_t window[FDNN_GRAPH_MAX_SPATIAL], stride[FDNN_GRAPH_MAX_SPATIAL];
    int64_t pre_pad[FDNN_GRAPH_MAX_SPATIAL], post_pad[FDNN_GRAPH_MAX_SPATIAL];
    double alpha, beta;
    int x, y, idx, dx, dy;
} fdnn_gop_resample_t;

typedef struct fdnn_gop_reshape {
    int x, y;
} fdnn_gop_reshape_t;

typedef struct fdnn_gop_concat {
    int64_t axis;
    int ninputs;
    int inputs[FDNN_GRAPH_MAX_INPUTS];
    int64_t inplace_index; /* -1 when not set */
    int y;
} fdnn_gop_concat_t;

typedef struct fdnn_gop_rng {
    cudnnRngDistribution_t distribution;
    double normal_mean, normal_stddev;
    double uniform_min, uniform_max;
    double bernoulli_probability;
    int y;
    int seed_tensor;    /* NONE: seed_value is the seed */
    int64_t seed_value; /* CUDNN_ATTR_OPERATION_RNG_SEED */
    int offset;         /* tensor (INT64) or NONE */
} fdnn_gop_rng_t;

typedef struct fdnn_gop_signal {
    cudnnSignalMode_t mode;
    int flag;
    int64_t value;
    int x, y;
} fdnn_gop_signal_t;

typedef struct fdnn_graph_node {
    fdnn_graph_op_kind_t kind;
    union {
        fdnn_gop_conv_t conv; /* CONV_FWD, CONV_BWD_DATA, CONV_BWD_FILTER */
        fdnn_gop_matmul_t matmul;
        fdnn_gop_pointwise_t pointwise;
        fdnn_gop_reduction_t reduction;
        fdnn_gop_gen_stats_t gen_stats;
        fdnn_gop_bn_finalize_t bn_finalize;
        fdnn_gop_bn_bwd_weights_t bn_bwd_weights;
        fdnn_gop_norm_fwd_t norm_fwd;
        fdnn_gop_norm_bwd_t norm_bwd;
        fdnn_gop_resample_t resample; /* RESAMPLE_FWD, RESAMPLE_BWD */
        fdnn_gop_reshape_t reshape;
        fdnn_gop_concat_t concat;
        fdnn_gop_rng_t rng;
        fdnn_gop_signal_t signal;
    } u;
} fdnn_graph_node_t;

typedef struct fdnn_graph {
    int ntensors;
    fdnn_graph_tensor_t *tensors;
    int nnodes;
    fdnn_graph_node_t *nodes; /* producers before consumers */
} fdnn_graph_t;

/* The indices of the tensors a node reads and writes (NONE entries
 * skipped); returns the counts.  in/out hold at least
 * FDNN_GRAPH_MAX_INPUTS + 16 entries.  Implemented once, in
 * src/core/graph_ir.c, for both sides. */
void fdnn_graph_node_operands(const fdnn_graph_node_t *n, int *in, int *nin, int *out, int *nout);

/* The short name of an operation kind ("conv_fwd", "pointwise", ...) for
 * reasons and logs. */
const char *fdnn_graph_op_name(fdnn_graph_op_kind_t kind);

/* ---- engines ---------------------------------------------------------- */

/* A knob an engine exposes (CUDNN_ATTR_KNOB_INFO_*) and a choice of it. */
typedef struct fdnn_graph_knob_info {
    cudnnBackendKnobType_t type;
    int64_t min, max, stride, default_value;
} fdnn_graph_knob_info_t;

typedef struct fdnn_graph_knob_choice {
    cudnnBackendKnobType_t type;
    int64_t value;
} fdnn_graph_knob_choice_t;

typedef struct fdnn_graph_knobs {
    int count;
    fdnn_graph_knob_choice_t choice[16];
} fdnn_graph_knobs_t;

/* What an execution gets: the operands by tensor index (data[i] is the
 * user's pointer for tensor i, NULL for virtual and by-value tensors), the
 * workspace of at least the engine's workspace size for this graph and
 * these knobs. */
typedef struct fdnn_graph_exec {
    cudnnHandle_t handle;
    const fdnn_graph_t *graph;
    const fdnn_graph_knobs_t *knobs;
    void *const *data;
    void *workspace;
    size_t workspace_bytes;
} fdnn_graph_exec_t;

/* One engine.  Engines are listed in one ordered table (src/cpu/graph/),
 * best first: that order is the heuristic (modes INSTANT, A, B), FALLBACK
 * takes the engines flagged as fallbacks.  global_index is stable: never
 * reused for another engine, it is what CUDNN_ATTR_ENGINE_GLOBAL_INDEX and
 * plans serialized as JSON refer to. */
typedef struct fdnn_graph_engine {
    int64_t global_index;
    const char *name;
    bool fallback;             /* offered by CUDNN_HEUR_MODE_FALLBACK */
    uint32_t numerical_notes;  /* bit (1u << cudnnBackendNumericalNote_t) */
    uint32_t behavior_notes;   /* bit (1u << cudnnBackendBehaviorNote_t) */
    int nknobs;
    const fdnn_graph_knob_info_t *knobs;
    /* SUCCESS, or NOT_SUPPORTED with a reason that names the node (index
     * and kind) and the attribute that the engine cannot run. */
    cudnnStatus_t (*supports)(const fdnn_graph_t *g);
    /* Workspace bytes for g with these knobs (checked arithmetic). */
    cudnnStatus_t (*workspace)(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs, size_t *bytes);
    cudnnStatus_t (*execute)(const fdnn_graph_exec_t *e);
} fdnn_graph_engine_t;

/* The engine table, best first; *count receives its length. */
const fdnn_graph_engine_t *fdnn_graph_engines(int *count);

/* The heuristics (ENGINEHEUR): the engines that run g, best first, into
 * out[] (room for the table's length); FALLBACK (fallback_only) keeps the
 * fallback engines only.  The table's order, except that the
 * convolution-solver engines come in the order cudnnGet*Algorithm_v7 lists
 * their algorithms for g's first convolution node.  `why` receives
 * "engine: reason; ..." for the engines that declined.  Returns the count. */
int fdnn_graph_heuristic(const fdnn_graph_t *g, bool fallback_only, const fdnn_graph_engine_t **out, char *why,
                         size_t why_size);

/* The engine with this global index, or NULL. */
const fdnn_graph_engine_t *fdnn_graph_engine_by_index(int64_t global_index);

#endif /* FDNN_CORE_GRAPH_IR_H */
