/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention forward (formulas and layouts in attn.h).
 *
 * Workspace (floats): Qp nq x H*qP (Q projection on), Kp nk x H*qP (K on),
 * Vp nk x H*vP (V on), Hc nq x H*vP (head outputs in query-row order),
 * Ob nq x oLen (O projection on), then per (sequence, head) task a block
 * of ATTN_ROWS x kT scores and the GEMM packing scratch of its two products
 * (64-byte aligned).  In training, Qp, Kp, Vp, Hc (O on) and the
 * probabilities live in the reserve space instead (their workspace regions
 * stay unused: the workspace size is one number for every mode). */
#include "cpu/attn/attn.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "cpu/gemm/gemm.h"

/* Query rows per block: scores take ATTN_ROWS x kT floats per task. */
#define ATTN_ROWS 64

typedef struct attn_ws {
    float *qp, *kp, *vp, *hc, *ob, *scores;
    size_t task_floats; /* floats per task: scores, then GEMM scratch */
    size_t gemm_bytes;
} attn_ws_t;

/* Packing scratch for the largest products of one block:
 * S = Q K^T (ATTN_ROWS x kT x qP) and H = P V (ATTN_ROWS x vP x kT). */
static size_t
gemm_scratch(int qP, int vP, int kT, fdnn_isa_t isa)
{
    fdnn_sgemm_args_t s = {.trans_b = true, .m = ATTN_ROWS, .n = (size_t)kT, .k = (size_t)qP, .alpha = 1};
    fdnn_sgemm_args_t h = {.m = ATTN_ROWS, .n = (size_t)vP, .k = (size_t)kT, .alpha = 1};
    size_t a = fdnn_sgemm_scratch_size(&s, 1, isa), b = fdnn_sgemm_scratch_size(&h, 1, isa);
    return ((a > b ? a : b) + 63) & ~(size_t)63;
}

static size_t
layout(const fdnn_attn_sizes_t *z, fdnn_isa_t isa, float *base, attn_ws_t *w)
{
    int64_t H = z->H;
    w->gemm_bytes = gemm_scratch(z->qP, z->vP, z->kT, isa);
    w->task_floats = (size_t)ATTN_ROWS * z->kT + 16 + w->gemm_bytes / sizeof(float);
    size_t off = 0;
#define TAKE(field, n)                                   \
    do {                                                 \
        w->field = base ? (void *)(base + off) : NULL;   \
        off += (size_t)(n);                              \
    } while (0)
    TAKE(qp, z->q_proj ? z->nq * H * z->qP : 0);
    TAKE(kp, z->k_proj ? z->nk * H * z->qP : 0);
    TAKE(vp, z->v_proj ? z->nk * H * z->vP : 0);
    TAKE(hc, z->nq * H * z->vP);
    TAKE(ob, z->o_proj ? z->nq * z->oLen : 0);
    TAKE(scores, (size_t)z->seqs * H * w->task_floats);
#undef TAKE
    return off * sizeof(float);
}

fdnn_attn_sizes_t
fdnn_attn_sizes_of(const fdnn_attn_problem_t *p)
{
    return (fdnn_attn_sizes_t){.H = p->H, .qP = p->qP, .vP = p->vP, .oLen = p->oLen, .q_proj = p->q_proj,
                               .k_proj = p->k_proj, .v_proj = p->v_proj, .o_proj = p->o_proj, .nq = p->nq,
                               .nk = p->nk, .seqs = (int64_t)p->batch * p->beam, .qT = p->qT, .kT = p->kT};
}

size_t
fdnn_attn_workspace_bytes(const fdnn_attn_sizes_t *z, fdnn_isa_t isa)
{
    attn_ws_t w;
    return layout(z, isa, NULL, &w);
}

size_t
fdnn_attn_reserve_layout(const fdnn_attn_sizes_t *z, void *base, fdnn_attn_reserve_t *r)
{
    int64_t H = z->H;
    float *f = base ? (float *)((char *)base + FDNN_ATTN_RESERVE_HEADER) : NULL;
    size_t off = 0;
#define TAKE(field, n)                                            \
    do {                                                          \
        size_t n_ = (size_t)(n);                                  \
        if (r != NULL)                                            \
            r->field = f != NULL && n_ > 0 ? f + off : NULL;      \
        off += n_;                                                \
    } while (0)
    TAKE(qp, z->q_proj ? z->nq * H * z->qP : 0);
    TAKE(kp, z->k_proj ? z->nk * H * z->qP : 0);
    TAKE(vp, z->v_proj ? z->nk * H * z->vP : 0);
    TAKE(hc, z->o_proj ? z->nq * H * z->vP : 0);
    TAKE(probs, z->seqs * H * z->qT * z->kT);
    TAKE(dqp, z->q_proj ? z->nq * H * z->qP : 0);
    TAKE(dkp, z->k_proj ? z->nk * H * z->qP : 0);
    TAKE(dvp, z->v_proj ? z->nk * H * z->vP : 0);
#undef TAKE
    return FDNN_ATTN_RESERVE_HEADER + off * sizeof(float);
}

