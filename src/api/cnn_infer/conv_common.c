/* SPDX-License-Identifier: Apache-2.0
 * Shared helpers of the convolution entry points.  See conv_common.h. */
#define _POSIX_C_SOURCE 200809L
#include "api/cnn_infer/conv_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/timing.h"
#include "core/memory.h"
#include "cpu/conv/conv_bf16.h"
#include "cpu/conv/conv_lowp.h"

void
fdnn_conv_log(const fdnn_conv_problem_t *p, int algo)
{
    const char *v = getenv("FREEDNN_LOG");
    if (v == NULL || strcmp(v, "1") != 0)
        return;
    char buf[512];
    fdnn_conv_problem_to_string(p, buf, sizeof(buf));
    fprintf(stderr, "freednn: %s algo=%d\n", buf, algo);
}

cudnnStatus_t
fdnn_conv_check_workspace(const void *workspace, size_t bytes)
{
    if (workspace == NULL && bytes > 0)
        return FDNN_BAD_PARAM("workSpace is NULL but workSpaceSizeInBytes is %zu", bytes);
    return CUDNN_STATUS_SUCCESS;
}

/* CUDNN_CONV_WSCAP_DBG: the workspace cap in MiB of the Get/Find queries;
 * SIZE_MAX when unset or unparsable. */
static size_t
workspace_cap(void)
{
    const char *v = getenv("CUDNN_CONV_WSCAP_DBG");
    if (v == NULL || *v == '\0')
        return SIZE_MAX;
    char *end = NULL;
    unsigned long long mib = strtoull(v, &end, 10);
    if (end == v || mib > (SIZE_MAX >> 20))
        return SIZE_MAX;
    return (size_t)mib << 20;
}

static void
fill_record(fdnn_conv_perf_t *r, const fdnn_conv_problem_t *p, int algo, cudnnStatus_t status, float time_ms,
            size_t memory)
{
    memset(r, 0, sizeof(*r));
    r->algo = (cudnnConvolutionFwdAlgo_t)algo;
    r->status = status;
    r->time = time_ms;
    r->memory = memory;
    /* Every FreeDNN solver gives the same bits on every run. */
    r->determinism = CUDNN_DETERMINISTIC;
    /* The math type the algorithm runs with (every algorithm of a problem
     * runs with the same one): a TENSOR_OP type only when the descriptor
     * allows it and the operands are rounded to BF16. */
    r->mathType = fdnn_conv_math_used(p);
}

static void
move_to_front(int *order, int count, int algo)
{
    int pos = 0;
    while (pos < count && order[pos] != algo)
        pos++;
    if (pos == count)
        return;
    for (; pos > 0; pos--)
        order[pos] = order[pos - 1];
    order[0] = algo;
}

/* The heuristic order for p: the registry's order, with the direct solver
 * first for depthwise-like problems (one input and few output channels per
 * group), where per-group GEMMs are degenerate, and where the registry says
 * its blocked kernels are faster (fdnn_conv_prefers_direct). */
