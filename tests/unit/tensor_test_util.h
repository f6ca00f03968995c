/* SPDX-License-Identifier: Apache-2.0
 * Helpers of the tensor-operation tests (test_tensor_*.c): tensors in
 * guarded buffers with a float64 shadow (the reference's input and output),
 * gap bytes that must stay untouched, and the ISA x threads loop.
 * Header-only so each test stays one executable. */
#ifndef FDNN_TENSOR_TEST_UTIL_H
#define FDNN_TENSOR_TEST_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/tensor/convert.h"
#include "freednn.h"
#include "testutil.h"

#define GAP_BYTE 0xA5

typedef struct tt {
    cudnnDataType_t dt;
    int nd;
    int dims[CUDNN_DIM_MAX];
    int strides[CUDNN_DIM_MAX];
    cudnnTensorDescriptor_t desc;
    fdnn_tensor_t t;
    size_t span, esz;
    unsigned char *buf;  /* guarded, span * esz bytes */
    unsigned char *mask; /* 1 for bytes of elements, 0 for gaps */
    double *ref;         /* span doubles, at the same offsets */
} tt_t;

static size_t
tt_esz(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    default: return 1;
    }
}

static double
tt_get(cudnnDataType_t dt, const unsigned char *p)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case CUDNN_DATA_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    case CUDNN_DATA_HALF: { uint16_t v; memcpy(&v, p, 2); return fdnn_half_to_float(v); }
    case CUDNN_DATA_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return fdnn_bf16_to_float(v); }
    case CUDNN_DATA_INT8: return (double)(int8_t)*p;
    case CUDNN_DATA_UINT8: return (double)*p;
    case CUDNN_DATA_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: return 0;
    }
}

static void
tt_put(cudnnDataType_t dt, unsigned char *p, double x)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: { float v = (float)x; memcpy(p, &v, 4); return; }
    case CUDNN_DATA_DOUBLE: memcpy(p, &x, 8); return;
    case CUDNN_DATA_HALF: { uint16_t v = fdnn_float_to_half((float)x); memcpy(p, &v, 2); return; }
    case CUDNN_DATA_BFLOAT16: { uint16_t v = fdnn_float_to_bf16((float)x); memcpy(p, &v, 2); return; }
    case CUDNN_DATA_INT8: *p = (unsigned char)(int8_t)fdnn_sat_round(x, -128, 127); return;
    case CUDNN_DATA_UINT8: *p = (unsigned char)fdnn_sat_round(x, 0, 255); return;
    case CUDNN_DATA_INT32: { int32_t v = (int32_t)fdnn_sat_round(x, -2147483648.0, 2147483647.0); memcpy(p, &v, 4); return; }
    default: return;
    }
}

/* Element offset of logical position pos (row-major). */
static int64_t
tt_offset(const tt_t *x, int64_t pos)
{
    int64_t off = 0;
    for (int i = x->nd - 1; i >= 0; i--) {
        off += (pos % x->dims[i]) * x->strides[i];
        pos /= x->dims[i];
    }
    return off;
}

static int64_t
tt_count(const tt_t *x)
{
    int64_t n = 1;
    for (int i = 0; i < x->nd; i++)
        n *= x->dims[i];
    return n;
}

enum { LAYOUT_NCHW, LAYOUT_NHWC, LAYOUT_STRIDED, LAYOUT_COUNT };

/* A tensor of the given dims.  NCHW: packed row-major.  NHWC: dim 1
 * innermost.  STRIDED: a random order of the dims with random gaps. */
static void
tt_make(tt_t *x, fdnn_rng_t *rng, cudnnDataType_t dt, int nd, const int *dims, int layout)
{
    memset(x, 0, sizeof(*x));
    x->dt = dt;
    x->nd = nd;
    int perm[CUDNN_DIM_MAX];
    for (int i = 0; i < nd; i++)
        perm[i] = i;
    if (layout == LAYOUT_NHWC && nd > 2) {
        for (int i = 1; i < nd - 1; i++)
            perm[i] = i + 1;
        perm[nd - 1] = 1;
    } else if (layout == LAYOUT_STRIDED) {
        for (int i = nd - 1; i > 0; i--) {
            int j = fdnn_rng_int(rng, 0, i);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    }
    int64_t s = layout == LAYOUT_STRIDED ? fdnn_rng_int(rng, 1, 2) : 1;
    for (int k = nd - 1; k >= 0; k--) {
        int d = perm[k];
        x->dims[d] = dims[d];
        x->strides[d] = (int)s;
        s *= dims[d] + (layout == LAYOUT_STRIDED ? fdnn_rng_int(rng, 0, 2) : 0);
    }
    x->esz = tt_esz(dt);
    x->span = 1;
    for (int i = 0; i < nd; i++)
        x->span += (size_t)(dims[i] - 1) * (size_t)x->strides[i];
    x->buf = fdnn_guarded_alloc(x->span * x->esz);
    x->mask = calloc(x->span * x->esz, 1);
    x->ref = calloc(x->span, sizeof(double));
    int64_t n = tt_count(x);
    for (int64_t p = 0; p < n; p++)
        memset(x->mask + tt_offset(x, p) * (int64_t)x->esz, 1, x->esz);
    cudnnCreateTensorDescriptor(&x->desc);
    CHECK_OK(cudnnSetTensorNdDescriptor(x->desc, dt, nd, x->dims, x->strides));
    x->t.dtype = dt;
    x->t.ndim = nd;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        x->t.dims[i] = i < nd ? dims[i] : 1;
        x->t.strides[i] = i < nd ? x->strides[i] : 0;
    }
}

