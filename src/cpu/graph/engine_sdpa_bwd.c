/* SPDX-License-Identifier: Apache-2.0
 * Scaled dot-product attention backward as one pass (the sdpa_flash
 * engine's backward graphs).  The graph, as cuDNN 8.9's backward builds it
 * from the forward's stats, with every transpose expressed through the
 * strides of graph inputs and outputs (so that every engine reads the graph
 * the same way):
 *
 *     S   = Q x K^T                       (matmul) + the score chain (gx_sdpa.h)
 *     P   = exp(S - stats)                (SUB of the [B,H,Sq,1] stats input, EXP)
 *     Pd  = P x M x scale                 (optional dropout, the forward's)
 *     dV^T = dO^T x Pd                    (matmul: dO^T [B,H,D,Sq] in, dV^T [B,H,D,Sk] out)
 *     dP  = dO x V^T                      (matmul: V^T [B,H,D,Sk])
 *     dPd = dP x M x scale                (the same dropout, when there is one)
 *     Dr  = sum over D of dO o O          (MUL, reduction ADD to [B,H,Sq,1])
 *     dS  = P x (dPd - Dr) [x scale]      (SUB, MUL, optional MUL by a scalar)
 *     dQ  = dS x K                        (matmul: K [B,H,Sk,D])
 *     dK^T = Q^T x dS                     (matmul: Q^T [B,H,D,Sq], dK^T [B,H,D,Sk] out)
 *
 * Executed per (batch, head) in one task (gx_sdpa_kern.inc's backward: the
 * flash-attention-2 recurrence over blocks of 64 keys): P, dP and dS exist
 * one block row at a time, never S x S; the tiles are O(S d) floats per
 * task (HALF / BFLOAT16 inputs convert when packed, outputs when stored;
 * everything accumulates in FP32).  One task per head: every sum has one
 * order, the same bits for any thread count. */
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

#define NO(...) FDNN_NOT_SUPPORTED("sdpa engine (backward): " __VA_ARGS__)

typedef struct sdpa_bwd {
    gx_sdpa_chain_t chain;
    gx_sdpa_dropout_t drop;
    int stats, k, vt, dout, doutt, qt, ra, rb; /* ra, rb: the operands of dO o O */
    int bscale_t;                              /* NONE: no scale on dS */
    int dq, dkt, dvt;
    int64_t b, h, sq, sk, d;
} sdpa_bwd_t;

static bool
is_input(const fdnn_graph_t *g, int t)
{
    return t >= 0 && !g->tensors[t].is_virtual && !g->tensors[t].by_value && gx_sdpa_producer(g, t) < 0;
}

/* 4-D of an attention I/O type with dims [B|1, H|1, r, c]. */
static bool
shaped(const fdnn_graph_t *g, int t, const sdpa_bwd_t *a, int64_t r, int64_t c)
{
    const fdnn_graph_tensor_t *x = &g->tensors[t];
    if (x->ndim != 4 || !gx_sdpa_io_type(x->dtype) || x->dims[2] != r || x->dims[3] != c)
        return false;
    return (x->dims[0] == a->b || x->dims[0] == 1) && (x->dims[1] == a->h || x->dims[1] == 1);
}

static bool
same_dropout(const gx_sdpa_dropout_t *x, const gx_sdpa_dropout_t *y)
{
    if (x->on != y->on)
        return false;
    return !x->on || (x->scale_t == y->scale_t && x->mask_t == y->mask_t);
}

