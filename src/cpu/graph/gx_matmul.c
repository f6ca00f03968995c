/* SPDX-License-Identifier: Apache-2.0
 * Matmul nodes through the GEMM core: C[b] = A[b] x B[b] over the last two
 * dims, batch dims of A and B broadcast (extent 1) to C's.  Each matrix
 * operand is taken in place when one of its last two dims has unit stride
 * (row-major: ld = the other stride; column-major: the transposed GEMM
 * operand); C column-major is computed as C^T = B^T A^T.  FLOAT runs
 * fdnn_sgemm, DOUBLE fdnn_dgemm; both give the same bits for any thread
 * count (gemm.h).  FP8 operands run as FLOAT through copies (gx_stage.c). */
#include <string.h>

#include "core/ckd.h"
#include "core/fail.h"
#include "core/handle.h"
#include "cpu/gemm/gemm.h"
#include "cpu/graph/graph_exec.h"

/* How a matrix (the last two dims of t: rows x cols) is stored: row-major
 * with leading dim *ld, or column-major (*trans) with *ld between columns. */
static bool
matrix_layout(const fdnn_graph_tensor_t *t, bool *trans, int64_t *ld)
{
    int r = t->ndim - 2, c = t->ndim - 1;
    int64_t rows = t->dims[r], cols = t->dims[c];
    if (cols == 1 || t->strides[c] == 1) {
        int64_t l = rows == 1 ? cols : t->strides[r];
        if (l >= cols) {
            *trans = false, *ld = l;
            return true;
        }
    }
    if (rows == 1 || t->strides[r] == 1) {
        int64_t l = cols == 1 ? rows : t->strides[c];
        if (l >= rows) {
            *trans = true, *ld = l;
            return true;
        }
    }
    return false;
}

/* The GEMM plan of matmul node idx with operands a, b, c (the graph's, or
 * FLOAT copies of FP8 operands) and compute type ct. */
