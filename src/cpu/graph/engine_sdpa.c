/* SPDX-License-Identifier: Apache-2.0
 * Scaled dot-product attention as one engine: the forward graph cuDNN
 * 8.9's frontend builds for it,
 *
 *     S = Q x K^T          (matmul; K^T a tensor [B, H, D, Sk], any strides)
 *     score chain          (gx_sdpa.h: scale, causal mask, padding mask)
 *     P = softmax(S)       (reduction MAX, SUB, EXP, reduction ADD, DIV)
 *     stats = max + log(sum)   (optional: LOG, ADD into a [B,H,Sq,1] FLOAT
 *                          output, the training forward's softmax stats)
 *     P = P x M x scale    (optional dropout, gx_sdpa.h)
 *     O = P x V            (matmul)
 *
 * and, when the graph is a backward one, engine_sdpa_bwd.c's.  Forward
 * runs per (batch, head, block of 64 query rows): the head's K^T and V are
 * packed into float tiles (HALF / BFLOAT16 convert there), then each row
 * streams over blocks of keys with online softmax (gx_sdpa_kern.inc): the
 * S x S matrix never exists; memory is O(S d) per task.  Intermediates are
 * FP32 whatever the virtual tensors' types say (the accumulation type).
 * Results differ from the node-by-node engine by rounding only (the softmax
 * is summed in another order); test_graph_sdpa states the tolerance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/pool.h"
#include "cpu/graph/engines.h"
#include "cpu/graph/graph_exec.h"
#include "cpu/graph/gx_sdpa.h"

#define QUERY_BLOCK 64

typedef struct sdpa {
    gx_sdpa_chain_t chain;
    gx_sdpa_dropout_t drop;
    int v, o, stats;
    int64_t b, h, sq, sk, d;
} sdpa_t;

#define NO(...) FDNN_NOT_SUPPORTED("sdpa engine: " __VA_ARGS__)

/* 4-D of an attention I/O type, batch and head dims those of O or 1. */
static bool
head_tensor(const fdnn_graph_tensor_t *t, const fdnn_graph_tensor_t *o, int64_t r, int64_t c)
{
    if (t->ndim != 4 || !gx_sdpa_io_type(t->dtype) || t->by_value || t->dims[2] != r || t->dims[3] != c)
        return false;
    for (int d = 0; d < 2; d++)
        if (t->dims[d] != o->dims[d] && t->dims[d] != 1)
            return false;
    return true;
}

/* The node that reads tensor t with mode `mode` and `other` as its other
 * operand (x or b), or -1. */
static int
consumer_pw(const fdnn_graph_t *g, int t, cudnnPointwiseMode_t mode, int *other)
{
    for (int i = 0; i < g->nnodes; i++) {
        if (!gx_sdpa_is_pw(g, i, mode))
            continue;
        const fdnn_gop_pointwise_t *p = &g->nodes[i].u.pointwise;
        if (p->x == t) {
            *other = p->b;
            return i;
        }
        if (p->b == t) {
            *other = p->x;
            return i;
        }
    }
    return -1;
}

