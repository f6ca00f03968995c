/* SPDX-License-Identifier: Apache-2.0
 * HALF and BFLOAT16 multi-head attention: the one place that stages the
 * operands of the forward and both backward functions for the FP32
 * kernels (attn_t.inc, attn_bwd_t.inc via attn_f32.c, attn_bwd_f32.c);
 * contract in attn.h.
 *
 * Staging buffers (FP32), after the kernels' workspace of the call
 * (fdnn_attn_stage_offset), one layout for every call:
 *   W0, W1  nw each        weights; dweights (backward weights)
 *   Q0, Q1  nq * qS each   queries; residuals (forward) or dqueries
 *   K0, K1  nk * kS each   keys; dkeys
 *   V0, V1  nk * vS each   values; dvalues
 *   O0      nq * oLen      out (forward) or dout
 * Inputs are widened into them; outputs are loaded from the user's buffer
 * first and stored back with fdnn_stage_store (only what the kernel
 * changed, so rows the kernels leave alone stay untouched); the forward's
 * out is not loaded where every row of it is written. */
#include "cpu/attn/attn_bwd.h"
#include "cpu/rnn/stage_io.h"

#include "core/ckd.h"

#include <string.h>

enum { W0, W1, Q0, Q1, K0, K1, V0, V1, O0, NSLOT };

static void
slot_elems(const fdnn_attn_sizes_t *z, int64_t n[NSLOT])
{
    n[W0] = n[W1] = z->nw;
    n[Q0] = n[Q1] = z->nq * z->qS;
    n[K0] = n[K1] = z->nk * z->kS;
    n[V0] = n[V1] = z->nk * z->vS;
    n[O0] = z->nq * z->oLen;
}

size_t
fdnn_attn_stage_bytes(const fdnn_attn_sizes_t *z)
{
    if (!z->staged)
        return 0;
    int64_t n[NSLOT], total = 0;
    size_t bytes = 0;
    /* The sizes are below 2^52 elements (fdnn_attn_check_magnitudes); the
     * checked sum keeps that an assumption that fails loudly. */
    slot_elems(z, n);
    for (int i = 0; i < NSLOT; i++)
        if (!fdnn_ckd_add_i64(total, n[i], &total))
            return SIZE_MAX;
    return fdnn_ckd_bytes(total, sizeof(float), &bytes) ? bytes : SIZE_MAX;
}

typedef struct stage {
    fdnn_attn_problem_t p32;
    float *s[NSLOT];
    int64_t n[NSLOT];
    fdnn_attn_lowp_t lowp; /* p32.lowp points here with BF16 products */
    cudnnDataType_t src_dtype; /* the user's data type */
} stage_t;

static void
carve(cudnnHandle_t handle, const fdnn_attn_problem_t *p, void *workspace, size_t kernel_bytes, stage_t *st)
{
    st->p32 = *p;
    st->src_dtype = p->dtype;
    st->p32.dtype = CUDNN_DATA_FLOAT;
    st->p32.round_half = p->dtype == CUDNN_DATA_HALF && p->cprec == CUDNN_DATA_HALF;
    st->p32.lowp = NULL;
    if (fdnn_attn_bf16_products(p, handle->isa)) {
        memset(&st->lowp, 0, sizeof(st->lowp));
        st->lowp.type = p->dtype == CUDNN_DATA_HALF ? FDNN_GEMM_F16 : FDNN_GEMM_BF16;
        st->p32.lowp = &st->lowp;
    }
    fdnn_attn_sizes_t z = fdnn_attn_sizes_of(p);
    slot_elems(&z, st->n);
    float *q = (float *)((char *)workspace + fdnn_attn_stage_offset(kernel_bytes));
    for (int i = 0; i < NSLOT; i++)
        st->s[i] = q, q += st->n[i];
}

/* Widens n elements of user into buf; NULL for an absent input. */
static float *
in_pool(fdnn_pool_t pool, cudnnDataType_t dt, const void *user, int64_t n, float *buf)
{
    if (user == NULL)
        return NULL;
    fdnn_stage_load_pool(pool, dt, user, n, buf);
    return buf;
}

#define in(dt, user, n, buf) in_pool(fdnn_handle_pool(handle), (dt), (user), (n), (buf))

/* An input the FP32 kernels read through GEMMs only (`gemm_only`): with
 * BF16 products the GEMM reads the user's 16-bit buffer in place of slot
 * buf (fdnn_attn_lowp_t slot `slot`), which stays unwritten; else, and for
 * FP32 products, it is widened into buf.  Returns buf, NULL for an absent
 * input.  BFLOAT16 (and HALF) values convert to bfloat16 operands the same
 * way from either, so the results are bitwise those of the widened path. */
