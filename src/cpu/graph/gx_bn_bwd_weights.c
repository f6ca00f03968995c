/* SPDX-License-Identifier: Apache-2.0
 * BN backward weights nodes of the generic engine: per channel c (dim 1),
 * over the n elements of that channel, in double, with
 * xhat = (x - mean) inv_std:
 *   dbn_scale = sum dy xhat,  dbn_bias = sum dy
 * and the coefficients of dx = eq_dy_scale dy + eq_x_scale x + eq_bias
 * (the batch norm backward as one affine map per channel):
 *   k = bn_scale inv_std
 *   eq_dy_scale = k
 *   eq_x_scale  = -k inv_std dbn_scale / n
 *   eq_bias     = -k dbn_bias / n + k inv_std mean dbn_scale / n
 * Every output is optional.  One fixed summation order: deterministic. */
#include <math.h>
#include <string.h>

#include "core/ckd.h"
#include "core/fail.h"
#include "cpu/graph/graph_exec.h"

static cudnnStatus_t
bw_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_bn_bwd_weights_t *b = &g->nodes[idx].u.bn_bwd_weights;
    const int in[5] = {b->mean, b->inv_std, b->bn_scale, b->x, b->dy};
    static const char *const names[5] = {"mean", "inv_std", "bn_scale", "x", "dy"};
    for (int k = 0; k < 5; k++)
        if (in[k] == FDNN_GRAPH_NONE || !gx_dtype_storable(g->tensors[in[k]].dtype) || g->tensors[in[k]].by_value)
            return FDNN_NOT_SUPPORTED("node %d (bn_bwd_weights): %s missing or of an unsupported type", idx, names[k]);
    const fdnn_graph_tensor_t *x = &g->tensors[b->x], *dy = &g->tensors[b->dy];
    if (x->ndim < 2 || dy->ndim != x->ndim || memcmp(x->dims, dy->dims, sizeof(int64_t) * (size_t)x->ndim) != 0)
        return FDNN_NOT_SUPPORTED("node %d (bn_bwd_weights): x and dy differ in dims", idx);
    const int chan[8] = {b->mean,     b->inv_std,     b->bn_scale,   b->dbn_scale,
                         b->dbn_bias, b->eq_dy_scale, b->eq_x_scale, b->eq_bias};
    for (int k = 0; k < 8; k++) {
        if (chan[k] == FDNN_GRAPH_NONE)
            continue;
        const fdnn_graph_tensor_t *t = &g->tensors[chan[k]];
        bool ok = t->ndim == x->ndim && gx_dtype_storable(t->dtype) && !t->by_value;
        for (int d = 0; d < x->ndim && ok; d++)
            ok = t->dims[d] == (d == 1 ? x->dims[1] : 1);
        if (!ok)
            return FDNN_NOT_SUPPORTED("node %d (bn_bwd_weights): per-channel operand %d is not 1 x C x 1...", idx, k);
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
bw_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    (void)g, (void)idx;
    *bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

static double
chan(const fdnn_graph_t *g, void **ptr, int t, int64_t c)
{
    return gx_load(g->tensors[t].dtype, ptr[t], c * g->tensors[t].strides[1]);
}

static void
put(const fdnn_graph_t *g, void **ptr, int t, int64_t c, double v)
{
    if (t != FDNN_GRAPH_NONE)
        gx_store(g->tensors[t].dtype, ptr[t], c * g->tensors[t].strides[1], v);
}

static cudnnStatus_t
bw_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch, (void)scratch_bytes;
    const fdnn_graph_t *g = e->graph;
    const fdnn_gop_bn_bwd_weights_t *b = &g->nodes[idx].u.bn_bwd_weights;
    const fdnn_graph_tensor_t *x = &g->tensors[b->x], *dy = &g->tensors[b->dy];
    int64_t nx;
    gx_tensor_elements(x, &nx);
    int64_t per = x->dims[1] > 0 ? nx / x->dims[1] : 0;
    for (int64_t c = 0; c < x->dims[1]; c++) {
        double mean = chan(g, ptr, b->mean, c), inv = chan(g, ptr, b->inv_std, c);
        double ds = 0, db = 0;
        for (int64_t i = 0; i < per; i++) {
            int64_t f = i, xo = c * x->strides[1], yo = c * dy->strides[1];
            for (int d = x->ndim - 1; d >= 0; d--) {
                if (d == 1)
                    continue;
                int64_t j = f % x->dims[d];
                f /= x->dims[d];
                xo += j * x->strides[d];
                yo += j * dy->strides[d];
            }
            double dv = gx_load(dy->dtype, ptr[b->dy], yo);
            ds += dv * (gx_load(x->dtype, ptr[b->x], xo) - mean) * inv;
            db += dv;
        }
        double k = chan(g, ptr, b->bn_scale, c) * inv, n = (double)per;
        put(g, ptr, b->dbn_scale, c, ds);
        put(g, ptr, b->dbn_bias, c, db);
        put(g, ptr, b->eq_dy_scale, c, k);
        put(g, ptr, b->eq_x_scale, c, -k * inv * ds / n);
        put(g, ptr, b->eq_bias, c, -k * db / n + k * inv * mean * ds / n);
    }
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_bn_bwd_weights_exec = {bw_supports, bw_scratch, bw_run};
