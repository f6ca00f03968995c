/* SPDX-License-Identifier: Apache-2.0
 * What the graph engines share (src/cpu/graph/): where each tensor of a
 * graph lives during one execution, element loads and stores of any storage
 * type, the per-node executors of the generic engine and the pointwise row
 * kernels that the fused engine reuses.
 *
 * Files:
 *   engines.c         the engine table (global indices, notes, knobs)
 *   engine_generic.c  node by node, virtual tensors in the workspace
 *   engine_fused.c    conv / matmul + pointwise chain in one pass
 *   engine_sdpa*.c    attention forward / backward (gx_sdpa.h)
 *   gx_layout.c       workspace layout, tensor pointers, loads and stores
 *   gx_pointwise.c    the pointwise node (all 50 modes) and its row kernels
 *   gx_pw_row.inc     the row kernels, once per math type
 *   gx_conv.c         convolution nodes through the legacy solvers
 *   gx_matmul.c       matmul nodes through the GEMM core
 *   gx_reduction.c    reduction nodes through the legacy reduction
 *   gx_movement.c     reshape, concatenation and signal nodes
 *   gx_stats_rng.c    gen-stats and RNG (Philox) nodes
 *   gx_norm.c         normalization forward (layer, instance, batch)
 *   gx_norm_bwd.c     normalization backward (layer, instance, batch)
 *   gx_bn_finalize.c  BN finalize statistics (training, inference)
 *   gx_bn_bwd_weights.c  BN backward weights (dscale, dbias, dx coefficients)
 *   gx_resample.c     resample forward: max / average pooling
 *   gx_resample_bwd.c resample backward: max / average pooling
 *   gx_rows.c         row walks, row loads and stores of any type
 *   gx_pw_row__*.c    the row kernels per ISA level
 *   gx_stage.c        FP8 operands of conv / matmul / reduction as FLOAT
 *
 * Every executor trusts what its `supports` accepted: supports runs at plan
 * time (the API side calls the engine's supports before workspace/execute). */
#ifndef FDNN_CPU_GRAPH_EXEC_H
#define FDNN_CPU_GRAPH_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "core/graph_ir.h"
#include "core/tensor.h"

/* Alignment of every buffer the engines place in the workspace. */
#define GX_ALIGN 64
/* Elements per chunk of the pointwise row kernels (stack buffers). */
#define GX_CHUNK 256

/* ---- workspace layout (gx_layout.c) ------------------------------------ */

/* Where the workspace puts things for one graph: the pointer table (one
 * void * per tensor), every virtual tensor the engine materializes (offset
 * per tensor, SIZE_MAX for those it does not), then `scratch` bytes for the
 * node that needs the most (conv solver workspace, reduction partials). */
typedef struct gx_layout {
    size_t table_offset;
    size_t *tensor_offset; /* ntensors entries, caller-owned */
    size_t scratch_offset, scratch_bytes;
    size_t total;
} gx_layout_t;

/* Lays out the workspace: `materialize[i]` says whether virtual tensor i
 * needs a buffer (NULL: every virtual tensor).  NOT_SUPPORTED with a reason
 * when a size overflows (checked arithmetic throughout). */
cudnnStatus_t gx_layout_init(const fdnn_graph_t *g, const bool *materialize, size_t scratch_bytes, gx_layout_t *lay);

/* The pointers of every tensor for one execution: the user's for graph
 * inputs and outputs, the workspace slot for materialized virtual tensors,
 * the by-value bytes for scalars.  The table lives in the workspace; returns
 * it.  BAD_PARAM when a non-virtual operand has a NULL pointer. */
cudnnStatus_t gx_bind(const fdnn_graph_exec_t *e, const gx_layout_t *lay, void ***table);

/* The scratch region of an execution bound with gx_bind (NULL when the
 * layout has none). */
void *gx_scratch_ptr(const fdnn_graph_exec_t *e, const gx_layout_t *lay);

/* Bytes per element of a graph data type (BOOLEAN: one byte), 0 unknown. */
size_t gx_dtype_size(cudnnDataType_t dt);

/* Whether gx_load/gx_store handle this storage type. */
bool gx_dtype_storable(cudnnDataType_t dt);

