/* SPDX-License-Identifier: Apache-2.0
 * Scaled dot-product attention in the graph engines: what the forward
 * (engine_sdpa.c) and backward (engine_sdpa_bwd.c) matchers recognize, the
 * per-score modifiers both apply, and the tiled kernels they run
 * (gx_sdpa_kern.inc, compiled once per ISA level).
 *
 * The score chain is the part of the graph between S = Q x K^T and the
 * softmax (forward) or the recomputed exp(S - stats) (backward), in graph
 * order: a MUL by a FLOAT scalar (the attention scale), a causal mask
 * (GEN_INDEX along dims 2 and 3, CMP_GE(row, col) or CMP_LE(col, row),
 * BINARY_SELECT(s, fill, mask)) and a padding mask (GEN_INDEX along dims 2
 * and 3, CMP_LT(row, seq_len_q), CMP_LT(col, seq_len_kv), LOGICAL_AND,
 * BINARY_SELECT(s, fill, mask)), each at most once, in any order: the
 * kernels apply them in the graph's order, in FLOAT, as the nodes would.
 *
 * Dropout: P x M x scale (two MULs, either order) with M either the output
 * of an RNG node (BERNOULLI, Philox as gx_stats_rng.c: element f of the
 * [B,H,Sq,Sk] mask keeps when (number 2f + 0.5) / 2^32 < probability) or a
 * [B,H,Sq,Sk] graph input read where it is needed. */
#ifndef FDNN_CPU_GRAPH_SDPA_H
#define FDNN_CPU_GRAPH_SDPA_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cpu.h"
#include "core/graph_ir.h"

#define GX_SDPA_KEY_BLOCK 64
#define GX_SDPA_MAX_HEAD_DIM 256
/* Row lengths of the packed tiles: [..][D] tiles have rows of LD_D(D)
 * floats, [D][Sk] tiles rows of LD_K(Sk), zero padded (full vectors). */
#define GX_SDPA_LD_D(d) (((d) + 15) / 16 * 16)
#define GX_SDPA_LD_K(sk) (((sk) + GX_SDPA_KEY_BLOCK - 1) / GX_SDPA_KEY_BLOCK * GX_SDPA_KEY_BLOCK)

typedef enum { GX_SDPA_SCALE, GX_SDPA_CAUSAL, GX_SDPA_PADDING } gx_sdpa_step_kind_t;

/* The score chain as matched: tensors of the graph, values read at execute. */
typedef struct gx_sdpa_chain {
    int q, kt;    /* S = Q x K^T: Q [B,H,Sq,D], K^T [B,H,D,Sk] */
    int s_out;    /* the chain's last tensor (the softmax input) */
    int nsteps;
    gx_sdpa_step_kind_t kind[3];
    int value_t[3];             /* the scale or the fill (FLOAT scalars) */
    int seq_q_t, seq_kv_t;      /* padding: [B,1,1,1] or [1,1,1,1] integer or FLOAT tensors */
    int nodes;                  /* nodes the chain used, the matmul included */
} gx_sdpa_chain_t;

typedef struct gx_sdpa_dropout {
    bool on;
    int mask_t;  /* the [B,H,Sq,Sk] mask tensor (RNG output or graph input) */
    int rng;     /* the RNG node, or -1 for a mask given as input */
    int scale_t; /* FLOAT scalar */
} gx_sdpa_dropout_t;

/* What the kernels need at run time for one head (b, h). */
typedef struct gx_sdpa_mods {
    int nsteps;
    gx_sdpa_step_kind_t kind[3];
    float value[3];
    float seq_q, seq_kv; /* padding: this batch's lengths */
    /* dropout */
    bool dropout;
    bool mask_given; /* read mask[] instead of Philox */
    uint64_t seed, call;
    double keep_p;
    float dscale;
    uint64_t flat0; /* flat index of (b, h, 0, 0) in the mask */
    int64_t b, h;
    const fdnn_graph_tensor_t *mask_tensor; /* mask_given: read where needed (never S x S in memory) */
    const void *mask_base;
} gx_sdpa_mods_t;

