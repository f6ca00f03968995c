/* SPDX-License-Identifier: Apache-2.0
 * Resample forward nodes of the generic engine: max and average pooling
 * through the legacy pooling (fdnn_pooling_forward, cudnnPoolingForward's
 * engine): y = alpha * pool(x) + beta * y.  Max pooling takes NEG_INF_PAD
 * (padding never wins, as the legacy max pooling); average pooling takes
 * ZERO_PAD, counting the padding (AVGPOOL_INCLUDE_PADDING) or not
 * (AVGPOOL_EXCLUDE_PADDING).  The legacy pooling's NaN option follows the
 * node's. */
#include <string.h>

#include "core/fail.h"
#include "core/pooling.h"
#include "cpu/graph/graph_exec.h"
#include "cpu/pooling/pooling.h"

static cudnnStatus_t
problem(const fdnn_graph_t *g, int idx, fdnn_pooling_t *pool, fdnn_tensor_t *xt, fdnn_tensor_t *yt)
{
    const fdnn_gop_resample_t *r = &g->nodes[idx].u.resample;
    const fdnn_graph_tensor_t *x = &g->tensors[r->x], *y = &g->tensors[r->y];
    memset(pool, 0, sizeof(*pool));
    switch (r->mode) {
    case CUDNN_RESAMPLE_MAXPOOL:
        if (r->padding_mode != CUDNN_NEG_INF_PAD)
            return FDNN_NOT_SUPPORTED("node %d (resample_fwd): max pooling with padding mode %d (NEG_INF_PAD is done)",
                                      idx, (int)r->padding_mode);
        pool->mode = CUDNN_POOLING_MAX_DETERMINISTIC;
        break;
    case CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING:
    case CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING:
        if (r->padding_mode != CUDNN_ZERO_PAD)
            return FDNN_NOT_SUPPORTED("node %d (resample_fwd): average pooling with padding mode %d (ZERO_PAD is done)",
                                      idx, (int)r->padding_mode);
        pool->mode = r->mode == CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                                       : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
        break;
    default:
        return FDNN_NOT_SUPPORTED("node %d (resample_fwd): mode %d (max and average pooling are done)", idx,
                                  (int)r->mode);
    }
    if (r->beta != 0 && y->is_virtual)
        return FDNN_NOT_SUPPORTED("node %d (resample_fwd): beta %g blends into a virtual y, which has no value", idx,
                                  r->beta);
    if (r->idx != FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (resample_fwd): the index output of max pooling", idx);
    if (x->dtype != y->dtype || (x->dtype != CUDNN_DATA_FLOAT && x->dtype != CUDNN_DATA_DOUBLE))
        return FDNN_NOT_SUPPORTED("node %d (resample_fwd): x %s, y %s (FLOAT or DOUBLE, alike, are done)", idx,
                                  gx_dtype_name(x->dtype), gx_dtype_name(y->dtype));
    if (x->ndim != y->ndim || x->ndim < 3 || x->ndim > 5 || r->nsp != x->ndim - 2)
        return FDNN_NOT_SUPPORTED("node %d (resample_fwd): rank %d with %d spatial dims (1 to 3 are done)", idx,
                                  x->ndim, r->nsp);
    if (x->dims[0] != y->dims[0] || x->dims[1] != y->dims[1])
        return FDNN_NOT_SUPPORTED("node %d (resample_fwd): x and y differ in N or C", idx);
    pool->propagate_nan = r->nan_prop == CUDNN_PROPAGATE_NAN;
    pool->nsp = r->nsp;
    for (int i = 0; i < FDNN_POOL_MAX_DIMS; i++)
        pool->window[i] = 1, pool->stride[i] = 1, pool->padding[i] = 0;
    for (int i = 0; i < r->nsp; i++) {
        if (r->pre_pad[i] != r->post_pad[i])
            return FDNN_NOT_SUPPORTED("node %d (resample_fwd): padding of spatial dim %d is %lld before and %lld "
                                      "after (symmetric padding is done)",
                                      idx, i, (long long)r->pre_pad[i], (long long)r->post_pad[i]);
        if (r->window[i] < 1 || r->window[i] > 65535 || r->stride[i] < 1 || r->stride[i] > 65535 || r->pre_pad[i] < 0 ||
            r->pre_pad[i] >= r->window[i])
            return FDNN_NOT_SUPPORTED("node %d (resample_fwd): window %lld, stride %lld, padding %lld in spatial dim "
                                      "%d",
                                      idx, (long long)r->window[i], (long long)r->stride[i], (long long)r->pre_pad[i],
                                      i);
        pool->window[i] = (int)r->window[i];
        pool->stride[i] = (int)r->stride[i];
        pool->padding[i] = (int)r->pre_pad[i];
        if (y->dims[i + 2] != fdnn_pooling_out_dim(x->dims[i + 2], pool->window[i], pool->padding[i], pool->stride[i]))
            return FDNN_NOT_SUPPORTED(
                "node %d (resample_fwd): y spatial dim %d is %lld, the pooling gives %lld", idx, i,
                (long long)y->dims[i + 2],
                (long long)fdnn_pooling_out_dim(x->dims[i + 2], pool->window[i], pool->padding[i], pool->stride[i]));
    }
    gx_tensor_view(x, xt);
    gx_tensor_view(y, yt);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
rs_supports(const fdnn_graph_t *g, int idx)
{
    fdnn_pooling_t pool;
    fdnn_tensor_t xt, yt;
    return problem(g, idx, &pool, &xt, &yt);
}

static cudnnStatus_t
rs_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    (void)g, (void)idx;
    *bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
rs_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch, (void)scratch_bytes;
    const fdnn_gop_resample_t *r = &e->graph->nodes[idx].u.resample;
    fdnn_pooling_t pool;
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(problem(e->graph, idx, &pool, &xt, &yt));
    return fdnn_pooling_forward(e->handle, &pool, r->alpha, &xt, ptr[r->x], r->beta, &yt, ptr[r->y]);
}

const gx_node_exec_t gx_resample_fwd_exec = {rs_supports, rs_scratch, rs_run};
