/* SPDX-License-Identifier: Apache-2.0
 * Gen-stats and RNG nodes of the generic engine.
 *
 * Gen stats (CUDNN_GENSTATS_SUM_SQSUM): sum and sum of squares of x per
 * channel (dim 1) over every other dim, into tensors of x's rank with
 * extent 1 except dim 1.  Accumulated in double in row-major order of the
 * other dims (one fixed order: deterministic), stored in the outputs' type.
 *
 * RNG: element i (row-major over y's dims) draws the 32-bit Philox4x32-10
 * numbers of src/cpu/dropout/philox.h with key = the seed and the call
 * counter = the offset (the offset tensor's INT64 value, 0 without one):
 *   UNIFORM    min + (max - min) (u + 0.5) / 2^32      (u = number 2i)
 *   BERNOULLI  (u + 0.5) / 2^32 < probability ? 1 : 0  (u = number 2i)
 *   NORMAL     mean + stddev sqrt(-2 ln u1) cos(2 pi u2), u1, u2 the
 *              numbers 2i and 2i+1 mapped to (0, 1) as above (Box-Muller).
 * The same seed and offset give the same tensor whatever the threads. */
#include <math.h>
#include <string.h>

#include "core/fail.h"
#include "cpu/dropout/philox.h"
#include "cpu/graph/graph_exec.h"

static cudnnStatus_t
no_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    (void)g, (void)idx;
    *bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
stats_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_gen_stats_t *s = &g->nodes[idx].u.gen_stats;
    if (s->mode != CUDNN_GENSTATS_SUM_SQSUM)
        return FDNN_NOT_SUPPORTED("node %d (gen_stats): mode %d", idx, (int)s->mode);
    const fdnn_graph_tensor_t *x = &g->tensors[s->x];
    if (x->ndim < 2 || !gx_dtype_storable(x->dtype) || x->by_value)
        return FDNN_NOT_SUPPORTED("node %d (gen_stats): x of rank %d and type %s", idx, x->ndim,
                                  gx_dtype_name(x->dtype));
    const int outs[2] = {s->sum, s->sqsum};
    for (int k = 0; k < 2; k++) {
        if (outs[k] == FDNN_GRAPH_NONE)
            return FDNN_NOT_SUPPORTED("node %d (gen_stats): the %s output is missing", idx, k ? "sqsum" : "sum");
        const fdnn_graph_tensor_t *o = &g->tensors[outs[k]];
        bool ok = o->ndim == x->ndim && gx_dtype_storable(o->dtype) && !o->by_value;
        for (int d = 0; d < x->ndim && ok; d++)
            ok = o->dims[d] == (d == 1 ? x->dims[1] : 1);
        if (!ok)
            return FDNN_NOT_SUPPORTED("node %d (gen_stats): the %s output is not 1 x C x 1... of a storable type", idx,
                                      k ? "sqsum" : "sum");
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
stats_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch, (void)scratch_bytes;
    const fdnn_gop_gen_stats_t *s = &e->graph->nodes[idx].u.gen_stats;
    const fdnn_graph_tensor_t *x = &e->graph->tensors[s->x];
    const fdnn_graph_tensor_t *ts = &e->graph->tensors[s->sum], *tq = &e->graph->tensors[s->sqsum];
    int64_t n, per;
    gx_tensor_elements(x, &n);
    per = x->dims[1] > 0 ? n / x->dims[1] : 0;
    for (int64_t c = 0; c < x->dims[1]; c++) {
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < per; i++) {
            /* row-major over the dims other than 1 */
            int64_t f = i, off = c * x->strides[1];
            for (int d = x->ndim - 1; d >= 0; d--) {
                if (d == 1)
                    continue;
                off += (f % x->dims[d]) * x->strides[d];
                f /= x->dims[d];
            }
            double v = gx_load(x->dtype, ptr[s->x], off);
            sum += v;
            sq += v * v;
        }
        gx_store(ts->dtype, ptr[s->sum], c * ts->strides[1], sum);
        gx_store(tq->dtype, ptr[s->sqsum], c * tq->strides[1], sq);
    }
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_gen_stats_exec = {stats_supports, no_scratch, stats_run};

