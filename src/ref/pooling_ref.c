/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference pooling.  For output o of plane (n, c), the window is
 * the box start = o * stride - pad, start + window - 1 per dim, clipped to
 * the input:
 *   MAX: the largest element; NaN is skipped (NOT_PROPAGATE: all-NaN gives
 *        -Inf) or returned (PROPAGATE: any NaN in the box gives NaN).
 *   AVERAGE_COUNT_INCLUDE_PADDING: sum / (kd kh kw).
 *   AVERAGE_COUNT_EXCLUDE_PADDING: sum / (elements inside the input).
 * Backward: for MAX, dy goes to the first maximum in box order (d, h, w), or
 * the first NaN under PROPAGATE; averages spread dy / divisor over the box. */
#include "ref/pooling_ref.h"

#include <math.h>
#include <stdlib.h>

typedef struct box {
    int64_t lo[3], hi[3];
} box_t;

static box_t
box_of(const fdnn_ref_pool_t *p, const int64_t *o)
{
    box_t b;
    for (int i = 0; i < 3; i++) {
        int64_t s = o[i] * p->str[i] - p->pad[i];
        b.lo[i] = s < 0 ? 0 : s;
        b.hi[i] = s + p->k[i] < p->in[i] ? s + p->k[i] : p->in[i];
    }
    return b;
}

static int64_t
in_index(const fdnn_ref_pool_t *p, int64_t plane, int64_t d, int64_t h, int64_t w)
{
    return ((plane * p->in[0] + d) * p->in[1] + h) * p->in[2] + w;
}

/* Value of the window and, for MAX, the index of the chosen element (-1
 * if none). */
static double
pool_box(const fdnn_ref_pool_t *p, const double *x, int64_t plane, const box_t *b, int64_t *arg, double *count)
{
    bool is_max = p->mode == CUDNN_POOLING_MAX || p->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
    double r = is_max ? -INFINITY : 0.0;
    int64_t best = -1;
    *count = 0;
    for (int64_t d = b->lo[0]; d < b->hi[0]; d++)
        for (int64_t h = b->lo[1]; h < b->hi[1]; h++)
            for (int64_t w = b->lo[2]; w < b->hi[2]; w++) {
                int64_t i = in_index(p, plane, d, h, w);
                *count += 1;
                if (!is_max) {
                    r += x[i];
                } else if (isnan(x[i])) {
                    if (p->propagate_nan && !(best >= 0 && isnan(r))) {
                        r = x[i];
                        best = i;
                    }
                } else if (!(best >= 0 && isnan(r)) && (best < 0 || x[i] > r)) {
                    r = x[i];
                    best = i;
                }
            }
    *arg = best;
    return r;
}

void
fdnn_ref_pooling_forward(const fdnn_ref_pool_t *p, double alpha, const double *x, double beta, double *y)
{
    int64_t outs = p->out[0] * p->out[1] * p->out[2];
    for (int64_t plane = 0; plane < p->N * p->C; plane++)
        for (int64_t oi = 0; oi < outs; oi++) {
            int64_t o[3] = {oi / (p->out[1] * p->out[2]), (oi / p->out[2]) % p->out[1], oi % p->out[2]};
            box_t b = box_of(p, o);
            int64_t arg;
            double count, r = pool_box(p, x, plane, &b, &arg, &count);
            if (p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING)
                r /= (double)p->k[0] * p->k[1] * p->k[2];
            else if (p->mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING)
                r /= count;
            double *yo = &y[plane * outs + oi];
            *yo = beta == 0.0 ? alpha * r : alpha * r + beta * *yo;
        }
}

void
fdnn_ref_pooling_backward(const fdnn_ref_pool_t *p, double alpha, const double *dy, const double *x, double beta,
                          double *dx)
{
    int64_t outs = p->out[0] * p->out[1] * p->out[2], ins = p->in[0] * p->in[1] * p->in[2];
    double *g = calloc((size_t)(p->N * p->C * ins), sizeof(double));
    bool is_max = p->mode == CUDNN_POOLING_MAX || p->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
    for (int64_t plane = 0; plane < p->N * p->C; plane++)
        for (int64_t oi = 0; oi < outs; oi++) {
            int64_t o[3] = {oi / (p->out[1] * p->out[2]), (oi / p->out[2]) % p->out[1], oi % p->out[2]};
            box_t b = box_of(p, o);
            double gy = dy[plane * outs + oi];
            int64_t arg;
            double count;
            pool_box(p, x, plane, &b, &arg, &count);
            if (is_max) {
                if (arg >= 0)
                    g[arg] += gy;
                continue;
            }
            double div = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? (double)p->k[0] * p->k[1] * p->k[2]
                                                                                 : count;
            for (int64_t d = b.lo[0]; d < b.hi[0]; d++)
                for (int64_t h = b.lo[1]; h < b.hi[1]; h++)
                    for (int64_t w = b.lo[2]; w < b.hi[2]; w++)
                        g[in_index(p, plane, d, h, w)] += gy / div;
        }
    for (int64_t i = 0; i < p->N * p->C * ins; i++)
        dx[i] = beta == 0.0 ? alpha * g[i] : alpha * g[i] + beta * dx[i];
    free(g);
}