static cudnnStatus_t
match(const fdnn_graph_t *g, sdpa_bwd_t *a)
{
    memset(a, 0, sizeof(*a));
    bool *used = calloc((size_t)(g->nnodes > 0 ? g->nnodes : 1), sizeof(bool));
    if (used == NULL)
        return FDNN_ALLOC_FAILED("sdpa engine: out of memory");
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
#define FAIL(...)                \
    do {                         \
        st = NO(__VA_ARGS__);    \
        goto done;               \
    } while (0)
#define TRY(x)                                \
    do {                                      \
        if ((st = (x)) != CUDNN_STATUS_SUCCESS) \
            goto done;                        \
    } while (0)
    /* the three output matmuls */
    int mq = -1, mo[2] = {-1, -1}, no = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const fdnn_graph_node_t *n = &g->nodes[i];
        if (n->kind != FDNN_GOP_MATMUL || g->tensors[n->u.matmul.c].is_virtual)
            continue;
        if (n->u.matmul.compute_type != CUDNN_DATA_FLOAT)
            FAIL("node %d (matmul): compute type %s (FLOAT is done)", i, gx_dtype_name(n->u.matmul.compute_type));
        if (!is_input(g, n->u.matmul.a) && is_input(g, n->u.matmul.b) && mq < 0)
            mq = i;
        else if (is_input(g, n->u.matmul.a) && !is_input(g, n->u.matmul.b) && no < 2)
            mo[no++] = i;
        else
            FAIL("node %d (matmul): not dQ = dS x K, dK^T = Q^T x dS or dV^T = dO^T x P", i);
    }
    if (mq < 0 || no != 2)
        FAIL("the outputs are not dQ = dS x K, dK^T = Q^T x dS and dV^T = dO^T x P");
    const fdnn_gop_matmul_t *gq = &g->nodes[mq].u.matmul;
    int ds = gq->a;
    int which_k = g->nodes[mo[0]].u.matmul.b == ds ? 0 : 1;
    const fdnn_gop_matmul_t *gk = &g->nodes[mo[which_k]].u.matmul, *gv = &g->nodes[mo[1 - which_k]].u.matmul;
    if (gk->b != ds)
        FAIL("node %d (matmul): dK^T = Q^T x dS must read the dS that dQ reads", mo[which_k]);
    used[mq] = used[mo[0]] = used[mo[1]] = true;
    a->dq = gq->c, a->k = gq->b, a->dkt = gk->c, a->qt = gk->a, a->dvt = gv->c, a->doutt = gv->a;
    /* dS = P (dPd - Dr) [scale] */
    int n = gx_sdpa_producer(g, ds);
    a->bscale_t = FDNN_GRAPH_NONE;
    int ds1 = ds;
    if (gx_sdpa_is_pw(g, n, CUDNN_POINTWISE_MUL) && gx_sdpa_scalar(g, g->nodes[n].u.pointwise.b)) {
        a->bscale_t = g->nodes[n].u.pointwise.b;
        ds1 = g->nodes[n].u.pointwise.x;
        used[n] = true;
        n = gx_sdpa_producer(g, ds1);
    }
    if (!gx_sdpa_is_pw(g, n, CUDNN_POINTWISE_MUL))
        FAIL("dS is not P x (dP - rowsum(dO o O)) [x scale]");
    used[n] = true;
    const fdnn_gop_pointwise_t *pm = &g->nodes[n].u.pointwise;
    int p = pm->x, ds0 = pm->b;
    if (!gx_sdpa_is_pw(g, gx_sdpa_producer(g, p), CUDNN_POINTWISE_EXP)) {
        p = pm->b;
        ds0 = pm->x;
    }
    int exp_n = gx_sdpa_producer(g, p);
    if (!gx_sdpa_is_pw(g, exp_n, CUDNN_POINTWISE_EXP))
        FAIL("node %d (pointwise MUL): no operand is P = exp(S - stats)", n);
    int sub_d = gx_sdpa_producer(g, ds0);
    if (!gx_sdpa_is_pw(g, sub_d, CUDNN_POINTWISE_SUB))
        FAIL("node %d (pointwise MUL): its other operand is not dP - rowsum(dO o O)", n);
    used[sub_d] = true;
    const fdnn_gop_pointwise_t *psd = &g->nodes[sub_d].u.pointwise;
    int red = gx_sdpa_producer(g, psd->b);
    if (!gx_sdpa_is_red(g, red, CUDNN_REDUCE_TENSOR_ADD))
        FAIL("node %d (pointwise SUB): its b is not a reduction ADD of dO o O", sub_d);
    int mul_r = gx_sdpa_producer(g, g->nodes[red].u.reduction.x);
    if (!gx_sdpa_is_pw(g, mul_r, CUDNN_POINTWISE_MUL) || !is_input(g, g->nodes[mul_r].u.pointwise.x) ||
        !is_input(g, g->nodes[mul_r].u.pointwise.b))
        FAIL("node %d (reduction ADD): not over dO o O (a MUL of two graph inputs)", red);
    used[red] = used[mul_r] = true;
    a->ra = g->nodes[mul_r].u.pointwise.x;
    a->rb = g->nodes[mul_r].u.pointwise.b;
    /* dPd = dropout(dO x V^T) */
    gx_sdpa_dropout_t d2;
    int dp;
    TRY(gx_sdpa_match_dropout(g, psd->x, &dp, &d2, used));
    int mdp = gx_sdpa_producer(g, dp);
    if (mdp < 0 || g->nodes[mdp].kind != FDNN_GOP_MATMUL || !is_input(g, g->nodes[mdp].u.matmul.a) ||
        !is_input(g, g->nodes[mdp].u.matmul.b))
        FAIL("dP is not dO x V^T (a matmul of two graph inputs)");
    if (g->nodes[mdp].u.matmul.compute_type != CUDNN_DATA_FLOAT)
        FAIL("node %d (matmul): compute type other than FLOAT", mdp);
    used[mdp] = true;
    a->dout = g->nodes[mdp].u.matmul.a;
    a->vt = g->nodes[mdp].u.matmul.b;
    /* Pd = dropout(P), read by dV */
    int pbase;
    TRY(gx_sdpa_match_dropout(g, gv->b, &pbase, &a->drop, used));
    if (pbase != p)
        FAIL("dV^T = dO^T x P must read the P (or its dropout) that dS reads");
    if (!same_dropout(&a->drop, &d2))
        FAIL("the dropouts of P and dP differ (mask or scale)");
    /* P = exp(S - stats) */
    used[exp_n] = true;
    int sub_s = gx_sdpa_producer(g, g->nodes[exp_n].u.pointwise.x);
    if (!gx_sdpa_is_pw(g, sub_s, CUDNN_POINTWISE_SUB) || !is_input(g, g->nodes[sub_s].u.pointwise.b))
        FAIL("node %d (pointwise EXP): its input is not S - stats (stats a graph input)", exp_n);
    used[sub_s] = true;
    a->stats = g->nodes[sub_s].u.pointwise.b;
    TRY(gx_sdpa_match_chain(g, g->nodes[sub_s].u.pointwise.x, &a->chain, used));
    int nused = 0;
    for (int i = 0; i < g->nnodes; i++)
        nused += used[i];
    if (nused != g->nnodes)
        FAIL("the graph has %d nodes, the attention backward pattern %d", g->nnodes, nused);
    const int outs[3] = {a->dq, a->dkt, a->dvt};
    TRY(gx_sdpa_only_outputs(g, outs, 3));
    /* shapes */
    const fdnn_graph_tensor_t *dq = &g->tensors[a->dq], *dkt = &g->tensors[a->dkt];
    if (dq->ndim != 4 || dkt->ndim != 4)
        FAIL("dQ and dK^T must be 4-D");
    a->b = dq->dims[0], a->h = dq->dims[1], a->sq = dq->dims[2], a->d = dq->dims[3], a->sk = dkt->dims[3];
    if (a->d > GX_SDPA_MAX_HEAD_DIM || a->d <= 0 || a->sk <= 0 || a->sq <= 0)
        FAIL("head dim %lld (1 to %d are done)", (long long)a->d, GX_SDPA_MAX_HEAD_DIM);
    const struct {
        int t;
        int64_t r, c;
        const char *name;
    } io[] = {
        {a->chain.q, a->sq, a->d, "Q [B,H,Sq,D]"},   {a->chain.kt, a->d, a->sk, "K^T [B,H,D,Sk]"},
        {a->k, a->sk, a->d, "K [B,H,Sk,D]"},         {a->vt, a->d, a->sk, "V^T [B,H,D,Sk]"},
        {a->dout, a->sq, a->d, "dO [B,H,Sq,D]"},     {a->doutt, a->d, a->sq, "dO^T [B,H,D,Sq]"},
        {a->qt, a->d, a->sq, "Q^T [B,H,D,Sq]"},      {a->ra, a->sq, a->d, "dO and O [B,H,Sq,D]"},
        {a->rb, a->sq, a->d, "dO and O [B,H,Sq,D]"}, {a->dq, a->sq, a->d, "dQ [B,H,Sq,D]"},
        {a->dkt, a->d, a->sk, "dK^T [B,H,D,Sk]"},    {a->dvt, a->d, a->sk, "dV^T [B,H,D,Sk]"},
    };
    for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++)
        if (!shaped(g, io[i].t, a, io[i].r, io[i].c))
            FAIL("%s: wrong shape or type (FLOAT, HALF or BFLOAT16; batch and head dims equal or 1)", io[i].name);
    for (int t = 0; t < 3; t++) {
        const fdnn_graph_tensor_t *o = &g->tensors[t == 0 ? a->dq : t == 1 ? a->dkt : a->dvt];
        if (o->dims[0] != a->b || o->dims[1] != a->h)
            FAIL("dQ, dK^T, dV^T must have the same batch and head dims");
    }
    if (!gx_sdpa_row_shaped(g, g->nodes[red].u.reduction.y, a->b, a->h, a->sq))
        FAIL("node %d (reduction ADD): rowsum(dO o O) must reduce D only (output [B,H,Sq,1])", red);
    size_t nf;
    if (!gx_sdpa_tile_floats(0, a->sq, a->sk, a->d, true, &nf))
        FAIL("the tiles of one head overflow (Sq %lld, Sk %lld, D %lld)", (long long)a->sq, (long long)a->sk,
             (long long)a->d);
    const fdnn_graph_tensor_t *s = &g->tensors[a->stats];
    if (s->ndim != 4 || s->dtype != CUDNN_DATA_FLOAT || s->dims[2] != a->sq || s->dims[3] != 1 ||
        (s->dims[0] != a->b && s->dims[0] != 1) || (s->dims[1] != a->h && s->dims[1] != 1))
        FAIL("the stats input must be FLOAT [B,H,Sq,1]");
    if (a->drop.on) {
        const fdnn_graph_tensor_t *m = &g->tensors[a->drop.mask_t];
        if (m->dims[0] != a->b || m->dims[1] != a->h || m->dims[2] != a->sq || m->dims[3] != a->sk)
            FAIL("the dropout mask must be [B,H,Sq,Sk]");
    }
