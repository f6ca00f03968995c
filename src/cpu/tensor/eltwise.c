/* SPDX-License-Identifier: Apache-2.0
 * The elementwise engine: flattens the views into the fewest dims, picks the
 * row (the dim where c is densest) and runs rows, split into fixed pieces,
 * on the handle's pool.  Each element is computed by exactly one task from
 * its own inputs only, so any thread count gives the same bits. */
#include "core/pool.h"

#include "core/handle.h"
#include "cpu/tensor/tensor_kernels.h"
#include "cpu/tensor/tensor_ops.h"
#include "cpu/config/config.h"

/* Elements per task along a row: large enough to amortise the task, small
 * enough that a single long row still spreads over the threads. */
#define PIECE 8192
/* Rows per group in a transpose: 16 rows x 256 elements of a stay in L1. */
#define GROUP 16
/* Below this many elements the pool costs more than it saves: run on the
 * calling thread (the results are the same either way). */
#define SERIAL_MAX 16384

typedef void (*elt_task_fn)(const fdnn_elt_plan_t *, size_t);

static elt_task_fn
pick_task(fdnn_isa_t isa)
{
    return fdnn_isa_config(isa)->elt_task;
}

/* Builds the plan: drops dims of extent 1, orders the rest by c's stride
 * (largest first, so the row is where c is densest) and merges neighbours
 * that are contiguous in every tensor. */
static void
plan_init(const fdnn_eltwise_t *p, fdnn_elt_plan_t *pl)
{
    const bool has_a = p->op != FDNN_ELT_SET;
    const bool has_b = p->op <= FDNN_ELT_MAX;
    int nd = 0;
    pl->p = p;
    for (int i = 0; i < p->c.ndim; i++) {
        if (p->c.dims[i] == 1)
            continue;
        pl->dims[nd] = p->c.dims[i];
        pl->sc[nd] = p->c.strides[i];
        pl->sa[nd] = has_a ? p->a.strides[i] : 0;
        pl->sb[nd] = has_b ? p->b.strides[i] : 0;
        nd++;
    }
    if (nd == 0) {
        pl->dims[0] = 1;
        pl->sc[0] = pl->sa[0] = pl->sb[0] = 0;
        nd = 1;
    }
    /* insertion sort by c's stride, descending; stable for equal strides */
    for (int i = 1; i < nd; i++)
        for (int j = i; j > 0 && pl->sc[j - 1] < pl->sc[j]; j--) {
            int64_t t;
#define SWAP(arr) (t = arr[j], arr[j] = arr[j - 1], arr[j - 1] = t)
            SWAP(pl->dims);
            SWAP(pl->sc);
            SWAP(pl->sa);
            SWAP(pl->sb);
#undef SWAP
        }
    /* merge dim i into i+1 when every tensor steps over it contiguously */
    int out = 0;
    for (int i = 1; i < nd; i++) {
        int64_t n = pl->dims[i];
        if (pl->sc[out] == pl->sc[i] * n && pl->sa[out] == pl->sa[i] * n && pl->sb[out] == pl->sb[i] * n) {
            pl->dims[out] *= n;
            pl->sc[out] = pl->sc[i];
            pl->sa[out] = pl->sa[i];
            pl->sb[out] = pl->sb[i];
        } else {
            out++;
            pl->dims[out] = pl->dims[i];
            pl->sc[out] = pl->sc[i];
            pl->sa[out] = pl->sa[i];
            pl->sb[out] = pl->sb[i];
        }
    }
    pl->nd = out + 1;
    /* A transpose: a is strided along the row but contiguous along another
     * dim t.  Move t next to the row and take rows in groups along it, so
     * the strided loads of a group hit the same cache lines. */
    pl->group = 1;
    const int row = pl->nd - 1;
    if (has_a && pl->nd >= 2 && pl->sa[row] != 1) {
        for (int t = 0; t < row; t++) {
            if (pl->sa[t] != 1)
                continue;
            int64_t d = pl->dims[t], c = pl->sc[t], a = pl->sa[t], b = pl->sb[t];
            for (int i = t; i < row - 1; i++) {
                pl->dims[i] = pl->dims[i + 1];
                pl->sc[i] = pl->sc[i + 1];
                pl->sa[i] = pl->sa[i + 1];
                pl->sb[i] = pl->sb[i + 1];
            }
            pl->dims[row - 1] = d;
            pl->sc[row - 1] = c;
            pl->sa[row - 1] = a;
            pl->sb[row - 1] = b;
            pl->group = d < GROUP ? d : GROUP;
            break;
        }
    }
    pl->ec = fdnn_dtype_size(p->c.dtype);
    pl->ea = has_a ? fdnn_dtype_size(p->a.dtype) : 0;
    pl->eb = has_b ? fdnn_dtype_size(p->b.dtype) : 0;
    const int64_t row_len = pl->dims[pl->nd - 1];
    pl->piece = row_len < PIECE ? row_len : PIECE;
    pl->pieces = (row_len + pl->piece - 1) / pl->piece;
}

typedef struct elt_ctx {
    const fdnn_elt_plan_t *plan;
    elt_task_fn fn;
} elt_ctx_t;

static void
run_task(void *arg, size_t task)
{
    const elt_ctx_t *ctx = arg;
    ctx->fn(ctx->plan, task);
}

void
fdnn_tensor_eltwise(cudnnHandle_t handle, const fdnn_eltwise_t *p)
{
    fdnn_elt_plan_t plan;
    plan_init(p, &plan);
    /* tasks: outer rows x groups along dims[nd-2] x pieces of the row */
    int64_t rows = 1, tasks = plan.pieces;
    for (int d = 0; d < plan.nd - 1; d++) {
        rows *= plan.dims[d];
        tasks *= d == plan.nd - 2 ? (plan.dims[d] + plan.group - 1) / plan.group : plan.dims[d];
    }
    elt_ctx_t ctx = {&plan, pick_task(handle->isa)};
    fdnn_pool_t pool = rows * plan.dims[plan.nd - 1] < SERIAL_MAX ? NULL : fdnn_handle_pool(handle);
    fdnn_parallelize_1d(pool, run_task, &ctx, (size_t)tasks, 0);
}
