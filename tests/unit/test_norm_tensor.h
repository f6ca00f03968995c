/* SPDX-License-Identifier: Apache-2.0
 * Test tensors for the normalisation, dropout and spatial-transformer tests:
 * a descriptor plus a guarded buffer in one of several layouts, filled from
 * and read into packed NCHW doubles (so the float64 references can work on
 * packed arrays whatever the layout under test). */
#ifndef FDNN_TEST_NORM_TENSOR_H
#define FDNN_TEST_NORM_TENSOR_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/simd/cvt.h"
#include "cudnn.h"
#include "testutil.h"

/* LAYOUT_NHWC_PADDED (channels-last rows of C + 5 elements) lies past
 * LAYOUT_COUNT: only the tests that name it run it. */
enum { LAYOUT_NCHW, LAYOUT_NHWC, LAYOUT_PADDED, LAYOUT_COUNT, LAYOUT_NHWC_PADDED = LAYOUT_COUNT };
static const char *const layout_name[] = {"nchw", "nhwc", "padded", "nhwc-padded"};

typedef struct ttensor {
    int nd;
    int dims[8];
    int strides[8];
    cudnnDataType_t dt;
    size_t esize;
    int64_t elems, span;
    void *buf;
    cudnnTensorDescriptor_t desc;
} ttensor_t;

static inline size_t
tt_esize(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? 8 : dt == CUDNN_DATA_FLOAT ? 4 : 2;
}

/* LAYOUT_PADDED: NCHW order with every stride padded by a few elements, so
 * no two dims merge and the buffer has holes. */
static inline void
tt_make(ttensor_t *t, int nd, const int *dims, int layout, cudnnDataType_t dt)
{
    memset(t, 0, sizeof(*t));
    t->nd = nd;
    t->dt = dt;
    t->esize = tt_esize(dt);
    memcpy(t->dims, dims, sizeof(int) * (size_t)nd);
    int64_t s = 1;
    if (layout == LAYOUT_NHWC || layout == LAYOUT_NHWC_PADDED) {
        t->strides[1] = 1;
        s = dims[1] + (layout == LAYOUT_NHWC_PADDED ? 5 : 0);
        for (int d = nd - 1; d >= 2; d--) {
            t->strides[d] = (int)s;
            s *= dims[d];
        }
        t->strides[0] = (int)s;
    } else {
        for (int d = nd - 1; d >= 0; d--) {
            t->strides[d] = (int)s;
            s = s * dims[d] + (layout == LAYOUT_PADDED ? 3 : 0);
        }
    }
    t->elems = 1;
    t->span = 1;
    for (int d = 0; d < nd; d++) {
        t->elems *= dims[d];
        t->span += (int64_t)(dims[d] - 1) * t->strides[d];
    }
    t->buf = fdnn_guarded_alloc((size_t)t->span * t->esize);
    fdnn_poison_bytes(t->buf, (size_t)t->span * t->esize);
    cudnnCreateTensorDescriptor(&t->desc);
    cudnnSetTensorNdDescriptor(t->desc, dt, nd, t->dims, t->strides);
}

static inline void
tt_free(ttensor_t *t)
{
    fdnn_guarded_free(t->buf);
    cudnnDestroyTensorDescriptor(t->desc);
}

/* Element offset of the packed-NCHW index i. */
static inline int64_t
tt_off(const ttensor_t *t, int64_t i)
{
    int64_t off = 0;
    for (int d = t->nd - 1; d >= 0; d--) {
        off += (i % t->dims[d]) * t->strides[d];
        i /= t->dims[d];
    }
    return off;
}

static inline double
tt_read(const ttensor_t *t, int64_t off)
{
    switch (t->dt) {
    case CUDNN_DATA_DOUBLE: return ((double *)t->buf)[off];
    case CUDNN_DATA_FLOAT: return ((float *)t->buf)[off];
    case CUDNN_DATA_HALF: return fdnn_f16_to_f32(((uint16_t *)t->buf)[off]);
    default: return fdnn_bf16_to_f32(((uint16_t *)t->buf)[off]);
    }
}

static inline void
tt_write(ttensor_t *t, int64_t off, double v)
{
    switch (t->dt) {
    case CUDNN_DATA_DOUBLE: ((double *)t->buf)[off] = v; break;
    case CUDNN_DATA_FLOAT: ((float *)t->buf)[off] = (float)v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)t->buf)[off] = fdnn_f32_to_f16((float)v); break;
    default: ((uint16_t *)t->buf)[off] = fdnn_f32_to_bf16((float)v); break;
    }
}

/* Stores v (packed) and replaces v by what was stored (the rounded values). */
static inline void
tt_set(ttensor_t *t, double *v)
{
    for (int64_t i = 0; i < t->elems; i++) {
        tt_write(t, tt_off(t, i), v[i]);
        v[i] = tt_read(t, tt_off(t, i));
    }
}

static inline void
tt_get(const ttensor_t *t, double *v)
{
    for (int64_t i = 0; i < t->elems; i++)
        v[i] = tt_read(t, tt_off(t, i));
}

static inline void
tt_poison(ttensor_t *t)
{
    fdnn_poison_bytes(t->buf, (size_t)t->span * t->esize);
}

/* Largest |a - b| / max(1, |b|); NaN anywhere counts as infinite. */
static inline double
tt_err(const double *a, const double *b, int64_t n)
{
    double e = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i]));
        if (isnan(d))
            return INFINITY;
        if (d > e)
            e = d;
    }
    return e;
}

static inline double
tt_tol(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? 1e-10 : dt == CUDNN_DATA_FLOAT ? 2e-5 : dt == CUDNN_DATA_HALF ? 4e-3 : 3e-2;
}

static inline double *
tt_doubles(int64_t n)
{
    return calloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

static inline void
tt_random(fdnn_rng_t *rng, double *v, int64_t n, double lo, double hi)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = fdnn_rng_uniform(rng, lo, hi);
}

#endif /* FDNN_TEST_NORM_TENSOR_H */
