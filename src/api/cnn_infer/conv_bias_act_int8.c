/* SPDX-License-Identifier: Apache-2.0
 * The integer configurations of cudnnConvolutionBiasActivationForward.  See
 * conv_bias_act_int8.h; the arithmetic is src/cpu/conv/conv_int8.h's. */
#include "api/cnn_infer/conv_bias_act_int8.h"

#include <stdlib.h>

#include "api/cnn_infer/conv_common.h"
#include "core/activation.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/scaling.h"
#include "cpu/conv/conv_int8.h"

cudnnStatus_t
fdnn_conv_bias_act_int8(cudnnHandle_t handle, const fdnn_conv_problem_t *p, const void *alpha1, const void *x,
                        const void *w, int algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
                        cudnnTensorDescriptor_t zDesc, const void *z, cudnnTensorDescriptor_t biasDesc,
                        const void *bias, cudnnActivationDescriptor_t activationDesc, cudnnTensorDescriptor_t yDesc,
                        void *y)
{
    fdnn_tensor_t zt, bt, yt;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(zDesc, "zDesc", &zt));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(biasDesc, "biasDesc", &bt));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(yDesc, "yDesc", &yt));
    if (!fdnn_tensor_same_dims(&zt, &yt))
        return FDNN_BAD_PARAM("zDesc dims differ from yDesc dims");
    if (bt.ndim != yt.ndim || bt.dims[1] != yt.dims[1])
        return FDNN_BAD_PARAM("biasDesc must be 1x%lldx1x1 (one value per output channel)", (long long)yt.dims[1]);
    for (int i = 0; i < bt.ndim; i++)
        if (i != 1 && bt.dims[i] != 1)
            return FDNN_BAD_PARAM("biasDesc dim %d is %lld, expected 1", i, (long long)bt.dims[i]);
    if (zt.dtype != yt.dtype)
        return FDNN_BAD_PARAM("zDesc is %s; %s takes z of yDesc's type (%s)", fdnn_dtype_name(zt.dtype),
                              fdnn_conv_config_name(p->config), fdnn_dtype_name(yt.dtype));
    if (bt.dtype != CUDNN_DATA_FLOAT)
        return FDNN_BAD_PARAM("biasDesc is %s; %s takes a FLOAT bias", fdnn_dtype_name(bt.dtype),
                              fdnn_conv_config_name(p->config));
    if (z != y) {
        bool same = zDesc->format == yDesc->format;
        for (int i = 0; i < yt.ndim && same; i++)
            same = yt.dims[i] == 1 || zt.strides[i] == yt.strides[i];
        if (!same)
            return FDNN_NOT_SUPPORTED("zDesc has another layout than yDesc (format or strides); %s takes z in "
                                      "y's layout",
                                      fdnn_conv_config_name(p->config));
    }
    fdnn_activation_t act;
    RETURN_IF_ERROR(fdnn_activation_from_desc(activationDesc, "activationDesc", &act));
    if (act.mode != CUDNN_ACTIVATION_RELU && act.mode != CUDNN_ACTIVATION_IDENTITY)
        return FDNN_NOT_SUPPORTED("activation mode %d: only RELU and IDENTITY are supported here", (int)act.mode);
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workSpace, workSpaceSizeInBytes));
    size_t need = 0;
    RETURN_IF_ERROR(fdnn_conv_algo_check(p, algo, &need));
    fdnn_conv_log(p, algo);

    /* The bias as K floats in channel order. */
    float *b = malloc((size_t)(p->k > 0 ? p->k : 1) * 2 * sizeof(float));
    if (b == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate %lld bias values", (long long)p->k);
    for (int64_t k = 0; k < p->k; k++)
        b[p->k + k] = ((const float *)bias)[k * bt.strides[1]];
    const float *ordered = b + p->k;
    if (p->w_dtype == CUDNN_DATA_INT8x32 && p->reorder == CUDNN_NO_REORDER) {
        fdnn_conv_int8_unreorder_bias(b + p->k, b, p->k);
        ordered = b;
    }
    fdnn_conv_exec_t e = {
        .handle = handle,
        .p = p,
        .x_in = x,
        .w_in = w,
        .y_in = z,
        .out = y,
        .alpha = fdnn_scaling_value(alpha1, CUDNN_DATA_FLOAT),
        .beta = fdnn_scaling_value(alpha2, CUDNN_DATA_FLOAT),
        .bias = ordered,
        .relu = act.mode == CUDNN_ACTIVATION_RELU,
        .workspace = workSpace,
        .workspace_bytes = workSpaceSizeInBytes,
    };
    cudnnStatus_t st = fdnn_conv_run(&e, algo);
    free(b);
    return st;
}
