/* SPDX-License-Identifier: Apache-2.0
 * Graph-building helpers for the backend API tests, in the order NVIDIA's
 * header-only frontend sets attributes (tensor: data type, dims, strides,
 * uid, alignment, virtual; operations: operands, descriptor, scalars; then
 * finalize).  Every SetAttribute is recorded so that a test can read every
 * attribute back after finalize and compare (be_check_roundtrip). */
#ifndef FDNN_TEST_BACKEND_BUILD_H
#define FDNN_TEST_BACKEND_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "testutil.h"

typedef cudnnBackendDescriptor_t bd_t;

typedef struct be_record {
    bd_t desc;
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int64_t count;
    unsigned char bytes[256];
    int elem_desc_type; /* descriptor-typed: the element type */
} be_record_t;

static be_record_t be_records[4096];
static int be_nrecords;

static inline size_t
be_elem_size(cudnnBackendAttributeType_t t)
{
    switch (t) {
    case CUDNN_TYPE_BOOLEAN: return sizeof(bool);
    case CUDNN_TYPE_INT64: return 8;
    case CUDNN_TYPE_FLOAT: return 4;
    case CUDNN_TYPE_DOUBLE: return 8;
    case CUDNN_TYPE_VOID_PTR: return sizeof(void *);
    case CUDNN_TYPE_HANDLE: return sizeof(cudnnHandle_t);
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: return sizeof(void *);
    case CUDNN_TYPE_CHAR: return 1;
    case CUDNN_TYPE_FRACTION: return sizeof(cudnnFraction_t);
    case CUDNN_TYPE_INT32: return 4;
    default: return sizeof(int);
    }
}

static inline void
be_set_full(bd_t d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count,
            const void *elems, int elem_desc_type)
{
    CHECK_OK(cudnnBackendSetAttribute(d, name, type, count, elems));
    size_t bytes = (size_t)count * be_elem_size(type);
    if (be_nrecords < 4096 && bytes <= sizeof(be_records[0].bytes)) {
        be_record_t *r = &be_records[be_nrecords++];
        r->desc = d, r->name = name, r->type = type, r->count = count, r->elem_desc_type = elem_desc_type;
        memcpy(r->bytes, elems, bytes);
    }
}

#define be_set(d, name, type, count, elems) be_set_full(d, name, type, count, elems, -1)

static inline void
be_set_i64(bd_t d, cudnnBackendAttributeName_t name, int64_t v)
{
    be_set(d, name, CUDNN_TYPE_INT64, 1, &v);
}

static inline void
be_set_enum(bd_t d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t t, int v)
{
    be_set(d, name, t, 1, &v);
}

static inline void
be_set_ref(bd_t d, cudnnBackendAttributeName_t name, bd_t ref, int ref_type)
{
    be_set_full(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ref, ref_type);
}

static inline bd_t
be_create(cudnnBackendDescriptorType_t t)
{
    bd_t d = NULL;
    CHECK_OK(cudnnBackendCreateDescriptor(t, &d));
    return d;
}

/* Read back every recorded attribute of d and compare. */
static inline void
be_check_roundtrip(bd_t d)
{
    for (int i = 0; i < be_nrecords; i++) {
        be_record_t *r = &be_records[i];
        if (r->desc != d)
            continue;
        int64_t n = -1;
        CHECK_OK(cudnnBackendGetAttribute(d, r->name, r->type, 0, &n, NULL));
        CHECK_MSG(n == r->count, "attribute %d: count %lld, set %lld", (int)r->name, (long long)n,
                  (long long)r->count);
        if (r->type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
            if (r->elem_desc_type < 0)
                continue;
            bd_t got[16];
            int64_t k = r->count < 16 ? r->count : 16;
            for (int64_t j = 0; j < k; j++)
                got[j] = be_create((cudnnBackendDescriptorType_t)r->elem_desc_type);
            CHECK_OK(cudnnBackendGetAttribute(d, r->name, r->type, k, &n, got));
            for (int64_t j = 0; j < k; j++)
                cudnnBackendDestroyDescriptor(got[j]);
            continue;
        }
        unsigned char buf[256];
        memset(buf, 0xA5, sizeof(buf));
        size_t bytes = (size_t)r->count * be_elem_size(r->type);
        CHECK_OK(cudnnBackendGetAttribute(d, r->name, r->type, r->count, &n, buf));
        CHECK_MSG(memcmp(buf, r->bytes, bytes) == 0, "attribute %d reads back different values", (int)r->name);
    }
}

