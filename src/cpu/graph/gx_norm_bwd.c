/* SPDX-License-Identifier: Apache-2.0
 * Normalization backward nodes of the generic engine (layer, instance and
 * batch norm).  As in the forward (gx_norm.c), the statistics tensors say
 * which dims are normalized (R: where mean has extent 1), and the scale
 * tensor which dims the parameters are shared over (P: where scale has
 * extent 1).  With xhat = (x - mean) inv_variance, in double:
 *   dbias  = sum_P dy,  dscale = sum_P dy xhat
 *   g      = dy scale
 *   dx     = inv_variance (g - mean_R(g) - xhat mean_R(g xhat))
 * Sums run in row-major order of x (one fixed order: deterministic).
 * Peer statistics and group norm are declined. */
#include <math.h>
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
nb_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_norm_bwd_t *f = &g->nodes[idx].u.norm_bwd;
    if (f->mode != CUDNN_LAYER_NORM && f->mode != CUDNN_INSTANCE_NORM && f->mode != CUDNN_BATCH_NORM)
        return FDNN_NOT_SUPPORTED("node %d (norm_bwd): norm mode %d (layer, instance and batch norm are done)", idx,
                                  (int)f->mode);
    if (f->npeer > 0)
        return FDNN_NOT_SUPPORTED("node %d (norm_bwd): peer statistics", idx);
    const int need[5] = {f->x, f->mean, f->inv_variance, f->dy, f->scale};
    static const char *const names[5] = {"x", "mean", "inv_variance", "dy", "scale"};
    const fdnn_graph_tensor_t *x = &g->tensors[f->x];
    for (int k = 0; k < 5; k++) {
        if (need[k] == FDNN_GRAPH_NONE)
            return FDNN_NOT_SUPPORTED("node %d (norm_bwd): no %s", idx, names[k]);
        const fdnn_graph_tensor_t *t = &g->tensors[need[k]];
        if (!gx_dtype_storable(t->dtype) || t->by_value || !broadcasts_to(t, x))
            return FDNN_NOT_SUPPORTED("node %d (norm_bwd): %s does not broadcast to x or has type %s", idx, names[k],
                                      gx_dtype_name(t->dtype));
    }
    const int outs[3] = {f->dx, f->dscale, f->dbias};
    for (int k = 0; k < 3; k++)
        if (outs[k] != FDNN_GRAPH_NONE) {
            const fdnn_graph_tensor_t *t = &g->tensors[outs[k]];
            const fdnn_graph_tensor_t *like = k == 0 ? x : &g->tensors[f->scale];
            bool same = t->ndim == like->ndim && memcmp(t->dims, like->dims, sizeof(int64_t) * (size_t)t->ndim) == 0;
            if (!gx_dtype_storable(t->dtype) || t->by_value || !same)
                return FDNN_NOT_SUPPORTED("node %d (norm_bwd): %s must have the dims of %s", idx,
                                          k == 0   ? "dx"
                                          : k == 1 ? "dscale"
                                                   : "dbias",
                                          k == 0 ? "x" : "scale");
        }
    if (f->dx == FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (norm_bwd): no dx", idx);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
nb_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    /* per statistics position: mean_R(g), mean_R(g xhat); per parameter:
     * dscale, dbias; all double */
    const fdnn_gop_norm_bwd_t *f = &g->nodes[idx].u.norm_bwd;
    int64_t ns, np, n;
    if (!gx_tensor_elements(&g->tensors[f->mean], &ns) || !gx_tensor_elements(&g->tensors[f->scale], &np) ||
        !fdnn_ckd_add_i64(ns, np, &n) || !fdnn_ckd_bytes(n, 2 * sizeof(double), bytes))
        return FDNN_NOT_SUPPORTED("node %d (norm_bwd): the statistics overflow", idx);
    return CUDNN_STATUS_SUCCESS;
}

/* Row-major index of x's position idx in t's dims (its extent-1 dims
 * ignored). */
static int64_t
index_in(const fdnn_graph_tensor_t *t, const int64_t *idx)
{
    int64_t s = 0;
    for (int d = 0; d < t->ndim; d++)
        s = s * t->dims[d] + (t->dims[d] == 1 ? 0 : idx[d]);
    return s;
}

static void
unravel(int64_t flat, int nd, const int64_t *dims, int64_t *idx)
{
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = flat % dims[d];
        flat /= dims[d];
    }
}

static double
ld(const fdnn_graph_t *g, void **ptr, int t, const int64_t *idx)
{
    return gx_load(g->tensors[t].dtype, ptr[t], gx_bcast_offset(&g->tensors[t], idx));
}

static cudnnStatus_t
nb_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch_bytes;
    const fdnn_graph_t *g = e->graph;
    const fdnn_gop_norm_bwd_t *f = &g->nodes[idx].u.norm_bwd;
    const fdnn_graph_tensor_t *x = &g->tensors[f->x], *st = &g->tensors[f->mean], *pt = &g->tensors[f->scale];
    int64_t nx, ns, np, ix[FDNN_GRAPH_MAX_DIMS];
    gx_tensor_elements(x, &nx);
    gx_tensor_elements(st, &ns);
    gx_tensor_elements(pt, &np);
    double *mg = scratch, *mgx = mg + ns, *dsc = mgx + ns, *dbi = dsc + np;
    memset(scratch, 0, sizeof(double) * 2 * (size_t)(ns + np));
    for (int64_t i = 0; i < nx; i++) {
        unravel(i, x->ndim, x->dims, ix);
        double dy = ld(g, ptr, f->dy, ix);
        double xh = (ld(g, ptr, f->x, ix) - ld(g, ptr, f->mean, ix)) * ld(g, ptr, f->inv_variance, ix);
        double gg = dy * ld(g, ptr, f->scale, ix);
        int64_t s = index_in(st, ix), p = index_in(pt, ix);
        mg[s] += gg;
        mgx[s] += gg * xh;
        dsc[p] += dy * xh;
        dbi[p] += dy;
    }
    double per = (double)nx / (double)(ns > 0 ? ns : 1);
    for (int64_t s = 0; s < ns; s++)
        mg[s] /= per, mgx[s] /= per;
    const fdnn_graph_tensor_t *dx = &g->tensors[f->dx];
    for (int64_t i = 0; i < nx; i++) {
        unravel(i, x->ndim, x->dims, ix);
        double inv = ld(g, ptr, f->inv_variance, ix);
        double xh = (ld(g, ptr, f->x, ix) - ld(g, ptr, f->mean, ix)) * inv;
        double gg = ld(g, ptr, f->dy, ix) * ld(g, ptr, f->scale, ix);
        int64_t s = index_in(st, ix);
        gx_store(dx->dtype, ptr[f->dx], gx_bcast_offset(dx, ix), inv * (gg - mg[s] - xh * mgx[s]));
    }
    for (int64_t p = 0; p < np; p++) {
        unravel(p, pt->ndim, pt->dims, ix);
        if (f->dscale != FDNN_GRAPH_NONE)
            gx_store(g->tensors[f->dscale].dtype, ptr[f->dscale], gx_bcast_offset(&g->tensors[f->dscale], ix), dsc[p]);
        if (f->dbias != FDNN_GRAPH_NONE)
            gx_store(g->tensors[f->dbias].dtype, ptr[f->dbias], gx_bcast_offset(&g->tensors[f->dbias], ix), dbi[p]);
    }
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_norm_bwd_exec = {nb_supports, nb_scratch, nb_run};
