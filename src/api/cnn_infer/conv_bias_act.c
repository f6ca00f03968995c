/* SPDX-License-Identifier: Apache-2.0
 * cudnnConvolutionBiasActivationForward:
 *   y = act(alpha1 * conv(x, w) + alpha2 * z + bias)
 * with act RELU or IDENTITY (IDENTITY only with IMPLICIT_PRECOMP_GEMM, as
 * cuDNN 8.9 documents).  z may be y itself (in place); bias is 1xKx1x1.
 * The blend, bias and ReLU run in the GEMM's epilogue: y is first made z
 * (when z is another buffer) and then the convolution accumulates into it
 * with beta = alpha2. */
#include <stdlib.h>
#include <string.h>

#include "api/cnn_infer/conv_bias_act_int8.h"
#include "api/cnn_infer/conv_common.h"
#include "api_impl.h"
#include "core/activation.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/scaling.h"

/* dst = src elementwise over dst's dims (5-D views of equal dims). */
static void
copy_tensor(const fdnn_tensor_t *dt, void *dst, const fdnn_tensor_t *st, const void *src, size_t es)
{
    int64_t count = fdnn_tensor_elements(dt);
    for (int64_t i = 0; i < count; i++) {
        int64_t rest = i, od = 0, os = 0;
        for (int d = dt->ndim - 1; d >= 0; d--) {
            int64_t c = rest % dt->dims[d];
            rest /= dt->dims[d];
            od += c * dt->strides[d];
            os += c * st->strides[d];
        }
        memcpy((char *)dst + od * (int64_t)es, (const char *)src + os * (int64_t)es, es);
    }
}

cudnnStatus_t
fdnn_api_cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void *alpha1, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const cudnnTensorDescriptor_t zDesc, const void *z, const cudnnTensorDescriptor_t biasDesc, const void *bias,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(alpha1);
    RETURN_IF_NULL(alpha2);
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(w);
    RETURN_IF_NULL(z);
    RETURN_IF_NULL(bias);
    RETURN_IF_NULL(y);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(FDNN_CONV_FWD, xDesc, wDesc, convDesc, yDesc, &p));
    if (fdnn_conv_config_is_integer(p.config)) /* INT8 configurations: their own types and blend */
        return fdnn_conv_bias_act_int8(handle, &p, alpha1, x, w, (int)algo, workSpace, workSpaceSizeInBytes,
                                       alpha2, zDesc, z, biasDesc, bias, activationDesc, yDesc, y);
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
    if (zt.dtype != p.dtype || bt.dtype != p.dtype)
        return FDNN_BAD_PARAM("zDesc (%s) and biasDesc (%s) must have the data type of yDesc (%s)",
                              fdnn_dtype_name(zt.dtype), fdnn_dtype_name(bt.dtype), fdnn_dtype_name(p.dtype));
    fdnn_activation_t act;
    RETURN_IF_ERROR(fdnn_activation_from_desc(activationDesc, "activationDesc", &act));
    if (act.mode != CUDNN_ACTIVATION_RELU && act.mode != CUDNN_ACTIVATION_IDENTITY)
        return FDNN_NOT_SUPPORTED("activation mode %d: only RELU and IDENTITY are supported here", (int)act.mode);
    if (act.mode == CUDNN_ACTIVATION_IDENTITY && algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
        return FDNN_NOT_SUPPORTED("IDENTITY activation needs CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM");
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workSpace, workSpaceSizeInBytes));
    size_t need = 0;
    RETURN_IF_ERROR(fdnn_conv_algo_check(&p, (int)algo, &need));
    if (workSpaceSizeInBytes < need)
        return FDNN_BAD_PARAM("workSpaceSizeInBytes is %zu, algorithm %d needs %zu", workSpaceSizeInBytes, (int)algo,
                              need);
    fdnn_conv_log(&p, (int)algo);

    size_t es = fdnn_dtype_size(p.dtype);
    double a2 = fdnn_scaling_value(alpha2, p.dtype);
    /* The bias packed (K elements), unless it already is. */
    void *packed = NULL;
    const void *b = bias;
    if (bt.strides[1] != 1 && p.k > 1) {
        packed = malloc((size_t)p.k * es);
        if (packed == NULL)
            return FDNN_ALLOC_FAILED("cannot allocate %lld bias values", (long long)p.k);
        for (int64_t k = 0; k < p.k; k++)
            memcpy((char *)packed + k * (int64_t)es, (const char *)bias + k * bt.strides[1] * (int64_t)es, es);
        b = packed;
    }
    if (a2 != 0 && z != y)
        copy_tensor(&yt, y, &zt, z, es);
    fdnn_conv_exec_t e = {
        .handle = handle,
        .p = &p,
        .x_in = x,
        .w_in = w,
        .out = y,
        .alpha = fdnn_scaling_value(alpha1, p.dtype),
        .beta = a2,
        .bias = b,
        .relu = act.mode == CUDNN_ACTIVATION_RELU,
        .workspace = workSpace,
        .workspace_bytes = workSpaceSizeInBytes,
    };
    cudnnStatus_t st = fdnn_conv_run(&e, (int)algo);
    free(packed);
    return st;
}
