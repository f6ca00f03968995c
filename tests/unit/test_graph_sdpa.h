/* SPDX-License-Identifier: Apache-2.0
 * Attention graphs for the attention-engine tests (test_graph_sdpa.c,
 * test_graph_sdpa_bwd.c), built the way cuDNN 8.9's frontend builds its
 * "scaled dot-product flash attention" forward and backward graphs (our own
 * builder: matmul, scale, padding and causal masks, softmax with the stats
 * output, dropout from a Philox RNG node or a given mask, matmul), and
 * their float64 references.
 *
 * Logical operands are kept in double (q[B][H][Sq][D], k[B][H][Sk][D],
 * v[B][H][Sk][D], dO like q); the graph's views (K^T, V^T, Q^T, dO^T) are
 * tensors over their own buffers holding the same values, written through
 * the views' strides (the transposes cuDNN reads from strides). */
#ifndef FDNN_TEST_GRAPH_SDPA_H
#define FDNN_TEST_GRAPH_SDPA_H

#include "cpu/dropout/philox.h"
#include "test_graph_engines.h"

typedef struct sdpa_opts {
    int64_t B, H, Sq, Sk, D;
    bool scale, causal, padding, stats;
    int dropout; /* 0 none, 1 RNG node (Philox), 2 mask given as input */
    cudnnDataType_t io;
    bool lean; /* benchmarks: no logical copies, random inputs, no reference */
} sdpa_opts_t;

#define SDPA_SCALE 0.125
#define SDPA_FILL (-1e9)
#define SDPA_DROP_P 0.25 /* probability of dropping */
#define SDPA_SEED 1234567
#define SDPA_OFFSET 89

typedef struct sdpa_graph {
    gb_t b;
    sdpa_opts_t o;
    /* graph tensors (-1 absent) */
    int q, kt, v, out, stats, seqq, seqkv, seed, offset, mask;
    /* backward only */
    int k, vt, dout, doutt, qt, oin, dq, dkt, dvt;
    /* logical values, double */
    double *Q, *K, *V, *dO, *O, *L; /* O and L (stats) as fed to the backward */
    int32_t seq_q[8], seq_kv[8];
} sdpa_graph_t;

static inline int64_t
sg_n(const sdpa_graph_t *s, int64_t rows)
{
    return s->o.B * s->o.H * rows * s->o.D;
}

/* Writes logical [B,H,R,C] values into tensor t, reading back what the
 * storage type kept (so references see the rounded inputs); `trans`: t is
 * [B,H,C,R]. */
static inline void
sg_put(gb_t *b, int t, double *vals, int64_t BH, int64_t R, int64_t C, bool trans)
{
    if (vals == NULL) { /* lean */
        fdnn_rng_t r;
        fdnn_rng_seed(&r, (uint64_t)t + 1);
        gb_fill(b, t, &r, -1, 1);
        return;
    }
    for (int64_t bh = 0; bh < BH; bh++)
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) {
                int64_t flat = trans ? (bh * C + c) * R + r : (bh * R + r) * C + c;
                gb_set(b, t, flat, vals[(bh * R + r) * C + c]);
                vals[(bh * R + r) * C + c] = gb_get(b, t, flat);
            }
}

/* Reads a [B,H,R,C] output (trans: stored [B,H,C,R]) into logical order. */
static inline void
sg_get(const gb_t *b, int t, double *vals, int64_t BH, int64_t R, int64_t C, bool trans)
{
    for (int64_t bh = 0; bh < BH; bh++)
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++)
                vals[(bh * R + r) * C + c] = gb_get(b, t, trans ? (bh * C + c) * R + r : (bh * R + r) * C + c);
}

/* Strides of a [B,H,C,R] view of packed [B,H,R,C] storage. */
static inline void
sg_trans_strides(int64_t H, int64_t R, int64_t C, int64_t *s)
{
    s[0] = H * R * C;
    s[1] = R * C;
    s[2] = 1;
    s[3] = C;
}

