/* SPDX-License-Identifier: Apache-2.0
 * cudnnMakeFusedOpsPlan and cudnnFusedOpsExecute for the seven patterns of
 * cudnnFusedOps_t (docs/fused-ops.md has the table of what each one reads,
 * writes and requires).
 *
 * Make validates the constant pack for the plan's op: every descriptor the
 * op needs is set, shapes agree, data types are FLOAT or HALF, the
 * placeholders of required operands are not CUDNN_PTR_NULL; it picks the
 * convolution algorithm (the _v7 heuristic's first applicable one) and lays
 * out the workspace, whose size it returns.  Execute checks the variant pack
 * against the plan: a pointer for every operand whose placeholder is not
 * CUDNN_PTR_NULL, aligned as promised (ELEM_ALIGNED: to the element size;
 * 16B_ALIGNED: to 16 bytes), the workspace and the scalars; pointers whose
 * placeholder is CUDNN_PTR_NULL are ignored.  The work itself is in
 * src/cpu/fusedops/. */
#include <stdint.h>
#include <string.h>

#include "api/cnn_infer/conv_common.h"
#include "api/ops_infer/batchnorm_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/fusedops_desc.h"
#include "core/handle.h"
#include "cpu/fusedops/fusedops.h"
#include "enum_names.h"

typedef const struct cudnnFusedOpsConstParamStruct cpack_t;

/* The placeholder label of each pointer label (-1: the workspace, which the
 * plan's size decides). */
static const int PH_OF_PTR[FDNN_FUSED_PTR_LABELS] = {
    [CUDNN_PTR_XDATA] = CUDNN_PARAM_XDATA_PLACEHOLDER,
    [CUDNN_PTR_BN_EQSCALE] = CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,
    [CUDNN_PTR_BN_EQBIAS] = CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER,
    [CUDNN_PTR_WDATA] = CUDNN_PARAM_WDATA_PLACEHOLDER,
    [CUDNN_PTR_DWDATA] = CUDNN_PARAM_DWDATA_PLACEHOLDER,
    [CUDNN_PTR_YDATA] = CUDNN_PARAM_YDATA_PLACEHOLDER,
    [CUDNN_PTR_DYDATA] = CUDNN_PARAM_DYDATA_PLACEHOLDER,
    [CUDNN_PTR_YSUM] = CUDNN_PARAM_YSUM_PLACEHOLDER,
    [CUDNN_PTR_YSQSUM] = CUDNN_PARAM_YSQSUM_PLACEHOLDER,
    [CUDNN_PTR_WORKSPACE] = -1,
    [CUDNN_PTR_BN_SCALE] = CUDNN_PARAM_BN_SCALE_PLACEHOLDER,
    [CUDNN_PTR_BN_BIAS] = CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
    [CUDNN_PTR_BN_SAVED_MEAN] = CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER,
    [CUDNN_PTR_BN_SAVED_INVSTD] = CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER,
    [CUDNN_PTR_BN_RUNNING_MEAN] = CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER,
    [CUDNN_PTR_BN_RUNNING_VAR] = CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER,
    [CUDNN_PTR_ZDATA] = CUDNN_PARAM_ZDATA_PLACEHOLDER,
    [CUDNN_PTR_BN_Z_EQSCALE] = CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER,
    [CUDNN_PTR_BN_Z_EQBIAS] = CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER,
    [CUDNN_PTR_ACTIVATION_BITMASK] = CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER,
    [CUDNN_PTR_DXDATA] = CUDNN_PARAM_DXDATA_PLACEHOLDER,
    [CUDNN_PTR_DZDATA] = CUDNN_PARAM_DZDATA_PLACEHOLDER,
    [CUDNN_PTR_BN_DSCALE] = CUDNN_PARAM_BN_DSCALE_PLACEHOLDER,
    [CUDNN_PTR_BN_DBIAS] = CUDNN_PARAM_BN_DBIAS_PLACEHOLDER,
};

static const char *
cname(int label)
{
    const char *s = fdnn_enum_name_cudnnFusedOpsConstParamLabel_t(label);
    return s != NULL ? s : "?";
}

static const char *
vname(int label)
{
    const char *s = fdnn_enum_name_cudnnFusedOpsVariantParamLabel_t(label);
    return s != NULL ? s : "?";
}

static size_t
align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

/* Whether the op's placeholder for pointer label `ptr` promises a pointer. */
static bool
given(cpack_t *cp, int ptr)
{
    return cp->value[PH_OF_PTR[ptr]] != CUDNN_PTR_NULL;
}

