/* SPDX-License-Identifier: Apache-2.0
 * Normalization forward nodes of the generic engine (layer, instance and
 * batch norm; training and inference).  The statistics tensors say what is
 * normalized: the dims where mean has extent 1 and x does not are reduced
 * (layer norm: all but N; instance norm: the spatial dims; batch norm: N
 * and the spatial dims), so one code path serves the three modes.
 *
 *   training:  mean = E[x], v = E[(x - mean)^2] (biased), over the reduced
 *              dims, accumulated in double in row-major order (one fixed
 *              order: deterministic); inv_variance = 1 / sqrt(v + epsilon);
 *              mean and inv_variance are written when the graph has them;
 *              batch norm with running statistics also writes
 *              running = (1 - f) running + f stat (f = exp_avg_factor, the
 *              variance made unbiased, v n / (n - 1), as cudnnBatchNorm...)
 *   inference: mean and inv_variance are inputs;
 *   both:      y = (x - mean) inv_variance scale + bias, every operand
 *              broadcast by its dims of extent 1.
 * Peer statistics (multi-GPU) and group norm are declined. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"
#include "core/fail.h"
#include "cpu/graph/graph_exec.h"

static bool
broadcasts_to(const fdnn_graph_tensor_t *t, const fdnn_graph_tensor_t *x)
{
    if (t->ndim != x->ndim)
        return false;
    for (int d = 0; d < x->ndim; d++)
        if (t->dims[d] != 1 && t->dims[d] != x->dims[d])
            return false;
    return true;
}

static cudnnStatus_t
norm_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_norm_fwd_t *f = &g->nodes[idx].u.norm_fwd;
    if (f->mode != CUDNN_LAYER_NORM && f->mode != CUDNN_INSTANCE_NORM && f->mode != CUDNN_BATCH_NORM)
        return FDNN_NOT_SUPPORTED("node %d (norm_fwd): norm mode %d (layer, instance and batch norm are done)", idx,
                                  (int)f->mode);
    if (f->npeer > 0)
        return FDNN_NOT_SUPPORTED("node %d (norm_fwd): peer statistics", idx);
    const fdnn_graph_tensor_t *x = &g->tensors[f->x];
    if (!gx_dtype_storable(x->dtype) || x->by_value || f->y == FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (norm_fwd): x of type %s or no y", idx, gx_dtype_name(x->dtype));
    bool train = f->phase == CUDNN_NORM_FWD_TRAINING;
    if (!train && (f->mean == FDNN_GRAPH_NONE || f->inv_variance == FDNN_GRAPH_NONE))
        return FDNN_NOT_SUPPORTED("node %d (norm_fwd): inference without mean and inv_variance inputs", idx);
    if (train && f->epsilon == FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (norm_fwd): training without epsilon", idx);
    if (train && f->mean == FDNN_GRAPH_NONE && f->inv_variance == FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (norm_fwd): training needs the mean or inv_variance tensor for its shape",
                                  idx);
    const int ops[8] = {f->mean,
                        f->inv_variance,
                        f->scale,
                        f->bias,
                        f->y,
                        f->input_running_mean,
                        f->input_running_var,
                        f->output_running_mean};
    static const char *const names[8] = {
        "mean", "inv_variance", "scale", "bias", "y", "input running mean", "input running var", "output running mean"};
    for (int k = 0; k < 8; k++) {
        if (ops[k] == FDNN_GRAPH_NONE)
            continue;
        const fdnn_graph_tensor_t *t = &g->tensors[ops[k]];
        if (!gx_dtype_storable(t->dtype) || !broadcasts_to(t, x))
            return FDNN_NOT_SUPPORTED("node %d (norm_fwd): %s does not broadcast to x or has type %s", idx, names[k],
                                      gx_dtype_name(t->dtype));
    }
    if (f->output_running_var != FDNN_GRAPH_NONE && !broadcasts_to(&g->tensors[f->output_running_var], x))
        return FDNN_NOT_SUPPORTED("node %d (norm_fwd): output running var does not broadcast to x", idx);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
norm_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    /* mean and inv_variance in double, one per statistics position */
    const fdnn_gop_norm_fwd_t *f = &g->nodes[idx].u.norm_fwd;
    const fdnn_graph_tensor_t *s = &g->tensors[f->mean != FDNN_GRAPH_NONE ? f->mean : f->inv_variance];
    int64_t n;
    if (!gx_tensor_elements(s, &n) || !fdnn_ckd_bytes(n, 2 * sizeof(double), bytes))
        return FDNN_NOT_SUPPORTED("node %d (norm_fwd): the statistics overflow", idx);
    return CUDNN_STATUS_SUCCESS;
}

/* The row-major position `flat` of dims[] into idx[]. */
static void
unravel(int64_t flat, int nd, const int64_t *dims, int64_t *idx)
{
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = flat % dims[d];
        flat /= dims[d];
    }
}

/* The statistics index of x's position idx: row-major over st's dims, its
 * dims of extent 1 ignored. */
static int64_t
stat_at(const fdnn_graph_tensor_t *st, const int64_t *idx)
{
    int64_t s = 0;
    for (int d = 0; d < st->ndim; d++)
        s = s * st->dims[d] + (st->dims[d] == 1 ? 0 : idx[d]);
    return s;
}

static double
scalar(const fdnn_graph_tensor_t *t, const void *p)
{
    return gx_load(t->dtype, p, 0);
}

