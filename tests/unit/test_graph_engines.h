/* SPDX-License-Identifier: Apache-2.0
 * Building fdnn_graph_t values by hand for the graph-engine tests, the way
 * the backend API hands them to the engines (graph_ir.h), and running one
 * engine on them with a poisoned, guarded workspace. */
#ifndef FDNN_TEST_GRAPH_ENGINES_H
#define FDNN_TEST_GRAPH_ENGINES_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fail.h"
#include "core/graph_ir.h"
#include "cpu/graph/engines.h"
#include "cpu/graph/graph_exec.h"
#include "freednn.h"
#include "testutil.h"

#define GB_MAX_T 96
#define GB_MAX_N 48

typedef struct gb {
    fdnn_graph_t g;
    fdnn_graph_tensor_t t[GB_MAX_T];
    fdnn_graph_node_t n[GB_MAX_N];
    void *data[GB_MAX_T]; /* guarded buffers of the non-virtual tensors */
} gb_t;

static inline void
gb_init(gb_t *b)
{
    memset(b, 0, sizeof(*b));
    b->g.tensors = b->t;
    b->g.nodes = b->n;
}

static inline void
gb_free(gb_t *b)
{
    for (int i = 0; i < b->g.ntensors; i++)
        if (b->data[i] != NULL)
            fdnn_guarded_free(b->data[i]);
}

/* A tensor with the given strides (NULL: packed row-major); non-virtual
 * ones get a guarded buffer of their span. */
static inline int
gb_tensor_s(gb_t *b, cudnnDataType_t dt, int nd, const int64_t *dims, const int64_t *strides, bool virt)
{
    int i = b->g.ntensors++;
    fdnn_graph_tensor_t *t = &b->t[i];
    memset(t, 0, sizeof(*t));
    t->uid = 100 + i;
    t->dtype = dt;
    t->ndim = nd;
    t->alignment = 16;
    t->vector_count = 1;
    t->is_virtual = virt;
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        t->dims[d] = dims[d];
        t->strides[d] = strides != NULL ? strides[d] : s;
        s *= dims[d];
    }
    if (!virt) {
        int64_t span;
        gx_tensor_span(t, &span);
        b->data[i] = fdnn_guarded_alloc((size_t)span * gx_dtype_size(dt));
        fdnn_poison_bytes(b->data[i], (size_t)span * gx_dtype_size(dt));
    }
    return i;
}

static inline int
gb_tensor(gb_t *b, cudnnDataType_t dt, int nd, const int64_t *dims, bool virt)
{
    return gb_tensor_s(b, dt, nd, dims, NULL, virt);
}

/* A by-value scalar of FLOAT. */
static inline int
gb_scalar_f32(gb_t *b, float v)
{
    int i = b->g.ntensors++;
    fdnn_graph_tensor_t *t = &b->t[i];
    memset(t, 0, sizeof(*t));
    t->uid = 100 + i;
    t->dtype = CUDNN_DATA_FLOAT;
    t->ndim = 1;
    t->dims[0] = 1;
    t->strides[0] = 1;
    t->vector_count = 1;
    t->is_virtual = false;
    t->by_value = true;
    memcpy(t->value, &v, sizeof(v));
    return i;
}

