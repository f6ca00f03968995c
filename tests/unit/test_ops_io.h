/* SPDX-License-Identifier: Apache-2.0
 * Helpers shared by the activation, softmax, pooling and LRN tests: tensors
 * of any dtype (FLOAT, DOUBLE, HALF, BFLOAT16) in NCHW, NHWC or padded and
 * permuted strides, living in guarded buffers, filled from and read back into
 * a logical (packed NCHW-order) double array.  Header-only, static. */
#ifndef FDNN_TEST_OPS_IO_H
#define FDNN_TEST_OPS_IO_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor.h"
#include "cpu/simd/cvt.h"
#include "freednn.h"
#include "testutil.h"

enum { LAYOUT_NCHW = 0, LAYOUT_NHWC = 1, LAYOUT_PADDED = 2, LAYOUT_COUNT = 3 };

static const char *const layout_names[] = {"nchw", "nhwc", "padded"};

typedef struct tbuf {
    cudnnDataType_t dtype;
    int nd;
    int dims[8], strides[8];
    size_t esize, span; /* span in elements */
    void *mem;
    cudnnTensorDescriptor_t desc;
} tbuf_t;

static size_t
tb_esize(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? 8 : dt == CUDNN_DATA_FLOAT ? 4 : 2;
}

/* Strides for a layout: NCHW packed; NHWC packed (C innermost); padded =
 * NHWC-like order for odd ranks, NCHW-like for even, with a gap of 3
 * elements after each innermost row and 1 after each plane. */
static void
tb_layout_strides(int nd, const int *dims, int layout, int *strides)
{
    int order[8]; /* order[0] = outermost dim */
    int n = 0;
    if (layout == LAYOUT_NHWC && nd >= 3) {
        order[n++] = 0;
        for (int i = 2; i < nd; i++)
            order[n++] = i;
        order[n++] = 1;
    } else {
        for (int i = 0; i < nd; i++)
            order[n++] = i;
        if (layout == LAYOUT_PADDED && nd >= 3 && (dims[2] % 2 == 1)) {
            /* channels last for variety */
            n = 0;
            order[n++] = 0;
            for (int i = 2; i < nd; i++)
                order[n++] = i;
            order[n++] = 1;
        }
    }
    int s = 1;
    for (int k = nd - 1; k >= 0; k--) {
        strides[order[k]] = s;
        s *= dims[order[k]];
        if (layout == LAYOUT_PADDED)
            s += k == nd - 1 ? 3 : 1;
    }
}

static void
tb_init(tbuf_t *t, cudnnDataType_t dtype, int nd, const int *dims, int layout)
{
    memset(t, 0, sizeof(*t));
    t->dtype = dtype;
    t->nd = nd;
    memcpy(t->dims, dims, sizeof(int) * (size_t)nd);
    tb_layout_strides(nd, dims, layout, t->strides);
    t->esize = tb_esize(dtype);
    size_t last = 0;
    for (int i = 0; i < nd; i++)
        last += (size_t)(dims[i] - 1) * (size_t)t->strides[i];
    t->span = last + 1;
    t->mem = fdnn_guarded_alloc(t->span * t->esize);
    cudnnCreateTensorDescriptor(&t->desc);
    cudnnStatus_t s = cudnnSetTensorNdDescriptor(t->desc, dtype, nd, dims, t->strides);
    CHECK_OK(s);
}

static void
tb_free(tbuf_t *t)
{
    fdnn_guarded_free(t->mem);
    cudnnDestroyTensorDescriptor(t->desc);
}

static size_t
tb_count(const tbuf_t *t)
{
    size_t n = 1;
    for (int i = 0; i < t->nd; i++)
        n *= (size_t)t->dims[i];
    return n;
}

/* Memory offset (elements) of logical index `li` (packed NCHW order). */
static size_t
tb_offset(const tbuf_t *t, size_t li)
{
    size_t off = 0;
    for (int i = t->nd - 1; i >= 0; i--) {
        off += (li % (size_t)t->dims[i]) * (size_t)t->strides[i];
        li /= (size_t)t->dims[i];
    }
    return off;
}

