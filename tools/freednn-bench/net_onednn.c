/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench --net, the oneDNN side (oneDNN 2.x C API): the same network
 * as a chain of oneDNN primitives, given oneDNN's best honest setting:
 * every primitive picks its layouts ("any"), a tensor keeps the layout its
 * producer chose, weights live in the forward convolution's layout (reordered
 * once, outside the timing, as a framework that owns its weights would keep
 * them), and every other reorder a primitive asks for is inside the timed
 * step.  A tensor read by two layers gets its gradient summed: the second
 * writer writes a scratch tensor and a binary add folds it in.  The images
 * arrive as NCHW user data; the loss is computed on the host as on the
 * FreeDNN side. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include "net.h"

#define MAX_ARGS 10

/* A primitive to run, with the node and direction it serves (--profile) and
 * whether it is an auxiliary step: a reorder or a gradient sum. */
typedef struct step {
    dnnl_primitive_t prim;
    int nargs;
    dnnl_exec_arg_t args[MAX_ARGS];
    int node, dir;
    bool aux;
} step_t;

/* cur_*: the tags push() gives the next step (setup sets them per node). */
typedef struct step_list {
    step_t *v;
    int count, capacity;
    int cur_node, cur_dir;
    bool cur_aux;
} step_list_t;

/* A tensor of the network: its layout, data and gradient. */
typedef struct tens {
    dnnl_memory_desc_t md;
    dnnl_memory_t data, diff, tmp; /* tmp: a later writer's gradient */
    bool diff_written;             /* during setup: the backward order */
} tens_t;

typedef struct ctx {
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    const net_t *net;
    const net_run_t *run;
    tens_t *t;
    step_list_t fwd, bwd;
    /* everything to release at the end */
    dnnl_memory_t *mems;
    int nmems, cap_mems;
    dnnl_primitive_t *prims;
    int nprims, cap_prims;
    char why[160];
    size_t why_size;
    /* --profile: ms per primitive kind (forward list, backward list), and
     * per node (summed over the timed steps) */
    bool profiling;
    double kind_ms[2][32];
    net_node_prof_t *nodes;
    int timed_steps;
    struct node_state *ns;
} ctx_t;

static bool
ok(ctx_t *c, dnnl_status_t s, const char *what, int node)
{
    if (s != dnnl_success)
        snprintf(c->why, c->why_size, "oneDNN %s failed at node %d (status %d)", what, node, (int)s);
    return s == dnnl_success;
}

#define TRY(call, what)                                                                                           \
    do {                                                                                                          \
        if (!ok(c, (call), what, i))                                                                              \
            return false;                                                                                         \
    } while (0)

static bool
grow(void **v, int *cap, int count, size_t elem)
{
    if (count < *cap)
        return true;
    int n = *cap ? 2 * *cap : 64;
    void *p = realloc(*v, (size_t)n * elem);
    if (p == NULL)
        return false;
    *v = p;
    *cap = n;
    return true;
}

static dnnl_memory_t
new_mem(ctx_t *c, const dnnl_memory_desc_t *md)
{
    dnnl_memory_t m = NULL;
    if (!grow((void **)&c->mems, &c->cap_mems, c->nmems, sizeof(*c->mems)) ||
        dnnl_memory_create(&m, md, c->eng, DNNL_MEMORY_ALLOCATE) != dnnl_success)
        return NULL;
    void *h = NULL;
    dnnl_memory_get_data_handle(m, &h);
    memset(h, 0, dnnl_memory_desc_get_size(md));
    c->mems[c->nmems++] = m;
    return m;
}

static float *
host(dnnl_memory_t m)
{
    void *h = NULL;
    dnnl_memory_get_data_handle(m, &h);
    return h;
}

/* The primitive of a finished primitive descriptor; the descriptor stays
 * with the caller (queries, hints). */
static dnnl_primitive_t
new_prim(ctx_t *c, const_dnnl_primitive_desc_t pd)
{
    dnnl_primitive_t p = NULL;
    if (!grow((void **)&c->prims, &c->cap_prims, c->nprims, sizeof(*c->prims)) ||
        dnnl_primitive_create(&p, pd) != dnnl_success)
        return NULL;
    c->prims[c->nprims++] = p;
    return p;
}

static bool
push(step_list_t *l, dnnl_primitive_t p, int nargs, const dnnl_exec_arg_t *args)
{
    if (p == NULL || !grow((void **)&l->v, &l->capacity, l->count, sizeof(*l->v)))
        return false;
    step_t *s = &l->v[l->count++];
    s->prim = p;
    s->nargs = nargs;
    memcpy(s->args, args, (size_t)nargs * sizeof(*args));
    s->node = l->cur_node;
    s->dir = l->cur_dir;
    s->aux = l->cur_aux;
    return true;
}

/* A reorder step from `src` (layout src_md) to `dst` (dst_md), or none when
 * run_now: then it runs once here (setup, untimed). */
static bool
reorder(ctx_t *c, step_list_t *l, dnnl_memory_t src, const dnnl_memory_desc_t *src_md, dnnl_memory_t dst,
        const dnnl_memory_desc_t *dst_md, bool run_now)
{
    dnnl_primitive_desc_t pd;
    if (dnnl_reorder_primitive_desc_create(&pd, src_md, c->eng, dst_md, c->eng, NULL) != dnnl_success)
        return false;
    dnnl_primitive_t p = new_prim(c, pd);
    dnnl_primitive_desc_destroy(pd);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    if (run_now)
        return p != NULL && dnnl_primitive_execute(p, c->stream, 2, args) == dnnl_success &&
               dnnl_stream_wait(c->stream) == dnnl_success;
    l->cur_aux = true;
    bool good = push(l, p, 2, args);
    l->cur_aux = false;
    return good;
}