/* The score chain: S = Q x K^T, scale, padding mask, causal mask. */
static inline int
sg_scores(sdpa_graph_t *s, int fp)
{
    gb_t *b = &s->b;
    const sdpa_opts_t *o = &s->o;
    const int64_t sd[4] = {o->B, o->H, o->Sq, o->Sk}, ld[4] = {o->B, 1, 1, 1};
    int t = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    gb_matmul(b, CUDNN_DATA_FLOAT, s->q, s->kt, t);
    if (o->scale) {
        int t2 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
        gb_pw(b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, t, gb_scalar_f32(b, (float)SDPA_SCALE), FDNN_GRAPH_NONE, t2);
        t = t2;
    }
    if (o->padding) {
        if (s->seqq < 0) {
            s->seqq = gb_tensor(b, CUDNN_DATA_INT32, 4, ld, false);
            s->seqkv = gb_tensor(b, CUDNN_DATA_INT32, 4, ld, false);
            for (int64_t i = 0; i < o->B; i++) {
                ((int32_t *)b->data[s->seqq])[i] = s->seq_q[i];
                ((int32_t *)b->data[s->seqkv])[i] = s->seq_kv[i];
            }
        }
        int r = gb_tensor(b, CUDNN_DATA_INT32, 4, sd, true), c = gb_tensor(b, CUDNN_DATA_INT32, 4, sd, true);
        int rm = gb_tensor(b, CUDNN_DATA_BOOLEAN, 4, sd, true), cm = gb_tensor(b, CUDNN_DATA_BOOLEAN, 4, sd, true);
        int m = gb_tensor(b, CUDNN_DATA_BOOLEAN, 4, sd, true), t2 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
        gb_pw(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, t, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, r)->axis = 2;
        gb_pw(b, CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_FLOAT, r, s->seqq, FDNN_GRAPH_NONE, rm);
        gb_pw(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, t, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, c)->axis = 3;
        gb_pw(b, CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_FLOAT, c, s->seqkv, FDNN_GRAPH_NONE, cm);
        gb_pw(b, CUDNN_POINTWISE_LOGICAL_AND, CUDNN_DATA_FLOAT, rm, cm, FDNN_GRAPH_NONE, m);
        gb_pw(b, CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, t, gb_scalar_f32(b, (float)SDPA_FILL), m, t2);
        t = t2;
    }
    if (o->causal) {
        int r = gb_tensor(b, CUDNN_DATA_INT32, 4, sd, true), c = gb_tensor(b, CUDNN_DATA_INT32, 4, sd, true);
        int m = gb_tensor(b, CUDNN_DATA_BOOLEAN, 4, sd, true), t2 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
        gb_pw(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, t, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, r)->axis = 2;
        gb_pw(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, t, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, c)->axis = 3;
        gb_pw(b, CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_FLOAT, r, c, FDNN_GRAPH_NONE, m);
        gb_pw(b, CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, t, gb_scalar_f32(b, (float)SDPA_FILL), m, t2);
        t = t2;
    }
    (void)fp;
    return t;
}

/* P x M x scale; the mask's RNG node (or input) is created once. */
static inline int
sg_dropout(sdpa_graph_t *s, int p, int *scale_t)
{
    gb_t *b = &s->b;
    const sdpa_opts_t *o = &s->o;
    const int64_t sd[4] = {o->B, o->H, o->Sq, o->Sk}, one[4] = {1, 1, 1, 1};
    if (s->mask < 0) {
        if (o->dropout == 1) {
            s->mask = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
            s->seed = gb_tensor(b, CUDNN_DATA_INT64, 4, one, false);
            s->offset = gb_tensor(b, CUDNN_DATA_INT64, 4, one, false);
            ((int64_t *)b->data[s->seed])[0] = SDPA_SEED;
            ((int64_t *)b->data[s->offset])[0] = SDPA_OFFSET;
            fdnn_graph_node_t *n = &b->n[b->g.nnodes++];
            memset(n, 0, sizeof(*n));
            n->kind = FDNN_GOP_RNG;
            n->u.rng.distribution = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
            n->u.rng.bernoulli_probability = 1.0 - SDPA_DROP_P;
            n->u.rng.y = s->mask;
            n->u.rng.seed_tensor = s->seed;
            n->u.rng.offset = s->offset;
        } else {
            s->mask = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, false);
            fdnn_rng_t r;
            fdnn_rng_seed(&r, 77);
            for (int64_t i = 0; i < gb_count(b, s->mask); i++)
                gb_set(b, s->mask, i, fdnn_rng_uniform(&r, 0, 1) < SDPA_DROP_P ? 0 : 1);
        }
        *scale_t = gb_scalar_f32(b, (float)(1.0 / (1.0 - SDPA_DROP_P)));
    }
    int t1 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true), t2 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    gb_pw(b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, p, s->mask, FDNN_GRAPH_NONE, t1);
    gb_pw(b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, t1, *scale_t, FDNN_GRAPH_NONE, t2);
    return t2;
}