static cudnnStatus_t
plan_of(const fdnn_graph_t *g, int idx, const fdnn_graph_tensor_t *a, const fdnn_graph_tensor_t *b,
        const fdnn_graph_tensor_t *c, cudnnDataType_t ct, gx_mm_t *mm)
{
    const fdnn_gop_matmul_t *op = &g->nodes[idx].u.matmul;
    memset(mm, 0, sizeof(*mm));
    if (op->m_override != FDNN_GRAPH_NONE || op->n_override != FDNN_GRAPH_NONE || op->k_override != FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (matmul): the M/N/K override tensors "
                                  "(ragged batches) are not done",
                                  idx);
    if (a->dtype != c->dtype || b->dtype != c->dtype ||
        !((c->dtype == CUDNN_DATA_FLOAT && ct == CUDNN_DATA_FLOAT) ||
          (c->dtype == CUDNN_DATA_DOUBLE && ct == CUDNN_DATA_DOUBLE)))
        return FDNN_NOT_SUPPORTED("node %d (matmul): data types A %s, B %s, C %s "
                                  "with compute type %s; FLOAT and "
                                  "DOUBLE throughout are done",
                                  idx, gx_dtype_name(a->dtype), gx_dtype_name(b->dtype), gx_dtype_name(c->dtype),
                                  gx_dtype_name(ct));
    if (a->ndim < 2 || a->ndim != b->ndim || a->ndim != c->ndim)
        return FDNN_NOT_SUPPORTED("node %d (matmul): A, B, C have %d, %d, %d dims "
                                  "(equal and at least 2 needed)",
                                  idx, a->ndim, b->ndim, c->ndim);
    int nd = c->ndim;
    mm->f64 = c->dtype == CUDNN_DATA_DOUBLE;
    mm->m = c->dims[nd - 2];
    mm->n = c->dims[nd - 1];
    mm->k = a->dims[nd - 1];
    if (a->dims[nd - 2] != mm->m || b->dims[nd - 1] != mm->n || b->dims[nd - 2] != mm->k)
        return FDNN_NOT_SUPPORTED("node %d (matmul): A %lldx%lld, B %lldx%lld, C %lldx%lld do not chain", idx,
                                  (long long)a->dims[nd - 2], (long long)a->dims[nd - 1], (long long)b->dims[nd - 2],
                                  (long long)b->dims[nd - 1], (long long)mm->m, (long long)mm->n);
    mm->nb = nd - 2;
    mm->nbatch = 1;
    for (int d = 0; d < mm->nb; d++) {
        if ((a->dims[d] != 1 && a->dims[d] != c->dims[d]) || (b->dims[d] != 1 && b->dims[d] != c->dims[d]))
            return FDNN_NOT_SUPPORTED("node %d (matmul): batch dim %d of A (%lld) or "
                                      "B (%lld) does not broadcast to "
                                      "C's %lld",
                                      idx, d, (long long)a->dims[d], (long long)b->dims[d], (long long)c->dims[d]);
        mm->bdims[d] = c->dims[d];
        mm->a_bstr[d] = a->dims[d] == 1 ? 0 : a->strides[d];
        mm->b_bstr[d] = b->dims[d] == 1 ? 0 : b->strides[d];
        mm->c_bstr[d] = c->strides[d];
        mm->nbatch *= c->dims[d];
    }
    if (!matrix_layout(a, &mm->a_t, &mm->lda))
        return FDNN_NOT_SUPPORTED("node %d (matmul): A has no unit stride in its last two dims", idx);
    if (!matrix_layout(b, &mm->b_t, &mm->ldb))
        return FDNN_NOT_SUPPORTED("node %d (matmul): B has no unit stride in its last two dims", idx);
    if (!matrix_layout(c, &mm->c_colmajor, &mm->ldc))
        return FDNN_NOT_SUPPORTED("node %d (matmul): C has no unit stride in its last two dims", idx);
    if (mm->m <= 0 || mm->n <= 0 || mm->k <= 0)
        return FDNN_NOT_SUPPORTED("node %d (matmul): an empty dimension (M %lld, N %lld, K %lld)", idx,
                                  (long long)mm->m, (long long)mm->n, (long long)mm->k);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_mm_plan(const fdnn_graph_t *g, int idx, gx_mm_t *mm)
{
    const fdnn_gop_matmul_t *op = &g->nodes[idx].u.matmul;
    return plan_of(g, idx, &g->tensors[op->a], &g->tensors[op->b], &g->tensors[op->c], op->compute_type, mm);
}

/* The plan the matmul node runs: gx_mm_plan's, or with FP8 operands
 * (cuDNN 8.9: FP8 storage, FLOAT compute; FAST_FLOAT_FOR_FP8 here plain
 * FLOAT) the FLOAT plan of their copies. */
static cudnnStatus_t
node_plan(const fdnn_graph_t *g, int idx, gx_mm_t *mm)
{
    const fdnn_gop_matmul_t *op = &g->nodes[idx].u.matmul;
    const fdnn_graph_tensor_t *a = &g->tensors[op->a], *b = &g->tensors[op->b], *c = &g->tensors[op->c];
    if (!gx_is_fp8(a->dtype) && !gx_is_fp8(b->dtype) && !gx_is_fp8(c->dtype)) {
        if (op->compute_type == CUDNN_DATA_FAST_FLOAT_FOR_FP8)
            return FDNN_NOT_SUPPORTED("node %d (matmul): compute type FAST_FLOAT_FOR_FP8 without FP8 operands", idx);
        return gx_mm_plan(g, idx, mm);
    }
    if (op->compute_type != CUDNN_DATA_FLOAT && op->compute_type != CUDNN_DATA_FAST_FLOAT_FOR_FP8)
        return FDNN_NOT_SUPPORTED("node %d (matmul): FP8 operands with compute type %s; FP8 computes in FLOAT "
                                  "(or FAST_FLOAT_FOR_FP8)",
                                  idx, gx_dtype_name(op->compute_type));
    const fdnn_graph_tensor_t *ops[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (!gx_is_fp8(ops[i]->dtype) && ops[i]->dtype != CUDNN_DATA_FLOAT)
            return FDNN_NOT_SUPPORTED("node %d (matmul): A %s, B %s, C %s: with FP8 operands the others are FP8 "
                                      "or FLOAT",
                                      idx, gx_dtype_name(a->dtype), gx_dtype_name(b->dtype), gx_dtype_name(c->dtype));
    fdnn_graph_tensor_t fa, fb, fc;
    gx_stage_retype(a, &fa);
    gx_stage_retype(b, &fb);
    gx_stage_retype(c, &fc);
    return plan_of(g, idx, &fa, &fb, &fc, CUDNN_DATA_FLOAT, mm);
}

void
gx_mm_offsets(const gx_mm_t *mm, int64_t batch, int64_t *aoff, int64_t *boff, int64_t *coff)
{
    *aoff = *boff = *coff = 0;
    for (int d = mm->nb - 1; d >= 0; d--) {
        int64_t i = batch % mm->bdims[d];
        batch /= mm->bdims[d];
        *aoff += i * mm->a_bstr[d];
        *boff += i * mm->b_bstr[d];
        *coff += i * mm->c_bstr[d];
    }
}

/* One GEMM in either precision; false when the packing buffers could not be
 * allocated. */
static bool
gemm_hook(cudnnHandle_t h, bool f64, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
          const void *b, int64_t ldb, void *c, int64_t ldc, fdnn_gemm_tile_hook_t hook, void *hook_ctx)
{
    fdnn_pool_t pool = (double)m * (double)n * (double)k < 65536.0 ? NULL : fdnn_handle_pool(h);
    if (f64) {
        fdnn_dgemm_args_t g = {ta,          tb, (size_t)m,   (size_t)n, (size_t)k, 1.0,        a,
                               (size_t)lda, b,  (size_t)ldb, 0.0,       c,         (size_t)ldc};
        return fdnn_dgemm_isa(&g, pool, h->isa);
    }
    fdnn_sgemm_args_t g;
    memset(&g, 0, sizeof(g));
    g.trans_a = ta, g.trans_b = tb;
    g.m = (size_t)m, g.n = (size_t)n, g.k = (size_t)k;
    g.alpha = 1.0f, g.beta = 0.0f;
    g.a = a, g.lda = (size_t)lda, g.b = b, g.ldb = (size_t)ldb, g.c = c, g.ldc = (size_t)ldc;
    g.tile_hook = hook, g.tile_ctx = hook_ctx;
    /* Packing buffers in the handle's scratch: the fused engine calls this
     * once per panel, and an allocation each time costs page faults. */
    size_t need = fdnn_sgemm_scratch_size(&g, fdnn_pool_threads(pool), h->isa);
    void *scratch = fdnn_handle_scratch(h, need);
    return fdnn_sgemm(&g, pool, h->isa, scratch, scratch != NULL ? need : 0);
}

static bool
gemm(cudnnHandle_t h, bool f64, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
     const void *b, int64_t ldb, void *c, int64_t ldc)
{
    return gemm_hook(h, f64, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, NULL, NULL);
}

bool
gx_mm_rows_hook(cudnnHandle_t h, const gx_mm_t *mm, const void *a, const void *b, int64_t r0, int64_t nr, void *c,
                int64_t ldc, fdnn_gemm_tile_hook_t hook, void *hook_ctx)
{
    size_t es = mm->f64 ? 8 : 4;
    const char *arow = (const char *)a + (size_t)(mm->a_t ? r0 : r0 * mm->lda) * es;
    return gemm_hook(h, mm->f64, mm->a_t, mm->b_t, nr, mm->n, mm->k, arow, mm->lda, b, mm->ldb, c, ldc, hook,
                     hook_ctx);
}

bool
gx_mm_rows(cudnnHandle_t h, const gx_mm_t *mm, const void *a, const void *b, int64_t r0, int64_t nr, void *c,
           int64_t ldc)
{
    size_t es = mm->f64 ? 8 : 4;
    const char *arow = (const char *)a + (size_t)(mm->a_t ? r0 : r0 * mm->lda) * es;
    return gemm(h, mm->f64, mm->a_t, mm->b_t, nr, mm->n, mm->k, arow, mm->lda, b, mm->ldb, c, ldc);
}

static cudnnStatus_t
mm_supports(const fdnn_graph_t *g, int idx)
{
    gx_mm_t mm;
    return node_plan(g, idx, &mm);
}

/* Scratch: the FLOAT copies of FP8 operands (A, B, C). */
static cudnnStatus_t
mm_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    const fdnn_gop_matmul_t *op = &g->nodes[idx].u.matmul;
    const int t[3] = {op->a, op->b, op->c};
    *bytes = 0;
    for (int i = 0; i < 3; i++) {
        size_t b;
        if (!gx_stage_bytes(&g->tensors[t[i]], &b) || !fdnn_ckd_add_size(*bytes, b, bytes))
            return FDNN_NOT_SUPPORTED("node %d (matmul): the FLOAT copies of the FP8 operands overflow the "
                                      "workspace size",
                                      idx);
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
mm_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch_bytes;
    const fdnn_graph_t *g = e->graph;
    const fdnn_gop_matmul_t *op = &g->nodes[idx].u.matmul;
    gx_mm_t mm;
    RETURN_IF_ERROR(node_plan(g, idx, &mm));
    /* A, B, C: the graph's buffers, or FLOAT copies of FP8 operands */
    const int t[3] = {op->a, op->b, op->c};
    void *buf[3];
    char *at = scratch;
    for (int i = 0; i < 3; i++) {
        size_t sb = 0;
        buf[i] = ptr[t[i]];
        if (!gx_stage_bytes(&g->tensors[t[i]], &sb) || sb == 0)
            continue;
        buf[i] = at;
        at += sb;
        if (i < 2)
            gx_stage_load(&g->tensors[t[i]], ptr[t[i]], buf[i]);
    }
    size_t es = mm.f64 ? 8 : 4;
    for (int64_t bt = 0; bt < mm.nbatch; bt++) {
        int64_t ao, bo, co;
        gx_mm_offsets(&mm, bt, &ao, &bo, &co);
        const char *A = (const char *)buf[0] + (size_t)ao * es;
        const char *B = (const char *)buf[1] + (size_t)bo * es;
        char *C = (char *)buf[2] + (size_t)co * es;
        bool ok;
        if (!mm.c_colmajor)
            ok = gx_mm_rows(e->handle, &mm, A, B, 0, mm.m, C, mm.ldc);
        else /* C^T (n x m, row-major with ldc) = B^T A^T */
            ok = gemm(e->handle, mm.f64, !mm.b_t, !mm.a_t, mm.n, mm.m, mm.k, B, mm.ldb, A, mm.lda, C, mm.ldc);
        if (!ok)
            return FDNN_ALLOC_FAILED("node %d (matmul): the GEMM packing buffers could not be allocated", idx);
    }
    if (buf[2] != ptr[op->c])
        gx_stage_store(&g->tensors[op->c], buf[2], ptr[op->c]);
    return CUDNN_STATUS_SUCCESS;
}

const gx_node_exec_t gx_matmul_exec = {mm_supports, mm_scratch, mm_run};