/* Records that the plan uses pointer label `ptr` with elements of `t`. */
static void
use(fdnn_fused_plan_t *pl, cpack_t *cp, int ptr, const fdnn_tensor_t *t)
{
    pl->ph[ptr] = cp->value[PH_OF_PTR[ptr]];
    pl->elem[ptr] = fdnn_dtype_size(t->dtype);
}

static cudnnStatus_t
need(cpack_t *cp, int ptr, const char *what)
{
    if (!given(cp, ptr))
        return FDNN_BAD_PARAM("%s is CUDNN_PTR_NULL, but %s needs %s", cname(PH_OF_PTR[ptr]),
                              fdnn_enum_name_cudnnFusedOps_t(cp->ops), what);
    return CUDNN_STATUS_SUCCESS;
}

/* The tensor of descriptor label `label`, which must be set. */
static cudnnStatus_t
tensor_of(cpack_t *cp, int label, fdnn_tensor_t *out)
{
    if (!cp->has_desc[label])
        return FDNN_BAD_PARAM("%s is not set, but %s needs it", cname(label), fdnn_enum_name_cudnnFusedOps_t(cp->ops));
    return fdnn_tensor_from_desc((cudnnTensorDescriptor_t)&cp->desc[label].tensor, cname(label), out);
}

static bool
float_or_half(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_HALF;
}

/* A data tensor: 4-D or 5-D, FLOAT or HALF. */
static cudnnStatus_t
data_tensor(cpack_t *cp, int label, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(tensor_of(cp, label, out));
    if (out->ndim != 4 && out->ndim != 5)
        return FDNN_BAD_PARAM("%s has %d dimensions, expected 4 or 5", cname(label), out->ndim);
    if (!float_or_half(out->dtype))
        return FDNN_NOT_SUPPORTED("%s is %s; the fused ops take FLOAT and HALF data", cname(label),
                                  fdnn_dtype_name(out->dtype));
    return CUDNN_STATUS_SUCCESS;
}

/* A data tensor with the dims of `like` (an output: its elements must not
 * alias). */
static cudnnStatus_t
data_like(cpack_t *cp, int label, const fdnn_tensor_t *like, bool output, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(data_tensor(cp, label, out));
    if (!fdnn_tensor_same_dims(out, like))
        return FDNN_BAD_PARAM("%s does not have the dims of %s", cname(label), cname(CUDNN_PARAM_XDESC));
    if (output)
        RETURN_IF_ERROR(fdnn_tensor_check_output(out, cname(label)));
    return CUDNN_STATUS_SUCCESS;
}

/* A per-channel tensor: 1 x C x 1 x 1 (x 1), the rank of the data; FLOAT, or
 * HALF where half_ok. */
static cudnnStatus_t
chan_tensor(cpack_t *cp, int label, int ndim, int64_t C, bool half_ok, fdnn_tensor_t *out)
{
    RETURN_IF_ERROR(tensor_of(cp, label, out));
    bool ok = out->ndim == ndim && out->dims[1] == C;
    for (int i = 0; i < out->ndim; i++)
        ok = ok && (i == 1 || out->dims[i] == 1);
    if (!ok)
        return FDNN_BAD_PARAM("%s must be 1x%lldx1x1%s (one value per channel)", cname(label), (long long)C,
                              ndim == 5 ? "x1" : "");
    if (!(out->dtype == CUDNN_DATA_FLOAT || (half_ok && out->dtype == CUDNN_DATA_HALF)))
        return FDNN_NOT_SUPPORTED("%s is %s; expected FLOAT%s", cname(label), fdnn_dtype_name(out->dtype),
                                  half_ok ? " or HALF" : "");
    return CUDNN_STATUS_SUCCESS;
}

