/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention forward (cudnnMultiHeadAttnForward) on the CPU, FP32
 * and FP64 (every buffer, weight and workspace element of p->dtype; the
 * typed code is attn_t.inc, compiled by attn_f32.c and attn_f64.c), and the
 * reserve space that a training forward fills for the backward
 * functions (attn_bwd.h).
 *
 * For a query vector q (time t of sequence (b, m)) and each head h:
 *   q_h = W_Q,h q + b_Q,h                    (q itself without Q projection)
 *   k_h[j] = W_K,h K[j] + b_K,h, v_h[j] likewise for the keys j of the
 *            window [lo[t], hi[t]) clipped to [0, seqLengthKV)
 *   a_j = softmax_j(smScaler * <q_h, k_h[j]>)
 *   h_h = sum_j a_j v_h[j]                   (0 for an empty window)
 *   out = W_O [h_0; ...; h_{H-1}] + b_O (+ residual q)   ([h_0; ...] without O projection)
 *
 * Weights (our layout, reported by cudnnGetMultiHeadAttnWeights): all heads
 * of one projection form a column-major (H*P) x S matrix: element (h, p, s)
 * at (h*P + p) + s*H*P; W_O is column-major oLen x (H*Pv): element (h, o, v)
 * at o + (h*Pv + v)*oLen.  Biases: (h, p) at h*P + p; O: o.  As row-major
 * matrices these are S x (H*P) and (H*Pv) x oLen, so every projection is one
 * GEMM over all token rows (src/cpu/gemm/gemm.h).
 *
 * Data: a seq-data buffer is packed, VECT innermost, so it is a row-major
 * matrix of tokens x vector length; a token (t, b, m) is row
 * t*st[0] + b*st[1] + m*st[2].
 *
 * Dropout (training only, i.e. with a reserve space): attention dropout
 * multiplies the softmax probabilities by a mask of 0 and 1/(1-p) before
 * they weight V; post dropout does the same to the output vector before the
 * residual is added.  Element factors come from fdnn_attn_drop_factor, a
 * pure function of (seed, call, element index): probability (seq, h, t, j)
 * has index ((seq*H + h)*qT + t)*kT + j, output element i of token row r
 * (the row in q's buffer) has index r*oLen + i.  The backward recomputes the
 * same factors from the seed and call the forward recorded in the reserve
 * header, so nothing else is stored for them.
 *
 * HALF and BFLOAT16 data (attn_stage.c): the FP32 kernels run on FP32
 * copies of the inputs and weights, kept in the workspace after the FP32
 * kernels' own part; results are rounded to nearest even into the user's
 * buffers (only the elements the kernels changed) and the reserve holds
 * FP32 values.  With HALF compute precision (round_half) the FP32 forward
 * also rounds to half the projected Q, K, V, the softmax probabilities and
 * the head outputs before the O projection.  The backward runs in FP32.
 *
 * Threads: projections use the GEMM core (deterministic for any thread
 * count); the attention itself is one task per (sequence, head), whose two
 * products (Q K^T, then softmax(.) V) run through the GEMM core on that
 * task's thread with scratch from the workspace. */
#ifndef FDNN_CPU_ATTN_H
#define FDNN_CPU_ATTN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/handle.h"
#include "cpu/dropout/philox.h"
#include "cpu/gemm/gemm.h"

typedef struct fdnn_attn_problem {
    cudnnDataType_t dtype;    /* FLOAT or DOUBLE; HALF or BFLOAT16 staged (attn_stage.c) */
    cudnnDataType_t cprec;    /* compute precision: dtype, or FLOAT/HALF for HALF data */
    bool round_half;          /* FP32 forward only: round to half what HALF compute
                                 precision holds in half (set by the staging) */
    bool tensor_op;           /* the descriptor's mathType is TENSOR_OP_MATH or
                                 TENSOR_OP_MATH_ALLOW_CONVERSION */
    const struct fdnn_attn_lowp *lowp; /* FP32 kernels only: set by the staging
                                 for BF16 products (fdnn_attn_sgemm), else NULL */
    int H;
    double scaler;            /* rounded to float for FLOAT */
    bool one_to_one;          /* CUDNN_ATTN_QUERYMAP_ONE_TO_ONE: K/V beam m for Q beam m */
    int qS, kS, vS;           /* input vector lengths */
    int qP, vP;               /* per-head lengths after projection (input length when off) */
    bool q_proj, k_proj, v_proj, o_proj;
    int oLen;                 /* output vector length */
    int batch, beam, kv_beam; /* kv_beam: 1 (ALL_TO_ONE) or beam */
    int qT, kT;               /* TIME dims of q/o and k/v */
    int64_t nq, nk, no;       /* token rows of the q, k/v and o buffers */
    int64_t q_st[3], k_st[3], o_st[3]; /* token-row strides for (time, batch, beam) */
    const int *q_len, *k_len; /* batch*beam and batch*kv_beam entries */
    const int *lo, *hi;       /* attention window per query time step */
    int curr;                 /* < 0: every time step; else only this one */
    const void *wq, *wk, *wv, *wo, *bq, *bk, *bv, *bo; /* NULL when absent */
    bool fill;                /* write fill_value to output vectors past the sequence end */
    double fill_value;
    /* Dropout rates (0: none; only with a reserve space) and the random
     * stream of each (see above). */
    float attn_drop, post_drop;
    uint64_t attn_seed, attn_call, post_seed, post_call;
} fdnn_attn_problem_t;

/* The dropout factor of element i: 0 or 1/(1-p), with the keep rule of
 * cudnnDropoutForward (Philox number >= p * 2^32). */
static inline double
fdnn_attn_drop_factor(float p, uint64_t seed, uint64_t call, uint64_t i)
{
    uint64_t thr = (uint64_t)((double)p * 4294967296.0);
    if (thr >= ((uint64_t)1 << 32) || (uint64_t)fdnn_dropout_random(seed, call, i) < thr)
        return 0.0;
    return 1.0 / (1.0 - (double)p);
}

/* The sizes that fix the buffer layouts, from a problem (fdnn_attn_sizes_of)
 * or from an attention descriptor's maxima (the API's buffer queries); a
 * layout for smaller sizes always fits in one for larger ones. */
typedef struct fdnn_attn_sizes {
    int esize; /* bytes per workspace/reserve element: 8 (DOUBLE), else 4 */
    int H, qP, vP, oLen;
    bool q_proj, k_proj, v_proj, o_proj;
    int64_t nq, nk, seqs; /* token rows of q/o and k/v; query sequences (batch * beam) */
    int qT, kT;           /* TIME dims of q/o and k/v */
    bool attn_drop, post_drop; /* the dropouts are on (training) */
    bool staged;               /* HALF/BFLOAT16 data: the workspace sizes add the staging */
    int qS, kS, vS;            /* input vector lengths (staging) */
    int64_t nw;                /* weight elements, every part (staging) */
} fdnn_attn_sizes_t;

fdnn_attn_sizes_t fdnn_attn_sizes_of(const fdnn_attn_problem_t *p);

/* Workspace bytes of the forward (inference or training).  The GEMM packing
 * scratch in it is sized for `isa` (on another level the GEMM allocates
 * what it lacks). */
size_t fdnn_attn_workspace_bytes(const fdnn_attn_sizes_t *z, fdnn_isa_t isa);

/* Reserve space (training): a header, then what the forward keeps for the
 * backward and what backward data keeps for backward weights, in elements
 * of the data type:
 *   qp  nq x H*qP  projected queries (Q projection on; else absent)
 *   kp  nk x H*qP  projected keys (K on),  vp nk x H*vP projected values (V on)
 *   hc  nq x H*vP  head outputs before the O projection (O on)
 *   probs          softmax probabilities, qT x kT per (sequence, head), row t at t*kT
 *   dqp, dkp, dvp  gradients at the projection outputs (each with its projection)
 *   dgo nq x oLen  the output gradient after the post dropout (post dropout on)
 * Rows are token rows in the layout of the q (hc, qp, dqp) or k/v buffers. */
#define FDNN_ATTN_RESERVE_HEADER 64 /* bytes; keeps the floats 64-byte aligned */
#define FDNN_ATTN_RESERVE_MAGIC 0x564553524e545441ull
enum { FDNN_ATTN_STAGE_FORWARD = 1, FDNN_ATTN_STAGE_BWD_DATA = 2 };

/* What wrote the reserve space, checked by the backward functions.  The
 * hashes (of the descriptors and of the windows) are the API's business. */
typedef struct fdnn_attn_reserve_header {
    uint64_t magic; /* FDNN_ATTN_RESERVE_MAGIC once a training forward has run */
    uint64_t stage; /* FDNN_ATTN_STAGE_*: the last call that completed */
    uint64_t shape_hash, window_hash;
    /* The dropout streams the forward used (the backward replays them). */
    uint64_t attn_seed, attn_call, post_seed, post_call;
} fdnn_attn_reserve_header_t;

typedef struct fdnn_attn_reserve {
    void *qp, *kp, *vp, *hc, *probs, *dqp, *dkp, *dvp, *dgo; /* NULL when absent */
} fdnn_attn_reserve_t;

/* Bytes of the reserve for sizes z; with base != NULL also fills r. */
size_t fdnn_attn_reserve_layout(const fdnn_attn_sizes_t *z, void *base, fdnn_attn_reserve_t *r);

/* Computes `out`.  reserve == NULL is inference; otherwise (training, every
 * time step: p->curr < 0) the reserve space gets qp, kp, vp, hc and probs.
 * Returns false only when GEMM scratch could not be allocated (nothing
 * written to out then). */
bool fdnn_attn_forward(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const void *q, const void *residuals,
                       const void *k, const void *v, void *out, void *workspace, void *reserve);

/* The staged forward of HALF/BFLOAT16 data (attn_stage.c), same contract;
 * the elements of its staging buffers (after the kernels' workspace) and
 * the staged backward functions are in attn_bwd.h. */
bool fdnn_attn_forward_staged(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const void *q, const void *residuals,
                              const void *k, const void *v, void *out, void *workspace, void *reserve);
/* Bytes of the staging buffers of sizes z (0 unless z->staged), and where
 * they start after `kernel_bytes` of the FP32 kernels' workspace. */
size_t fdnn_attn_stage_bytes(const fdnn_attn_sizes_t *z);
static inline size_t
fdnn_attn_stage_offset(size_t kernel_bytes)
{
    return (kernel_bytes + 63) & ~(size_t)63;
}

/* BF16 products (p->lowp, set by attn_stage.c): the four weight matrices,
 * and the inputs that only GEMMs read, are not widened; an FP32 operand that
 * lies in the staged slot w32[i] of matrix i (n[i] elements) is read from
 * the user's w16[i] instead.  Slots 0-3: W_Q, W_K, W_V, W_O; 4-7: the
 * queries, keys, values and dout of the call (FDNN_ATTN_LOWP_*). */
enum { FDNN_ATTN_LOWP_Q = 4, FDNN_ATTN_LOWP_K, FDNN_ATTN_LOWP_V, FDNN_ATTN_LOWP_DOUT, FDNN_ATTN_LOWP_SLOTS };
typedef struct fdnn_attn_lowp {
    const float *w32[FDNN_ATTN_LOWP_SLOTS];
    const void *w16[FDNN_ATTN_LOWP_SLOTS];
    int64_t n[FDNN_ATTN_LOWP_SLOTS];
    fdnn_gemm_dtype_t type; /* of w16: FDNN_GEMM_BF16 or FDNN_GEMM_F16 */
} fdnn_attn_lowp_t;

/* The FP32 kernels' GEMM: fdnn_sgemm, or with lowp set fdnn_gemm_bf16dot
 * on the same operands (FP32 ones rounded to bfloat16 as they are packed,
 * weights read from the user's buffer; FP32 sums; same layout, epilogue
 * and thread contract).  The scratch size covers both (attn_gemm.c). */
bool fdnn_attn_sgemm(const fdnn_sgemm_args_t *g, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch, size_t bytes,
                     const fdnn_attn_lowp_t *lowp);
size_t fdnn_attn_sgemm_scratch(const fdnn_sgemm_args_t *g, size_t threads, fdnn_isa_t isa);

/* BF16 products (lowp set): op(B) of g packed once for many products
 * that share it and differ only in A, m and C (a task's K_h^T or V_h over
 * its row blocks), with fdnn_gemm_bf16dot_pack_b on this thread; B is read
 * from the user's 16-bit buffer where it lies in a staged slot, as
 * fdnn_attn_sgemm does.  Returns buf, or NULL (lowp NULL, nothing to pack,
 * buf not 64-byte aligned or under the packed size): the products then
 * pack B themselves.  fdnn_attn_sgemm_packed runs fdnn_attn_sgemm on this
 * thread (no pool), with B taken from b_packed when set and A from a_bf16
 * when set: op(A) of g rounded to bfloat16 (fdnn_convert_row, the rounding
 * the GEMM's packing does; same lda), which the GEMM reads in place where
 * it can instead of converting it; bitwise the same result either way
 * (gemm.h).  _bytes: the packed size of an n x k op(B) at isa's BF16
 * kernel. */
size_t fdnn_attn_bf16_packed_b_bytes(size_t n, size_t k, bool trans_b, fdnn_isa_t isa);
const void *fdnn_attn_bf16_pack_b(const fdnn_sgemm_args_t *g, const fdnn_attn_lowp_t *lowp, fdnn_isa_t isa,
                                  void *buf, size_t bytes);
bool fdnn_attn_sgemm_packed(const fdnn_sgemm_args_t *g, fdnn_isa_t isa, void *scratch, size_t bytes,
                            const fdnn_attn_lowp_t *lowp, const void *b_packed, const uint16_t *a_bf16);

/* A projection with FP32 products, g->c = g->a g->b (+ g->bias_col): a
 * product over all heads and rows at once (A not transposed, alpha 1,
 * beta 0).  op(B), the weights, is packed once into the handle's scratch
 * (A's row panels, on levels whose tile packs A, into its second buffer,
 * fdnn_handle_stage) and each C tile is one microkernel call over the whole k
 * (fdnn_sgemm_bpacked: no k blocks, so no partial sums of C go through
 * memory, and the result does not depend on the thread count); where the
 * level has no such tile, or k is too deep for one pass, fdnn_sgemm with
 * the handle's scratch.  False when memory runs out.  Flags:
 * FDNN_ATTN_PROJ_CACHED: C is read again right after (the forward's Qp,
 * Kp, Vp), so it is written in row chunks of under 1 MiB, which the GEMM
 * stores through the caches instead of streaming a C of 2 MiB or more to
 * memory (same bits either way: each tile is one sum over the whole k).
 * FDNN_ATTN_PROJ_TILE_128: the tile is the level's choice for 128-row
 * products whatever m (a shape-only choice, the same for every thread
 * count; attn_gemm.c says why). */
enum { FDNN_ATTN_PROJ_CACHED = 1u, FDNN_ATTN_PROJ_TILE_128 = 2u };
bool fdnn_attn_project_f32(cudnnHandle_t handle, const fdnn_sgemm_args_t *g, unsigned flags);

/* True when a staged call of p takes BF16 products: BFLOAT16 data, or HALF
 * data with a TENSOR_OP math type, on a CPU (at the handle's ISA level)
 * with AVX512-BF16; otherwise the FP32 kernels keep FP32 products. */
bool fdnn_attn_bf16_products(const fdnn_attn_problem_t *p, fdnn_isa_t isa);

/* Elements of every weight part p has (the biases counted when p->bq..bo
 * are set, i.e. after fdnn_attn_problem_weights). */
int64_t fdnn_attn_weight_elems(const fdnn_attn_problem_t *p);

/* The typed halves (attn_f32.c, attn_f64.c) of the two functions above. */
size_t fdnn_attn_workspace_bytes_f32(const fdnn_attn_sizes_t *z, fdnn_isa_t isa);
size_t fdnn_attn_workspace_bytes_f64(const fdnn_attn_sizes_t *z, fdnn_isa_t isa);
bool fdnn_attn_forward_f32(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const float *q, const float *residuals,
                           const float *k, const float *v, float *out, void *workspace, void *reserve);
bool fdnn_attn_forward_f64(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const double *q,
                           const double *residuals, const double *k, const double *v, double *out, void *workspace,
                           void *reserve);

#endif /* FDNN_CPU_ATTN_H */
