/* SPDX-License-Identifier: Apache-2.0
 * The float64 reference of the GEMM core (the spec of fdnn_sgemm and
 * fdnn_dgemm, and the tests' oracle).  Plain loops, no blocking. */
#ifndef FDNN_REF_GEMM_REF_H
#define FDNN_REF_GEMM_REF_H

#include "cpu/gemm/gemm.h"

/* out[i * n + j] (dense m x n, doubles) receives
 *
 *   v = alpha * sum_{p<k} op(A)(i,p) * op(B)(p,j)  +  beta * C(i,j)
 *       (the beta term only when beta != 0: C is not read otherwise, and the
 *        sum only when alpha != 0 and k > 0: A and B are not read otherwise)
 *   v = v + bias_row[i] + bias_col[j]    (each only when not NULL)
 *   v = relu ? (v < 0 ? 0 : v) : v       (NaN stays NaN)
 *
 * with every product and sum in double precision.  When `mag` is not NULL,
 * mag[i * n + j] receives the same expression with every term replaced by
 * its absolute value, before the activation: the scale of the rounding error
 * a float computation may make (an error bound is about k * eps * mag). */
void fdnn_ref_sgemm(const fdnn_sgemm_args_t *args, double *out, double *mag);
void fdnn_ref_dgemm(const fdnn_dgemm_args_t *args, double *out, double *mag);

#endif /* FDNN_REF_GEMM_REF_H */
