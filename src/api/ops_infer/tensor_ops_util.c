/* SPDX-License-Identifier: Apache-2.0
 * See tensor_ops_util.h. */
#include "api/ops_infer/tensor_ops_util.h"

#include <stdint.h>

#include "core/fail.h"

cudnnStatus_t
fdnn_tops_check_type(cudnnTensorDescriptor_t desc, const char *what, unsigned allowed, const char *op)
{
    /* The operations that name themselves refuse it as cuDNN does. */
    if (desc->format == CUDNN_TENSOR_NCHW_VECT_C)
        return FDNN_NOT_SUPPORTED("%s is NCHW_VECT_C (%s), which %s does not take%s", what,
                                  fdnn_dtype_name(desc->dtype), op != NULL ? op : "this operation",
                                  op != NULL ? " (nor does cuDNN)" : "");
    if ((unsigned)desc->dtype >= 32 || !(allowed & (1u << desc->dtype)))
        return FDNN_NOT_SUPPORTED("%s has data type %s, which %s does not take", what, fdnn_dtype_name(desc->dtype),
                                  op != NULL ? op : "this operation");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_tops_view(cudnnTensorDescriptor_t desc, const char *what, unsigned allowed, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, out));
    return fdnn_tops_check_type(desc, what, allowed, NULL);
}

cudnnStatus_t
fdnn_tops_view_shape(cudnnTensorDescriptor_t desc, const char *what, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, out));
    if (desc->format == CUDNN_TENSOR_NCHW_VECT_C)
        out->dims[1] /= desc->vect;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_tops_view_lanes(cudnnTensorDescriptor_t desc, const char *what, unsigned allowed, fdnn_tensor_t *out)
{
    fdnn_tensor_t t;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, &t));
    if (desc->format != CUDNN_TENSOR_NCHW_VECT_C)
        return fdnn_tops_view(desc, what, allowed, out);
    if (t.ndim + 1 > CUDNN_DIM_MAX)
        return FDNN_NOT_SUPPORTED("%s is NCHW_VECT_C with %d dims; at most %d here", what, t.ndim,
                                  CUDNN_DIM_MAX - 1);
    /* The descriptor's strides count vectors of `vect` lanes. */
    const int v = desc->vect;
    *out = t;
    out->dtype = t.dtype == CUDNN_DATA_UINT8x4 ? CUDNN_DATA_UINT8 : CUDNN_DATA_INT8;
    out->ndim = t.ndim + 1;
    for (int i = 0; i < t.ndim; i++)
        out->strides[i] = t.strides[i] * v;
    out->dims[1] = t.dims[1] / v;
    out->dims[t.ndim] = v;
    out->strides[t.ndim] = 1;
    if ((unsigned)out->dtype >= 32 || !(allowed & (1u << out->dtype)))
        return FDNN_NOT_SUPPORTED("%s has data type %s, which this operation does not take", what,
                                  fdnn_dtype_name(t.dtype));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_tops_broadcast(fdnn_tensor_t *x, const char *what, const fdnn_tensor_t *c, bool exact)
{
    if (x->ndim != c->ndim)
        return FDNN_BAD_PARAM("%s has %d dims, the output %d", what, x->ndim, c->ndim);
    for (int i = 0; i < c->ndim; i++) {
        if (x->dims[i] == c->dims[i])
            continue;
        if (exact || x->dims[i] != 1)
            return FDNN_BAD_PARAM("%s dim %d is %lld, the output's is %lld%s", what, i, (long long)x->dims[i],
                                  (long long)c->dims[i], exact ? "" : " (must be equal or 1)");
        x->dims[i] = c->dims[i];
        x->strides[i] = 0;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_tops_scale(const void *ptr, const char *what, bool f64, double *value)
{
    if (ptr == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    *value = f64 ? *(const double *)ptr : (double)*(const float *)ptr;
    return CUDNN_STATUS_SUCCESS;
}

/* Byte range [lo, hi) a view touches. */
static void
byte_range(const fdnn_tensor_t *t, const void *p, uintptr_t *lo, uintptr_t *hi)
{
    int64_t span = 0;
    for (int i = 0; i < t->ndim; i++)
        span += (t->dims[i] - 1) * t->strides[i];
    *lo = (uintptr_t)p;
    *hi = (uintptr_t)p + (uintptr_t)((span + 1) * (int64_t)fdnn_dtype_size(t->dtype));
}

cudnnStatus_t
fdnn_tops_check_alias(const fdnn_tensor_t *x, const void *xp, const char *what, const fdnn_tensor_t *c,
                      const void *cp)
{
    uintptr_t xlo, xhi, clo, chi;
    byte_range(x, xp, &xlo, &xhi);
    byte_range(c, cp, &clo, &chi);
    if (xhi <= clo || chi <= xlo)
        return CUDNN_STATUS_SUCCESS;
    bool same = xp == cp && x->dtype == c->dtype && x->ndim == c->ndim;
    for (int i = 0; same && i < c->ndim; i++)
        if (c->dims[i] > 1 && x->strides[i] != c->strides[i])
            same = false;
    if (!same)
        return FDNN_BAD_PARAM("%s overlaps the output in memory with a different layout", what);
    return CUDNN_STATUS_SUCCESS;
}
