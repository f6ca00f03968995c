/* SPDX-License-Identifier: Apache-2.0
 * cudnnGetFoldedConvBackwardDataDescriptors: a strided backward-data problem
 * rewritten as a stride-1 one on folded tensors.
 *
 * With stride s, padding pad and a filter of R taps along one dim, backward
 * data is dx[h] = sum over (p, r) with p*s - pad + r = h of dy[p] w[r].
 * Write h = hf*s + i and pad the filter by a = (s - pad mod s) mod s taps
 * before (so pad + a = m*s), then fold it by s: tap r + a = rf*s + i.  The
 * condition becomes rf = hf - p + m: a stride-1 backward data with padding
 * m between the folded filter (channels C*s, phase i the slow part) and the
 * folded dx, where dy keeps its positions (only padded after, to the size
 * the stride-1 forward of the folded dx would have).  Folding dx and the
 * filter puts the same phase in the same channel block, so the unfold of
 * the folded dx is dx.
 *
 * Sizes as NVIDIA's cuDNN 9 derives them (checked call for call by
 * tests/unit/test_conv_fold_cudnn9.c): K padded to a multiple of 8, C to
 * floor(roundup(C*sh*sw, 8) / (sh*sw)); the folded dx covers the rows of dx
 * some dy reaches, ceil(min(H, (P-1)*s - pad + R) / s); its fold crops the
 * rest and its unfold pads it back with zeros (dx is 0 there). */
#include "api_impl.h"
#include "core/ckd.h"
#include "core/conv.h"
#include "core/fail.h"
#include "core/tensor.h"
#include "core/tensor_ops_desc.h"

/* x rounded up to a multiple of m (x >= 0, m > 0); false on overflow. */
static bool
round_up(int64_t x, int64_t m, int64_t *out)
{
    return fdnn_ckd_mul_i64(fdnn_ckd_div_up_i64(x, m), m, out);
}

