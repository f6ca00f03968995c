/* SPDX-License-Identifier: Apache-2.0
 * The fused-epilogue engine (the runtime-fusion analogue): a convolution
 * forward or a matmul followed by a chain of pointwise ops on its output
 *
 *     v0 = conv(x, w) | A x B;  v1 = op1(v0, o1);  ...;  y = opk(v_{k-1}, ok)
 *
 * where every v is virtual and read only by the next op, and each o is a
 * graph input broadcast to y (bias, scale, residual, clamp bounds...).  It
 * runs in blocks: the solver / GEMM writes one block of v0 (a few images
 * of the convolution, a panel of rows of one matmul batch) into a buffer
 * of about GX_FUSED_BLOCK_BYTES, and the whole chain runs on that block
 * right away, GX_CHUNK elements at a time in stack buffers, while it is
 * still in cache; only y is written to memory.  No intermediate tensor is
 * materialized.
 *
 * The chain is the same row kernels as the generic engine's pointwise
 * nodes (gx_pw_row_*), each intermediate rounded through its tensor's data
 * type as the generic engine stores it, so the two engines agree bitwise
 * whenever the solver gives the same bits on a block as on the whole
 * tensor (tests/unit/test_graph_fused.c says where they do). */
#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"
#include "core/conv.h"
#include "core/conv_solver.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/pool.h"
#include "cpu/graph/engines.h"
#include "cpu/graph/graph_exec.h"

/* The block the producer writes before the chain runs on it: about half of
 * a typical 1-2 MiB L2, so the block and the chain's other operands fit. */
#define GX_FUSED_BLOCK_BYTES (512u * 1024u)

#define MAX_CHAIN (FDNN_GRAPH_MAX_INPUTS)

/* The chain of one graph, resolved. */
typedef struct chain {
    int nops;
    gx_pw_t pw[MAX_CHAIN];
    int slot[MAX_CHAIN];     /* where the running value enters: 0 x, 1 b, 2 t */
    int other[MAX_CHAIN][3]; /* the other operands by slot (NONE: the chain / unused) */
    int out[MAX_CHAIN];      /* the output tensor of each op */
    int nin[MAX_CHAIN];
    bool f64;
    bool affine; /* every op ADD, SUB, MUL or RELU_FWD, FLOAT throughout (affine_row) */
    int v0; /* the producer's output */
    int y;  /* the last op's output */
} chain_t;

