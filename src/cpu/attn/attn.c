/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention: the sizes and the reserve layout shared by both
 * precisions, and the dispatch to the typed forward (attn_t.inc via
 * attn_f32.c and attn_f64.c).  Formulas and layouts in attn.h. */
#include "cpu/attn/attn.h"
#include "cpu/rnn/stage_io.h"

fdnn_attn_sizes_t
fdnn_attn_sizes_of(const fdnn_attn_problem_t *p)
{
    return (fdnn_attn_sizes_t){.esize = p->dtype == CUDNN_DATA_DOUBLE ? 8 : 4, .H = p->H, .qP = p->qP, .vP = p->vP,
                               .oLen = p->oLen, .q_proj = p->q_proj, .k_proj = p->k_proj, .v_proj = p->v_proj,
                               .o_proj = p->o_proj, .nq = p->nq, .nk = p->nk, .seqs = (int64_t)p->batch * p->beam,
                               .qT = p->qT, .kT = p->kT, .attn_drop = p->attn_drop > 0, .post_drop = p->post_drop > 0,
                               .staged = fdnn_stage_is_16(p->dtype), .qS = p->qS, .kS = p->kS, .vS = p->vS,
                               .nw = fdnn_attn_weight_elems(p)};
}

int64_t
fdnn_attn_weight_elems(const fdnn_attn_problem_t *p)
{
    int64_t H = p->H, n = 0;
    if (p->q_proj)
        n += H * p->qP * p->qS + (p->bq ? H * p->qP : 0);
    if (p->k_proj)
        n += H * p->qP * p->kS + (p->bk ? H * p->qP : 0);
    if (p->v_proj)
        n += H * p->vP * p->vS + (p->bv ? H * p->vP : 0);
    if (p->o_proj)
        n += (int64_t)p->oLen * H * p->vP + (p->bo ? p->oLen : 0);
    return n;
}

size_t
fdnn_attn_workspace_bytes(const fdnn_attn_sizes_t *z, fdnn_isa_t isa)
{
    if (z->esize == 8)
        return fdnn_attn_workspace_bytes_f64(z, isa);
    return fdnn_attn_stage_offset(fdnn_attn_workspace_bytes_f32(z, isa)) + fdnn_attn_stage_bytes(z);
}

size_t
fdnn_attn_reserve_layout(const fdnn_attn_sizes_t *z, void *base, fdnn_attn_reserve_t *r)
{
    int64_t H = z->H;
    char *f = base ? (char *)base + FDNN_ATTN_RESERVE_HEADER : NULL;
    size_t off = 0, es = (size_t)z->esize;
#define TAKE(field, n)                                                \
    do {                                                              \
        size_t n_ = (size_t)(n);                                      \
        if (r != NULL)                                                \
            r->field = f != NULL && n_ > 0 ? f + off * es : NULL;     \
        off += n_;                                                    \
    } while (0)
    TAKE(qp, z->q_proj ? z->nq * H * z->qP : 0);
    TAKE(kp, z->k_proj ? z->nk * H * z->qP : 0);
    TAKE(vp, z->v_proj ? z->nk * H * z->vP : 0);
    TAKE(hc, z->o_proj ? z->nq * H * z->vP : 0);
    TAKE(probs, z->seqs * H * z->qT * z->kT);
    TAKE(dqp, z->q_proj ? z->nq * H * z->qP : 0);
    TAKE(dkp, z->k_proj ? z->nk * H * z->qP : 0);
    TAKE(dvp, z->v_proj ? z->nk * H * z->vP : 0);
    TAKE(dgo, z->post_drop ? z->nq * z->oLen : 0);
#undef TAKE
    return FDNN_ATTN_RESERVE_HEADER + off * es;
}

bool
fdnn_attn_forward(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const void *q, const void *residuals,
                  const void *k, const void *v, void *out, void *workspace, void *reserve)
{
    if (fdnn_stage_is_16(p->dtype))
        return fdnn_attn_forward_staged(handle, p, q, residuals, k, v, out, workspace, reserve);
    if (p->dtype == CUDNN_DATA_DOUBLE)
        return fdnn_attn_forward_f64(handle, p, q, residuals, k, v, out, workspace, reserve);
    return fdnn_attn_forward_f32(handle, p, q, residuals, k, v, out, workspace, reserve);
}