/* ---- the backward graph (engine_sdpa_bwd.c), reached through the
 * sdpa_flash engine's functions when a graph has three matmul outputs ---- */
cudnnStatus_t gx_sdpa_bwd_supports(const fdnn_graph_t *g);
cudnnStatus_t gx_sdpa_bwd_workspace(const fdnn_graph_t *g, size_t *bytes);
cudnnStatus_t gx_sdpa_bwd_execute(const fdnn_graph_exec_t *e);

/* ---- matching (gx_sdpa_match.c) ---------------------------------------- */

/* The node writing tensor t, or -1. */
int gx_sdpa_producer(const fdnn_graph_t *g, int t);
bool gx_sdpa_is_pw(const fdnn_graph_t *g, int n, cudnnPointwiseMode_t mode);
bool gx_sdpa_is_red(const fdnn_graph_t *g, int n, cudnnReduceTensorOp_t op);
/* A FLOAT scalar: by value, or a one-element tensor. */
bool gx_sdpa_scalar(const fdnn_graph_t *g, int t);

/* Walks back from tensor s through the chain to the Q x K^T matmul; marks
 * the nodes it uses in used[]. */
cudnnStatus_t gx_sdpa_match_chain(const fdnn_graph_t *g, int s, gx_sdpa_chain_t *c, bool *used);

/* Walks back from tensor t through a dropout (MUL by a mask, MUL by a
 * scalar, either order) if there is one; *base receives the tensor before
 * it (t itself without dropout). */
cudnnStatus_t gx_sdpa_match_dropout(const fdnn_graph_t *g, int t, int *base, gx_sdpa_dropout_t *d, bool *used);

/* Whether tensor t is [B, H, Sq, 1] (a per-row reduction of the scores). */
bool gx_sdpa_row_shaped(const fdnn_graph_t *g, int t, int64_t B, int64_t H, int64_t Sq);

/* NOT_SUPPORTED unless every non-virtual tensor a node writes is one of
 * outs[0..n) (the engine writes nothing else: an intermediate marked as a
 * graph output would silently stay unwritten). */
cudnnStatus_t gx_sdpa_only_outputs(const fdnn_graph_t *g, const int *outs, int n);

/* Q, K^T, ... checks shared by both directions: 4-D, FLOAT / HALF /
 * BFLOAT16, batch and head dims equal. */
bool gx_sdpa_io_type(cudnnDataType_t dt);

/* ---- execution helpers (gx_sdpa_match.c) ------------------------------- */

/* Floats of one task's tiles (forward: a block of `rows` query rows;
 * backward: a whole head), checked: false when the count overflows. */
bool gx_sdpa_tile_floats(int64_t rows, int64_t sq, int64_t sk, int64_t d, bool bwd, size_t *nf);

/* The modifiers of head (b, h) from the chain and dropout as matched and
 * the bound pointers. */
void gx_sdpa_mods_init(const fdnn_graph_t *g, void **ptr, const gx_sdpa_chain_t *c, const gx_sdpa_dropout_t *d,
                       int64_t b, int64_t h, int64_t H, int64_t Sq, int64_t Sk, gx_sdpa_mods_t *m);

/* Rows [r0, r0+nr) x cols [0, ncols) of a [.., .., R, C] tensor of head
 * (b, h) into dst[r][c] (row length ld >= ncols, the rest zeroed), as
 * float; `trans` reads element (c, r) instead (a tensor [.., .., C, R]).
 * Batch and head dims of extent 1 broadcast. */
void gx_sdpa_pack(const fdnn_graph_tensor_t *t, const void *base, int64_t b, int64_t h, int64_t r0, int64_t nr,
                  int64_t ncols, bool trans, float *dst, int64_t ld);
