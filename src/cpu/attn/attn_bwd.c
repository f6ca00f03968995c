/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention backward (formulas in attn_bwd.h, layouts in attn.h).
 *
 * Backward data's workspace (floats): dHc nq x H*vP (O projection on; in
 * output-row order), dQp nq x H*qP / dKp nk x H*qP / dVp nk x H*vP for the
 * projections that are off (with a projection they are in the reserve,
 * where backward weights reads them), then per (K/V sequence, head) task a
 * block of ATTN_BWD_ROWS x kT probability gradients and the GEMM packing
 * scratch of its four products (64-byte aligned). */
#include "cpu/attn/attn_bwd.h"

#include <string.h>

#include "cpu/gemm/gemm.h"

/* Query rows per block: the gradient block takes ATTN_BWD_ROWS x kT floats. */
#define ATTN_BWD_ROWS 64

typedef struct bwd_ws {
    float *dhc, *dqp, *dkp, *dvp, *tasks;
    size_t task_floats; /* floats per task: the dP block, then GEMM scratch */
    size_t gemm_bytes;
} bwd_ws_t;

/* Packing scratch for the largest products of one block (m x n x k):
 * dP = dH V^T (R x kT x vP), dV += P^T dH (kT x vP x R), dQ = dS K
 * (R x qP x kT), dK += dS^T Q (kT x qP x R). */
static size_t
gemm_scratch(int qP, int vP, int kT, fdnn_isa_t isa)
{
    size_t R = ATTN_BWD_ROWS, T = (size_t)kT;
    fdnn_sgemm_args_t g[4] = {
        {.trans_b = true, .m = R, .n = T, .k = (size_t)vP, .alpha = 1},
        {.trans_a = true, .m = T, .n = (size_t)vP, .k = R, .alpha = 1},
        {.m = R, .n = (size_t)qP, .k = T, .alpha = 1},
        {.trans_a = true, .m = T, .n = (size_t)qP, .k = R, .alpha = 1},
    };
    size_t most = 0;
    for (int i = 0; i < 4; i++) {
        size_t s = fdnn_sgemm_scratch_size(&g[i], 1, isa);
        most = s > most ? s : most;
    }
    return (most + 63) & ~(size_t)63;
}

static size_t
layout(const fdnn_attn_sizes_t *z, fdnn_isa_t isa, float *base, bwd_ws_t *w)
{
    int64_t H = z->H;
    w->gemm_bytes = gemm_scratch(z->qP, z->vP, z->kT, isa);
    w->task_floats = (size_t)ATTN_BWD_ROWS * z->kT + 16 + w->gemm_bytes / sizeof(float);
    size_t off = 0;
#define TAKE(field, n)                                   \
    do {                                                 \
        w->field = base ? base + off : NULL;             \
        off += (size_t)(n);                              \
    } while (0)
    TAKE(dhc, z->o_proj ? z->nq * H * z->vP : 0);
    TAKE(dqp, z->q_proj ? 0 : z->nq * H * z->qP);
    TAKE(dkp, z->k_proj ? 0 : z->nk * H * z->qP);
    TAKE(dvp, z->v_proj ? 0 : z->nk * H * z->vP);
    TAKE(tasks, (size_t)z->seqs * H * w->task_floats);
#undef TAKE
    return off * sizeof(float);
}

size_t
fdnn_attn_bwd_workspace_bytes(const fdnn_attn_sizes_t *z, fdnn_isa_t isa)
{
    bwd_ws_t w;
    return layout(z, isa, NULL, &w);
}

/* One GEMM over the handle's pool with packing scratch from the handle. */
static bool
gemm_pool(cudnnHandle_t handle, const fdnn_sgemm_args_t *g)
{
    size_t need = fdnn_sgemm_scratch_size(g, handle->num_threads, handle->isa);
    void *scratch = fdnn_handle_scratch(handle, need);
    return scratch != NULL && fdnn_sgemm(g, fdnn_handle_pool(handle), handle->isa, scratch, need);
}

typedef struct bwd_job {
    const fdnn_attn_problem_t *p;
    const float *q, *k, *v;        /* the head inputs: projected (reserve) or the user's vectors */
    const float *dh;               /* head-output gradients, output-row order */
    const float *probs;
    float *dqp, *dkp, *dvp;        /* per-head gradients of the head inputs */
    bwd_ws_t w;
    fdnn_isa_t isa;
    bool failed;
} bwd_job_t;

static bool
gemm1(const bwd_job_t *j, const fdnn_sgemm_args_t *g, char *scratch)
{
    return fdnn_sgemm(g, NULL, j->isa, scratch, j->w.gemm_bytes);
}

