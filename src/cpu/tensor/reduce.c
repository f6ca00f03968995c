/* SPDX-License-Identifier: Apache-2.0
 * The reduction engine.  Each output is reduced in a fixed order that
 * depends on the shape and layout only:
 *   - horizontal: one task per output walks its reduced elements (8 lanes
 *     per block, a fixed tree at the end);
 *   - vertical, when a kept dim is contiguous in A: a task reduces up to
 *     FDNN_TENSOR_BLK neighbouring outputs at once, adding whole rows
 *     (blocks of rows summed first, then into the total).
 * When there are few tasks and many elements each, the reduced range is cut
 * into chunks of a fixed size, reduced in parallel into the workspace and
 * combined in chunk order.  So the bits never depend on the thread count. */
#include "core/pool.h"
#include <stdbool.h>

#include "core/handle.h"
#include "cpu/tensor/tensor_kernels.h"
#include "cpu/tensor/tensor_ops.h"
#include "cpu/config/config.h"

/* Horizontal: split only below this many outputs ... */
#define SPLIT_MAX_OUTPUTS 64
/* ... and when each reduces at least two chunks of this many elements. */
#define CHUNK 16384
/* Vertical: split below this many tasks, in chunks of this many rows. */
#define SPLIT_MAX_TASKS 16
#define VCHUNK 4096
/* Below this many input elements run on the calling thread (same results). */
#define SERIAL_MAX 16384

typedef void (*red_task_fn)(const fdnn_red_plan_t *, size_t);

/* The plan of reducing a into c (p->a and p->c are all it reads). */
static void
plan_init(const fdnn_reduce_t *p, fdnn_red_plan_t *pl, void *workspace)
{
    pl->p = p;
    pl->nk = pl->nr = 0;
    pl->outputs = pl->rcount = 1;
    bool last_reduced = false; /* the previous dim of extent > 1 was reduced */
    for (int i = 0; i < p->a.ndim; i++) {
        if (p->a.dims[i] == 1)
            continue;
        if (p->c.dims[i] == p->a.dims[i]) {
            pl->kdims[pl->nk] = p->a.dims[i];
            pl->ka[pl->nk] = p->a.strides[i];
            pl->kc[pl->nk] = p->c.strides[i];
            pl->nk++;
            pl->outputs *= p->a.dims[i];
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
            pl->rcount *= p->a.dims[i];
            last_reduced = true;
        }
    }
    if (pl->nr == 0) {
        pl->rdims[0] = 1;
        pl->ra[0] = 0;
        pl->nr = 1;
    }
    int64_t pack = 1;
    pl->kv = -1;
    for (int d = pl->nk - 1; d >= 0; d--) {
        pl->kpack[d] = pack;
        pack *= pl->kdims[d];
        if (pl->ka[d] == 1 && pl->kdims[d] >= 8 && pl->rcount > 1)
            pl->kv = d;
    }
    if (pl->kv >= 0) {
        pl->columns = (pl->kdims[pl->kv] + FDNN_TENSOR_BLK - 1) / FDNN_TENSOR_BLK;
        pl->groups = pl->outputs / pl->kdims[pl->kv];
        int64_t tasks = pl->groups * pl->columns;
        pl->nchunks = tasks < SPLIT_MAX_TASKS && pl->rcount >= 2 * VCHUNK ? (pl->rcount + VCHUNK - 1) / VCHUNK : 1;
        pl->chunk = pl->nchunks > 1 ? VCHUNK : pl->rcount;
    } else {
        pl->columns = pl->groups = 0;
        pl->nchunks = pl->outputs < SPLIT_MAX_OUTPUTS && pl->rcount >= 2 * CHUNK ? (pl->rcount + CHUNK - 1) / CHUNK : 1;
        pl->chunk = pl->nchunks > 1 ? CHUNK : pl->rcount;
    }
    pl->ea = fdnn_dtype_size(p->a.dtype);
    pl->ec = fdnn_dtype_size(p->c.dtype);
    pl->partials = pl->nchunks > 1 ? workspace : NULL;
}

size_t
fdnn_tensor_reduce_workspace(const fdnn_tensor_t *a, const fdnn_tensor_t *c)
{
    fdnn_reduce_t p = {.a = *a, .c = *c};
    fdnn_red_plan_t pl;
    plan_init(&p, &pl, NULL);
    return pl.nchunks > 1 ? (size_t)(pl.outputs * pl.nchunks) * sizeof(fdnn_red_partial_t) : 0;
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
    const fdnn_isa_config_t *cfg = fdnn_isa_config(handle->isa);
    red_task_fn chunk_fn = cfg->red_chunk_task, output_fn = cfg->red_output_task,
                vertical_fn = cfg->red_vertical_task;
    fdnn_pool_t pool = plan.outputs * plan.rcount < SERIAL_MAX ? NULL : fdnn_handle_pool(handle);
    if (plan.kv >= 0) {
        /* one pass of row blocks; with chunks, a second pass combines */
        red_ctx_t ctx = {&plan, vertical_fn};
        fdnn_parallelize_1d(pool, run_task, &ctx, (size_t)(plan.groups * plan.columns * plan.nchunks), 0);
        if (plan.nchunks == 1)
            return;
    } else if (plan.nchunks > 1) {
        red_ctx_t ctx = {&plan, chunk_fn};
        fdnn_parallelize_1d(pool, run_task, &ctx, (size_t)(plan.outputs * plan.nchunks), 0);
    }
    red_ctx_t ctx = {&plan, output_fn};
    fdnn_parallelize_1d(pool, run_task, &ctx, (size_t)plan.outputs, 0);
}