static cudnnStatus_t
rng_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_rng_t *r = &g->nodes[idx].u.rng;
    const fdnn_graph_tensor_t *y = &g->tensors[r->y];
    if (!gx_dtype_storable(y->dtype) || y->by_value)
        return FDNN_NOT_SUPPORTED("node %d (rng): y's type %s", idx, gx_dtype_name(y->dtype));
    if (r->distribution != CUDNN_RNG_DISTRIBUTION_BERNOULLI && r->distribution != CUDNN_RNG_DISTRIBUTION_UNIFORM &&
        r->distribution != CUDNN_RNG_DISTRIBUTION_NORMAL)
        return FDNN_NOT_SUPPORTED("node %d (rng): distribution %d", idx, (int)r->distribution);
    const int scal[2] = {r->seed_tensor, r->offset};
    for (int k = 0; k < 2; k++) {
        if (scal[k] == FDNN_GRAPH_NONE)
            continue;
        const fdnn_graph_tensor_t *t = &g->tensors[scal[k]];
        if (t->dtype != CUDNN_DATA_INT64 && t->dtype != CUDNN_DATA_INT32)
            return FDNN_NOT_SUPPORTED("node %d (rng): the %s tensor is %s, not INT64", idx, k ? "offset" : "seed",
                                      gx_dtype_name(t->dtype));
    }
    return CUDNN_STATUS_SUCCESS;
}

static uint64_t
int_scalar(const fdnn_graph_tensor_t *t, const void *p)
{
    if (t->dtype == CUDNN_DATA_INT32)
        return (uint64_t)(int64_t)((const int32_t *)p)[0];
    int64_t v;
    memcpy(&v, p, sizeof(v));
    return (uint64_t)v;
}

static double
unit(uint32_t u)
{
    return ((double)u + 0.5) * (1.0 / 4294967296.0);
}

static cudnnStatus_t
rng_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch, (void)scratch_bytes;
    const fdnn_gop_rng_t *r = &e->graph->nodes[idx].u.rng;
    const fdnn_graph_tensor_t *y = &e->graph->tensors[r->y];
    uint64_t seed = r->seed_tensor == FDNN_GRAPH_NONE
                        ? (uint64_t)r->seed_value
                        : int_scalar(&e->graph->tensors[r->seed_tensor], ptr[r->seed_tensor]);
    uint64_t call = r->offset == FDNN_GRAPH_NONE ? 0 : int_scalar(&e->graph->tensors[r->offset], ptr[r->offset]);
    int64_t n;
    gx_tensor_elements(y, &n);
    for (int64_t i = 0; i < n; i++) {
        double u1 = unit(fdnn_dropout_random(seed, call, 2 * (uint64_t)i)), v;
        switch (r->distribution) {
        case CUDNN_RNG_DISTRIBUTION_UNIFORM: v = r->uniform_min + (r->uniform_max - r->uniform_min) * u1; break;
        case CUDNN_RNG_DISTRIBUTION_BERNOULLI: v = u1 < r->bernoulli_probability ? 1 : 0; break;
        default: {
            double u2 = unit(fdnn_dropout_random(seed, call, 2 * (uint64_t)i + 1));
            v = r->normal_mean + r->normal_stddev * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
            break;
        }
        }
        int64_t f = i, off = 0;
        for (int d = y->ndim - 1; d >= 0; d--) {
            off += (f % y->dims[d]) * y->strides[d];
            f /= y->dims[d];
        }
        gx_store(y->dtype, ptr[r->y], off, v);
    }
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_rng_exec = {rng_supports, no_scratch, rng_run};
