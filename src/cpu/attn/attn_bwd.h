/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention backward (cudnnMultiHeadAttnBackwardData and
 * cudnnMultiHeadAttnBackwardWeights) on the CPU, FP32 and FP64 (attn_bwd_t.inc,
 * compiled by attn_bwd_f32.c and attn_bwd_f64.c).  Model, layouts and
 * the reserve space: attn.h.
 *
 * With dH = the gradient of the head outputs (dout W_O^T, or dout itself
 * without O projection), per (sequence, head) and P the stored softmax
 * probabilities (0 outside the window):
 *   dP  = dH_h V_h^T                 dV_h += P^T dH_h
 *   dS  = P .* (dP - rowsum(P .* dP))
 *   dQ_h = smScaler dS K_h           dK_h += smScaler dS^T Q_h
 * (+= : K/V are shared by the beams of a batch entry under ALL_TO_ONE).
 * Then through the projections: dq = dQp W_Q^T per token, dW_Q = q^T dQp,
 * db_Q = column sums of dQp, and alike for K, V and O; without a projection
 * every head used the whole vector, so its gradient is the sum over heads.
 *
 * Only token rows inside the sequence lengths take part: what rows past a
 * length hold never reaches a result (whole-buffer GEMMs may compute on them,
 * NaN included, into rows nobody reads), and gradient rows there are never
 * written, except that data gradients get the padding fill when their
 * descriptor has one.
 *
 * Threads: the attention part is one task per (K/V sequence, head), which
 * loops over the query beams sharing it in order and runs its products on
 * its own thread; the projections are GEMMs over the pool, the weight
 * gradients summed over sequences in a fixed order.  Results are bitwise
 * identical for any thread count. */
#ifndef FDNN_CPU_ATTN_BWD_H
#define FDNN_CPU_ATTN_BWD_H

#include "cpu/attn/attn.h"

/* Workspace bytes of backward data (backward weights needs none). */
size_t fdnn_attn_bwd_workspace_bytes(const fdnn_attn_sizes_t *z, fdnn_isa_t isa);

typedef struct fdnn_attn_bwd_data {
    const void *dout;         /* laid out as out (p->o_st) */
    const void *q, *k, *v;    /* the forward's inputs */
    void *dq, *dk, *dv;       /* laid out as q, k, v */
    bool fill[3];             /* dq, dk, dv: write fill_value past the sequence lengths */
    double fill_value[3];
} fdnn_attn_bwd_data_t;

/* Computes dq, dk, dv and stores dqp, dkp, dvp in the reserve space, which
 * holds what the training forward of the same problem left there.  Returns
 * false only when GEMM scratch could not be allocated. */
bool fdnn_attn_backward_data(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const fdnn_attn_bwd_data_t *a,
                             void *workspace, void *reserve);

/* The weight gradients, in the layout of the weights (attn.h): NULL where
 * a part is absent. */
typedef struct fdnn_attn_dweights {
    void *wq, *wk, *wv, *wo, *bq, *bk, *bv, *bo;
} fdnn_attn_dweights_t;

/* Sets (add == false) or adds to the weight gradients, from the forward's
 * inputs, dout and the reserve filled by the forward and backward data.
 * The workspace (of the size fdnn_attn_bwd_workspace_bytes gives) is used
 * by the staging of HALF/BFLOAT16 data only.  Returns false only when GEMM
 * scratch could not be allocated (dw may then be partly written). */
bool fdnn_attn_backward_weights(cudnnHandle_t handle, const fdnn_attn_problem_t *p, bool add, const void *q,
                                const void *k, const void *v, const void *dout, const fdnn_attn_dweights_t *dw,
                                void *workspace, void *reserve);

/* The staged HALF/BFLOAT16 versions (attn_stage.c), same contracts. */
bool fdnn_attn_backward_data_staged(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const fdnn_attn_bwd_data_t *a,
                                    void *workspace, void *reserve);
bool fdnn_attn_backward_weights_staged(cudnnHandle_t handle, const fdnn_attn_problem_t *p, bool add, const void *q,
                                       const void *k, const void *v, const void *dout,
                                       const fdnn_attn_dweights_t *dw, void *workspace, void *reserve);

/* The typed halves (attn_bwd_f32.c, attn_bwd_f64.c). */
#define FDNN_ATTN_BWD_TYPED(sfx)                                                                                    \
    size_t fdnn_attn_bwd_workspace_bytes_##sfx(const fdnn_attn_sizes_t *z, fdnn_isa_t isa);                        \
    bool fdnn_attn_backward_data_##sfx(cudnnHandle_t handle, const fdnn_attn_problem_t *p,                         \
                                       const fdnn_attn_bwd_data_t *a, void *workspace, void *reserve);             \
    bool fdnn_attn_backward_weights_##sfx(cudnnHandle_t handle, const fdnn_attn_problem_t *p, bool add,           \
                                          const void *q, const void *k, const void *v, const void *dout,          \
                                          const fdnn_attn_dweights_t *dw, void *reserve);
FDNN_ATTN_BWD_TYPED(f32)
FDNN_ATTN_BWD_TYPED(f64)
#undef FDNN_ATTN_BWD_TYPED

#endif /* FDNN_CPU_ATTN_BWD_H */