static void
heuristic_order(const fdnn_conv_problem_t *p, int *order)
{
    /* Reduced-precision problems run the FP32 solvers: their order; the
     * native BF16 path (cpu/conv/conv_bf16.h) first where it runs. */
    const fdnn_conv_problem_t *user = p;
    fdnn_conv_problem_t shadow;
    if (fdnn_conv_lowp_applies(p)) {
        fdnn_conv_lowp_shadow(p, &shadow);
        p = &shadow;
    }
    int count = fdnn_conv_algo_count(p->dir);
    memcpy(order, fdnn_conv_algo_order(p->dir), sizeof(int) * (size_t)count);
    if (fdnn_conv_bf16_applies(user, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)) {
        move_to_front(order, count, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
    } else if ((p->g > 1 && fdnn_conv_cg(p) == 1 && fdnn_conv_kg(p) <= 4) || fdnn_conv_prefers_direct(p)) {
        int direct = p->dir == FDNN_CONV_FWD ? CUDNN_CONVOLUTION_FWD_ALGO_DIRECT : 0; /* ALGO_0 */
        move_to_front(order, count, direct);
    }
}

/* Under a zero workspace cap: cuDNN's zero-workspace fallbacks first
 * (IMPLICIT_GEMM before DIRECT, which NVIDIA's library never runs), each
 * part in its heuristic order. */
static void
fallbacks_first(fdnn_conv_dir_t dir, int *order, int count)
{
    int rest[16], nf = 0, nr = 0;
    for (int i = 0; i < count; i++) {
        if (fdnn_conv_is_zero_workspace_fallback(dir, order[i]))
            order[nf++] = order[i];
        else
            rest[nr++] = order[i];
    }
    memcpy(order + nf, rest, sizeof(int) * (size_t)nr);
}

cudnnStatus_t
fdnn_conv_get_v7(cudnnHandle_t handle, const fdnn_conv_problem_t *p, int requested, int *returned,
                 fdnn_conv_perf_t *perf)
{
    (void)handle;
    if (requested <= 0)
        return FDNN_BAD_PARAM("requestedAlgoCount is %d, must be positive", requested);
    RETURN_IF_NULL(returned);
    RETURN_IF_NULL(perf);
    int order[16];
    int count = fdnn_conv_algo_count(p->dir);
    heuristic_order(p, order);
    size_t cap = workspace_cap();
    if (cap == 0)
        fallbacks_first(p->dir, order, count);
    fdnn_conv_perf_t all[16];
    int n_ok = 0, n_bad = 0;
    fdnn_conv_perf_t bad[16];
    for (int i = 0; i < count; i++) {
        size_t ws = 0;
        cudnnStatus_t st = fdnn_conv_algo_check(p, order[i], &ws);
        if (st == CUDNN_STATUS_SUCCESS && ws > cap)
            st = CUDNN_STATUS_NOT_SUPPORTED; /* over the workspace cap */
        if (st == CUDNN_STATUS_SUCCESS)
            fill_record(&all[n_ok++], p, order[i], st, -1.0f, ws);
        else
            fill_record(&bad[n_bad++], p, order[i], st, -1.0f, 0);
    }
    fdnn_fail_clear();
    memcpy(all + n_ok, bad, sizeof(bad[0]) * (size_t)n_bad);
    int n = requested < count ? requested : count;
    memcpy(perf, all, sizeof(all[0]) * (size_t)n);
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}

/* Runs algo and returns its median time in ms (or a failure status). */
static cudnnStatus_t
time_algo(const fdnn_conv_exec_t *e, int algo, float *ms)
{
    enum { RUNS = 5 };
    double t[RUNS];
    int runs = RUNS;
    for (int i = 0; i < runs; i++) {
        double t0 = fdnn_now_ms();
        RETURN_IF_ERROR(fdnn_conv_run(e, algo));
        t[i] = fdnn_now_ms() - t0;
        if (i == 0 && t[0] > 250.0)
            runs = 1; /* a slow algorithm: one run is measurement enough */
    }
    *ms = (float)fdnn_median_ms(t, (size_t)runs);
    return CUDNN_STATUS_SUCCESS;
}

static int
cmp_perf(const void *a, const void *b)
{
    const fdnn_conv_perf_t *x = a, *y = b;
    if ((x->status == CUDNN_STATUS_SUCCESS) != (y->status == CUDNN_STATUS_SUCCESS))
        return x->status == CUDNN_STATUS_SUCCESS ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (int)x->algo - (int)y->algo;
}

cudnnStatus_t
fdnn_conv_find(cudnnHandle_t handle, const fdnn_conv_problem_t *p, const fdnn_conv_exec_t *io, int requested,
               int *returned, fdnn_conv_perf_t *perf)
{
    if (requested <= 0)
        return FDNN_BAD_PARAM("requestedAlgoCount is %d, must be positive", requested);
    RETURN_IF_NULL(returned);
    RETURN_IF_NULL(perf);
    fdnn_conv_exec_t e;
    memset(&e, 0, sizeof(e));
    void *own[3] = {NULL, NULL, NULL};
    if (io != NULL) {
        e = *io;
    } else {
        /* Zero-filled operands of the problem's own strides. */
        const fdnn_tensor_t *ts[3] = {&p->x, &p->w, &p->y};
        for (int i = 0; i < 3; i++) {
            /* (Each operand's own element size: the _EXT integer
             * configurations have FLOAT y and INT8 x.) */
            own[i] = calloc((size_t)fdnn_tensor_span(ts[i]) + 1, fdnn_dtype_size(ts[i]->dtype));
            if (own[i] == NULL) {
                free(own[0]);
                free(own[1]);
                return FDNN_ALLOC_FAILED("cannot allocate the operands to time the algorithms");
            }
        }
        e.x_in = own[0];
        e.w_in = own[1];
        e.y_in = own[2];
        e.out = p->dir == FDNN_CONV_FWD ? own[2] : p->dir == FDNN_CONV_BWD_DATA ? own[0] : own[1];
    }
    e.handle = handle;
    e.p = p;
    e.alpha = 1;
    e.beta = 0;
    e.bias = NULL;
    e.relu = false;

    size_t cap = workspace_cap();
    int count = fdnn_conv_algo_count(p->dir);
    fdnn_conv_perf_t all[16];
    for (int algo = 0; algo < count; algo++) {
        size_t ws = 0;
        cudnnStatus_t st = fdnn_conv_algo_check(p, algo, &ws);
        float ms = -1.0f;
        if (st == CUDNN_STATUS_SUCCESS && ws > cap)
            st = CUDNN_STATUS_NOT_SUPPORTED;
        if (st == CUDNN_STATUS_SUCCESS) {
            fdnn_conv_exec_t run = e;
            void *mine = NULL;
            if (io != NULL) {
                if (ws > io->workspace_bytes)
                    st = CUDNN_STATUS_ALLOC_FAILED; /* the user's workspace is too small */
            } else if (ws > 0) {
                mine = fdnn_aligned_alloc(ws);
                if (mine == NULL)
                    st = CUDNN_STATUS_ALLOC_FAILED;
                run.workspace = mine;
                run.workspace_bytes = ws;
            }
            if (st == CUDNN_STATUS_SUCCESS)
                st = time_algo(&run, algo, &ms);
            fdnn_aligned_free(mine);
        }
        fill_record(&all[algo], p, algo, st, st == CUDNN_STATUS_SUCCESS ? ms : -1.0f,
                    st == CUDNN_STATUS_SUCCESS ? ws : 0);
    }
    for (int i = 0; i < 3; i++)
        free(own[i]);
    fdnn_fail_clear();
    qsort(all, (size_t)count, sizeof(all[0]), cmp_perf);
    int n = requested < count ? requested : count;
    memcpy(perf, all, sizeof(all[0]) * (size_t)n);
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}