/* One (K/V sequence, head): every query beam that reads it, in order, each
 * in blocks of ATTN_BWD_ROWS query rows.  The first block of the first beam
 * sets dK_h and dV_h (beta 0), the others add to them. */
static void
bwd_task(void *arg, size_t task)
{
    bwd_job_t *j = arg;
    const fdnn_attn_problem_t *p = j->p;
    int H = p->H, h = (int)(task % (size_t)H);
    int64_t kseq = (int64_t)(task / (size_t)H), b = kseq / p->kv_beam, kvm = kseq % p->kv_beam;
    int Lk = p->k_len[kseq];
    float *dp = j->w.tasks + (int64_t)task * (int64_t)j->w.task_floats;
    char *gs = (char *)(((uintptr_t)(dp + (size_t)ATTN_BWD_ROWS * p->kT) + 63) & ~(uintptr_t)63);
    size_t ldp = (size_t)Lk, ldpr = (size_t)p->kT;
    /* head h's rows: base + t * row stride (no head offset without projection:
     * every head reads the whole vector) */
    int64_t koff = b * p->k_st[1] + kvm * p->k_st[2];
    size_t HqP = (size_t)H * p->qP, HvP = (size_t)H * p->vP;
    const float *kb = p->k_proj ? j->k + koff * HqP + (size_t)h * p->qP : j->k + koff * p->kS;
    const float *vb = p->v_proj ? j->v + koff * HvP + (size_t)h * p->vP : j->v + koff * p->vS;
    size_t lk = (size_t)p->k_st[0] * (p->k_proj ? HqP : (size_t)p->kS);
    size_t lv = (size_t)p->k_st[0] * (p->v_proj ? HvP : (size_t)p->vS);
    float *dkb = j->dkp + koff * HqP + (size_t)h * p->qP, *dvb = j->dvp + koff * HvP + (size_t)h * p->vP;
    size_t ldk = (size_t)p->k_st[0] * HqP, ldv = (size_t)p->k_st[0] * HvP;
    size_t lq = (size_t)p->q_st[0] * (p->q_proj ? HqP : (size_t)p->qS), ldq = (size_t)p->q_st[0] * HqP;
    size_t ldh = (size_t)p->o_st[0] * HvP;
    int m0 = p->one_to_one ? (int)kvm : 0, m1 = p->one_to_one ? (int)kvm + 1 : p->beam;
    float beta = 0;
    for (int m = m0; m < m1; m++) {
        int64_t seq = b * p->beam + m, qoff = b * p->q_st[1] + m * p->q_st[2];
        int Lq = p->q_len[seq];
        const float *qb = p->q_proj ? j->q + qoff * HqP + (size_t)h * p->qP : j->q + qoff * p->qS;
        float *dqb = j->dqp + qoff * HqP + (size_t)h * p->qP;
        const float *dhb = j->dh + (b * p->o_st[1] + m * p->o_st[2]) * HvP + (size_t)h * p->vP;
        const float *pb = j->probs + (seq * H + h) * (int64_t)p->qT * p->kT;
        for (int r0 = 0; r0 < Lq; r0 += ATTN_BWD_ROWS) {
            size_t rows = (size_t)(Lq - r0 < ATTN_BWD_ROWS ? Lq - r0 : ATTN_BWD_ROWS);
            const float *pr = pb + (size_t)r0 * ldpr, *dhr = dhb + (size_t)r0 * ldh;
            fdnn_sgemm_args_t g_dp = {.trans_b = true, .m = rows, .n = (size_t)Lk, .k = (size_t)p->vP, .alpha = 1,
                                      .a = dhr, .lda = ldh, .b = vb, .ldb = lv, .beta = 0, .c = dp, .ldc = ldp};
            fdnn_sgemm_args_t g_dv = {.trans_a = true, .m = (size_t)Lk, .n = (size_t)p->vP, .k = rows, .alpha = 1,
                                      .a = pr, .lda = ldpr, .b = dhr, .ldb = ldh, .beta = beta, .c = dvb,
                                      .ldc = ldv};
            if (!gemm1(j, &g_dp, gs) || !gemm1(j, &g_dv, gs)) {
                j->failed = true;
                return;
            }
            /* dS = P .* (dP - <P, dP>) per row, in place; P is 0 outside the window */
            for (size_t r = 0; r < rows; r++) {
                const float *prow = pr + r * ldpr;
                float *drow = dp + r * ldp;
                double dot = 0;
                for (int kj = 0; kj < Lk; kj++)
                    dot += (double)prow[kj] * drow[kj];
                for (int kj = 0; kj < Lk; kj++)
                    drow[kj] = (float)(prow[kj] * (drow[kj] - dot));
            }
            fdnn_sgemm_args_t g_dq = {.m = rows, .n = (size_t)p->qP, .k = (size_t)Lk, .alpha = p->scaler, .a = dp,
                                      .lda = ldp, .b = kb, .ldb = lk, .beta = 0, .c = dqb + (size_t)r0 * ldq,
                                      .ldc = ldq};
            fdnn_sgemm_args_t g_dk = {.trans_a = true, .m = (size_t)Lk, .n = (size_t)p->qP, .k = rows,
                                      .alpha = p->scaler, .a = dp, .lda = ldp, .b = qb + (size_t)r0 * lq,
                                      .ldb = lq, .beta = beta, .c = dkb, .ldc = ldk};
            if (!gemm1(j, &g_dq, gs) || !gemm1(j, &g_dk, gs)) {
                j->failed = true;
                return;
            }
            beta = 1;
        }
    }
}

