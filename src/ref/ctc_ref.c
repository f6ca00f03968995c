/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference CTC loss (formulas in ctc_ref.h).  Deliberately plain:
 * whole T x S tables for alpha and beta, both including the emission at t,
 * and a log-sum-exp over two values at a time. */
#include "ref/ctc_ref.h"

#include <math.h>
#include <stdlib.h>

static double
lse(double a, double b)
{
    if (a == -INFINITY)
        return b;
    if (b == -INFINITY)
        return a;
    double m = fmax(a, b);
    return m + log(exp(a - m) + exp(b - m));
}

/* The extended label sequence's symbol s. */
static int
sym(const int *lab, int s)
{
    return s % 2 == 0 ? 0 : lab[(s - 1) / 2];
}

static void
one_sample(int64_t T, int64_t N, int64_t A, bool softmax, const double *x, int64_t n, const int *lab, int L, int Tn,
           double infeasible_grad, double *cost, double *grads)
{
    int S = 2 * L + 1;
    double *ly = malloc(sizeof(double) * (size_t)(Tn * A + 1));
    double *al = malloc(sizeof(double) * (size_t)(Tn * S + 1));
    double *be = malloc(sizeof(double) * (size_t)(Tn * S + 1));
    for (int64_t t = 0; t < T; t++)
        for (int64_t a = 0; a < A; a++)
            grads[(t * N + n) * A + a] = 0;
    for (int t = 0; t < Tn; t++) {
        const double *xt = x + ((int64_t)t * N + n) * A;
        double z = -INFINITY;
        if (softmax)
            for (int64_t a = 0; a < A; a++)
                z = lse(z, xt[a]);
        for (int64_t a = 0; a < A; a++)
            ly[t * A + a] = softmax ? xt[a] - z : log(xt[a]);
    }
    if (Tn == 0) {
        *cost = L == 0 ? 0 : INFINITY;
        goto done;
    }
    for (int t = 0; t < Tn; t++)
        for (int s = 0; s < S; s++) {
            double v = -INFINITY;
            if (t == 0)
                v = s <= 1 ? 0 : -INFINITY;
            else {
                v = al[(t - 1) * S + s];
                if (s >= 1)
                    v = lse(v, al[(t - 1) * S + s - 1]);
                if (s >= 2 && sym(lab, s) != 0 && sym(lab, s) != sym(lab, s - 2))
                    v = lse(v, al[(t - 1) * S + s - 2]);
            }
            al[t * S + s] = v + ly[t * A + sym(lab, s)];
        }
    for (int t = Tn - 1; t >= 0; t--)
        for (int s = S - 1; s >= 0; s--) {
            double v = -INFINITY;
            if (t == Tn - 1)
                v = s >= S - 2 ? 0 : -INFINITY;
            else {
                v = be[(t + 1) * S + s];
                if (s + 1 < S)
                    v = lse(v, be[(t + 1) * S + s + 1]);
                if (s + 2 < S && sym(lab, s + 2) != 0 && sym(lab, s + 2) != sym(lab, s))
                    v = lse(v, be[(t + 1) * S + s + 2]);
            }
            be[t * S + s] = v + ly[t * A + sym(lab, s)];
        }
    double logp = al[(Tn - 1) * S + S - 1];
    if (S >= 2)
        logp = lse(logp, al[(Tn - 1) * S + S - 2]);
    *cost = -logp;
    for (int t = 0; t < Tn; t++)
        for (int64_t a = 0; a < A; a++) {
            double g;
            if (logp == -INFINITY)
                g = infeasible_grad;
            else {
                double occ = -INFINITY; /* log sum alpha beta over the s with l'_s = a */
                for (int s = 0; s < S; s++)
                    if (sym(lab, s) == a)
                        occ = lse(occ, al[t * S + s] + be[t * S + s]);
                g = exp(ly[t * A + a]);
                if (occ != -INFINITY)
                    g -= exp(occ - logp - ly[t * A + a]);
            }
            grads[((int64_t)t * N + n) * A + a] = g;
        }
done:
    free(ly);
    free(al);
    free(be);
}

void
fdnn_ref_ctc_loss(int64_t T, int64_t N, int64_t A, bool softmax, const double *x, const int *labels,
                  const int *label_lengths, const int *input_lengths, double infeasible_grad, double *costs,
                  double *grads)
{
    int64_t off = 0;
    for (int64_t n = 0; n < N; n++) {
        one_sample(T, N, A, softmax, x, n, labels + off, label_lengths[n], input_lengths[n], infeasible_grad,
                   &costs[n], grads);
        off += label_lengths[n];
    }
}
