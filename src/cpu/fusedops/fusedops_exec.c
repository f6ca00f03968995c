/* SPDX-License-Identifier: Apache-2.0
 * The seven fused-ops patterns as sequences of the passes of fusedops.c, the
 * convolution solvers (core/conv_solver.h) and the batch-norm backward
 * (cpu/batchnorm/bn.h).  The plan (made and validated by the API layer) says
 * which operands exist; absent pointers are NULL in the arguments.
 *
 * Where the scale/bias/ReLU of the input comes before a convolution (ops 0
 * and 1), the pass writes the transformed input once into the workspace
 * with x's strides and the convolution reads it from there: a separate pass
 * rather than a fused input packing (docs/fused-ops.md). */
#include <assert.h>
#include <stdint.h>

#include "core/conv_solver.h"
#include "core/fail.h"
#include "core/handle.h"
#include "cpu/batchnorm/bn.h"
#include "cpu/fusedops/fusedops.h"

static fdnn_fused_chan_t
chan(const fdnn_tensor_t *t, void *data)
{
    fdnn_fused_chan_t c = {data, t->dtype, t->ndim > 1 ? t->strides[1] : 0};
    return c;
}

/* The transformed input of ops 0 and 1: [scale], [bias], [ReLU] of x into
 * the workspace; x itself when the plan has none of them. */
static const void *
input_pass(fdnn_pool_t pool, const fdnn_fused_plan_t *pl, const fdnn_fused_args_t *a, char *ws)
{
    if (!pl->affine)
        return a->ptr[CUDNN_PTR_XDATA];
    fdnn_fused_affine_t f = {
        .x = &pl->x,
        .x_data = a->ptr[CUDNN_PTR_XDATA],
        .scale = chan(&pl->eq, a->ptr[CUDNN_PTR_BN_EQSCALE]),
        .bias = chan(&pl->eq, a->ptr[CUDNN_PTR_BN_EQBIAS]),
        .relu = pl->relu,
        .relu_nan = pl->relu_nan,
        .y = &pl->x,
        .y_data = ws + pl->ws_inter,
    };
    fdnn_fused_affine_act(pool, &f, ws + pl->ws_scratch);
    return ws + pl->ws_inter;
}

static cudnnStatus_t
run_conv(cudnnHandle_t handle, const fdnn_fused_plan_t *pl, const void *x, const void *w, const void *dy, void *out,
         char *ws)
{
    fdnn_conv_exec_t e = {
        .handle = handle,
        .p = &pl->conv,
        .x_in = x,
        .w_in = w,
        .y_in = dy,
        .out = out,
        .alpha = 1.0,
        .beta = 0.0,
        .workspace = ws + pl->ws_conv,
        .workspace_bytes = pl->ws_scratch - pl->ws_conv,
    };
    return fdnn_conv_run(&e, pl->algo);
}

