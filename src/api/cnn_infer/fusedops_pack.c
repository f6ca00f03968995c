/* SPDX-License-Identifier: Apache-2.0
 * Fused-ops parameter packs and plans (cuDNN 8 "fused ops" API, deprecated
 * in 9).  The packs are storage: each cudnnFusedOps_t accepts its own set of
 * labels (tables below, the same sets NVIDIA's library accepts); any other
 * label is BAD_PARAM.  cudnnMakeFusedOpsPlan and cudnnFusedOpsExecute are in
 * src/api/cnn_train/fusedops_plan.c.
 *
 * Constant-pack attributes:
 *   - descriptor labels (*_DESC): param is the descriptor handle (or NULL);
 *     the pack stores a copy of the descriptor.  Get copies it into the
 *     caller's descriptor `param` (created, of the same type), as cuDNN does,
 *     and sets *isNULL when none was given.
 *   - CUDNN_PARAM_BN_MODE: param points to a cudnnBatchNormMode_t;
 *   - *_PLACEHOLDER labels: param points to a cudnnFusedOpsPointerPlaceHolder_t.
 *     For these two a NULL param resets the value to 0, as cuDNN does.
 * Variant-pack attributes: CUDNN_PTR_* labels store the pointer itself;
 * CUDNN_SCALAR_* labels copy the host scalar param points to. */
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "core/fail.h"
#include "core/fusedops_desc.h"

#define BIT(l) (UINT64_C(1) << (l))
#define RANGE(a, b) (((UINT64_C(1) << ((b) + 1)) - 1) & ~((UINT64_C(1) << (a)) - 1))

/* Constant labels each op accepts. */
static const uint64_t CONST_LABELS[CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM + 1] = {
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS] = RANGE(0, 9) | RANGE(12, 13) | RANGE(16, 18),
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD] = RANGE(0, 7) | RANGE(10, 11) | RANGE(14, 15),
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING] = RANGE(2, 5) | RANGE(16, 25),
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE] = RANGE(2, 5) | RANGE(19, 21) | RANGE(24, 25),
    [CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION] =
        RANGE(0, 1) | RANGE(3, 4) | RANGE(6, 9) | RANGE(12, 13) | RANGE(26, 30),
    [CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK] = RANGE(0, 6) | RANGE(12, 13) | RANGE(26, 32),
    [CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM] =
        RANGE(0, 2) | BIT(6) | RANGE(14, 15) | RANGE(19, 23) | RANGE(31, 38),
};

/* Pointer labels (0..23) and scalar labels (100..103, bits 0..3) per op. */
static const uint32_t PTR_LABELS[CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM + 1] = {
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS] = RANGE(0, 3) | BIT(5) | RANGE(7, 9),
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD] = RANGE(0, 2) | BIT(4) | BIT(6) | BIT(9),
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING] = RANGE(1, 2) | RANGE(7, 15),
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE] = RANGE(1, 2) | RANGE(9, 11) | RANGE(14, 15),
    [CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION] = RANGE(0, 1) | BIT(3) | BIT(5) | BIT(9) | RANGE(16, 18),
    [CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK] = RANGE(0, 2) | BIT(5) | BIT(9) | RANGE(16, 19),
    [CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM] = BIT(0) | BIT(6) | RANGE(9, 13) | RANGE(19, 23),
};
static const uint8_t SCALAR_LABELS[CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM + 1] = {
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS] = 0x1,
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD] = 0x1,
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING] = 0xf,
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE] = 0x9,
    [CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION] = 0x1,
    [CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK] = 0x1,
    [CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM] = 0x9,
};

/* What a constant label holds. */
enum label_kind { KIND_TENSOR, KIND_FILTER, KIND_CONV, KIND_ACTIVATION, KIND_BN_MODE, KIND_PLACEHOLDER };