/* The dropout factor of (b, h, i, j): 0 or 1 / (1 - p) (1 without dropout). */
static inline double
sg_keep(const sdpa_graph_t *s, int64_t bh, int64_t i, int64_t j)
{
    const sdpa_opts_t *o = &s->o;
    if (o->dropout == 0)
        return 1;
    double ds = (double)(float)(1.0 / (1.0 - SDPA_DROP_P));
    int64_t f = (bh * o->Sq + i) * o->Sk + j;
    if (o->dropout == 2)
        return gb_get(&s->b, s->mask, f) * ds;
    uint32_t u = fdnn_dropout_random(SDPA_SEED, SDPA_OFFSET, 2 * (uint64_t)f);
    return ((double)u + 0.5) / 4294967296.0 < 1.0 - SDPA_DROP_P ? ds : 0;
}

/* The masked, scaled score of (b, h, i, j) in double. */
static inline double
sg_score(const sdpa_graph_t *s, int64_t bh, int64_t i, int64_t j)
{
    const sdpa_opts_t *o = &s->o;
    double dot = 0;
    for (int64_t d = 0; d < o->D; d++)
        dot += s->Q[(bh * o->Sq + i) * o->D + d] * s->K[(bh * o->Sk + j) * o->D + d];
    if (o->scale)
        dot *= SDPA_SCALE;
    int64_t bb = bh / o->H;
    if (o->padding && !(i < s->seq_q[bb] && j < s->seq_kv[bb]))
        dot = SDPA_FILL;
    if (o->causal && j > i)
        dot = SDPA_FILL;
    return dot;
}

static inline void
sg_values(sdpa_graph_t *s, fdnn_rng_t *rng, bool formula)
{
    const sdpa_opts_t *o = &s->o;
    double *a[4] = {s->Q, s->K, s->V, s->dO};
    const int64_t n[4] = {sg_n(s, o->Sq), sg_n(s, o->Sk), sg_n(s, o->Sk), sg_n(s, o->Sq)};
    for (int w = 0; w < 4 && !o->lean; w++)
        for (int64_t f = 0; f < n[w]; f++) {
            if (!formula)
                a[w][f] = fdnn_rng_uniform(rng, -1, 1);
            else if (w == 0)
                a[w][f] = sin(0.7 * (double)f + 0.3);
            else if (w == 1)
                a[w][f] = cos(0.45 * (double)f + 0.1);
            else if (w == 2)
                a[w][f] = sin(0.31 * (double)f + 1.1);
            else
                a[w][f] = cos(0.23 * (double)f + 0.7);
        }
    for (int64_t i = 0; i < o->B && i < 8; i++) {
        s->seq_q[i] = (int32_t)(o->Sq - 3 * i);
        s->seq_kv[i] = (int32_t)(o->Sk - 5 * i - 1);
    }
}

