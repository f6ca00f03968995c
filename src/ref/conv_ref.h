/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference convolution: the specification the solvers and the
 * oracle tests are checked against.  Plain loops straight from the formula,
 * no blocking, no threads.
 *
 * Geometry comes from an fdnn_conv_problem_t (n, g, c, k, in, ker, out, pad,
 * stride, dil, flip; its tensor views are ignored).  Data are packed
 * N,C,D,H,W (x, dx), N,K,D,H,W (y, dy) and K,C/g,D,H,W (w, dw), where a 2-D
 * problem has D = 1 and a 1-D problem D = H = 1.
 *
 * Forward (o: output position, q: kernel tap, both 3-vectors):
 *   y[n,k,o] = sum_{c < C/g} sum_q x[n, g(k)*C/g + c, o*stride - pad + q*dil]
 *                                 * w[k, c, flip ? ker-1-q : q]
 * with g(k) = k / (K/g) and x outside the input taken as 0.
 * Backward data:  dx[n,c,i] = sum over (k, o, q) with o*stride - pad + q*dil = i
 *                 of dy[n,k,o] * w[k, c mod C/g, q'] (same q' as above).
 * Backward filter: dw[k,c,q'] = sum_{n,o} dy[n,k,o] * x[n, g(k)*C/g + c, o*stride - pad + q*dil].
 * Backward bias:  db[k] = sum_{n,o} dy[n,k,o]. */
#ifndef FDNN_REF_CONV_REF_H
#define FDNN_REF_CONV_REF_H

#include "core/conv.h"

void fdnn_ref_conv_fwd(const fdnn_conv_problem_t *p, const double *x, const double *w, double *y);
void fdnn_ref_conv_bwd_data(const fdnn_conv_problem_t *p, const double *dy, const double *w, double *dx);
void fdnn_ref_conv_bwd_filter(const fdnn_conv_problem_t *p, const double *x, const double *dy, double *dw);
void fdnn_ref_conv_bwd_bias(const fdnn_conv_problem_t *p, const double *dy, double *db);

#endif /* FDNN_REF_CONV_REF_H */
