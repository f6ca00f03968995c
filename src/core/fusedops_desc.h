/* SPDX-License-Identifier: Apache-2.0
 * Fused-ops constant and variant parameter packs and plans (cudnnFusedOps*;
 * deprecated in cuDNN 9).  A pack belongs to one cudnnFusedOps_t and accepts
 * only that op's labels (the tables are in src/api/cnn_infer/fusedops_pack.c).
 *
 * Descriptor attributes are copied when they are set (as cuDNN does): the
 * caller may change or destroy its descriptor afterwards.  A stored copy is
 * a complete descriptor (magic included), so the operations can pass
 * &pack->desc[label].tensor wherever a cudnnTensorDescriptor_t is expected.
 * Scalar attributes (BN mode, pointer placeholders, workspace size, ...) are
 * copied too. */
#ifndef FDNN_CORE_FUSEDOPS_DESC_H
#define FDNN_CORE_FUSEDOPS_DESC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/activation.h"
#include "core/conv.h"
#include "core/tensor.h"
#include "cudnn.h"

#define FDNN_FUSED_CONST_MAGIC 0x534e4346u   /* "FCNS" */
#define FDNN_FUSED_VARIANT_MAGIC 0x52415646u /* "FVAR" */
#define FDNN_FUSED_PLAN_MAGIC 0x4e4c5046u    /* "FPLN" */

/* One more than the largest cudnnFusedOpsConstParamLabel_t. */
#define FDNN_FUSED_CONST_LABELS (CUDNN_PARAM_BN_DBIAS_PLACEHOLDER + 1)
/* Pointer labels 0..CUDNN_PTR_BN_DBIAS, scalar labels from 100. */
#define FDNN_FUSED_PTR_LABELS (CUDNN_PTR_BN_DBIAS + 1)
#define FDNN_FUSED_SCALAR_LABELS 4

/* The copy of one descriptor attribute; the label says which member. */
typedef union fdnn_fused_desc_copy {
    struct cudnnTensorStruct tensor;
    struct cudnnFilterStruct filter;
    struct cudnnConvolutionStruct conv;
    struct cudnnActivationStruct activation;
} fdnn_fused_desc_copy_t;

struct cudnnFusedOpsConstParamStruct {
    uint32_t magic;
    cudnnFusedOps_t ops;
    /* Per *_DESC label: whether a descriptor was given, and its copy. */
    bool has_desc[FDNN_FUSED_CONST_LABELS];
    fdnn_fused_desc_copy_t desc[FDNN_FUSED_CONST_LABELS];
    /* Per label: the placeholder (or batch-norm mode for CUDNN_PARAM_BN_MODE). */
    int value[FDNN_FUSED_CONST_LABELS];
};

struct cudnnFusedOpsVariantParamStruct {
    uint32_t magic;
    cudnnFusedOps_t ops;
    void *ptr[FDNN_FUSED_PTR_LABELS];
    size_t workspace_bytes;   /* CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES */
    int64_t bn_accum_count;   /* CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT */
    double bn_exp_avg_factor; /* CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR */
    double bn_epsilon;        /* CUDNN_SCALAR_DOUBLE_BN_EPSILON */
};

/* What cudnnMakeFusedOpsPlan settled for one op (docs/fused-ops.md): the
 * tensor views of the operands, the placeholder promised for each pointer
 * label, the convolution and its algorithm, and the workspace layout.  The
 * plan keeps no reference to the constant pack: the pack may change or go
 * after the plan is made.  Absent operands have ndim 0. */
typedef struct fdnn_fused_plan {
    cudnnFusedOps_t ops;
    /* Per pointer label: the placeholder (CUDNN_PTR_NULL: the op neither
     * reads nor writes it; a pointer given anyway is ignored) and the
     * element size that CUDNN_PTR_ELEM_ALIGNED refers to. */
    int ph[FDNN_FUSED_PTR_LABELS];
    size_t elem[FDNN_FUSED_PTR_LABELS];
    fdnn_tensor_t x, y, z, dy, dx, dz; /* data tensors */
    fdnn_tensor_t eq, zeq;             /* 1xCx1x1: equivalent scale/bias of x and z */
    fdnn_tensor_t stats;               /* 1xKx1x1: ySum, ySqSum */
    fdnn_tensor_t param;               /* 1xCx1x1: BN scale, bias, means, variances */
    fdnn_tensor_t mask;                /* N x ceil(C/32) x spatial, INT32 */
    bool affine;                       /* ops 0, 1: [scale], [bias], [ReLU] applied to x */
    bool relu, relu_nan;               /* ReLU (else identity); ReLU passes NaN */
    bool has_conv;
    fdnn_conv_problem_t conv; /* ops 0, 4: forward; op 1: backward filter */
    int algo;                 /* the heuristic's first applicable algorithm */
    /* Workspace layout in bytes (each part 64-byte aligned). */
    size_t ws_inter;   /* offset of the intermediate tensor (ops 0, 1, 6) */
    size_t ws_conv;    /* offset of the convolution's workspace */
    size_t ws_scratch; /* offset of the per-call scratch (gathered parameters, rows) */
    size_t ws_bytes;   /* total: what cudnnMakeFusedOpsPlan returns */
} fdnn_fused_plan_t;

struct cudnnFusedOpsPlanStruct {
    uint32_t magic;
    cudnnFusedOps_t ops;
    bool made; /* cudnnMakeFusedOpsPlan succeeded */
    fdnn_fused_plan_t plan;
};

#endif /* FDNN_CORE_FUSEDOPS_DESC_H */