static cudnnStatus_t
match(const fdnn_graph_t *g, sdpa_t *a)
{
    memset(a, 0, sizeof(*a));
    a->stats = FDNN_GRAPH_NONE;
    bool *used = calloc((size_t)(g->nnodes > 0 ? g->nnodes : 1), sizeof(bool));
    if (used == NULL)
        return FDNN_ALLOC_FAILED("sdpa engine: out of memory");
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
#define FAIL(...)                \
    do {                         \
        st = NO(__VA_ARGS__);    \
        goto done;               \
    } while (0)
    /* The output matmul: its output is not virtual. */
    int mm2 = -1;
    for (int i = 0; i < g->nnodes; i++)
        if (g->nodes[i].kind == FDNN_GOP_MATMUL && !g->tensors[g->nodes[i].u.matmul.c].is_virtual)
            mm2 = i;
    if (mm2 < 0)
        FAIL("no matmul writes a graph output (not attention)");
    used[mm2] = true;
    const fdnn_gop_matmul_t *pv = &g->nodes[mm2].u.matmul;
    if (pv->compute_type != CUDNN_DATA_FLOAT)
        FAIL("node %d (matmul): compute type %s (FLOAT is done)", mm2, gx_dtype_name(pv->compute_type));
    a->v = pv->b;
    a->o = pv->c;
    int pt;
    st = gx_sdpa_match_dropout(g, pv->a, &pt, &a->drop, used);
    if (st != CUDNN_STATUS_SUCCESS)
        goto done;
    int div = gx_sdpa_producer(g, pt);
    if (!gx_sdpa_is_pw(g, div, CUDNN_POINTWISE_DIV))
        FAIL("node %d (matmul): its A is not the DIV of a softmax (nor a dropout of it)", mm2);
    const fdnn_gop_pointwise_t *pdiv = &g->nodes[div].u.pointwise;
    int exp_n = gx_sdpa_producer(g, pdiv->x), sum_n = gx_sdpa_producer(g, pdiv->b);
    if (!gx_sdpa_is_pw(g, exp_n, CUDNN_POINTWISE_EXP) || !gx_sdpa_is_red(g, sum_n, CUDNN_REDUCE_TENSOR_ADD) ||
        g->nodes[sum_n].u.reduction.x != pdiv->x)
        FAIL("node %d (pointwise DIV): not exp(s) / sum(exp(s))", div);
    int sub = gx_sdpa_producer(g, g->nodes[exp_n].u.pointwise.x);
    if (!gx_sdpa_is_pw(g, sub, CUDNN_POINTWISE_SUB))
        FAIL("node %d (pointwise EXP): its input is not s - max(s)", exp_n);
    const fdnn_gop_pointwise_t *psub = &g->nodes[sub].u.pointwise;
    int max_n = gx_sdpa_producer(g, psub->b);
    if (!gx_sdpa_is_red(g, max_n, CUDNN_REDUCE_TENSOR_MAX) || g->nodes[max_n].u.reduction.x != psub->x)
        FAIL("node %d (pointwise SUB): not s - max(s)", sub);
    used[div] = used[exp_n] = used[sum_n] = used[sub] = used[max_n] = true;
    /* the stats: max + log(sum), when the graph writes them */
    int lsum = -1, other = -1;
    int log_n = consumer_pw(g, pdiv->b, CUDNN_POINTWISE_LOG, &other);
    if (log_n >= 0) {
        int add_n = consumer_pw(g, g->nodes[log_n].u.pointwise.y, CUDNN_POINTWISE_ADD, &other);
        if (add_n < 0 || other != psub->b)
            FAIL("node %d (pointwise LOG): the stats are max + log(sum) (an ADD of the max)", log_n);
        lsum = add_n;
        used[log_n] = used[add_n] = true;
        a->stats = g->nodes[add_n].u.pointwise.y;
        const fdnn_graph_tensor_t *s = &g->tensors[a->stats];
        if (s->is_virtual || s->dtype != CUDNN_DATA_FLOAT)
            FAIL("node %d (pointwise ADD): the stats output must be a FLOAT graph output", add_n);
    }
    (void)lsum;
    st = gx_sdpa_match_chain(g, psub->x, &a->chain, used);
    if (st != CUDNN_STATUS_SUCCESS)
        goto done;
    int nused = 0;
    for (int i = 0; i < g->nnodes; i++)
        nused += used[i];
    if (nused != g->nnodes)
        FAIL("the graph has %d nodes, the attention pattern %d", g->nnodes, nused);
    const int outs[2] = {a->o, a->stats};
    st = gx_sdpa_only_outputs(g, outs, a->stats == FDNN_GRAPH_NONE ? 1 : 2);
    if (st != CUDNN_STATUS_SUCCESS)
        goto done;
    const fdnn_graph_tensor_t *q = &g->tensors[a->chain.q], *kt = &g->tensors[a->chain.kt], *v = &g->tensors[a->v],
                              *o = &g->tensors[a->o];
    if (o->ndim != 4 || !gx_sdpa_io_type(o->dtype))
        FAIL("O must be 4-D FLOAT, HALF or BFLOAT16");
    a->b = o->dims[0], a->h = o->dims[1], a->sq = o->dims[2], a->d = o->dims[3], a->sk = kt->dims[3];
    if (!head_tensor(q, o, a->sq, a->d) || !head_tensor(kt, o, a->d, a->sk) || !head_tensor(v, o, a->sk, a->d))
        FAIL("Q [B,H,Sq,D], K^T [B,H,D,Sk], V [B,H,Sk,D], O [B,H,Sq,D] (FLOAT, HALF or BFLOAT16; batch and head "
             "dims equal or 1) do not chain");
    if (a->d > GX_SDPA_MAX_HEAD_DIM || a->d <= 0 || a->sk <= 0)
        FAIL("head dim %lld (1 to %d are done)", (long long)a->d, GX_SDPA_MAX_HEAD_DIM);
    if (!gx_sdpa_row_shaped(g, g->nodes[max_n].u.reduction.y, a->b, a->h, a->sq) ||
        !gx_sdpa_row_shaped(g, g->nodes[sum_n].u.reduction.y, a->b, a->h, a->sq))
        FAIL("nodes %d, %d (reductions): the softmax must reduce the keys only (outputs [B,H,Sq,1])", max_n, sum_n);
    size_t nf;
    if (!gx_sdpa_tile_floats(QUERY_BLOCK, a->sq, a->sk, a->d, false, &nf))
        FAIL("the tiles of one task overflow (Sk %lld, D %lld)", (long long)a->sk, (long long)a->d);
    if (a->stats != FDNN_GRAPH_NONE) {
        const fdnn_graph_tensor_t *s = &g->tensors[a->stats];
        if (s->ndim != 4 || s->dims[0] != a->b || s->dims[1] != a->h || s->dims[2] != a->sq || s->dims[3] != 1)
            FAIL("the stats output must be [B,H,Sq,1]");
    }
    if (a->drop.on) {
        const fdnn_graph_tensor_t *m = &g->tensors[a->drop.mask_t];
        if (m->dims[0] != a->b || m->dims[1] != a->h || m->dims[2] != a->sq || m->dims[3] != a->sk)
            FAIL("the dropout mask must be [B,H,Sq,Sk]");
    }
#undef FAIL
done:
    free(used);
    return st;
}

