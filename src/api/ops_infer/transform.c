/* SPDX-License-Identifier: Apache-2.0
 * Tensor transforms: the transform descriptor, cudnnInitTransformDest,
 * cudnnTransformTensor (same dims, any layouts, any types) and
 * cudnnTransformTensorEx and cudnnTransformFilter (padding, cropping,
 * folding, unfolding, any layouts, type conversion):
 *     dest = alpha * transform(src) + beta * dest
 * Types: FLOAT, DOUBLE, HALF, BFLOAT16, INT8, UINT8, INT32 and the vector
 * types INT8x4, UINT8x4, INT8x32 in NCHW_VECT_C, any pair (rounding to
 * nearest even, integers saturated, NaN to an integer 0: see the engines
 * in src/cpu/tensor). */
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "api/ops_infer/tensor_ops_util.h"
#include "core/ckd.h"
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
    return fdnn_transform_desc_set(transformDesc, nbDims, destFormat, padBeforeA, padAfterA, foldA, direction);
}

cudnnStatus_t
fdnn_transform_desc_set(cudnnTensorTransformDescriptor_t transformDesc, uint32_t nbDims,
                        cudnnTensorFormat_t destFormat, const int32_t *padBeforeA, const int32_t *padAfterA,
                        const uint32_t *foldA, cudnnFoldingDirection_t direction)
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
 * grows by its pads; folding pads first, then divides each spatial dim by
 * its fold (rounding up) and multiplies C by the product of the folds;
 * unfolding multiplies the spatial dims and divides C (rounding up), then
 * pads.  A negative pad crops; like cuDNN 9, each pad alone must leave at
 * least one element of the dim it applies to (BAD_PARAM otherwise).  Every
 * product is checked (src/core/ckd.h): folds whose product overflows
 * int64_t, or dims past INT32_MAX, are BAD_PARAM, never a wrapped divisor. */
