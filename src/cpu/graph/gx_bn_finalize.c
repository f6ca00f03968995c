/* SPDX-License-Identifier: Apache-2.0
 * BN finalize nodes of the generic engine: from the per-channel sum and sum
 * of squares of a gen-stats node (over accum_count elements per channel),
 * per channel c, in double:
 *   training:  mean = sum / n, var = sqsum / n - mean^2 (biased),
 *              saved_mean = mean, saved_inv_std = 1 / sqrt(var + eps),
 *              running mean = (1 - f) prev + f mean,
 *              running var  = (1 - f) prev + f var n / (n - 1)  (unbiased)
 *   inference: mean, var = the previous running mean and variance;
 *   both:      eq_scale = scale / sqrt(var + eps),
 *              eq_bias = bias - mean eq_scale
 * so that y = eq_scale x + eq_bias is the batch norm.  Every output is
 * optional (written when the graph has it); the per-channel tensors are
 * indexed by their dim 1. */
#include <math.h>

#include "core/fail.h"
#include "cpu/graph/graph_exec.h"

static cudnnStatus_t
no_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    (void)g, (void)idx;
    *bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

/* Channels of a per-channel tensor (its dim 1; 1-D tensors: dim 0). */
static int64_t
channels(const fdnn_graph_tensor_t *t)
{
    return t->ndim >= 2 ? t->dims[1] : t->dims[0];
}

static int64_t
chan_stride(const fdnn_graph_tensor_t *t)
{
    return t->ndim >= 2 ? t->strides[1] : t->strides[0];
}

static cudnnStatus_t
fin_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_bn_finalize_t *f = &g->nodes[idx].u.bn_finalize;
    bool train = f->mode == CUDNN_BN_FINALIZE_STATISTICS_TRAINING;
    if (!train && f->mode != CUDNN_BN_FINALIZE_STATISTICS_INFERENCE)
        return FDNN_NOT_SUPPORTED("node %d (bn_finalize): mode %d", idx, (int)f->mode);
    if (f->epsilon == FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (bn_finalize): no epsilon", idx);
    if (train && (f->y_sum == FDNN_GRAPH_NONE || f->y_sq_sum == FDNN_GRAPH_NONE || f->accum_count == FDNN_GRAPH_NONE))
        return FDNN_NOT_SUPPORTED("node %d (bn_finalize): training without sum, sum of squares or accum count", idx);
    if (!train && (f->prev_running_mean == FDNN_GRAPH_NONE || f->prev_running_var == FDNN_GRAPH_NONE))
        return FDNN_NOT_SUPPORTED("node %d (bn_finalize): inference without the running statistics", idx);
    const int chan[12] = {f->y_sum,
                          f->y_sq_sum,
                          f->scale,
                          f->bias,
                          f->prev_running_mean,
                          f->prev_running_var,
                          f->updated_running_mean,
                          f->updated_running_var,
                          f->saved_mean,
                          f->saved_inv_std,
                          f->eq_scale,
                          f->eq_bias};
    int64_t c = -1;
    for (int k = 0; k < 12; k++) {
        if (chan[k] == FDNN_GRAPH_NONE)
            continue;
        const fdnn_graph_tensor_t *t = &g->tensors[chan[k]];
        if (!gx_dtype_storable(t->dtype) || t->by_value || t->ndim < 1)
            return FDNN_NOT_SUPPORTED("node %d (bn_finalize): per-channel operand %d has type %s", idx, k,
                                      gx_dtype_name(t->dtype));
        if (c >= 0 && channels(t) != c)
            return FDNN_NOT_SUPPORTED("node %d (bn_finalize): per-channel operands disagree on the channel count", idx);
        c = channels(t);
    }
    if (f->accum_count != FDNN_GRAPH_NONE) {
        cudnnDataType_t dt = g->tensors[f->accum_count].dtype;
        if (dt != CUDNN_DATA_INT64 && dt != CUDNN_DATA_INT32)
            return FDNN_NOT_SUPPORTED("node %d (bn_finalize): accum count of type %s", idx, gx_dtype_name(dt));
    }
    return CUDNN_STATUS_SUCCESS;
}

static double
at(const fdnn_graph_t *g, void **ptr, int t, int64_t c)
{
    const fdnn_graph_tensor_t *x = &g->tensors[t];
    return gx_load(x->dtype, ptr[t], x->by_value ? 0 : c * chan_stride(x));
}

static void
put(const fdnn_graph_t *g, void **ptr, int t, int64_t c, double v)
{
    if (t != FDNN_GRAPH_NONE)
        gx_store(g->tensors[t].dtype, ptr[t], c * chan_stride(&g->tensors[t]), v);
}

static cudnnStatus_t
fin_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch, (void)scratch_bytes;
    const fdnn_graph_t *g = e->graph;
    const fdnn_gop_bn_finalize_t *f = &g->nodes[idx].u.bn_finalize;
    bool train = f->mode == CUDNN_BN_FINALIZE_STATISTICS_TRAINING;
    int ref = train ? f->y_sum : f->prev_running_mean;
    int64_t nc = channels(&g->tensors[ref]);
    double eps = at(g, ptr, f->epsilon, 0);
    double fac = f->exp_avg_factor != FDNN_GRAPH_NONE ? at(g, ptr, f->exp_avg_factor, 0) : 0;
    double n = f->accum_count != FDNN_GRAPH_NONE ? at(g, ptr, f->accum_count, 0) : 1;
    for (int64_t c = 0; c < nc; c++) {
        double mean, var;
        if (train) {
            mean = at(g, ptr, f->y_sum, c) / n;
            var = at(g, ptr, f->y_sq_sum, c) / n - mean * mean;
            var = var > 0 ? var : 0;
            put(g, ptr, f->saved_mean, c, mean);
            put(g, ptr, f->saved_inv_std, c, 1 / sqrt(var + eps));
            if (f->prev_running_mean != FDNN_GRAPH_NONE)
                put(g, ptr, f->updated_running_mean, c, (1 - fac) * at(g, ptr, f->prev_running_mean, c) + fac * mean);
            if (f->prev_running_var != FDNN_GRAPH_NONE)
                put(g, ptr, f->updated_running_var, c,
                    (1 - fac) * at(g, ptr, f->prev_running_var, c) + fac * (n > 1 ? var * n / (n - 1) : var));
        } else {
            mean = at(g, ptr, f->prev_running_mean, c);
            var = at(g, ptr, f->prev_running_var, c);
        }
        double s = (f->scale != FDNN_GRAPH_NONE ? at(g, ptr, f->scale, c) : 1) / sqrt(var + eps);
        put(g, ptr, f->eq_scale, c, s);
        put(g, ptr, f->eq_bias, c, (f->bias != FDNN_GRAPH_NONE ? at(g, ptr, f->bias, c) : 0) - mean * s);
    }
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_bn_finalize_exec = {fin_supports, no_scratch, fin_run};