/* The memory a primitive reads as `want` for tensor memory `have` (layout
 * have_md): `have` itself, or a copy made by a reorder step. */
static dnnl_memory_t
input_as(ctx_t *c, step_list_t *l, dnnl_memory_t have, const dnnl_memory_desc_t *have_md,
         const dnnl_memory_desc_t *want)
{
    if (dnnl_memory_desc_equal(have_md, want))
        return have;
    dnnl_memory_t m = new_mem(c, want);
    return m != NULL && reorder(c, l, have, have_md, m, want, false) ? m : NULL;
}

/* Gradient writes into tensor t, in the backward order: the memory the
 * primitive writes (layout `md`), then diff_done() folds it into t's
 * gradient (a reorder when the layout differs, a binary add when an earlier
 * writer was there). */
static dnnl_memory_t
diff_target(ctx_t *c, int t, const dnnl_memory_desc_t *md)
{
    tens_t *x = &c->t[t];
    if (dnnl_memory_desc_equal(md, &x->md)) {
        if (!x->diff_written)
            return x->diff;
        if (x->tmp == NULL)
            x->tmp = new_mem(c, &x->md);
        return x->tmp;
    }
    return new_mem(c, md);
}

static bool
diff_done(ctx_t *c, int t, dnnl_memory_t written, const dnnl_memory_desc_t *md)
{
    tens_t *x = &c->t[t];
    bool first = !x->diff_written;
    x->diff_written = true;
    if (written == x->diff)
        return true;
    if (!dnnl_memory_desc_equal(md, &x->md)) {
        dnnl_memory_t into = x->diff;
        if (!first) {
            if (x->tmp == NULL && (x->tmp = new_mem(c, &x->md)) == NULL)
                return false;
            into = x->tmp;
        }
        if (!reorder(c, &c->bwd, written, md, into, &x->md, false))
            return false;
        written = into;
        if (first)
            return true;
    }
    dnnl_binary_desc_t bd;
    dnnl_primitive_desc_t pd;
    if (dnnl_binary_desc_init(&bd, dnnl_binary_add, &x->md, &x->md, &x->md) != dnnl_success ||
        dnnl_primitive_desc_create(&pd, &bd, NULL, c->eng, NULL) != dnnl_success)
        return false;
    dnnl_primitive_t p = new_prim(c, pd);
    dnnl_primitive_desc_destroy(pd);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC_0, x->diff}, {DNNL_ARG_SRC_1, written}, {DNNL_ARG_DST, x->diff}};
    c->bwd.cur_aux = true;
    bool good = push(&c->bwd, p, 3, args);
    c->bwd.cur_aux = false;
    return good;
}

static const dnnl_memory_desc_t *
query(const_dnnl_primitive_desc_t pd, dnnl_query_t what)
{
    return dnnl_primitive_desc_query_md(pd, what, 0);
}

static bool
make_tensor(ctx_t *c, int i, const dnnl_memory_desc_t *md)
{
    tens_t *x = &c->t[i];
    x->md = *md;
    x->data = new_mem(c, md);
    if (c->run->train)
        x->diff = new_mem(c, md);
    return x->data != NULL && (!c->run->train || x->diff != NULL);
}

static float
uniform(uint64_t *state, float bound)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return bound * ((float)(*state >> 40) / (float)(1u << 23) - 1.0f);
}

static void
fill(dnnl_memory_t m, const dnnl_memory_desc_t *md, float bound, float constant, uint64_t *state)
{
    float *p = host(m);
    size_t n = dnnl_memory_desc_get_size(md) / sizeof(float);
    for (size_t k = 0; k < n; k++)
        p[k] = bound > 0 ? uniform(state, bound) : constant;
}

/* What a node's forward leaves for its backward. */
typedef struct node_state {
    dnnl_primitive_desc_t fpd;
    dnnl_memory_t w, b, scale, mean, var, ws;
    dnnl_memory_t dw; /* the weight gradient, in the layout its primitive chose */
} node_state_t;