/* The inverse: src[r][c] into the tensor (trans: into element (c, r)). */
void gx_sdpa_unpack(const fdnn_graph_tensor_t *t, void *base, int64_t b, int64_t h, int64_t r0, int64_t nr,
                    int64_t ncols, bool trans, const float *src, int64_t ld);

/* ---- kernels (gx_sdpa_kern.inc per ISA) -------------------------------- */

/* Forward rows [i0, i0+nr) of one head.  q [nr][D], kt [D][Sk], v [Sk][D]
 * packed (row lengths GX_SDPA_LD_*); writes o [nr][D] and lse [nr]
 * (max + log sum).  64-byte aligned tiles. */
typedef void (*gx_sdpa_fwd_fn)(const gx_sdpa_mods_t *m, int64_t i0, int64_t nr, int64_t Sk, int64_t D,
                               const float *q, const float *kt, const float *v, float *o, float *lse);

/* Backward of one head.  q, dout [Sq][D]; qt, doutt [Sq][D] (Q and dO as
 * read for dK and dV); kt, vt [D][Sk]; k [Sk][D]; lse, dsum [Sq]; bscale the
 * scale of dS.  Accumulates dq [Sq][D], dk, dv [Sk][D] (zeroed by the
 * caller). */
typedef void (*gx_sdpa_bwd_fn)(const gx_sdpa_mods_t *m, int64_t Sq, int64_t Sk, int64_t D, const float *q,
                               const float *qt, const float *kt, const float *k, const float *vt, const float *dout,
                               const float *doutt, const float *lse, const float *dsum, float bscale, float *dq,
                               float *dk, float *dv);

void gx_sdpa_fwd__scalar(const gx_sdpa_mods_t *m, int64_t i0, int64_t nr, int64_t Sk, int64_t D, const float *q,
                         const float *kt, const float *v, float *o, float *lse);
void gx_sdpa_fwd__avx2(const gx_sdpa_mods_t *m, int64_t i0, int64_t nr, int64_t Sk, int64_t D, const float *q,
                       const float *kt, const float *v, float *o, float *lse);
void gx_sdpa_fwd__avx512(const gx_sdpa_mods_t *m, int64_t i0, int64_t nr, int64_t Sk, int64_t D, const float *q,
                         const float *kt, const float *v, float *o, float *lse);
void gx_sdpa_bwd__scalar(const gx_sdpa_mods_t *m, int64_t Sq, int64_t Sk, int64_t D, const float *q, const float *qt,
                         const float *kt, const float *k, const float *vt, const float *dout, const float *doutt,
                         const float *lse, const float *dsum, float bscale, float *dq, float *dk, float *dv);
void gx_sdpa_bwd__avx2(const gx_sdpa_mods_t *m, int64_t Sq, int64_t Sk, int64_t D, const float *q, const float *qt,
                       const float *kt, const float *k, const float *vt, const float *dout, const float *doutt,
                       const float *lse, const float *dsum, float bscale, float *dq, float *dk, float *dv);
void gx_sdpa_bwd__avx512(const gx_sdpa_mods_t *m, int64_t Sq, int64_t Sk, int64_t D, const float *q, const float *qt,
                         const float *kt, const float *k, const float *vt, const float *dout, const float *doutt,
                         const float *lse, const float *dsum, float bscale, float *dq, float *dk, float *dv);

gx_sdpa_fwd_fn gx_sdpa_fwd_for(fdnn_isa_t isa);
gx_sdpa_bwd_fn gx_sdpa_bwd_for(fdnn_isa_t isa);

/* Applies the modifiers to scores s[0..nj) of row i, keys j0.. (in place). */
void gx_sdpa_apply_mods(const gx_sdpa_mods_t *m, int64_t i, int64_t j0, int64_t nj, float *s);
/* keep[j] = dscale or 0 for row i, keys j0..j0+nj (dropout on). */
void gx_sdpa_keep(const gx_sdpa_mods_t *m, int64_t Sk, int64_t i, int64_t j0, int64_t nj, float *keep);

#endif /* FDNN_CPU_GRAPH_SDPA_H */
