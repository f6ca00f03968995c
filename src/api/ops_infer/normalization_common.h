/* SPDX-License-Identifier: Apache-2.0
 * Argument checks of the generic normalization API (cudnnNormalization*),
 * which in 8.9 covers batch normalisation only: per channel and per
 * activation, groupCnt == 1.  It maps onto src/cpu/batchnorm. */
#ifndef FDNN_API_NORMALIZATION_COMMON_H
#define FDNN_API_NORMALIZATION_COMMON_H

#include <stdbool.h>

#include "cpu/batchnorm/bn.h"
#include "cudnn.h"

/* mode, algo and groupCnt; groupCnt != 1 is NOT_SUPPORTED (as cuDNN 8.9). */
cudnnStatus_t fdnn_norm_check_mode(cudnnNormMode_t mode, cudnnNormAlgo_t algo, int groupCnt, bool *per_activation);

/* normOps and, for the fused forms, the activation (RELU only). */
cudnnStatus_t fdnn_norm_check_ops(cudnnNormOps_t ops, cudnnActivationDescriptor_t activationDesc,
                                  fdnn_bn_problem_t *p);

/* The mean/variance tensors share the scale/bias tensors' layout (one
 * parameter layout per problem below the API); a different one is
 * NOT_SUPPORTED. */
cudnnStatus_t fdnn_norm_check_same_layout(const fdnn_tensor_t *mean_var, const fdnn_tensor_t *scale_bias);

#endif /* FDNN_API_NORMALIZATION_COMMON_H */
