/* SPDX-License-Identifier: Apache-2.0
 * The transform matrices of Winograd's minimal filtering algorithm F(m, r)
 * (Lavin & Gray, 2015), built by the Toom-Cook construction from the
 * interpolation points 0, 1, -1, 1/2, -2 and infinity (in that order; a
 * tile of n uses the first n - 1).  With 1/2 in place of 2, F(4,3) is about
 * 3x more accurate in float (max relative error 2.3e-4 -> 7.5e-5 on the
 * ResNet-50 3x3 layers; Barabasz et al., 2020, recommend such points).
 *
 * For the 1-D correlation y[i] = sum_{j<r} d[i+j] g[j], i < m, over a tile
 * of n = m + r - 1 inputs:
 *   y = A^T [ (G g) .* (B^T d) ]
 * and in 2-D, Y = A^T [ (G g G^T) .* (B^T d B) ] A.  The same matrices give
 * the filter gradient of a tile (the correlation of d with an m-long output
 * gradient dy, r outputs; the roles of A and G swap):
 *   dw = G^T [ (A dy) .* (B^T d) ]
 * With points p_0..p_{n-2} and M(x) = prod (x - p_l), M_j(x) = M(x)/(x - p_j),
 * N_j = M_j(p_j):
 *   A^T[i][j] = p_j^i            A^T[i][n-1] = [i == m-1]
 *   G[j][k]   = p_j^k / N_j      G[n-1][k]   = [k == r-1]
 *   B^T[j][k] = [x^k] M_j(x)     B^T[n-1][k] = [x^k] M(x)
 * F(2,3) uses 0, 1, -1 (coefficients 0, +-1, +-1/2: exact on small
 * integers); F(4,3) and F(2,5) use all five (fractions such as 1/3 and
 * 16/15, rounded to float). */
#ifndef FDNN_CPU_CONV_WINOGRAD_TF_H
#define FDNN_CPU_CONV_WINOGRAD_TF_H

#define FDNN_WINO_MAX_N 6 /* largest tile: F(4,3) and F(2,5) */

typedef struct fdnn_wino_tf {
    int m, r, n;                             /* n = m + r - 1 <= FDNN_WINO_MAX_N */
    float at[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N]; /* A^T: m x n */
    float g[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N];  /* G:   n x r */
    float bt[FDNN_WINO_MAX_N][FDNN_WINO_MAX_N]; /* B^T: n x n */
} fdnn_wino_tf_t;

/* Fills *tf for F(m, r); m + r - 1 must be at most FDNN_WINO_MAX_N.  The
 * entries are computed in double and rounded once to float. */
void fdnn_wino_tf_init(fdnn_wino_tf_t *tf, int m, int r);

#endif /* FDNN_CPU_CONV_WINOGRAD_TF_H */
