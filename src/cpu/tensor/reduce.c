/* SPDX-License-Identifier: Apache-2.0
 * The reduction engine.  Each output is reduced by one task in a fixed order
 * (8 lanes per block, a fixed tree at the end).  When there are few outputs
 * and many elements each, the reduced range is cut into chunks of a fixed
 * size (a function of the shape only), reduced in parallel into the
 * workspace and combined in chunk order: the same bits for any thread
 * count. */
#include <pthreadpool.h>
#include <stdbool.h>

#include "core/handle.h"
#include "cpu/tensor/tensor_kernels.h"
#include "cpu/tensor/tensor_ops.h"

/* Split only when there are fewer outputs than this ... */
#define SPLIT_MAX_OUTPUTS 64
/* ... and each reduces at least two chunks of this many elements. */
#define CHUNK 16384
/* Below this many input elements run on the calling thread (same results). */
#define SERIAL_MAX 16384

typedef void (*red_task_fn)(const fdnn_red_plan_t *, size_t);

static int64_t
count_outputs(const fdnn_tensor_t *a, const fdnn_tensor_t *c, int64_t *rcount)
{
    int64_t outputs = 1, r = 1;
    for (int i = 0; i < a->ndim; i++) {
        if (c->dims[i] == a->dims[i])
            outputs *= a->dims[i];
        else
            r *= a->dims[i];
    }
    *rcount = r;
    return outputs;
}

static int64_t
count_chunks(int64_t outputs, int64_t rcount)
{
    if (outputs >= SPLIT_MAX_OUTPUTS || rcount < 2 * CHUNK)
        return 1;
    return (rcount + CHUNK - 1) / CHUNK;
}

size_t
fdnn_tensor_reduce_workspace(const fdnn_tensor_t *a, const fdnn_tensor_t *c)
{
    int64_t rcount, outputs = count_outputs(a, c, &rcount);
    int64_t chunks = count_chunks(outputs, rcount);
    return chunks > 1 ? (size_t)(outputs * chunks) * sizeof(fdnn_red_partial_t) : 0;
}

static void
plan_init(const fdnn_reduce_t *p, fdnn_red_plan_t *pl, void *workspace)
{
    pl->p = p;
    pl->nk = pl->nr = 0;
    bool last_reduced = false; /* the previous dim of extent > 1 was reduced */
    for (int i = 0; i < p->a.ndim; i++) {
        if (p->a.dims[i] == 1)
            continue;
        if (p->c.dims[i] == p->a.dims[i]) {
            pl->kdims[pl->nk] = p->a.dims[i];
            pl->ka[pl->nk] = p->a.strides[i];
            pl->kc[pl->nk] = p->c.strides[i];
            pl->nk++;
            last_reduced = false;
        } else {
            /* Neighbouring reduced dims that are contiguous in a merge: the
             * row-major flattened index stays the same. */
            if (last_reduced && pl->ra[pl->nr - 1] == p->a.strides[i] * p->a.dims[i]) {
                pl->rdims[pl->nr - 1] *= p->a.dims[i];
                pl->ra[pl->nr - 1] = p->a.strides[i];
            } else {
                pl->rdims[pl->nr] = p->a.dims[i];
                pl->ra[pl->nr] = p->a.strides[i];
                pl->nr++;
            }
            last_reduced = true;
        }
    }
    if (pl->nr == 0) {
        pl->rdims[0] = 1;
        pl->ra[0] = 0;
        pl->nr = 1;
    }
    pl->outputs = count_outputs(&p->a, &p->c, &pl->rcount);
    pl->nchunks = count_chunks(pl->outputs, pl->rcount);
    pl->chunk = pl->nchunks > 1 ? CHUNK : pl->rcount;
    pl->ea = fdnn_dtype_size(p->a.dtype);
    pl->ec = fdnn_dtype_size(p->c.dtype);
    pl->partials = pl->nchunks > 1 ? workspace : NULL;
}

typedef struct red_ctx {
    const fdnn_red_plan_t *plan;
    red_task_fn fn;
} red_ctx_t;

static void
run_task(void *arg, size_t task)
{
    const red_ctx_t *ctx = arg;
    ctx->fn(ctx->plan, task);
}

void
fdnn_tensor_reduce(cudnnHandle_t handle, const fdnn_reduce_t *p, void *workspace)
{
    fdnn_red_plan_t plan;
    plan_init(p, &plan, workspace);
    red_task_fn chunk_fn = fdnn_red_chunk_task__scalar, output_fn = fdnn_red_output_task__scalar;
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
    if (handle->isa >= FDNN_ISA_AVX512) {
        chunk_fn = fdnn_red_chunk_task__avx512;
        output_fn = fdnn_red_output_task__avx512;
    } else if (handle->isa >= FDNN_ISA_AVX2) {
        chunk_fn = fdnn_red_chunk_task__avx2;
        output_fn = fdnn_red_output_task__avx2;
    }
#endif
    pthreadpool_t pool = plan.outputs * plan.rcount < SERIAL_MAX ? NULL : handle->pool;
    if (plan.nchunks > 1) {
        red_ctx_t ctx = {&plan, chunk_fn};
        pthreadpool_parallelize_1d(pool, run_task, &ctx, (size_t)(plan.outputs * plan.nchunks), 0);
    }
    red_ctx_t ctx = {&plan, output_fn};
    pthreadpool_parallelize_1d(pool, run_task, &ctx, (size_t)plan.outputs, 0);
}
