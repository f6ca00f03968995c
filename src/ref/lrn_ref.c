/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference LRN and divisive normalization, written from the
 * definitions (src/cpu/lrn/lrn.h); the backward passes apply the chain rule
 * term by term (scatter over every pair (i, j in W(i))), independently of the
 * gather form the library uses.  The window of width n around i is
 * [i - (n-1)/2, i + n - 1 - (n-1)/2], clipped. */
#include "ref/lrn_ref.h"

#include <math.h>
#include <stdlib.h>

static int64_t
lo_of(int n, int64_t i)
{
    int64_t v = i - (n - 1) / 2;
    return v < 0 ? 0 : v;
}

static int64_t
hi_of(int n, int64_t i, int64_t extent) /* exclusive */
{
    int64_t v = i + (n - 1 - (n - 1) / 2) + 1;
    return v > extent ? extent : v;
}

static double
lrn_scale(int n, double alpha, double k, int64_t C, int64_t S, const double *x, int64_t img, int64_t c, int64_t s)
{
    double sum = 0;
    for (int64_t j = lo_of(n, c); j < hi_of(n, c, C); j++) {
        double v = x[(img * C + j) * S + s];
        sum += v * v;
    }
    return k + alpha / n * sum;
}

void
fdnn_ref_lrn_forward(int n, double alpha, double beta, double k, int64_t N, int64_t C, int64_t S, const double *x,
                     double *y)
{
    for (int64_t img = 0; img < N; img++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t s = 0; s < S; s++) {
                int64_t i = (img * C + c) * S + s;
                y[i] = x[i] * pow(lrn_scale(n, alpha, k, C, S, x, img, c, s), -beta);
            }
}

void
fdnn_ref_lrn_backward(int n, double alpha, double beta, double k, int64_t N, int64_t C, int64_t S, const double *x,
                      const double *dy, double *dx)
{
    for (int64_t i = 0; i < N * C * S; i++)
        dx[i] = 0;
    for (int64_t img = 0; img < N; img++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t s = 0; s < S; s++) {
                int64_t i = (img * C + c) * S + s;
                double sc = lrn_scale(n, alpha, k, C, S, x, img, c, s);
                /* dy_i * d y_i / d x_j for every j in W(i) (and j == i) */
                dx[i] += dy[i] * pow(sc, -beta);
                for (int64_t jc = lo_of(n, c); jc < hi_of(n, c, C); jc++) {
                    int64_t j = (img * C + jc) * S + s;
                    dx[j] += dy[i] * x[i] * (-beta) * pow(sc, -beta - 1) * (2.0 * alpha / n) * x[j];
                }
            }
}

/* Box sum of u^2 around p in one plane; dims d[0..3) with leading 1s. */
static double
dn_scale(int n, double alpha, double k, int nsp, const int64_t *d, const double *u, int64_t p)
{
    int64_t o[3] = {p / (d[1] * d[2]), (p / d[2]) % d[1], p % d[2]};
    double sum = 0;
    for (int64_t a = lo_of(n, o[0]); a < hi_of(n, o[0], d[0]); a++)
        for (int64_t b = lo_of(n, o[1]); b < hi_of(n, o[1], d[1]); b++)
            for (int64_t e = lo_of(n, o[2]); e < hi_of(n, o[2], d[2]); e++) {
                double v = u[(a * d[1] + b) * d[2] + e];
                sum += v * v;
            }
    return k + alpha / pow(n, nsp) * sum;
}

static void
dims3(int nsp, const int64_t *sp, int64_t *d)
{
    d[0] = nsp == 3 ? sp[0] : 1;
    d[1] = sp[nsp - 2];
    d[2] = sp[nsp - 1];
}

void
fdnn_ref_divnorm_forward(int n, double alpha, double beta, double k, int64_t N, int64_t C, int nsp, const int64_t *sp,
                         const double *x, const double *means, double *y)
{
    int64_t d[3];
    dims3(nsp, sp, d);
    int64_t P = d[0] * d[1] * d[2];
    double *u = malloc((size_t)P * sizeof(double));
    for (int64_t pl = 0; pl < N * C; pl++) {
        for (int64_t p = 0; p < P; p++)
            u[p] = x[pl * P + p] - (means ? means[pl * P + p] : 0.0);
        for (int64_t p = 0; p < P; p++)
            y[pl * P + p] = x[pl * P + p] * pow(dn_scale(n, alpha, k, nsp, d, u, p), -beta);
    }
    free(u);
}

void
fdnn_ref_divnorm_backward(int n, double alpha, double beta, double k, int64_t N, int64_t C, int nsp,
                          const int64_t *sp, const double *x, const double *means, const double *dy, double *dx,
                          double *dmeans)
{
    int64_t d[3];
    dims3(nsp, sp, d);
    int64_t P = d[0] * d[1] * d[2];
    double *u = malloc((size_t)P * sizeof(double));
    double c2 = 2.0 * alpha / pow(n, nsp);
    for (int64_t pl = 0; pl < N * C; pl++) {
        for (int64_t p = 0; p < P; p++) {
            u[p] = x[pl * P + p] - (means ? means[pl * P + p] : 0.0);
            dx[pl * P + p] = 0;
            dmeans[pl * P + p] = 0;
        }
        for (int64_t p = 0; p < P; p++) {
            double sc = dn_scale(n, alpha, k, nsp, d, u, p), g = dy[pl * P + p], xp = x[pl * P + p];
            dx[pl * P + p] += g * pow(sc, -beta);
            int64_t o[3] = {p / (d[1] * d[2]), (p / d[2]) % d[1], p % d[2]};
            for (int64_t a = lo_of(n, o[0]); a < hi_of(n, o[0], d[0]); a++)
                for (int64_t b = lo_of(n, o[1]); b < hi_of(n, o[1], d[1]); b++)
                    for (int64_t e = lo_of(n, o[2]); e < hi_of(n, o[2], d[2]); e++) {
                        int64_t q = (a * d[1] + b) * d[2] + e;
                        double t = g * xp * (-beta) * pow(sc, -beta - 1) * c2 * u[q];
                        dx[pl * P + q] += t;
                        dmeans[pl * P + q] -= t;
                    }
        }
    }
    free(u);
}
