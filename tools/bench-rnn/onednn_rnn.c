/* SPDX-License-Identifier: Apache-2.0
 * bench-rnn's oneDNN side (C API of oneDNN 2.x): the FP32 LSTM and
 * linear-before-reset GRU primitives (cuDNN's GRU is the linear-before-reset
 * form) on the same shapes.  The user holds plain weights (ldigo) and time-
 * major data (tnc), as a cuDNN user does; the weights are reordered into the
 * primitive's preferred layout (format any) inside the timed region, and in
 * training the gradients of the weights back into ldigo, so what a user
 * pays per call is counted.  Training is a forward_training run and the
 * backward primitive (data and weights in one). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "bench_rnn.h"

#define MAX_ARGS 24

typedef struct exec {
    dnnl_primitive_t prim;
    int nargs;
    dnnl_exec_arg_t args[MAX_ARGS];
} exec_t;

typedef struct onednn_rnn {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    exec_t steps[8];
    int nsteps, nfwd; /* steps[0 .. nfwd) are the forward's (reorders and primitive) */
    dnnl_memory_t zero_dw[3]; /* diff weights to clear before the backward (it accumulates) */
    int nzero;
    dnnl_memory_t mems[48];
    int nmems;
    bool failed;
} onednn_rnn_t;

static void
ck(onednn_rnn_t *o, dnnl_status_t s, const char *what)
{
    if (s != dnnl_success && !o->failed) {
        fprintf(stderr, "bench-rnn: oneDNN %s failed (%d)\n", what, (int)s);
        o->failed = true;
    }
}

static dnnl_memory_t
mem(onednn_rnn_t *o, const dnnl_memory_desc_t *md)
{
    dnnl_memory_t m = NULL;
    ck(o, dnnl_memory_create(&m, md, o->engine, DNNL_MEMORY_ALLOCATE), "memory_create");
    if (m == NULL)
        return NULL;
    o->mems[o->nmems++] = m;
    void *h = NULL;
    dnnl_memory_get_data_handle(m, &h);
    size_t n = dnnl_memory_desc_get_size(md) / sizeof(float);
    float *f = h;
    for (size_t i = 0; i < n; i++) /* touched, so page faults are not timed */
        f[i] = (float)((i * 2654435761u) % 1000) * 0.0001f - 0.05f;
    return m;
}

static void
add_reorder(onednn_rnn_t *o, dnnl_memory_t from, dnnl_memory_t to)
{
    const dnnl_memory_desc_t *a, *b;
    dnnl_memory_get_memory_desc(from, &a);
    dnnl_memory_get_memory_desc(to, &b);
    dnnl_primitive_desc_t pd;
    ck(o, dnnl_reorder_primitive_desc_create(&pd, a, o->engine, b, o->engine, NULL), "reorder pd");
    if (o->failed)
        return;
    exec_t *e = &o->steps[o->nsteps++];
    ck(o, dnnl_primitive_create(&e->prim, pd), "reorder");
    dnnl_primitive_desc_destroy(pd);
    e->nargs = 2;
    e->args[0] = (dnnl_exec_arg_t){DNNL_ARG_FROM, from};
    e->args[1] = (dnnl_exec_arg_t){DNNL_ARG_TO, to};
}

static void
md(dnnl_memory_desc_t *d, int nd, const dnnl_dims_t dims, dnnl_format_tag_t tag)
{
    dnnl_memory_desc_init_by_tag(d, nd, dims, dnnl_f32, tag);
}

/* The memory of a primitive's query (weights layout, workspace). */
static dnnl_memory_t
queried(onednn_rnn_t *o, const_dnnl_primitive_desc_t pd, dnnl_query_t what, int index)
{
    const dnnl_memory_desc_t *q = dnnl_primitive_desc_query_md(pd, what, index);
    return q != NULL && dnnl_memory_desc_get_size(q) > 0 ? mem(o, q) : NULL;
}