/* Element `off` (in elements) of a buffer of storage type dt, as a double;
 * and the store of v (rounded to nearest for integers, saturating; BOOLEAN
 * stores v != 0). */
double gx_load(cudnnDataType_t dt, const void *base, int64_t off);
void gx_store(cudnnDataType_t dt, void *base, int64_t off, double v);

/* The span of a tensor in elements (1 + sum (dim-1)*stride), checked: false
 * on overflow. */
bool gx_tensor_span(const fdnn_graph_tensor_t *t, int64_t *span);

/* The element count (product of dims), checked. */
bool gx_tensor_elements(const fdnn_graph_tensor_t *t, int64_t *count);

/* The view of a graph tensor the legacy kernels take (same dims, strides). */
void gx_tensor_view(const fdnn_graph_tensor_t *t, fdnn_tensor_t *v);

/* A human-readable dtype name for reasons. */
const char *gx_dtype_name(cudnnDataType_t dt);

/* ---- FP8 operands as FLOAT (gx_stage.c) -------------------------------- */

/* The FP8 storage types (E4M3, E5M2) compute in FLOAT ("storage with FP32
 * compute").  Pointwise and the other elementwise nodes load and store them
 * through gx_load / gx_store; the compute nodes (convolution, matmul,
 * reduction) give each FP8 operand a FLOAT copy with the same dims and
 * strides at the start of their scratch, run their FLOAT kernel on the
 * copies, and store an FP8 output back element by element. */
bool gx_is_fp8(cudnnDataType_t dt);
/* Bytes of t's FLOAT copy, a multiple of GX_ALIGN (0 when t is not FP8);
 * false on overflow. */
bool gx_stage_bytes(const fdnn_graph_tensor_t *t, size_t *bytes);
/* The FLOAT copy of t's span, from src (t FP8). */
void gx_stage_load(const fdnn_graph_tensor_t *t, const void *src, float *dst);
/* t's elements (never the gaps between them) from the FLOAT copy src into
 * dst, in t's type. */
void gx_stage_store(const fdnn_graph_tensor_t *t, const float *src, void *dst);
/* *copy = *t, with FLOAT for an FP8 type. */
void gx_stage_retype(const fdnn_graph_tensor_t *t, fdnn_graph_tensor_t *copy);

/* ---- node executors ----------------------------------------------------- */

/* One node kind: whether node `idx` of g can run (NOT_SUPPORTED naming the
 * node, its kind and the attribute otherwise), the scratch it needs in the
 * workspace, and its execution with the pointer table. */
typedef struct gx_node_exec {
    cudnnStatus_t (*supports)(const fdnn_graph_t *g, int idx);
    cudnnStatus_t (*scratch)(const fdnn_graph_t *g, int idx, size_t *bytes);
    cudnnStatus_t (*run)(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes);
} gx_node_exec_t;

/* The executor of a node kind, or NULL when the generic engine does not
 * run that kind (yet). */
const gx_node_exec_t *gx_node_exec_for(fdnn_graph_op_kind_t kind);

extern const gx_node_exec_t gx_conv_exec;
extern const gx_node_exec_t gx_matmul_exec;
extern const gx_node_exec_t gx_pointwise_exec;
extern const gx_node_exec_t gx_reduction_exec;
extern const gx_node_exec_t gx_reshape_exec;
extern const gx_node_exec_t gx_concat_exec;
extern const gx_node_exec_t gx_gen_stats_exec;
extern const gx_node_exec_t gx_rng_exec;
extern const gx_node_exec_t gx_norm_fwd_exec;
extern const gx_node_exec_t gx_bn_finalize_exec;
extern const gx_node_exec_t gx_resample_fwd_exec;
extern const gx_node_exec_t gx_norm_bwd_exec;
extern const gx_node_exec_t gx_bn_bwd_weights_exec;
extern const gx_node_exec_t gx_resample_bwd_exec;
extern const gx_node_exec_t gx_signal_exec;

/* ---- convolution and matmul pieces the fused engine reuses ------------- */

