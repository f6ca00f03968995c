/* SPDX-License-Identifier: Apache-2.0
 * Float64 RNN forward reference; formulas in rnn_ref.h.  Written for
 * clarity: one sequence, one time step, one unit at a time. */
#include "ref/rnn_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
fdnn_ref_rnn_gates(int cell)
{
    return cell == 2 ? 4 : cell == 3 ? 3 : 1;
}

static double
sigmoid(double v)
{
    return 1.0 / (1.0 + exp(-v));
}

/* sum_k M[row][k] v[k], or v[row] for a NULL matrix (skip input). */
static double
dot(const double *M, int row, int n, const double *v)
{
    if (M == NULL)
        return v[row];
    double s = 0;
    for (int k = 0; k < n; k++)
        s += M[(int64_t)row * n + k] * v[k];
    return s;
}

void
fdnn_ref_rnn_forward(const fdnn_ref_rnn_t *r, const double *x, const double *hx, const double *cx, double *y,
                     double *hy, double *cy)
{
    int T = r->T, B = r->B, H = r->H, D = r->dirs, g = fdnn_ref_rnn_gates(r->cell);
    int P = r->P > 0 && r->P < H ? r->P : H;
    int maxin = r->in > D * P ? r->in : D * P;
    double *in = calloc((size_t)T * B * maxin, sizeof(double));
    double *out = calloc((size_t)T * B * D * P, sizeof(double));
    double *h = malloc(sizeof(double) * H), *c = malloc(sizeof(double) * H), *hn = malloc(sizeof(double) * H);
    double *pre = malloc(sizeof(double) * g * H), *rec = malloc(sizeof(double) * g * H);
    for (int64_t row = 0; row < (int64_t)T * B; row++)
        memcpy(in + row * maxin, x + row * r->in, sizeof(double) * r->in);
    int in_l = r->in;
    for (int l = 0; l < r->layers; l++) {
        memset(out, 0, sizeof(double) * T * B * D * P);
        for (int d = 0; d < D; d++) {
            int p = l * D + d;
            for (int b = 0; b < B; b++) {
                for (int j = 0; j < H; j++) {
                    if (j < P)
                        h[j] = hx ? hx[((int64_t)p * B + b) * P + j] : 0;
                    c[j] = cx ? cx[((int64_t)p * B + b) * H + j] : 0;
                }
                int len = r->lens[b];
                for (int s = 0; s < len; s++) {
                    int t = d == 0 ? s : len - 1 - s;
                    const double *xt = in + ((int64_t)t * B + b) * maxin;
                    for (int q = 0; q < g; q++)
                        for (int j = 0; j < H; j++) {
                            const double *W = r->W[p] ? r->W[p] + (int64_t)q * H * in_l : NULL;
                            pre[q * H + j] = dot(W, j, in_l, xt) + (r->bW[p] ? r->bW[p][q * H + j] : 0);
                            rec[q * H + j] = dot(r->R[p] + (int64_t)q * H * P, j, P, h) +
                                             (r->bR[p] ? r->bR[p][q * H + j] : 0);
                        }
                    for (int j = 0; j < H; j++) {
                        if (r->cell == 2) {
                            double i = sigmoid(pre[j] + rec[j]), f = sigmoid(pre[H + j] + rec[H + j]);
                            double gg = tanh(pre[2 * H + j] + rec[2 * H + j]);
                            double o = sigmoid(pre[3 * H + j] + rec[3 * H + j]);
                            double cn = f * c[j] + i * gg;
                            if (r->clip)
                                cn = cn < r->lclip ? r->lclip : cn > r->rclip ? r->rclip : cn;
                            c[j] = cn;
                            hn[j] = o * tanh(cn);
                        } else if (r->cell == 3) {
                            double rr = sigmoid(pre[j] + rec[j]), z = sigmoid(pre[H + j] + rec[H + j]);
                            double n = tanh(pre[2 * H + j] + rr * rec[2 * H + j]);
                            hn[j] = (1 - z) * n + z * h[j];
                        } else {
                            double a = pre[j] + rec[j];
                            hn[j] = r->cell == 1 ? tanh(a) : (a > 0 ? a : 0);
                        }
                    }
                    if (P < H) /* h' = Pm m */
                        for (int j = 0; j < P; j++)
                            h[j] = dot(r->Pm[p], j, H, hn);
                    else
                        memcpy(h, hn, sizeof(double) * H);
                    for (int j = 0; j < P; j++)
                        out[((int64_t)t * B + b) * D * P + d * P + j] = h[j];
                }
                for (int j = 0; j < H; j++) {
                    if (hy && j < P)
                        hy[((int64_t)p * B + b) * P + j] = h[j];
                    if (cy && r->cell == 2)
                        cy[((int64_t)p * B + b) * H + j] = c[j];
                }
            }
        }
        /* Next layer's input: this layer's output (row width maxin),
         * through the dropout factors when given. */
        in_l = D * P;
        for (int64_t row = 0; row < (int64_t)T * B; row++)
            for (int k = 0; k < D * P; k++) {
                double v = out[row * D * P + k];
                if (r->drop && l < r->layers - 1)
                    v = r->drop[l][row * D * P + k] == 0 ? 0 : v * r->drop[l][row * D * P + k];
                in[row * maxin + k] = v;
            }
    }
    memcpy(y, out, sizeof(double) * T * B * D * P);
    free(in), free(out), free(h), free(c), free(hn), free(pre), free(rec);
}
