/* SPDX-License-Identifier: Apache-2.0
 * Winograd transform matrices by the Toom-Cook construction (see the
 * header for the formulas). */
#include "cpu/conv/conv_winograd_tf.h"

#include <assert.h>
#include <string.h>

/* Interpolation points, in the order they are taken. */
static const double points[] = {0, 1, -1, 0.5, -2};

/* Coefficients of prod_{l < count, l != skip} (x - p_l), lowest first. */
static void
poly_from_roots(int count, int skip, double *coef)
{
    double c[FDNN_WINO_MAX_N + 1] = {1};
    int deg = 0;
    for (int l = 0; l < count; l++) {
        if (l == skip)
            continue;
        /* c(x) *= (x - p_l) */
        for (int k = deg + 1; k >= 1; k--)
            c[k] = c[k - 1] - points[l] * c[k];
        c[0] = -points[l] * c[0];
        deg++;
    }
    memcpy(coef, c, sizeof(double) * (size_t)(deg + 1));
}

void
fdnn_wino_tf_init(fdnn_wino_tf_t *tf, int m, int r)
{
    int n = m + r - 1;
    assert(m >= 1 && r >= 1 && n <= FDNN_WINO_MAX_N && n - 1 <= (int)(sizeof(points) / sizeof(points[0])));
    memset(tf, 0, sizeof(*tf));
    tf->m = m;
    tf->r = r;
    tf->n = n;
    int np = n - 1; /* finite points */
    for (int j = 0; j < np; j++) {
        double pj = points[j], nj = 1, pow = 1;
        for (int l = 0; l < np; l++)
            if (l != j)
                nj *= pj - points[l];
        for (int i = 0; i < m; i++, pow *= pj)
            tf->at[i][j] = (float)pow;
        pow = 1;
        for (int k = 0; k < r; k++, pow *= pj)
            tf->g[j][k] = (float)(pow / nj);
        double mj[FDNN_WINO_MAX_N + 1] = {0};
        poly_from_roots(np, j, mj);
        for (int k = 0; k < n; k++)
            tf->bt[j][k] = (float)mj[k];
    }
    tf->at[m - 1][n - 1] = 1;
    tf->g[n - 1][r - 1] = 1;
    double mm[FDNN_WINO_MAX_N + 1] = {0};
    poly_from_roots(np, -1, mm);
    for (int k = 0; k < n; k++)
        tf->bt[n - 1][k] = (float)mm[k];
}