static void
setup(onednn_rnn_t *o, bool lstm, int T, int B, int in, int H, bool train)
{
    memset(o, 0, sizeof(*o));
    ck(o, dnnl_engine_create(&o->engine, dnnl_cpu, 0), "engine");
    ck(o, dnnl_stream_create(&o->stream, o->engine, dnnl_stream_default_flags), "stream");
    int G = lstm ? 4 : 3, GB = lstm ? 4 : 4; /* lbr GRU: 4 bias gates */
    dnnl_memory_desc_t src, st, wl_user, wi_user, wl_any, wi_any, bias, dst, wl_anyb, wi_anyb;
    md(&src, 3, (dnnl_dims_t){T, B, in}, dnnl_tnc);
    md(&dst, 3, (dnnl_dims_t){T, B, H}, dnnl_tnc);
    md(&st, 4, (dnnl_dims_t){1, 1, B, H}, dnnl_ldnc);
    md(&wl_user, 5, (dnnl_dims_t){1, 1, in, G, H}, dnnl_ldigo);
    md(&wi_user, 5, (dnnl_dims_t){1, 1, H, G, H}, dnnl_ldigo);
    md(&wl_any, 5, (dnnl_dims_t){1, 1, in, G, H}, dnnl_format_tag_any);
    md(&wi_any, 5, (dnnl_dims_t){1, 1, H, G, H}, dnnl_format_tag_any);
    wl_anyb = wl_any, wi_anyb = wi_any;
    md(&bias, 4, (dnnl_dims_t){1, 1, GB, H}, dnnl_ldgo);
    dnnl_prop_kind_t prop = train ? dnnl_forward_training : dnnl_forward_inference;
    dnnl_rnn_desc_t fd;
    dnnl_rnn_direction_t dir = dnnl_unidirectional_left2right;
    if (lstm)
        ck(o, dnnl_lstm_forward_desc_init(&fd, prop, dir, &src, &st, &st, &wl_any, &wi_any, &bias, &dst, &st, &st, 0),
           "lstm desc");
    else
        ck(o, dnnl_lbr_gru_forward_desc_init(&fd, prop, dir, &src, &st, &wl_any, &wi_any, &bias, &dst, &st, 0),
           "gru desc");
    dnnl_primitive_desc_t fpd = NULL;
    ck(o, dnnl_primitive_desc_create(&fpd, &fd, NULL, o->engine, NULL), "rnn pd");
    if (o->failed)
        return;
    dnnl_memory_t m_src = mem(o, &src), m_dst = mem(o, &dst), m_hx = mem(o, &st), m_cx = mem(o, &st);
    dnnl_memory_t m_hy = mem(o, &st), m_cy = mem(o, &st), m_bias = mem(o, &bias);
    dnnl_memory_t m_wl_user = mem(o, &wl_user), m_wi_user = mem(o, &wi_user);
    dnnl_memory_t m_wl = queried(o, fpd, dnnl_query_weights_md, 0), m_wi = queried(o, fpd, dnnl_query_weights_md, 1);
    dnnl_memory_t m_ws = train ? queried(o, fpd, dnnl_query_workspace_md, 0) : NULL;
    add_reorder(o, m_wl_user, m_wl);
    add_reorder(o, m_wi_user, m_wi);
    exec_t *e = &o->steps[o->nsteps++];
    ck(o, dnnl_primitive_create(&e->prim, fpd), "rnn");
    int n = 0;
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_LAYER, m_src};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_ITER, m_hx};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS_LAYER, m_wl};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS_ITER, m_wi};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, m_bias};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST_LAYER, m_dst};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST_ITER, m_hy};
    if (lstm) {
        e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_ITER_C, m_cx};
        e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST_ITER_C, m_cy};
    }
    if (m_ws)
        e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, m_ws};
    e->nargs = n;
    o->nfwd = o->nsteps;
    if (!train) {
        dnnl_primitive_desc_destroy(fpd);
        return;
    }
    /* Backward: data and weights. */
    dnnl_rnn_desc_t bd;
    if (lstm)
        ck(o, dnnl_lstm_backward_desc_init(&bd, dnnl_backward, dir, &src, &st, &st, &wl_anyb, &wi_anyb, &bias, &dst,
                                           &st, &st, &src, &st, &st, &wl_anyb, &wi_anyb, &bias, &dst, &st, &st, 0),
           "lstm bwd desc");
    else
        ck(o, dnnl_lbr_gru_backward_desc_init(&bd, dnnl_backward, dir, &src, &st, &wl_anyb, &wi_anyb, &bias, &dst,
                                              &st, &src, &st, &wl_anyb, &wi_anyb, &bias, &dst, &st, 0),
           "gru bwd desc");
    dnnl_primitive_desc_t bpd = NULL;
    ck(o, dnnl_primitive_desc_create(&bpd, &bd, NULL, o->engine, fpd), "rnn bwd pd");
    if (o->failed)
        return;
    dnnl_memory_t b_wl = queried(o, bpd, dnnl_query_weights_md, 0), b_wi = queried(o, bpd, dnnl_query_weights_md, 1);
    dnnl_memory_t d_wl = queried(o, bpd, dnnl_query_diff_weights_md, 0);
    dnnl_memory_t d_wi = queried(o, bpd, dnnl_query_diff_weights_md, 1);
    dnnl_memory_t d_bias = mem(o, &bias), d_src = mem(o, &src), d_dst = mem(o, &dst);
    dnnl_memory_t d_hx = mem(o, &st), d_cx = mem(o, &st), d_hy = mem(o, &st), d_cy = mem(o, &st);
    dnnl_memory_t d_wl_user = mem(o, &wl_user), d_wi_user = mem(o, &wi_user);
    add_reorder(o, m_wl_user, b_wl);
    add_reorder(o, m_wi_user, b_wi);
    o->zero_dw[o->nzero++] = d_wl, o->zero_dw[o->nzero++] = d_wi, o->zero_dw[o->nzero++] = d_bias;
    e = &o->steps[o->nsteps++];
    ck(o, dnnl_primitive_create(&e->prim, bpd), "rnn bwd");
    n = 0;
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_LAYER, m_src};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_ITER, m_hx};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS_LAYER, b_wl};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS_ITER, b_wi};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, m_bias};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST_LAYER, m_dst};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST_ITER, m_hy};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, m_ws};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC_LAYER, d_src};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC_ITER, d_hx};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_WEIGHTS_LAYER, d_wl};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_WEIGHTS_ITER, d_wi};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_BIAS, d_bias};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST_LAYER, d_dst};
    e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST_ITER, d_hy};
    if (lstm) {
        e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_ITER_C, m_cx};
        e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST_ITER_C, m_cy};
        e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC_ITER_C, d_cx};
        e->args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST_ITER_C, d_cy};
    }
    e->nargs = n;
    add_reorder(o, d_wl, d_wl_user);
    add_reorder(o, d_wi, d_wi_user);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(bpd);
}

