/* SPDX-License-Identifier: Apache-2.0
 * Backward bias.  See conv_bias.h. */
#include "cpu/conv/conv_bias.h"

typedef struct bias_ctx {
    const fdnn_tensor_t *dy;
    const void *data;
    double alpha, beta;
    void *db;
    int64_t db_stride;
} bias_ctx_t;

static void
channel(void *arg, size_t k)
{
    const bias_ctx_t *c = arg;
    const fdnn_tensor_t *t = c->dy;
    int64_t spatial = 1;
    for (int i = 2; i < t->ndim; i++)
        spatial *= t->dims[i];
    bool f32 = t->dtype == CUDNN_DATA_FLOAT;
    double s = 0;
    for (int64_t n = 0; n < t->dims[0]; n++) {
        int64_t base = n * t->strides[0] + (int64_t)k * t->strides[1];
        for (int64_t p = 0; p < spatial; p++) {
            /* Offset of spatial position p (row-major over dims 2..). */
            int64_t off = base, rest = p;
            for (int i = t->ndim - 1; i >= 2; i--) {
                off += (rest % t->dims[i]) * t->strides[i];
                rest /= t->dims[i];
            }
            s += f32 ? (double)((const float *)c->data)[off] : ((const double *)c->data)[off];
        }
    }
    int64_t o = (int64_t)k * c->db_stride;
    if (f32) {
        float *db = c->db;
        float v = (float)(c->alpha * s);
        db[o] = c->beta != 0 ? v + (float)c->beta * db[o] : v;
    } else {
        double *db = c->db;
        double v = c->alpha * s;
        db[o] = c->beta != 0 ? v + c->beta * db[o] : v;
    }
}

void
fdnn_conv_bwd_bias(fdnn_pool_t pool, const fdnn_tensor_t *dy, const void *dy_data, double alpha, double beta,
                   void *db, int64_t db_stride)
{
    bias_ctx_t c = {dy, dy_data, alpha, beta, db, db_stride};
    fdnn_parallelize_1d(pool, channel, &c, (size_t)dy->dims[1], 0);
}
