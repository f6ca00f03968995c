/* SPDX-License-Identifier: Apache-2.0
 * See normalization_common.h. */
#include "api/ops_infer/normalization_common.h"

#include "api/ops_infer/batchnorm_common.h"
#include "core/fail.h"

cudnnStatus_t
fdnn_norm_check_mode(cudnnNormMode_t mode, cudnnNormAlgo_t algo, int groupCnt, bool *per_activation)
{
    /* cuDNN 9 checks groupCnt before the mode; 8.9 documents groupCnt == 1
     * as the only supported value. */
    if (groupCnt != 1)
        return FDNN_NOT_SUPPORTED("groupCnt is %d; only 1 is supported", groupCnt);
    switch (mode) {
    case CUDNN_NORM_PER_ACTIVATION: *per_activation = true; break;
    case CUDNN_NORM_PER_CHANNEL: *per_activation = false; break;
    default: return FDNN_BAD_PARAM("mode is %d, not a cudnnNormMode_t", (int)mode);
    }
    if (algo != CUDNN_NORM_ALGO_STANDARD && algo != CUDNN_NORM_ALGO_PERSIST)
        return FDNN_BAD_PARAM("algo is %d, not a cudnnNormAlgo_t", (int)algo);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_norm_check_ops(cudnnNormOps_t ops, cudnnActivationDescriptor_t activationDesc, fdnn_bn_problem_t *p)
{
    if (ops != CUDNN_NORM_OPS_NORM && ops != CUDNN_NORM_OPS_NORM_ACTIVATION &&
        ops != CUDNN_NORM_OPS_NORM_ADD_ACTIVATION)
        return FDNN_BAD_PARAM("normOps is %d, not a cudnnNormOps_t", (int)ops);
    /* The enumerators have the values of cudnnBatchNormOps_t. */
    return fdnn_bn_check_ops((cudnnBatchNormOps_t)ops, activationDesc, p);
}

cudnnStatus_t
fdnn_norm_check_same_layout(const fdnn_tensor_t *mean_var, const fdnn_tensor_t *scale_bias)
{
    for (int d = 0; d < scale_bias->ndim; d++)
        if (mean_var->dims[d] > 1 && mean_var->strides[d] != scale_bias->strides[d])
            return FDNN_NOT_SUPPORTED("normMeanVarDesc strides differ from normScaleBiasDesc's (dim %d)", d);
    return CUDNN_STATUS_SUCCESS;
}
