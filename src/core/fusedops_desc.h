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

struct cudnnFusedOpsPlanStruct {
    uint32_t magic;
    cudnnFusedOps_t ops;
};

#endif /* FDNN_CORE_FUSEDOPS_DESC_H */