/* CUDNN_PARAM_BN_MODE: per channel only. */
static cudnnStatus_t
check_mode(cpack_t *cp)
{
    int m = cp->value[CUDNN_PARAM_BN_MODE];
    if (m != CUDNN_BATCHNORM_SPATIAL && m != CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
        return FDNN_NOT_SUPPORTED("CUDNN_PARAM_BN_MODE is %s; the fused ops are per channel (SPATIAL or "
                                  "SPATIAL_PERSISTENT)",
                                  fdnn_enum_name_cudnnBatchNormMode_t(m));
    return CUDNN_STATUS_SUCCESS;
}

/* CUDNN_PARAM_ACTIVATION_DESC: RELU or IDENTITY; unset means identity
 * unless `required`. */
static cudnnStatus_t
activation(cpack_t *cp, bool required, fdnn_fused_plan_t *pl)
{
    pl->relu = false;
    if (!cp->has_desc[CUDNN_PARAM_ACTIVATION_DESC]) {
        if (required)
            return FDNN_BAD_PARAM("CUDNN_PARAM_ACTIVATION_DESC is not set, but %s needs a RELU activation",
                                  fdnn_enum_name_cudnnFusedOps_t(cp->ops));
        return CUDNN_STATUS_SUCCESS;
    }
    fdnn_activation_t act;
    cudnnActivationDescriptor_t desc = (cudnnActivationDescriptor_t)&cp->desc[CUDNN_PARAM_ACTIVATION_DESC].activation;
    RETURN_IF_ERROR(fdnn_activation_from_desc(desc, "CUDNN_PARAM_ACTIVATION_DESC", &act));
    if (act.mode == CUDNN_ACTIVATION_RELU) {
        pl->relu = true;
        pl->relu_nan = act.propagate_nan;
        return CUDNN_STATUS_SUCCESS;
    }
    if (act.mode == CUDNN_ACTIVATION_IDENTITY && !required)
        return CUDNN_STATUS_SUCCESS;
    return FDNN_NOT_SUPPORTED("the activation is %s; %s takes %s", fdnn_enum_name_cudnnActivationMode_t(act.mode),
                              fdnn_enum_name_cudnnFusedOps_t(cp->ops), required ? "RELU" : "RELU or IDENTITY");
}

/* The equivalent scale and bias of x (labels 3..5) for ops 0, 1, 5. */
static cudnnStatus_t
eq_scale_bias(cpack_t *cp, fdnn_fused_plan_t *pl, bool bias_label)
{
    bool s = given(cp, CUDNN_PTR_BN_EQSCALE), b = bias_label && given(cp, CUDNN_PTR_BN_EQBIAS);
    if (!s && !b)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(chan_tensor(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, pl->x.ndim, pl->x.dims[1], true, &pl->eq));
    if (s)
        use(pl, cp, CUDNN_PTR_BN_EQSCALE, &pl->eq);
    if (b)
        use(pl, cp, CUDNN_PTR_BN_EQBIAS, &pl->eq);
    return CUDNN_STATUS_SUCCESS;
}

/* The residual z and its equivalent scale and bias (ops 4, 5): z has the
 * dims of `like`; z's scale needs z; its bias may come alone. */
static cudnnStatus_t
residual(cpack_t *cp, fdnn_fused_plan_t *pl, const fdnn_tensor_t *like)
{
    if (given(cp, CUDNN_PTR_ZDATA)) {
        RETURN_IF_ERROR(data_like(cp, CUDNN_PARAM_ZDESC, like, false, &pl->z));
        use(pl, cp, CUDNN_PTR_ZDATA, &pl->z);
    } else if (given(cp, CUDNN_PTR_BN_Z_EQSCALE)) {
        return FDNN_BAD_PARAM("CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER is set but CUDNN_PARAM_ZDATA_PLACEHOLDER is "
                              "CUDNN_PTR_NULL: there is no z to scale");
    }
    bool s = given(cp, CUDNN_PTR_BN_Z_EQSCALE), b = given(cp, CUDNN_PTR_BN_Z_EQBIAS);
    if (!s && !b)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(chan_tensor(cp, CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, like->ndim, like->dims[1], true, &pl->zeq));
    if (s)
        use(pl, cp, CUDNN_PTR_BN_Z_EQSCALE, &pl->zeq);
    if (b)
        use(pl, cp, CUDNN_PTR_BN_Z_EQBIAS, &pl->zeq);
    return CUDNN_STATUS_SUCCESS;
}

/* The bitmask of ops 5 and 6: INT32, N x ceil(C/32) x spatial of x. */
static cudnnStatus_t
bitmask(cpack_t *cp, fdnn_fused_plan_t *pl, bool output)
{
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_ACTIVATION_BITMASK, "the activation bitmask"));
    RETURN_IF_ERROR(tensor_of(cp, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, &pl->mask));
    const fdnn_tensor_t *x = &pl->x;
    bool ok = pl->mask.ndim == x->ndim && pl->mask.dims[0] == x->dims[0] && pl->mask.dims[1] == (x->dims[1] + 31) / 32;
    for (int i = 2; i < x->ndim; i++)
        ok = ok && pl->mask.dims[i] == x->dims[i];
    if (!ok)
        return FDNN_BAD_PARAM("CUDNN_PARAM_ACTIVATION_BITMASK_DESC must have x's dims with C replaced by "
                              "ceil(C/32) = %lld (one bit per element in 32-bit words)",
                              (long long)((x->dims[1] + 31) / 32));
    if (pl->mask.dtype != CUDNN_DATA_INT32)
        return FDNN_BAD_PARAM("CUDNN_PARAM_ACTIVATION_BITMASK_DESC is %s, expected INT32",
                              fdnn_dtype_name(pl->mask.dtype));
    if (output)
        RETURN_IF_ERROR(fdnn_tensor_check_output(&pl->mask, "CUDNN_PARAM_ACTIVATION_BITMASK_DESC"));
    use(pl, cp, CUDNN_PTR_ACTIVATION_BITMASK, &pl->mask);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnConvolutionDescriptor_t