static cudnnStatus_t
norm_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch_bytes;
    const fdnn_graph_t *g = e->graph;
    const fdnn_gop_norm_fwd_t *f = &g->nodes[idx].u.norm_fwd;
    const fdnn_graph_tensor_t *x = &g->tensors[f->x], *y = &g->tensors[f->y];
    const fdnn_graph_tensor_t *st = &g->tensors[f->mean != FDNN_GRAPH_NONE ? f->mean : f->inv_variance];
    int nd = x->ndim;
    int64_t nstat, nx, idx_[FDNN_GRAPH_MAX_DIMS];
    gx_tensor_elements(st, &nstat);
    gx_tensor_elements(x, &nx);
    double *mean = scratch, *inv = mean + nstat;
    if (f->phase == CUDNN_NORM_FWD_TRAINING) {
        int64_t per = nx / (nstat > 0 ? nstat : 1);
        for (int64_t s = 0; s < nstat; s++)
            mean[s] = inv[s] = 0;
        for (int64_t i = 0; i < nx; i++) {
            unravel(i, nd, x->dims, idx_);
            mean[stat_at(st, idx_)] += gx_load(x->dtype, ptr[f->x], gx_bcast_offset(x, idx_));
        }
        for (int64_t s = 0; s < nstat; s++)
            mean[s] /= (double)per;
        for (int64_t i = 0; i < nx; i++) {
            unravel(i, nd, x->dims, idx_);
            int64_t s = stat_at(st, idx_);
            double d = gx_load(x->dtype, ptr[f->x], gx_bcast_offset(x, idx_)) - mean[s];
            inv[s] += d * d;
        }
        double eps = scalar(&g->tensors[f->epsilon], ptr[f->epsilon]);
        double fac =
            f->exp_avg_factor != FDNN_GRAPH_NONE ? scalar(&g->tensors[f->exp_avg_factor], ptr[f->exp_avg_factor]) : 0;
        for (int64_t s = 0; s < nstat; s++) {
            double var = inv[s] / (double)per;
            unravel(s, nd, st->dims, idx_);
            if (f->output_running_mean != FDNN_GRAPH_NONE && f->input_running_mean != FDNN_GRAPH_NONE) {
                const fdnn_graph_tensor_t *ri = &g->tensors[f->input_running_mean];
                const fdnn_graph_tensor_t *ro = &g->tensors[f->output_running_mean];
                double r = gx_load(ri->dtype, ptr[f->input_running_mean], gx_bcast_offset(ri, idx_));
                gx_store(ro->dtype, ptr[f->output_running_mean], gx_bcast_offset(ro, idx_),
                         (1 - fac) * r + fac * mean[s]);
            }
            if (f->output_running_var != FDNN_GRAPH_NONE && f->input_running_var != FDNN_GRAPH_NONE) {
                const fdnn_graph_tensor_t *ri = &g->tensors[f->input_running_var];
                const fdnn_graph_tensor_t *ro = &g->tensors[f->output_running_var];
                double r = gx_load(ri->dtype, ptr[f->input_running_var], gx_bcast_offset(ri, idx_));
                double unbiased = per > 1 ? var * (double)per / (double)(per - 1) : var;
                gx_store(ro->dtype, ptr[f->output_running_var], gx_bcast_offset(ro, idx_),
                         (1 - fac) * r + fac * unbiased);
            }
            inv[s] = 1 / sqrt(var + eps);
            if (f->mean != FDNN_GRAPH_NONE)
                gx_store(g->tensors[f->mean].dtype, ptr[f->mean], gx_bcast_offset(&g->tensors[f->mean], idx_), mean[s]);
            if (f->inv_variance != FDNN_GRAPH_NONE)
                gx_store(g->tensors[f->inv_variance].dtype, ptr[f->inv_variance],
                         gx_bcast_offset(&g->tensors[f->inv_variance], idx_), inv[s]);
        }
    } else {
        const fdnn_graph_tensor_t *tm = &g->tensors[f->mean], *tv = &g->tensors[f->inv_variance];
        for (int64_t s = 0; s < nstat; s++) {
            unravel(s, nd, st->dims, idx_);
            mean[s] = gx_load(tm->dtype, ptr[f->mean], gx_bcast_offset(tm, idx_));
            inv[s] = gx_load(tv->dtype, ptr[f->inv_variance], gx_bcast_offset(tv, idx_));
        }
    }
    const fdnn_graph_tensor_t *sc = f->scale != FDNN_GRAPH_NONE ? &g->tensors[f->scale] : NULL;
    const fdnn_graph_tensor_t *bi = f->bias != FDNN_GRAPH_NONE ? &g->tensors[f->bias] : NULL;
    for (int64_t i = 0; i < nx; i++) {
        unravel(i, nd, x->dims, idx_);
        int64_t s = stat_at(st, idx_);
        double v = (gx_load(x->dtype, ptr[f->x], gx_bcast_offset(x, idx_)) - mean[s]) * inv[s];
        if (sc != NULL)
            v *= gx_load(sc->dtype, ptr[f->scale], gx_bcast_offset(sc, idx_));
        if (bi != NULL)
            v += gx_load(bi->dtype, ptr[f->bias], gx_bcast_offset(bi, idx_));
        gx_store(y->dtype, ptr[f->y], gx_bcast_offset(y, idx_), v);
    }
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_norm_fwd_exec = {norm_supports, norm_scratch, norm_run};