/* Convolution (NET_CONV) or inner product (NET_FC). */
static bool
weighted_forward(ctx_t *c, int i, node_state_t *ns, uint64_t *rng)
{
    const net_node_t *n = &c->net->nodes[i], *xn = &c->net->nodes[n->in[0]];
    tens_t *x = &c->t[n->in[0]];
    bool fc = n->op == NET_FC;
    dnnl_prop_kind_t prop = c->run->train ? dnnl_forward_training : dnnl_forward_inference;
    int g = n->groups, k = fc ? xn->h : n->k;
    dnnl_dims_t wd = {n->c, xn->c, k, k}, gwd = {g, n->c / g, xn->c / g, k, k};
    dnnl_dims_t yd = {c->run->mb, n->c, n->h, n->w}, bd = {n->c}, st = {n->stride, n->stride};
    dnnl_dims_t pad = {n->pad, n->pad};
    int wnd = g > 1 ? 5 : 4;
    dnnl_memory_desc_t w_any, y_any, x_any, b_md, w_user;
    TRY(dnnl_memory_desc_init_by_tag(&w_any, wnd, g > 1 ? gwd : wd, dnnl_f32, dnnl_format_tag_any), "weights md");
    TRY(dnnl_memory_desc_init_by_tag(&w_user, wnd, g > 1 ? gwd : wd, dnnl_f32, g > 1 ? dnnl_goihw : dnnl_oihw),
        "weights md");
    TRY(dnnl_memory_desc_init_by_tag(&y_any, fc ? 2 : 4, yd, dnnl_f32, fc ? dnnl_nc : dnnl_format_tag_any), "dst");
    TRY(dnnl_memory_desc_init_by_tag(&x_any, 4, x->md.dims, dnnl_f32, dnnl_format_tag_any), "src md");
    TRY(dnnl_memory_desc_init_by_tag(&b_md, 1, bd, dnnl_f32, dnnl_x), "bias md");
    if (fc) {
        dnnl_inner_product_desc_t d;
        TRY(dnnl_inner_product_forward_desc_init(&d, prop, &x_any, &w_any, &b_md, &y_any), "ip fwd desc");
        TRY(dnnl_primitive_desc_create(&ns->fpd, &d, NULL, c->eng, NULL), "ip fwd");
    } else {
        dnnl_convolution_desc_t d;
        TRY(dnnl_convolution_forward_desc_init(&d, prop, dnnl_convolution_direct, &x_any, &w_any, NULL, &y_any, st,
                                               pad, pad),
            "conv fwd desc");
        TRY(dnnl_primitive_desc_create(&ns->fpd, &d, NULL, c->eng, NULL), "conv fwd");
    }
    if (!make_tensor(c, i, query(ns->fpd, dnnl_query_dst_md)))
        return false;
    /* weights: user layout -> the forward's, once, untimed */
    const dnnl_memory_desc_t *w_md = query(ns->fpd, dnnl_query_weights_md);
    dnnl_memory_t w_plain = new_mem(c, &w_user);
    ns->w = new_mem(c, w_md);
    ns->b = fc ? new_mem(c, &b_md) : NULL;
    if (w_plain == NULL || ns->w == NULL || (fc && ns->b == NULL))
        return false;
    fill(w_plain, &w_user, 1.0f / sqrtf((float)(xn->c / g * k * k)), 0, rng);
    if (!reorder(c, NULL, w_plain, &w_user, ns->w, w_md, true))
        return false;
    dnnl_memory_t xin = input_as(c, &c->fwd, x->data, &x->md, query(ns->fpd, dnnl_query_src_md));
    dnnl_exec_arg_t fa[4] = {{DNNL_ARG_SRC, xin}, {DNNL_ARG_WEIGHTS, ns->w}, {DNNL_ARG_DST, c->t[i].data},
                             {DNNL_ARG_BIAS, ns->b}};
    return xin != NULL && push(&c->fwd, new_prim(c, ns->fpd), fc ? 4 : 3, fa);
}

static bool
weighted_backward(ctx_t *c, int i, node_state_t *ns)
{
    const net_node_t *n = &c->net->nodes[i];
    tens_t *x = &c->t[n->in[0]];
    bool fc = n->op == NET_FC;
    const dnnl_memory_desc_t *w_fwd = query(ns->fpd, dnnl_query_weights_md);
    dnnl_dims_t st = {n->stride, n->stride}, pad = {n->pad, n->pad}, bd = {n->c};
    dnnl_memory_desc_t x_any, b_md, w_any, y_any = *query(ns->fpd, dnnl_query_dst_md);
    dnnl_memory_desc_init_by_tag(&x_any, 4, x->md.dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&b_md, 1, bd, dnnl_f32, dnnl_x);
    dnnl_memory_desc_init_by_tag(&w_any, w_fwd->ndims, w_fwd->dims, dnnl_f32, dnnl_format_tag_any);
    if (!fc)
        dnnl_memory_desc_init_by_tag(&y_any, 4, y_any.dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_primitive_desc_t wpd = NULL, dpd = NULL;
    bool good;
    /* weights gradient (and the bias's) */
    c->bwd.cur_dir = NET_BWD_WEIGHTS;
    if (fc) {
        dnnl_inner_product_desc_t d;
        good = dnnl_inner_product_backward_weights_desc_init(&d, &x_any, &w_any, &b_md, &y_any) == dnnl_success &&
               dnnl_primitive_desc_create(&wpd, &d, NULL, c->eng, ns->fpd) == dnnl_success;
    } else {
        dnnl_convolution_desc_t d;
        good = dnnl_convolution_backward_weights_desc_init(&d, dnnl_convolution_direct, &x_any, &w_any, NULL, &y_any,
                                                            st, pad, pad) == dnnl_success &&
               dnnl_primitive_desc_create(&wpd, &d, NULL, c->eng, ns->fpd) == dnnl_success;
    }
    if (good) {
        dnnl_memory_t src = input_as(c, &c->bwd, x->data, &x->md, query(wpd, dnnl_query_src_md));
        dnnl_memory_t dy = input_as(c, &c->bwd, c->t[i].diff, &c->t[i].md, query(wpd, dnnl_query_diff_dst_md));
        dnnl_memory_t dw = ns->dw = new_mem(c, query(wpd, dnnl_query_diff_weights_md));
        dnnl_memory_t db = fc ? new_mem(c, &b_md) : NULL;
        dnnl_exec_arg_t wa[4] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_WEIGHTS, dw},
                                 {DNNL_ARG_DIFF_BIAS, db}};
        good = src != NULL && dy != NULL && dw != NULL && push(&c->bwd, new_prim(c, wpd), fc ? 4 : 3, wa);
    }
    /* data gradient, except for the images */
    c->bwd.cur_dir = NET_BWD_DATA;
    if (good && n->in[0] != 0) {
        if (fc) {
            dnnl_inner_product_desc_t d;
            good = dnnl_inner_product_backward_data_desc_init(&d, &x_any, &w_any, &y_any) == dnnl_success &&
                   dnnl_primitive_desc_create(&dpd, &d, NULL, c->eng, ns->fpd) == dnnl_success;
        } else {
            dnnl_convolution_desc_t d;
            good = dnnl_convolution_backward_data_desc_init(&d, dnnl_convolution_direct, &x_any, &w_any, &y_any, st,
                                                             pad, pad) == dnnl_success &&
                   dnnl_primitive_desc_create(&dpd, &d, NULL, c->eng, ns->fpd) == dnnl_success;
        }
        if (good) {
            const dnnl_memory_desc_t *dx_md = query(dpd, dnnl_query_diff_src_md);
            dnnl_memory_t wt = input_as(c, &c->bwd, ns->w, w_fwd, query(dpd, dnnl_query_weights_md));
            dnnl_memory_t dy = input_as(c, &c->bwd, c->t[i].diff, &c->t[i].md, query(dpd, dnnl_query_diff_dst_md));
            dnnl_memory_t dx = diff_target(c, n->in[0], dx_md);
            dnnl_exec_arg_t da[3] = {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_WEIGHTS, wt}, {DNNL_ARG_DIFF_SRC, dx}};
            good = wt != NULL && dy != NULL && dx != NULL && push(&c->bwd, new_prim(c, dpd), 3, da) &&
                   diff_done(c, n->in[0], dx, dx_md);
        }
    }
    if (dpd)
        dnnl_primitive_desc_destroy(dpd);
    if (wpd)
        dnnl_primitive_desc_destroy(wpd);
    return good;
}