struct fdnn_conv_problem;
/* The legacy problem of conv node idx (NOT_SUPPORTED with the reason when
 * the solvers cannot take it: asymmetric padding, vectorized tensors,
 * unpacked filters, data-type configurations not done). */
cudnnStatus_t gx_conv_problem(const fdnn_graph_t *g, int idx, struct fdnn_conv_problem *p);
/* Conv node idx with every convolution on solver `solver` of the ordered
 * list (0: the heuristic's first applicable one, as gx_conv_exec): supports
 * (the solver's reason when it declines), scratch, run. */
cudnnStatus_t gx_conv_supports_solver(const fdnn_graph_t *g, int idx, int solver);
cudnnStatus_t gx_conv_scratch_solver(const fdnn_graph_t *g, int idx, int solver, size_t *bytes);
cudnnStatus_t gx_conv_run_solver(const fdnn_graph_exec_t *e, void **ptr, int idx, int solver, void *scratch,
                                 size_t scratch_bytes);
/* The solver ids of conv node idx in the order cudnnGet*Algorithm_v7 lists
 * their algorithms for its problem (fdnn_conv_heuristic_order); *n of
 * them (at most 16). */
cudnnStatus_t gx_conv_solver_order(const fdnn_graph_t *g, int idx, int *ids, int *n);
/* The algorithm cudnnGet*Algorithm_v7 would put first among the applicable
 * ones for p, and its workspace. */
cudnnStatus_t gx_conv_pick(const struct fdnn_conv_problem *p, int *algo, size_t *ws);

/* A matmul node as GEMM calls: per batch of C, the offsets of A, B, C
 * (batch dims broadcast), and the in-place layouts of the three matrices. */
typedef struct gx_mm {
    bool f64;
    int64_t m, n, k;
    int nb; /* batch dims */
    int64_t nbatch;
    int64_t bdims[FDNN_GRAPH_MAX_DIMS];
    int64_t a_bstr[FDNN_GRAPH_MAX_DIMS], b_bstr[FDNN_GRAPH_MAX_DIMS], c_bstr[FDNN_GRAPH_MAX_DIMS];
    bool a_t, b_t, c_colmajor; /* column-major (unit stride down the rows) */
    int64_t lda, ldb, ldc;
} gx_mm_t;

cudnnStatus_t gx_mm_plan(const fdnn_graph_t *g, int idx, gx_mm_t *mm);
void gx_mm_offsets(const gx_mm_t *mm, int64_t batch, int64_t *aoff, int64_t *boff, int64_t *coff);
/* Rows [r0, r0 + nr) of one batch's C = A x B into c (row-major, ldc): a
 * and b point at that batch's A and B.  False when memory ran out. */
bool gx_mm_rows(cudnnHandle_t h, const gx_mm_t *mm, const void *a, const void *b, int64_t r0, int64_t nr, void *c,
                int64_t ldc);
/* The same with the FP32 GEMM's tile hook (cpu/gemm/gemm.h; mm->f64 must
 * be false): hook(ctx, tile, ldc, row, col, rows, cols) on each finished
 * tile, row counted from r0's row (0). */
bool gx_mm_rows_hook(cudnnHandle_t h, const gx_mm_t *mm, const void *a, const void *b, int64_t r0, int64_t nr,
                     void *c, int64_t ldc, fdnn_gemm_tile_hook_t hook, void *hook_ctx);

/* ---- pointwise rows (gx_pointwise.c) ------------------------------------ */

/* The parameters of one pointwise node in the math type, resolved once. */
typedef struct gx_pw {
    cudnnPointwiseMode_t mode;
    fdnn_isa_t isa; /* of the row kernels: the handle's level */
    bool f64;       /* math precision DOUBLE (else FLOAT) */
    bool propagate_nan;
    double lower, upper, slope, elu_alpha, softplus_beta, swish_beta;
    double alpha1, alpha2;
} gx_pw_t;

void gx_pw_init(const fdnn_gop_pointwise_t *op, fdnn_isa_t isa, gx_pw_t *pw);

/* Arity of the mode's inputs besides GEN_INDEX: 1 (x), 2 (x, b; or x, dy for
 * the *_BWD modes) or 3 (x, b, t). */
int gx_pw_arity(cudnnPointwiseMode_t mode);