static inline fdnn_gop_pointwise_t *
gb_pw(gb_t *b, cudnnPointwiseMode_t mode, cudnnDataType_t prec, int x, int bb, int t, int y)
{
    fdnn_graph_node_t *n = &b->n[b->g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = FDNN_GOP_POINTWISE;
    fdnn_gop_pointwise_t *p = &n->u.pointwise;
    p->mode = mode;
    p->math_prec = prec;
    p->nan_prop = CUDNN_NOT_PROPAGATE_NAN;
    p->relu_lower_clip = 0;
    p->relu_upper_clip = INFINITY;
    p->relu_lower_clip_slope = 0;
    p->elu_alpha = 1;
    p->softplus_beta = 1;
    p->swish_beta = 1;
    p->alpha1 = p->alpha2 = 1;
    p->x = x, p->b = bb, p->t = t, p->y = y;
    p->dx = p->dy = FDNN_GRAPH_NONE;
    if (mode >= CUDNN_POINTWISE_RELU_BWD && mode <= CUDNN_POINTWISE_GELU_APPROX_TANH_BWD) {
        p->dy = bb, p->dx = y;
        p->b = p->y = FDNN_GRAPH_NONE;
    }
    return p;
}

static inline fdnn_gop_conv_t *
gb_conv(gb_t *b, fdnn_graph_op_kind_t kind, cudnnDataType_t ct, int x, int w, int y, int pad, int stride)
{
    fdnn_graph_node_t *n = &b->n[b->g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = kind;
    fdnn_gop_conv_t *c = &n->u.conv;
    c->x = x, c->w = w, c->y = y;
    c->alpha = 1, c->beta = 0;
    c->compute_type = ct;
    c->mode = CUDNN_CROSS_CORRELATION;
    c->nsp = b->t[x].ndim - 2;
    for (int i = 0; i < c->nsp; i++) {
        c->pre_pad[i] = c->post_pad[i] = pad;
        c->stride[i] = stride;
        c->dilation[i] = 1;
    }
    return c;
}

static inline fdnn_gop_matmul_t *
gb_matmul(gb_t *b, cudnnDataType_t ct, int a, int bb, int c)
{
    fdnn_graph_node_t *n = &b->n[b->g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = FDNN_GOP_MATMUL;
    fdnn_gop_matmul_t *m = &n->u.matmul;
    m->a = a, m->b = bb, m->c = c;
    m->m_override = m->n_override = m->k_override = FDNN_GRAPH_NONE;
    m->compute_type = ct;
    return m;
}

static inline fdnn_gop_reduction_t *
gb_reduction(gb_t *b, cudnnReduceTensorOp_t op, cudnnDataType_t ct, int x, int y)
{
    fdnn_graph_node_t *n = &b->n[b->g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = FDNN_GOP_REDUCTION;
    fdnn_gop_reduction_t *r = &n->u.reduction;
    r->op = op, r->compute_type = ct, r->x = x, r->y = y;
    return r;
}

/* Element i (flat, row-major over dims) of tensor t: its offset. */
static inline int64_t
gb_off(const gb_t *b, int t, int64_t flat)
{
    const fdnn_graph_tensor_t *x = &b->t[t];
    int64_t off = 0;
    for (int d = x->ndim - 1; d >= 0; d--) {
        off += (flat % x->dims[d]) * x->strides[d];
        flat /= x->dims[d];
    }
    return off;
}

static inline int64_t
gb_count(const gb_t *b, int t)
{
    int64_t c = 1;
    for (int d = 0; d < b->t[t].ndim; d++)
        c *= b->t[t].dims[d];
    return c;
}

static inline double
gb_get(const gb_t *b, int t, int64_t flat)
{
    return gx_load(b->t[t].dtype, b->data[t], gb_off(b, t, flat));
}

static inline void
gb_set(gb_t *b, int t, int64_t flat, double v)
{
    gx_store(b->t[t].dtype, b->data[t], gb_off(b, t, flat), v);
}

static inline void
gb_fill(gb_t *b, int t, fdnn_rng_t *rng, double lo, double hi)
{
    for (int64_t i = 0; i < gb_count(b, t); i++)
        gb_set(b, t, i, fdnn_rng_uniform(rng, lo, hi));
}

/* Poisons every output (non-virtual tensor written by a node). */
static inline void
gb_poison_outputs(gb_t *b)
{
    for (int i = 0; i < b->g.nnodes; i++) {
        int in[FDNN_GRAPH_MAX_INPUTS + 16], out[FDNN_GRAPH_MAX_INPUTS + 16], nin, nout;
        fdnn_graph_node_operands(&b->n[i], in, &nin, out, &nout);
        for (int j = 0; j < nout; j++) {
            const fdnn_graph_tensor_t *t = &b->t[out[j]];
            if (t->is_virtual)
                continue;
            int64_t span;
            gx_tensor_span(t, &span);
            fdnn_poison_bytes(b->data[out[j]], (size_t)span * gx_dtype_size(t->dtype));
        }
    }
}

/* supports, workspace, execute of one engine with a poisoned guarded
 * workspace of exactly the size it asked for. */
static inline cudnnStatus_t
gb_run(cudnnHandle_t h, const fdnn_graph_engine_t *e, gb_t *b)
{
    cudnnStatus_t st = e->supports(&b->g);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    fdnn_graph_knobs_t knobs = {0};
    size_t ws = 0;
    st = e->workspace(&b->g, &knobs, &ws);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    void *w = fdnn_guarded_alloc(ws);
    fdnn_poison_bytes(w, ws);
    gb_poison_outputs(b);
    fdnn_graph_exec_t x = {h, &b->g, &knobs, b->data, w, ws};
    st = e->execute(&x);
    fdnn_guarded_free(w);
    return st;
}

static inline const fdnn_graph_engine_t *
gb_engine(int64_t index)
{
    return fdnn_graph_engine_by_index(index);
}

#endif /* FDNN_TEST_GRAPH_ENGINES_H */
