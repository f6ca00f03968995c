/* SPDX-License-Identifier: Apache-2.0
 * Argument checks of the normalisation entry points.  See batchnorm_common.h. */
#include "api/ops_infer/batchnorm_common.h"

#include <math.h>
#include <string.h>

#include "core/activation.h"
#include "core/fail.h"
#include "core/scaling.h"

static bool
data_type_ok(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

cudnnStatus_t
fdnn_bn_check_data(cudnnTensorDescriptor_t desc, const char *what, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, out));
    if (out->ndim != 4 && out->ndim != 5)
        return FDNN_BAD_PARAM("%s has %d dims, batch normalization takes 4 or 5", what, out->ndim);
    if (!data_type_ok(out->dtype))
        return FDNN_NOT_SUPPORTED("%s has data type %s; batch normalization takes f32, f64, f16 or bf16", what,
                                  fdnn_dtype_name(out->dtype));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_bn_check_like_x(cudnnTensorDescriptor_t desc, const char *what, const fdnn_tensor_t *x, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, out));
    if (!fdnn_tensor_same_dims(out, x))
        return FDNN_BAD_PARAM("%s dims differ from xDesc's", what);
    if (out->dtype != x->dtype)
        return FDNN_BAD_PARAM("%s has data type %s, xDesc has %s", what, fdnn_dtype_name(out->dtype),
                              fdnn_dtype_name(x->dtype));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_bn_check_output(cudnnTensorDescriptor_t desc, const char *what, const fdnn_tensor_t *x, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(fdnn_bn_check_like_x(desc, what, x, out));
    return fdnn_tensor_check_output(out, what);
}

cudnnStatus_t
fdnn_bn_check_param(cudnnTensorDescriptor_t desc, const char *what, const fdnn_tensor_t *x, bool per_activation,
                    fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, out));
    if (out->ndim != x->ndim)
        return FDNN_BAD_PARAM("%s has %d dims, xDesc has %d", what, out->ndim, x->ndim);
    for (int d = 0; d < x->ndim; d++) {
        int64_t want = d == 1 || (d >= 2 && per_activation) ? x->dims[d] : 1;
        if (out->dims[d] != want)
            return FDNN_BAD_PARAM("%s dim %d is %lld, expected %lld (%s mode)", what, d, (long long)out->dims[d],
                                  (long long)want, per_activation ? "per-activation" : "per-channel");
    }
    cudnnDataType_t want = x->dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    if (out->dtype != want)
        return FDNN_BAD_PARAM("%s has data type %s, expected %s for %s data", what, fdnn_dtype_name(out->dtype),
                              fdnn_dtype_name(want), fdnn_dtype_name(x->dtype));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_bn_check_mode(cudnnBatchNormMode_t mode, bool *per_activation)
{
    switch (mode) {
    case CUDNN_BATCHNORM_PER_ACTIVATION: *per_activation = true; return CUDNN_STATUS_SUCCESS;
    case CUDNN_BATCHNORM_SPATIAL:
    case CUDNN_BATCHNORM_SPATIAL_PERSISTENT: *per_activation = false; return CUDNN_STATUS_SUCCESS;
    }
    return FDNN_BAD_PARAM("mode is %d, not a cudnnBatchNormMode_t", (int)mode);
}

cudnnStatus_t
fdnn_bn_check_ops(cudnnBatchNormOps_t ops, cudnnActivationDescriptor_t activationDesc, fdnn_bn_problem_t *p)
{
    bool *relu = &p->relu, *add = &p->add;
    if (ops != CUDNN_BATCHNORM_OPS_BN && ops != CUDNN_BATCHNORM_OPS_BN_ACTIVATION &&
        ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
        return FDNN_BAD_PARAM("bnOps is %d, not a cudnnBatchNormOps_t", (int)ops);
    *relu = ops != CUDNN_BATCHNORM_OPS_BN;
    *add = ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    if (!*relu)
        return CUDNN_STATUS_SUCCESS;
    fdnn_activation_t act;
    RETURN_IF_ERROR(fdnn_activation_from_desc(activationDesc, "activationDesc", &act));
    if (act.mode != CUDNN_ACTIVATION_RELU)
        return FDNN_NOT_SUPPORTED("activationDesc mode is %d; the fused batch norm supports RELU only",
                                  (int)act.mode);
    p->relu_nan = act.propagate_nan;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_bn_check_epsilon(double epsilon)
{
    if (!(epsilon >= CUDNN_BN_MIN_EPSILON))
        return FDNN_BAD_PARAM("epsilon is %g, below CUDNN_BN_MIN_EPSILON (%g)", epsilon, CUDNN_BN_MIN_EPSILON);
    return CUDNN_STATUS_SUCCESS;
}

cudnnDataType_t
fdnn_bn_param_type(cudnnDataType_t x)
{
    switch (x) {
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_INT8: return CUDNN_DATA_FLOAT;
    default: return x;
    }
}

cudnnStatus_t
fdnn_bn_derive(cudnnTensorDescriptor_t derived, cudnnTensorDescriptor_t xDesc, bool per_activation,
               const char *what)
{
    if (derived == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (derived->magic != FDNN_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("%s is not a tensor descriptor (destroyed or never created)", what);
    fdnn_tensor_t x;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(xDesc, "xDesc", &x));
    if (x.ndim < 3)
        return FDNN_BAD_PARAM("xDesc has %d dims, expected at least 3", x.ndim);
    /* As cuDNN (9's runtime; the 8.9 text names only the floating types):
     * HALF, BFLOAT16 and INT8 data get FLOAT parameters, every other type
     * keeps x's type; the derived tensor is packed NCHW. */
    derived->dtype = fdnn_bn_param_type(x.dtype);
    derived->format = CUDNN_TENSOR_NCHW;
    derived->nb_dims = x.ndim;
    derived->vect = 1;
    int64_t s = 1;
    for (int d = CUDNN_DIM_MAX - 1; d >= 0; d--) {
        if (d >= x.ndim) {
            derived->dims[d] = 0;
            derived->strides[d] = 0;
            continue;
        }
        derived->dims[d] = d == 1 || (d >= 2 && per_activation) ? (int)x.dims[d] : 1;
        derived->strides[d] = (int)s;
        s *= derived->dims[d];
    }
    derived->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}
