/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference softmax over packed NCHW-order arrays of N x C x S
 * (S = product of the spatial dims).  Formulas: src/cpu/softmax/softmax.h;
 * the reference always subtracts the group max (FAST and ACCURATE are the
 * same function mathematically). */
#ifndef FDNN_REF_SOFTMAX_REF_H
#define FDNN_REF_SOFTMAX_REF_H

#include <stdbool.h>
#include <stdint.h>

/* y = alpha * softmax(x) + beta * y (log-softmax when is_log); channel: over
 * C per (n, s), else over C * S per n. */
void fdnn_ref_softmax_forward(bool is_log, bool channel, int64_t N, int64_t C, int64_t S, double alpha,
                              const double *x, double beta, double *y);

void fdnn_ref_softmax_backward(bool is_log, bool channel, int64_t N, int64_t C, int64_t S, double alpha,
                               const double *y, const double *dy, double beta, double *dx);

#endif /* FDNN_REF_SOFTMAX_REF_H */
