/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference of the activation functions: the spec the optimised
 * kernels and the tests are checked against.  Arrays are plain, n elements,
 * in any order (element-wise ops do not care). */
#ifndef FDNN_REF_ACTIVATION_REF_H
#define FDNN_REF_ACTIVATION_REF_H

#include <stddef.h>

#include "core/activation.h"

/* y[i] = alpha * f(x[i]) + beta * y[i]   (y not read when beta == 0) */
void fdnn_ref_activation_forward(const fdnn_activation_t *act, double alpha, const double *x, double beta, double *y,
                                 size_t n);

/* dx[i] = alpha * grad(x[i], y[i], dy[i]) + beta * dx[i] */
void fdnn_ref_activation_backward(const fdnn_activation_t *act, double alpha, const double *x, const double *y,
                                  const double *dy, double beta, double *dx, size_t n);

#endif /* FDNN_REF_ACTIVATION_REF_H */
