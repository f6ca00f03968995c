/* SPDX-License-Identifier: Apache-2.0
 * Convolution nodes (forward, backward data, backward filter) through the
 * legacy solvers: the node becomes one fdnn_conv_problem_t, the algorithm is
 * the first applicable one in the order cudnnGet*Algorithm_v7 answers (the
 * registry's order, direct first where the registry prefers it), and
 * fdnn_conv_run runs it with its workspace in the graph's scratch. */
#include <stdio.h>
#include <string.h>

#include "core/conv.h"
#include "core/conv_config.h"
#include "core/conv_solver.h"
#include "core/fail.h"
#include "cpu/graph/graph_exec.h"

static fdnn_conv_dir_t
dir_of(fdnn_graph_op_kind_t k)
{
    return k == FDNN_GOP_CONV_FWD        ? FDNN_CONV_FWD
           : k == FDNN_GOP_CONV_BWD_DATA ? FDNN_CONV_BWD_DATA
                                         : FDNN_CONV_BWD_FILTER;
}

/* The 5-D view (N, C, D, H, W) of a 4-D or 5-D graph tensor: a 2-D problem
 * gets a depth dim of 1 with stride 0, as conv.h's problems have. */
static void
view5(const fdnn_graph_tensor_t *t, fdnn_tensor_t *v)
{
    gx_tensor_view(t, v);
    if (t->ndim == 4) {
        for (int i = 4; i >= 3; i--) {
            v->dims[i] = v->dims[i - 1];
            v->strides[i] = v->strides[i - 1];
        }
        v->dims[2] = 1;
        v->strides[2] = 0;
        v->ndim = 5;
    }
}

/* Whether the filter is packed in NCHW (K, C, spatial) or NHWC (K,
 * spatial, C) order; the solvers take those two. */
static bool
filter_format(const fdnn_graph_tensor_t *w, cudnnTensorFormat_t *fmt)
{
    int nd = w->ndim;
    int64_t s = 1;
    bool nchw = true;
    for (int d = nd - 1; d >= 0; d--) {
        if (w->dims[d] != 1 && w->strides[d] != s)
            nchw = false;
        s *= w->dims[d];
    }
    if (nchw) {
        *fmt = CUDNN_TENSOR_NCHW;
        return true;
    }
    /* NHWC: C fastest, then W, H, (D), then K */
    int order[FDNN_GRAPH_MAX_DIMS], k = 0;
    order[k++] = 1;
    for (int d = nd - 1; d >= 2; d--)
        order[k++] = d;
    order[k++] = 0;
    s = 1;
    for (int i = 0; i < nd; i++) {
        int d = order[i];
        if (w->dims[d] != 1 && w->strides[d] != s)
            return false;
        s *= w->dims[d];
    }
    *fmt = CUDNN_TENSOR_NHWC;
    return true;
}