static cudnnStatus_t
dest_dims(cudnnTensorTransformDescriptor_t t, const fdnn_tensor_t *src, int *dims)
{
    if (t->nb_dims != src->ndim)
        return FDNN_BAD_PARAM("transformDesc has %d dims, srcDesc %d", t->nb_dims, src->ndim);
    int64_t prod = 1;
    for (int i = 2; i < src->ndim; i++) {
        if (t->fold[i - 2] == 0)
            return FDNN_BAD_PARAM("foldA[%d] is 0", i - 2);
        if (!fdnn_ckd_mul_i64(prod, t->fold[i - 2], &prod))
            return FDNN_BAD_PARAM("the product of the fold factors overflows (foldA[%d] is %u)", i - 2,
                                  t->fold[i - 2]);
    }
    const bool fold = t->direction == CUDNN_TRANSFORM_FOLD;
    for (int i = 0; i < src->ndim; i++) {
        const int64_t f = i >= 2 ? t->fold[i - 2] : i == 1 ? prod : 1;
        /* The extent the pads apply to: before folding, after unfolding.
         * Dims and folds are below 2^32, so base * f and the pads fit. */
        int64_t base = src->dims[i];
        if (!fold)
            base = i == 1 ? fdnn_ckd_div_up_i64(base, prod) : base * f;
        const int64_t pb = t->pad_before[i], pa = t->pad_after[i];
        if (base + pb <= 0 || base + pa <= 0 || base + pb + pa <= 0)
            return FDNN_BAD_PARAM("dim %d is %lld and its pads %lld / %lld crop all of it", i, (long long)base,
                                  (long long)pb, (long long)pa);
        int64_t d = base + pb + pa;
        if (fold && i >= 2)
            d = fdnn_ckd_div_up_i64(d, f);
        else if (fold && i == 1 && !fdnn_ckd_mul_i64(d, prod, &d))
            d = INT64_MAX; /* reported just below */
        int32_t d32;
        if (!fdnn_ckd_to_i32(d, &d32))
            return FDNN_BAD_PARAM("the transform makes dim %d %lld, more than INT32_MAX", i, (long long)d);
        dims[i] = d32;
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
    int dims[CUDNN_DIM_MAX];
    RETURN_IF_ERROR(dest_dims(transformDesc, &src, dims));
    /* cuDNN derives 2-d to 5-d destinations only (it checks the dims
     * first). */
    if (src.ndim > 5)
        return FDNN_NOT_SUPPORTED("srcDesc has %d dims; cudnnInitTransformDest takes at most 5", src.ndim);
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

/* One operand of a transform: its view (for NCHW_VECT_C, dims[1] counts
 * elements and strides count vectors, as the descriptor reports them) and
 * the vector width (1 unless NCHW_VECT_C). */
typedef struct operand {
    fdnn_tensor_t t;
    int vect;
    const char *what;
} operand_t;

/* The output rule of every op (fdnn_tensor_check_output), on the view of
 * whole vectors that the strides of an NCHW_VECT_C operand count. */
static cudnnStatus_t
check_dest(const operand_t *op)
{
    fdnn_tensor_t t = op->t;
    t.dims[1] /= op->vect;
    return fdnn_tensor_check_output(&t, op->what);
}

static cudnnStatus_t
tensor_operand(cudnnTensorDescriptor_t d, const char *what, operand_t *op)
{
    RETURN_IF_ERROR(fdnn_tensor_from_desc(d, what, &op->t));
    op->vect = d->format == CUDNN_TENSOR_NCHW_VECT_C ? d->vect : 1;
    op->what = what;
    return CUDNN_STATUS_SUCCESS;
}

/* A filter as a tensor view (K as the batch dim).  NCHW_VECT_C filters are
 * packed K, C/v, spatial..., v; their strides count vectors, as a tensor's
 * do. */
static cudnnStatus_t
filter_operand(cudnnFilterDescriptor_t d, const char *what, operand_t *op)
{
    RETURN_IF_ERROR(fdnn_tensor_from_filter(d, what, &op->t));
    op->vect = 1;
    op->what = what;
    if (d->format == CUDNN_TENSOR_NCHW_VECT_C) {
        op->vect = d->dtype == CUDNN_DATA_INT8x32 ? 32 : 4;
        int64_t s = 1;
        for (int i = op->t.ndim - 1; i >= 2; i--) {
            op->t.strides[i] = s;
            s *= op->t.dims[i];
        }
        op->t.strides[1] = s;
        op->t.strides[0] = s * (op->t.dims[1] / op->vect);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* A view in elements of the lane type with C split into (C / outer,
 * [outer / inner,] inner) and the lanes last: channel c = q * outer + r *
 * inner + l.  NCHW_VECT_C operands (strides count vectors of op->vect
 * lanes, op->vect being outer or inner) and plain operands of any type (C's
 * stride per channel) both become (N, C/outer, spatial..., [outer/inner,]
 * inner), so one strided copy converts between any two of them.  The
 * middle dim exists only when outer != inner (two vector widths). */
static cudnnStatus_t
lane_view2(const operand_t *op, int outer, int inner, fdnn_tensor_t *out)
{
    const fdnn_tensor_t *t = &op->t;
    const int w = op->vect; /* 1, inner or outer */
    const bool split = outer != inner;
    if (w == 1 && lane_type(t->dtype) != t->dtype)
        return FDNN_NOT_SUPPORTED("%s holds %s elements outside NCHW_VECT_C, which transforms do not take", op->what,
                                  fdnn_dtype_name(t->dtype));
    if (t->ndim + 1 + split > CUDNN_DIM_MAX)
        return FDNN_NOT_SUPPORTED("%s has %d dims; NCHW_VECT_C transforms take at most %d here", op->what, t->ndim,
                                  CUDNN_DIM_MAX - 1 - split);
    if (t->dims[1] % outer != 0)
        return FDNN_BAD_PARAM("%s has C = %lld, not a multiple of the vector width %d", op->what,
                              (long long)t->dims[1], outer);
    memset(out, 0, sizeof(*out));
    out->dtype = lane_type(t->dtype);
    out->ndim = t->ndim + 1 + split;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        out->dims[i] = 1;
    /* element offset of (vector or channel) index k along dim i */
    for (int i = 0; i < t->ndim; i++) {
        out->dims[i] = i == 1 ? t->dims[1] / outer : t->dims[i];
        out->strides[i] = t->strides[i] * w;
    }
    const int64_t s1 = t->strides[1]; /* per vector (w > 1) or per channel */
    int64_t sq, sr, sl;
    if (w == 1) {
        sq = s1 * outer, sr = s1 * inner, sl = s1;
    } else if (w == outer) {
        sq = s1 * w, sr = inner, sl = 1;
    } else { /* w == inner: vector q * (outer / inner) + r, lane l */
        sq = s1 * w * (outer / inner), sr = s1 * w, sl = 1;
    }
    out->strides[1] = sq;
    if (split) {
        out->dims[t->ndim] = outer / inner;
        out->strides[t->ndim] = sr;
    }
    out->dims[t->ndim + split] = inner;
    out->strides[t->ndim + split] = sl;
    return CUDNN_STATUS_SUCCESS;
}

/* The view of lane_view2 with one vector width on both sides. */
static cudnnStatus_t
lane_view(const operand_t *op, int vect, fdnn_tensor_t *out)
{
    return lane_view2(op, vect, vect, out);
}

/* Scaling factors (doubles for DOUBLE dest, floats otherwise) and the
 * arithmetic (double when either side is DOUBLE or INT32: exact for every
 * INT32). */
static cudnnStatus_t
scaling(const void *alpha, const void *beta, cudnnDataType_t src, cudnnDataType_t dst, bool *f64, double *a,
        double *b)
{
    const bool scale_f64 = dst == CUDNN_DATA_DOUBLE;
    *f64 = scale_f64 || src == CUDNN_DATA_DOUBLE || src == CUDNN_DATA_INT32 || dst == CUDNN_DATA_INT32;
    RETURN_IF_ERROR(fdnn_tops_scale(alpha, "alpha", scale_f64, a));
    return fdnn_tops_scale(beta, "beta", scale_f64, b);
}

/* dest = alpha * src + beta * dest over views of equal dims. */
static cudnnStatus_t
copy_scaled(const void *alpha, const fdnn_tensor_t *src, const void *srcData, const void *beta,
            const fdnn_tensor_t *dst, void *dstData, fdnn_eltwise_t *p)
{
    p->op = FDNN_ELT_COPY;
    RETURN_IF_ERROR(scaling(alpha, beta, src->dtype, dst->dtype, &p->f64, &p->alpha1, &p->beta));
    RETURN_IF_ERROR(fdnn_tops_check_alias(src, srcData, "the source", dst, dstData));
    p->a = *src;
    p->a_data = srcData;
    p->c = *dst;
    p->c_data = dstData;
    return CUDNN_STATUS_SUCCESS;
}

/* Runs a checked copy: the row kernels when it is a dense conversion
 * between FLOAT and HALF / BFLOAT16, the elementwise engine otherwise (the
 * same bits either way). */
static void
run_copy(cudnnHandle_t handle, const fdnn_eltwise_t *p)
{
    if (!fdnn_tensor_convert_dense(handle, p))
        fdnn_tensor_eltwise(handle, p);
}

/* cudnnTransformTensor where either side is NCHW_VECT_C: between a vector
 * type and a plain tensor of any type, or two vector types (of one width,
 * or 4 and 32: the lanes are then split as (C/32, 8, 4) on both sides). */
static cudnnStatus_t
transform_vect(cudnnHandle_t handle, const void *alpha, const operand_t *x, const void *xData, const void *beta,
               const operand_t *y, void *yData)
{
    const int outer = x->vect > y->vect ? x->vect : y->vect;
    const int inner = x->vect > 1 && y->vect > 1 ? (x->vect < y->vect ? x->vect : y->vect) : outer;
    if (x->t.ndim != y->t.ndim)
        return FDNN_BAD_PARAM("xDesc has %d dims, yDesc %d", x->t.ndim, y->t.ndim);
    for (int i = 0; i < x->t.ndim; i++)
        if (x->t.dims[i] != y->t.dims[i])
            return FDNN_BAD_PARAM("xDesc dim %d is %lld, yDesc's %lld", i, (long long)x->t.dims[i],
                                  (long long)y->t.dims[i]);
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(lane_view2(x, outer, inner, &xt));
    RETURN_IF_ERROR(lane_view2(y, outer, inner, &yt));
    RETURN_IF_NULL(xData);
    RETURN_IF_NULL(yData);
    fdnn_eltwise_t p = {0};
    RETURN_IF_ERROR(copy_scaled(alpha, &xt, xData, beta, &yt, yData, &p));
    run_copy(handle, &p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnTransformTensor(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                              const void *x, const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    operand_t xo, yo;
    RETURN_IF_ERROR(tensor_operand(xDesc, "xDesc", &xo));
    RETURN_IF_ERROR(tensor_operand(yDesc, "yDesc", &yo));
    RETURN_IF_ERROR(check_dest(&yo));
    /* Into or out of NCHW_VECT_C: the vector lanes become a dim of their own. */
    if (xo.vect > 1 || yo.vect > 1)
        return transform_vect(handle, alpha, &xo, x, beta, &yo, y);
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(fdnn_tops_view(xDesc, "xDesc", FDNN_TOPS_ALL_TYPES, &xt));
    RETURN_IF_ERROR(fdnn_tops_view(yDesc, "yDesc", FDNN_TOPS_ALL_TYPES, &yt));
    /* Any two types: NVIDIA's library converts (the 8.9 reference lists a
     * dataType mismatch as BAD_PARAM; docs/tensor-ops.md). */
    RETURN_IF_ERROR(fdnn_tops_broadcast(&xt, "xDesc", &yt, true));
    RETURN_IF_NULL(x);
    RETURN_IF_NULL(y);
    fdnn_eltwise_t p = {0};
    RETURN_IF_ERROR(copy_scaled(alpha, &xt, x, beta, &yt, y, &p));
    run_copy(handle, &p);
    return CUDNN_STATUS_SUCCESS;
}

/* The plain view of a transform operand that is not NCHW_VECT_C: the types
 * of the tensor operations, no vector types. */
static cudnnStatus_t
plain_view(const operand_t *op, fdnn_tensor_t *out)
{
    const cudnnDataType_t t = op->t.dtype;
    if ((unsigned)t >= 32 || !(FDNN_TOPS_ALL_TYPES & (1u << t)))
        return FDNN_NOT_SUPPORTED("%s has data type %s, which transforms do not take%s", op->what,
                                  fdnn_dtype_name(t), lane_type(t) != t ? " outside NCHW_VECT_C" : "");
    *out = op->t;
    return CUDNN_STATUS_SUCCESS;
}

/* True when the byte ranges of the two views overlap. */
static bool
overlaps(const fdnn_tensor_t *a, const void *ap, const fdnn_tensor_t *b, const void *bp)
{
    int64_t sa = fdnn_tensor_span(a) * (int64_t)fdnn_dtype_size(a->dtype);
    int64_t sb = fdnn_tensor_span(b) * (int64_t)fdnn_dtype_size(b->dtype);
    uintptr_t alo = (uintptr_t)ap, blo = (uintptr_t)bp;
    return alo < blo + (uintptr_t)sb && blo < alo + (uintptr_t)sa;
}

/* A packed NCHW operand of `like`'s dims in `dtype` (a staging buffer). */
static void
plain_packed(const operand_t *like, cudnnDataType_t dtype, operand_t *out)
{
    memset(out, 0, sizeof(*out));
    out->t.dtype = dtype;
    out->t.ndim = like->t.ndim;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        out->t.dims[i] = 1;
    int64_t s = 1;
    for (int i = like->t.ndim - 1; i >= 0; i--) {
        out->t.dims[i] = like->t.dims[i];
        out->t.strides[i] = s;
        s *= like->t.dims[i]; /* at most the descriptor's 2^31-1 elements */
    }
    out->vect = 1;
    out->what = like->what;
}

/* dst = alpha * src + beta * dst between views of equal dims and any
 * types (the transform engine with nothing padded or folded). */
static void
convert_copy(cudnnHandle_t handle, const fdnn_tensor_t *s, const void *sdata, const fdnn_tensor_t *d, void *ddata,
             bool f64, double alpha, double beta)
{
    fdnn_transform_t p = {.f64 = f64, .alpha = alpha, .beta = beta, .src = *s, .src_data = sdata, .dst = *d,
                          .dst_data = ddata};
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        p.fold[i] = 1;
    fdnn_tensor_transform(handle, &p);
}

static cudnnStatus_t transform_ex(cudnnHandle_t handle, cudnnTensorTransformDescriptor_t t, const void *alpha,
                                  const operand_t *src, const void *srcData, const void *beta, const operand_t *dst,
                                  void *dstData);

/* NCHW_VECT_C with channel pads, crops or counts that are not whole
 * vectors (a vector would straddle the padding or the phases): the
 * vectorised side goes through a packed plain copy (lane type for a
 * source; the source's type for a destination, so alpha and beta apply
 * before the rounding to lanes, once), and the plain transform pads and
 * folds.  Every element is read into the staging buffer before any is
 * written, so overlapping operands are safe here. */
static cudnnStatus_t
transform_staged(cudnnHandle_t handle, cudnnTensorTransformDescriptor_t t, const void *alpha, const operand_t *src,
                 const void *srcData, const void *beta, const operand_t *dst, void *dstData)
{
    RETURN_IF_NULL(srcData);
    RETURN_IF_NULL(dstData);
    bool f64;
    double a, b;
    RETURN_IF_ERROR(scaling(alpha, beta, lane_type(src->t.dtype), lane_type(dst->t.dtype), &f64, &a, &b));
    operand_t s = *src, d = *dst;
    fdnn_tensor_t from, to;
    void *sbuf = NULL, *dbuf = NULL;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    if (src->vect > 1) {
        plain_packed(src, lane_type(src->t.dtype), &s);
        sbuf = malloc((size_t)fdnn_tensor_elements(&s.t) * fdnn_dtype_size(s.t.dtype));
        if (sbuf == NULL)
            return FDNN_ALLOC_FAILED("cannot allocate the staging copy of %s", src->what);
        RETURN_IF_ERROR(lane_view(src, src->vect, &from));
        RETURN_IF_ERROR(lane_view(&s, src->vect, &to));
        convert_copy(handle, &from, srcData, &to, sbuf, false, 1.0, 0.0);
    }
    if (dst->vect > 1) {
        plain_packed(dst, s.t.dtype, &d);
        dbuf = malloc((size_t)fdnn_tensor_elements(&d.t) * fdnn_dtype_size(d.t.dtype));
        if (dbuf == NULL) {
            st = FDNN_ALLOC_FAILED("cannot allocate the staging copy of %s", dst->what);
            goto out_free;
        }
        /* The staged transform itself: identity scaling in d's type. */
        const double one_d = 1.0, zero_d = 0.0;
        const float one_f = 1.0f, zero_f = 0.0f;
        const bool dd = d.t.dtype == CUDNN_DATA_DOUBLE;
        st = transform_ex(handle, t, dd ? (const void *)&one_d : (const void *)&one_f, &s, sbuf ? sbuf : srcData,
                          dd ? (const void *)&zero_d : (const void *)&zero_f, &d, dbuf);
        if (st == CUDNN_STATUS_SUCCESS)
            st = lane_view(&d, dst->vect, &from);
        if (st == CUDNN_STATUS_SUCCESS)
            st = lane_view(dst, dst->vect, &to);
        if (st == CUDNN_STATUS_SUCCESS)
            convert_copy(handle, &from, dbuf, &to, dstData, f64, a, b);
    } else {
        st = transform_ex(handle, t, alpha, &s, sbuf, beta, &d, dstData);
    }
out_free:
    free(sbuf);
    free(dbuf);
    return st;
}

/* dst = beta * dst over the channels an unfold pads (0 when beta is 0,
 * without reading dst). */
static void
fill_channels(cudnnHandle_t handle, const fdnn_transform_t *p, const fdnn_tensor_t *view, void *data)
{
    fdnn_eltwise_t q = {.f64 = p->f64, .c = *view, .c_data = data};
    if (p->beta == 0.0) {
        q.op = FDNN_ELT_SET;
    } else {
        q.op = FDNN_ELT_COPY;
        q.alpha1 = p->beta;
        q.a = *view;
        q.a_data = data;
    }
    fdnn_tensor_eltwise(handle, &q);
}

/* cudnnTransformTensorEx and cudnnTransformFilter: checks, then the
 * transform engine. */
static cudnnStatus_t
transform_ex(cudnnHandle_t handle, cudnnTensorTransformDescriptor_t t, const void *alpha, const operand_t *src,
             const void *srcData, const void *beta, const operand_t *dst, void *dstData)
{
    int dims[CUDNN_DIM_MAX];
    RETURN_IF_ERROR(dest_dims(t, &src->t, dims));
    if (dst->t.ndim != src->t.ndim)
        return FDNN_BAD_PARAM("%s has %d dims, %s %d", dst->what, dst->t.ndim, src->what, src->t.ndim);
    for (int i = 0; i < dst->t.ndim; i++)
        if (dst->t.dims[i] != dims[i])
            return FDNN_BAD_PARAM("%s dim %d is %lld, the transform makes %d", dst->what, i,
                                  (long long)dst->t.dims[i], dims[i]);
    fdnn_transform_t p = {.unfold = t->direction == CUDNN_TRANSFORM_UNFOLD};
    bool folds = false;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        p.fold[i] = i >= 2 && i < src->t.ndim ? t->fold[i - 2] : 1;
        p.pad_before[i] = i < src->t.ndim ? t->pad_before[i] : 0;
        folds = folds || p.fold[i] != 1;
    }
    int vect = 1; /* the unit of C in the views below */
    if (src->vect > 1 || dst->vect > 1) {
        /* NCHW_VECT_C on either side: the lanes become a dim of their own
         * (last, never padded nor folded) and C counts vectors.  C is padded
         * in whole vectors, so a fold or unfold of the views maps channel
         * q * v + l to pb1 + phase * C + q * v + l, as the fold of the
         * equivalent plain tensor does (C and pb1 multiples of v). */
        vect = src->vect > 1 ? src->vect : dst->vect;
        /* Two vector widths, C pads that are not whole vectors, or an
         * unfold to C_U = ceil(C_F / prod(folds)) + pads that is not (its
         * vectors would straddle the phases): staged through plain copies. */
        if ((src->vect > 1 && dst->vect > 1 && src->vect != dst->vect) || t->pad_before[1] % vect != 0 || t->pad_after[1] % vect != 0 || src->t.dims[1] % vect != 0 ||
            dst->t.dims[1] % vect != 0)
            return transform_staged(handle, t, alpha, src, srcData, beta, dst, dstData);
        RETURN_IF_ERROR(lane_view(src, vect, &p.src));
        RETURN_IF_ERROR(lane_view(dst, vect, &p.dst));
        p.pad_before[1] /= vect; /* the lane dim (last) is not padded */
        p.pad_before[src->t.ndim] = 0;
    } else {
        RETURN_IF_ERROR(plain_view(src, &p.src));
        RETURN_IF_ERROR(plain_view(dst, &p.dst));
    }
    /* A fold pads (or crops) first, then cuts the blocks: a negative pad
     * after crops the source, so the last partial block gets zeros, not
     * the cropped elements. */
    if (!p.unfold)
        for (int i = 0; i < src->t.ndim; i++)
            if (t->pad_after[i] < 0)
                p.src.dims[i] += i == 1 ? t->pad_after[1] / vect : t->pad_after[i];
    RETURN_IF_NULL(srcData);
    RETURN_IF_NULL(dstData);
    /* Channels around a fold (in vectors for NCHW_VECT_C).  Positive pads
     * go around the phase blocks (measured, docs/tensor-ops.md); negative
     * ones crop the source channels first, so the phase blocks hold the
     * C + crops channels that remain: F[max(pb, 0) + phase * C' + c] =
     * U[max(-pb, 0) + c], C' = C + min(pb, 0) + min(pa, 0).  An unfold is
     * the inverse: its negative C pads skip channels of the folded source,
     * its positive ones are zero channels around the unfolded ones. */
    fdnn_tensor_t lead_pad = p.dst, trail_pad = p.dst;
    void *lead_data = NULL, *trail_data = NULL;
    if (folds) {
        const int64_t pb = t->pad_before[1] / vect, pa = t->pad_after[1] / vect;
        if (!p.unfold && pb < 0) {
            p.src.dims[1] += pb;
            srcData = (const char *)srcData + -pb * p.src.strides[1] * (int64_t)fdnn_dtype_size(p.src.dtype);
            p.pad_before[1] = 0;
        }
        if (p.unfold && (pb > 0 || pa > 0)) {
            const int64_t lead = pb > 0 ? pb : 0, trail = pa > 0 ? pa : 0;
            const int64_t es = (int64_t)fdnn_dtype_size(p.dst.dtype), c_all = p.dst.dims[1];
            lead_pad.dims[1] = lead;
            lead_data = dstData;
            trail_pad.dims[1] = trail;
            trail_data = (char *)dstData + (c_all - trail) * p.dst.strides[1] * es;
            p.dst.dims[1] = c_all - lead - trail;
            dstData = (char *)dstData + lead * p.dst.strides[1] * es;
            p.pad_before[1] = pb < 0 ? (int32_t)pb : 0;
        }
    }
    RETURN_IF_ERROR(scaling(alpha, beta, p.src.dtype, p.dst.dtype, &p.f64, &p.alpha, &p.beta));
    /* In place only as the identity (same layout, nothing padded or
     * folded): every element is then read before it is written. */
    if (overlaps(&p.src, srcData, &p.dst, dstData)) {
        bool padded = false;
        for (int i = 0; i < src->t.ndim; i++)
            padded = padded || t->pad_before[i] != 0 || t->pad_after[i] != 0;
        if (folds || padded)
            return FDNN_BAD_PARAM("%s overlaps %s in memory, and the transform pads or folds", src->what,
                                  dst->what);
        RETURN_IF_ERROR(fdnn_tops_check_alias(&p.src, srcData, src->what, &p.dst, dstData));
    }
    p.src_data = srcData;
    p.dst_data = dstData;
    fdnn_tensor_transform(handle, &p);
    if (lead_data != NULL && lead_pad.dims[1] > 0)
        fill_channels(handle, &p, &lead_pad, lead_data);
    if (trail_data != NULL && trail_pad.dims[1] > 0)
        fill_channels(handle, &p, &trail_pad, trail_data);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnTransformTensorEx(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                const void *alpha, const cudnnTensorDescriptor_t srcDesc, const void *srcData,
                                const void *beta, const cudnnTensorDescriptor_t destDesc, void *destData)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(check_desc(transDesc, true));
    operand_t src, dst;
    RETURN_IF_ERROR(tensor_operand(srcDesc, "srcDesc", &src));
    RETURN_IF_ERROR(tensor_operand(destDesc, "destDesc", &dst));
    RETURN_IF_ERROR(check_dest(&dst));
    return transform_ex(handle, transDesc, alpha, &src, srcData, beta, &dst, destData);
}

cudnnStatus_t
fdnn_api_cudnnTransformFilter(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                              const void *alpha, const cudnnFilterDescriptor_t srcDesc, const void *srcData,
                              const void *beta, const cudnnFilterDescriptor_t destDesc, void *destData)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(check_desc(transDesc, true));
    operand_t src, dst;
    RETURN_IF_ERROR(filter_operand(srcDesc, "srcDesc", &src));
    RETURN_IF_ERROR(filter_operand(destDesc, "destDesc", &dst));
    return transform_ex(handle, transDesc, alpha, &src, srcData, beta, &dst, destData);
}
