/* SPDX-License-Identifier: Apache-2.0
 * The float64 GEMM reference.  See gemm_ref.h for the formula. */
#include "ref/gemm_ref.h"

#include <math.h>

/* The float and double versions differ only in the element type they read;
 * everything after the k sum is this one function. */
static void
finish(double sum, double asum, double alpha, double beta, const double *old, const double *bias_row,
       const double *bias_col, bool relu, double *out, double *mag)
{
    double v = alpha * sum;
    double m = fabs(alpha) * asum;
    if (beta != 0) { /* C is read only when beta != 0 */
        v += beta * *old;
        m += fabs(beta * *old);
    }
    if (bias_row != NULL) {
        v += *bias_row;
        m += fabs(*bias_row);
    }
    if (bias_col != NULL) {
        v += *bias_col;
        m += fabs(*bias_col);
    }
    if (relu && v < 0)
        v = 0;
    *out = v;
    if (mag != NULL)
        *mag = m;
}

void
fdnn_ref_sgemm(const fdnn_sgemm_args_t *g, double *out, double *mag)
{
    for (size_t i = 0; i < g->m; i++) {
        for (size_t j = 0; j < g->n; j++) {
            double sum = 0, asum = 0;
            for (size_t p = 0; g->alpha != 0 && p < g->k; p++) {
                double a = g->trans_a ? g->a[p * g->lda + i] : g->a[i * g->lda + p];
                double b = g->trans_b ? g->b[j * g->ldb + p] : g->b[p * g->ldb + j];
                sum += a * b;
                asum += fabs(a * b);
            }
            double old = g->beta != 0 ? g->c[i * g->ldc + j] : 0;
            double br = g->bias_row != NULL ? g->bias_row[i] : 0;
            double bc = g->bias_col != NULL ? g->bias_col[j] : 0;
            finish(sum, asum, g->alpha, g->beta, &old, g->bias_row != NULL ? &br : NULL,
                   g->bias_col != NULL ? &bc : NULL, g->act == FDNN_GEMM_ACT_RELU, &out[i * g->n + j],
                   mag != NULL ? &mag[i * g->n + j] : NULL);
        }
    }
}

void
fdnn_ref_dgemm(const fdnn_dgemm_args_t *g, double *out, double *mag)
{
    for (size_t i = 0; i < g->m; i++) {
        for (size_t j = 0; j < g->n; j++) {
            double sum = 0, asum = 0;
            for (size_t p = 0; g->alpha != 0 && p < g->k; p++) {
                double a = g->trans_a ? g->a[p * g->lda + i] : g->a[i * g->lda + p];
                double b = g->trans_b ? g->b[j * g->ldb + p] : g->b[p * g->ldb + j];
                sum += a * b;
                asum += fabs(a * b);
            }
            double old = g->beta != 0 ? g->c[i * g->ldc + j] : 0;
            finish(sum, asum, g->alpha, g->beta, &old, NULL, NULL, false, &out[i * g->n + j],
                   mag != NULL ? &mag[i * g->n + j] : NULL);
        }
    }
}
