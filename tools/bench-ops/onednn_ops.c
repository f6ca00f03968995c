/* SPDX-License-Identifier: Apache-2.0
 * The same cases through oneDNN (C API of oneDNN 2.x), given the user's
 * NCHW or NHWC tensors.  Two honest settings are timed and the better one
 * kept: the primitive run directly on the user's layout, and the primitive
 * run on oneDNN's blocked layout (nChw16c) with the reorders from and to the
 * user's layout counted, as a cuDNN user holding NCHW data would pay them. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "bench.h"

#define MAX_STEPS 4
#define MAX_ARGS 8

typedef struct step {
    dnnl_primitive_t prim;
    int nargs;
    dnnl_exec_arg_t args[MAX_ARGS];
} step_t;

typedef struct plan {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    int nsteps;
    step_t steps[MAX_STEPS];
    dnnl_memory_t mems[16];
    int nmems;
} plan_t;

static int
ok(dnnl_status_t s, const char *what)
{
    if (s != dnnl_success) {
        fprintf(stderr, "bench-ops: oneDNN %s failed (%d)\n", what, (int)s);
        return 0;
    }
    return 1;
}

static dnnl_memory_t
plan_memory(plan_t *p, const dnnl_memory_desc_t *md)
{
    dnnl_memory_t m = NULL;
    if (!ok(dnnl_memory_create(&m, md, p->engine, DNNL_MEMORY_ALLOCATE), "memory_create"))
        return NULL;
    p->mems[p->nmems++] = m;
    /* Touch the memory so page faults are not timed. */
    void *h = NULL;
    dnnl_memory_get_data_handle(m, &h);
    memset(h, 0, dnnl_memory_desc_get_size(md));
    float *f = h;
    size_t n = dnnl_memory_desc_get_size(md) / sizeof(float);
    for (size_t i = 0; i < n; i++)
        f[i] = (float)((i * 2654435761u) % 1000) * 0.001f - 0.5f;
    return m;
}

static int
plan_add(plan_t *p, const_dnnl_op_desc_t op, dnnl_primitive_desc_t *pd_out)
{
    dnnl_primitive_desc_t pd;
    if (!ok(dnnl_primitive_desc_create(&pd, op, NULL, p->engine, NULL), "primitive_desc_create"))
        return 0;
    step_t *s = &p->steps[p->nsteps++];
    if (!ok(dnnl_primitive_create(&s->prim, pd), "primitive_create"))
        return 0;
    *pd_out = pd;
    return 1;
}

static int
plan_reorder(plan_t *p, dnnl_memory_t from, dnnl_memory_t to)
{
    const dnnl_memory_desc_t *a, *b;
    dnnl_memory_get_memory_desc(from, &a);
    dnnl_memory_get_memory_desc(to, &b);
    dnnl_primitive_desc_t pd;
    if (!ok(dnnl_reorder_primitive_desc_create(&pd, a, p->engine, b, p->engine, NULL), "reorder"))
        return 0;
    step_t *s = &p->steps[p->nsteps++];
    if (!ok(dnnl_primitive_create(&s->prim, pd), "primitive_create"))
        return 0;
    dnnl_primitive_desc_destroy(pd);
    s->nargs = 2;
    s->args[0] = (dnnl_exec_arg_t){DNNL_ARG_FROM, from};
    s->args[1] = (dnnl_exec_arg_t){DNNL_ARG_TO, to};
    return 1;
}

static void
plan_run(void *ctx)
{
    plan_t *p = ctx;
    for (int i = 0; i < p->nsteps; i++)
        dnnl_primitive_execute(p->steps[i].prim, p->stream, p->steps[i].nargs, p->steps[i].args);
    dnnl_stream_wait(p->stream);
}

static void
plan_free(plan_t *p)
{
    for (int i = 0; i < p->nsteps; i++)
        dnnl_primitive_destroy(p->steps[i].prim);
    for (int i = 0; i < p->nmems; i++)
        dnnl_memory_destroy(p->mems[i]);
    dnnl_stream_destroy(p->stream);
    dnnl_engine_destroy(p->engine);
}

/* Builds the plan of case `c` with the operation on layout `op_tag`
 * (reorders added when it differs from the user's layout). */