static cudnnStatus_t
layout(const fdnn_graph_t *g, gx_layout_t *lay)
{
    bool *none = calloc((size_t)(g->ntensors > 0 ? g->ntensors : 1), sizeof(bool));
    lay->tensor_offset = malloc(sizeof(size_t) * (size_t)(g->ntensors > 0 ? g->ntensors : 1));
    if (none == NULL || lay->tensor_offset == NULL) {
        free(none);
        free(lay->tensor_offset);
        return FDNN_ALLOC_FAILED("sdpa engine: out of memory for the layout");
    }
    cudnnStatus_t st = gx_layout_init(g, none, 0, lay);
    free(none);
    if (st != CUDNN_STATUS_SUCCESS)
        free(lay->tensor_offset);
    return st;
}

/* Backward graphs (three graph outputs written by matmuls) go to
 * engine_sdpa_bwd.c. */
static bool
is_backward(const fdnn_graph_t *g)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++)
        n += g->nodes[i].kind == FDNN_GOP_MATMUL && !g->tensors[g->nodes[i].u.matmul.c].is_virtual;
    return n >= 3;
}

cudnnStatus_t
gx_sdpa_supports(const fdnn_graph_t *g)
{
    if (is_backward(g))
        return gx_sdpa_bwd_supports(g);
    sdpa_t a;
    return match(g, &a);
}

cudnnStatus_t
gx_sdpa_workspace(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs, size_t *bytes)
{
    (void)knobs;
    if (is_backward(g))
        return gx_sdpa_bwd_workspace(g, bytes);
    sdpa_t a;
    gx_layout_t lay;
    RETURN_IF_ERROR(match(g, &a));
    RETURN_IF_ERROR(layout(g, &lay));
    *bytes = lay.total;
    free(lay.tensor_offset);
    return CUDNN_STATUS_SUCCESS;
}