static inline void
sg_alloc(sdpa_graph_t *s, const sdpa_opts_t *o)
{
    memset(s, 0, sizeof(*s));
    s->o = *o;
    gb_init(&s->b);
    s->q = s->kt = s->v = s->out = s->stats = s->seqq = s->seqkv = s->seed = s->offset = s->mask = -1;
    s->k = s->vt = s->dout = s->doutt = s->qt = s->oin = s->dq = s->dkt = s->dvt = -1;
    if (o->lean)
        return;
    s->Q = malloc(sizeof(double) * (size_t)sg_n(s, o->Sq));
    s->dO = malloc(sizeof(double) * (size_t)sg_n(s, o->Sq));
    s->O = malloc(sizeof(double) * (size_t)sg_n(s, o->Sq));
    s->K = malloc(sizeof(double) * (size_t)sg_n(s, o->Sk));
    s->V = malloc(sizeof(double) * (size_t)sg_n(s, o->Sk));
    s->L = malloc(sizeof(double) * (size_t)(o->B * o->H * o->Sq));
}

static inline void
sg_free(sdpa_graph_t *s)
{
    free(s->Q), free(s->dO), free(s->O), free(s->K), free(s->V), free(s->L);
    gb_free(&s->b);
}

/* The forward graph; values from rng (or the formula of the PyTorch
 * comparison). */
static inline void
sg_build_fwd(sdpa_graph_t *s, const sdpa_opts_t *o, fdnn_rng_t *rng, bool formula)
{
    sg_alloc(s, o);
    gb_t *b = &s->b;
    const int64_t qd[4] = {o->B, o->H, o->Sq, o->D}, ktd[4] = {o->B, o->H, o->D, o->Sk},
                  vd[4] = {o->B, o->H, o->Sk, o->D}, sd[4] = {o->B, o->H, o->Sq, o->Sk},
                  rd[4] = {o->B, o->H, o->Sq, 1};
    int64_t kts[4];
    sg_trans_strides(o->H, o->Sk, o->D, kts);
    sg_values(s, rng, formula);
    s->q = gb_tensor(b, o->io, 4, qd, false);
    s->kt = gb_tensor_s(b, o->io, 4, ktd, kts, false);
    s->v = gb_tensor(b, o->io, 4, vd, false);
    sg_put(b, s->q, s->Q, o->B * o->H, o->Sq, o->D, false);
    sg_put(b, s->kt, s->K, o->B * o->H, o->Sk, o->D, true);
    sg_put(b, s->v, s->V, o->B * o->H, o->Sk, o->D, false);
    int t = sg_scores(s, 0);
    int mx = gb_tensor(b, CUDNN_DATA_FLOAT, 4, rd, true), e1 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    int e2 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true), sm = gb_tensor(b, CUDNN_DATA_FLOAT, 4, rd, true);
    int p = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    gb_reduction(b, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, t, mx);
    gb_pw(b, CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, t, mx, FDNN_GRAPH_NONE, e1);
    gb_pw(b, CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, e1, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, e2);
    gb_reduction(b, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, e2, sm);
    if (o->stats) {
        int lg = gb_tensor(b, CUDNN_DATA_FLOAT, 4, rd, true);
        s->stats = gb_tensor(b, CUDNN_DATA_FLOAT, 4, rd, false);
        gb_pw(b, CUDNN_POINTWISE_LOG, CUDNN_DATA_FLOAT, sm, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, lg);
        gb_pw(b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, mx, lg, FDNN_GRAPH_NONE, s->stats);
    }
    gb_pw(b, CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, e2, sm, FDNN_GRAPH_NONE, p);
    if (o->dropout) {
        int sc = -1;
        p = sg_dropout(s, p, &sc);
    }
    s->out = gb_tensor(b, o->io, 4, qd, false);
    gb_matmul(b, CUDNN_DATA_FLOAT, p, s->v, s->out);
}

