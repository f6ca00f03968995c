/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference of cuDNN's recurrent networks (forward).  Gradients are
 * checked against central differences of this function (tests).
 *
 * Cells (per time step, W* input matrices, R* recurrent, b* biases; absent
 * biases are zero):
 *   RNN_RELU/TANH  h' = act(W x + bW + R h + bR)
 *   LSTM  i = sig(Wi x + bWi + Ri h + bRi), f, o likewise (sigmoid),
 *         g = tanh(Wg x + bWg + Rg h + bRg),
 *         c' = clip(f c + i g),  h' = o tanh(c')
 *         with a recurrent projection (P < H): h' = Pm (o tanh(c')), P wide
 *   GRU   r = sig(Wr x + bWr + Rr h + bRr), z likewise,
 *         n = tanh(Wn x + bWn + r (Rn h + bRn)),  h' = (1 - z) n + z h
 * SKIP_INPUT (layer 0): W x is replaced by x for every gate.
 * Bidirectional layers run a second direction from t = len-1 down to 0 and
 * concatenate [forward, backward] outputs; layer l > 0 reads layer l-1's
 * output, multiplied elementwise by drop[l-1] when dropout is given.  A sequence is only stepped for t < len[b]; its y rows beyond are
 * zero here. */
#ifndef FDNN_REF_RNN_REF_H
#define FDNN_REF_RNN_REF_H

#include <stdbool.h>
#include <stdint.h>

typedef struct fdnn_ref_rnn {
    int cell;   /* cudnnRNNMode_t: 0 RELU, 1 TANH, 2 LSTM, 3 GRU */
    int dirs, layers;
    int in, H;
    bool skip_input;
    bool clip;
    double lclip, rclip;
    int T, B;
    const int *lens;
    /* Per pseudo-layer p (layer * dirs + dir): W[p] [gates][H][in_l] (NULL
     * for skip input), R[p] [gates][H][H], bW[p], bR[p] [gates][H] or NULL. */
    double **W, **R, **bW, **bR;
    /* Recurrent projection: P < H and Pm[p] [P][H]; P == 0 means none
     * (P = H).  With a projection h, hx, hy, y are P wide and R[p] is
     * [gates][H][P]; c, cx, cy stay H wide. */
    int P;
    double **Pm;
    /* Dropout between layers: NULL, or drop[l] for l < layers-1 the
     * [T][B][dirs*P] factors (0 or 1/(1-p)) applied to layer l's output. */
    const double *const *drop;
} fdnn_ref_rnn_t;

int fdnn_ref_rnn_gates(int cell);

/* x [T][B][in], y [T][B][dirs*P]; hx [layers*dirs][B][P], cx
 * [layers*dirs][B][H] or NULL (zero); hy, cy the same shapes (cy only for
 * LSTM; either may be NULL).  P is H without a projection. */
void fdnn_ref_rnn_forward(const fdnn_ref_rnn_t *r, const double *x, const double *hx, const double *cx, double *y,
                          double *hy, double *cy);

#endif /* FDNN_REF_RNN_REF_H */
