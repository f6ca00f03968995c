/* SPDX-License-Identifier: Apache-2.0
 * cudnnConvolutionBiasActivationForward for the integer configurations
 * (conv_config.h), called by conv_bias_act.c once the problem is known. */
#ifndef FDNN_API_CNN_INFER_CONV_BIAS_ACT_INT8_H
#define FDNN_API_CNN_INFER_CONV_BIAS_ACT_INT8_H

#include "core/conv.h"
#include "cudnn.h"

/* y = act(alpha1 * conv(x, w) + alpha2 * z + bias) for integer problem p:
 * z has y's type and layout (it may be y), bias is FLOAT (1xKx1x1; under
 * CUDNN_NO_REORDER an INT8x32 bias is in cudnnReorderFilterAndBias's
 * order), act RELU or IDENTITY. */
cudnnStatus_t fdnn_conv_bias_act_int8(cudnnHandle_t handle, const fdnn_conv_problem_t *p, const void *alpha1,
                                      const void *x, const void *w, int algo, void *workSpace,
                                      size_t workSpaceSizeInBytes, const void *alpha2,
                                      cudnnTensorDescriptor_t zDesc, const void *z, cudnnTensorDescriptor_t biasDesc,
                                      const void *bias, cudnnActivationDescriptor_t activationDesc,
                                      cudnnTensorDescriptor_t yDesc, void *y);

#endif /* FDNN_API_CNN_INFER_CONV_BIAS_ACT_INT8_H */