static bool
project(cudnnHandle_t handle, const float *x, int64_t rows, int in, const float *w, const float *bias, int out_cols,
        float *y)
{
    fdnn_sgemm_args_t g = {.m = (size_t)rows, .n = (size_t)out_cols, .k = (size_t)in, .alpha = 1.0f, .a = x,
                           .lda = (size_t)in, .b = w, .ldb = (size_t)out_cols, .beta = 0.0f, .c = y,
                           .ldc = (size_t)out_cols, .bias_col = bias};
    return fdnn_sgemm(&g, fdnn_handle_pool(handle), handle->isa, NULL, 0);
}

typedef struct attn_job {
    const fdnn_attn_problem_t *p;
    const float *q, *k, *v;
    attn_ws_t w;
    float *probs; /* training: the reserve's probabilities, else NULL */
    fdnn_isa_t isa;
    bool failed; /* a GEMM could not allocate (written by the failing task only) */
} attn_job_t;

/* One (sequence, head): its query time steps in blocks of ATTN_ROWS.  Per
 * block, S = scaler * Q_h K_h^T over all keys, then each row's softmax over
 * its window (0 outside), then H_h = S V_h; both products through the GEMM
 * core on this thread, so the task's result does not depend on the others.
 * In training the probabilities go to the reserve (row t of the task's
 * qT x kT block) instead of the scratch block. */
static void
attn_task(void *arg, size_t task)
{
    attn_job_t *j = arg;
    const fdnn_attn_problem_t *p = j->p;
    int H = p->H, h = (int)(task % (size_t)H);
    int64_t seq = (int64_t)(task / (size_t)H), b = seq / p->beam, m = seq % p->beam;
    int64_t kvm = p->one_to_one ? m : 0;
    int Lq = p->q_len[seq], Lk = p->k_len[b * p->kv_beam + kvm];
    float *scratch = j->w.scores + (int64_t)task * (int64_t)j->w.task_floats;
    char *gs = (char *)(((uintptr_t)(scratch + (size_t)ATTN_ROWS * p->kT) + 63) & ~(uintptr_t)63);
    float *probs = j->probs ? j->probs + (seq * H + h) * (int64_t)p->qT * p->kT : NULL;
    size_t ldsc = probs ? (size_t)p->kT : (size_t)Lk;
    int t0 = p->curr < 0 ? 0 : p->curr, t1 = p->curr < 0 ? Lq : (p->curr < Lq ? p->curr + 1 : 0);
    /* row t of Q_h, K_h, V_h and H_h: base + t * row stride */
    int64_t qoff = b * p->q_st[1] + m * p->q_st[2], koff = b * p->k_st[1] + kvm * p->k_st[2];
    const float *qb = p->q_proj ? j->w.qp + qoff * H * p->qP + (int64_t)h * p->qP : j->q + qoff * p->qS;
    const float *kb = p->k_proj ? j->w.kp + koff * H * p->qP + (int64_t)h * p->qP : j->k + koff * p->kS;
    const float *vb = p->v_proj ? j->w.vp + koff * H * p->vP + (int64_t)h * p->vP : j->v + koff * p->vS;
    float *hb = j->w.hc + qoff * H * p->vP + (int64_t)h * p->vP;
    size_t lq = (size_t)p->q_st[0] * (p->q_proj ? (size_t)H * p->qP : (size_t)p->qS);
    size_t lk = (size_t)p->k_st[0] * (p->k_proj ? (size_t)H * p->qP : (size_t)p->kS);
    size_t lv = (size_t)p->k_st[0] * (p->v_proj ? (size_t)H * p->vP : (size_t)p->vS);
    size_t lh = (size_t)p->q_st[0] * H * p->vP;
    for (int r0 = t0; r0 < t1; r0 += ATTN_ROWS) {
        int rows = t1 - r0 < ATTN_ROWS ? t1 - r0 : ATTN_ROWS;
        float *sc = probs ? probs + (size_t)r0 * ldsc : scratch;
        fdnn_sgemm_args_t g = {.trans_b = true, .m = (size_t)rows, .n = (size_t)Lk, .k = (size_t)p->qP,
                               .alpha = p->scaler, .a = qb + r0 * lq, .lda = lq, .b = kb, .ldb = lk, .beta = 0,
                               .c = sc, .ldc = ldsc};
        if (!fdnn_sgemm(&g, NULL, j->isa, gs, j->w.gemm_bytes)) {
            j->failed = true;
            return;
        }
        for (int r = 0; r < rows; r++) {
            int t = r0 + r, lo = p->lo[t] > 0 ? p->lo[t] : 0, hi = p->hi[t] < Lk ? p->hi[t] : Lk;
            float *row = sc + (size_t)r * ldsc;
            double mx = -INFINITY, sum = 0;
            for (int kj = lo; kj < hi; kj++)
                mx = fmax(mx, row[kj]);
            for (int kj = lo; kj < hi; kj++)
                sum += exp(row[kj] - mx);
            for (int kj = 0; kj < Lk; kj++)
                row[kj] = kj >= lo && kj < hi ? (float)(exp(row[kj] - mx) / sum) : 0.0f;
        }
        fdnn_sgemm_args_t o = {.m = (size_t)rows, .n = (size_t)p->vP, .k = (size_t)Lk, .alpha = 1, .a = sc,
                               .lda = ldsc, .b = vb, .ldb = lv, .beta = 0, .c = hb + r0 * lh, .ldc = lh};
        if (!fdnn_sgemm(&o, NULL, j->isa, gs, j->w.gemm_bytes)) {
            j->failed = true;
            return;
        }
    }
}

