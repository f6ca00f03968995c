/* SPDX-License-Identifier: Apache-2.0
 * The thin path of fdnn_sgemm (see sgemm_thin.h).
 *
 * With n == 1 the product is C(:, 0) = op(A) x with x = op(B)(:, 0); with
 * m == 1 it is C(0, :) = x^T op(B) with x = op(A)(0, :).  The matrix is read
 * in place by a "dot rows" kernel when its rows run along k, or an "axpy
 * rows" kernel when they run along the outputs.  Outputs are split into
 * fixed chunks (never by thread count) and each output is summed by one
 * kernel call, so results are bitwise identical for any thread count. */
#include "cpu/gemm/sgemm_thin.h"

#include <stdint.h>

#include "core/cpu.h"
#include "core/memory.h"
#include "cpu/kernels/gemv.h"
#include "cpu/config/config.h"

/* Outputs per parallel item: enough work to amortise the dispatch. */
#define THIN_CHUNK 64

typedef struct thin_plan {
    const fdnn_sgemm_args_t *args;
    fdnn_f32_gemv_fn kernel;
    bool dot;         /* dot rows (output o is row o of mat) or axpy rows (column o) */
    const float *mat; /* the matrix operand, read in place */
    size_t ld;
    const float *x; /* the vector, contiguous */
    float *out;     /* raw products, one per output */
    size_t outputs;
} thin_plan_t;

bool
fdnn_sgemm_is_thin(const fdnn_sgemm_args_t *args)
{
    return (args->m == 1 || args->n == 1) && args->k > 0 && args->alpha != 0;
}

size_t
fdnn_sgemm_thin_scratch_size(const fdnn_sgemm_args_t *args)
{
    size_t outputs = args->n == 1 ? args->m : args->n;
    return fdnn_align_up(args->k * sizeof(float)) + fdnn_align_up(outputs * sizeof(float)) + FDNN_ALIGNMENT;
}

/* C element of output o, and the biases that apply to it. */
static void
finish(const fdnn_sgemm_args_t *g, size_t o, float acc)
{
    bool column = g->n == 1; /* outputs run down column 0 */
    float *c = column ? g->c + o * g->ldc : g->c + o;
    float v = g->alpha * acc;
    if (g->beta == 1)
        v = *c + v;
    else if (g->beta != 0) /* beta == 0: C is not read */
        v = v + g->beta * *c;
    if (g->bias_row != NULL)
        v = v + g->bias_row[column ? o : 0];
    if (g->bias_col != NULL)
        v = v + g->bias_col[column ? 0 : o];
    if (g->act == FDNN_GEMM_ACT_RELU && v < 0)
        v = 0;
    *c = v;
}

static void
thin_task(void *ctx, size_t o0, size_t count)
{
    const thin_plan_t *pl = ctx;
    const float *mat = pl->dot ? pl->mat + o0 * pl->ld : pl->mat + o0;
    pl->kernel(count, pl->args->k, mat, pl->ld, pl->x, pl->out + o0);
    for (size_t o = o0; o < o0 + count; o++)
        finish(pl->args, o, pl->out[o]);
}

void
fdnn_sgemm_thin(const fdnn_sgemm_args_t *g, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch)
{
    const fdnn_isa_config_t *level = fdnn_isa_config(isa);
    thin_plan_t pl = {.args = g};
    uintptr_t base = ((uintptr_t)scratch + FDNN_ALIGNMENT - 1) & ~(uintptr_t)(FDNN_ALIGNMENT - 1);
    fdnn_carver_t carver = {(char *)base, 0};
    float *xbuf = fdnn_carve(&carver, g->k * sizeof(float));
    pl.out = fdnn_carve(&carver, (g->n == 1 ? g->m : g->n) * sizeof(float));

    /* The vector and its stride, and the matrix with its orientation. */
    const float *x;
    size_t incx;
    bool mat_rows_along_k;
    if (g->n == 1) {
        pl.outputs = g->m;
        x = g->b; /* op(B)(p, 0) */
        incx = g->trans_b ? 1 : g->ldb;
        pl.mat = g->a;
        pl.ld = g->lda;
        mat_rows_along_k = !g->trans_a; /* op(A)(i, p) = a[i * lda + p] */
    } else {
        pl.outputs = g->n;
        x = g->a; /* op(A)(0, p) */
        incx = g->trans_a ? g->lda : 1;
        pl.mat = g->b;
        pl.ld = g->ldb;
        mat_rows_along_k = g->trans_b; /* op(B)(p, j) = b[j * ldb + p] */
    }
    if (incx == 1 || g->k == 1) {
        pl.x = x;
    } else {
        for (size_t p = 0; p < g->k; p++)
            xbuf[p] = x[p * incx];
        pl.x = xbuf;
    }
    pl.dot = mat_rows_along_k;
    pl.kernel = pl.dot ? level->dot_rows : level->axpy_rows;
    fdnn_parallelize_1d_tile_1d(pool, thin_task, &pl, pl.outputs, THIN_CHUNK, 0);
}
