/* SPDX-License-Identifier: Apache-2.0
 * The descriptors of the tensor operations: op-tensor, reduce-tensor and
 * tensor-transform.  Only src/api/ops_infer reads them; the operations below
 * get plain values.  Each starts with a magic (set at create, cleared at
 * destroy) and is_set, so a wrong or never-set descriptor is BAD_PARAM. */
#ifndef FDNN_CORE_TENSOR_OPS_DESC_H
#define FDNN_CORE_TENSOR_OPS_DESC_H

#include <stdbool.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_OP_TENSOR_MAGIC 0x504f5054u     /* "TPOP" */
#define FDNN_REDUCE_TENSOR_MAGIC 0x44455254u /* "TRED" */
#define FDNN_TRANSFORM_MAGIC 0x534e5254u     /* "TRNS" */

struct cudnnOpTensorStruct {
    uint32_t magic;
    bool is_set;
    cudnnOpTensorOp_t op;
    cudnnDataType_t comp_type; /* FLOAT, DOUBLE, HALF or BFLOAT16 */
    cudnnNanPropagation_t nan_opt;
};

struct cudnnReduceTensorStruct {
    uint32_t magic;
    bool is_set;
    cudnnReduceTensorOp_t op;
    cudnnDataType_t comp_type; /* FLOAT, DOUBLE or HALF */
    cudnnNanPropagation_t nan_opt;
    cudnnReduceTensorIndices_t indices;
    cudnnIndicesType_t indices_type;
};

struct cudnnTensorTransformStruct {
    uint32_t magic;
    bool is_set;
    int nb_dims;
    cudnnTensorFormat_t dest_format;
    int32_t pad_before[CUDNN_DIM_MAX];
    int32_t pad_after[CUDNN_DIM_MAX];
    uint32_t fold[CUDNN_DIM_MAX]; /* per spatial dim (nb_dims - 2 of them) */
    cudnnFoldingDirection_t direction;
};

/* Sets a transform descriptor as cudnnSetTensorTransformDescriptor does
 * (same checks and statuses), for functions that derive one
 * (cudnnGetFoldedConvBackwardDataDescriptors).  Defined in
 * src/api/ops_infer/transform.c. */
cudnnStatus_t fdnn_transform_desc_set(cudnnTensorTransformDescriptor_t d, uint32_t nb, cudnnTensorFormat_t format,
                                      const int32_t *pad_before, const int32_t *pad_after, const uint32_t *fold,
                                      cudnnFoldingDirection_t direction);

#endif /* FDNN_CORE_TENSOR_OPS_DESC_H */