bool
fdnn_attn_forward(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const float *q, const float *residuals,
                  const float *k, const float *v, float *out, void *workspace, void *reserve)
{
    attn_job_t j = {.p = p, .q = q, .k = k, .v = v, .isa = handle->isa};
    fdnn_attn_sizes_t z = fdnn_attn_sizes_of(p);
    layout(&z, handle->isa, workspace, &j.w);
    if (reserve != NULL) { /* training: keep what the backward needs */
        assert(p->curr < 0);
        fdnn_attn_reserve_t r;
        fdnn_attn_reserve_layout(&z, reserve, &r);
        j.w.qp = r.qp, j.w.kp = r.kp, j.w.vp = r.vp, j.probs = r.probs;
        if (p->o_proj)
            j.w.hc = r.hc;
    }
    int H = p->H;
    if (p->q_proj && !project(handle, q, p->nq, p->qS, p->wq, p->bq, H * p->qP, j.w.qp))
        return false;
    if (p->k_proj && !project(handle, k, p->nk, p->kS, p->wk, p->bk, H * p->qP, j.w.kp))
        return false;
    if (p->v_proj && !project(handle, v, p->nk, p->vS, p->wv, p->bv, H * p->vP, j.w.vp))
        return false;
    fdnn_parallelize_1d(fdnn_handle_pool(handle), attn_task, &j, (size_t)p->batch * p->beam * H, 0);
    if (j.failed)
        return false;
    const float *res = j.w.hc;
    if (p->o_proj) {
        if (!project(handle, j.w.hc, p->nq, H * p->vP, p->wo, p->bo, p->oLen, j.w.ob))
            return false;
        res = j.w.ob;
    }
    /* copy the computed vectors out (plus residuals), fill the padding */
    for (int64_t seq = 0; seq < (int64_t)p->batch * p->beam; seq++) {
        int64_t b = seq / p->beam, m = seq % p->beam;
        int Lq = p->q_len[seq];
        int t0 = p->curr < 0 ? 0 : p->curr, t1 = p->curr < 0 ? p->qT : p->curr + 1;
        for (int t = t0; t < t1; t++) {
            int64_t qrow = t * p->q_st[0] + b * p->q_st[1] + m * p->q_st[2];
            float *o = out + (t * p->o_st[0] + b * p->o_st[1] + m * p->o_st[2]) * p->oLen;
            if (t >= Lq) {
                if (p->fill)
                    for (int i = 0; i < p->oLen; i++)
                        o[i] = p->fill_value;
                continue;
            }
            const float *r = res + qrow * p->oLen;
            for (int i = 0; i < p->oLen; i++)
                o[i] = residuals ? r[i] + residuals[qrow * p->qS + i] : r[i];
        }
    }
    return true;
}