static void
tt_free(tt_t *x)
{
    cudnnDestroyTensorDescriptor(x->desc);
    fdnn_guarded_free(x->buf);
    free(x->mask);
    free(x->ref);
}

enum { FILL_SIGNED, FILL_NEAR_ONE, FILL_POSITIVE };

/* Gaps get GAP_BYTE, elements a random value exact in every type (multiples
 * of 1/8 below 4 in magnitude, or 1 + k/64 for products); ref mirrors them. */
static void
tt_fill(tt_t *x, fdnn_rng_t *rng, int kind)
{
    memset(x->buf, GAP_BYTE, x->span * x->esz);
    int64_t n = tt_count(x);
    bool integer = x->dt == CUDNN_DATA_INT8 || x->dt == CUDNN_DATA_UINT8 || x->dt == CUDNN_DATA_INT32;
    for (int64_t p = 0; p < n; p++) {
        double v;
        if (kind == FILL_NEAR_ONE)
            v = 1.0 + fdnn_rng_int(rng, -8, 8) / 64.0;
        else if (kind == FILL_POSITIVE)
            v = fdnn_rng_int(rng, 0, 40) / 8.0;
        else
            v = fdnn_rng_int(rng, -31, 31) / 8.0;
        if (integer)
            v = kind == FILL_SIGNED && x->dt != CUDNN_DATA_UINT8 ? fdnn_rng_int(rng, -20, 20) : fdnn_rng_int(rng, 0, 20);
        int64_t off = tt_offset(x, p);
        tt_put(x->dt, x->buf + off * (int64_t)x->esz, v);
        x->ref[off] = tt_get(x->dt, x->buf + off * (int64_t)x->esz);
    }
}

/* Elements 0xFF bytes (NaN for floating types), gaps GAP_BYTE. */
static void
tt_poison(tt_t *x)
{
    memset(x->buf, GAP_BYTE, x->span * x->esz);
    int64_t n = tt_count(x);
    for (int64_t p = 0; p < n; p++) {
        int64_t off = tt_offset(x, p);
        memset(x->buf + off * (int64_t)x->esz, 0xFF, x->esz);
        x->ref[off] = NAN;
    }
}

static bool
tt_gaps_ok(const tt_t *x)
{
    for (size_t i = 0; i < x->span * x->esz; i++)
        if (!x->mask[i] && x->buf[i] != GAP_BYTE)
            return false;
    return true;
}

/* Tolerance of a result stored as dt, relative to max(1, |ref|). */
static double
tt_tol(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: return 1e-12;
    case CUDNN_DATA_FLOAT: return 2e-6;
    case CUDNN_DATA_HALF: return 1e-3;
    case CUDNN_DATA_BFLOAT16: return 8e-3;
    default: return 0.5 + 1e-9; /* integers: rounding of the result */
    }
}

/* Largest error of the elements against ref (NaN matches NaN only); also
 * fails on a touched gap. */
static double
tt_error(const tt_t *x, double *worst_got, double *worst_want)
{
    double worst = 0;
    int64_t n = tt_count(x);
    for (int64_t p = 0; p < n; p++) {
        int64_t off = tt_offset(x, p);
        double got = tt_get(x->dt, x->buf + off * (int64_t)x->esz), want = x->ref[off];
        double e;
        if (isnan(want) || isnan(got))
            e = isnan(want) && isnan(got) ? 0 : INFINITY;
        else if (isinf(want) || isinf(got))
            e = got == want ? 0 : INFINITY;
        else
            e = fabs(got - want) / fmax(1.0, fabs(want));
        if (!(e <= worst)) {
            worst = e;
            if (worst_got)
                *worst_got = got;
            if (worst_want)
                *worst_want = want;
        }
    }
    if (!tt_gaps_ok(x))
        worst = INFINITY;
    return worst;
}

/* The stored result rounded from the float64 reference (what an exact
 * computation would store). */
static void
tt_round_ref(tt_t *x)
{
    int64_t n = tt_count(x);
    unsigned char tmp[8];
    bool integer = x->dt == CUDNN_DATA_INT8 || x->dt == CUDNN_DATA_UINT8 || x->dt == CUDNN_DATA_INT32;
    for (int64_t p = 0; p < n; p++) {
        int64_t off = tt_offset(x, p);
        if (isnan(x->ref[off]) && !integer) /* integers store NaN as 0 */
            continue;
        tt_put(x->dt, tmp, x->ref[off]);
        x->ref[off] = tt_get(x->dt, tmp);
    }
}

/* Handle settings to loop over: every ISA level the machine has, with 1
 * and 2 threads. */
static int
tt_combos(void)
{
    return fdnn_test_isa_count() * 2;
}

static void
tt_apply_combo(cudnnHandle_t h, int k)
{
    CHECK_OK(freednnSetIsa(h, fdnn_test_isa_name(k / 2)));
    CHECK_OK(freednnSetNumThreads(h, 1 + k % 2));
}

static void
tt_random_dims(fdnn_rng_t *rng, int nd, int *dims, int64_t max_elems)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33};
    for (;;) {
        int64_t n = 1;
        for (int i = 0; i < nd; i++) {
            dims[i] = sizes[fdnn_rng_int(rng, 0, (int)(sizeof(sizes) / sizeof(sizes[0])) - 1)];
            n *= dims[i];
        }
        if (n <= max_elems)
            return;
    }
}

/* The scaling-factor argument: a double for DOUBLE compute, else float. */
typedef union {
    float f;
    double d;
} scale_arg_t;

static inline const void *
scale_arg(scale_arg_t *s, double v, bool f64)
{
    if (f64)
        s->d = v;
    else
        s->f = (float)v;
    return s;
}

#endif /* FDNN_TENSOR_TEST_UTIL_H */