static void
run(void *arg)
{
    onednn_rnn_t *o = arg;
    for (int i = 0; i < o->nzero; i++) { /* the backward accumulates into the weight gradients */
        void *h = NULL;
        const dnnl_memory_desc_t *d;
        dnnl_memory_get_data_handle(o->zero_dw[i], &h);
        dnnl_memory_get_memory_desc(o->zero_dw[i], &d);
        memset(h, 0, dnnl_memory_desc_get_size(d));
    }
    bench_phase(2); /* the clearing: part of the backward's cost */
    for (int i = 0; i < o->nsteps; i++) {
        ck(o, dnnl_primitive_execute(o->steps[i].prim, o->stream, o->steps[i].nargs, o->steps[i].args), "execute");
        if (i + 1 == o->nfwd) {
            dnnl_stream_wait(o->stream);
            bench_phase(0);
        }
    }
    dnnl_stream_wait(o->stream);
    bench_phase(2);
}

static void
teardown(onednn_rnn_t *o)
{
    for (int i = 0; i < o->nsteps; i++)
        dnnl_primitive_destroy(o->steps[i].prim);
    for (int i = 0; i < o->nmems; i++)
        dnnl_memory_destroy(o->mems[i]);
    if (o->stream)
        dnnl_stream_destroy(o->stream);
    if (o->engine)
        dnnl_engine_destroy(o->engine);
}

void
bench_onednn_init(int threads)
{
    omp_set_num_threads(threads);
}

bench_time_t
bench_onednn_rnn(bool lstm, int T, int B, int in, int H, bool train)
{
    onednn_rnn_t *o = calloc(1, sizeof(*o));
    setup(o, lstm, T, B, in, H, train);
    bench_time_t t = {0, 0, {0}};
    if (!o->failed)
        t = bench_time(run, o);
    if (o->failed)
        t = (bench_time_t){0, 0, {0}};
    teardown(o);
    free(o);
    return t;
}