/* The backward primitive `bpd` of a one-input op: args are extra[0..nextra)
 * + DIFF_DST + DIFF_SRC, the gradient folded into the input's. */
static bool
push_backward(ctx_t *c, int i, dnnl_primitive_desc_t bpd, dnnl_exec_arg_t *extra, int nextra)
{
    int a = c->net->nodes[i].in[0];
    const dnnl_memory_desc_t *dx_md = query(bpd, dnnl_query_diff_src_md);
    dnnl_memory_t dy = input_as(c, &c->bwd, c->t[i].diff, &c->t[i].md, query(bpd, dnnl_query_diff_dst_md));
    dnnl_memory_t dx = diff_target(c, a, dx_md);
    if (dy == NULL || dx == NULL)
        return false;
    extra[nextra] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, dy};
    extra[nextra + 1] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, dx};
    return push(&c->bwd, new_prim(c, bpd), nextra + 2, extra) && diff_done(c, a, dx, dx_md);
}

static const float bn_eps = 1e-5f;

/* BN node i: with its ReLU fused (net_bn_relu_fusable), the fuse_norm_relu
 * flag (a workspace of the ReLU's mask in training). */
static unsigned
bn_flags(const ctx_t *c, int i)
{
    unsigned relu = c->run->fuse && net_bn_relu_fusable(c->net, i) ? (unsigned)dnnl_fuse_norm_relu : 0u;
    return dnnl_use_scale | dnnl_use_shift | relu | (c->run->train ? 0u : dnnl_use_global_stats);
}

/* The ReLU after a fused BN: its tensor (data and gradient) is the BN's. */
static bool
relu_of_bn(ctx_t *c, int i)
{
    c->t[i] = c->t[i - 1];
    c->t[i].tmp = NULL;
    c->t[i].diff_written = false;
    return true;
}

static bool
bn_forward(ctx_t *c, int i, node_state_t *ns)
{
    const net_node_t *n = &c->net->nodes[i];
    tens_t *x = &c->t[n->in[0]];
    dnnl_batch_normalization_desc_t d;
    TRY(dnnl_batch_normalization_forward_desc_init(&d, c->run->train ? dnnl_forward_training : dnnl_forward_inference,
                                                   &x->md, bn_eps, bn_flags(c, i)),
        "bn fwd desc");
    TRY(dnnl_primitive_desc_create(&ns->fpd, &d, NULL, c->eng, NULL), "bn fwd");
    dnnl_memory_desc_t ch;
    dnnl_dims_t cd = {n->c};
    dnnl_memory_desc_init_by_tag(&ch, 1, cd, dnnl_f32, dnnl_x);
    ns->scale = new_mem(c, &ch);
    ns->b = new_mem(c, &ch);
    ns->mean = new_mem(c, &ch);
    ns->var = new_mem(c, &ch);
    if (!make_tensor(c, i, query(ns->fpd, dnnl_query_dst_md)) || !ns->scale || !ns->b || !ns->mean || !ns->var)
        return false;
    fill(ns->scale, &ch, 0, 1.0f, NULL);
    fill(ns->var, &ch, 0, 1.0f, NULL);
    dnnl_exec_arg_t fa[7] = {{DNNL_ARG_SRC, x->data},    {DNNL_ARG_DST, c->t[i].data}, {DNNL_ARG_SCALE, ns->scale},
                             {DNNL_ARG_SHIFT, ns->b},    {DNNL_ARG_MEAN, ns->mean},    {DNNL_ARG_VARIANCE, ns->var}};
    int nfa = 6;
    const dnnl_memory_desc_t *wmd = query(ns->fpd, dnnl_query_workspace_md);
    if (wmd != NULL && dnnl_memory_desc_get_size(wmd) > 0) { /* the fused ReLU's mask */
        if ((ns->ws = new_mem(c, wmd)) == NULL)
            return false;
        fa[nfa++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, ns->ws};
    }
    return push(&c->fwd, new_prim(c, ns->fpd), nfa, fa);
}

