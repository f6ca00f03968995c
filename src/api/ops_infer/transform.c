/* SPDX-License-Identifier: Apache-2.0
 * Tensor transforms: the transform descriptor, cudnnInitTransformDest,
 * cudnnTransformTensor (same dims and type, any layouts) and
 * cudnnTransformTensorEx (padding, any layouts, type conversion):
 *     dest = alpha * transform(src) + beta * dest */
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "api/ops_infer/tensor_ops_util.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor_ops_desc.h"
#include "cpu/tensor/tensor_ops.h"

static cudnnStatus_t
check_desc(cudnnTensorTransformDescriptor_t d, bool need_set)
{
    if (d == NULL)
        return FDNN_BAD_PARAM("transformDesc is NULL");
    if (d->magic != FDNN_TRANSFORM_MAGIC)
        return FDNN_BAD_PARAM("transformDesc is not a tensor-transform descriptor (destroyed or never created)");
    if (need_set && !d->is_set)
        return FDNN_BAD_PARAM("transformDesc was created but never set");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateTensorTransformDescriptor(cudnnTensorTransformDescriptor_t *transformDesc)
{
    RETURN_IF_NULL(transformDesc);
    struct cudnnTensorTransformStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a tensor-transform descriptor");
    d->magic = FDNN_TRANSFORM_MAGIC;
    *transformDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc)
{
    if (transformDesc == NULL)
        return CUDNN_STATUS_SUCCESS; /* as cuDNN */
    RETURN_IF_ERROR(check_desc(transformDesc, false));
    transformDesc->magic = 0;
    free(transformDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc, const uint32_t nbDims,
                                           const cudnnTensorFormat_t destFormat, const int32_t *padBeforeA,
                                           const int32_t *padAfterA, const uint32_t *foldA,
                                           const cudnnFoldingDirection_t direction)
{
    RETURN_IF_ERROR(check_desc(transformDesc, false));
    /* cuDNN: more than CUDNN_DIM_MAX dims is NOT_SUPPORTED, fewer than 2
     * (no room for N and C) BAD_PARAM. */
    if (nbDims > CUDNN_DIM_MAX)
        return FDNN_NOT_SUPPORTED("nbDims is %u, more than CUDNN_DIM_MAX (%d)", nbDims, CUDNN_DIM_MAX);
    if (nbDims < 2)
        return FDNN_BAD_PARAM("nbDims is %u, expected 2 to %d", nbDims, CUDNN_DIM_MAX);
    if ((unsigned)destFormat > (unsigned)CUDNN_TENSOR_NCHW_VECT_C)
        return FDNN_NOT_SUPPORTED("destFormat is %d, not a cudnnTensorFormat_t", (int)destFormat);
    if ((unsigned)direction > (unsigned)CUDNN_TRANSFORM_UNFOLD)
        return FDNN_BAD_PARAM("direction is %d, not a cudnnFoldingDirection_t", (int)direction);
    /* NULL pads mean no padding, a NULL fold no folding.  foldA has one
     * entry per spatial dim (nbDims - 2).  Entries past nbDims read back as
     * 0, as cuDNN reports them. */
    for (uint32_t i = 0; i < CUDNN_DIM_MAX; i++) {
        transformDesc->pad_before[i] = padBeforeA != NULL && i < nbDims ? padBeforeA[i] : 0;
        transformDesc->pad_after[i] = padAfterA != NULL && i < nbDims ? padAfterA[i] : 0;
        transformDesc->fold[i] = i + 2 < nbDims ? (foldA != NULL ? foldA[i] : 1) : 0;
    }
    transformDesc->nb_dims = (int)nbDims;
    transformDesc->dest_format = destFormat;
    transformDesc->direction = direction;
    transformDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc, uint32_t nbDimsRequested,
                                           cudnnTensorFormat_t *destFormat, int32_t *padBeforeA, int32_t *padAfterA,
                                           uint32_t *foldA, cudnnFoldingDirection_t *direction)
{
    RETURN_IF_ERROR(check_desc(transformDesc, true));
    /* cuDNN takes 3 to CUDNN_DIM_MAX and fills that many pads (nbDims - 2
     * folds), with zeros past the descriptor's own dims. */
    if (nbDimsRequested < 3 || nbDimsRequested > CUDNN_DIM_MAX)
        return FDNN_BAD_PARAM("nbDimsRequested is %u, expected 3 to %d", nbDimsRequested, CUDNN_DIM_MAX);
    RETURN_IF_NULL(destFormat);
    RETURN_IF_NULL(direction);
    RETURN_IF_NULL(padBeforeA);
    RETURN_IF_NULL(padAfterA);
    RETURN_IF_NULL(foldA);
    *destFormat = transformDesc->dest_format;
    *direction = transformDesc->direction;
    for (uint32_t i = 0; i < nbDimsRequested; i++) {
        padBeforeA[i] = transformDesc->pad_before[i];
        padAfterA[i] = transformDesc->pad_after[i];
    }
    for (uint32_t i = 0; i + 2 < nbDimsRequested; i++)
        foldA[i] = transformDesc->fold[i];
    return CUDNN_STATUS_SUCCESS;
}

/* The dims a transform makes of `src` (as cuDNN computes them): every dim
 * grows by its pads; folding divides each spatial dim by its fold (rounding
 * up) and multiplies C by the product of the folds; unfolding multiplies the
 * spatial dims and divides C (rounding up), both before padding. */
static cudnnStatus_t
dest_dims(cudnnTensorTransformDescriptor_t t, const fdnn_tensor_t *src, int *dims)
{
    if (t->nb_dims != src->ndim)
        return FDNN_BAD_PARAM("transformDesc has %d dims, srcDesc %d", t->nb_dims, src->ndim);
    int64_t prod = 1;
    for (int i = 2; i < src->ndim; i++) {
        if (t->fold[i - 2] == 0)
            return FDNN_BAD_PARAM("foldA[%d] is 0", i - 2);
        prod *= t->fold[i - 2];
    }
    for (int i = 0; i < src->ndim; i++) {
        int64_t d = src->dims[i];
        int64_t pads = (int64_t)t->pad_before[i] + t->pad_after[i];
        if (i >= 2 && t->direction == CUDNN_TRANSFORM_FOLD)
            d = (d + pads + t->fold[i - 2] - 1) / t->fold[i - 2];
        else if (i >= 2)
            d = d * t->fold[i - 2] + pads;
        else if (i == 1 && t->direction == CUDNN_TRANSFORM_FOLD)
            d = (d + pads) * prod;
        else if (i == 1)
            d = (d + prod - 1) / prod + pads;
        else
            d = d + pads;
        if (d <= 0 || d > INT32_MAX)
            return FDNN_BAD_PARAM("the transform makes dim %d %lld, out of range", i, (long long)d);
        dims[i] = (int)d;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnInitTransformDest(const cudnnTensorTransformDescriptor_t transformDesc,
                                const cudnnTensorDescriptor_t srcDesc, cudnnTensorDescriptor_t destDesc,
                                size_t *destSizeInBytes)
{
    RETURN_IF_ERROR(check_desc(transformDesc, true));
    fdnn_tensor_t src;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(srcDesc, "srcDesc", &src));
    RETURN_IF_NULL(destDesc);
    RETURN_IF_NULL(destSizeInBytes);
    /* cuDNN derives 2-d to 5-d destinations only. */
    if (src.ndim > 5)
        return FDNN_NOT_SUPPORTED("srcDesc has %d dims; cudnnInitTransformDest takes at most 5", src.ndim);
    int dims[CUDNN_DIM_MAX];
    RETURN_IF_ERROR(dest_dims(transformDesc, &src, dims));
    /* Below 4 dims cuDNN lays NHWC out as NCHW. */
    cudnnTensorFormat_t format = transformDesc->dest_format;
    if (format == CUDNN_TENSOR_NHWC && src.ndim < 4)
        format = CUDNN_TENSOR_NCHW;
    RETURN_IF_ERROR(fdnn_tensor_set_packed(destDesc, format, src.dtype, src.ndim, dims));
    fdnn_tensor_t dst;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(destDesc, "destDesc", &dst));
    if (destDesc->vect > 1)
        dst.dims[1] /= destDesc->vect;
    *destSizeInBytes = (size_t)fdnn_tensor_span(&dst) * fdnn_dtype_size(dst.dtype);
    return CUDNN_STATUS_SUCCESS;
}

/* dest = alpha * src + beta * dest over views of equal dims.  Scaling
 * factors are doubles for DOUBLE dest, floats otherwise; the arithmetic is
 * double when either side is DOUBLE or INT32 (exact for every INT32). */
static cudnnStatus_t
copy_scaled(cudnnHandle_t handle, const void *alpha, const fdnn_tensor_t *src, const void *srcData,
            const void *beta, const fdnn_tensor_t *dst, void *dstData, fdnn_eltwise_t *p)
{
    const bool scale_f64 = dst->dtype == CUDNN_DATA_DOUBLE;
    p->op = FDNN_ELT_COPY;
    p->f64 = scale_f64 || src->dtype == CUDNN_DATA_DOUBLE || src->dtype == CUDNN_DATA_INT32 ||
             dst->dtype == CUDNN_DATA_INT32;
    RETURN_IF_ERROR(fdnn_tops_scale(alpha, "alpha", scale_f64, &p->alpha1));
    RETURN_IF_ERROR(fdnn_tops_scale(beta, "beta", scale_f64, &p->beta));
    RETURN_IF_ERROR(fdnn_tops_check_alias(src, srcData, "the source", dst, dstData));
    p->a = *src;
    p->a_data = srcData;
    p->c = *dst;
    p->c_data = dstData;
    (void)handle;
    return CUDNN_STATUS_SUCCESS;
}

/* The element type of a vector type (INT8 for INT8x4 and INT8x32, UINT8 for
 * UINT8x4); the type itself otherwise. */
static cudnnDataType_t
lane_type(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_INT8x32: return CUDNN_DATA_INT8;
    case CUDNN_DATA_UINT8x4: return CUDNN_DATA_UINT8;
    default: return t;
    }
}

/* A view of nb + 1 dims in bytes of the lane type, with C split into
 * (C / vect, vect) and the vect lanes last: NCHW_VECT_C tensors (strides in
 * vectors) and plain INT8 / UINT8 tensors (C's stride per channel) both
 * become (N, C/v, spatial..., v), so one strided copy converts between
 * them. */
static cudnnStatus_t
lane_view(cudnnTensorDescriptor_t d, const char *what, int vect, fdnn_tensor_t *out)
{
    fdnn_tensor_t t;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(d, what, &t));
    const bool vectorised = d->format == CUDNN_TENSOR_NCHW_VECT_C;
    if (!vectorised && lane_type(t.dtype) != t.dtype)
        return FDNN_NOT_SUPPORTED("%s holds %s elements outside NCHW_VECT_C, which transforms do not take", what,
                                  fdnn_dtype_name(t.dtype));
    if (t.ndim + 1 > CUDNN_DIM_MAX)
        return FDNN_NOT_SUPPORTED("%s has %d dims; NCHW_VECT_C transforms take at most %d", what, t.ndim,
                                  CUDNN_DIM_MAX - 1);
    if (t.dims[1] % vect != 0)
        return FDNN_BAD_PARAM("%s has C = %lld, not a multiple of the vector width %d", what, (long long)t.dims[1],
                              vect);
    memset(out, 0, sizeof(*out));
    out->dtype = lane_type(t.dtype);
    out->ndim = t.ndim + 1;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        out->dims[i] = 1;
        out->strides[i] = 0;
    }
    for (int i = 0; i < t.ndim; i++) {
        out->dims[i] = i == 1 ? t.dims[1] / vect : t.dims[i];
        out->strides[i] = vectorised ? t.strides[i] * vect : (i == 1 ? t.strides[1] * vect : t.strides[i]);
    }
    out->dims[t.ndim] = vect;
    out->strides[t.ndim] = vectorised ? 1 : t.strides[1];
    return CUDNN_STATUS_SUCCESS;
}

