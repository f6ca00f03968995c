/* SPDX-License-Identifier: Apache-2.0
 * Scaled dot-product attention as one engine (forward, FP32): the graph
 * cuDNN 8.9's frontend builds for it,
 *
 *     S = Q x K^T          (matmul; K^T is a tensor [B, H, D, Sk])
 *     S = S * scale        (pointwise MUL by a scalar; optional)
 *     S = select(row >= col ? S : fill)   (optional causal mask: GEN_INDEX
 *                          along dims 2 and 3, CMP_GE, BINARY_SELECT)
 *     P = softmax(S)       (reduction MAX, SUB, EXP, reduction ADD, DIV)
 *     O = P x V            (matmul; O the only output)
 *
 * runs as one pass per query row with online softmax (running max m,
 * running sum l, running output acc; each block of KEY_BLOCK keys rescales
 * them by exp(m_old - m_new)), so the S x S matrix never exists: memory is
 * O(D) per row in flight, the workspace only the pointer table.  Masked
 * scores take the graph's fill value, exactly as the graph says.  Rows are
 * independent: the same bits for any thread count.  Results differ from
 * the node-by-node engine by rounding only (the softmax is computed in a
 * different order); test_graph_sdpa states the tolerance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/pool.h"
#include "cpu/graph/engines.h"
#include "cpu/graph/graph_exec.h"

#define KEY_BLOCK 64
#define MAX_HEAD_DIM 256

typedef struct sdpa {
    int q, kt, v, o;
    bool has_scale, causal;
    int scale_t, fill_t;
    float scale, fill;
    int64_t b, h, sq, sk, d;
} sdpa_t;

/* The node writing tensor t, or -1. */
static int
producer(const fdnn_graph_t *g, int t)
{
    for (int i = 0; i < g->nnodes; i++) {
        int in[FDNN_GRAPH_MAX_INPUTS + 16], out[FDNN_GRAPH_MAX_INPUTS + 16], nin, nout;
        fdnn_graph_node_operands(&g->nodes[i], in, &nin, out, &nout);
        for (int k = 0; k < nout; k++)
            if (out[k] == t)
                return i;
    }
    return -1;
}

static bool
is_pw(const fdnn_graph_t *g, int n, cudnnPointwiseMode_t mode)
{
    return n >= 0 && g->nodes[n].kind == FDNN_GOP_POINTWISE && g->nodes[n].u.pointwise.mode == mode;
}

static bool
is_red(const fdnn_graph_t *g, int n, cudnnReduceTensorOp_t op)
{
    return n >= 0 && g->nodes[n].kind == FDNN_GOP_REDUCTION && g->nodes[n].u.reduction.op == op;
}

/* A FLOAT scalar: by value, or a tensor of one element (read at execute). */
static bool
scalar_tensor(const fdnn_graph_t *g, int t)
{
    const fdnn_graph_tensor_t *s = &g->tensors[t];
    int64_t n;
    return s->dtype == CUDNN_DATA_FLOAT && gx_tensor_elements(s, &n) && n == 1;
}

static bool
is_4d_f32(const fdnn_graph_tensor_t *t)
{
    return t->ndim == 4 && t->dtype == CUDNN_DATA_FLOAT;
}

#define NO(...) FDNN_NOT_SUPPORTED("sdpa engine: " __VA_ARGS__)

