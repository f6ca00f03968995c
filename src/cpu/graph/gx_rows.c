/* SPDX-License-Identifier: Apache-2.0
 * Row walks and row loads / stores of any storage type for the elementwise
 * parts of the engines (pointwise nodes, fused epilogues).  See
 * graph_exec.h. */
#include <string.h>

#include "cpu/graph/graph_exec.h"

void
gx_rows_init(const fdnn_graph_tensor_t *o, gx_rows_t *r)
{
    r->ndim = o->ndim;
    r->row_dim = o->ndim - 1;
    for (int d = o->ndim - 1; d >= 0; d--)
        if (o->strides[d] == 1 && o->dims[d] > 1) {
            r->row_dim = d;
            break;
        }
    r->nrows = 1;
    for (int d = 0; d < o->ndim; d++) {
        r->dims[d] = o->dims[d];
        if (d != r->row_dim)
            r->nrows *= o->dims[d];
    }
    r->row_len = o->dims[r->row_dim];
}

void
gx_rows_pos(const gx_rows_t *r, int64_t row, int64_t *idx)
{
    for (int d = r->ndim - 1; d >= 0; d--) {
        if (d == r->row_dim) {
            idx[d] = 0;
            continue;
        }
        idx[d] = row % r->dims[d];
        row /= r->dims[d];
    }
}

/* The row loads and stores, written once for both compute types (T float
 * or double): FLOAT and DOUBLE storage directly, the unit and zero strides
 * of FLOAT apart (those loops vectorize), every other type through
 * gx_load / gx_store. */
#define GX_ROW_IO(SUFFIX, T)                                                                                        \
    void gx_load_row_##SUFFIX(cudnnDataType_t dt, const void *base, int64_t off, int64_t stride, int64_t n, T *out) \
    {                                                                                                               \
        if (dt == CUDNN_DATA_FLOAT) {                                                                               \
            const float *p = (const float *)base + off;                                                             \
            if (stride == 1)                                                                                        \
                for (int64_t i = 0; i < n; i++)                                                                     \
                    out[i] = (T)p[i];                                                                               \
            else if (stride == 0)                                                                                   \
                for (int64_t i = 0; i < n; i++)                                                                     \
                    out[i] = (T)p[0];                                                                               \
            else                                                                                                    \
                for (int64_t i = 0; i < n; i++)                                                                     \
                    out[i] = (T)p[i * stride];                                                                      \
        } else if (dt == CUDNN_DATA_DOUBLE) {                                                                       \
            const double *p = (const double *)base + off;                                                           \
            for (int64_t i = 0; i < n; i++)                                                                         \
                out[i] = (T)p[i * stride];                                                                          \
        } else {                                                                                                    \
            for (int64_t i = 0; i < n; i++)                                                                         \
                out[i] = (T)gx_load(dt, base, off + i * stride);                                                    \
        }                                                                                                           \
    }                                                                                                               \
                                                                                                                    \
    void gx_store_row_##SUFFIX(cudnnDataType_t dt, void *base, int64_t off, int64_t stride, int64_t n,              \
                               const T *in)                                                                         \
    {                                                                                                               \
        if (dt == CUDNN_DATA_FLOAT) {                                                                               \
            float *p = (float *)base + off;                                                                         \
            if (stride == 1)                                                                                        \
                for (int64_t i = 0; i < n; i++)                                                                     \
                    p[i] = (float)in[i];                                                                            \
            else                                                                                                    \
                for (int64_t i = 0; i < n; i++)                                                                     \
                    p[i * stride] = (float)in[i];                                                                   \
        } else if (dt == CUDNN_DATA_DOUBLE) {                                                                       \
            double *p = (double *)base + off;                                                                       \
            for (int64_t i = 0; i < n; i++)                                                                         \
                p[i * stride] = (double)in[i];                                                                      \
        } else {                                                                                                    \
            for (int64_t i = 0; i < n; i++)                                                                         \
                gx_store(dt, base, off + i * stride, (double)in[i]);                                                \
        }                                                                                                           \
    }

GX_ROW_IO(f32, float)
GX_ROW_IO(f64, double)