/* cudnnTransformTensor where either side is NCHW_VECT_C: INT8 <-> INT8x4 or
 * INT8x32, UINT8 <-> UINT8x4 (or between two vectorised layouts). */
static cudnnStatus_t
transform_vect(cudnnHandle_t handle, const void *alpha, cudnnTensorDescriptor_t xDesc, const void *x,
               const void *beta, cudnnTensorDescriptor_t yDesc, void *y)
{
    const int vect = xDesc->format == CUDNN_TENSOR_NCHW_VECT_C ? xDesc->vect : yDesc->vect;
    if (xDesc->format == CUDNN_TENSOR_NCHW_VECT_C && yDesc->format == CUDNN_TENSOR_NCHW_VECT_C &&
        xDesc->vect != yDesc->vect)
        return FDNN_NOT_SUPPORTED("xDesc and yDesc are NCHW_VECT_C of different vector widths");
    if (lane_type(xDesc->dtype) != lane_type(yDesc->dtype))
        return FDNN_BAD_PARAM("xDesc is %s and yDesc %s: the element types differ", fdnn_dtype_name(xDesc->dtype),
                              fdnn_dtype_name(yDesc->dtype));
    if (xDesc->nb_dims != yDesc->nb_dims)
        return FDNN_BAD_PARAM("xDesc has %d dims, yDesc %d", xDesc->nb_dims, yDesc->nb_dims);
    for (int i = 0; i < xDesc->nb_dims; i++)
        if (xDesc->dims[i] != yDesc->dims[i])
            return FDNN_BAD_PARAM("xDesc dim %d is %d, yDesc's %d", i, xDesc->dims[i], yDesc->dims[i]);
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(lane_view(xDesc, "xDesc", vect, &xt));
    RETURN_IF_ERROR(lane_view(yDesc, "yDesc", vect, &yt));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    fdnn_eltwise_t p = {0};
    RETURN_IF_ERROR(copy_scaled(handle, alpha, &xt, x, beta, &yt, y, &p));
    fdnn_tensor_eltwise(handle, &p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnTransformTensor(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                              const void *x, const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_tensor_t xt, yt;
    /* Into or out of NCHW_VECT_C: the vector lanes become a dim of their own. */
    RETURN_IF_ERROR(fdnn_tensor_from_desc(xDesc, "xDesc", &xt));
    RETURN_IF_ERROR(fdnn_tensor_from_desc(yDesc, "yDesc", &yt));
    if (xDesc->format == CUDNN_TENSOR_NCHW_VECT_C || yDesc->format == CUDNN_TENSOR_NCHW_VECT_C)
        return transform_vect(handle, alpha, xDesc, x, beta, yDesc, y);
    RETURN_IF_ERROR(fdnn_tops_view(xDesc, "xDesc", FDNN_TOPS_ALL_TYPES, &xt));
    RETURN_IF_ERROR(fdnn_tops_view(yDesc, "yDesc", FDNN_TOPS_ALL_TYPES, &yt));
    if (xt.dtype != yt.dtype)
        return FDNN_BAD_PARAM("xDesc is %s and yDesc %s: cudnnTransformTensor does not convert types",
                              fdnn_dtype_name(xt.dtype), fdnn_dtype_name(yt.dtype));
    RETURN_IF_ERROR(fdnn_tops_broadcast(&xt, "xDesc", &yt, true));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    fdnn_eltwise_t p = {0};
    RETURN_IF_ERROR(copy_scaled(handle, alpha, &xt, x, beta, &yt, y, &p));
    fdnn_tensor_eltwise(handle, &p);
    return CUDNN_STATUS_SUCCESS;
}

/* The part of `t` from `start` with extents `ext` (a sub-box). */
static void
sub_box(const fdnn_tensor_t *t, void *data, const int64_t *start, const int64_t *ext, fdnn_tensor_t *box,
        void **box_data)
{
    *box = *t;
    int64_t off = 0;
    for (int i = 0; i < t->ndim; i++) {
        off += start[i] * t->strides[i];
        box->dims[i] = ext[i];
    }
    *box_data = (char *)data + off * (int64_t)fdnn_dtype_size(t->dtype);
}

cudnnStatus_t
fdnn_api_cudnnTransformTensorEx(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                const void *alpha, const cudnnTensorDescriptor_t srcDesc, const void *srcData,
                                const void *beta, const cudnnTensorDescriptor_t destDesc, void *destData)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(check_desc(transDesc, true));
    fdnn_tensor_t src, dst;
    RETURN_IF_ERROR(fdnn_tops_view(srcDesc, "srcDesc", FDNN_TOPS_ALL_TYPES, &src));
    RETURN_IF_ERROR(fdnn_tops_view(destDesc, "destDesc", FDNN_TOPS_ALL_TYPES, &dst));
    int dims[CUDNN_DIM_MAX];
    RETURN_IF_ERROR(dest_dims(transDesc, &src, dims));
    if (dst.ndim != src.ndim)
        return FDNN_BAD_PARAM("destDesc has %d dims, srcDesc %d", dst.ndim, src.ndim);
    for (int i = 0; i < dst.ndim; i++)
        if (dst.dims[i] != dims[i])
            return FDNN_BAD_PARAM("destDesc dim %d is %lld, the transform makes %d", i, (long long)dst.dims[i],
                                  dims[i]);
    for (int i = 2; i < src.ndim; i++)
        if (transDesc->fold[i - 2] != 1)
            return FDNN_NOT_SUPPORTED("folding (foldA[%d] = %u) is not implemented", i - 2, transDesc->fold[i - 2]);
    for (int i = 0; i < src.ndim; i++)
        if (transDesc->pad_before[i] < 0 || transDesc->pad_after[i] < 0)
            return FDNN_NOT_SUPPORTED("negative padding (dim %d) is not implemented", i);
    RETURN_IF_NULL(srcData);
    RETURN_IF_NULL(destData);

    /* The interior: the box of dest at padBefore with src's extents. */
    int64_t start[CUDNN_DIM_MAX], ext[CUDNN_DIM_MAX];
    for (int i = 0; i < dst.ndim; i++) {
        start[i] = transDesc->pad_before[i];
        ext[i] = src.dims[i];
    }
    fdnn_tensor_t inner;
    void *inner_data;
    sub_box(&dst, destData, start, ext, &inner, &inner_data);
    fdnn_eltwise_t p = {0};
    RETURN_IF_ERROR(copy_scaled(handle, alpha, &src, srcData, beta, &inner, inner_data, &p));

    /* The padding: dest = alpha * 0 + beta * dest.  Cut the border into
     * disjoint boxes: for dim d, the slabs before and after the interior
     * along d, interior along the dims before d, full along the dims after. */
    for (int d = 0; d < dst.ndim; d++) {
        for (int side = 0; side < 2; side++) {
            int64_t bs[CUDNN_DIM_MAX], be[CUDNN_DIM_MAX];
            for (int i = 0; i < dst.ndim; i++) {
                bs[i] = i < d ? start[i] : 0;
                be[i] = i < d ? ext[i] : dst.dims[i];
            }
            bs[d] = side == 0 ? 0 : start[d] + ext[d];
            be[d] = side == 0 ? start[d] : dst.dims[d] - bs[d];
            if (be[d] <= 0)
                continue;
            fdnn_eltwise_t q = {.f64 = p.f64};
            void *box_data;
            sub_box(&dst, destData, bs, be, &q.c, &box_data);
            q.c_data = box_data;
            if (p.beta == 0.0) {
                q.op = FDNN_ELT_SET;
                q.value = 0.0;
            } else {
                q.op = FDNN_ELT_COPY;
                q.alpha1 = p.beta;
                q.a = q.c;
                q.a_data = box_data;
            }
            fdnn_tensor_eltwise(handle, &q);
        }
    }
    fdnn_tensor_eltwise(handle, &p);
    return CUDNN_STATUS_SUCCESS;
}