static int
build(plan_t *p, const bench_case_t *c, dnnl_format_tag_t user_tag, dnnl_format_tag_t op_tag)
{
    memset(p, 0, sizeof(*p));
    if (!ok(dnnl_engine_create(&p->engine, dnnl_cpu, 0), "engine") ||
        !ok(dnnl_stream_create(&p->stream, p->engine, dnnl_stream_default_flags), "stream"))
        return 0;
    int ndims = c->kind == CASE_SOFTMAX ? 2 : 4;
    dnnl_dims_t xd = {c->mb, c->ic, c->ih, c->iw};
    dnnl_dims_t yd = {c->mb, c->ic, c->ih, c->iw};
    if (c->kind == CASE_POOL) {
        yd[2] = (c->ih + 2 * c->ph - c->kh) / c->sh + 1;
        yd[3] = (c->iw + 2 * c->pw - c->kw) / c->sw + 1;
    }
    dnnl_memory_desc_t ux, uy, ox, oy;
    dnnl_memory_desc_init_by_tag(&ux, ndims, xd, dnnl_f32, user_tag);
    dnnl_memory_desc_init_by_tag(&uy, ndims, yd, dnnl_f32, user_tag);
    dnnl_memory_desc_init_by_tag(&ox, ndims, xd, dnnl_f32, op_tag);
    dnnl_memory_desc_init_by_tag(&oy, ndims, yd, dnnl_f32, op_tag);
    dnnl_memory_t mux = plan_memory(p, &ux), muy = plan_memory(p, &uy);
    dnnl_memory_t mox = mux, moy = muy;
    int reorder = user_tag != op_tag;
    if (reorder) {
        mox = plan_memory(p, &ox);
        moy = plan_memory(p, &oy);
        if (!plan_reorder(p, mux, mox))
            return 0;
    }
    dnnl_primitive_desc_t pd = NULL;
    step_t *s = &p->steps[p->nsteps];
    switch (c->kind) {
    case CASE_POOL: {
        dnnl_pooling_v2_desc_t d;
        dnnl_dims_t st = {c->sh, c->sw}, k = {c->kh, c->kw}, dil = {0, 0}, pl = {c->ph, c->pw};
        dnnl_dims_t pr = {(yd[2] - 1) * c->sh + c->kh - c->ih - c->ph, (yd[3] - 1) * c->sw + c->kw - c->iw - c->pw};
        if (!ok(dnnl_pooling_v2_forward_desc_init(&d, dnnl_forward_inference,
                                                  c->avg ? dnnl_pooling_avg_exclude_padding : dnnl_pooling_max,
                                                  &ox, &oy, st, k, dil, pl, pr), "pooling desc") ||
            !plan_add(p, &d, &pd))
            return 0;
        s->nargs = 2;
        s->args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, mox};
        s->args[1] = (dnnl_exec_arg_t){DNNL_ARG_DST, moy};
        break;
    }
    case CASE_BNORM_TRAIN:
    case CASE_BNORM_INFER: {
        int train = c->kind == CASE_BNORM_TRAIN;
        dnnl_batch_normalization_desc_t d;
        unsigned flags = dnnl_use_scaleshift | (train ? 0 : dnnl_use_global_stats);
        if (!ok(dnnl_batch_normalization_forward_desc_init(&d, train ? dnnl_forward_training : dnnl_forward_inference,
                                                           &ox, 1e-5f, flags), "bnorm desc") ||
            !plan_add(p, &d, &pd))
            return 0;
        dnnl_memory_desc_t md_ss, md_stat;
        dnnl_dims_t ssd = {2, c->ic}, std_ = {c->ic};
        dnnl_memory_desc_init_by_tag(&md_ss, 2, ssd, dnnl_f32, dnnl_nc);
        dnnl_memory_desc_init_by_tag(&md_stat, 1, std_, dnnl_f32, dnnl_a);
        dnnl_memory_t ss = plan_memory(p, &md_ss), mean = plan_memory(p, &md_stat), var = plan_memory(p, &md_stat);
        s->nargs = 5;
        s->args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, mox};
        s->args[1] = (dnnl_exec_arg_t){DNNL_ARG_DST, moy};
        s->args[2] = (dnnl_exec_arg_t){DNNL_ARG_SCALE_SHIFT, ss};
        s->args[3] = (dnnl_exec_arg_t){DNNL_ARG_MEAN, mean};
        s->args[4] = (dnnl_exec_arg_t){DNNL_ARG_VARIANCE, var};
        break;
    }
    case CASE_SOFTMAX: {
        dnnl_softmax_v2_desc_t d;
        if (!ok(dnnl_softmax_v2_forward_desc_init(&d, dnnl_forward_inference, dnnl_softmax_accurate, &ox, &oy, 1),
                "softmax desc") ||
            !plan_add(p, &d, &pd))
            return 0;
        s->nargs = 2;
        s->args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, mox};
        s->args[1] = (dnnl_exec_arg_t){DNNL_ARG_DST, moy};
        break;
    }
    case CASE_RELU: {
        dnnl_eltwise_desc_t d;
        if (!ok(dnnl_eltwise_forward_desc_init(&d, dnnl_forward_inference, dnnl_eltwise_relu, &ox, 0.f, 0.f),
                "eltwise desc") ||
            !plan_add(p, &d, &pd))
            return 0;
        s->nargs = 2;
        s->args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, mox};
        s->args[1] = (dnnl_exec_arg_t){DNNL_ARG_DST, moy};
        break;
    }
    }
    /* A workspace, if the primitive wants one (max pooling for training). */
    const dnnl_memory_desc_t *ws = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    if (ws != NULL && dnnl_memory_desc_get_size(ws) > 0)
        s->args[s->nargs++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, plan_memory(p, ws)};
    dnnl_primitive_desc_destroy(pd);
    if (reorder && !plan_reorder(p, moy, muy))
        return 0;
    return 1;
}

double
onednn_case_ms(const bench_case_t *c, int threads, const char **how)
{
    omp_set_num_threads(threads);
    dnnl_format_tag_t user = c->kind == CASE_SOFTMAX ? dnnl_nc : c->nhwc ? dnnl_nhwc : dnnl_nchw;
    dnnl_format_tag_t blocked = c->kind == CASE_SOFTMAX ? dnnl_nc : dnnl_nChw16c;
    double best = -1;
    *how = "n/a";
    for (int variant = 0; variant < 2; variant++) {
        dnnl_format_tag_t op = variant == 0 ? user : blocked;
        if (variant == 1 && op == user)
            continue;
        plan_t p;
        if (build(&p, c, user, op)) {
            double ms = bench_median_ms(plan_run, &p);
            if (best < 0 || ms < best) {
                best = ms;
                *how = variant == 0 ? "user layout" : "nChw16c+reorders";
            }
        }
        plan_free(&p);
    }
    return best;
}
