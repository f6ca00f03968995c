/* SPDX-License-Identifier: Apache-2.0
 * Checks the dropout entry points share (ops_infer forward, ops_train
 * backward). */
#ifndef FDNN_API_DROPOUT_COMMON_H
#define FDNN_API_DROPOUT_COMMON_H

#include <stdbool.h>

#include "core/tensor.h"
#include "cudnn.h"

/* BAD_PARAM unless desc is a live dropout descriptor (set, if need_set). */
cudnnStatus_t fdnn_dropout_check_desc(cudnnDropoutDescriptor_t desc, bool need_set);

/* Input and output of a dropout: both set, non-NULL data, a supported and
 * common type, the same element count; in place only with equal strides. */
cudnnStatus_t fdnn_dropout_check_pair(cudnnTensorDescriptor_t aDesc, const char *an, const void *a,
                                      cudnnTensorDescriptor_t bDesc, const char *bn, const void *b,
                                      fdnn_tensor_t *at, fdnn_tensor_t *bt);

#endif /* FDNN_API_DROPOUT_COMMON_H */
