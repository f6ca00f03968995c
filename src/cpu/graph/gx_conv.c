/* SPDX-License-Identifier: Apache-2.0
 * Convolution nodes (forward, backward data, backward filter) through the
 * legacy solvers: the node becomes one fdnn_conv_problem_t, the algorithm is
 * the first applicable one in the order cudnnGet*Algorithm_v7 answers (the
 * registry's order, direct first where the registry prefers it), and
 * fdnn_conv_run runs it with its workspace in the graph's scratch.  FP8
 * operands run as FLOAT through copies (gx_stage.c). */
#include <stdio.h>
#include <string.h>

#include "core/conv.h"
#include "core/conv_config.h"
#include "core/conv_solver.h"
#include "core/ckd.h"
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

/* The legacy problem of conv node idx with operands x, w, y (the graph's,
 * or their FLOAT copies for FP8 operands) and compute type ct. */
static cudnnStatus_t
problem_of(const fdnn_graph_t *g, int idx, const fdnn_graph_tensor_t *x, const fdnn_graph_tensor_t *w,
           const fdnn_graph_tensor_t *y, cudnnDataType_t ct, fdnn_conv_problem_t *p)
{
    const fdnn_graph_node_t *node = &g->nodes[idx];
    const fdnn_gop_conv_t *c = &node->u.conv;
    const char *kname = fdnn_graph_op_name(node->kind);
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
    cudnnStatus_t st = fdnn_conv_config_classify((int)dir, x->dtype, w->dtype, ct, y->dtype, &cfg);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fdnn_conv_config_check((int)dir, cfg);
    if (st != CUDNN_STATUS_SUCCESS) {
        char why[256]; /* FDNN_NOT_SUPPORTED rewrites the reason: copy it */
        snprintf(why, sizeof(why), "%s", fdnn_fail_reason());
        return FDNN_NOT_SUPPORTED("node %d (%s): data types x %s, w %s, y %s with compute type %s: %s", idx, kname,
                                  gx_dtype_name(x->dtype), gx_dtype_name(w->dtype), gx_dtype_name(y->dtype),
                                  gx_dtype_name(ct), why);
    }
    memset(p, 0, sizeof(*p));
    p->dir = dir;
    p->dtype = x->dtype;
    p->config = cfg;
    p->x_dtype = x->dtype;
    p->w_dtype = w->dtype;
    p->y_dtype = y->dtype;
    p->compute_type = ct;
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
gx_conv_problem(const fdnn_graph_t *g, int idx, fdnn_conv_problem_t *p)
{
    const fdnn_gop_conv_t *c = &g->nodes[idx].u.conv;
    return problem_of(g, idx, &g->tensors[c->x], &g->tensors[c->w], &g->tensors[c->y], c->compute_type, p);
}

/* The problem the conv node runs: gx_conv_problem's, or with FP8 operands
 * (cuDNN 8.9: FP8 storage, FLOAT compute; FAST_FLOAT_FOR_FP8 is FP8's
 * faster FLOAT accumulation, here plain FLOAT) the FLOAT problem of their
 * copies (*staged). */
static cudnnStatus_t
node_problem(const fdnn_graph_t *g, int idx, fdnn_conv_problem_t *p, bool *staged)
{
    const fdnn_gop_conv_t *c = &g->nodes[idx].u.conv;
    const char *kname = fdnn_graph_op_name(g->nodes[idx].kind);
    const fdnn_graph_tensor_t *x = &g->tensors[c->x], *w = &g->tensors[c->w], *y = &g->tensors[c->y];
    *staged = gx_is_fp8(x->dtype) || gx_is_fp8(w->dtype) || gx_is_fp8(y->dtype);
    if (!*staged) {
        if (c->compute_type == CUDNN_DATA_FAST_FLOAT_FOR_FP8)
            return FDNN_NOT_SUPPORTED("node %d (%s): compute type FAST_FLOAT_FOR_FP8 without FP8 operands", idx,
                                      kname);
        return gx_conv_problem(g, idx, p);
    }
    if (c->compute_type != CUDNN_DATA_FLOAT && c->compute_type != CUDNN_DATA_FAST_FLOAT_FOR_FP8)
        return FDNN_NOT_SUPPORTED("node %d (%s): FP8 operands with compute type %s; FP8 computes in FLOAT "
                                  "(or FAST_FLOAT_FOR_FP8)",
                                  idx, kname, gx_dtype_name(c->compute_type));
    const fdnn_graph_tensor_t *ops[3] = {x, w, y};
    for (int i = 0; i < 3; i++)
        if (!gx_is_fp8(ops[i]->dtype) && ops[i]->dtype != CUDNN_DATA_FLOAT)
            return FDNN_NOT_SUPPORTED("node %d (%s): x %s, w %s, y %s: with FP8 operands the others are FP8 or "
                                      "FLOAT",
                                      idx, kname, gx_dtype_name(x->dtype), gx_dtype_name(w->dtype),
                                      gx_dtype_name(y->dtype));
    fdnn_graph_tensor_t fx, fw, fy;
    gx_stage_retype(x, &fx);
    gx_stage_retype(w, &fw);
    gx_stage_retype(y, &fy);
    return problem_of(g, idx, &fx, &fw, &fy, CUDNN_DATA_FLOAT, p);
}

/* Scratch bytes of the FLOAT copies of x, w, y (0 for those not FP8). */
static cudnnStatus_t
stage_bytes(const fdnn_graph_t *g, int idx, size_t b[3], size_t *total)
{
    const fdnn_gop_conv_t *c = &g->nodes[idx].u.conv;
    const int t[3] = {c->x, c->w, c->y};
    *total = 0;
    for (int i = 0; i < 3; i++)
        if (!gx_stage_bytes(&g->tensors[t[i]], &b[i]) || !fdnn_ckd_add_size(*total, b[i], total))
            return FDNN_NOT_SUPPORTED("node %d (%s): the FLOAT copies of the FP8 operands overflow the workspace "
                                      "size",
                                      idx, fdnn_graph_op_name(g->nodes[idx].kind));
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

/* The algorithm of conv node idx (problem p): solver `solver` of the
 * ordered list when it is not 0 (the conv-solver engines), else the
 * heuristic's first applicable one; NOT_SUPPORTED with the solver's reason
 * when the chosen one declines. */
static cudnnStatus_t
pick_for(const fdnn_graph_t *g, int idx, const fdnn_conv_problem_t *p, int solver, int *algo, size_t *ws)
{
    const char *kname = fdnn_graph_op_name(g->nodes[idx].kind);
    char why[256]; /* reasons are rewritten by FDNN_NOT_SUPPORTED: copy them */
    if (solver == 0) {
        cudnnStatus_t st = gx_conv_pick(p, algo, ws);
        if (st != CUDNN_STATUS_SUCCESS) {
            snprintf(why, sizeof(why), "%s", fdnn_fail_reason());
            return FDNN_NOT_SUPPORTED("node %d (%s): %s", idx, kname, why);
        }
        return st;
    }
    const fdnn_conv_solver_t *s = fdnn_conv_solver_by_id(solver);
    if (s == NULL)
        return FDNN_NOT_SUPPORTED("node %d (%s): no convolution solver has id %d", idx, kname, solver);
    if (s->dir != p->dir)
        return FDNN_NOT_SUPPORTED("node %d (%s): solver %s runs another direction", idx, kname, s->name);
    if (fdnn_conv_algo_check(p, s->algo, ws) != CUDNN_STATUS_SUCCESS) {
        snprintf(why, sizeof(why), "%s", fdnn_fail_reason());
        return FDNN_NOT_SUPPORTED("node %d (%s): solver %s declines: %s", idx, kname, s->name, why);
    }
    *algo = s->algo;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_conv_solver_order(const fdnn_graph_t *g, int idx, int *ids, int *n)
{
    fdnn_conv_problem_t p;
    bool staged;
    int order[16];
    *n = 0;
    RETURN_IF_ERROR(node_problem(g, idx, &p, &staged));
    fdnn_conv_heuristic_order(&p, order);
    for (int i = 0; i < fdnn_conv_algo_count(p.dir); i++) {
        const fdnn_conv_solver_t *s = fdnn_conv_solver_for(p.dir, order[i], NULL);
        if (s != NULL)
            ids[(*n)++] = s->id;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_conv_supports_solver(const fdnn_graph_t *g, int idx, int solver)
{
    fdnn_conv_problem_t p;
    bool staged;
    RETURN_IF_ERROR(node_problem(g, idx, &p, &staged));
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
    return pick_for(g, idx, &p, solver, &algo, &ws);
}

/* Scratch: the FLOAT copies of FP8 operands, then the solver's workspace. */
cudnnStatus_t
gx_conv_scratch_solver(const fdnn_graph_t *g, int idx, int solver, size_t *bytes)
{
    fdnn_conv_problem_t p;
    int algo;
    bool staged;
    size_t sb[3], stage, ws;
    RETURN_IF_ERROR(node_problem(g, idx, &p, &staged));
    RETURN_IF_ERROR(stage_bytes(g, idx, sb, &stage));
    RETURN_IF_ERROR(pick_for(g, idx, &p, solver, &algo, &ws));
    if (!fdnn_ckd_add_size(stage, ws, bytes))
        return FDNN_NOT_SUPPORTED("node %d (%s): the scratch size overflows", idx,
                                  fdnn_graph_op_name(g->nodes[idx].kind));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_conv_run_solver(const fdnn_graph_exec_t *e, void **ptr, int idx, int solver, void *scratch, size_t scratch_bytes)
{
    const fdnn_graph_t *g = e->graph;
    const fdnn_gop_conv_t *c = &g->nodes[idx].u.conv;
    fdnn_conv_problem_t p;
    int algo;
    size_t ws, sb[3], stage;
    bool staged;
    RETURN_IF_ERROR(node_problem(g, idx, &p, &staged));
    RETURN_IF_ERROR(pick_for(g, idx, &p, solver, &algo, &ws));
    RETURN_IF_ERROR(stage_bytes(g, idx, sb, &stage));
    /* x, w, y: the graph's buffers, or the FLOAT copies of FP8 operands at
     * the start of the scratch */
    const int t[3] = {c->x, c->w, c->y};
    void *buf[3];
    char *at = scratch;
    int out = p.dir == FDNN_CONV_FWD ? 2 : p.dir == FDNN_CONV_BWD_DATA ? 0 : 1;
    for (int i = 0; i < 3; i++) {
        const fdnn_graph_tensor_t *ti = &g->tensors[t[i]];
        buf[i] = ptr[t[i]];
        if (sb[i] == 0)
            continue;
        buf[i] = at;
        at += sb[i];
        if (i != out || c->beta != 0)
            gx_stage_load(ti, ptr[t[i]], buf[i]);
    }
    fdnn_conv_exec_t x;
    memset(&x, 0, sizeof(x));
    x.handle = e->handle;
    x.p = &p;
    x.alpha = c->alpha;
    x.beta = c->beta;
    x.workspace = at;
    x.workspace_bytes = scratch_bytes - stage;
    switch (p.dir) {
    case FDNN_CONV_FWD: x.x_in = buf[0], x.w_in = buf[1], x.out = buf[2]; break;
    case FDNN_CONV_BWD_DATA: x.y_in = buf[2], x.w_in = buf[1], x.out = buf[0]; break;
    case FDNN_CONV_BWD_FILTER: x.x_in = buf[0], x.y_in = buf[2], x.out = buf[1]; break;
    }
    cudnnStatus_t st = fdnn_conv_run(&x, algo);
    if (st == CUDNN_STATUS_SUCCESS && sb[out] != 0)
        gx_stage_store(&g->tensors[t[out]], buf[out], ptr[t[out]]);
    (void)staged;
    return st;
}

static cudnnStatus_t
conv_supports(const fdnn_graph_t *g, int idx)
{
    return gx_conv_supports_solver(g, idx, 0);
}

static cudnnStatus_t
conv_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    return gx_conv_scratch_solver(g, idx, 0, bytes);
}

static cudnnStatus_t
conv_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    return gx_conv_run_solver(e, ptr, idx, 0, scratch, scratch_bytes);
}

const gx_node_exec_t gx_conv_exec = {conv_supports, conv_scratch, conv_run};
