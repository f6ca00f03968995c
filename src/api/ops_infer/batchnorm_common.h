/* SPDX-License-Identifier: Apache-2.0
 * Argument checks shared by the batch-norm and generic normalization entry
 * points (ops_infer and ops_train).  Each returns BAD_PARAM or NOT_SUPPORTED
 * with a one-line reason naming the argument. */
#ifndef FDNN_API_BATCHNORM_COMMON_H
#define FDNN_API_BATCHNORM_COMMON_H

#include <stdbool.h>

#include "core/tensor.h"
#include "cpu/batchnorm/bn.h"
#include "cudnn.h"

/* A data tensor of a batch norm: 4 or 5 dims, FLOAT, DOUBLE, HALF or
 * BFLOAT16. */
cudnnStatus_t fdnn_bn_check_data(cudnnTensorDescriptor_t desc, const char *what, fdnn_tensor_t *out);

/* desc must describe a tensor with x's dims and type. */
cudnnStatus_t fdnn_bn_check_like_x(cudnnTensorDescriptor_t desc, const char *what, const fdnn_tensor_t *x,
                                   fdnn_tensor_t *out);

/* fdnn_bn_check_like_x for an output (y, dx): its elements must not alias
 * (fdnn_tensor_check_output). */
cudnnStatus_t fdnn_bn_check_output(cudnnTensorDescriptor_t desc, const char *what, const fdnn_tensor_t *x,
                                   fdnn_tensor_t *out);

/* A parameter tensor: 1xCx1x1(x1) (per channel) or 1xCxHxW (per activation),
 * FLOAT for FLOAT/HALF/BFLOAT16 data, DOUBLE for DOUBLE data. */
cudnnStatus_t fdnn_bn_check_param(cudnnTensorDescriptor_t desc, const char *what, const fdnn_tensor_t *x,
                                  bool per_activation, fdnn_tensor_t *out);

/* cudnnBatchNormMode_t -> per_activation; SPATIAL_PERSISTENT is SPATIAL. */
cudnnStatus_t fdnn_bn_check_mode(cudnnBatchNormMode_t mode, bool *per_activation);

/* The activation of the fused ops: only RELU (as cuDNN's fused BN kernels);
 * sets p->relu, p->add and p->relu_nan; for plain BN activationDesc is
 * ignored. */
cudnnStatus_t fdnn_bn_check_ops(cudnnBatchNormOps_t ops, cudnnActivationDescriptor_t activationDesc,
                                fdnn_bn_problem_t *p);

cudnnStatus_t fdnn_bn_check_epsilon(double epsilon);

/* The derived parameter descriptor of x (DeriveBN/DeriveNorm): 1xCx1x1
 * per channel, 1xCxHxW per activation, packed, FLOAT (DOUBLE for DOUBLE x). */
/* The data type cudnnDeriveBNTensorDescriptor (and the normalization
 * twin) gives the parameters of data of type x. */
cudnnDataType_t fdnn_bn_param_type(cudnnDataType_t x);

cudnnStatus_t fdnn_bn_derive(cudnnTensorDescriptor_t derived, cudnnTensorDescriptor_t xDesc, bool per_activation,
                             const char *what);

#endif /* FDNN_API_BATCHNORM_COMMON_H */
