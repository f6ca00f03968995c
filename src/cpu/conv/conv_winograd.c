/* SPDX-License-Identifier: Apache-2.0
 * Winograd F(2x2, 3x3) forward convolution, non-fused: the transforms go
 * through the workspace and the 16 products are GEMMs on the GEMM core.
 *
 * For each 2x2 output tile and each channel (Lavin & Gray, 2015):
 *   U = G g G^T          (filter, 4x4 from 3x3)
 *   V = B^T d B          (input, 4x4 from the 4x4 patch d)
 *   M[e] = sum_c U[e][k][c] * V[e][c][tile]   for each of the 16 entries e
 *   Y = A^T M A          (output, 2x2 from 4x4)
 * with B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
 *      G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1],
 *      A^T = [1 1 1 0; 0 1 -1 -1].
 * Every coefficient is 0, +-1 or +-1/2, so on small integer data the result
 * is exact; on real data the error is a few ulps times the reduction length.
 *
 * Applies to 2-D, 3x3, stride 1, dilation 1 problems (any padding, groups,
 * layout, both modes).  Images run in fixed chunks as in the GEMM engine, so
 * results do not depend on the thread count. */
#include <stdint.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_gemm.h"
#include "cpu/gemm/gemm.h"

#define MAX_CHUNKS 8
/* Tiles per block: V for one block (16 x Cg x tiles) is kept near this many
 * bytes. */
#define BLOCK_BYTES (2u * 1024u * 1024u)

typedef struct wplan {
    const fdnn_conv_problem_t *p;
    size_t es;
    int64_t cg, kg, th, tw, tiles, block;
    int nchunks;
    size_t off_u, off_chunks, v_bytes, m_bytes, chunk_bytes, total;
} wplan_t;

cudnnStatus_t
fdnn_conv_winograd_applicable(const fdnn_conv_problem_t *p)
{
    if (p->nsp != 2)
        return FDNN_NOT_SUPPORTED("WINOGRAD_NONFUSED handles 2-D convolutions only");
    if (p->ker[1] != 3 || p->ker[2] != 3)
        return FDNN_NOT_SUPPORTED("WINOGRAD_NONFUSED needs a 3x3 filter, not %lldx%lld", (long long)p->ker[1],
                                  (long long)p->ker[2]);
    if (p->stride[1] != 1 || p->stride[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1)
        return FDNN_NOT_SUPPORTED("WINOGRAD_NONFUSED needs stride 1 and dilation 1");
    return CUDNN_STATUS_SUCCESS;
}

static void
make_plan(const fdnn_conv_problem_t *p, wplan_t *w)
{
    memset(w, 0, sizeof(*w));
    w->p = p;
    w->es = fdnn_dtype_size(p->dtype);
    w->cg = fdnn_conv_cg(p);
    w->kg = fdnn_conv_kg(p);
    w->th = (p->out[1] + 1) / 2;
    w->tw = (p->out[2] + 1) / 2;
    w->tiles = w->th * w->tw;
    int64_t b = (int64_t)BLOCK_BYTES / (16 * w->cg * (int64_t)w->es);
    b = b < 16 ? 16 : b - b % 16;
    w->block = b < w->tiles ? b : w->tiles;
    w->nchunks = (int)(p->n < MAX_CHUNKS ? p->n : MAX_CHUNKS);
    w->off_u = 0;
    w->off_chunks = fdnn_align_up((size_t)(16 * p->k * w->cg) * w->es);
    w->v_bytes = fdnn_align_up((size_t)(16 * w->cg * w->block) * w->es);
    w->m_bytes = fdnn_align_up((size_t)(16 * w->kg * w->block) * w->es);
    w->chunk_bytes = w->v_bytes + w->m_bytes;
    w->total = w->off_chunks + w->chunk_bytes * (size_t)w->nchunks;
}

cudnnStatus_t
fdnn_conv_winograd_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    RETURN_IF_ERROR(fdnn_conv_winograd_applicable(p));
    wplan_t w;
    make_plan(p, &w);
    *bytes = w.total;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct wctx {
    const fdnn_conv_exec_t *e;
    const wplan_t *w;
    pthreadpool_t pool; /* inside a chunk; NULL when chunks run in parallel */
    volatile int failed;
} wctx_t;

#define T float
#define SFX(name) name##_f32
#define IS_FLOAT 1
#include "cpu/conv/conv_winograd.inc"
#undef T
#undef SFX
#undef IS_FLOAT

#define T double
#define SFX(name) name##_f64
#define IS_FLOAT 0
#include "cpu/conv/conv_winograd.inc"
#undef T
#undef SFX
#undef IS_FLOAT

cudnnStatus_t
fdnn_conv_winograd_execute(const fdnn_conv_exec_t *e)
{
    RETURN_IF_ERROR(fdnn_conv_winograd_applicable(e->p));
    wplan_t w;
    make_plan(e->p, &w);
    if (e->workspace_bytes < w.total || e->workspace == NULL)
        return FDNN_BAD_PARAM("workspace is %zu bytes, WINOGRAD_NONFUSED needs %zu", e->workspace_bytes, w.total);
    wctx_t c = {e, &w, NULL, 0};
    size_t threads = e->pool != NULL ? pthreadpool_get_threads_count(e->pool) : 1;
    bool par = threads > 1 && (size_t)w.nchunks >= threads;
    c.pool = par ? NULL : e->pool;
    void (*chunk)(void *, size_t) = e->p->dtype == CUDNN_DATA_FLOAT ? chunk_f32 : chunk_f64;
    if (e->p->dtype == CUDNN_DATA_FLOAT)
        filter_transform_f32(&c);
    else
        filter_transform_f64(&c);
    if (par)
        pthreadpool_parallelize_1d(e->pool, chunk, &c, (size_t)w.nchunks, 0);
    else
        for (int i = 0; i < w.nchunks; i++)
            chunk(&c, (size_t)i);
    if (c.failed)
        return FDNN_ALLOC_FAILED("the GEMM core could not allocate its buffers");
    return CUDNN_STATUS_SUCCESS;
}