/* Forward reference: O [B,H,Sq,D] and the stats [B,H,Sq]. */
static inline void
sg_ref_fwd(const sdpa_graph_t *s, double *O, double *L)
{
    const sdpa_opts_t *o = &s->o;
    double *w = malloc(sizeof(double) * (size_t)o->Sk);
    for (int64_t bh = 0; bh < o->B * o->H; bh++)
        for (int64_t i = 0; i < o->Sq; i++) {
            double m = -INFINITY, l = 0;
            for (int64_t j = 0; j < o->Sk; j++) {
                w[j] = sg_score(s, bh, i, j);
                m = w[j] > m ? w[j] : m;
            }
            for (int64_t j = 0; j < o->Sk; j++)
                l += (w[j] = exp(w[j] - m));
            L[bh * o->Sq + i] = m + log(l);
            for (int64_t d = 0; d < o->D; d++) {
                double acc = 0;
                for (int64_t j = 0; j < o->Sk; j++)
                    acc += w[j] / l * sg_keep(s, bh, i, j) * s->V[(bh * o->Sk + j) * o->D + d];
                O[(bh * o->Sq + i) * o->D + d] = acc;
            }
        }
    free(w);
}

/* The backward graph: O and the stats come from sg_ref_fwd (rounded to
 * the storage types). */
static inline void
sg_build_bwd(sdpa_graph_t *s, const sdpa_opts_t *o, fdnn_rng_t *rng, bool formula)
{
    sg_alloc(s, o);
    gb_t *b = &s->b;
    const int64_t qd[4] = {o->B, o->H, o->Sq, o->D}, qtd[4] = {o->B, o->H, o->D, o->Sq},
                  ktd[4] = {o->B, o->H, o->D, o->Sk}, kd[4] = {o->B, o->H, o->Sk, o->D},
                  sd[4] = {o->B, o->H, o->Sq, o->Sk}, rd[4] = {o->B, o->H, o->Sq, 1};
    int64_t kts[4], qts[4];
    sg_trans_strides(o->H, o->Sk, o->D, kts);
    sg_trans_strides(o->H, o->Sq, o->D, qts);
    sg_values(s, rng, formula);
    const int64_t BH = o->B * o->H;
    s->q = gb_tensor(b, o->io, 4, qd, false);
    s->kt = gb_tensor_s(b, o->io, 4, ktd, kts, false);
    s->k = gb_tensor(b, o->io, 4, kd, false);
    s->vt = gb_tensor_s(b, o->io, 4, ktd, kts, false);
    s->dout = gb_tensor(b, o->io, 4, qd, false);
    s->doutt = gb_tensor_s(b, o->io, 4, qtd, qts, false);
    s->qt = gb_tensor_s(b, o->io, 4, qtd, qts, false);
    s->oin = gb_tensor(b, o->io, 4, qd, false);
    s->stats = gb_tensor(b, CUDNN_DATA_FLOAT, 4, rd, false);
    sg_put(b, s->q, s->Q, BH, o->Sq, o->D, false);
    sg_put(b, s->qt, s->Q, BH, o->Sq, o->D, true);
    sg_put(b, s->kt, s->K, BH, o->Sk, o->D, true);
    sg_put(b, s->k, s->K, BH, o->Sk, o->D, false);
    sg_put(b, s->vt, s->V, BH, o->Sk, o->D, true);
    sg_put(b, s->dout, s->dO, BH, o->Sq, o->D, false);
    sg_put(b, s->doutt, s->dO, BH, o->Sq, o->D, true);
    /* S and P as the forward saw them (the dropout mask is created by the
     * chain below; the forward reference needs it, so build first) */
    int t = sg_scores(s, 1);
    int z = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true), p = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    gb_pw(b, CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, t, s->stats, FDNN_GRAPH_NONE, z);
    gb_pw(b, CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, z, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, p);
    int dsc = -1, pd = p;
    if (o->dropout)
        pd = sg_dropout(s, p, &dsc);
    s->dvt = gb_tensor_s(b, o->io, 4, ktd, kts, false);
    gb_matmul(b, CUDNN_DATA_FLOAT, s->doutt, pd, s->dvt);
    int dp = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    gb_matmul(b, CUDNN_DATA_FLOAT, s->dout, s->vt, dp);
    if (o->dropout)
        dp = sg_dropout(s, dp, &dsc);
    int oo = gb_tensor(b, CUDNN_DATA_FLOAT, 4, qd, true), dr = gb_tensor(b, CUDNN_DATA_FLOAT, 4, rd, true);
    gb_pw(b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, s->dout, s->oin, FDNN_GRAPH_NONE, oo);
    gb_reduction(b, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, oo, dr);
    int d0 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true), d1 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    gb_pw(b, CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, dp, dr, FDNN_GRAPH_NONE, d0);
    gb_pw(b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, p, d0, FDNN_GRAPH_NONE, d1);
    int ds = d1;
    if (o->scale) {
        ds = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
        gb_pw(b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, d1, gb_scalar_f32(b, (float)SDPA_SCALE), FDNN_GRAPH_NONE, ds);
    }
    s->dq = gb_tensor(b, o->io, 4, qd, false);
    gb_matmul(b, CUDNN_DATA_FLOAT, ds, s->k, s->dq);
    s->dkt = gb_tensor_s(b, o->io, 4, ktd, kts, false);
    gb_matmul(b, CUDNN_DATA_FLOAT, s->qt, ds, s->dkt);
    if (o->lean) { /* any O; stats near log Sk keep exp(S - stats) in range */
        sg_put(b, s->oin, NULL, BH, o->Sq, o->D, false);
        for (int64_t i = 0; i < BH * o->Sq; i++)
            gb_set(b, s->stats, i, log((double)o->Sk) + 1);
        return;
    }
    /* the forward's O and stats, from the reference, rounded as stored */
    sg_ref_fwd(s, s->O, s->L);
    sg_put(b, s->oin, s->O, BH, o->Sq, o->D, false);
    for (int64_t i = 0; i < BH * o->Sq; i++) {
        gb_set(b, s->stats, i, s->L[i]);
        s->L[i] = gb_get(b, s->stats, i);
    }
}

