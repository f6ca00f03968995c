/* SPDX-License-Identifier: Apache-2.0
 * Plain tensor views.  See tensor.h. */
#include "core/tensor.h"

#include <stdio.h>
#include <string.h>

#include "core/fail.h"

size_t
fdnn_dtype_size(cudnnDataType_t dtype)
{
    switch (dtype) {
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_HALF: return 2;
    case CUDNN_DATA_INT8: return 1;
    case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_INT8x4: return 4;
    case CUDNN_DATA_UINT8: return 1;
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_INT8x32: return 32;
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_BOOLEAN: return 1;
    case CUDNN_DATA_FP8_E4M3: return 1;
    case CUDNN_DATA_FP8_E5M2: return 1;
    case CUDNN_DATA_FAST_FLOAT_FOR_FP8: return 1;
    }
    return 0;
}

bool
fdnn_dtype_is_valid(cudnnDataType_t dtype)
{
    return fdnn_dtype_size(dtype) != 0;
}

int
fdnn_dtype_vect(cudnnDataType_t dtype)
{
    switch (dtype) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_INT8x32: return 32;
    default: return 0;
    }
}

cudnnStatus_t
fdnn_desc_check_type(fdnn_desc_kind_t kind, cudnnDataType_t dtype)
{
    /* FLOAT (0) through BFLOAT16 (9); INT64, BOOLEAN and the FP8 types (10
     * and up) serve the backend API.  cuDNN 9 refuses INT32 filters. */
    const char *name = kind == FDNN_DESC_FILTER ? "filter" : "tensor";
    if ((int)dtype < (int)CUDNN_DATA_FLOAT || (int)dtype > (int)CUDNN_DATA_BFLOAT16)
        return FDNN_BAD_PARAM("dataType is %d, not a data type of legacy %s descriptors", (int)dtype, name);
    if (kind == FDNN_DESC_FILTER && dtype == CUDNN_DATA_INT32)
        return FDNN_BAD_PARAM("dataType is INT32, not a data type of filter descriptors");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_desc_check_type_format(fdnn_desc_kind_t kind, cudnnDataType_t dtype, cudnnTensorFormat_t format, int c)
{
    RETURN_IF_ERROR(fdnn_desc_check_type(kind, dtype));
    if (format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC && format != CUDNN_TENSOR_NCHW_VECT_C)
        return FDNN_BAD_PARAM("format is %d, not a cudnnTensorFormat_t", (int)format);
    /* The vector types are legal in NCHW and NHWC too, one vector per
     * element (as cuDNN's descriptors take them). */
    if (format == CUDNN_TENSOR_NCHW_VECT_C) {
        int vect = fdnn_dtype_vect(dtype);
        if (vect == 0)
            return FDNN_BAD_PARAM("NCHW_VECT_C needs INT8x4, UINT8x4 or INT8x32 data, not %s",
                                  fdnn_dtype_name(dtype));
        if (c % vect != 0)
            return FDNN_BAD_PARAM("NCHW_VECT_C needs C (%d) to be a multiple of %d", c, vect);
    }
    return CUDNN_STATUS_SUCCESS;
}

const char *
fdnn_dtype_name(cudnnDataType_t dtype)
{
    switch (dtype) {
    case CUDNN_DATA_FLOAT: return "f32";
    case CUDNN_DATA_DOUBLE: return "f64";
    case CUDNN_DATA_HALF: return "f16";
    case CUDNN_DATA_BFLOAT16: return "bf16";
    case CUDNN_DATA_INT8: return "s8";
    case CUDNN_DATA_UINT8: return "u8";
    case CUDNN_DATA_INT32: return "s32";
    case CUDNN_DATA_INT64: return "s64";
    case CUDNN_DATA_INT8x4: return "s8x4";
    case CUDNN_DATA_UINT8x4: return "u8x4";
    case CUDNN_DATA_INT8x32: return "s8x32";
    case CUDNN_DATA_BOOLEAN: return "bool";
    case CUDNN_DATA_FP8_E4M3: return "f8e4m3";
    case CUDNN_DATA_FP8_E5M2: return "f8e5m2";
    case CUDNN_DATA_FAST_FLOAT_FOR_FP8: return "ff8";
    }
    return "invalid";
}

cudnnStatus_t
fdnn_tensor_from_desc(cudnnTensorDescriptor_t desc, const char *what, fdnn_tensor_t *out)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_TENSOR_MAGIC)
        return FDNN_BAD_PARAM("%s is not a tensor descriptor (destroyed or never created)", what);
    if (!desc->is_set)
        return FDNN_BAD_PARAM("%s was created but never set", what);
    memset(out, 0, sizeof(*out));
    out->dtype = desc->dtype;
    out->ndim = desc->nb_dims;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        out->dims[i] = i < desc->nb_dims ? desc->dims[i] : 1;
        out->strides[i] = i < desc->nb_dims ? desc->strides[i] : 0;
    }
    return CUDNN_STATUS_SUCCESS;
}