static bool
bn_backward(ctx_t *c, int i, node_state_t *ns)
{
    const net_node_t *n = &c->net->nodes[i];
    tens_t *x = &c->t[n->in[0]];
    dnnl_batch_normalization_desc_t bd;
    dnnl_primitive_desc_t bpd;
    TRY(dnnl_batch_normalization_backward_desc_init(&bd, dnnl_backward, &x->md, &x->md, bn_eps, bn_flags(c, i)),
        "bn bwd desc");
    TRY(dnnl_primitive_desc_create(&bpd, &bd, NULL, c->eng, ns->fpd), "bn bwd");
    dnnl_memory_desc_t ch;
    dnnl_dims_t cd = {n->c};
    dnnl_memory_desc_init_by_tag(&ch, 1, cd, dnnl_f32, dnnl_x);
    dnnl_memory_t dscale = new_mem(c, &ch), dshift = new_mem(c, &ch);
    dnnl_exec_arg_t ba[MAX_ARGS] = {{DNNL_ARG_SRC, x->data},       {DNNL_ARG_MEAN, ns->mean},
                                    {DNNL_ARG_VARIANCE, ns->var},  {DNNL_ARG_SCALE, ns->scale},
                                    {DNNL_ARG_DIFF_SCALE, dscale}, {DNNL_ARG_DIFF_SHIFT, dshift},
                                    {DNNL_ARG_SHIFT, ns->b}, {DNNL_ARG_WORKSPACE, ns->ws}};
    bool good = dscale && dshift && push_backward(c, i, bpd, ba, ns->ws != NULL ? 8 : 7);
    dnnl_primitive_desc_destroy(bpd);
    return good;
}

static dnnl_alg_kind_t
eltwise_alg(const net_node_t *n, float *alpha, float *beta)
{
    *alpha = 0.0f;
    *beta = n->op == NET_RELU ? 0.0f : 6.0f;
    return n->op == NET_RELU ? dnnl_eltwise_relu : dnnl_eltwise_clip;
}

static bool
eltwise_forward(ctx_t *c, int i, node_state_t *ns)
{
    tens_t *x = &c->t[c->net->nodes[i].in[0]];
    float alpha, beta;
    dnnl_alg_kind_t alg = eltwise_alg(&c->net->nodes[i], &alpha, &beta);
    dnnl_eltwise_desc_t d;
    TRY(dnnl_eltwise_forward_desc_init(&d, c->run->train ? dnnl_forward_training : dnnl_forward_inference, alg,
                                       &x->md, alpha, beta),
        "eltwise fwd desc");
    TRY(dnnl_primitive_desc_create(&ns->fpd, &d, NULL, c->eng, NULL), "eltwise fwd");
    if (!make_tensor(c, i, query(ns->fpd, dnnl_query_dst_md)))
        return false;
    dnnl_exec_arg_t fa[2] = {{DNNL_ARG_SRC, x->data}, {DNNL_ARG_DST, c->t[i].data}};
    return push(&c->fwd, new_prim(c, ns->fpd), 2, fa);
}

static bool
eltwise_backward(ctx_t *c, int i, node_state_t *ns)
{
    tens_t *x = &c->t[c->net->nodes[i].in[0]];
    float alpha, beta;
    dnnl_alg_kind_t alg = eltwise_alg(&c->net->nodes[i], &alpha, &beta);
    dnnl_eltwise_desc_t bd;
    dnnl_primitive_desc_t bpd;
    TRY(dnnl_eltwise_backward_desc_init(&bd, alg, &x->md, &x->md, alpha, beta), "eltwise bwd desc");
    TRY(dnnl_primitive_desc_create(&bpd, &bd, NULL, c->eng, ns->fpd), "eltwise bwd");
    dnnl_exec_arg_t ba[MAX_ARGS] = {{DNNL_ARG_SRC, x->data}};
    bool good = push_backward(c, i, bpd, ba, 1);
    dnnl_primitive_desc_destroy(bpd);
    return good;
}

/* Max pooling or global average pooling: the window and its geometry. */
static dnnl_alg_kind_t
pool_geometry(const ctx_t *c, int i, int64_t *kernel, int64_t *st, int64_t *pad)
{
    const net_node_t *n = &c->net->nodes[i];
    const tens_t *x = &c->t[n->in[0]];
    bool gap = n->op == NET_GAP;
    kernel[0] = gap ? x->md.dims[2] : n->k;
    kernel[1] = gap ? x->md.dims[3] : n->k;
    st[0] = st[1] = n->stride;
    pad[0] = pad[1] = n->pad;
    return gap ? dnnl_pooling_avg_include_padding : dnnl_pooling_max;
}