static enum label_kind
const_label_kind(cudnnFusedOpsConstParamLabel_t label)
{
    switch (label) {
    case CUDNN_PARAM_XDESC:
    case CUDNN_PARAM_BN_EQSCALEBIAS_DESC:
    case CUDNN_PARAM_YDESC:
    case CUDNN_PARAM_DYDESC:
    case CUDNN_PARAM_YSTATS_DESC:
    case CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC:
    case CUDNN_PARAM_ZDESC:
    case CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC:
    case CUDNN_PARAM_ACTIVATION_BITMASK_DESC:
    case CUDNN_PARAM_DXDESC:
    case CUDNN_PARAM_DZDESC: return KIND_TENSOR;
    case CUDNN_PARAM_WDESC:
    case CUDNN_PARAM_DWDESC: return KIND_FILTER;
    case CUDNN_PARAM_CONV_DESC: return KIND_CONV;
    case CUDNN_PARAM_ACTIVATION_DESC: return KIND_ACTIVATION;
    case CUDNN_PARAM_BN_MODE: return KIND_BN_MODE;
    default: return KIND_PLACEHOLDER;
    }
}

static bool
ops_valid(cudnnFusedOps_t ops)
{
    return (unsigned)ops <= CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM;
}

static cudnnStatus_t
check_const(cudnnFusedOpsConstParamPack_t pack)
{
    if (pack == NULL)
        return FDNN_BAD_PARAM("constPack is NULL");
    if (pack->magic != FDNN_FUSED_CONST_MAGIC)
        return FDNN_BAD_PARAM("constPack is not a fused-ops constant param pack (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_const_label(cudnnFusedOpsConstParamPack_t pack, cudnnFusedOpsConstParamLabel_t label)
{
    if ((unsigned)label >= FDNN_FUSED_CONST_LABELS)
        return FDNN_BAD_PARAM("paramLabel is %d, not a cudnnFusedOpsConstParamLabel_t", (int)label);
    if (!(CONST_LABELS[pack->ops] & BIT(label)))
        return FDNN_BAD_PARAM("paramLabel %d does not belong to fused op %d", (int)label, (int)pack->ops);
    return CUDNN_STATUS_SUCCESS;
}

/* The magic a descriptor of `kind` starts with (0 for the scalar kinds). */
static uint32_t
kind_magic(enum label_kind kind)
{
    switch (kind) {
    case KIND_TENSOR: return FDNN_TENSOR_MAGIC;
    case KIND_FILTER: return FDNN_FILTER_MAGIC;
    case KIND_CONV: return FDNN_CONV_MAGIC;
    case KIND_ACTIVATION: return FDNN_ACTIVATION_MAGIC;
    default: return 0;
    }
}

/* Bytes of the struct behind a descriptor of `kind`. */
static size_t
kind_size(enum label_kind kind)
{
    switch (kind) {
    case KIND_TENSOR: return sizeof(struct cudnnTensorStruct);
    case KIND_FILTER: return sizeof(struct cudnnFilterStruct);
    case KIND_CONV: return sizeof(struct cudnnConvolutionStruct);
    case KIND_ACTIVATION: return sizeof(struct cudnnActivationStruct);
    default: return 0;
    }
}

static const char *
kind_name(enum label_kind kind)
{
    switch (kind) {
    case KIND_TENSOR: return "tensor";
    case KIND_FILTER: return "filter";
    case KIND_CONV: return "convolution";
    case KIND_ACTIVATION: return "activation";
    default: return "scalar";
    }
}

cudnnStatus_t
fdnn_api_cudnnCreateFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t *constPack, cudnnFusedOps_t ops)
{
    RETURN_IF_NULL(constPack);
    if (!ops_valid(ops))
        return FDNN_BAD_PARAM("ops is %d, not a cudnnFusedOps_t", (int)ops);
    struct cudnnFusedOpsConstParamStruct *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a constant param pack");
    p->magic = FDNN_FUSED_CONST_MAGIC;
    p->ops = ops;
    *constPack = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t constPack)
{
    if (constPack == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(check_const(constPack));
    constPack->magic = 0;
    free(constPack);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetFusedOpsConstParamPackAttribute(cudnnFusedOpsConstParamPack_t constPack,
                                                 cudnnFusedOpsConstParamLabel_t paramLabel, const void *param)
{
    RETURN_IF_ERROR(check_const(constPack));
    RETURN_IF_ERROR(check_const_label(constPack, paramLabel));
    enum label_kind kind = const_label_kind(paramLabel);
    if (kind == KIND_BN_MODE || kind == KIND_PLACEHOLDER) {
        int value = param != NULL ? *(const int *)param : 0;
        if (kind == KIND_BN_MODE && (unsigned)value > CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
            return FDNN_BAD_PARAM("the batch-norm mode is %d, not a cudnnBatchNormMode_t", value);
        if (kind == KIND_PLACEHOLDER && (unsigned)value > CUDNN_PTR_16B_ALIGNED)
            return FDNN_BAD_PARAM("the placeholder for label %d is %d, not a cudnnFusedOpsPointerPlaceHolder_t",
                                  (int)paramLabel, value);
        constPack->value[paramLabel] = value;
        return CUDNN_STATUS_SUCCESS;
    }
    if (param == NULL) {
        constPack->has_desc[paramLabel] = false;
        return CUDNN_STATUS_SUCCESS;
    }
    if (*(const uint32_t *)param != kind_magic(kind))
        return FDNN_BAD_PARAM("param for label %d is not a %s descriptor", (int)paramLabel, kind_name(kind));
    memcpy(&constPack->desc[paramLabel], param, kind_size(kind));
    constPack->has_desc[paramLabel] = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetFusedOpsConstParamPackAttribute(const cudnnFusedOpsConstParamPack_t constPack,
                                                 cudnnFusedOpsConstParamLabel_t paramLabel, void *param,
                                                 int *isNULL)
{
    RETURN_IF_ERROR(check_const(constPack));
    RETURN_IF_ERROR(check_const_label(constPack, paramLabel));
    RETURN_IF_NULL(param);
    RETURN_IF_NULL(isNULL);
    enum label_kind kind = const_label_kind(paramLabel);
    if (kind == KIND_BN_MODE || kind == KIND_PLACEHOLDER) {
        *(int *)param = constPack->value[paramLabel];
        *isNULL = 0;
        return CUDNN_STATUS_SUCCESS;
    }
    if (!constPack->has_desc[paramLabel]) {
        *isNULL = 1;
        return CUDNN_STATUS_SUCCESS;
    }
    if (*(const uint32_t *)param != kind_magic(kind))
        return FDNN_BAD_PARAM("param for label %d is not a created %s descriptor", (int)paramLabel,
                              kind_name(kind));
    memcpy(param, &constPack->desc[paramLabel], kind_size(kind));
    *isNULL = 0;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- variant packs ------------------------------------------------------- */

static cudnnStatus_t
check_variant(cudnnFusedOpsVariantParamPack_t pack)
{
    if (pack == NULL)
        return FDNN_BAD_PARAM("varPack is NULL");
    if (pack->magic != FDNN_FUSED_VARIANT_MAGIC)
        return FDNN_BAD_PARAM("varPack is not a fused-ops variant param pack (destroyed or never created)");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_variant_label(cudnnFusedOpsVariantParamPack_t pack, cudnnFusedOpsVariantParamLabel_t label)
{
    bool ok = false;
    if ((unsigned)label < FDNN_FUSED_PTR_LABELS)
        ok = (PTR_LABELS[pack->ops] >> label) & 1u;
    else if (label >= CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES && label <= CUDNN_SCALAR_DOUBLE_BN_EPSILON)
        ok = (SCALAR_LABELS[pack->ops] >> (label - CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES)) & 1u;
    else
        return FDNN_BAD_PARAM("paramLabel is %d, not a cudnnFusedOpsVariantParamLabel_t", (int)label);
    if (!ok)
        return FDNN_BAD_PARAM("paramLabel %d does not belong to fused op %d", (int)label, (int)pack->ops);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t *varPack, cudnnFusedOps_t ops)
{
    RETURN_IF_NULL(varPack);
    if (!ops_valid(ops))
        return FDNN_BAD_PARAM("ops is %d, not a cudnnFusedOps_t", (int)ops);
    struct cudnnFusedOpsVariantParamStruct *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a variant param pack");
    p->magic = FDNN_FUSED_VARIANT_MAGIC;
    p->ops = ops;
    *varPack = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t varPack)
{
    if (varPack == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(check_variant(varPack));
    varPack->magic = 0;
    free(varPack);
    return CUDNN_STATUS_SUCCESS;
}

/* Pointer labels: ptr is the (device, here host) pointer and may be NULL.
 * Scalar labels: ptr points to the host scalar; NULL stores 0. */
cudnnStatus_t
fdnn_api_cudnnSetFusedOpsVariantParamPackAttribute(cudnnFusedOpsVariantParamPack_t varPack,
                                                   cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr)
{
    RETURN_IF_ERROR(check_variant(varPack));
    RETURN_IF_ERROR(check_variant_label(varPack, paramLabel));
    switch (paramLabel) {
    case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES: varPack->workspace_bytes = ptr ? *(size_t *)ptr : 0; break;
    case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT: varPack->bn_accum_count = ptr ? *(int64_t *)ptr : 0; break;
    case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: varPack->bn_exp_avg_factor = ptr ? *(double *)ptr : 0.0; break;
    case CUDNN_SCALAR_DOUBLE_BN_EPSILON: varPack->bn_epsilon = ptr ? *(double *)ptr : 0.0; break;
    default: varPack->ptr[paramLabel] = ptr; break;
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ptr receives the stored pointer (void **) or scalar (its own type). */
cudnnStatus_t
fdnn_api_cudnnGetFusedOpsVariantParamPackAttribute(const cudnnFusedOpsVariantParamPack_t varPack,
                                                   cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr)
{
    RETURN_IF_ERROR(check_variant(varPack));
    RETURN_IF_ERROR(check_variant_label(varPack, paramLabel));
    RETURN_IF_NULL(ptr);
    switch (paramLabel) {
    case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES: *(size_t *)ptr = varPack->workspace_bytes; break;
    case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT: *(int64_t *)ptr = varPack->bn_accum_count; break;
    case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: *(double *)ptr = varPack->bn_exp_avg_factor; break;
    case CUDNN_SCALAR_DOUBLE_BN_EPSILON: *(double *)ptr = varPack->bn_epsilon; break;
    default: *(void **)ptr = varPack->ptr[paramLabel]; break;
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- plans ------------------------------------------------------------- */

cudnnStatus_t
fdnn_api_cudnnCreateFusedOpsPlan(cudnnFusedOpsPlan_t *plan, cudnnFusedOps_t ops)
{
    RETURN_IF_NULL(plan);
    if (!ops_valid(ops))
        return FDNN_BAD_PARAM("ops is %d, not a cudnnFusedOps_t", (int)ops);
    struct cudnnFusedOpsPlanStruct *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a fused-ops plan");
    p->magic = FDNN_FUSED_PLAN_MAGIC;
    p->ops = ops;
    *plan = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyFusedOpsPlan(cudnnFusedOpsPlan_t plan)
{
    if (plan == NULL)
        return CUDNN_STATUS_SUCCESS;
    if (plan->magic != FDNN_FUSED_PLAN_MAGIC)
        return FDNN_BAD_PARAM("plan is not a fused-ops plan (destroyed or never created)");
    plan->magic = 0;
    free(plan);
    return CUDNN_STATUS_SUCCESS;
}
