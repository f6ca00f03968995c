/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference LRN (across channels) and divisive normalization over
 * packed NCHW-order arrays of N x C x S (S = spatial positions; for divisive
 * normalization the spatial dims sp[0..nsp)).  Formulas: src/cpu/lrn/lrn.h. */
#ifndef FDNN_REF_LRN_REF_H
#define FDNN_REF_LRN_REF_H

#include <stdint.h>

void fdnn_ref_lrn_forward(int n, double alpha, double beta, double k, int64_t N, int64_t C, int64_t S, const double *x,
                          double *y);
void fdnn_ref_lrn_backward(int n, double alpha, double beta, double k, int64_t N, int64_t C, int64_t S, const double *x,
                           const double *dy, double *dx);

/* means may be NULL.  sp: spatial dims (nsp of them, 2 or 3). */
void fdnn_ref_divnorm_forward(int n, double alpha, double beta, double k, int64_t N, int64_t C, int nsp,
                              const int64_t *sp, const double *x, const double *means, double *y);
void fdnn_ref_divnorm_backward(int n, double alpha, double beta, double k, int64_t N, int64_t C, int nsp,
                               const int64_t *sp, const double *x, const double *means, const double *dy, double *dx,
                               double *dmeans);

#endif /* FDNN_REF_LRN_REF_H */