static bool
pool_forward(ctx_t *c, int i, node_state_t *ns)
{
    const net_node_t *n = &c->net->nodes[i];
    tens_t *x = &c->t[n->in[0]];
    dnnl_dims_t kernel, st, pad, dil = {0, 0}, yd = {c->run->mb, n->c, n->h, n->w};
    dnnl_alg_kind_t alg = pool_geometry(c, i, kernel, st, pad);
    dnnl_memory_desc_t y_any;
    dnnl_memory_desc_init_by_tag(&y_any, 4, yd, dnnl_f32, dnnl_format_tag_any);
    dnnl_pooling_v2_desc_t d;
    TRY(dnnl_pooling_v2_forward_desc_init(&d, c->run->train ? dnnl_forward_training : dnnl_forward_inference, alg,
                                          &x->md, &y_any, st, kernel, dil, pad, pad),
        "pooling fwd desc");
    TRY(dnnl_primitive_desc_create(&ns->fpd, &d, NULL, c->eng, NULL), "pooling fwd");
    if (!make_tensor(c, i, query(ns->fpd, dnnl_query_dst_md)))
        return false;
    const dnnl_memory_desc_t *ws_md = query(ns->fpd, dnnl_query_workspace_md);
    ns->ws = ws_md != NULL && ws_md->ndims > 0 ? new_mem(c, ws_md) : NULL;
    dnnl_exec_arg_t fa[3] = {{DNNL_ARG_SRC, x->data}, {DNNL_ARG_DST, c->t[i].data}, {DNNL_ARG_WORKSPACE, ns->ws}};
    return push(&c->fwd, new_prim(c, ns->fpd), ns->ws ? 3 : 2, fa);
}

static bool
pool_backward(ctx_t *c, int i, node_state_t *ns)
{
    tens_t *x = &c->t[c->net->nodes[i].in[0]];
    dnnl_dims_t kernel, st, pad, dil = {0, 0};
    dnnl_alg_kind_t alg = pool_geometry(c, i, kernel, st, pad);
    dnnl_pooling_v2_desc_t bd;
    dnnl_primitive_desc_t bpd;
    TRY(dnnl_pooling_v2_backward_desc_init(&bd, alg, &x->md, &c->t[i].md, st, kernel, dil, pad, pad),
        "pooling bwd desc");
    TRY(dnnl_primitive_desc_create(&bpd, &bd, NULL, c->eng, ns->fpd), "pooling bwd");
    dnnl_exec_arg_t ba[MAX_ARGS] = {{DNNL_ARG_WORKSPACE, ns->ws}};
    bool good = push_backward(c, i, bpd, ba, ns->ws ? 1 : 0);
    dnnl_primitive_desc_destroy(bpd);
    return good;
}

static bool
add_forward(ctx_t *c, int i, node_state_t *ns)
{
    const net_node_t *n = &c->net->nodes[i];
    tens_t *a = &c->t[n->in[0]], *b = &c->t[n->in[1]];
    dnnl_binary_desc_t d;
    TRY(dnnl_binary_desc_init(&d, dnnl_binary_add, &a->md, &b->md, &a->md), "binary desc");
    TRY(dnnl_primitive_desc_create(&ns->fpd, &d, NULL, c->eng, NULL), "binary");
    if (net_add_in_place(c->net, i)) {
        /* dst = src0: the sum over in[0], which nothing else reads, and its
         * gradient is in[0]'s (net.h); in[1]'s too when the add is its
         * only reader */
        tens_t *t = &c->t[i];
        t->md = a->md;
        t->data = a->data;
        t->diff = a->diff;
        if (c->run->train && net_add_shares_second(c->net, i) && dnnl_memory_desc_equal(&b->md, &a->md))
            b->diff = a->diff;
    } else if (!make_tensor(c, i, &a->md)) {
        return false;
    }
    dnnl_exec_arg_t fa[3] = {{DNNL_ARG_SRC_0, a->data}, {DNNL_ARG_SRC_1, b->data}, {DNNL_ARG_DST, c->t[i].data}};
    return push(&c->fwd, new_prim(c, ns->fpd), 3, fa);
}

/* Both inputs get the sum's gradient as it is: a copy for a first writer,
 * a binary add for a later one. */
static bool
add_backward(ctx_t *c, int i)
{
    const net_node_t *n = &c->net->nodes[i];
    for (int k = 0; k < 2; k++) {
        int t = n->in[k];
        bool good;
        if (c->t[t].diff == c->t[i].diff) { /* shared (add_forward): nothing to copy */
            c->t[t].diff_written = true;
            continue;
        }
        if (!c->t[t].diff_written && dnnl_memory_desc_equal(&c->t[t].md, &c->t[i].md))
            good = reorder(c, &c->bwd, c->t[i].diff, &c->t[i].md, c->t[t].diff, &c->t[t].md, false) &&
                   diff_done(c, t, c->t[t].diff, &c->t[t].md);
        else
            good = diff_done(c, t, c->t[i].diff, &c->t[i].md);
        if (!good)
            return false;
    }
    return true;
}