static cudnnStatus_t
resolve(const fdnn_graph_t *g, chain_t *c)
{
    if (g->nnodes < 2)
        return FDNN_NOT_SUPPORTED("fused engine: %d node(s), nothing to fuse", g->nnodes);
    const fdnn_graph_node_t *p = &g->nodes[0];
    if (p->kind != FDNN_GOP_CONV_FWD && p->kind != FDNN_GOP_MATMUL)
        return FDNN_NOT_SUPPORTED("fused engine: node 0 (%s) is not a convolution forward or a matmul",
                                  fdnn_graph_op_name(p->kind));
    if (g->nnodes - 1 > MAX_CHAIN)
        return FDNN_NOT_SUPPORTED("fused engine: %d pointwise ops, at most %d fuse", g->nnodes - 1, MAX_CHAIN);
    c->v0 = p->kind == FDNN_GOP_CONV_FWD ? p->u.conv.y : p->u.matmul.c;
    if (p->kind == FDNN_GOP_CONV_FWD && p->u.conv.beta != 0)
        return FDNN_NOT_SUPPORTED("fused engine: node 0 (conv_fwd) has beta %g; its output is virtual", p->u.conv.beta);
    const fdnn_graph_tensor_t *v0 = &g->tensors[c->v0];
    int cur = c->v0;
    c->nops = g->nnodes - 1;
    for (int i = 1; i < g->nnodes; i++) {
        const fdnn_graph_node_t *n = &g->nodes[i];
        if (n->kind != FDNN_GOP_POINTWISE)
            return FDNN_NOT_SUPPORTED("fused engine: node %d (%s) is not pointwise", i, fdnn_graph_op_name(n->kind));
        const fdnn_gop_pointwise_t *op = &n->u.pointwise;
        RETURN_IF_ERROR(gx_pw_supports(g, i));
        if (op->mode == CUDNN_POINTWISE_GEN_INDEX || op->mode >= CUDNN_POINTWISE_RELU_BWD)
            return FDNN_NOT_SUPPORTED("fused engine: node %d (pointwise %s) is not a "
                                      "forward elementwise mode",
                                      i, gx_pw_mode_name(op->mode));
        int k = i - 1, ins[3];
        gx_pw_operands(op, &c->out[k], &ins[0], &ins[1], &ins[2]);
        gx_pw_init(op, FDNN_ISA_SCALAR, &c->pw[k]);
        c->nin[k] = gx_pw_arity(op->mode);
        if (k == 0)
            c->f64 = c->pw[k].f64;
        else if (c->pw[k].f64 != c->f64)
            return FDNN_NOT_SUPPORTED("fused engine: node %d (pointwise %s) has "
                                      "another math precision than node 1",
                                      i, gx_pw_mode_name(op->mode));
        c->slot[k] = -1;
        for (int s = 0; s < 3; s++) {
            c->other[k][s] = FDNN_GRAPH_NONE;
            if (s >= c->nin[k])
                continue;
            if (ins[s] == cur) {
                if (c->slot[k] >= 0)
                    return FDNN_NOT_SUPPORTED("fused engine: node %d (pointwise %s) reads the chain twice", i,
                                              gx_pw_mode_name(op->mode));
                c->slot[k] = s;
            } else if (g->tensors[ins[s]].is_virtual) {
                return FDNN_NOT_SUPPORTED("fused engine: node %d (pointwise %s) reads "
                                          "virtual tensor %d, not the "
                                          "chain",
                                          i, gx_pw_mode_name(op->mode), ins[s]);
            } else {
                c->other[k][s] = ins[s];
            }
        }
        if (c->slot[k] < 0)
            return FDNN_NOT_SUPPORTED("fused engine: node %d (pointwise %s) does not "
                                      "read the output of node %d",
                                      i, gx_pw_mode_name(op->mode), i - 1);
        const fdnn_graph_tensor_t *o = &g->tensors[c->out[k]];
        if (o->ndim != v0->ndim || memcmp(o->dims, v0->dims, sizeof(int64_t) * (size_t)o->ndim) != 0)
            return FDNN_NOT_SUPPORTED("fused engine: node %d (pointwise %s) output's "
                                      "dims differ from node 0's",
                                      i, gx_pw_mode_name(op->mode));
        bool last = i == g->nnodes - 1;
        if (o->is_virtual == last)
            return FDNN_NOT_SUPPORTED("fused engine: node %d (pointwise %s): only the last output may be "
                                      "non-virtual, and it must be",
                                      i, gx_pw_mode_name(op->mode));
        cur = c->out[k];
    }
    if (!v0->is_virtual)
        return FDNN_NOT_SUPPORTED("fused engine: node 0 (%s) writes a non-virtual tensor", fdnn_graph_op_name(p->kind));
    c->y = cur;
    c->affine = !c->f64 && v0->dtype == CUDNN_DATA_FLOAT;
    for (int k = 0; k < c->nops && c->affine; k++) {
        cudnnPointwiseMode_t m = c->pw[k].mode;
        c->affine = (m == CUDNN_POINTWISE_ADD || m == CUDNN_POINTWISE_SUB || m == CUDNN_POINTWISE_MUL ||
                     m == CUDNN_POINTWISE_RELU_FWD) &&
                    c->pw[k].alpha1 == 1 && c->pw[k].alpha2 == 1 && g->tensors[c->out[k]].dtype == CUDNN_DATA_FLOAT;
        for (int sl = 0; sl < c->nin[k] && c->affine; sl++)
            c->affine = sl == c->slot[k] || g->tensors[c->other[k][sl]].dtype == CUDNN_DATA_FLOAT;
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the producer's blocks ----------------------------------------------- */

typedef struct plan {
    chain_t ch;
    bool conv;
    fdnn_conv_problem_t cp; /* conv: the whole problem */
    int64_t nb;             /* conv: images per block */
    int algo[2];            /* conv: for full blocks and the last one */
    size_t conv_ws;         /* conv: the larger of the two */
    gx_mm_t mm;             /* matmul */
    int64_t rows;           /* matmul: rows per panel of the chain */
    bool mm_in_y;           /* matmul: C computed in y's memory */
    int64_t y_ld;           /* ... with this leading dim */
    size_t block_bytes;
} plan_t;

/* The conv problem of `nb` images. */
static void
sub_problem(const fdnn_conv_problem_t *p, int64_t nb, fdnn_conv_problem_t *s)
{
    *s = *p;
    s->n = nb;
    s->x.dims[0] = s->y.dims[0] = nb;
}

static cudnnStatus_t
make_plan(const fdnn_graph_t *g, plan_t *pl)
{
    memset(pl, 0, sizeof(*pl));
    RETURN_IF_ERROR(resolve(g, &pl->ch));
    const fdnn_graph_tensor_t *v0 = &g->tensors[pl->ch.v0];
    size_t es = gx_dtype_size(v0->dtype);
    if (g->nodes[0].kind == FDNN_GOP_CONV_FWD) {
        pl->conv = true;
        RETURN_IF_ERROR(gx_conv_problem(g, 0, &pl->cp));
        fdnn_graph_tensor_t one = *v0;
        one.dims[0] = 1;
        int64_t span;
        if (!gx_tensor_span(&one, &span) || span <= 0)
            return FDNN_NOT_SUPPORTED("fused engine: node 0 (conv_fwd): the output of one image overflows");
        int64_t per = span * (int64_t)es;
        pl->nb = (int64_t)GX_FUSED_BLOCK_BYTES / per;
        pl->nb = pl->nb < 1 ? 1 : pl->nb > pl->cp.n ? pl->cp.n : pl->nb;
        one.dims[0] = pl->nb;
        if (!gx_tensor_span(&one, &span) || !fdnn_ckd_bytes(span, es, &pl->block_bytes))
            return FDNN_NOT_SUPPORTED("fused engine: node 0 (conv_fwd): the output block overflows");
        int64_t last = pl->cp.n % pl->nb;
        for (int i = 0; i < 2; i++) {
            fdnn_conv_problem_t s;
            size_t ws = 0;
            sub_problem(&pl->cp, i == 0 ? pl->nb : (last ? last : pl->nb), &s);
            cudnnStatus_t st = gx_conv_pick(&s, &pl->algo[i], &ws);
            if (st != CUDNN_STATUS_SUCCESS)
                return FDNN_NOT_SUPPORTED("node 0 (conv_fwd): %s", fdnn_fail_reason());
            pl->conv_ws = ws > pl->conv_ws ? ws : pl->conv_ws;
        }
    } else {
        RETURN_IF_ERROR(gx_mm_plan(g, 0, &pl->mm));
        /* When y can hold C (same type, rows of unit stride), the GEMM
         * writes each batch straight into y's memory and the chain runs in
         * place, panel by panel: one GEMM call per batch (no repacking of
         * B per panel) and no buffer for C at all. */
        const fdnn_graph_tensor_t *y = &g->tensors[pl->ch.y];
        int nd = y->ndim;
        if (y->dtype == v0->dtype && !pl->mm.c_colmajor && (y->dims[nd - 1] == 1 || y->strides[nd - 1] == 1) &&
            (y->dims[nd - 2] == 1 || y->strides[nd - 2] >= y->dims[nd - 1])) {
            pl->mm_in_y = true;
            pl->y_ld = y->dims[nd - 2] == 1 ? y->dims[nd - 1] : y->strides[nd - 2];
        }
        int64_t rb = (int64_t)GX_FUSED_BLOCK_BYTES / (pl->mm.n * (int64_t)es);
        pl->rows = rb < 8 ? 8 : rb;
        pl->rows = pl->rows > pl->mm.m ? pl->mm.m : pl->rows;
        if (pl->mm_in_y)
            pl->block_bytes = 0;
        else if (!fdnn_ckd_bytes(pl->rows * pl->mm.n, es, &pl->block_bytes))
            return FDNN_NOT_SUPPORTED("fused engine: node 0 (matmul): the panel overflows");
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Block buffer, then the conv solver's workspace, each GX_ALIGN aligned. */
static size_t
scratch_bytes(const plan_t *pl, size_t *ws_at)
{
    size_t a = (pl->block_bytes + GX_ALIGN - 1) / GX_ALIGN * GX_ALIGN;
    *ws_at = a;
    return a + pl->conv_ws;
}

static cudnnStatus_t
layout(const fdnn_graph_t *g, const plan_t *pl, gx_layout_t *lay)
{
    size_t at;
    bool *none = calloc((size_t)(g->ntensors > 0 ? g->ntensors : 1), sizeof(bool));
    lay->tensor_offset = malloc(sizeof(size_t) * (size_t)(g->ntensors > 0 ? g->ntensors : 1));
    if (none == NULL || lay->tensor_offset == NULL) {
        free(none);
        free(lay->tensor_offset);
        return FDNN_ALLOC_FAILED("fused engine: out of memory for the layout");
    }
    cudnnStatus_t st = gx_layout_init(g, none, scratch_bytes(pl, &at), lay);
    free(none);
    if (st != CUDNN_STATUS_SUCCESS)
        free(lay->tensor_offset);
    return st;
}

cudnnStatus_t
gx_fused_supports(const fdnn_graph_t *g)
{
    plan_t pl;
    return make_plan(g, &pl);
}

cudnnStatus_t
gx_fused_workspace(const fdnn_graph_t *g, const fdnn_graph_knobs_t *knobs, size_t *bytes)
{
    (void)knobs;
    plan_t pl;
    gx_layout_t lay;
    RETURN_IF_ERROR(make_plan(g, &pl));
    RETURN_IF_ERROR(layout(g, &pl, &lay));
    *bytes = lay.total;
    free(lay.tensor_offset);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the chain on one block ---------------------------------------------- */

/* A box of v0's index space [lo, lo + cnt) whose values are in buf (type
 * bdt) at sum (idx - lo) * bstr. */
typedef struct block {
    const fdnn_graph_t *g;
    void **ptr;
    const chain_t *ch;
    const void *buf;
    cudnnDataType_t bdt;
    int ndim, row_dim, row_first; /* rows span dims row_first..row_dim */
    int64_t row_len;
    int64_t lo[FDNN_GRAPH_MAX_DIMS], cnt[FDNN_GRAPH_MAX_DIMS], bstr[FDNN_GRAPH_MAX_DIMS];
    int64_t nrows;
} block_t;

/* Rounds a chain value through storage type dt, as the generic engine's
 * store and load of that virtual tensor would. */
static void
round_f32(cudnnDataType_t dt, float *v, int64_t n)
{
    if (dt == CUDNN_DATA_FLOAT)
        return;
    unsigned char tmp[8];
    for (int64_t i = 0; i < n; i++) {
        gx_store(dt, tmp, 0, v[i]);
        v[i] = (float)gx_load(dt, tmp, 0);
    }
}

static void
round_f64(cudnnDataType_t dt, double *v, int64_t n)
{
    if (dt == CUDNN_DATA_DOUBLE)
        return;
    unsigned char tmp[8];
    for (int64_t i = 0; i < n; i++) {
        gx_store(dt, tmp, 0, v[i]);
        v[i] = gx_load(dt, tmp, 0);
    }
}

/* The stride of t along dim d as the walk sees it (0: broadcast). */
static int64_t
eff_stride(const fdnn_graph_tensor_t *t, int d)
{
    return t->by_value || t->dims[d] == 1 ? 0 : t->strides[d];
}

/* Whether a row of the chain (dims [first, row_dim] of the box) can take
 * in dim first - 1 too: every operand must go on linearly, its stride
 * there the row stride times the row length so far. */
static bool
mergeable(const block_t *b, int first, int64_t len)
{
    int rd = b->row_dim, d = first - 1;
    if (b->bstr[d] != b->bstr[rd] * len)
        return false;
    const chain_t *ch = b->ch;
    const fdnn_graph_tensor_t *y = &b->g->tensors[ch->y];
    if (eff_stride(y, d) != eff_stride(y, rd) * len)
        return false;
    for (int k = 0; k < ch->nops; k++)
        for (int s = 0; s < ch->nin[k]; s++) {
            if (s == ch->slot[k])
                continue;
            const fdnn_graph_tensor_t *t = &b->g->tensors[ch->other[k][s]];
            if (eff_stride(t, d) != eff_stride(t, rd) * len)
                return false;
        }
    return true;
}

/* One row of the box: positions idx (the row's first element) onwards,
 * row_len elements, each operand advancing by its stride along row_dim. */
#define CHAIN_ROW(T, SUF)                                                                               \
    static void chain_row_##SUF(const block_t *b, const int64_t *idx, int64_t boff)                     \
    {                                                                                                   \
        const chain_t *ch = b->ch;                                                                      \
        const fdnn_graph_t *g = b->g;                                                                   \
        const fdnn_graph_tensor_t *y = &g->tensors[ch->y];                                              \
        int rd = b->row_dim;                                                                            \
        int64_t len = b->row_len, bs = b->bstr[rd];                                                     \
        int64_t yoff = gx_bcast_offset(y, idx), ystr = eff_stride(y, rd);                               \
        int64_t off[MAX_CHAIN][3], str[MAX_CHAIN][3];                                                   \
        for (int k = 0; k < ch->nops; k++)                                                              \
            for (int s = 0; s < ch->nin[k]; s++)                                                        \
                if (s != ch->slot[k]) {                                                                 \
                    const fdnn_graph_tensor_t *t = &g->tensors[ch->other[k][s]];                        \
                    off[k][s] = t->by_value ? 0 : gx_bcast_offset(t, idx);                              \
                    str[k][s] = eff_stride(t, rd);                                                      \
                }                                                                                       \
        for (int64_t j0 = 0; j0 < len; j0 += GX_CHUNK) {                                                \
            int64_t n = len - j0 < GX_CHUNK ? len - j0 : GX_CHUNK;                                      \
            T va[GX_CHUNK], vb[GX_CHUNK], in[3][GX_CHUNK];                                              \
            T *v = va, *r = vb;                                                                         \
            /* The last op writes y itself and the first reads v0 in place where    */                  \
            /* their types and strides allow (not both with one op: in and out may */                  \
            /* be the same memory, in y, and the row kernels take restrict).        */                  \
            T *yout = y->dtype == GX_DT_##SUF && ystr == 1 ? (T *)b->ptr[ch->y] + yoff + j0 : NULL;     \
            const T *v_in = v;                                                                          \
            if (b->bdt == GX_DT_##SUF && bs == 1 && (ch->nops > 1 || yout == NULL))                     \
                v_in = (const T *)b->buf + boff + j0;                                                   \
            else                                                                                        \
                gx_load_row_##SUF(b->bdt, b->buf, boff + j0 * bs, bs, n, v);                            \
            for (int k = 0; k < ch->nops; k++) {                                                        \
                const T *ops[3] = {NULL, NULL, NULL};                                                   \
                for (int s = 0; s < ch->nin[k]; s++) {                                                  \
                    if (s == ch->slot[k]) {                                                             \
                        ops[s] = k == 0 ? v_in : v;                                                     \
                        continue;                                                                       \
                    }                                                                                   \
                    const fdnn_graph_tensor_t *t = &g->tensors[ch->other[k][s]];                        \
                    const void *base = b->ptr[ch->other[k][s]];                                         \
                    if (t->dtype == GX_DT_##SUF && str[k][s] == 1) { /* in place: no copy */            \
                        ops[s] = (const T *)base + off[k][s] + j0;                                      \
                        continue;                                                                       \
                    }                                                                                   \
                    gx_load_row_##SUF(t->dtype, base, off[k][s] + j0 * str[k][s], str[k][s], n, in[s]); \
                    ops[s] = in[s];                                                                     \
                }                                                                                       \
                bool last = k + 1 == ch->nops;                                                          \
                gx_pw_row_##SUF(&ch->pw[k], n, last && yout != NULL ? yout : r, ops[0], ops[1], ops[2]); \
                T *tmp = v;                                                                             \
                v = r;                                                                                  \
                r = tmp;                                                                                \
                if (!last)                                                                              \
                    round_##SUF(g->tensors[ch->out[k]].dtype, v, n);                                    \
            }                                                                                           \
            if (yout == NULL)                                                                           \
                gx_store_row_##SUF(y->dtype, b->ptr[ch->y], yoff + j0 * ystr, ystr, n, v);              \
        }                                                                                               \
    }

#define GX_DT_f32 CUDNN_DATA_FLOAT
#define GX_DT_f64 CUDNN_DATA_DOUBLE
CHAIN_ROW(float, f32)
CHAIN_ROW(double, f64)

/* The common epilogue (scale, bias, residual, ReLU: ch->affine) on a row
 * whose value and output are contiguous and whose other operands are
 * contiguous or constant along it: each op one plain loop over a chunk in
 * registers / L1, no per-op copies or broadcasts.  The same float
 * operations, in the same order, as gx_pw_row_f32 (ADD x + b, SUB x - b,
 * MUL x * b, RELU_FWD's select), so the bits are the generic engine's.
 * False (nothing done) when the row does not qualify. */
static bool
affine_row(const block_t *b, const int64_t *idx, int64_t boff)
{
    const chain_t *ch = b->ch;
    const fdnn_graph_t *g = b->g;
    const fdnn_graph_tensor_t *y = &g->tensors[ch->y];
    int rd = b->row_dim;
    if (!ch->affine || b->bstr[rd] != 1 || eff_stride(y, rd) != 1 || y->dtype != CUDNN_DATA_FLOAT)
        return false;
    const float *opnd[MAX_CHAIN];
    bool vec[MAX_CHAIN];
    for (int k = 0; k < ch->nops; k++) {
        opnd[k] = NULL, vec[k] = false;
        if (ch->nin[k] < 2)
            continue;
        const fdnn_graph_tensor_t *t = &g->tensors[ch->other[k][1 - ch->slot[k]]];
        int64_t st = eff_stride(t, rd);
        if (st != 0 && st != 1)
            return false;
        vec[k] = st == 1;
        opnd[k] = (const float *)b->ptr[ch->other[k][1 - ch->slot[k]]] + (t->by_value ? 0 : gx_bcast_offset(t, idx));
    }
    const float *src = (const float *)b->buf + boff;
    float *dst = (float *)b->ptr[ch->y] + gx_bcast_offset(y, idx);
    int64_t len = b->row_len;
    for (int64_t j0 = 0; j0 < len; j0 += GX_CHUNK) {
        int64_t n = len - j0 < GX_CHUNK ? len - j0 : GX_CHUNK;
        float va[GX_CHUNK], vb[GX_CHUNK], *v = va, *w = vb;
        memcpy(v, src + j0, sizeof(float) * (size_t)n);
        for (int k = 0; k < ch->nops; k++) {
            const gx_pw_t *pw = &ch->pw[k];
            if (pw->mode == CUDNN_POINTWISE_RELU_FWD || vec[k]) {
                /* the ISA's row kernel (vectorized selects), ping-pong buffers */
                const float *o = vec[k] ? opnd[k] + j0 : NULL;
                bool first = ch->slot[k] == 0;
                gx_pw_row_f32(pw, n, w, first ? v : o, first ? o : v, NULL);
                float *tmp = v;
                v = w, w = tmp;
                continue;
            }
            /* a constant along the row: plain loops (x + c, x * c commute) */
            const float c = *opnd[k];
            if (pw->mode == CUDNN_POINTWISE_ADD)
                for (int64_t i = 0; i < n; i++) v[i] += c;
            else if (pw->mode == CUDNN_POINTWISE_MUL)
                for (int64_t i = 0; i < n; i++) v[i] *= c;
            else if (ch->slot[k] == 0)
                for (int64_t i = 0; i < n; i++) v[i] -= c;
            else
                for (int64_t i = 0; i < n; i++) v[i] = c - v[i];
        }
        memcpy(dst + j0, v, sizeof(float) * (size_t)n);
    }
    return true;
}

static void
block_row_task(void *ctx, size_t row)
{
    const block_t *b = ctx;
    int64_t idx[FDNN_GRAPH_MAX_DIMS], boff = 0, r = (int64_t)row;
    for (int d = b->ndim - 1; d >= 0; d--) {
        int64_t i = 0;
        if (d < b->row_first || d > b->row_dim) {
            i = r % b->cnt[d];
            r /= b->cnt[d];
        }
        idx[d] = b->lo[d] + i;
        boff += i * b->bstr[d];
    }
    if (b->ch->f64)
        chain_row_f64(b, idx, boff);
    else if (!affine_row(b, idx, boff))
        chain_row_f32(b, idx, boff);
}

/* The rows of the chain over box b: the innermost unit-stride dim, merged
 * outwards while every operand goes on linearly. */
static void
block_rows(block_t *b)
{
    b->row_dim = b->ndim - 1;
    for (int d = b->ndim - 1; d >= 0; d--)
        if (b->bstr[d] == 1 && b->cnt[d] > 1) {
            b->row_dim = d;
            break;
        }
    /* Longer rows where every operand allows: fewer calls per element. */
    b->row_first = b->row_dim;
    b->row_len = b->cnt[b->row_dim];
    while (b->row_first > 0 && mergeable(b, b->row_first, b->row_len)) {
        b->row_first--;
        b->row_len *= b->cnt[b->row_first];
    }
    int64_t total = 1;
    for (int d = 0; d < b->ndim; d++)
        total *= b->cnt[d];
    b->nrows = total / b->row_len;
}

static void
run_block(cudnnHandle_t h, block_t *b)
{
    block_rows(b);
    int64_t total = b->nrows * b->row_len;
    fdnn_pool_t pool = total < 65536 ? NULL : fdnn_handle_pool(h);
    fdnn_parallelize_1d(pool, block_row_task, b, (size_t)b->nrows, 0);
}

/* ---- the chain in the GEMM's store --------------------------------------- */

/* The FP32 GEMM's tile hook (fdnn_sgemm_args_t.tile_hook): the chain on one
 * finished tile of C (rows of panel `r0` onward), row by row, on the GEMM
 * task's thread while the tile is in its cache.  `b` holds the batch
 * indices (lo of the leading dims) and the chain; the tile gives the rest. */
typedef struct mm_hook {
    const block_t *b;
    int64_t r0;
} mm_hook_t;

static void
mm_tile_hook(void *ctx, float *c, size_t ldc, size_t row, size_t col, size_t rows, size_t cols)
{
    const mm_hook_t *hk = ctx;
    block_t t = *hk->b;
    int nd = t.ndim;
    t.buf = c;
    t.bstr[nd - 2] = (int64_t)ldc;
    t.bstr[nd - 1] = 1;
    t.row_dim = t.row_first = nd - 1;
    t.row_len = (int64_t)cols;
    int64_t idx[FDNN_GRAPH_MAX_DIMS];
    for (int d = 0; d < nd - 2; d++)
        idx[d] = t.lo[d];
    idx[nd - 1] = (int64_t)col;
    for (size_t i = 0; i < rows; i++) {
        idx[nd - 2] = hk->r0 + (int64_t)(row + i);
        if (t.ch->f64)
            chain_row_f64(&t, idx, (int64_t)(i * ldc));
        else if (!affine_row(&t, idx, (int64_t)(i * ldc)))
            chain_row_f32(&t, idx, (int64_t)(i * ldc));
    }
}

cudnnStatus_t
gx_fused_execute(const fdnn_graph_exec_t *e)
{
    const fdnn_graph_t *g = e->graph;
    plan_t pl;
    gx_layout_t lay;
    void **ptr;
    RETURN_IF_ERROR(make_plan(g, &pl));
    for (int k = 0; k < pl.ch.nops; k++)
        pl.ch.pw[k].isa = e->handle->isa;
    RETURN_IF_ERROR(layout(g, &pl, &lay));
    cudnnStatus_t st = gx_bind(e, &lay, &ptr);
    free(lay.tensor_offset);
    RETURN_IF_ERROR(st);
    char *scratch = gx_scratch_ptr(e, &lay);
    size_t ws_at;
    scratch_bytes(&pl, &ws_at);
    const fdnn_graph_tensor_t *v0 = &g->tensors[pl.ch.v0];
    size_t es = gx_dtype_size(v0->dtype);
    block_t b;
    memset(&b, 0, sizeof(b));
    b.g = g;
    b.ptr = ptr;
    b.ch = &pl.ch;
    b.buf = scratch;
    b.bdt = v0->dtype;
    b.ndim = v0->ndim;
    if (pl.conv) {
        const fdnn_gop_conv_t *c = &g->nodes[0].u.conv;
        const fdnn_graph_tensor_t *x = &g->tensors[c->x];
        for (int d = 0; d < v0->ndim; d++) {
            b.cnt[d] = v0->dims[d];
            b.bstr[d] = v0->strides[d];
        }
        for (int64_t n0 = 0; n0 < pl.cp.n; n0 += pl.nb) {
            int64_t nb = pl.cp.n - n0 < pl.nb ? pl.cp.n - n0 : pl.nb;
            fdnn_conv_problem_t s;
            sub_problem(&pl.cp, nb, &s);
            fdnn_conv_exec_t cx;
            memset(&cx, 0, sizeof(cx));
            cx.handle = e->handle;
            cx.p = &s;
            cx.x_in = (const char *)ptr[c->x] + (size_t)(n0 * x->strides[0]) * gx_dtype_size(x->dtype);
            cx.w_in = ptr[c->w];
            cx.out = scratch;
            cx.alpha = c->alpha;
            cx.beta = 0;
            cx.workspace = pl.conv_ws > 0 ? scratch + ws_at : NULL;
            cx.workspace_bytes = pl.conv_ws;
            RETURN_IF_ERROR(fdnn_conv_run(&cx, nb == pl.nb ? pl.algo[0] : pl.algo[1]));
            b.lo[0] = n0;
            b.cnt[0] = nb;
            run_block(e->handle, &b);
        }
    } else {
        const fdnn_gop_matmul_t *m = &g->nodes[0].u.matmul;
        int nd = v0->ndim;
        for (int d = 0; d < nd - 2; d++)
            b.cnt[d] = 1, b.bstr[d] = 0;
        b.bstr[nd - 2] = pl.mm.n;
        b.bstr[nd - 1] = 1;
        b.cnt[nd - 1] = pl.mm.n;
        for (int64_t bt = 0; bt < pl.mm.nbatch; bt++) {
            int64_t ao, bo, co, rest = bt;
            gx_mm_offsets(&pl.mm, bt, &ao, &bo, &co);
            for (int d = nd - 3; d >= 0; d--) {
                b.lo[d] = rest % pl.mm.bdims[d];
                rest /= pl.mm.bdims[d];
            }
            const char *A = (const char *)ptr[m->a] + (size_t)ao * es;
            const char *B = (const char *)ptr[m->b] + (size_t)bo * es;
            if (pl.mm_in_y) {
                const fdnn_graph_tensor_t *y = &g->tensors[pl.ch.y];
                int64_t yo = 0;
                for (int d = 0; d < nd - 2; d++)
                    yo += b.lo[d] * eff_stride(y, d);
                char *Y = (char *)ptr[pl.ch.y] + (size_t)yo * es;
                if (!pl.mm.f64) { /* the chain in the GEMM's store: no pass after it */
                    mm_hook_t hk = {&b, 0};
                    if (!gx_mm_rows_hook(e->handle, &pl.mm, A, B, 0, pl.mm.m, Y, pl.y_ld, mm_tile_hook, &hk))
                        return FDNN_ALLOC_FAILED("fused engine: the GEMM packing buffers could not be allocated");
                    continue;
                }
                if (!gx_mm_rows(e->handle, &pl.mm, A, B, 0, pl.mm.m, Y, pl.y_ld))
                    return FDNN_ALLOC_FAILED("fused engine: the GEMM packing buffers could not be allocated");
                b.bstr[nd - 2] = pl.y_ld;
                for (int64_t r0 = 0; r0 < pl.mm.m; r0 += pl.rows) {
                    b.buf = Y + (size_t)(r0 * pl.y_ld) * es;
                    b.lo[nd - 2] = r0;
                    b.cnt[nd - 2] = pl.mm.m - r0 < pl.rows ? pl.mm.m - r0 : pl.rows;
                    run_block(e->handle, &b);
                }
                continue;
            }
            for (int64_t r0 = 0; r0 < pl.mm.m; r0 += pl.rows) {
                int64_t nr = pl.mm.m - r0 < pl.rows ? pl.mm.m - r0 : pl.rows;
                if (!pl.mm.f64) {
                    mm_hook_t hk = {&b, r0};
                    if (!gx_mm_rows_hook(e->handle, &pl.mm, A, B, r0, nr, scratch, pl.mm.n, mm_tile_hook, &hk))
                        return FDNN_ALLOC_FAILED("fused engine: the GEMM packing buffers could not be allocated");
                    continue;
                }
                if (!gx_mm_rows(e->handle, &pl.mm, A, B, r0, nr, scratch, pl.mm.n))
                    return FDNN_ALLOC_FAILED("fused engine: the GEMM packing buffers could not be allocated");
                b.lo[nd - 2] = r0;
                b.cnt[nd - 2] = nr;
                run_block(e->handle, &b);
            }
        }
    }
    return CUDNN_STATUS_SUCCESS;
}