typedef struct run {
    const fdnn_graph_t *g;
    const sdpa_t *a;
    void **ptr;
    gx_sdpa_fwd_fn fwd;
    int64_t nqb;
    int failed;
} run_t;

/* One task: batch b, head h, query rows [i0, i0 + QUERY_BLOCK). */
static void
block_task(void *ctx, size_t t)
{
    run_t *c = ctx;
    const sdpa_t *a = c->a;
    const fdnn_graph_t *g = c->g;
    int64_t qb = (int64_t)t % c->nqb, bh = (int64_t)t / c->nqb, h = bh % a->h, b = bh / a->h;
    int64_t i0 = qb * QUERY_BLOCK, nr = a->sq - i0 < QUERY_BLOCK ? a->sq - i0 : QUERY_BLOCK;
    int64_t ldd = GX_SDPA_LD_D(a->d), ldk = GX_SDPA_LD_K(a->sk);
    size_t nf;
    gx_sdpa_tile_floats(nr, a->sq, a->sk, a->d, false, &nf); /* checked by match */
    float *buf = fdnn_aligned_alloc(nf * sizeof(float));
    if (buf == NULL) {
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *kt = buf, *v = kt + a->d * ldk, *q = v + a->sk * ldd, *o = q + nr * ldd, *lse = o + nr * ldd;
    /* K^T [D][Sk] with zeroed key padding */
    gx_sdpa_pack(&g->tensors[a->chain.kt], c->ptr[a->chain.kt], b, h, 0, a->d, a->sk, false, kt, ldk);
    gx_sdpa_pack(&g->tensors[a->v], c->ptr[a->v], b, h, 0, a->sk, a->d, false, v, ldd);
    gx_sdpa_pack(&g->tensors[a->chain.q], c->ptr[a->chain.q], b, h, i0, nr, a->d, false, q, ldd);
    gx_sdpa_mods_t m;
    gx_sdpa_mods_init(g, c->ptr, &a->chain, &a->drop, b, h, a->h, a->sq, a->sk, &m);
    c->fwd(&m, i0, nr, a->sk, a->d, q, kt, v, o, lse);
    gx_sdpa_unpack(&g->tensors[a->o], c->ptr[a->o], b, h, i0, nr, a->d, false, o, ldd);
    if (a->stats != FDNN_GRAPH_NONE) {
        const fdnn_graph_tensor_t *s = &g->tensors[a->stats];
        float *sp = c->ptr[a->stats];
        for (int64_t r = 0; r < nr; r++)
            sp[b * s->strides[0] + h * s->strides[1] + (i0 + r) * s->strides[2]] = lse[r];
    }
    fdnn_aligned_free(buf);
}

cudnnStatus_t
gx_sdpa_execute(const fdnn_graph_exec_t *e)
{
    const fdnn_graph_t *g = e->graph;
    if (is_backward(g))
        return gx_sdpa_bwd_execute(e);
    sdpa_t a;
    gx_layout_t lay;
    void **ptr;
    RETURN_IF_ERROR(match(g, &a));
    RETURN_IF_ERROR(layout(g, &lay));
    cudnnStatus_t st = gx_bind(e, &lay, &ptr);
    free(lay.tensor_offset);
    RETURN_IF_ERROR(st);
    run_t c = {g, &a, ptr, gx_sdpa_fwd_for(e->handle->isa), (a.sq + QUERY_BLOCK - 1) / QUERY_BLOCK, 0};
    size_t tasks = (size_t)(a.b * a.h * c.nqb);
    double work = (double)a.b * a.h * a.sq * a.sk * a.d;
    fdnn_pool_t pool = work < 65536.0 ? NULL : fdnn_handle_pool(e->handle);
    fdnn_parallelize_1d(pool, block_task, &c, tasks, 0);
    if (c.failed)
        return FDNN_ALLOC_FAILED("sdpa engine: out of memory for the per-task tiles");
    return CUDNN_STATUS_SUCCESS;
}
