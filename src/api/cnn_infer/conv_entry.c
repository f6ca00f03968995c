/* SPDX-License-Identifier: Apache-2.0
 * The bodies of the convolution entry points of the three directions: the
 * argument checks, the problem, and the hand-over to the solvers.  See
 * fdnn_conv_call_t in conv_common.h. */
#include "api/cnn_infer/conv_common.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/scaling.h"

/* The cuDNN argument names of the roles, per direction, for the logged
 * reason of a NULL operand: inputs first, then the output. */
typedef struct role_names {
    const char *x, *w, *y, *out;
} role_names_t;

static const role_names_t ROLE_NAMES[] = {
    [FDNN_CONV_FWD] = {"x", "w", NULL, "y"},
    [FDNN_CONV_BWD_DATA] = {NULL, "w", "dy", "dx"},
    [FDNN_CONV_BWD_FILTER] = {"x", NULL, "dy", "dw"},
};

/* The direction's two inputs and its output are all non-NULL. */
static cudnnStatus_t
check_operands(const fdnn_conv_call_t *c)
{
    const role_names_t *n = &ROLE_NAMES[c->dir];
    if (n->x != NULL && c->x == NULL)
        return FDNN_BAD_PARAM("%s is NULL", n->x);
    if (n->w != NULL && c->w == NULL)
        return FDNN_BAD_PARAM("%s is NULL", n->w);
    if (n->y != NULL && c->y == NULL)
        return FDNN_BAD_PARAM("%s is NULL", n->y);
    if (c->out == NULL)
        return FDNN_BAD_PARAM("%s is NULL", n->out);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
problem_of(const fdnn_conv_call_t *c, fdnn_conv_problem_t *p)
{
    return fdnn_conv_problem_from_desc(c->dir, c->x_desc, c->w_desc, c->conv_desc, c->y_desc, p);
}

/* The operands as the solvers take them: the direction's inputs, out. */
static fdnn_conv_exec_t
operands_of(const fdnn_conv_call_t *c, void *workspace, size_t workspace_bytes)
{
    const role_names_t *n = &ROLE_NAMES[c->dir];
    fdnn_conv_exec_t e = {
        .x_in = n->x != NULL ? c->x : NULL,
        .w_in = n->w != NULL ? c->w : NULL,
        .y_in = n->y != NULL ? c->y : NULL,
        .out = c->out,
        .workspace = workspace,
        .workspace_bytes = workspace_bytes,
    };
    return e;
}

cudnnStatus_t
fdnn_conv_entry_execute(const fdnn_conv_call_t *c, const void *alpha, const void *beta, int algo, void *workspace,
                        size_t workspace_bytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(c->handle));
    RETURN_IF_NULL(alpha);
    RETURN_IF_NULL(beta);
    RETURN_IF_ERROR(check_operands(c));
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(problem_of(c, &p));
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workspace, workspace_bytes));
    fdnn_conv_log(&p, algo);
    fdnn_conv_exec_t e = operands_of(c, workspace, workspace_bytes);
    e.handle = c->handle;
    e.p = &p;
    e.alpha = fdnn_scaling_value(alpha, p.dtype);
    e.beta = fdnn_scaling_value(beta, p.dtype);
    return fdnn_conv_run(&e, algo);
}

cudnnStatus_t
fdnn_conv_entry_workspace(const fdnn_conv_call_t *c, int algo, size_t *bytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(c->handle));
    RETURN_IF_NULL(bytes);
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(problem_of(c, &p));
    size_t need = 0;
    RETURN_IF_ERROR(fdnn_conv_algo_check(&p, algo, &need));
    *bytes = need;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_entry_get_v7(const fdnn_conv_call_t *c, int requested, int *returned, fdnn_conv_perf_t *perf)
{
    RETURN_IF_ERROR(fdnn_handle_check(c->handle));
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(problem_of(c, &p));
    return fdnn_conv_get_v7(c->handle, &p, requested, returned, perf);
}

cudnnStatus_t
fdnn_conv_entry_find(const fdnn_conv_call_t *c, bool with_operands, void *workspace, size_t workspace_bytes,
                     int requested, int *returned, fdnn_conv_perf_t *perf)
{
    RETURN_IF_ERROR(fdnn_handle_check(c->handle));
    if (with_operands)
        RETURN_IF_ERROR(check_operands(c));
    fdnn_conv_problem_t p;
    RETURN_IF_ERROR(problem_of(c, &p));
    if (!with_operands)
        return fdnn_conv_find(c->handle, &p, NULL, requested, returned, perf);
    RETURN_IF_ERROR(fdnn_conv_check_workspace(workspace, workspace_bytes));
    fdnn_conv_exec_t io = operands_of(c, workspace, workspace_bytes);
    return fdnn_conv_find(c->handle, &p, &io, requested, returned, perf);
}