int
fdnn_tensor_dims_by_stride(const fdnn_tensor_t *t, int first, int idx[CUDNN_DIM_MAX])
{
    /* Insertion sort (at most 8 dims). */
    int n = 0;
    for (int i = first; i < t->ndim; i++) {
        if (t->dims[i] == 1)
            continue;
        int k = n++;
        while (k > 0 && t->strides[idx[k - 1]] > t->strides[i]) {
            idx[k] = idx[k - 1];
            k--;
        }
        idx[k] = i;
    }
    return n;
}

cudnnStatus_t
fdnn_tensor_check_output(const fdnn_tensor_t *t, const char *what)
{
    int idx[CUDNN_DIM_MAX];
    int n = fdnn_tensor_dims_by_stride(t, 0, idx);
    int64_t extent = 1;
    for (int k = 0; k < n; k++) {
        if (t->strides[idx[k]] < extent)
            return FDNN_BAD_PARAM("%s is an output whose elements alias (stride %lld of dim %d is below %lld)", what,
                                  (long long)t->strides[idx[k]], idx[k], (long long)extent);
        extent = t->strides[idx[k]] * t->dims[idx[k]];
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_output_from_desc(cudnnTensorDescriptor_t desc, const char *what, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(fdnn_tensor_from_desc(desc, what, out));
    /* NCHW_VECT_C: dims[1] counts elements, the strides count vectors. */
    fdnn_tensor_t t = *out;
    if (desc->vect > 1)
        t.dims[1] /= desc->vect;
    return fdnn_tensor_check_output(&t, what);
}

cudnnStatus_t
fdnn_tensor_from_filter(cudnnFilterDescriptor_t desc, const char *what, fdnn_tensor_t *out)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_FILTER_MAGIC)
        return FDNN_BAD_PARAM("%s is not a filter descriptor (destroyed or never created)", what);
    if (!desc->is_set)
        return FDNN_BAD_PARAM("%s was created but never set", what);
    memset(out, 0, sizeof(*out));
    out->dtype = desc->dtype;
    out->ndim = desc->nb_dims;
    int n = desc->nb_dims;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        out->dims[i] = i < n ? desc->dims[i] : 1;
    /* Packed strides of the storage order: NCHW is K,C,spatial...; NHWC is
     * K,spatial...,C. */
    int64_t s = 1;
    if (desc->format == CUDNN_TENSOR_NHWC) {
        out->strides[1] = s;
        s *= out->dims[1];
        for (int i = n - 1; i >= 2; i--) {
            out->strides[i] = s;
            s *= out->dims[i];
        }
        out->strides[0] = s;
    } else {
        for (int i = n - 1; i >= 0; i--) {
            out->strides[i] = s;
            s *= out->dims[i];
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

int64_t
fdnn_tensor_elements(const fdnn_tensor_t *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->dims[i];
    return n;
}

int64_t
fdnn_tensor_span(const fdnn_tensor_t *t)
{
    int64_t last = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (t->dims[i] == 0)
            return 0;
        last += (t->dims[i] - 1) * t->strides[i];
    }
    return last + 1;
}

bool
fdnn_tensor_same_dims(const fdnn_tensor_t *a, const fdnn_tensor_t *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

bool
fdnn_tensor_is_packed(const fdnn_tensor_t *t)
{
    int64_t s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->dims[i] != 1 && t->strides[i] != s)
            return false;
        s *= t->dims[i];
    }
    return true;
}

void
fdnn_tensor_to_string(const fdnn_tensor_t *t, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "%s:", fdnn_dtype_name(t->dtype));
    for (int i = 0; i < t->ndim && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? "x" : "", (long long)t->dims[i]);
    if (len < size)
        len += (size_t)snprintf(buf + len, size - len, ":");
    for (int i = 0; i < t->ndim && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? "x" : "", (long long)t->strides[i]);
}