conv_desc(cpack_t *cp)
{
    return cp->has_desc[CUDNN_PARAM_CONV_DESC] ? (cudnnConvolutionDescriptor_t)&cp->desc[CUDNN_PARAM_CONV_DESC].conv
                                                : NULL;
}

/* The convolution's algorithm: the first applicable one of the _v7 order. */
static cudnnStatus_t
choose_algo(cudnnHandle_t handle, fdnn_fused_plan_t *pl, size_t *ws)
{
    fdnn_conv_perf_t perf[16];
    int n = 0;
    RETURN_IF_ERROR(fdnn_conv_get_v7(handle, &pl->conv, 16, &n, perf));
    for (int i = 0; i < n; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS) {
            pl->algo = (int)perf[i].algo;
            return fdnn_conv_algo_check(&pl->conv, pl->algo, ws);
        }
    return FDNN_NOT_SUPPORTED("no convolution algorithm applies to this problem");
}

/* Ops 0 and 1: [scale], [bias], [ReLU] of x, then a convolution. */
static cudnnStatus_t
make_affine_conv(cudnnHandle_t handle, cpack_t *cp, fdnn_fused_plan_t *pl, size_t *conv_ws)
{
    bool fwd = cp->ops == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_XDATA, "x"));
    RETURN_IF_ERROR(data_tensor(cp, CUDNN_PARAM_XDESC, &pl->x));
    use(pl, cp, CUDNN_PTR_XDATA, &pl->x);
    RETURN_IF_ERROR(eq_scale_bias(cp, pl, true));
    RETURN_IF_ERROR(activation(cp, false, pl));
    bool stats = fwd && (given(cp, CUDNN_PTR_YSUM) || given(cp, CUDNN_PTR_YSQSUM));
    if (pl->eq.ndim != 0 || stats)
        RETURN_IF_ERROR(check_mode(cp));
    pl->affine = pl->eq.ndim != 0 || pl->relu;
    if (!cp->has_desc[CUDNN_PARAM_CONV_DESC])
        return FDNN_BAD_PARAM("CUDNN_PARAM_CONV_DESC is not set, but %s needs it",
                              fdnn_enum_name_cudnnFusedOps_t(cp->ops));
    int wl = fwd ? CUDNN_PARAM_WDESC : CUDNN_PARAM_DWDESC;
    if (!cp->has_desc[wl])
        return FDNN_BAD_PARAM("%s is not set, but %s needs it", cname(wl), fdnn_enum_name_cudnnFusedOps_t(cp->ops));
    int yl = fwd ? CUDNN_PARAM_YDESC : CUDNN_PARAM_DYDESC;
    fdnn_tensor_t *y = fwd ? &pl->y : &pl->dy;
    RETURN_IF_ERROR(data_tensor(cp, yl, y));
    cudnnFilterDescriptor_t w = (cudnnFilterDescriptor_t)&cp->desc[wl].filter;
    cudnnTensorDescriptor_t xd = (cudnnTensorDescriptor_t)&cp->desc[CUDNN_PARAM_XDESC].tensor;
    cudnnTensorDescriptor_t yd = (cudnnTensorDescriptor_t)&cp->desc[yl].tensor;
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(fwd ? FDNN_CONV_FWD : FDNN_CONV_BWD_FILTER, xd, w, conv_desc(cp), yd,
                                                &pl->conv));
    pl->has_conv = true;
    RETURN_IF_ERROR(need(cp, fwd ? CUDNN_PTR_WDATA : CUDNN_PTR_DWDATA, fwd ? "w" : "dw"));
    RETURN_IF_ERROR(need(cp, fwd ? CUDNN_PTR_YDATA : CUDNN_PTR_DYDATA, fwd ? "y" : "dy"));
    use(pl, cp, fwd ? CUDNN_PTR_WDATA : CUDNN_PTR_DWDATA, &pl->conv.w);
    use(pl, cp, fwd ? CUDNN_PTR_YDATA : CUDNN_PTR_DYDATA, y);
    if (stats) {
        RETURN_IF_ERROR(chan_tensor(cp, CUDNN_PARAM_YSTATS_DESC, y->ndim, y->dims[1], false, &pl->stats));
        if (given(cp, CUDNN_PTR_YSUM))
            use(pl, cp, CUDNN_PTR_YSUM, &pl->stats);
        if (given(cp, CUDNN_PTR_YSQSUM))
            use(pl, cp, CUDNN_PTR_YSQSUM, &pl->stats);
    }
    return choose_algo(handle, pl, conv_ws);
}