/* v rounded to the storage type. */
static double
tb_quant(cudnnDataType_t dt, double v)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: return (float)v;
    case CUDNN_DATA_HALF: return fdnn_f16_to_f32(fdnn_f32_to_f16((float)v));
    case CUDNN_DATA_BFLOAT16: return fdnn_bf16_to_f32(fdnn_f32_to_bf16((float)v));
    default: return v;
    }
}

static void
tb_put(tbuf_t *t, size_t off, double v)
{
    char *p = (char *)t->mem + off * t->esize;
    switch (t->dtype) {
    case CUDNN_DATA_FLOAT: *(float *)p = (float)v; break;
    case CUDNN_DATA_DOUBLE: *(double *)p = v; break;
    case CUDNN_DATA_HALF: *(uint16_t *)p = fdnn_f32_to_f16((float)v); break;
    default: *(uint16_t *)p = fdnn_f32_to_bf16((float)v); break;
    }
}

static double
tb_get(const tbuf_t *t, size_t off)
{
    const char *p = (const char *)t->mem + off * t->esize;
    switch (t->dtype) {
    case CUDNN_DATA_FLOAT: return *(const float *)p;
    case CUDNN_DATA_DOUBLE: return *(const double *)p;
    case CUDNN_DATA_HALF: return fdnn_f16_to_f32(*(const uint16_t *)p);
    default: return fdnn_bf16_to_f32(*(const uint16_t *)p);
    }
}

/* Whole span to NaN (gaps included), so unwritten elements show. */
static void
tb_poison(tbuf_t *t)
{
    for (size_t i = 0; i < t->span; i++)
        tb_put(t, i, NAN);
}

/* Writes logical values (quantising them in place to what the tensor
 * holds); gaps are poisoned. */
static void
tb_fill(tbuf_t *t, double *logical)
{
    tb_poison(t);
    size_t n = tb_count(t);
    for (size_t i = 0; i < n; i++) {
        logical[i] = tb_quant(t->dtype, logical[i]);
        tb_put(t, tb_offset(t, i), logical[i]);
    }
}

static void
tb_read(const tbuf_t *t, double *logical)
{
    size_t n = tb_count(t);
    for (size_t i = 0; i < n; i++)
        logical[i] = tb_get(t, tb_offset(t, i));
}

/* True when every gap element (not addressed by the tensor) is still NaN. */
static bool
tb_gaps_untouched(const tbuf_t *t)
{
    char *mark = calloc(t->span, 1);
    size_t n = tb_count(t);
    for (size_t i = 0; i < n; i++)
        mark[tb_offset(t, i)] = 1;
    bool ok = true;
    for (size_t i = 0; i < t->span && ok; i++)
        if (!mark[i] && !isnan(tb_get(t, i)))
            ok = false;
    free(mark);
    return ok;
}

/* Unit roundoff of the storage type. */
static double
tb_eps(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: return 0x1p-24;
    case CUDNN_DATA_DOUBLE: return 0x1p-53;
    case CUDNN_DATA_HALF: return 0x1p-11;
    default: return 0x1p-8;
    }
}

/* Largest |got - want| / max(floor, |want|) with NaN matching NaN and Inf
 * matching Inf of the same sign. */
static double
tb_max_err(const double *got, const double *want, size_t n, double floor_, size_t *where)
{
    double worst = 0;
    *where = 0;
    for (size_t i = 0; i < n; i++) {
        double e;
        if (isnan(want[i]) || isnan(got[i]))
            e = isnan(want[i]) && isnan(got[i]) ? 0 : INFINITY;
        else if (isinf(want[i]) || isinf(got[i]))
            e = got[i] == want[i] ? 0 : INFINITY;
        else
            e = fabs(got[i] - want[i]) / fmax(floor_, fabs(want[i]));
        if (!(e <= worst)) {
            worst = e;
            *where = i;
        }
    }
    return worst;
}

static const cudnnDataType_t test_dtypes[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                              CUDNN_DATA_BFLOAT16};

/* alpha/beta storage for a dtype. */
typedef struct scale {
    float f;
    double d;
} scale_t;

static const void *
scale_ptr(scale_t *s, cudnnDataType_t dt, double v)
{
    s->f = (float)v;
    s->d = v;
    return dt == CUDNN_DATA_DOUBLE ? (const void *)&s->d : (const void *)&s->f;
}

#endif /* FDNN_TEST_OPS_IO_H */