/* Backward reference from the inputs as stored: dQ, dK, dV in logical
 * order ([B,H,Sq,D], [B,H,Sk,D], [B,H,Sk,D]). */
static inline void
sg_ref_bwd(const sdpa_graph_t *s, double *dQ, double *dK, double *dV)
{
    const sdpa_opts_t *o = &s->o;
    const int64_t D = o->D, Sq = o->Sq, Sk = o->Sk;
    memset(dQ, 0, sizeof(double) * (size_t)sg_n(s, Sq));
    memset(dK, 0, sizeof(double) * (size_t)sg_n(s, Sk));
    memset(dV, 0, sizeof(double) * (size_t)sg_n(s, Sk));
    for (int64_t bh = 0; bh < o->B * o->H; bh++)
        for (int64_t i = 0; i < Sq; i++) {
            const double *q = s->Q + (bh * Sq + i) * D, *g = s->dO + (bh * Sq + i) * D, *oi = s->O + (bh * Sq + i) * D;
            double dr = 0;
            for (int64_t d = 0; d < D; d++)
                dr += g[d] * oi[d];
            for (int64_t j = 0; j < Sk; j++) {
                double p = exp(sg_score(s, bh, i, j) - s->L[bh * Sq + i]), keep = sg_keep(s, bh, i, j);
                const double *k = s->K + (bh * Sk + j) * D, *v = s->V + (bh * Sk + j) * D;
                double dp = 0;
                for (int64_t d = 0; d < D; d++)
                    dp += g[d] * v[d];
                double ds = p * (dp * keep - dr) * (o->scale ? SDPA_SCALE : 1);
                for (int64_t d = 0; d < D; d++) {
                    dV[(bh * Sk + j) * D + d] += p * keep * g[d];
                    dK[(bh * Sk + j) * D + d] += ds * q[d];
                    dQ[(bh * Sq + i) * D + d] += ds * k[d];
                }
            }
        }
}

/* |got - ref| <= tol * max |ref| everywhere; the count of misses. */
static inline int
sg_misses(const double *got, const double *ref, int64_t n, double tol)
{
    double mx = 0;
    for (int64_t i = 0; i < n; i++)
        mx = fabs(ref[i]) > mx ? fabs(ref[i]) : mx;
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += !(fabs(got[i] - ref[i]) <= tol * (mx > 0 ? mx : 1));
    return bad;
}

#endif /* FDNN_TEST_GRAPH_SDPA_H */