/* Runs a step list; on failure says which step and implementation. */
static bool
run_steps(ctx_t *c, const step_list_t *l, const char *which)
{
    int dir = l == &c->bwd;
    for (int k = 0; k < l->count; k++) {
        double t0 = c->profiling ? net_clock_ms(c->run) : 0;
        dnnl_status_t st = dnnl_primitive_execute(l->v[k].prim, c->stream, l->v[k].nargs, l->v[k].args);
        if (c->profiling && st == dnnl_success) {
            const_dnnl_primitive_desc_t pd = NULL;
            dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
            dnnl_stream_wait(c->stream);
            double ms = net_clock_ms(c->run) - t0;
            if (dnnl_primitive_get_primitive_desc(l->v[k].prim, &pd) == dnnl_success)
                dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &kind);
            c->kind_ms[dir][(unsigned)kind < 32 ? (unsigned)kind : 0] += ms;
            net_node_prof_t *np = &c->nodes[l->v[k].node];
            np->ms[l->v[k].dir] += ms;
            if (l->v[k].aux)
                np->aux_ms[l->v[k].dir] += ms;
        }
        if (st != dnnl_success) {
            const_dnnl_primitive_desc_t pd = NULL;
            const char *impl = "?";
            if (dnnl_primitive_get_primitive_desc(l->v[k].prim, &pd) == dnnl_success)
                dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
            int bad = -1;
            for (int a = 0; pd != NULL && a < l->v[k].nargs; a++) {
                const dnnl_memory_desc_t *want =
                    dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, l->v[k].args[a].arg);
                const dnnl_memory_desc_t *have = NULL;
                if (l->v[k].args[a].memory == NULL ||
                    dnnl_memory_get_memory_desc(l->v[k].args[a].memory, &have) != dnnl_success || want == NULL ||
                    !dnnl_memory_desc_equal(want, have))
                    bad = l->v[k].args[a].arg;
            }
            snprintf(c->why, c->why_size, "oneDNN %s step %d of %d (%s) failed with status %d (arg %d)", which, k,
                     l->count, impl, (int)st, bad);
            return false;
        }
    }
    return dnnl_stream_wait(c->stream) == dnnl_success;
}

/* Cross-entropy of the logits (plain N x classes) and its gradient; for
 * inference the mean logit, as the FreeDNN side reports. */
static double
host_loss(ctx_t *c)
{
    int last = c->net->count - 1, classes = c->net->nodes[last].c, mb = c->run->mb;
    const float *y = host(c->t[last].data);
    if (!c->run->train) {
        double sum = 0;
        for (size_t k = 0; k < (size_t)mb * classes; k++)
            sum += y[k];
        return sum / ((double)mb * classes);
    }
    float *g = c->run->train ? host(c->t[last].diff) : NULL;
    double sum = 0;
    for (int b = 0; b < mb; b++) {
        const float *row = y + (size_t)b * classes;
        float m = row[0];
        for (int k = 1; k < classes; k++)
            m = row[k] > m ? row[k] : m;
        double z = 0;
        for (int k = 0; k < classes; k++)
            z += exp((double)(row[k] - m));
        int label = (b * 37) % classes;
        sum += log(z) - (row[label] - m);
        for (int k = 0; g != NULL && k < classes; k++)
            g[(size_t)b * classes + k] =
                (float)((exp((double)(row[k] - m)) / z - (k == label ? 1.0 : 0.0)) / mb);
    }
    return sum / mb;
}

/* Forward steps in node order, then backward steps in reverse node order
 * (which also decides, per tensor, which gradient writer comes first). */
static bool
setup(ctx_t *c, node_state_t *ns)
{
    const net_t *net = c->net;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int i = 0;
    dnnl_dims_t xd = {c->run->mb, net->nodes[0].c, net->nodes[0].h, net->nodes[0].w};
    dnnl_memory_desc_t x_md;
    TRY(dnnl_memory_desc_init_by_tag(&x_md, 4, xd, dnnl_f32, dnnl_nchw), "input md");
    c->t[0].md = x_md;
    if ((c->t[0].data = new_mem(c, &x_md)) == NULL)
        return false;
    fill(c->t[0].data, &x_md, 1.0f, 0, &rng);
    for (i = 1; i < net->count; i++) {
        bool good = false;
        c->fwd.cur_node = i;
        c->fwd.cur_dir = NET_FWD;
        switch (net->nodes[i].op) {
        case NET_CONV:
        case NET_FC:
            good = weighted_forward(c, i, &ns[i], &rng);
            break;
        case NET_BN:
            good = bn_forward(c, i, &ns[i]);
            break;
        case NET_RELU:
        case NET_RELU6:
            good = c->run->fuse && net_bn_relu_fusable(net, i - 1) ? relu_of_bn(c, i) : eltwise_forward(c, i, &ns[i]);
            break;
        case NET_MAXPOOL:
        case NET_GAP:
            good = pool_forward(c, i, &ns[i]);
            break;
        case NET_ADD:
            good = add_forward(c, i, &ns[i]);
            break;
        default:
            break;
        }
        if (!good)
            goto fail;
    }
    for (i = net->count - 1; c->run->train && i >= 1; i--) {
        bool good = false;
        c->bwd.cur_node = i;
        c->bwd.cur_dir = NET_BWD_DATA;
        switch (net->nodes[i].op) {
        case NET_CONV:
        case NET_FC:
            good = weighted_backward(c, i, &ns[i]);
            break;
        case NET_BN:
            good = bn_backward(c, i, &ns[i]);
            break;
        case NET_RELU:
        case NET_RELU6:
            /* a fused one: in the BN's backward, which reads its gradient */
            good = c->run->fuse && net_bn_relu_fusable(net, i - 1) ? true : eltwise_backward(c, i, &ns[i]);
            break;
        case NET_MAXPOOL:
        case NET_GAP:
            good = pool_backward(c, i, &ns[i]);
            break;
        case NET_ADD:
            good = add_backward(c, i);
            break;
        default:
            break;
        }
        if (!good)
            goto fail;
    }
    return true;
fail:
    if (c->why[0] == '\0')
        snprintf(c->why, c->why_size, "oneDNN setup failed at node %d (%s)", i, net_op_name(net->nodes[i].op));
    return false;
}

