/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference multi-head attention forward (inference), the spec of
 * src/cpu/attn.  Per query vector q of sequence (b, m) at time t and head h:
 *
 *   q_h   = W_Q,h q + b_Q,h                       (q when qProj == 0)
 *   k_h,j = W_K,h K_j + b_K,h, v_h,j = W_V,h V_j + b_V,h  (K_j, V_j without projections)
 *           for j in [max(lo[t], 0), min(hi[t], seqLengthKV))
 *   a_j   = exp(s_j - max s) / sum exp(s - max s),  s_j = smScaler <q_h, k_h,j>
 *   h_h   = sum_j a_j v_h,j                        (0 when the window is empty)
 *   out   = sum_h W_O,h h_h + b_O (+ residual q)   ([h_0 ... h_H-1] when oProj == 0)
 *
 * Weights in the layout of src/cpu/attn/attn.h, packed in the order
 * Q, K, V, O weights then Q, K, V, O biases (the absent ones take no room).
 * K/V beam: m for QUERYMAP_ONE_TO_ONE, 0 for ALL_TO_ONE.  Only time steps
 * t < seqLengthQO (and t == curr when curr >= 0) are computed; `written`
 * marks those output rows.
 *
 * Dropout given its masks (training): a_j is multiplied by
 * attn_drop[((seq*H + h)*qT + t)*kT + j] (seq = b*beam + m) before it
 * weights v_h,j, and out (before the residual) by post_drop[r*oLen + i],
 * r the query token row; NULL means no dropout.  The backward reference
 * takes no masks. */
#ifndef FDNN_REF_ATTN_REF_H
#define FDNN_REF_ATTN_REF_H

#include <stdbool.h>
#include <stdint.h>

typedef struct fdnn_ref_attn {
    int H;
    double scaler;
    bool one_to_one, biases;
    int qS, kS, vS, qProj, kProj, vProj, oProj; /* projection size 0: off */
    int batch, beam, qT, kT;
    int64_t q_st[3], k_st[3], o_st[3]; /* token-row strides of (time, batch, beam) */
    const int *q_len, *k_len, *lo, *hi;
    int curr; /* < 0: all time steps */
    const double *attn_drop, *post_drop; /* dropout factors (0 or 1/(1-p)) or NULL */
} fdnn_ref_attn_t;

/* Number of weight elements (what cudnnGetMultiHeadAttnBuffers sizes). */
int64_t fdnn_ref_attn_weight_count(const fdnn_ref_attn_t *a);

void fdnn_ref_attn_forward(const fdnn_ref_attn_t *a, const double *w, const double *q, const double *residual,
                           const double *k, const double *v, double *out, bool *written);

/* Offsets into the weight buffer of the eight parts in cudnnMultiHeadAttnWeightKind_t order
 * (Q, K, V, O weights, Q, K, V, O biases); an absent part has the offset of the next. */
void fdnn_ref_attn_weight_offsets(const fdnn_ref_attn_t *a, int64_t off[8]);

/* The gradients of  L = sum over the computed output rows of <dout, out>
 * (every time step: a->curr < 0; the residual path excluded), by the chain
 * rule through the formulas above (attn_bwd_ref.c):
 *   dh_h  = W_O,h^T dout (dout's head-h slice without O projection)
 *   dP_j  = <dh_h, v_h,j>,  dS_j = a_j (dP_j - sum_i a_i dP_i)
 *   dq_h  = smScaler sum_j dS_j k_h,j,   dk_h,j += smScaler dS_j q_h,  dv_h,j += a_j dh_h
 *   dq    = sum_h W_Q,h^T dq_h (sum_h dq_h without projection), dW_Q,h += dq_h q^T,
 *   db_Q,h += dq_h; likewise K, V; dW_O += dout [h_0 ... h_H-1]^T, db_O += dout.
 * dq, dk, dv (laid out as q, k, v) and dw (as w) are overwritten; rows past
 * the sequence lengths get 0. */
void fdnn_ref_attn_backward(const fdnn_ref_attn_t *a, const double *w, const double *q, const double *k,
                            const double *v, const double *dout, double *dq, double *dk, double *dv, double *dw);

#endif /* FDNN_REF_ATTN_REF_H */