/* Ops 2 and 3: the per-channel BN finalize. */
static cudnnStatus_t
make_finalize(cpack_t *cp, fdnn_fused_plan_t *pl)
{
    bool train = cp->ops == CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING;
    RETURN_IF_ERROR(check_mode(cp));
    /* The channel count comes from the parameter descriptor. */
    RETURN_IF_ERROR(tensor_of(cp, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, &pl->param));
    if (pl->param.ndim != 4 && pl->param.ndim != 5)
        return FDNN_BAD_PARAM("CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC has %d dimensions, expected 4 or 5",
                              pl->param.ndim);
    const int nd = pl->param.ndim;
    const int64_t C = pl->param.dims[1];
    RETURN_IF_ERROR(chan_tensor(cp, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, nd, C, false, &pl->param));
    bool eqs = given(cp, CUDNN_PTR_BN_EQSCALE), eqb = given(cp, CUDNN_PTR_BN_EQBIAS);
    if (eqs || eqb) {
        RETURN_IF_ERROR(chan_tensor(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, nd, C, true, &pl->eq));
        RETURN_IF_ERROR(need(cp, CUDNN_PTR_BN_SCALE, "the BN scale for the equivalent scale and bias"));
        if (eqs)
            use(pl, cp, CUDNN_PTR_BN_EQSCALE, &pl->eq);
        if (eqb) {
            RETURN_IF_ERROR(need(cp, CUDNN_PTR_BN_BIAS, "the BN bias for the equivalent bias"));
            use(pl, cp, CUDNN_PTR_BN_EQBIAS, &pl->eq);
        }
    }
    static const int train_params[] = {CUDNN_PTR_BN_SCALE, CUDNN_PTR_BN_BIAS, CUDNN_PTR_BN_SAVED_MEAN,
                                       CUDNN_PTR_BN_SAVED_INVSTD, CUDNN_PTR_BN_RUNNING_MEAN,
                                       CUDNN_PTR_BN_RUNNING_VAR};
    static const int infer_params[] = {CUDNN_PTR_BN_SCALE, CUDNN_PTR_BN_BIAS, CUDNN_PTR_BN_RUNNING_MEAN,
                                       CUDNN_PTR_BN_RUNNING_VAR};
    const int *params = train ? train_params : infer_params;
    int n = train ? 6 : 4;
    for (int i = 0; i < n; i++)
        if (given(cp, params[i]))
            use(pl, cp, params[i], &pl->param);
    if (train) {
        RETURN_IF_ERROR(need(cp, CUDNN_PTR_YSUM, "ySum"));
        RETURN_IF_ERROR(need(cp, CUDNN_PTR_YSQSUM, "ySqSum"));
        RETURN_IF_ERROR(chan_tensor(cp, CUDNN_PARAM_YSTATS_DESC, nd, C, false, &pl->stats));
        use(pl, cp, CUDNN_PTR_YSUM, &pl->stats);
        use(pl, cp, CUDNN_PTR_YSQSUM, &pl->stats);
    } else if (eqs || eqb) {
        RETURN_IF_ERROR(need(cp, CUDNN_PTR_BN_RUNNING_VAR, "the running variance"));
        if (eqb)
            RETURN_IF_ERROR(need(cp, CUDNN_PTR_BN_RUNNING_MEAN, "the running mean for the equivalent bias"));
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Op 4: y = act(eqscale * conv(x, w) + z_eqscale * z + z_eqbias). */
static cudnnStatus_t
make_conv_scale_bias_add_act(cudnnHandle_t handle, cpack_t *cp, fdnn_fused_plan_t *pl, size_t *conv_ws)
{
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_XDATA, "x"));
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_WDATA, "w"));
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_YDATA, "y"));
    RETURN_IF_ERROR(data_tensor(cp, CUDNN_PARAM_XDESC, &pl->x));
    RETURN_IF_ERROR(data_tensor(cp, CUDNN_PARAM_YDESC, &pl->y));
    if (!cp->has_desc[CUDNN_PARAM_CONV_DESC] || !cp->has_desc[CUDNN_PARAM_WDESC])
        return FDNN_BAD_PARAM("%s is not set, but %s needs it",
                              cname(cp->has_desc[CUDNN_PARAM_CONV_DESC] ? CUDNN_PARAM_WDESC : CUDNN_PARAM_CONV_DESC),
                              fdnn_enum_name_cudnnFusedOps_t(cp->ops));
    RETURN_IF_ERROR(fdnn_conv_problem_from_desc(
        FDNN_CONV_FWD, (cudnnTensorDescriptor_t)&cp->desc[CUDNN_PARAM_XDESC].tensor,
        (cudnnFilterDescriptor_t)&cp->desc[CUDNN_PARAM_WDESC].filter, conv_desc(cp),
        (cudnnTensorDescriptor_t)&cp->desc[CUDNN_PARAM_YDESC].tensor, &pl->conv));
    pl->has_conv = true;
    use(pl, cp, CUDNN_PTR_XDATA, &pl->x);
    use(pl, cp, CUDNN_PTR_WDATA, &pl->conv.w);
    use(pl, cp, CUDNN_PTR_YDATA, &pl->y);
    if (given(cp, CUDNN_PTR_BN_EQSCALE)) {
        RETURN_IF_ERROR(chan_tensor(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, pl->y.ndim, pl->y.dims[1], true, &pl->eq));
        use(pl, cp, CUDNN_PTR_BN_EQSCALE, &pl->eq);
    }
    RETURN_IF_ERROR(residual(cp, pl, &pl->y));
    RETURN_IF_ERROR(activation(cp, false, pl));
    return choose_algo(handle, pl, conv_ws);
}