static void
free_ctx(ctx_t *c)
{
    for (int k = 0; k < c->nprims; k++)
        dnnl_primitive_destroy(c->prims[k]);
    for (int k = 0; k < c->nmems; k++)
        dnnl_memory_destroy(c->mems[k]);
    free(c->prims);
    free(c->mems);
    free(c->fwd.v);
    free(c->bwd.v);
    for (int k = 0; c->ns != NULL && k < c->net->count; k++)
        if (c->ns[k].fpd)
            dnnl_primitive_desc_destroy(c->ns[k].fpd);
    free(c->ns);
    free(c->t);
    free(c->nodes);
    if (c->stream)
        dnnl_stream_destroy(c->stream);
    if (c->eng)
        dnnl_engine_destroy(c->eng);
    free(c);
}

/* One step: the forward, the loss on the host, the backward. */
static bool
onednn_step(void *side, double *ms, net_result_t *r)
{
    ctx_t *c = side;
    c->profiling = c->run->profile && ms != NULL;
    double t0 = net_clock_ms(c->run);
    bool good = run_steps(c, &c->fwd, "forward");
    if (good)
        r->check = host_loss(c);
    good = good && (!c->run->train || run_steps(c, &c->bwd, "backward"));
    if (!good) {
        snprintf(r->why, sizeof(r->why), "%s", c->why);
        return false;
    }
    if (ms != NULL) {
        *ms = net_clock_ms(c->run) - t0;
        c->timed_steps++;
    }
    return true;
}

static void *
onednn_open(const net_t *net, const net_run_t *run, net_result_t *r)
{
    ctx_t *c = calloc(1, sizeof(ctx_t));
    if (c == NULL) {
        snprintf(r->why, sizeof(r->why), "out of memory");
        return NULL;
    }
    c->net = net;
    c->run = run;
    c->why_size = sizeof(c->why);
    omp_set_num_threads(run->threads);
    c->t = calloc((size_t)net->count, sizeof(tens_t));
    c->ns = calloc((size_t)net->count, sizeof(node_state_t));
    c->nodes = calloc((size_t)net->count, sizeof(net_node_prof_t));
    if (c->t == NULL || c->ns == NULL || c->nodes == NULL || dnnl_engine_create(&c->eng, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&c->stream, c->eng, dnnl_stream_default_flags) != dnnl_success) {
        snprintf(r->why, sizeof(r->why), "cannot create the oneDNN engine");
        free_ctx(c);
        return NULL;
    }
    if (!setup(c, c->ns) || !onednn_step(c, NULL, r)) { /* then one warm-up step */
        snprintf(r->why, sizeof(r->why), "%s", c->why);
        free_ctx(c);
        return NULL;
    }
    return c;
}

/* The implementation names of a node's main primitives, per direction. */
static void
name_impls(const ctx_t *c, const step_list_t *l, net_node_prof_t *nodes)
{
    for (int k = 0; k < l->count; k++) {
        const_dnnl_primitive_desc_t pd = NULL;
        const char *impl = NULL;
        if (l->v[k].aux || dnnl_primitive_get_primitive_desc(l->v[k].prim, &pd) != dnnl_success ||
            dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || impl == NULL)
            continue;
        snprintf(nodes[l->v[k].node].impl[l->v[k].dir], sizeof(nodes->impl[0]), "%s", impl);
    }
    (void)c;
}

static void
onednn_close(void *side, net_result_t *r, net_node_prof_t *nodes)
{
    ctx_t *c = side;
    const net_t *net = c->net;
    /* padded layouts hold zeros beyond the dims: they add nothing */
    r->grad_norm = 0;
    for (int i = 0; c->run->train && i < net->count; i++) {
        const dnnl_memory_desc_t *md = NULL;
        if (c->ns[i].dw == NULL || dnnl_memory_get_memory_desc(c->ns[i].dw, &md) != dnnl_success)
            continue;
        const float *g = host(c->ns[i].dw);
        for (size_t k = 0, n = dnnl_memory_desc_get_size(md) / sizeof(float); k < n; k++)
            r->grad_norm += (double)g[k] * g[k];
    }
    r->grad_norm = sqrt(r->grad_norm);
    double steps = c->timed_steps > 0 ? c->timed_steps : 1;
    if (c->run->profile) {
        printf("# oneDNN profile, ms per step:");
        for (int d = 0; d < 2; d++)
            for (int k = 0; k < 32; k++)
                if (c->kind_ms[d][k] > 0)
                    printf(" %s.%s=%.1f", dnnl_prim_kind2str((dnnl_primitive_kind_t)k), d ? "bwd" : "fwd",
                           c->kind_ms[d][k] / steps);
        printf("\n");
    }
    if (nodes != NULL) {
        for (int i = 0; i < net->count; i++) {
            nodes[i] = c->nodes[i];
            for (int d = 0; d < NET_DIRS; d++) {
                nodes[i].ms[d] /= steps;
                nodes[i].aux_ms[d] /= steps;
                nodes[i].algo[d] = -1;
            }
        }
        name_impls(c, &c->fwd, nodes);
        name_impls(c, &c->bwd, nodes);
    }
    free_ctx(c);
}

const net_side_api_t net_onednn_api = {onednn_open, onednn_step, onednn_close};
