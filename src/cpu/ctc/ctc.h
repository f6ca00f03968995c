/* SPDX-License-Identifier: Apache-2.0
 * CTC loss (Graves et al. 2006) on the CPU: costs and gradients of a batch.
 *
 * Input: a T x N x A tensor (time, batch, alphabet; label 0 is the blank).
 * Sample b uses time steps t < Tb = inputLengths[b] and the labels
 * l_1..l_L (L = labelLengths[b], values 1..A-1) packed one sample after the
 * other.  With the extended sequence l' = (0, l_1, 0, l_2, ..., l_L, 0) of
 * S = 2L + 1 symbols and y[t][a] the probabilities:
 *
 *   log y      NONE:    log probs[t][b][a]    (probs are already softmaxed)
 *              SOFTMAX: x - log sum_a' e^x    (probs are activations x)
 *   alpha[t][s] = log sum over prefixes of paths ending in l'_s at t
 *               = lse(alpha[t-1][s], alpha[t-1][s-1], alpha[t-1][s-2] if
 *                     l'_s != 0 and l'_s != l'_{s-2}) + log y[t][l'_s]
 *   beta[t][s]  = log sum over suffixes after t, starting from l'_s at t
 *                 (the emission at t excluded): beta[Tb-1][S-1] =
 *                 beta[Tb-1][S-2] = 0 and, going back,
 *               = lse over s' in {s, s+1, s+2 (same rule)} of
 *                     beta[t+1][s'] + log y[t+1][l'_s']
 *   log p       = lse(alpha[Tb-1][S-1], alpha[Tb-1][S-2])
 *   cost[b]     = -log p
 *   grad[t][b][a] = y[t][a] - sum_{s: l'_s = a} e^(alpha[t][s] + beta[t][s] - log p)
 *
 * The gradient is with respect to the activations before the softmax in
 * both modes (cuDNN 8.9's convention; in NONE mode the input is the
 * softmax output, the gradient still that of its logits).  Rows t >= Tb
 * get 0.  A sample with p = 0 (Tb too short for the labels, or zero
 * probabilities) gets cost +inf and gradient rows NaN (propagate_nan) or 0.
 *
 * Each sample is computed by one task in a fixed order, in double, so the
 * results do not depend on the thread count. */
#ifndef FDNN_CPU_CTC_H
#define FDNN_CPU_CTC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/handle.h"

/* cuDNN's limit on one label sequence (cudnnCTCLoss: BAD_PARAM above it). */
#define FDNN_CTC_MAX_LABEL 256

typedef struct fdnn_ctc_problem {
    int64_t T, N, A;
    int64_t ps[3]; /* strides of probs for (t, n, a), in elements */
    int64_t gs[3]; /* strides of gradients */
    bool softmax;  /* CUDNN_LOSS_NORMALIZATION_SOFTMAX */
    bool propagate_nan;
    int max_label; /* workspace slots are sized for this many labels */
    const int *labels, *label_lengths, *input_lengths;
} fdnn_ctc_problem_t;

/* Workspace bytes for a batch whose labels are at most max_label long;
 * SIZE_MAX when the size does not fit in size_t. */
size_t fdnn_ctc_workspace_bytes(int64_t T, int64_t N, int64_t A, int max_label);

/* Computes costs (N floats) and gradients.  The caller has checked every
 * argument (lengths, label values, workspace size). */
void fdnn_ctc_loss(cudnnHandle_t handle, const fdnn_ctc_problem_t *p, const float *probs, float *costs,
                   float *grads, void *workspace);

#endif /* FDNN_CPU_CTC_H */