static float *
in_operand(cudnnHandle_t handle, stage_t *st, int slot, bool gemm_only, const void *user, int64_t n, float *buf)
{
    if (user == NULL)
        return NULL;
    if (st->p32.lowp == NULL || !gemm_only)
        return in_pool(fdnn_handle_pool(handle), st->src_dtype,
                       user, n, buf);
    st->lowp.w32[slot] = buf, st->lowp.w16[slot] = user, st->lowp.n[slot] = n;
    return buf;
}

/* The weight parts of p (or the gradient parts dw) one after another in
 * buf: widened, and the FP32 pointers to them. */
typedef struct parts {
    const void *src[8];
    int64_t n[8];
} parts_t;

static void
weight_parts(const fdnn_attn_problem_t *p, const void *const user[8], parts_t *w)
{
    int64_t H = p->H;
    const int64_t n[8] = {H * p->qP * p->qS, H * p->qP * p->kS, H * p->vP * p->vS, (int64_t)p->oLen * H * p->vP,
                          H * p->qP,         H * p->qP,         H * p->vP,         p->oLen};
    for (int i = 0; i < 8; i++)
        w->src[i] = user[i], w->n[i] = user[i] ? n[i] : 0;
}

static void
stage_parts(fdnn_pool_t pool, cudnnDataType_t dt, const parts_t *w, float *buf, float *out[8])
{
    for (int i = 0; i < 8; i++) {
        out[i] = w->src[i] ? buf : NULL;
        fdnn_stage_load_pool(pool, dt, w->src[i], w->n[i], buf);
        buf += w->n[i];
    }
}

static void
stage_weights(fdnn_pool_t pool, stage_t *st, const fdnn_attn_problem_t *p)
{
    const void *user[8] = {p->wq, p->wk, p->wv, p->wo, p->bq, p->bk, p->bv, p->bo};
    parts_t w;
    float *f[8];
    weight_parts(p, user, &w);
    if (st->p32.lowp != NULL) {
        /* BF16 products: the matrices are GEMM operands only, read from
         * the user's buffer (fdnn_attn_lowp_t); their slots stay unwritten,
         * the biases (FP32 epilogue) are widened. */
        float *buf = st->s[W0];
        for (int i = 0; i < 8; i++) {
            f[i] = w.src[i] ? buf : NULL;
            if (i >= 4)
                fdnn_stage_load_pool(pool, p->dtype, w.src[i], w.n[i], buf);
            else if (w.src[i] != NULL)
                st->lowp.w32[i] = buf, st->lowp.w16[i] = w.src[i], st->lowp.n[i] = w.n[i];
            buf += w.n[i];
        }
    } else {
        stage_parts(pool, p->dtype, &w, st->s[W0], f);
    }
    st->p32.wq = f[0], st->p32.wk = f[1], st->p32.wv = f[2], st->p32.wo = f[3];
    st->p32.bq = f[4], st->p32.bk = f[5], st->p32.bv = f[6], st->p32.bo = f[7];
}

/* True when the forward writes every row of out (attn_t.inc's last loop):
 * every time step runs, and rows past a sequence's length are filled or
 * there are none.  Then out's old values are never kept, so they need not
 * be widened into the staging slot first (a pass over all of out). */
static bool
writes_every_out_row(const fdnn_attn_problem_t *p)
{
    if (p->curr >= 0 || p->no != p->nq)
        return false;
    if (p->fill)
        return true;
    for (int64_t s = 0; s < (int64_t)p->batch * p->beam; s++)
        if (p->q_len[s] < p->qT)
            return false;
    return true;
}

bool
fdnn_attn_forward_staged(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const void *q, const void *residuals,
                         const void *k, const void *v, void *out, void *workspace, void *reserve)
{
    stage_t st;
    const cudnnDataType_t dt = p->dtype;
    fdnn_attn_sizes_t z = fdnn_attn_sizes_of(p);
    z.staged = false, z.esize = 4;
    carve(handle, p, workspace, fdnn_attn_workspace_bytes(&z, handle->isa), &st);
    stage_weights(fdnn_handle_pool(handle), &st, p);
    /* With a projection, the forward reads q, k, v only as the projection
     * GEMM's A operand (attn_t.inc). */
    in_operand(handle, &st, FDNN_ATTN_LOWP_Q, p->q_proj, q, st.n[Q0], st.s[Q0]);
    const float *res = in(dt, residuals, st.n[Q1], st.s[Q1]);
    in_operand(handle, &st, FDNN_ATTN_LOWP_K, p->k_proj, k, st.n[K0], st.s[K0]);
    in_operand(handle, &st, FDNN_ATTN_LOWP_V, p->v_proj, v, st.n[V0], st.s[V0]);
    if (!writes_every_out_row(p))
        in(dt, out, st.n[O0], st.s[O0]);
    if (!fdnn_attn_forward_f32(handle, &st.p32, st.s[Q0], res, st.s[K0], st.s[V0], st.s[O0], workspace, reserve))
        return false;
    fdnn_stage_store_pool(fdnn_handle_pool(handle), dt, st.s[O0], st.n[O0], out);
    return true;
}

