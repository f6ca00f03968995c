/* SPDX-License-Identifier: Apache-2.0
 * Convolution solvers and their registry.
 *
 * Every convolution algorithm is a solver: a stable id (its global index,
 * never reused), a name, the direction and cuDNN algo enumerator it
 * implements, an applicability check that says why it declines, an exact
 * workspace size and an execute function.  The ordered list of them is
 * src/cpu/conv/conv_list.c, with the heuristic order; the legacy API answers
 * cudnnGet*Algorithm_v7 from that order and cudnnFind*Algorithm* by timing
 * every applicable solver, and the graph API's convolution nodes and the
 * fused ops take the first applicable solver of the same order. */
#ifndef FDNN_CORE_CONV_SOLVER_H
#define FDNN_CORE_CONV_SOLVER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/pool.h"

#include "core/conv.h"
#include "cudnn.h"

/* One call.  Operands by their role in the problem (see conv.h):
 *   forward:         reads x, w;  writes y = alpha*conv(x, w) + beta*y
 *   backward data:   reads y (dy), w;  writes x (dx) = alpha*dconv + beta*dx
 *   backward filter: reads x, y (dy);  writes w (dw) = alpha*dconv + beta*dw
 * beta == 0 means the output is never read.  The forward epilogue (used by
 * cudnnConvolutionBiasActivationForward) adds bias[k] (K packed elements of
 * the data type, or NULL) after the blend and then applies ReLU when `relu`.
 * workspace holds at least the solver's workspace size (its contents on
 * entry do not matter). */
typedef struct fdnn_conv_exec {
    cudnnHandle_t handle;
    fdnn_pool_t pool; /* set by fdnn_conv_run: the handle's, or NULL for small problems */
    const fdnn_conv_problem_t *p;
    const void *x_in, *w_in, *y_in; /* the operands read */
    void *out;                       /* the operand written (y, dx or dw) */
    double alpha, beta;
    const void *bias;
    bool relu;
    void *workspace;
    size_t workspace_bytes;
} fdnn_conv_exec_t;

/* The epilogue above for one FP32 value s (the raw sum at *dst): alpha*s,
 * + beta * *dst (not read when beta is 0), + *bias (NULL: none), then ReLU,
 * which keeps NaN. */
static inline float
fdnn_conv_epilogue_f32(float s, float alpha, float beta, const float *dst, const float *bias, bool relu)
{
    float v = alpha * s;
    if (beta != 0)
        v += beta * *dst;
    if (bias != NULL)
        v += *bias;
    if (relu && !(v > 0))
        v = v != v ? v : 0;
    return v;
}

typedef struct fdnn_conv_solver {
    int id;           /* stable; never reused for another solver */
    const char *name; /* e.g. "fwd_implicit_gemm" */
    fdnn_conv_dir_t dir;
    int algo; /* cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t value */
    /* SUCCESS, or NOT_SUPPORTED with a reason (fdnn_fail). */
    cudnnStatus_t (*applicable)(const fdnn_conv_problem_t *p);
    /* Exact workspace bytes; NOT_SUPPORTED on size overflow. */
    cudnnStatus_t (*workspace)(const fdnn_conv_problem_t *p, size_t *bytes);
    cudnnStatus_t (*execute)(const fdnn_conv_exec_t *e);
} fdnn_conv_solver_t;

/* The solver implementing `algo` of `dir`, or NULL when that algorithm is not
 * implemented (*reason then says why). */
const fdnn_conv_solver_t *fdnn_conv_solver_for(fdnn_conv_dir_t dir, int algo, const char **reason);

/* The solver whose stable id (global index) is `id`, or NULL. */
const fdnn_conv_solver_t *fdnn_conv_solver_by_id(int id);

/* The heuristic order for p (fdnn_conv_algo_count(p->dir) algorithms, best
 * first): the list's order with the direct solver moved first where it wins
 * (fdnn_conv_prefers_direct, depthwise-like problems).  Every reader of the
 * list (_v7, Find, graph engines, fused ops) uses this order. */
void fdnn_conv_heuristic_order(const fdnn_conv_problem_t *p, int *order);

/* Number of cuDNN algorithms of a direction (8, 6, 7) and the preference
 * order of the heuristic (every algorithm of the direction, best first). */
int fdnn_conv_algo_count(fdnn_conv_dir_t dir);
const int *fdnn_conv_algo_order(fdnn_conv_dir_t dir);

/* Whether the heuristic puts the direct solver first for p (FP32 forward
 * and backward-data problems where its blocked kernels beat the GEMM
 * solvers). */
bool fdnn_conv_prefers_direct(const fdnn_conv_problem_t *p);

/* Whether `algo` is one of the algorithms cuDNN programs fall back to when
 * they cannot give a workspace (forward IMPLICIT_GEMM, backward data and
 * backward filter ALGO_0 and ALGO_1; NVIDIA's DIRECT is never implemented).
 * They need none here either (IMPLICIT_GEMM and the ALGO_1s keep their
 * buffers in the handle's scratch), and the _v7 lists put them first under
 * a workspace cap of 0 (CUDNN_CONV_WSCAP_DBG=0). */
bool fdnn_conv_is_zero_workspace_fallback(fdnn_conv_dir_t dir, int algo);

/* Applicability and workspace of `algo` for p, with the reason of a
 * NOT_SUPPORTED. */
cudnnStatus_t fdnn_conv_algo_check(const fdnn_conv_problem_t *p, int algo, size_t *workspace_bytes);

/* Runs algo after fdnn_conv_algo_check and the workspace checks. */
cudnnStatus_t fdnn_conv_run(const fdnn_conv_exec_t *e, int algo);

#endif /* FDNN_CORE_CONV_SOLVER_H */
