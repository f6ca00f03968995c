/* SPDX-License-Identifier: Apache-2.0
 * What the attention engines share (gx_sdpa.h): the score chain and
 * dropout matchers, the per-head modifiers, packing of head slices into
 * float tiles (any storage type and strides: HALF and BFLOAT16 convert
 * here) and the per-score masking and dropout the kernels call. */
#include <math.h>
#include <string.h>

#include "core/ckd.h"
#include "core/fail.h"
#include "cpu/config/config.h"
#include "cpu/dropout/philox.h"
#include "cpu/graph/graph_exec.h"
#include "cpu/graph/gx_sdpa.h"

#define NO(...) FDNN_NOT_SUPPORTED("sdpa engine: " __VA_ARGS__)

int
gx_sdpa_producer(const fdnn_graph_t *g, int t)
{
    if (t < 0)
        return -1;
    for (int i = 0; i < g->nnodes; i++) {
        int in[FDNN_GRAPH_MAX_INPUTS + 16], out[FDNN_GRAPH_MAX_INPUTS + 16], nin, nout;
        fdnn_graph_node_operands(&g->nodes[i], in, &nin, out, &nout);
        for (int k = 0; k < nout; k++)
            if (out[k] == t)
                return i;
    }
    return -1;
}

bool
gx_sdpa_is_pw(const fdnn_graph_t *g, int n, cudnnPointwiseMode_t mode)
{
    return n >= 0 && g->nodes[n].kind == FDNN_GOP_POINTWISE && g->nodes[n].u.pointwise.mode == mode;
}

bool
gx_sdpa_is_red(const fdnn_graph_t *g, int n, cudnnReduceTensorOp_t op)
{
    return n >= 0 && g->nodes[n].kind == FDNN_GOP_REDUCTION && g->nodes[n].u.reduction.op == op;
}

bool
gx_sdpa_scalar(const fdnn_graph_t *g, int t)
{
    if (t < 0)
        return false;
    const fdnn_graph_tensor_t *s = &g->tensors[t];
    int64_t n;
    return s->dtype == CUDNN_DATA_FLOAT && gx_tensor_elements(s, &n) && n == 1 && gx_sdpa_producer(g, t) < 0;
}

bool
gx_sdpa_io_type(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_HALF || dt == CUDNN_DATA_BFLOAT16;
}

bool
gx_sdpa_row_shaped(const fdnn_graph_t *g, int t, int64_t B, int64_t H, int64_t Sq)
{
    const fdnn_graph_tensor_t *x = &g->tensors[t];
    return x->ndim == 4 && x->dims[0] == B && x->dims[1] == H && x->dims[2] == Sq && x->dims[3] == 1;
}

