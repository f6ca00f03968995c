/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference of the tensor operations: the specification the tests
 * hold the engines to.  Every tensor is a double array with the view's
 * strides (in elements); loops run over logical indices, row-major. */
#ifndef FDNN_REF_TENSOR_OPS_REF_H
#define FDNN_REF_TENSOR_OPS_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"

/* C = op(alpha1*A, alpha2*B) + beta*C for every element of C, where
 *   ADD: x + y, MUL: x * y, MIN/MAX: the smaller/larger (with propagate, a
 *   NaN operand gives NaN; without, the other operand), SQRT: sqrt(x),
 *   NOT: 1 - x.
 * A and B are read at the same index, taking index 0 along their dims of
 * extent 1 (broadcast).  beta == 0 ignores C's old value. */
void fdnn_ref_op_tensor(cudnnOpTensorOp_t op, bool propagate_nan, double alpha1, const fdnn_tensor_t *a,
                        const double *A, double alpha2, const fdnn_tensor_t *b, const double *B, double beta,
                        const fdnn_tensor_t *c, double *C);

/* C = alpha * reduce(A) + beta * C, reducing the dims where C has extent 1:
 *   ADD sum, MUL product, MIN/MAX/AMAX (max |x|) extreme values, AVG sum/n,
 *   NORM1 sum |x|, NORM2 sqrt(sum x^2), MUL_NO_ZEROS product of the nonzero
 *   elements (1 when there are none).
 * MIN/MAX/AMAX: the first extreme in row-major order of the reduced dims;
 * with propagate the first NaN, without it NaNs are skipped (NaN if all
 * are).  indices (or NULL) gets that position, one per element of C in
 * row-major order. */
void fdnn_ref_reduce(cudnnReduceTensorOp_t op, bool propagate_nan, double alpha, const fdnn_tensor_t *a,
                     const double *A, double beta, const fdnn_tensor_t *c, double *C, int64_t *indices);

/* D = alpha * pad(S) + beta * D, where pad(S) is S placed at offset
 * pad_before[i] along each dim and 0 elsewhere.  pad_before NULL: no
 * padding, and S's dims of extent 1 broadcast (as cudnnAddTensor). */
void fdnn_ref_transform(double alpha, const fdnn_tensor_t *s, const double *S, double beta, const fdnn_tensor_t *d,
                        double *D, const int *pad_before);

/* D = alpha * T(S) + beta * D for a tensor transform with folding (the
 * semantics of fdnn_transform_t in src/cpu/tensor/tensor_ops.h): each
 * element of D finds its source directly.  Fold (unfold false), with U = S,
 * F = D and p = pad_before: F element (n, cf, hf...) takes U element
 * (n - p0, (cf - p1) mod C_U, hf * f + phase - p) where the phases are the
 * row-major digits of (cf - p1) div C_U over the folds.  Unfold, with U = D,
 * F = S and p = -pad_before: U element (n, c, h...) takes F element
 * (n + p0, p1 + off * C_U + c, (h + p) div f) with off the row-major index
 * of the phases (h + p) mod f.  Out of range: 0; for a fold also the
 * elements of U a negative pad_after crops (h >= dim + pad_after).  fold
 * has one entry per dim (1 for dims 0 and 1).  Channels: U's channels are
 * cropped first by negative C pads (a fold skips max(-p1, 0) and drops the
 * last -pad_after[1]), positive C pads lie around the phase blocks, so C_U
 * counts the channels that take part and p1 above is max(p1, 0) with the
 * skipped channels added to U's index. */
void fdnn_ref_fold_transform(double alpha, const fdnn_tensor_t *s, const double *S, double beta,
                             const fdnn_tensor_t *d, double *D, const int *pad_before, const int *pad_after,
                             const unsigned *fold, bool unfold);

#endif /* FDNN_REF_TENSOR_OPS_REF_H */