static cudnnStatus_t
match(const fdnn_graph_t *g, sdpa_t *a)
{
    memset(a, 0, sizeof(*a));
    /* The output matmul: its output is not virtual. */
    int mm2 = -1;
    for (int i = 0; i < g->nnodes; i++)
        if (g->nodes[i].kind == FDNN_GOP_MATMUL && !g->tensors[g->nodes[i].u.matmul.c].is_virtual)
            mm2 = i;
    if (mm2 < 0)
        return NO("no matmul writes a graph output (not attention)");
    int used = 1;
    const fdnn_gop_matmul_t *pv = &g->nodes[mm2].u.matmul;
    a->v = pv->b;
    a->o = pv->c;
    int div = producer(g, pv->a);
    if (!is_pw(g, div, CUDNN_POINTWISE_DIV))
        return NO("node %d (matmul): its A is not the DIV of a softmax", mm2);
    const fdnn_gop_pointwise_t *pdiv = &g->nodes[div].u.pointwise;
    int exp_n = producer(g, pdiv->x), sum_n = producer(g, pdiv->b);
    if (!is_pw(g, exp_n, CUDNN_POINTWISE_EXP) || !is_red(g, sum_n, CUDNN_REDUCE_TENSOR_ADD) ||
        g->nodes[sum_n].u.reduction.x != pdiv->x)
        return NO("node %d (pointwise DIV): not exp(s) / sum(exp(s))", div);
    int sub = producer(g, g->nodes[exp_n].u.pointwise.x);
    if (!is_pw(g, sub, CUDNN_POINTWISE_SUB))
        return NO("node %d (pointwise EXP): its input is not s - max(s)", exp_n);
    const fdnn_gop_pointwise_t *psub = &g->nodes[sub].u.pointwise;
    int max_n = producer(g, psub->b);
    if (!is_red(g, max_n, CUDNN_REDUCE_TENSOR_MAX) || g->nodes[max_n].u.reduction.x != psub->x)
        return NO("node %d (pointwise SUB): not s - max(s)", sub);
    used += 5;
    int s = psub->x; /* the scores entering the softmax */
    int n = producer(g, s);
    if (is_pw(g, n, CUDNN_POINTWISE_BINARY_SELECT)) {
        const fdnn_gop_pointwise_t *sel = &g->nodes[n].u.pointwise;
        int cmp = producer(g, sel->t);
        if (!is_pw(g, cmp, CUDNN_POINTWISE_CMP_GE) || !scalar_tensor(g, sel->b))
            return NO("node %d (pointwise BINARY_SELECT): not a causal mask (CMP_GE of row and column indices, "
                      "a scalar fill)",
                      n);
        int ri = producer(g, g->nodes[cmp].u.pointwise.x), ci = producer(g, g->nodes[cmp].u.pointwise.b);
        if (!is_pw(g, ri, CUDNN_POINTWISE_GEN_INDEX) || !is_pw(g, ci, CUDNN_POINTWISE_GEN_INDEX) ||
            g->nodes[ri].u.pointwise.axis != 2 || g->nodes[ci].u.pointwise.axis != 3)
            return NO("node %d (pointwise CMP_GE): not row index (axis 2) >= column index (axis 3)", cmp);
        a->causal = true;
        a->fill_t = sel->b;
        s = sel->x;
        used += 4;
        n = producer(g, s);
    }
    if (is_pw(g, n, CUDNN_POINTWISE_MUL)) {
        const fdnn_gop_pointwise_t *mul = &g->nodes[n].u.pointwise;
        if (!scalar_tensor(g, mul->b))
            return NO("node %d (pointwise MUL): the scale is not a FLOAT scalar", n);
        a->has_scale = true;
        a->scale_t = mul->b;
        s = mul->x;
        used++;
        n = producer(g, s);
    }
    if (n < 0 || g->nodes[n].kind != FDNN_GOP_MATMUL)
        return NO("the scores are not produced by a matmul");
    used++;
    const fdnn_gop_matmul_t *qk = &g->nodes[n].u.matmul;
    a->q = qk->a;
    a->kt = qk->b;
    if (used != g->nnodes)
        return NO("the graph has %d nodes, the attention pattern %d", g->nnodes, used);
    const fdnn_graph_tensor_t *q = &g->tensors[a->q], *kt = &g->tensors[a->kt], *v = &g->tensors[a->v],
                              *o = &g->tensors[a->o];
    if (!is_4d_f32(q) || !is_4d_f32(kt) || !is_4d_f32(v) || !is_4d_f32(o))
        return NO("Q, K^T, V, O must be 4-D FLOAT (FP32 forward is done)");
    if (qk->compute_type != CUDNN_DATA_FLOAT || pv->compute_type != CUDNN_DATA_FLOAT)
        return NO("matmul compute types other than FLOAT");
    a->b = o->dims[0], a->h = o->dims[1], a->sq = q->dims[2], a->d = q->dims[3], a->sk = kt->dims[3];
    for (int d = 0; d < 2; d++)
        if (q->dims[d] != o->dims[d] || kt->dims[d] != o->dims[d] || v->dims[d] != o->dims[d])
            return NO("batch and head dims of Q, K^T, V, O differ (broadcast is not done)");
    if (kt->dims[2] != a->d || v->dims[2] != a->sk || v->dims[3] != a->d || o->dims[2] != a->sq || o->dims[3] != a->d)
        return NO("Q [B,H,Sq,D], K^T [B,H,D,Sk], V [B,H,Sk,D], O [B,H,Sq,D] do not chain");
    if (a->d > MAX_HEAD_DIM || a->d <= 0 || a->sk <= 0)
        return NO("head dim %lld (1 to %d are done)", (long long)a->d, MAX_HEAD_DIM);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_sdpa_supports(const fdnn_graph_t *g)
{
    sdpa_t a;
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
gx_sdpa_workspace(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs, size_t *bytes)
{
    (void)knobs;
    sdpa_t a;
    gx_layout_t lay;
    RETURN_IF_ERROR(match(g, &a));
    RETURN_IF_ERROR(layout(g, &lay));
    *bytes = lay.total;
    free(lay.tensor_offset);
    return CUDNN_STATUS_SUCCESS;
}

typedef struct run {
    const sdpa_t *a;
    const fdnn_graph_tensor_t *q, *kt, *v, *o;
    const float *Q, *KT, *V;
    float *O;
} run_t;

/* One query row (b, h, i): online softmax over blocks of keys. */
static void
row_task(void *ctx, size_t r)
{
    const run_t *c = ctx;
    const sdpa_t *a = c->a;
    int64_t i = (int64_t)r % a->sq, bh = (int64_t)r / a->sq, h = bh % a->h, b = bh / a->h;
    const float *q = c->Q + b * c->q->strides[0] + h * c->q->strides[1] + i * c->q->strides[2];
    const float *kt = c->KT + b * c->kt->strides[0] + h * c->kt->strides[1];
    const float *v = c->V + b * c->v->strides[0] + h * c->v->strides[1];
    int64_t qs = c->q->strides[3], kd = c->kt->strides[2], kj = c->kt->strides[3];
    int64_t vj = c->v->strides[2], vd = c->v->strides[3];
    float acc[MAX_HEAD_DIM], s[KEY_BLOCK];
    for (int64_t d = 0; d < a->d; d++)
        acc[d] = 0;
    float m = -INFINITY, l = 0;
    for (int64_t j0 = 0; j0 < a->sk; j0 += KEY_BLOCK) {
        int64_t nj = a->sk - j0 < KEY_BLOCK ? a->sk - j0 : KEY_BLOCK;
        float bm = -INFINITY;
        for (int64_t j = 0; j < nj; j++) {
            float dot;
            if (qs == 1 && kd == 1) {
                /* contiguous rows: eight partial sums in a fixed order
                 * (vectorizable, and the same bits on every machine) */
                const float *kr = kt + (j0 + j) * kj;
                float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                int64_t d = 0;
                for (; d + 8 <= a->d; d += 8)
                    for (int u = 0; u < 8; u++)
                        part[u] += q[d + u] * kr[d + u];
                for (; d < a->d; d++)
                    part[0] += q[d] * kr[d];
                dot = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
            } else {
                dot = 0;
                for (int64_t d = 0; d < a->d; d++)
                    dot += q[d * qs] * kt[d * kd + (j0 + j) * kj];
            }
            if (a->has_scale)
                dot *= a->scale;
            if (a->causal && !((float)i >= (float)(j0 + j)))
                dot = a->fill;
            s[j] = dot;
            bm = dot > bm ? dot : bm;
        }
        float mn = bm > m ? bm : m;
        /* (m = -inf only before the first block: nothing to rescale) */
        float corr = m == -INFINITY ? 0 : expf(m - mn);
        l *= corr;
        for (int64_t d = 0; d < a->d; d++)
            acc[d] *= corr;
        for (int64_t j = 0; j < nj; j++) {
            float p = expf(s[j] - mn);
            l += p;
            const float *vr = v + (j0 + j) * vj;
            if (vd == 1)
                for (int64_t d = 0; d < a->d; d++)
                    acc[d] += p * vr[d];
            else
                for (int64_t d = 0; d < a->d; d++)
                    acc[d] += p * vr[d * vd];
        }
        m = mn;
    }
    float *o = c->O + b * c->o->strides[0] + h * c->o->strides[1] + i * c->o->strides[2];
    for (int64_t d = 0; d < a->d; d++)
        o[d * c->o->strides[3]] = acc[d] / l;
}

cudnnStatus_t
gx_sdpa_execute(const fdnn_graph_exec_t *e)
{
    const fdnn_graph_t *g = e->graph;
    sdpa_t a;
    gx_layout_t lay;
    void **ptr;
    RETURN_IF_ERROR(match(g, &a));
    RETURN_IF_ERROR(layout(g, &lay));
    cudnnStatus_t st = gx_bind(e, &lay, &ptr);
    free(lay.tensor_offset);
    RETURN_IF_ERROR(st);
    a.scale = a.has_scale ? ((const float *)ptr[a.scale_t])[0] : 1;
    a.fill = a.causal ? ((const float *)ptr[a.fill_t])[0] : 0;
    run_t c = {&a,       &g->tensors[a.q], &g->tensors[a.kt], &g->tensors[a.v], &g->tensors[a.o],
               ptr[a.q], ptr[a.kt],        ptr[a.v],          ptr[a.o]};
    size_t rows = (size_t)(a.b * a.h * a.sq);
    double work = (double)rows * (double)a.sk * (double)a.d;
    fdnn_pool_t pool = work < 65536.0 ? NULL : fdnn_handle_pool(e->handle);
    fdnn_parallelize_1d(pool, row_task, &c, rows, 0);
    return CUDNN_STATUS_SUCCESS;
}