bool
fdnn_attn_backward_data_staged(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const fdnn_attn_bwd_data_t *a,
                               void *workspace, void *reserve)
{
    stage_t st;
    const cudnnDataType_t dt = p->dtype;
    fdnn_attn_sizes_t z = fdnn_attn_sizes_of(p);
    z.staged = false, z.esize = 4;
    carve(handle, p, workspace, fdnn_attn_bwd_workspace_bytes(&z, handle->isa), &st);
    stage_weights(fdnn_handle_pool(handle), &st, p);
    fdnn_attn_bwd_data_t a32 = *a;
    /* Backward data reads dout only as the A operand of dHc = dout W_O^T
     * when there is an O projection and no post dropout; q, k, v only when
     * their projection is absent (the projected ones are in the reserve):
     * with a projection, no read at all (attn_bwd_t.inc). */
    a32.dout = in_operand(handle, &st, FDNN_ATTN_LOWP_DOUT, p->o_proj && p->post_drop <= 0, a->dout, st.n[O0],
                          st.s[O0]);
    a32.q = in_operand(handle, &st, FDNN_ATTN_LOWP_Q, p->q_proj, a->q, st.n[Q0], st.s[Q0]);
    a32.k = in_operand(handle, &st, FDNN_ATTN_LOWP_K, p->k_proj, a->k, st.n[K0], st.s[K0]);
    a32.v = in_operand(handle, &st, FDNN_ATTN_LOWP_V, p->v_proj, a->v, st.n[V0], st.s[V0]);
    a32.dq = in(dt, a->dq, st.n[Q1], st.s[Q1]);
    a32.dk = in(dt, a->dk, st.n[K1], st.s[K1]);
    a32.dv = in(dt, a->dv, st.n[V1], st.s[V1]);
    if (!fdnn_attn_backward_data_f32(handle, &st.p32, &a32, workspace, reserve))
        return false;
    fdnn_stage_store_pool(fdnn_handle_pool(handle), dt, st.s[Q1], st.n[Q1], a->dq);
    fdnn_stage_store_pool(fdnn_handle_pool(handle), dt, st.s[K1], st.n[K1], a->dk);
    fdnn_stage_store_pool(fdnn_handle_pool(handle), dt, st.s[V1], st.n[V1], a->dv);
    return true;
}

bool
fdnn_attn_backward_weights_staged(cudnnHandle_t handle, const fdnn_attn_problem_t *p, bool add, const void *q,
                                  const void *k, const void *v, const void *dout, const fdnn_attn_dweights_t *dw,
                                  void *workspace, void *reserve)
{
    stage_t st;
    const cudnnDataType_t dt = p->dtype;
    /* Backward weights has no workspace of its own: the staging starts at
     * the workspace's beginning. */
    carve(handle, p, workspace, 0, &st);
    /* The weights themselves are not read by backward weights (only which
     * parts exist, from p): not widened. */
    const void *user[8] = {dw->wq, dw->wk, dw->wv, dw->wo, dw->bq, dw->bk, dw->bv, dw->bo};
    parts_t g;
    float *f[8];
    weight_parts(p, user, &g);
    stage_parts(fdnn_handle_pool(handle), dt, &g, st.s[W1], f); /* loaded in SET mode too: see fdnn_stage_store */
    fdnn_attn_dweights_t dw32 = {f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]};
    /* Backward weights reads q, k, v only as the A operand of the dW GEMMs
     * (weight_grad in attn_bwd_t.inc), dout as the B operand of dW_O, and
     * directly for the O bias's column sums; after a post dropout it reads
     * the reserve's copy instead. */
    in_operand(handle, &st, FDNN_ATTN_LOWP_Q, true, q, st.n[Q0], st.s[Q0]);
    in_operand(handle, &st, FDNN_ATTN_LOWP_K, true, k, st.n[K0], st.s[K0]);
    in_operand(handle, &st, FDNN_ATTN_LOWP_V, true, v, st.n[V0], st.s[V0]);
    in_operand(handle, &st, FDNN_ATTN_LOWP_DOUT, dw->bo == NULL || !p->o_proj, dout, st.n[O0], st.s[O0]);
    if (!fdnn_attn_backward_weights_f32(handle, &st.p32, add, st.s[Q0], st.s[K0], st.s[V0], st.s[O0], &dw32,
                                        reserve))
        return false;
    for (int i = 0; i < 8; i++)
        fdnn_stage_store_pool(fdnn_handle_pool(handle), dt, f[i], g.n[i], (void *)(uintptr_t)user[i]);
    return true;
}