/* Whether the mode is one of the 50 of cuDNN 8.9. */
bool gx_pw_mode_known(cudnnPointwiseMode_t mode);

/* y[i] = op(x[i], b[i], t[i]) for i < n (n <= GX_CHUNK) in float / double;
 * b and t are read only by the modes that take them (x for the *_BWD modes
 * is the forward input and b is dy).  alpha1 / alpha2 are applied here.
 * GEN_INDEX is not a row operation (gx_pointwise.c writes it directly). */
void gx_pw_row_f32(const gx_pw_t *pw, int64_t n, float *y, const float *x, const float *b, const float *t);
void gx_pw_row_f64(const gx_pw_t *pw, int64_t n, double *y, const double *x, const double *b, const double *t);
/* Their kernels per ISA level (gx_pw_row__*.c), chosen by the per-ISA
 * configuration (src/cpu/config) from pw->isa. */
typedef void (*gx_pw_row_f32_fn)(const gx_pw_t *pw, int64_t n, float *restrict y, const float *restrict x,
                                 const float *restrict b, const float *restrict t);
typedef void (*gx_pw_row_f64_fn)(const gx_pw_t *pw, int64_t n, double *restrict y, const double *restrict x,
                                 const double *restrict b, const double *restrict t);
#define GX_PW_ROW_DECL(isa)                                                                                   \
    void gx_pw_row_f32__##isa(const gx_pw_t *pw, int64_t n, float *restrict y, const float *restrict x,     \
                              const float *restrict b, const float *restrict t);                            \
    void gx_pw_row_f64__##isa(const gx_pw_t *pw, int64_t n, double *restrict y, const double *restrict x,   \
                              const double *restrict b, const double *restrict t);
GX_PW_ROW_DECL(scalar)
GX_PW_ROW_DECL(avx2)
GX_PW_ROW_DECL(avx512)

/* The name of a pointwise mode for reasons ("RELU_FWD"), "?" unknown. */
const char *gx_pw_mode_name(cudnnPointwiseMode_t mode);

/* The operand roles of a pointwise node: its output (y or dx), the input
 * read as x (x), as b (b or dy) and as t. */
void gx_pw_operands(const fdnn_gop_pointwise_t *op, int *out, int *in_x, int *in_b, int *in_t);

/* Checks of one pointwise node (shapes broadcast to the output, types
 * storable, math precision FLOAT or DOUBLE). */
cudnnStatus_t gx_pw_supports(const fdnn_graph_t *g, int idx);

/* Rows of an elementwise walk over a tensor's dims: the row dim is the one
 * with unit stride (else the last), rows are every position of the others. */
typedef struct gx_rows {
    int ndim, row_dim;
    int64_t row_len, nrows;
    int64_t dims[FDNN_GRAPH_MAX_DIMS];
} gx_rows_t;

void gx_rows_init(const fdnn_graph_tensor_t *o, gx_rows_t *r);
/* idx[] of the first element of row `row` (idx[row_dim] = 0). */
void gx_rows_pos(const gx_rows_t *r, int64_t row, int64_t *idx);

/* n elements of storage type dt from base + off, `stride` apart (0:
 * broadcast), converted into out[]. */
void gx_load_row_f32(cudnnDataType_t dt, const void *base, int64_t off, int64_t stride, int64_t n, float *out);
void gx_load_row_f64(cudnnDataType_t dt, const void *base, int64_t off, int64_t stride, int64_t n, double *out);
void gx_store_row_f32(cudnnDataType_t dt, void *base, int64_t off, int64_t stride, int64_t n, const float *in);
void gx_store_row_f64(cudnnDataType_t dt, void *base, int64_t off, int64_t stride, int64_t n, const double *in);

/* Elementwise offsets: for a position idx[] of the output's dims, the
 * offset in t, where dims of extent 1 broadcast. */
static inline int64_t
gx_bcast_offset(const fdnn_graph_tensor_t *t, const int64_t *idx)
{
    int64_t off = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->dims[d] != 1)
            off += idx[d] * t->strides[d];
    return off;
}

#endif /* FDNN_CPU_GRAPH_EXEC_H */
