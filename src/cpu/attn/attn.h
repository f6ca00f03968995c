/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention forward (cudnnMultiHeadAttnForward, inference) on the
 * CPU, FP32.
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

typedef struct fdnn_attn_problem {
    int H;
    float scaler;
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
    const float *wq, *wk, *wv, *wo, *bq, *bk, *bv, *bo; /* NULL when absent */
    bool fill;                /* write fill_value to output vectors past the sequence end */
    float fill_value;
} fdnn_attn_problem_t;

/* Workspace bytes for the largest problem an attention descriptor allows:
 * token counts nq, nk and (batch * beam) sequences of at most kT keys.  The
 * GEMM packing scratch in it is sized for `isa` (on another level the GEMM
 * allocates what it lacks). */
size_t fdnn_attn_workspace_bytes(int H, int qP, int vP, int oLen, bool q_proj, bool k_proj, bool v_proj, int64_t nq,
                                 int64_t nk, int64_t seqs, int kT, fdnn_isa_t isa);

/* Computes `out`; returns false only when GEMM scratch could not be
 * allocated (nothing written to out then). */
bool fdnn_attn_forward(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const float *q, const float *residuals,
                       const float *k, const float *v, float *out, void *workspace);

#endif /* FDNN_CPU_ATTN_H */