/* Rows of one sequence: T time steps of which L are inside its length. */
typedef struct seq_rows {
    int64_t off; /* token row of t = 0 */
    int64_t st;  /* token rows from t to t + 1 */
    int L, T;
} seq_rows_t;

static seq_rows_t
seq_rows(const int64_t st[3], int64_t b, int64_t m, int L, int T)
{
    return (seq_rows_t){.off = b * st[1] + m * st[2], .st = st[0], .L = L, .T = T};
}

/* The gradient of one input vector from its per-head gradients gp (rows of
 * H*P): with a projection dx = gp W^T (one GEMM per sequence, rows inside
 * the length only), without it the sum over heads (every head read all of
 * x, P == S).  Rows past the length get the fill value when asked. */
static bool
input_grad(cudnnHandle_t handle, const float *gp, int H, int P, bool proj, const float *w, int S, seq_rows_t s,
           bool fill, float fill_value, float *dx)
{
    size_t HP = (size_t)H * P;
    if (proj) {
        fdnn_sgemm_args_t g = {.trans_b = true, .m = (size_t)s.L, .n = (size_t)S, .k = HP, .alpha = 1,
                               .a = gp + s.off * HP, .lda = (size_t)s.st * HP, .b = w, .ldb = HP, .beta = 0,
                               .c = dx + s.off * S, .ldc = (size_t)s.st * S};
        if (!gemm_pool(handle, &g))
            return false;
    } else {
        for (int t = 0; t < s.L; t++) {
            const float *g = gp + (s.off + t * s.st) * HP;
            float *x = dx + (s.off + t * s.st) * S;
            for (int i = 0; i < S; i++) {
                float acc = g[i];
                for (int hh = 1; hh < H; hh++)
                    acc += g[(size_t)hh * P + i];
                x[i] = acc;
            }
        }
    }
    if (fill)
        for (int t = s.L; t < s.T; t++) {
            float *x = dx + (s.off + t * s.st) * S;
            for (int i = 0; i < S; i++)
                x[i] = fill_value;
        }
    return true;
}

bool
fdnn_attn_backward_data(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const fdnn_attn_bwd_data_t *a,
                        void *workspace, void *reserve)
{
    fdnn_attn_sizes_t z = fdnn_attn_sizes_of(p);
    fdnn_attn_reserve_t r;
    fdnn_attn_reserve_layout(&z, reserve, &r);
    bwd_job_t j = {.p = p, .probs = r.probs, .isa = handle->isa};
    layout(&z, handle->isa, workspace, &j.w);
    int H = p->H;
    size_t HvP = (size_t)H * p->vP;
    j.q = p->q_proj ? r.qp : a->q;
    j.k = p->k_proj ? r.kp : a->k;
    j.v = p->v_proj ? r.vp : a->v;
    j.dqp = p->q_proj ? r.dqp : j.w.dqp;
    j.dkp = p->k_proj ? r.dkp : j.w.dkp;
    j.dvp = p->v_proj ? r.dvp : j.w.dvp;
    j.dh = a->dout; /* without O projection out is the concatenation of the heads */
    if (p->o_proj) {
        /* dHc = dout W_O^T over every output row (rows past a length are
         * computed but never read) */
        fdnn_sgemm_args_t g = {.trans_b = true, .m = (size_t)p->no, .n = HvP, .k = (size_t)p->oLen, .alpha = 1,
                               .a = a->dout, .lda = (size_t)p->oLen, .b = p->wo, .ldb = (size_t)p->oLen, .beta = 0,
                               .c = j.w.dhc, .ldc = HvP};
        if (!gemm_pool(handle, &g))
            return false;
        j.dh = j.w.dhc;
    }
    fdnn_parallelize_1d(fdnn_handle_pool(handle), bwd_task, &j, (size_t)p->batch * p->kv_beam * H, 0);
    if (j.failed)
        return false;
    for (int64_t b = 0; b < p->batch; b++) {
        for (int64_t m = 0; m < p->beam; m++) {
            seq_rows_t s = seq_rows(p->q_st, b, m, p->q_len[b * p->beam + m], p->qT);
            if (!input_grad(handle, j.dqp, H, p->qP, p->q_proj, p->wq, p->qS, s, a->fill[0], a->fill_value[0],
                            a->dq))
                return false;
        }
        for (int64_t m = 0; m < p->kv_beam; m++) {
            seq_rows_t s = seq_rows(p->k_st, b, m, p->k_len[b * p->kv_beam + m], p->kT);
            if (!input_grad(handle, j.dkp, H, p->qP, p->k_proj, p->wk, p->kS, s, a->fill[1], a->fill_value[1],
                            a->dk) ||
                !input_grad(handle, j.dvp, H, p->vP, p->v_proj, p->wv, p->vS, s, a->fill[2], a->fill_value[2],
                            a->dv))
                return false;
        }
    }
    return true;
}