/* Op 5: y = relu(eqscale * x + eqbias + z_eqscale * z + z_eqbias), bitmask. */
static cudnnStatus_t
make_gen_bitmask(cpack_t *cp, fdnn_fused_plan_t *pl)
{
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_XDATA, "x"));
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_YDATA, "y"));
    RETURN_IF_ERROR(data_tensor(cp, CUDNN_PARAM_XDESC, &pl->x));
    RETURN_IF_ERROR(data_like(cp, CUDNN_PARAM_YDESC, &pl->x, true, &pl->y));
    use(pl, cp, CUDNN_PTR_XDATA, &pl->x);
    use(pl, cp, CUDNN_PTR_YDATA, &pl->y);
    RETURN_IF_ERROR(eq_scale_bias(cp, pl, true));
    if (pl->eq.ndim != 0)
        RETURN_IF_ERROR(check_mode(cp));
    RETURN_IF_ERROR(residual(cp, pl, &pl->x));
    RETURN_IF_ERROR(activation(cp, true, pl));
    return bitmask(cp, pl, true);
}

/* Op 6: dt = drelu(dy) by the bitmask, dz = dt, then dBN of dt. */
static cudnnStatus_t
make_dact_fork_dbn(cpack_t *cp, fdnn_fused_plan_t *pl)
{
    RETURN_IF_ERROR(check_mode(cp));
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_XDATA, "x"));
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_DYDATA, "dy"));
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_DXDATA, "dx"));
    RETURN_IF_ERROR(need(cp, CUDNN_PTR_BN_SCALE, "the BN scale"));
    RETURN_IF_ERROR(data_tensor(cp, CUDNN_PARAM_XDESC, &pl->x));
    RETURN_IF_ERROR(data_like(cp, CUDNN_PARAM_DYDESC, &pl->x, false, &pl->dy));
    RETURN_IF_ERROR(data_like(cp, CUDNN_PARAM_DXDESC, &pl->x, true, &pl->dx));
    use(pl, cp, CUDNN_PTR_XDATA, &pl->x);
    use(pl, cp, CUDNN_PTR_DYDATA, &pl->dy);
    use(pl, cp, CUDNN_PTR_DXDATA, &pl->dx);
    if (given(cp, CUDNN_PTR_DZDATA)) {
        RETURN_IF_ERROR(data_like(cp, CUDNN_PARAM_DZDESC, &pl->x, true, &pl->dz));
        use(pl, cp, CUDNN_PTR_DZDATA, &pl->dz);
    }
    RETURN_IF_ERROR(chan_tensor(cp, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, pl->x.ndim, pl->x.dims[1], false,
                                &pl->param));
    static const int params[] = {CUDNN_PTR_BN_SCALE, CUDNN_PTR_BN_BIAS, CUDNN_PTR_BN_SAVED_MEAN,
                                 CUDNN_PTR_BN_SAVED_INVSTD, CUDNN_PTR_BN_DSCALE, CUDNN_PTR_BN_DBIAS};
    for (int i = 0; i < 6; i++)
        if (given(cp, params[i]))
            use(pl, cp, params[i], &pl->param);
    if (given(cp, CUDNN_PTR_BN_SAVED_MEAN) != given(cp, CUDNN_PTR_BN_SAVED_INVSTD))
        return FDNN_BAD_PARAM("the saved mean and inverse deviation placeholders must both be set or both "
                              "CUDNN_PTR_NULL");
    RETURN_IF_ERROR(activation(cp, false, pl));
    if (pl->relu)
        RETURN_IF_ERROR(bitmask(cp, pl, false));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnMakeFusedOpsPlan(cudnnHandle_t handle, cudnnFusedOpsPlan_t plan,
                               const cudnnFusedOpsConstParamPack_t constPack, size_t *workspaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(plan);
    RETURN_IF_NULL(constPack);
    RETURN_IF_NULL(workspaceSizeInBytes);
    if (plan->magic != FDNN_FUSED_PLAN_MAGIC)
        return FDNN_BAD_PARAM("plan is not a fused-ops plan (destroyed or never created)");
    if (constPack->magic != FDNN_FUSED_CONST_MAGIC)
        return FDNN_BAD_PARAM("constPack is not a fused-ops constant param pack (destroyed or never created)");
    if (constPack->ops != plan->ops)
        return FDNN_BAD_PARAM("constPack was created for %s, the plan for %s",
                              fdnn_enum_name_cudnnFusedOps_t(constPack->ops),
                              fdnn_enum_name_cudnnFusedOps_t(plan->ops));
    plan->made = false;
    fdnn_fused_plan_t *pl = &plan->plan;
    memset(pl, 0, sizeof(*pl));
    pl->ops = plan->ops;
    size_t conv_ws = 0;
    const fdnn_tensor_t *rows = &pl->x; /* the tensor whose rows the passes walk */
    switch (plan->ops) {
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS:
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD:
        RETURN_IF_ERROR(make_affine_conv(handle, constPack, pl, &conv_ws));
        break;
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING:
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE:
        RETURN_IF_ERROR(make_finalize(constPack, pl));
        rows = NULL;
        break;
    case CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION:
        RETURN_IF_ERROR(make_conv_scale_bias_add_act(handle, constPack, pl, &conv_ws));
        rows = &pl->y;
        break;
    case CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK: RETURN_IF_ERROR(make_gen_bitmask(constPack, pl)); break;
    case CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM: RETURN_IF_ERROR(make_dact_fork_dbn(constPack, pl)); break;
    }
    /* Workspace: [intermediate | convolution's | scratch], 64-byte aligned. */
    size_t inter = 0;
    if (pl->affine)
        inter = (size_t)fdnn_tensor_span(&pl->x) * fdnn_dtype_size(pl->x.dtype);
    if (pl->ops == CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM && pl->relu)
        inter = (size_t)fdnn_tensor_span(&pl->dy) * fdnn_dtype_size(pl->dy.dtype);
    size_t scratch = 0;
    if (rows != NULL) {
        scratch = align64(fdnn_fused_scratch_bytes(rows));
        if (pl->ops == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS) {
            size_t ys = align64(fdnn_fused_scratch_bytes(&pl->y));
            scratch = ys > scratch ? ys : scratch;
        }
        if (pl->ops == CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM)
            scratch += 2 * align64((size_t)fdnn_tensor_span(&pl->param) * sizeof(float));
    }
    pl->ws_inter = 0;
    pl->ws_conv = align64(inter);
    pl->ws_scratch = pl->ws_conv + align64(conv_ws);
    pl->ws_bytes = pl->ws_scratch + scratch;
    plan->made = true;
    *workspaceSizeInBytes = pl->ws_bytes;
    return CUDNN_STATUS_SUCCESS;
}