cudnnStatus_t
gx_sdpa_only_outputs(const fdnn_graph_t *g, const int *outs, int n)
{
    for (int i = 0; i < g->nnodes; i++) {
        int in[FDNN_GRAPH_MAX_INPUTS + 16], out[FDNN_GRAPH_MAX_INPUTS + 16], nin, nout;
        fdnn_graph_node_operands(&g->nodes[i], in, &nin, out, &nout);
        for (int k = 0; k < nout; k++) {
            bool ok = g->tensors[out[k]].is_virtual;
            for (int j = 0; j < n && !ok; j++)
                ok = out[k] == outs[j];
            if (!ok)
                return NO("node %d (%s) writes tensor uid %lld as a graph output; the attention engine writes only "
                          "its outputs (O and the stats, or dQ, dK, dV)",
                          i, fdnn_graph_op_name(g->nodes[i].kind), (long long)g->tensors[out[k]].uid);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

static bool
gen_index(const fdnn_graph_t *g, int t, int axis, bool *used)
{
    int n = gx_sdpa_producer(g, t);
    if (!gx_sdpa_is_pw(g, n, CUDNN_POINTWISE_GEN_INDEX) || g->nodes[n].u.pointwise.axis != axis)
        return false;
    used[n] = true;
    return true;
}

/* A [B,1,1,1] or [1,1,1,1] graph input of sequence lengths. */
static bool
seq_len(const fdnn_graph_t *g, int t)
{
    if (t < 0 || gx_sdpa_producer(g, t) >= 0 || g->tensors[t].is_virtual || g->tensors[t].ndim != 4 ||
        !gx_dtype_storable(g->tensors[t].dtype))
        return false;
    for (int d = 1; d < 4; d++)
        if (g->tensors[t].dims[d] != 1)
            return false;
    return true;
}

/* CMP_LT(GEN_INDEX axis, len): the length tensor, or -1. */
static int
index_below(const fdnn_graph_t *g, int t, int axis, bool *used)
{
    int n = gx_sdpa_producer(g, t);
    if (!gx_sdpa_is_pw(g, n, CUDNN_POINTWISE_CMP_LT))
        return -1;
    const fdnn_gop_pointwise_t *p = &g->nodes[n].u.pointwise;
    if (!seq_len(g, p->b) || !gen_index(g, p->x, axis, used))
        return -1;
    used[n] = true;
    return p->b;
}

cudnnStatus_t
gx_sdpa_match_chain(const fdnn_graph_t *g, int s, gx_sdpa_chain_t *c, bool *used)
{
    gx_sdpa_step_kind_t kind[3];
    int val[3], k = 0;
    c->seq_q_t = c->seq_kv_t = FDNN_GRAPH_NONE;
    c->s_out = s;
    for (;;) {
        int n = gx_sdpa_producer(g, s);
        if (n < 0)
            return NO("the scores (tensor uid %lld) are not produced by a matmul", (long long)g->tensors[s].uid);
        if (used[n])
            return NO("node %d (%s) is reached twice in the score chain", n, fdnn_graph_op_name(g->nodes[n].kind));
        const fdnn_graph_node_t *node = &g->nodes[n];
        if (node->kind == FDNN_GOP_MATMUL) {
            used[n] = true;
            c->q = node->u.matmul.a;
            c->kt = node->u.matmul.b;
            if (node->u.matmul.compute_type != CUDNN_DATA_FLOAT)
                return NO("node %d (matmul): compute type %s (FLOAT is done)", n,
                          gx_dtype_name(node->u.matmul.compute_type));
            break;
        }
        if (node->kind != FDNN_GOP_POINTWISE || k == 3)
            return NO("node %d (%s) is not a scale, causal or padding mask of the scores", n,
                      fdnn_graph_op_name(node->kind));
        const fdnn_gop_pointwise_t *p = &node->u.pointwise;
        if (p->math_prec != CUDNN_DATA_FLOAT && p->mode != CUDNN_POINTWISE_BINARY_SELECT)
            return NO("node %d (pointwise %s): math precision other than FLOAT", n, gx_pw_mode_name(p->mode));
        if (p->mode == CUDNN_POINTWISE_MUL && gx_sdpa_scalar(g, p->b) && p->alpha1 == 1 && p->alpha2 == 1) {
            kind[k] = GX_SDPA_SCALE;
            val[k++] = p->b;
            s = p->x;
        } else if (p->mode == CUDNN_POINTWISE_BINARY_SELECT && gx_sdpa_scalar(g, p->b)) {
            int cn = gx_sdpa_producer(g, p->t);
            const fdnn_gop_pointwise_t *cp = cn >= 0 ? &g->nodes[cn].u.pointwise : NULL;
            if (gx_sdpa_is_pw(g, cn, CUDNN_POINTWISE_CMP_GE) && gen_index(g, cp->x, 2, used) &&
                gen_index(g, cp->b, 3, used)) {
                kind[k] = GX_SDPA_CAUSAL;
            } else if (gx_sdpa_is_pw(g, cn, CUDNN_POINTWISE_CMP_LE) && gen_index(g, cp->x, 3, used) &&
                       gen_index(g, cp->b, 2, used)) {
                kind[k] = GX_SDPA_CAUSAL;
            } else if (gx_sdpa_is_pw(g, cn, CUDNN_POINTWISE_LOGICAL_AND)) {
                int rq = index_below(g, cp->x, 2, used), ck = index_below(g, cp->b, 3, used);
                if (rq < 0 || ck < 0) {
                    rq = index_below(g, cp->b, 2, used);
                    ck = index_below(g, cp->x, 3, used);
                }
                if (rq < 0 || ck < 0)
                    return NO("node %d (pointwise LOGICAL_AND): not CMP_LT(row index, seq_len_q) and "
                              "CMP_LT(column index, seq_len_kv) with [B,1,1,1] lengths",
                              cn);
                c->seq_q_t = rq;
                c->seq_kv_t = ck;
                kind[k] = GX_SDPA_PADDING;
            } else {
                return NO("node %d (pointwise BINARY_SELECT): the mask is neither causal (CMP_GE of row and column "
                          "indices) nor padding (LOGICAL_AND of two CMP_LT)",
                          n);
            }
            used[cn] = true;
            val[k++] = p->b;
            s = p->x;
        } else {
            return NO("node %d (pointwise %s) is not a scale, causal or padding mask of the scores", n,
                      gx_pw_mode_name(p->mode));
        }
        used[n] = true;
    }
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++)
            if (kind[i] == kind[j])
                return NO("the score chain has two %s steps", kind[i] == GX_SDPA_SCALE ? "scale" : "mask");
    c->nsteps = k;
    for (int i = 0; i < k; i++) { /* walked backwards: graph order reversed */
        c->kind[i] = kind[k - 1 - i];
        c->value_t[i] = val[k - 1 - i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* A MUL by a dropout mask: the mask tensor (RNG output or graph input), or -1. */
static int
mask_operand(const fdnn_graph_t *g, const fdnn_gop_pointwise_t *p, int *other, int *rng)
{
    const int cand[2] = {p->b, p->x}, oth[2] = {p->x, p->b};
    for (int k = 0; k < 2; k++) {
        int t = cand[k];
        if (t < 0 || g->tensors[t].ndim != 4)
            continue;
        int n = gx_sdpa_producer(g, t);
        if (n >= 0 && g->nodes[n].kind == FDNN_GOP_RNG) {
            *rng = n;
        } else if (n < 0 && !g->tensors[t].is_virtual && !g->tensors[t].by_value) {
            *rng = -1;
        } else {
            continue;
        }
        *other = oth[k];
        return t;
    }
    return -1;
}

cudnnStatus_t
gx_sdpa_match_dropout(const fdnn_graph_t *g, int t, int *base, gx_sdpa_dropout_t *d, bool *used)
{
    memset(d, 0, sizeof(*d));
    d->mask_t = d->scale_t = FDNN_GRAPH_NONE;
    d->rng = -1;
    *base = t;
    int n1 = gx_sdpa_producer(g, t);
    if (!gx_sdpa_is_pw(g, n1, CUDNN_POINTWISE_MUL))
        return CUDNN_STATUS_SUCCESS;
    int cur = t, mask = -1, scale = -1, rng = -1;
    for (int step = 0; step < 2; step++) {
        int n = gx_sdpa_producer(g, cur);
        if (!gx_sdpa_is_pw(g, n, CUDNN_POINTWISE_MUL))
            return NO("node %d: a dropout is a MUL by the mask and a MUL by a scalar scale", n1);
        const fdnn_gop_pointwise_t *p = &g->nodes[n].u.pointwise;
        if (p->alpha1 != 1 || p->alpha2 != 1 || p->math_prec != CUDNN_DATA_FLOAT)
            return NO("node %d (pointwise MUL): alpha1/alpha2 != 1 or math precision not FLOAT in a dropout", n);
        int other;
        if (scale < 0 && gx_sdpa_scalar(g, p->b)) {
            scale = p->b;
            other = p->x;
        } else if (mask < 0 && (mask = mask_operand(g, p, &other, &rng)) >= 0) {
        } else {
            return NO("node %d (pointwise MUL): neither the dropout mask ([B,H,Sq,Sk], from an RNG node or an input) "
                      "nor its scalar scale",
                      n);
        }
        used[n] = true;
        cur = other;
    }
    if (rng >= 0) {
        const fdnn_gop_rng_t *r = &g->nodes[rng].u.rng;
        if (r->distribution != CUDNN_RNG_DISTRIBUTION_BERNOULLI)
            return NO("node %d (rng): a dropout mask is BERNOULLI", rng);
        used[rng] = true;
    }
    d->on = true;
    d->mask_t = mask;
    d->rng = rng;
    d->scale_t = scale;
    *base = cur;
    return CUDNN_STATUS_SUCCESS;
}

bool
gx_sdpa_tile_floats(int64_t rows, int64_t sq, int64_t sk, int64_t d, bool bwd, size_t *nf)
{
    int64_t ldd = GX_SDPA_LD_D(d), ldk = GX_SDPA_LD_K(sk), a, b, c, n;
    if (sk > INT64_MAX / 2 || !fdnn_ckd_mul_i64(d, ldk, &a) || !fdnn_ckd_mul_i64(sk, ldd, &b))
        return false;
    if (!bwd) {
        /* K^T, V, then q, o and lse for the block */
        if (!fdnn_ckd_mul_i64(2 * rows, ldd, &c) || !fdnn_ckd_add_i64(a, b, &n) || !fdnn_ckd_add_i64(n, c, &n) ||
            !fdnn_ckd_add_i64(n, rows, &n))
            return false;
    } else {
        /* q, qt, dO, dO^T, dq; K^T, V^T; k, dk, dv; lse, dsum; two rows */
        if (!fdnn_ckd_mul3_i64(5, sq, ldd, &c) || !fdnn_ckd_add_i64(c, 2 * a, &n) || !fdnn_ckd_add_i64(n, 3 * b, &n) ||
            !fdnn_ckd_add_i64(n, 2 * sq + 2 * ldd + 32, &n) || a > INT64_MAX / 4 || b > INT64_MAX / 4)
            return false;
    }
    if ((uint64_t)n > SIZE_MAX / sizeof(float))
        return false;
    *nf = (size_t)n;
    return true;
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

void
gx_sdpa_mods_init(const fdnn_graph_t *g, void **ptr, const gx_sdpa_chain_t *c, const gx_sdpa_dropout_t *d,
                  int64_t b, int64_t h, int64_t H, int64_t Sq, int64_t Sk, gx_sdpa_mods_t *m)
{
    memset(m, 0, sizeof(*m));
    m->nsteps = c->nsteps;
    for (int i = 0; i < c->nsteps; i++) {
        m->kind[i] = c->kind[i];
        m->value[i] = ((const float *)ptr[c->value_t[i]])[0];
    }
    if (c->seq_q_t != FDNN_GRAPH_NONE) {
        const fdnn_graph_tensor_t *tq = &g->tensors[c->seq_q_t], *tk = &g->tensors[c->seq_kv_t];
        m->seq_q = (float)gx_load(tq->dtype, ptr[c->seq_q_t], tq->dims[0] == 1 ? 0 : b * tq->strides[0]);
        m->seq_kv = (float)gx_load(tk->dtype, ptr[c->seq_kv_t], tk->dims[0] == 1 ? 0 : b * tk->strides[0]);
    }
    if (d != NULL && d->on) {
        m->dropout = true;
        m->dscale = ((const float *)ptr[d->scale_t])[0];
        m->flat0 = (uint64_t)((b * H + h) * Sq * Sk);
        m->b = b;
        m->h = h;
        if (d->rng < 0) {
            m->mask_given = true;
            m->mask_tensor = &g->tensors[d->mask_t];
            m->mask_base = ptr[d->mask_t];
        } else {
            const fdnn_gop_rng_t *r = &g->nodes[d->rng].u.rng;
            m->seed = r->seed_tensor == FDNN_GRAPH_NONE ? (uint64_t)r->seed_value
                                                        : int_scalar(&g->tensors[r->seed_tensor], ptr[r->seed_tensor]);
            m->call = r->offset == FDNN_GRAPH_NONE ? 0 : int_scalar(&g->tensors[r->offset], ptr[r->offset]);
            m->keep_p = r->bernoulli_probability;
        }
    }
}

static int64_t
head_offset(const fdnn_graph_tensor_t *t, int64_t b, int64_t h)
{
    return (t->dims[0] == 1 ? 0 : b * t->strides[0]) + (t->dims[1] == 1 ? 0 : h * t->strides[1]);
}

void
gx_sdpa_pack(const fdnn_graph_tensor_t *t, const void *base, int64_t b, int64_t h, int64_t r0, int64_t nr,
             int64_t ncols, bool trans, float *dst, int64_t ld)
{
    int64_t off = head_offset(t, b, h);
    int64_t rs = trans ? t->strides[3] : t->strides[2], cs = trans ? t->strides[2] : t->strides[3];
    for (int64_t r = 0; r < nr; r++) {
        gx_load_row_f32(t->dtype, base, off + (r0 + r) * rs, cs, ncols, dst + r * ld);
        for (int64_t c = ncols; c < ld; c++)
            dst[r * ld + c] = 0;
    }
}

void
gx_sdpa_unpack(const fdnn_graph_tensor_t *t, void *base, int64_t b, int64_t h, int64_t r0, int64_t nr,
               int64_t ncols, bool trans, const float *src, int64_t ld)
{
    int64_t off = head_offset(t, b, h);
    int64_t rs = trans ? t->strides[3] : t->strides[2], cs = trans ? t->strides[2] : t->strides[3];
    for (int64_t r = 0; r < nr; r++)
        gx_store_row_f32(t->dtype, base, off + (r0 + r) * rs, cs, ncols, src + r * ld);
}

void
gx_sdpa_apply_mods(const gx_sdpa_mods_t *m, int64_t i, int64_t j0, int64_t nj, float *s)
{
    for (int k = 0; k < m->nsteps; k++) {
        float v = m->value[k];
        switch (m->kind[k]) {
        case GX_SDPA_SCALE:
            for (int64_t j = 0; j < nj; j++)
                s[j] *= v;
            break;
        case GX_SDPA_CAUSAL:
            /* the graph compares the indices as FLOAT: row >= col keeps */
            for (int64_t j = 0; j < nj; j++)
                if (!((float)i >= (float)(j0 + j)))
                    s[j] = v;
            break;
        case GX_SDPA_PADDING: {
            bool row = (float)i < m->seq_q;
            for (int64_t j = 0; j < nj; j++)
                if (!(row && (float)(j0 + j) < m->seq_kv))
                    s[j] = v;
            break;
        }
        }
    }
}

void
gx_sdpa_keep(const gx_sdpa_mods_t *m, int64_t Sk, int64_t i, int64_t j0, int64_t nj, float *keep)
{
    if (m->mask_given) {
        const fdnn_graph_tensor_t *t = m->mask_tensor;
        int64_t off = head_offset(t, m->b, m->h) + i * t->strides[2];
        for (int64_t j = 0; j < nj; j++)
            keep[j] = (float)gx_load(t->dtype, m->mask_base, off + (j0 + j) * t->strides[3]) * m->dscale;
        return;
    }
    /* element f draws Philox number 2f: block f / 2, output 0 or 2 */
    uint64_t f = m->flat0 + (uint64_t)(i * Sk + j0);
    const uint32_t key[2] = {(uint32_t)m->seed, (uint32_t)(m->seed >> 32)};
    for (int64_t j = 0; j < nj;) {
        uint64_t blk = f >> 1;
        const uint32_t ctr[4] = {(uint32_t)blk, (uint32_t)(blk >> 32), (uint32_t)m->call, (uint32_t)(m->call >> 32)};
        uint32_t out[4];
        fdnn_philox4x32_10(ctr, key, out);
        for (; j < nj && (f >> 1) == blk; j++, f++) {
            uint32_t u = out[(f & 1) * 2];
            keep[j] = ((double)u + 0.5) * (1.0 / 4294967296.0) < m->keep_p ? m->dscale : 0.0f;
        }
    }
}

gx_sdpa_fwd_fn
gx_sdpa_fwd_for(fdnn_isa_t isa)
{
    return fdnn_isa_config(isa)->sdpa_fwd;
}

gx_sdpa_bwd_fn
gx_sdpa_bwd_for(fdnn_isa_t isa)
{
    return fdnn_isa_config(isa)->sdpa_bwd;
}
