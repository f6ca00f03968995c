/* SPDX-License-Identifier: Apache-2.0
 * The explicit im2col matrix.  See conv_im2col.h.  One task per matrix row
 * (image and output position); rows are independent. */
#include "cpu/conv/conv_im2col.h"

#include <string.h>

typedef struct ctx {
    const fdnn_conv_problem_t *p;
    const char *x;
    char *col;
    size_t es;
} ctx_t;

static void
row(void *arg, size_t r)
{
    const ctx_t *c = arg;
    const fdnn_conv_problem_t *p = c->p;
    const fdnn_tensor_t *t = &p->x;
    int64_t osp = fdnn_conv_out_spatial(p), taps = fdnn_conv_taps(p);
    int64_t n = (int64_t)r / osp, o = (int64_t)r % osp;
    int64_t ow = o % p->out[2], oh = (o / p->out[2]) % p->out[1], od = o / (p->out[2] * p->out[1]);
    char *dst = c->col + (size_t)r * (size_t)(p->c * taps) * c->es;
    for (int64_t ch = 0; ch < p->c; ch++)
        for (int64_t q = 0; q < taps; q++) {
            int64_t qs = p->flip ? taps - 1 - q : q; /* the tap this column multiplies */
            int64_t qw = qs % p->ker[2], qh = (qs / p->ker[2]) % p->ker[1], qd = qs / (p->ker[2] * p->ker[1]);
            int64_t id = od * p->stride[0] - p->pad[0] + qd * p->dil[0];
            int64_t ih = oh * p->stride[1] - p->pad[1] + qh * p->dil[1];
            int64_t iw = ow * p->stride[2] - p->pad[2] + qw * p->dil[2];
            char *out = dst + (size_t)(ch * taps + q) * c->es;
            if (id < 0 || id >= p->in[0] || ih < 0 || ih >= p->in[1] || iw < 0 || iw >= p->in[2]) {
                memset(out, 0, c->es);
                continue;
            }
            int64_t off = n * t->strides[0] + ch * t->strides[1] + id * t->strides[2] + ih * t->strides[3] +
                          iw * t->strides[4];
            memcpy(out, c->x + off * (int64_t)c->es, c->es);
        }
}

void
fdnn_conv_im2col_matrix(fdnn_pool_t pool, const fdnn_conv_problem_t *p, const void *x, void *col)
{
    ctx_t c = {p, x, col, fdnn_dtype_size(p->dtype)};
    fdnn_parallelize_1d(pool, row, &c, (size_t)(p->n * fdnn_conv_out_spatial(p)), 0);
}