/* The pointer of label l, checked against the plan's placeholder. */
static cudnnStatus_t
take_ptr(const fdnn_fused_plan_t *pl, const struct cudnnFusedOpsVariantParamStruct *vp, int l, void **out)
{
    *out = NULL;
    if (pl->ph[l] == CUDNN_PTR_NULL)
        return CUDNN_STATUS_SUCCESS;
    void *p = vp->ptr[l];
    if (p == NULL)
        return FDNN_BAD_PARAM("%s is NULL, but the plan's %s promised a pointer", vname(l), cname(PH_OF_PTR[l]));
    size_t align = pl->ph[l] == CUDNN_PTR_16B_ALIGNED ? 16 : pl->elem[l];
    if (align > 1 && (uintptr_t)p % align != 0)
        return FDNN_BAD_PARAM("%s (%p) is not aligned to %zu bytes as %s promised", vname(l), p, align,
                              fdnn_enum_name_cudnnFusedOpsPointerPlaceHolder_t(pl->ph[l]));
    *out = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnFusedOpsExecute(cudnnHandle_t handle, const cudnnFusedOpsPlan_t plan,
                              cudnnFusedOpsVariantParamPack_t varPack)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(plan);
    RETURN_IF_NULL(varPack);
    if (plan->magic != FDNN_FUSED_PLAN_MAGIC)
        return FDNN_BAD_PARAM("plan is not a fused-ops plan (destroyed or never created)");
    if (varPack->magic != FDNN_FUSED_VARIANT_MAGIC)
        return FDNN_BAD_PARAM("varPack is not a fused-ops variant param pack (destroyed or never created)");
    if (!plan->made)
        return FDNN_BAD_PARAM("the plan was not made (cudnnMakeFusedOpsPlan did not succeed on it)");
    if (varPack->ops != plan->ops)
        return FDNN_BAD_PARAM("varPack was created for %s, the plan for %s",
                              fdnn_enum_name_cudnnFusedOps_t(varPack->ops), fdnn_enum_name_cudnnFusedOps_t(plan->ops));
    const fdnn_fused_plan_t *pl = &plan->plan;
    fdnn_fused_args_t a = {.bn_count = varPack->bn_accum_count,
                           .bn_factor = varPack->bn_exp_avg_factor,
                           .bn_epsilon = varPack->bn_epsilon};
    for (int l = 0; l < FDNN_FUSED_PTR_LABELS; l++)
        if (l != CUDNN_PTR_WORKSPACE)
            RETURN_IF_ERROR(take_ptr(pl, varPack, l, &a.ptr[l]));
    if (pl->ws_bytes > 0) {
        if (varPack->ptr[CUDNN_PTR_WORKSPACE] == NULL)
            return FDNN_BAD_PARAM("CUDNN_PTR_WORKSPACE is NULL; the plan needs %zu bytes", pl->ws_bytes);
        if (varPack->workspace_bytes < pl->ws_bytes)
            return FDNN_BAD_PARAM("CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES is %zu; the plan needs %zu bytes",
                                  varPack->workspace_bytes, pl->ws_bytes);
        a.workspace = varPack->ptr[CUDNN_PTR_WORKSPACE];
    }
    switch (pl->ops) {
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING:
        if (a.bn_count <= 0)
            return FDNN_BAD_PARAM("CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT is %lld, must be positive",
                                  (long long)a.bn_count);
        if (a.ptr[CUDNN_PTR_BN_RUNNING_MEAN] != NULL || a.ptr[CUDNN_PTR_BN_RUNNING_VAR] != NULL) {
            if (!(a.bn_factor >= 0.0 && a.bn_factor <= 1.0))
                return FDNN_BAD_PARAM("CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR is %g, expected 0 to 1", a.bn_factor);
        }
        RETURN_IF_ERROR(fdnn_bn_check_epsilon(a.bn_epsilon));
        break;
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE: RETURN_IF_ERROR(fdnn_bn_check_epsilon(a.bn_epsilon)); break;
    case CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM:
        /* epsilon is used when the statistics are recomputed from x */
        if (a.ptr[CUDNN_PTR_BN_SAVED_MEAN] == NULL)
            RETURN_IF_ERROR(fdnn_bn_check_epsilon(a.bn_epsilon));
        break;
    default: break;
    }
    return fdnn_fused_execute(handle, pl, &a);
}