/* dW (S x n, row-major: the weight layout) = sum over sequences of
 * x_seq^T g_seq and db = the column sums of g, over the rows inside the
 * lengths (x and g may be in different row layouts xst, gst); sequence by
 * sequence in order, so the sums do not depend on the thread count.  `kv`:
 * K/V sequences, else query sequences.  `add` keeps what dW and db held. */
static bool
weight_grad(cudnnHandle_t handle, const fdnn_attn_problem_t *p, bool kv, const int64_t xst[3], const float *x,
            size_t S, const int64_t gst[3], const float *g, size_t n, bool add, float *dw, float *db)
{
    int beams = kv ? p->kv_beam : p->beam, T = kv ? p->kT : p->qT;
    const int *len = kv ? p->k_len : p->q_len;
    bool first = !add;
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t m = 0; m < beams; m++) {
            int L = len[b * beams + m];
            seq_rows_t sx = seq_rows(xst, b, m, L, T), sg = seq_rows(gst, b, m, L, T);
            fdnn_sgemm_args_t a = {.trans_a = true, .m = S, .n = n, .k = (size_t)L, .alpha = 1,
                                   .a = x + sx.off * S, .lda = (size_t)sx.st * S, .b = g + sg.off * n,
                                   .ldb = (size_t)sg.st * n, .beta = first ? 0.0f : 1.0f, .c = dw, .ldc = n};
            if (!gemm_pool(handle, &a))
                return false;
            first = false;
        }
    if (db == NULL)
        return true;
    double *acc = fdnn_handle_scratch(handle, n * sizeof(double));
    if (acc == NULL)
        return false;
    for (size_t c = 0; c < n; c++)
        acc[c] = add ? db[c] : 0.0;
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t m = 0; m < beams; m++) {
            seq_rows_t sg = seq_rows(gst, b, m, len[b * beams + m], T);
            for (int t = 0; t < sg.L; t++) {
                const float *row = g + (sg.off + t * sg.st) * n;
                for (size_t c = 0; c < n; c++)
                    acc[c] += row[c];
            }
        }
    for (size_t c = 0; c < n; c++)
        db[c] = (float)acc[c];
    return true;
}

bool
fdnn_attn_backward_weights(cudnnHandle_t handle, const fdnn_attn_problem_t *p, bool add, const float *q,
                           const float *k, const float *v, const float *dout, const fdnn_attn_dweights_t *dw,
                           void *reserve)
{
    fdnn_attn_sizes_t z = fdnn_attn_sizes_of(p);
    fdnn_attn_reserve_t r;
    fdnn_attn_reserve_layout(&z, reserve, &r);
    size_t HqP = (size_t)p->H * p->qP, HvP = (size_t)p->H * p->vP;
    if (p->q_proj && !weight_grad(handle, p, false, p->q_st, q, (size_t)p->qS, p->q_st, r.dqp, HqP, add, dw->wq,
                                  dw->bq))
        return false;
    if (p->k_proj && !weight_grad(handle, p, true, p->k_st, k, (size_t)p->kS, p->k_st, r.dkp, HqP, add, dw->wk,
                                  dw->bk))
        return false;
    if (p->v_proj && !weight_grad(handle, p, true, p->k_st, v, (size_t)p->vS, p->k_st, r.dvp, HvP, add, dw->wv,
                                  dw->bv))
        return false;
    /* dW_O ((H*vP) x oLen) from the head outputs (query-row order) and dout
     * (output-row order) */
    if (p->o_proj && !weight_grad(handle, p, false, p->q_st, r.hc, HvP, p->o_st, dout, (size_t)p->oLen, add, dw->wo,
                                  dw->bo))
        return false;
    return true;
}
