/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference CTC loss: the specification the CPU code and the tests
 * are held to.  Arrays are packed T x N x A (time, batch, alphabet), label 0
 * is the blank, labels are packed one sample after the other.
 *
 *   y[t][a]  = x[t][a]                            (softmax == false)
 *            = e^x[t][a] / sum_a' e^x[t][a']      (softmax == true)
 *   l'       = (0, l_1, 0, l_2, ..., 0, l_L, 0),  S = 2L + 1
 *   alpha_t(s) = P(l'_1..l'_s emitted by the path prefix ending at t in l'_s)
 *   beta_t(s)  = P(l'_s..l'_S emitted by the path suffix starting at t in l'_s)
 *   (both include the emission y[t][l'_s]: Graves et al. 2006, eq. 5-10)
 *   p        = alpha_{T-1}(S-1) + alpha_{T-1}(S-2)
 *   cost     = -log p
 *   grad[t][a] = y[t][a] - 1/(p y[t][a]) sum_{s: l'_s = a} alpha_t(s) beta_t(s)
 *     (the gradient with respect to the logits of y, Graves eq. 16)
 *
 * Computed in log space so long sequences do not underflow.  Time steps
 * t >= inputLengths[b] get gradient 0; a sample with p == 0 gets cost +inf
 * and gradient `infeasible_grad` (NaN or 0) on its time steps. */
#ifndef FDNN_REF_CTC_REF_H
#define FDNN_REF_CTC_REF_H

#include <stdbool.h>
#include <stdint.h>

void fdnn_ref_ctc_loss(int64_t T, int64_t N, int64_t A, bool softmax, const double *x, const int *labels,
                       const int *label_lengths, const int *input_lengths, double infeasible_grad, double *costs,
                       double *grads);

#endif /* FDNN_REF_CTC_REF_H */