static cudnnStatus_t
conv_bnstats(cudnnHandle_t handle, const fdnn_fused_plan_t *pl, const fdnn_fused_args_t *a, char *ws)
{
    fdnn_pool_t pool = fdnn_handle_pool(handle);
    const void *x = input_pass(pool, pl, a, ws);
    RETURN_IF_ERROR(run_conv(handle, pl, x, a->ptr[CUDNN_PTR_WDATA], NULL, a->ptr[CUDNN_PTR_YDATA], ws));
    if (a->ptr[CUDNN_PTR_YSUM] != NULL || a->ptr[CUDNN_PTR_YSQSUM] != NULL)
        fdnn_fused_channel_sums(pool, &pl->y, a->ptr[CUDNN_PTR_YDATA], chan(&pl->stats, a->ptr[CUDNN_PTR_YSUM]),
                                chan(&pl->stats, a->ptr[CUDNN_PTR_YSQSUM]), ws + pl->ws_scratch);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
wgrad(cudnnHandle_t handle, const fdnn_fused_plan_t *pl, const fdnn_fused_args_t *a, char *ws)
{
    fdnn_pool_t pool = fdnn_handle_pool(handle);
    const void *x = input_pass(pool, pl, a, ws);
    return run_conv(handle, pl, x, NULL, a->ptr[CUDNN_PTR_DYDATA], a->ptr[CUDNN_PTR_DWDATA], ws);
}

static fdnn_fused_finalize_t
finalize_args(const fdnn_fused_plan_t *pl, const fdnn_fused_args_t *a)
{
    const fdnn_tensor_t *pm = &pl->param;
    fdnn_fused_finalize_t f = {
        .channels = pm->dims[1],
        .sum = chan(&pl->stats, a->ptr[CUDNN_PTR_YSUM]),
        .sqsum = chan(&pl->stats, a->ptr[CUDNN_PTR_YSQSUM]),
        .scale = chan(pm, a->ptr[CUDNN_PTR_BN_SCALE]),
        .bias = chan(pm, a->ptr[CUDNN_PTR_BN_BIAS]),
        .run_mean = chan(pm, a->ptr[CUDNN_PTR_BN_RUNNING_MEAN]),
        .run_var = chan(pm, a->ptr[CUDNN_PTR_BN_RUNNING_VAR]),
        .saved_mean = chan(pm, a->ptr[CUDNN_PTR_BN_SAVED_MEAN]),
        .saved_invstd = chan(pm, a->ptr[CUDNN_PTR_BN_SAVED_INVSTD]),
        .eqscale = chan(&pl->eq, a->ptr[CUDNN_PTR_BN_EQSCALE]),
        .eqbias = chan(&pl->eq, a->ptr[CUDNN_PTR_BN_EQBIAS]),
        .count = a->bn_count,
        .epsilon = a->bn_epsilon,
        .factor = a->bn_factor,
    };
    return f;
}

/* y = act(eqscale * conv(x, w) + z_eqscale * z + z_eqbias), the pass in
 * place on y after the convolution. */
static cudnnStatus_t
conv_scale_bias_add_act(cudnnHandle_t handle, const fdnn_fused_plan_t *pl, const fdnn_fused_args_t *a, char *ws)
{
    fdnn_pool_t pool = fdnn_handle_pool(handle);
    void *y = a->ptr[CUDNN_PTR_YDATA];
    RETURN_IF_ERROR(run_conv(handle, pl, a->ptr[CUDNN_PTR_XDATA], a->ptr[CUDNN_PTR_WDATA], NULL, y, ws));
    fdnn_fused_affine_t f = {
        .x = &pl->y,
        .x_data = y,
        .scale = chan(&pl->eq, a->ptr[CUDNN_PTR_BN_EQSCALE]),
        .z = a->ptr[CUDNN_PTR_ZDATA] != NULL ? &pl->z : NULL,
        .z_data = a->ptr[CUDNN_PTR_ZDATA],
        .z_scale = chan(&pl->zeq, a->ptr[CUDNN_PTR_BN_Z_EQSCALE]),
        .z_bias = chan(&pl->zeq, a->ptr[CUDNN_PTR_BN_Z_EQBIAS]),
        .relu = pl->relu,
        .relu_nan = pl->relu_nan,
        .y = &pl->y,
        .y_data = y,
    };
    fdnn_fused_affine_act(pool, &f, ws + pl->ws_scratch);
    return CUDNN_STATUS_SUCCESS;
}

static void
scale_bias_add_act_mask(fdnn_pool_t pool, const fdnn_fused_plan_t *pl, const fdnn_fused_args_t *a, char *ws)
{
    fdnn_fused_affine_t f = {
        .x = &pl->x,
        .x_data = a->ptr[CUDNN_PTR_XDATA],
        .scale = chan(&pl->eq, a->ptr[CUDNN_PTR_BN_EQSCALE]),
        .bias = chan(&pl->eq, a->ptr[CUDNN_PTR_BN_EQBIAS]),
        .z = a->ptr[CUDNN_PTR_ZDATA] != NULL ? &pl->z : NULL,
        .z_data = a->ptr[CUDNN_PTR_ZDATA],
        .z_scale = chan(&pl->zeq, a->ptr[CUDNN_PTR_BN_Z_EQSCALE]),
        .z_bias = chan(&pl->zeq, a->ptr[CUDNN_PTR_BN_Z_EQBIAS]),
        .relu = pl->relu,
        .relu_nan = pl->relu_nan,
        .y = &pl->y,
        .y_data = a->ptr[CUDNN_PTR_YDATA],
        .mask = &pl->mask,
        .mask_data = a->ptr[CUDNN_PTR_ACTIVATION_BITMASK],
    };
    fdnn_fused_affine_act(pool, &f, ws + pl->ws_scratch);
}

/* dt = drelu(dy) from the bitmask (dy itself without activation); dz = dt;
 * then the batch-norm backward of dt. */
static cudnnStatus_t
dact_fork_dbn(cudnnHandle_t handle, const fdnn_fused_plan_t *pl, const fdnn_fused_args_t *a, char *ws)
{
    fdnn_pool_t pool = fdnn_handle_pool(handle);
    void *scratch = ws + pl->ws_scratch;
    const void *dt = a->ptr[CUDNN_PTR_DYDATA];
    if (pl->relu) {
        fdnn_fused_relu_grad(pool, &pl->dy, dt, &pl->mask, a->ptr[CUDNN_PTR_ACTIVATION_BITMASK], &pl->dy,
                             ws + pl->ws_inter, scratch);
        dt = ws + pl->ws_inter;
    }
    if (a->ptr[CUDNN_PTR_DZDATA] != NULL) {
        fdnn_fused_affine_t copy = {
            .x = &pl->dy, .x_data = dt, .y = &pl->dz, .y_data = a->ptr[CUDNN_PTR_DZDATA]};
        fdnn_fused_affine_act(pool, &copy, scratch);
    }
    /* dscale and dbias are written by the backward in any case: absent ones
     * go to the end of the scratch (two param-sized FLOAT vectors). */
    char *spare = (char *)scratch + ((fdnn_fused_scratch_bytes(&pl->x) + 63) & ~(size_t)63);
    size_t param_bytes = ((size_t)fdnn_tensor_span(&pl->param) * sizeof(float) + 63) & ~(size_t)63;
    void *dscale = a->ptr[CUDNN_PTR_BN_DSCALE] != NULL ? a->ptr[CUDNN_PTR_BN_DSCALE] : spare;
    void *dbias = a->ptr[CUDNN_PTR_BN_DBIAS] != NULL ? a->ptr[CUDNN_PTR_BN_DBIAS] : spare + param_bytes;
    fdnn_bn_problem_t bp = {
        .per_activation = false,
        .x = pl->x,
        .dy = pl->dy,
        .dx = pl->dx,
        .param = pl->param,
        .epsilon = a->bn_epsilon,
    };
    return fdnn_bn_backward(handle, &bp, 1.0, 0.0, 1.0, 0.0, a->ptr[CUDNN_PTR_XDATA], dt, NULL,
                            a->ptr[CUDNN_PTR_DXDATA], a->ptr[CUDNN_PTR_BN_SCALE], dscale, dbias,
                            a->ptr[CUDNN_PTR_BN_SAVED_MEAN], a->ptr[CUDNN_PTR_BN_SAVED_INVSTD], NULL);
}

cudnnStatus_t
fdnn_fused_execute(cudnnHandle_t handle, const fdnn_fused_plan_t *pl, const fdnn_fused_args_t *a)
{
    char *ws = a->workspace;
    assert(pl->ws_bytes == 0 || ws != NULL);
    switch (pl->ops) {
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS: return conv_bnstats(handle, pl, a, ws);
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: return wgrad(handle, pl, a, ws);
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING: {
        fdnn_fused_finalize_t f = finalize_args(pl, a);
        fdnn_fused_bn_finalize_training(&f);
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE: {
        fdnn_fused_finalize_t f = finalize_args(pl, a);
        fdnn_fused_bn_finalize_inference(&f);
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION: return conv_scale_bias_add_act(handle, pl, a, ws);
    case CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK:
        scale_bias_add_act_mask(fdnn_handle_pool(handle), pl, a, ws);
        return CUDNN_STATUS_SUCCESS;
    case CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM: return dact_fork_dbn(handle, pl, a, ws);
    }
    return CUDNN_STATUS_INTERNAL_ERROR;
}