static cudnnStatus_t
check_tensor4(cudnnTensorDescriptor_t d, const char *what)
{
    if (d == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (d->magic != FDNN_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("%s is not a tensor descriptor (destroyed or never created)", what);
    return CUDNN_STATUS_SUCCESS;
}

/* The layout the unfolded dx is described in: gradDesc's own format (NCHW
 * for a strided descriptor), as cuDNN reports it. */
static cudnnTensorFormat_t
layout_of(cudnnTensorDescriptor_t d)
{
    return d->format == CUDNN_TENSOR_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
}

/* Sets a filter descriptor (created by the caller) to dims in `format`. */
static cudnnStatus_t
set_filter(cudnnFilterDescriptor_t d, cudnnDataType_t dtype, cudnnTensorFormat_t format, const int64_t *dims)
{
    int64_t total = 1;
    if (!fdnn_ckd_prod_i64(dims, 4, &total) || total > INT32_MAX)
        return FDNN_NOT_SUPPORTED("the folded filter has more than 2^31-1 elements");
    d->dtype = dtype;
    d->format = format;
    d->nb_dims = 4;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        d->dims[i] = i < 4 ? (int)dims[i] : 0;
    d->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
set_tensor(cudnnTensorDescriptor_t d, cudnnDataType_t dtype, cudnnTensorFormat_t format, const int64_t *dims)
{
    int di[4];
    for (int i = 0; i < 4; i++) {
        if (dims[i] <= 0 || dims[i] > INT32_MAX)
            return FDNN_NOT_SUPPORTED("a folded dim is %lld, out of range", (long long)dims[i]);
        di[i] = (int)dims[i];
    }
    return fdnn_tensor_set_packed(d, format, dtype, 4, di);
}

cudnnStatus_t
fdnn_api_cudnnGetFoldedConvBackwardDataDescriptors(
    const cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc,
    const cudnnTensorFormat_t transformFormat, cudnnFilterDescriptor_t foldedFilterDesc,
    cudnnTensorDescriptor_t paddedDiffDesc, cudnnConvolutionDescriptor_t foldedConvDesc,
    cudnnTensorDescriptor_t foldedGradDesc, cudnnTensorTransformDescriptor_t filterFoldTransDesc,
    cudnnTensorTransformDescriptor_t diffPadTransDesc, cudnnTensorTransformDescriptor_t gradFoldTransDesc,
    cudnnTensorTransformDescriptor_t gradUnfoldTransDesc)
{
    /* cuDNN derives the descriptors without the handle (it accepts NULL). */
    (void)handle;
    fdnn_tensor_t w, dy, dx;
    RETURN_IF_ERROR(fdnn_tensor_from_filter(filterDesc, "filterDesc", &w));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(diffDesc, "diffDesc", &dy));
    RETURN_IF_ERROR(fdnn_conv_desc_check(convDesc, "convDesc", true));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(gradDesc, "gradDesc", &dx));
    if (transformFormat != CUDNN_TENSOR_NCHW && transformFormat != CUDNN_TENSOR_NHWC)
        return FDNN_NOT_SUPPORTED("transformFormat is %d; folding takes NCHW or NHWC", (int)transformFormat);
    /* cuDNN folds 2-d convolutions only (BAD_PARAM for the others). */
    if (w.ndim != 4 || dy.ndim != 4 || dx.ndim != 4 || convDesc->array_length != 2)
        return FDNN_BAD_PARAM("filterDesc, diffDesc, gradDesc have %d, %d, %d dims and convDesc %d spatial dims; "
                              "folding takes 2-d convolutions",
                              w.ndim, dy.ndim, dx.ndim, convDesc->array_length);
    /* No backward-data configuration takes vectorized INT8, so there is
     * nothing to fold for (cuDNN 9 answers such a call with descriptors
     * whose channel counts contradict each other; docs/tensor-ops.md). */
    if (filterDesc->format == CUDNN_TENSOR_NCHW_VECT_C || diffDesc->format == CUDNN_TENSOR_NCHW_VECT_C ||
        gradDesc->format == CUDNN_TENSOR_NCHW_VECT_C)
        return FDNN_NOT_SUPPORTED("NCHW_VECT_C operands: no backward data takes vectorized INT8, so nothing is "
                                  "folded for it");
    if (w.dtype != dy.dtype || w.dtype != dx.dtype)
        return FDNN_BAD_PARAM("filterDesc, diffDesc and gradDesc are %s, %s and %s: the types must match",
                              fdnn_dtype_name(w.dtype), fdnn_dtype_name(dy.dtype), fdnn_dtype_name(dx.dtype));
    /* The problem must be consistent: dy the forward output of dx and w. */
    int nb, ydims[CUDNN_DIM_MAX];
    RETURN_IF_ERROR(fdnn_conv_output_dims(convDesc, gradDesc, filterDesc, &nb, ydims));
    for (int i = 0; i < 4; i++)
        if (dy.dims[i] != ydims[i])
            return FDNN_BAD_PARAM("diffDesc dim %d is %lld, the convolution of gradDesc and filterDesc makes %d", i,
                                  (long long)dy.dims[i], ydims[i]);
    /* Folding is exact without dilation or groups: a dilated filter's taps
     * do not fall into consecutive phases. */
    if (convDesc->group_count != 1)
        return FDNN_NOT_SUPPORTED("convDesc has %d groups; folding takes 1", convDesc->group_count);
    if (convDesc->dilation[0] != 1 || convDesc->dilation[1] != 1)
        return FDNN_NOT_SUPPORTED("convDesc has dilation %d x %d; folding a dilated filter is not exact",
                                  convDesc->dilation[0], convDesc->dilation[1]);
    /* CUDNN_CONVOLUTION: the folded convolution keeps the mode, so it flips
     * the folded taps, which is the flip of the original filter only where
     * the fold is trivial: along a dim of stride 1 (nothing folded) or of
     * filter size 1 (nothing to flip).  Elsewhere the flip would have to
     * reverse the order of the phases in the channel blocks, which no fold
     * transform expresses; NVIDIA's cuDNN 9 returns the cross-correlation
     * descriptors with the mode CONVOLUTION there, whose result is not the
     * backward data (docs/tensor-ops.md), so FreeDNN declines. */
    if (convDesc->mode == CUDNN_CONVOLUTION)
        for (int d = 0; d < 2; d++)
            if (convDesc->stride[d] != 1 && w.dims[2 + d] != 1)
                return FDNN_NOT_SUPPORTED("convDesc is CUDNN_CONVOLUTION with stride %d and a filter of %lld taps "
                                          "along spatial dim %d: the folded filter would need its phases "
                                          "reversed, which a fold transform cannot express",
                                          convDesc->stride[d], (long long)w.dims[2 + d], d);
    RETURN_IF_ERROR(fdnn_conv_desc_check(foldedConvDesc, "foldedConvDesc", false));
    if (foldedFilterDesc == NULL || foldedFilterDesc->magic != FDNN_FILTER_MAGIC)
        return FDNN_BAD_PARAM("foldedFilterDesc is not a filter descriptor");
    RETURN_IF_ERROR(check_tensor4(paddedDiffDesc, "paddedDiffDesc"));
    RETURN_IF_ERROR(check_tensor4(foldedGradDesc, "foldedGradDesc"));
    cudnnTensorTransformDescriptor_t all_t[4] = {filterFoldTransDesc, diffPadTransDesc, gradFoldTransDesc,
                                                 gradUnfoldTransDesc};
    static const char *const t_names[4] = {"filterFoldTransDesc", "diffPadTransDesc", "gradFoldTransDesc",
                                           "gradUnfoldTransDesc"};
    for (int i = 0; i < 4; i++)
        if (all_t[i] == NULL || all_t[i]->magic != FDNN_TRANSFORM_MAGIC)
            return FDNN_BAD_PARAM("%s is not a tensor-transform descriptor", t_names[i]);

    const int64_t n = dx.dims[0], c = dx.dims[1], k = w.dims[0];
    /* Strides are below 2^31, so their product fits int64_t; C times it
     * may not (strides near INT_MAX), so that product and the roundings are
     * checked. */
    const int64_t fold_prod = (int64_t)convDesc->stride[0] * convDesc->stride[1];
    int64_t kp, cfold;
    if (!round_up(k, 8, &kp) || !fdnn_ckd_mul_i64(c, fold_prod, &cfold) || !round_up(cfold, 8, &cfold))
        return FDNN_BAD_PARAM("the folded channel count C x strides (%lld x %d x %d) overflows", (long long)c,
                              convDesc->stride[0], convDesc->stride[1]);
    /* C padded so that C x strides is at most the rounded count (as cuDNN). */
    const int64_t cp = cfold / fold_prod, cf = cp * fold_prod;
    /* Every quantity below is a dim, pad or stride (< 2^31) or a sum or
     * product of two of them: it fits int64_t; the pads are narrowed to
     * int32_t with a check at the end. */
    int64_t rf[2], padf[2], hf[2], pf[2];
    int64_t w_pb[4] = {0, 0, 0, 0}, w_pa[4] = {kp - k, cp - c, 0, 0};
    int64_t dy_pa[4] = {0, kp - k, 0, 0};
    int64_t gf_pa[4] = {0, cp - c, 0, 0}, gu_pa[4] = {0, c - cp, 0, 0};
    uint32_t fold[2];
    for (int d = 0; d < 2; d++) {
        const int64_t s = convDesc->stride[d], pad = convDesc->pad[d], r = w.dims[2 + d];
        const int64_t h = dx.dims[2 + d], p = dy.dims[2 + d];
        const int64_t a = (s - pad % s) % s;
        rf[d] = fdnn_ckd_div_up_i64(r + a, s);
        padf[d] = (pad + a) / s;
        /* dy reaches the rows [0, reach) of dx (and no row when the padding
         * swallows the filter: cuDNN 9 then says BAD_PARAM). */
        int64_t reach = (p - 1) * s - pad + r;
        if (reach < 1)
            return FDNN_BAD_PARAM("along spatial dim %d diffDesc reaches no element of gradDesc (padding %lld, "
                                  "filter %lld)",
                                  d, (long long)pad, (long long)r);
        if (reach > h)
            reach = h;
        hf[d] = fdnn_ckd_div_up_i64(reach, s);
        pf[d] = hf[d] + 2 * padf[d] - rf[d] + 1;
        w_pb[2 + d] = a;
        w_pa[2 + d] = rf[d] * s - r - a;
        dy_pa[2 + d] = pf[d] - p;
        gf_pa[2 + d] = hf[d] * s - h < 0 ? hf[d] * s - h : 0;
        gu_pa[2 + d] = h - hf[d] * s;
        fold[d] = (uint32_t)s;
    }
    if (pf[0] < 1 || pf[1] < 1)
        return FDNN_NOT_SUPPORTED("the folded problem has no output rows (pad too large for the filter)");
    int32_t w_pb32[4], w_pa32[4], dy_pa32[4], gf_pa32[4], gu_pa32[4], padf32[2], zero[4] = {0, 0, 0, 0};
    const int64_t *pads64[5] = {w_pb, w_pa, dy_pa, gf_pa, gu_pa};
    int32_t *pads32[5] = {w_pb32, w_pa32, dy_pa32, gf_pa32, gu_pa32};
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 4; i++)
            if (!fdnn_ckd_to_i32(pads64[j][i], &pads32[j][i]))
                return FDNN_BAD_PARAM("a pad of the folded problem is %lld, beyond the int32 of a transform "
                                      "descriptor",
                                      (long long)pads64[j][i]);
    for (int d = 0; d < 2; d++)
        if (!fdnn_ckd_to_i32(padf[d], &padf32[d]))
            return FDNN_BAD_PARAM("the folded padding is %lld, beyond int32", (long long)padf[d]);
    const int64_t fw_dims[4] = {kp, cf, rf[0], rf[1]};
    const int64_t dy_dims[4] = {n, kp, pf[0], pf[1]};
    const int64_t dx_dims[4] = {n, cf, hf[0], hf[1]};
    RETURN_IF_ERROR(set_filter(foldedFilterDesc, w.dtype, transformFormat, fw_dims));
    RETURN_IF_ERROR(set_tensor(paddedDiffDesc, dy.dtype, transformFormat, dy_dims));
    RETURN_IF_ERROR(set_tensor(foldedGradDesc, dx.dtype, transformFormat, dx_dims));
    RETURN_IF_ERROR(fdnn_transform_desc_set(filterFoldTransDesc, 4, transformFormat, w_pb32, w_pa32, fold,
                                            CUDNN_TRANSFORM_FOLD));
    RETURN_IF_ERROR(fdnn_transform_desc_set(diffPadTransDesc, 4, transformFormat, zero, dy_pa32, NULL,
                                            CUDNN_TRANSFORM_FOLD));
    RETURN_IF_ERROR(fdnn_transform_desc_set(gradFoldTransDesc, 4, transformFormat, zero, gf_pa32, fold,
                                            CUDNN_TRANSFORM_FOLD));
    RETURN_IF_ERROR(fdnn_transform_desc_set(gradUnfoldTransDesc, 4, layout_of(gradDesc), zero, gu_pa32, fold,
                                            CUDNN_TRANSFORM_UNFOLD));
    /* The stride-1 convolution: the same mode, types and math. */
    struct cudnnConvolutionStruct *fc = foldedConvDesc;
    fc->array_length = 2;
    for (int i = 0; i < FDNN_CONV_MAX_ARRAY; i++) {
        fc->pad[i] = i < 2 ? padf32[i] : 0;
        fc->stride[i] = 1;
        fc->dilation[i] = 1;
    }
    fc->mode = convDesc->mode;
    fc->compute_type = convDesc->compute_type;
    fc->math_type = convDesc->math_type;
    fc->group_count = 1;
    fc->reorder = convDesc->reorder;
    fc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}
