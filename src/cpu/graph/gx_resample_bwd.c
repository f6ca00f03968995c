/* SPDX-License-Identifier: Apache-2.0
 * Resample backward nodes of the generic engine (max and average pooling):
 *   dx = alpha * pool'(dy) + beta * dx
 * over the same windows as the forward (gx_resample.c: window, stride,
 * symmetric padding, 1 to 3 spatial dims).  Average pooling spreads each dy
 * over its window's inside elements, divided by the full window size
 * (INCLUDE_PADDING) or by the inside count (EXCLUDE_PADDING).  Max pooling
 * needs x: each dy goes to the first largest element of its window in
 * row-major order (a NaN, when present, is the largest), recomputed from x;
 * graphs that give only the index tensor are declined.  A plain serial
 * loop, accumulated in double in a fixed order: deterministic. */
#include <math.h>
#include <string.h>

#include "core/ckd.h"
#include "core/fail.h"
#include "cpu/graph/graph_exec.h"

static cudnnStatus_t
rb_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_resample_t *r = &g->nodes[idx].u.resample;
    if (r->mode != CUDNN_RESAMPLE_MAXPOOL && r->mode != CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING &&
        r->mode != CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING)
        return FDNN_NOT_SUPPORTED("node %d (resample_bwd): mode %d (max and average pooling are done)", idx,
                                  (int)r->mode);
    if (r->dy == FDNN_GRAPH_NONE || r->dx == FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (resample_bwd): dy or dx missing", idx);
    if (r->mode == CUDNN_RESAMPLE_MAXPOOL && r->x == FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (resample_bwd): max pooling from the index tensor alone (x is needed)", idx);
    const fdnn_graph_tensor_t *dy = &g->tensors[r->dy], *dx = &g->tensors[r->dx];
    if (!gx_dtype_storable(dy->dtype) || !gx_dtype_storable(dx->dtype) || dx->by_value || dy->by_value)
        return FDNN_NOT_SUPPORTED("node %d (resample_bwd): dy %s, dx %s", idx, gx_dtype_name(dy->dtype),
                                  gx_dtype_name(dx->dtype));
    if (r->beta != 0 && dx->is_virtual)
        return FDNN_NOT_SUPPORTED("node %d (resample_bwd): beta %g blends into a virtual dx", idx, r->beta);
    if (dx->ndim != dy->ndim || dx->ndim < 3 || dx->ndim > 5 || r->nsp != dx->ndim - 2 || dx->dims[0] != dy->dims[0] ||
        dx->dims[1] != dy->dims[1])
        return FDNN_NOT_SUPPORTED("node %d (resample_bwd): dx and dy ranks or N, C differ (1 to 3 spatial dims)", idx);
    if (r->x != FDNN_GRAPH_NONE) {
        const fdnn_graph_tensor_t *x = &g->tensors[r->x];
        if (x->ndim != dx->ndim || memcmp(x->dims, dx->dims, sizeof(int64_t) * (size_t)x->ndim) != 0 ||
            !gx_dtype_storable(x->dtype))
            return FDNN_NOT_SUPPORTED("node %d (resample_bwd): x must have dx's dims", idx);
    }
    for (int i = 0; i < r->nsp; i++) {
        if (r->pre_pad[i] != r->post_pad[i] || r->window[i] < 1 || r->stride[i] < 1 || r->pre_pad[i] < 0 ||
            r->pre_pad[i] >= r->window[i])
            return FDNN_NOT_SUPPORTED("node %d (resample_bwd): window %lld, stride %lld, padding %lld/%lld in "
                                      "spatial dim %d (symmetric padding below the window is done)",
                                      idx, (long long)r->window[i], (long long)r->stride[i], (long long)r->pre_pad[i],
                                      (long long)r->post_pad[i], i);
        int64_t o = 1 + (dx->dims[i + 2] + 2 * r->pre_pad[i] - r->window[i]) / r->stride[i];
        if (dy->dims[i + 2] != o)
            return FDNN_NOT_SUPPORTED("node %d (resample_bwd): dy spatial dim %d is %lld, the pooling gives %lld", idx,
                                      i, (long long)dy->dims[i + 2], (long long)o);
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
rb_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    /* dx accumulated in double */
    int64_t n;
    if (!gx_tensor_elements(&g->tensors[g->nodes[idx].u.resample.dx], &n) || !fdnn_ckd_bytes(n, sizeof(double), bytes))
        return FDNN_NOT_SUPPORTED("node %d (resample_bwd): dx overflows", idx);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
rb_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch_bytes;
    const fdnn_graph_t *g = e->graph;
    const fdnn_gop_resample_t *r = &g->nodes[idx].u.resample;
    const fdnn_graph_tensor_t *dy = &g->tensors[r->dy], *dx = &g->tensors[r->dx];
    const fdnn_graph_tensor_t *x = r->x != FDNN_GRAPH_NONE ? &g->tensors[r->x] : NULL;
    int nd = dx->ndim, ns = r->nsp;
    int64_t ndx, ndy;
    gx_tensor_elements(dx, &ndx);
    gx_tensor_elements(dy, &ndy);
    double *acc = scratch;
    for (int64_t i = 0; i < ndx; i++)
        acc[i] = 0;
    int64_t taps = 1;
    for (int i = 0; i < ns; i++)
        taps *= r->window[i];
    int64_t oi[FDNN_GRAPH_MAX_DIMS], ii[FDNN_GRAPH_MAX_DIMS];
    for (int64_t o = 0; o < ndy; o++) {
        int64_t f = o;
        for (int d = nd - 1; d >= 0; d--) {
            oi[d] = f % dy->dims[d];
            f /= dy->dims[d];
        }
        double grad = gx_load(dy->dtype, ptr[r->dy], gx_bcast_offset(dy, oi));
        /* the window's inside elements, row-major */
        int64_t best_flat = -1, inside = 0;
        double best = 0;
        for (int64_t t = 0; t < taps; t++) {
            int64_t tf = t;
            bool in = true;
            ii[0] = oi[0], ii[1] = oi[1];
            for (int s = ns - 1; s >= 0; s--) {
                int64_t q = tf % r->window[s];
                tf /= r->window[s];
                int64_t p = oi[s + 2] * r->stride[s] - r->pre_pad[s] + q;
                in = in && p >= 0 && p < dx->dims[s + 2];
                ii[s + 2] = p;
            }
            if (!in)
                continue;
            inside++;
            int64_t flat = 0;
            for (int d = 0; d < nd; d++)
                flat = flat * dx->dims[d] + ii[d];
            if (r->mode == CUDNN_RESAMPLE_MAXPOOL) {
                double v = gx_load(x->dtype, ptr[r->x], gx_bcast_offset(x, ii));
                if (best_flat < 0 || (!(best != best) && (v > best || v != v)))
                    best = v, best_flat = flat;
            }
        }
        if (r->mode == CUDNN_RESAMPLE_MAXPOOL) {
            if (best_flat >= 0)
                acc[best_flat] += grad;
            continue;
        }
        double div = r->mode == CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING ? (double)taps : (double)inside;
        for (int64_t t = 0; t < taps && inside > 0; t++) {
            int64_t tf = t, flat = 0;
            bool in = true;
            for (int s = ns - 1; s >= 0; s--) {
                int64_t q = tf % r->window[s];
                tf /= r->window[s];
                int64_t p = oi[s + 2] * r->stride[s] - r->pre_pad[s] + q;
                in = in && p >= 0 && p < dx->dims[s + 2];
                ii[s + 2] = p;
            }
            if (!in)
                continue;
            ii[0] = oi[0], ii[1] = oi[1];
            for (int d = 0; d < nd; d++)
                flat = flat * dx->dims[d] + ii[d];
            acc[flat] += grad / div;
        }
    }
    for (int64_t i = 0; i < ndx; i++) {
        int64_t f = i;
        for (int d = nd - 1; d >= 0; d--) {
            ii[d] = f % dx->dims[d];
            f /= dx->dims[d];
        }
        int64_t off = gx_bcast_offset(dx, ii);
        double v = r->alpha * acc[i];
        if (r->beta != 0)
            v += r->beta * gx_load(dx->dtype, ptr[r->dx], off);
        gx_store(dx->dtype, ptr[r->dx], off, v);
    }
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_resample_bwd_exec = {rb_supports, rb_scratch, rb_run};
