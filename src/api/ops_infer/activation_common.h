/* SPDX-License-Identifier: Apache-2.0
 * Checks shared by the activation, softmax, pooling and LRN shims
 * (src/api/ops_infer/{activation,softmax,pooling,lrn}.c and their backward
 * twins in src/api/ops_train/).  Each returns SUCCESS or a failure status
 * with its one-line reason recorded (src/core/fail.h). */
#ifndef FDNN_API_ACTIVATION_COMMON_H
#define FDNN_API_ACTIVATION_COMMON_H

#include "core/pooling.h"
#include "core/tensor.h"
#include "cudnn.h"

/* FLOAT, DOUBLE, HALF and BFLOAT16 run; anything else is NOT_SUPPORTED. */
cudnnStatus_t fdnn_activation_check_dtype(cudnnDataType_t dtype, const char *what);

/* BAD_PARAM when a data pointer is not aligned to its element size. */
cudnnStatus_t fdnn_check_data_ptr(const void *ptr, cudnnDataType_t dtype, const char *what);

/* BAD_PARAM for an invalid softmax algorithm or mode. */
cudnnStatus_t fdnn_softmax_check_enums(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode);

/* Pooling shapes: ranks, N and C, output dims, dtypes (pooling.c). */
cudnnStatus_t fdnn_pooling_check_shapes(const fdnn_pooling_t *pool, const fdnn_tensor_t *xt, const char *xname,
                                        const fdnn_tensor_t *yt, const char *yname);

/* b matches a in dims and dtype (BAD_PARAM) and strides (in place:
 * BAD_PARAM, otherwise NOT_SUPPORTED) (lrn.c). */
cudnnStatus_t fdnn_lrn_check_pair(const fdnn_tensor_t *a, const char *an, const void *ap, const fdnn_tensor_t *b,
                                  const char *bn, const void *bp);

#endif /* FDNN_API_ACTIVATION_COMMON_H */