cudnnStatus_t
gx_conv_problem(const fdnn_graph_t *g, int idx, fdnn_conv_problem_t *p)
{
    const fdnn_graph_node_t *node = &g->nodes[idx];
    const fdnn_gop_conv_t *c = &node->u.conv;
    const char *kname = fdnn_graph_op_name(node->kind);
    const fdnn_graph_tensor_t *x = &g->tensors[c->x], *w = &g->tensors[c->w], *y = &g->tensors[c->y];
    if (x->ndim != 4 && x->ndim != 5)
        return FDNN_NOT_SUPPORTED("node %d (%s): x has %d dims; the solvers take 2 or 3 spatial dims", idx, kname,
                                  x->ndim);
    if (c->nsp != x->ndim - 2 || w->ndim != x->ndim || y->ndim != x->ndim)
        return FDNN_NOT_SUPPORTED("node %d (%s): x, w, y and the spatial dims disagree in rank", idx, kname);
    for (int i = 0; i < c->nsp; i++)
        if (c->pre_pad[i] != c->post_pad[i])
            return FDNN_NOT_SUPPORTED("node %d (%s): padding of spatial dim %d is "
                                      "%lld before and %lld after; the "
                                      "solvers take symmetric padding only",
                                      idx, kname, i, (long long)c->pre_pad[i], (long long)c->post_pad[i]);
    if (x->vector_count > 1 || w->vector_count > 1 || y->vector_count > 1)
        return FDNN_NOT_SUPPORTED("node %d (%s): vectorized tensors (vector count > 1)", idx, kname);
    if (w->dims[1] <= 0 || x->dims[1] % w->dims[1] != 0)
        return FDNN_NOT_SUPPORTED("node %d (%s): x has %lld channels, not a multiple of w's %lld", idx, kname,
                                  (long long)x->dims[1], (long long)w->dims[1]);
    cudnnTensorFormat_t wfmt;
    if (!filter_format(w, &wfmt))
        return FDNN_NOT_SUPPORTED("node %d (%s): the filter's strides are neither "
                                  "packed KCRS nor packed KRSC",
                                  idx, kname);
    fdnn_conv_dir_t dir = dir_of(node->kind);
    fdnn_conv_config_t cfg;
    cudnnStatus_t st = fdnn_conv_config_classify((int)dir, x->dtype, w->dtype, c->compute_type, y->dtype, &cfg);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_conv_config_check((int)dir, cfg);
    if (st != CUDNN_STATUS_SUCCESS)
        return FDNN_NOT_SUPPORTED("node %d (%s): data types x %s, w %s, y %s with compute type %s: %s", idx, kname,
                                  gx_dtype_name(x->dtype), gx_dtype_name(w->dtype), gx_dtype_name(y->dtype),
                                  gx_dtype_name(c->compute_type), fdnn_fail_reason());
    memset(p, 0, sizeof(*p));
    p->dir = dir;
    p->dtype = x->dtype;
    p->config = cfg;
    p->x_dtype = x->dtype;
    p->w_dtype = w->dtype;
    p->y_dtype = y->dtype;
    p->compute_type = c->compute_type;
    p->math_type = CUDNN_DEFAULT_MATH;
    p->nsp = c->nsp;
    p->n = x->dims[0];
    p->c = x->dims[1];
    p->k = w->dims[0];
    p->g = x->dims[1] / w->dims[1];
    p->flip = c->mode == CUDNN_CONVOLUTION;
    p->w_format = wfmt;
    int off = 3 - p->nsp;
    for (int i = 0; i < 3; i++) {
        p->in[i] = p->ker[i] = p->out[i] = 1;
        p->stride[i] = p->dil[i] = 1;
        p->pad[i] = 0;
    }
    for (int i = 0; i < p->nsp; i++) {
        p->in[off + i] = x->dims[i + 2];
        p->ker[off + i] = w->dims[i + 2];
        p->out[off + i] = y->dims[i + 2];
        p->pad[off + i] = c->pre_pad[i];
        p->stride[off + i] = c->stride[i];
        p->dil[off + i] = c->dilation[i];
    }
    view5(x, &p->x);
    view5(w, &p->w);
    view5(y, &p->y);
    if (p->k % p->g != 0)
        return FDNN_NOT_SUPPORTED("node %d (%s): %lld output channels do not split into %lld groups", idx, kname,
                                  (long long)p->k, (long long)p->g);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_conv_pick(const fdnn_conv_problem_t *p, int *algo, size_t *ws)
{
    int count = fdnn_conv_algo_count(p->dir);
    int order[16];
    /* The same ordered list and heuristic as the legacy _v7 calls
     * (src/cpu/conv/conv_list.c). */
    fdnn_conv_heuristic_order(p, order);
    char first[256] = "";
    for (int i = 0; i < count; i++) {
        size_t need = 0;
        if (fdnn_conv_algo_check(p, order[i], &need) == CUDNN_STATUS_SUCCESS) {
            *algo = order[i];
            *ws = need;
            return CUDNN_STATUS_SUCCESS;
        }
        if (i == 0)
            snprintf(first, sizeof(first), "%s", fdnn_fail_reason());
    }
    return FDNN_NOT_SUPPORTED("no convolution solver applies (first: %s)", first);
}

static cudnnStatus_t
conv_supports(const fdnn_graph_t *g, int idx)
{
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(gx_conv_problem(g, idx, &p));
    const fdnn_graph_node_t *n = &g->nodes[idx];
    int out = n->kind == FDNN_GOP_CONV_FWD        ? n->u.conv.y
              : n->kind == FDNN_GOP_CONV_BWD_DATA ? n->u.conv.x
                                                  : n->u.conv.w;
    /* out = alpha conv + beta out reads out: a virtual out has no value */
    if (n->u.conv.beta != 0 && g->tensors[out].is_virtual)
        return FDNN_NOT_SUPPORTED("node %d (%s): beta %g blends into a virtual output, which has no value", idx,
                                  fdnn_graph_op_name(n->kind), n->u.conv.beta);
    int algo;
    size_t ws;
    cudnnStatus_t st = gx_conv_pick(&p, &algo, &ws);
    if (st != CUDNN_STATUS_SUCCESS)
        return FDNN_NOT_SUPPORTED("node %d (%s): %s", idx, fdnn_graph_op_name(g->nodes[idx].kind), fdnn_fail_reason());
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
conv_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    fdnn_conv_problem_t p;
    int algo;
    RETURN_IF_ERROR(gx_conv_problem(g, idx, &p));
    return gx_conv_pick(&p, &algo, bytes);
}

static cudnnStatus_t
conv_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    const fdnn_graph_t *g = e->graph;
    const fdnn_gop_conv_t *c = &g->nodes[idx].u.conv;
    fdnn_conv_problem_t p;
    int algo;
    size_t ws;
    RETURN_IF_ERROR(gx_conv_problem(g, idx, &p));
    RETURN_IF_ERROR(gx_conv_pick(&p, &algo, &ws));
    fdnn_conv_exec_t x;
    memset(&x, 0, sizeof(x));
    x.handle = e->handle;
    x.p = &p;
    x.alpha = c->alpha;
    x.beta = c->beta;
    x.workspace = scratch;
    x.workspace_bytes = scratch_bytes;
    switch (p.dir) {
    case FDNN_CONV_FWD: x.x_in = ptr[c->x], x.w_in = ptr[c->w], x.out = ptr[c->y]; break;
    case FDNN_CONV_BWD_DATA: x.y_in = ptr[c->y], x.w_in = ptr[c->w], x.out = ptr[c->x]; break;
    case FDNN_CONV_BWD_FILTER: x.x_in = ptr[c->x], x.y_in = ptr[c->y], x.out = ptr[c->w]; break;
    }
    return fdnn_conv_run(&x, algo);
}

const gx_node_exec_t gx_conv_exec = {conv_supports, conv_scratch, conv_run};