static inline void
be_packed_strides(int nd, const int64_t *dims, int64_t *strides)
{
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--)
        strides[i] = s, s *= dims[i];
}

static inline bd_t
be_tensor_full(int64_t uid, cudnnDataType_t dt, int nd, const int64_t *dims, const int64_t *strides, bool virt,
               bool by_value)
{
    int64_t st[8];
    if (strides == NULL)
        be_packed_strides(nd, dims, st), strides = st;
    bd_t t = be_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    be_set_enum(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, dt);
    be_set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims);
    be_set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides);
    be_set_i64(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, uid);
    be_set_i64(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 16);
    be_set(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt);
    if (by_value)
        be_set(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value);
    CHECK_OK(cudnnBackendFinalize(t));
    return t;
}

static inline bd_t
be_tensor(int64_t uid, int nd, const int64_t *dims, bool virt)
{
    return be_tensor_full(uid, CUDNN_DATA_FLOAT, nd, dims, NULL, virt, false);
}

static inline bd_t
be_conv_desc(int nsp, int64_t pad, int64_t stride, int64_t dil)
{
    int64_t p[6], s[6], dl[6];
    for (int i = 0; i < nsp; i++)
        p[i] = pad, s[i] = stride, dl[i] = dil;
    bd_t c = be_create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    be_set_i64(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, nsp);
    be_set_enum(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    be_set_enum(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, CUDNN_CROSS_CORRELATION);
    be_set(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, nsp, p);
    be_set(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, nsp, p);
    be_set(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, nsp, dl);
    be_set(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, nsp, s);
    CHECK_OK(cudnnBackendFinalize(c));
    return c;
}

/* A convolution forward operation (not finalized when finalize is false). */
static inline bd_t
be_conv_fwd(bd_t x, bd_t w, bd_t y, bd_t conv, bool finalize)
{
    float alpha = 1.0f, beta = 0.0f;
    bd_t op = be_create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    be_set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    be_set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
    if (finalize)
        CHECK_OK(cudnnBackendFinalize(op));
    return op;
}

static inline bd_t
be_pw_desc(cudnnPointwiseMode_t mode)
{
    bd_t p = be_create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    be_set_enum(p, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode);
    be_set_enum(p, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    CHECK_OK(cudnnBackendFinalize(p));
    return p;
}

/* y = mode(x [, b]); b may be NULL. */
static inline bd_t
be_pw_op(bd_t pw, bd_t x, bd_t b, bd_t y)
{
    bd_t op = be_create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw, CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    if (b)
        be_set_ref(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    CHECK_OK(cudnnBackendFinalize(op));
    return op;
}

static inline bd_t
be_matmul_op(bd_t a, bd_t b, bd_t c)
{
    bd_t mm = be_create(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    be_set_enum(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    CHECK_OK(cudnnBackendFinalize(mm));
    bd_t op = be_create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, a, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, b, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, c, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    be_set_ref(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, mm, CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    CHECK_OK(cudnnBackendFinalize(op));
    cudnnBackendDestroyDescriptor(mm); /* the operation owns its copy */
    return op;
}

/* An operation graph of n finalized operations (the status of finalize in
 * *status when status is not NULL; else it must succeed). */
static inline bd_t
be_graph(cudnnHandle_t h, bd_t *ops, int n, cudnnStatus_t *status)
{
    bd_t g = be_create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    be_set_full(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, ops, -1);
    be_set(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    if (status)
        *status = cudnnBackendFinalize(g);
    else
        CHECK_OK(cudnnBackendFinalize(g));
    return g;
}

#endif /* FDNN_TEST_BACKEND_BUILD_H */