#undef FAIL
#undef TRY
done:
    free(used);
    return st;
}

cudnnStatus_t
gx_sdpa_bwd_supports(const fdnn_graph_t *g)
{
    sdpa_bwd_t a;
    return match(g, &a);
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

cudnnStatus_t
gx_sdpa_bwd_workspace(const fdnn_graph_t *g, size_t *bytes)
{
    sdpa_bwd_t a;
    gx_layout_t lay;
    RETURN_IF_ERROR(match(g, &a));
    RETURN_IF_ERROR(layout(g, &lay));
    *bytes = lay.total;
    free(lay.tensor_offset);
    return CUDNN_STATUS_SUCCESS;
}

typedef struct run {
    const fdnn_graph_t *g;
    const sdpa_bwd_t *a;
    void **ptr;
    gx_sdpa_bwd_fn bwd;
    int failed;
} run_t;

static void
pack(const run_t *c, int t, int64_t b, int64_t h, int64_t nr, int64_t ncols, bool trans, float *dst, int64_t ld)
{
    gx_sdpa_pack(&c->g->tensors[t], c->ptr[t], b, h, 0, nr, ncols, trans, dst, ld);
}

/* One head (b, h). */
static void
head_task(void *ctx, size_t t)
{
    run_t *c = ctx;
    const sdpa_bwd_t *a = c->a;
    const fdnn_graph_t *g = c->g;
    int64_t h = (int64_t)t % a->h, b = (int64_t)t / a->h;
    int64_t ldd = GX_SDPA_LD_D(a->d), ldk = GX_SDPA_LD_K(a->sk), Sq = a->sq, Sk = a->sk, D = a->d;
    /* q, qt, dout, doutt, dq: Sq x ldd; kt, vt: D x ldk; k, dk, dv: Sk x ldd;
     * lse, dsum: Sq; two rows for dO o O */
    size_t nf;
    gx_sdpa_tile_floats(0, Sq, Sk, D, true, &nf); /* checked by match */
    float *buf = fdnn_aligned_alloc(nf * sizeof(float));
    if (buf == NULL) {
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *q = buf, *qt = q + Sq * ldd, *dout = qt + Sq * ldd, *doutt = dout + Sq * ldd, *dq = doutt + Sq * ldd;
    float *kt = dq + Sq * ldd, *vt = kt + D * ldk, *k = vt + D * ldk, *dk = k + Sk * ldd, *dv = dk + Sk * ldd;
    float *lse = dv + Sk * ldd, *dsum = lse + Sq + 16 - Sq % 16;
    float *ra = dsum + Sq + 16 - Sq % 16, *rb = ra + ldd;
    pack(c, a->chain.q, b, h, Sq, D, false, q, ldd);
    pack(c, a->qt, b, h, Sq, D, true, qt, ldd);
    pack(c, a->dout, b, h, Sq, D, false, dout, ldd);
    pack(c, a->doutt, b, h, Sq, D, true, doutt, ldd);
    pack(c, a->chain.kt, b, h, D, Sk, false, kt, ldk);
    pack(c, a->vt, b, h, D, Sk, false, vt, ldk);
    pack(c, a->k, b, h, Sk, D, false, k, ldd);
    memset(dq, 0, sizeof(float) * (size_t)(Sq * ldd));
    memset(dk, 0, sizeof(float) * (size_t)(2 * Sk * ldd));
    const fdnn_graph_tensor_t *st = &g->tensors[a->stats];
    int64_t soff = (st->dims[0] == 1 ? 0 : b * st->strides[0]) + (st->dims[1] == 1 ? 0 : h * st->strides[1]);
    for (int64_t i = 0; i < Sq; i++) {
        lse[i] = ((const float *)c->ptr[a->stats])[soff + i * st->strides[2]];
        /* rowsum(dO o O): products rounded to FLOAT (the MUL node), summed in double */
        gx_sdpa_pack(&g->tensors[a->ra], c->ptr[a->ra], b, h, i, 1, D, false, ra, ldd);
        gx_sdpa_pack(&g->tensors[a->rb], c->ptr[a->rb], b, h, i, 1, D, false, rb, ldd);
        double sum = 0;
        for (int64_t d = 0; d < D; d++)
            sum += (double)(ra[d] * rb[d]);
        dsum[i] = (float)sum;
    }
    gx_sdpa_mods_t m;
    gx_sdpa_mods_init(g, c->ptr, &a->chain, &a->drop, b, h, a->h, Sq, Sk, &m);
    float bscale = a->bscale_t == FDNN_GRAPH_NONE ? 1.0f : ((const float *)c->ptr[a->bscale_t])[0];
    c->bwd(&m, Sq, Sk, D, q, qt, kt, k, vt, dout, doutt, lse, dsum, bscale, dq, dk, dv);
    gx_sdpa_unpack(&g->tensors[a->dq], c->ptr[a->dq], b, h, 0, Sq, D, false, dq, ldd);
    gx_sdpa_unpack(&g->tensors[a->dkt], c->ptr[a->dkt], b, h, 0, Sk, D, true, dk, ldd);
    gx_sdpa_unpack(&g->tensors[a->dvt], c->ptr[a->dvt], b, h, 0, Sk, D, true, dv, ldd);
    fdnn_aligned_free(buf);
}

cudnnStatus_t
gx_sdpa_bwd_execute(const fdnn_graph_exec_t *e)
{
    const fdnn_graph_t *g = e->graph;
    sdpa_bwd_t a;
    gx_layout_t lay;
    void **ptr;
    RETURN_IF_ERROR(match(g, &a));
    RETURN_IF_ERROR(layout(g, &lay));
    cudnnStatus_t st = gx_bind(e, &lay, &ptr);
    free(lay.tensor_offset);
    RETURN_IF_ERROR(st);
    run_t c = {g, &a, ptr, gx_sdpa_bwd_for(e->handle->isa), 0};
    double work = (double)a.b * a.h * a.sq * a.sk * a.d;
    fdnn_pool_t pool = work < 65536.0 ? NULL : fdnn_handle_pool(e->handle);
    fdnn_parallelize_1d(pool, head_task, &c, (size_t)(a.b * a.h), 0);
    if (c.failed)
        return FDNN_ALLOC_FAILED("sdpa engine: out of memory for the per-head tiles");
    return CUDNN_STATUS_SUCCESS;
}
