/* SPDX-License-Identifier: Apache-2.0
 * Finalize of tensors, of the small descriptors operations refer to
 * (pointwise, convolution, matmul, reduction, resample, RNG, knob choice)
 * and of the operations, whose node (graph_ir.h) is built here from their
 * attributes with every shape rule of cuDNN 8.9 checked:
 *   convolution   x [N,C,s...], w [K,C/g,f...], y [N,K,o...] with
 *                 o = (s + pre + post - ((f-1)*dilation+1)) / stride + 1
 *   matmul        a [B...,M,K] x b [B...,K,N] = c [B...,M,N], a batch dim of
 *                 a or b is c's or 1
 *   pointwise     every input dim is the output's or 1 (same rank; a
 *                 one-element input of any rank broadcasts)
 *   reduction     every y dim is x's or 1
 *   reshape       the same element count; concat: equal dims off the axis
 * Every refusal names the descriptor type and the attribute. */
#include <stdio.h>
#include <string.h>

#include "api/backend/be_desc.h"
#include "core/ckd.h"
#include "core/fail.h"
#include "core/tensor.h"

#define ATTR(x) CUDNN_ATTR_##x

static const char *
an(cudnnBackendAttributeName_t a)
{
    return fdnn_be_attr_name(a);
}

/* ---- tensors ------------------------------------------------------------- */

cudnnStatus_t
fdnn_be_finalize_tensor(fdnn_be_desc_t *d)
{
    const char *dn = "CUDNN_BACKEND_TENSOR_DESCRIPTOR";
    fdnn_graph_tensor_t *t = &d->u.tensor;
    memset(t, 0, sizeof(*t));
    int dt = 0;
    fdnn_be_get_enum(d, ATTR(TENSOR_DATA_TYPE), &dt);
    if (!fdnn_dtype_is_valid((cudnnDataType_t)dt))
        return FDNN_BAD_PARAM("%s: CUDNN_ATTR_TENSOR_DATA_TYPE %d is not a cudnnDataType_t", dn, dt);
    t->dtype = (cudnnDataType_t)dt;
    int nd = 0, ns = 0;
    RETURN_IF_ERROR(fdnn_be_get_i64s(d, ATTR(TENSOR_DIMENSIONS), t->dims, FDNN_GRAPH_MAX_DIMS, &nd));
    RETURN_IF_ERROR(fdnn_be_get_i64s(d, ATTR(TENSOR_STRIDES), t->strides, FDNN_GRAPH_MAX_DIMS, &ns));
    if (nd != ns)
        return FDNN_BAD_PARAM("%s: CUDNN_ATTR_TENSOR_DIMENSIONS has %d elements, CUDNN_ATTR_TENSOR_STRIDES %d", dn,
                              nd, ns);
    t->ndim = nd;
    fdnn_be_get_i64(d, ATTR(TENSOR_UNIQUE_ID), &t->uid);
    fdnn_be_get_i64(d, ATTR(TENSOR_BYTE_ALIGNMENT), &t->alignment);
    if (t->alignment <= 0 || (t->alignment & (t->alignment - 1)) != 0)
        return FDNN_BAD_PARAM("%s (uid %lld): CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT %lld is not a positive power of two",
                              dn, (long long)t->uid, (long long)t->alignment);
    fdnn_be_get_bool(d, ATTR(TENSOR_IS_VIRTUAL), &t->is_virtual);
    fdnn_be_get_bool(d, ATTR(TENSOR_IS_BY_VALUE), &t->by_value);
    if (t->is_virtual && t->by_value)
        return FDNN_BAD_PARAM("%s (uid %lld): CUDNN_ATTR_TENSOR_IS_VIRTUAL and CUDNN_ATTR_TENSOR_IS_BY_VALUE are "
                              "both set",
                              dn, (long long)t->uid);
    t->vector_count = 1;
    fdnn_be_get_i64(d, ATTR(TENSOR_VECTOR_COUNT), &t->vector_count);
    fdnn_be_get_i64(d, ATTR(TENSOR_VECTORIZED_DIMENSION), &t->vector_dim);
    if (t->vector_count < 1)
        return FDNN_BAD_PARAM("%s (uid %lld): CUDNN_ATTR_TENSOR_VECTOR_COUNT is %lld", dn, (long long)t->uid,
                              (long long)t->vector_count);
    if (t->vector_count > 1 && (t->vector_dim < 0 || t->vector_dim >= nd))
        return FDNN_BAD_PARAM("%s (uid %lld): CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION %lld is not a dimension of a "
                              "%d-D tensor",
                              dn, (long long)t->uid, (long long)t->vector_dim, nd);
    int ro = CUDNN_TENSOR_REORDERING_NONE;
    fdnn_be_get_enum(d, ATTR(TENSOR_REORDERING_MODE), &ro);
    if (ro < CUDNN_TENSOR_REORDERING_NONE || ro > CUDNN_TENSOR_REORDERING_F16x16)
        return FDNN_BAD_PARAM("%s (uid %lld): CUDNN_ATTR_TENSOR_REORDERING_MODE %d is not a "
                              "cudnnBackendTensorReordering_t",
                              dn, (long long)t->uid, ro);
    if (ro == CUDNN_TENSOR_REORDERING_INT8x32 && (t->dtype != CUDNN_DATA_INT8 || t->vector_count != 32))
        return FDNN_BAD_PARAM("%s (uid %lld): CUDNN_ATTR_TENSOR_REORDERING_MODE INT8x32 needs CUDNN_DATA_INT8 with "
                              "CUDNN_ATTR_TENSOR_VECTOR_COUNT 32",
                              dn, (long long)t->uid);
    t->reordering = (cudnnBackendTensorReordering_t)ro;
    int64_t span = 1;
    for (int i = 0; i < nd; i++) {
        if (t->dims[i] <= 0)
            return FDNN_BAD_PARAM("%s (uid %lld): CUDNN_ATTR_TENSOR_DIMENSIONS[%d] is %lld", dn, (long long)t->uid,
                                  i, (long long)t->dims[i]);
        if (t->strides[i] <= 0)
            return FDNN_BAD_PARAM("%s (uid %lld): CUDNN_ATTR_TENSOR_STRIDES[%d] is %lld", dn, (long long)t->uid, i,
                                  (long long)t->strides[i]);
        if (!fdnn_ckd_madd_i64(&span, t->dims[i] - 1, t->strides[i]))
            return FDNN_BAD_PARAM("%s (uid %lld): the dimensions and strides span more than 2^63 elements", dn,
                                  (long long)t->uid);
        if (t->by_value && t->dims[i] != 1)
            return FDNN_BAD_PARAM("%s (uid %lld): a by-value tensor is a scalar, CUDNN_ATTR_TENSOR_DIMENSIONS[%d] is "
                                  "%lld",
                                  dn, (long long)t->uid, i, (long long)t->dims[i]);
    }
    /* Every count derived from a finalized tensor is then exact: its
     * elements (strides may alias, so they can outnumber the span) and the
     * bytes it spans. */
    int64_t count = 0;
    size_t bytes = 0;
    if (!fdnn_ckd_prod_i64(t->dims, nd, &count) || !fdnn_ckd_bytes(span, fdnn_dtype_size(t->dtype), &bytes))
        return FDNN_BAD_PARAM("%s (uid %lld): the element count or the byte size of the tensor overflows", dn,
                              (long long)t->uid);
    if (t->by_value && fdnn_dtype_size(t->dtype) > sizeof(t->value))
        return FDNN_BAD_PARAM("%s (uid %lld): a by-value tensor of %s", dn, (long long)t->uid,
                              fdnn_dtype_name(t->dtype));
    return CUDNN_STATUS_SUCCESS;
}

/* ---- small descriptors ----------------------------------------------------- */

static bool
pointwise_mode_valid(int m)
{
    return (m >= 0 && m <= 22) || (m >= 100 && m <= 107) || (m >= 200 && m <= 207) || (m >= 300 && m <= 305) ||
           (m >= 400 && m <= 402) || m == 501 || m == 601;
}

static cudnnStatus_t
check_dtype(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t name)
{
    int dt = -1;
    if (fdnn_be_get_enum(d, name, &dt) && !fdnn_dtype_is_valid((cudnnDataType_t)dt))
        return FDNN_BAD_PARAM("%s: %s %d is not a cudnnDataType_t", fdnn_be_type_name(d->type), an(name), dt);
    return CUDNN_STATUS_SUCCESS;
}

/* The spatial arrays of a convolution or resample descriptor: n of each,
 * each element >= lo[i]. */
static cudnnStatus_t
check_spatial(const fdnn_be_desc_t *d, cudnnBackendAttributeName_t ndims, const cudnnBackendAttributeName_t *arrays,
              const int64_t *lo, int narrays)
{
    const char *dn = fdnn_be_type_name(d->type);
    int64_t n = 0;
    fdnn_be_get_i64(d, ndims, &n);
    if (n < 1 || n > FDNN_GRAPH_MAX_SPATIAL)
        return FDNN_BAD_PARAM("%s: %s is %lld, expected 1 to %d", dn, an(ndims), (long long)n, FDNN_GRAPH_MAX_SPATIAL);
    for (int a = 0; a < narrays; a++) {
        int64_t v[FDNN_GRAPH_MAX_SPATIAL];
        int c = 0;
        RETURN_IF_ERROR(fdnn_be_get_i64s(d, arrays[a], v, FDNN_GRAPH_MAX_SPATIAL, &c));
        if (c != n)
            return FDNN_BAD_PARAM("%s: %s has %d elements, %s is %lld", dn, an(arrays[a]), c, an(ndims),
                                  (long long)n);
        for (int i = 0; i < c; i++)
            if (v[i] < lo[a])
                return FDNN_BAD_PARAM("%s: %s[%d] is %lld, must be at least %lld", dn, an(arrays[a]), i,
                                      (long long)v[i], (long long)lo[a]);
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_be_finalize_small(fdnn_be_desc_t *d)
{
    const char *dn = fdnn_be_type_name(d->type);
    int e = 0;
    switch (d->type) {
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: {
        fdnn_be_get_enum(d, ATTR(POINTWISE_MODE), &e);
        if (!pointwise_mode_valid(e))
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_POINTWISE_MODE %d is not a cudnnPointwiseMode_t", dn, e);
        RETURN_IF_ERROR(check_dtype(d, ATTR(POINTWISE_MATH_PREC)));
        if (fdnn_be_get_enum(d, ATTR(POINTWISE_NAN_PROPAGATION), &e) && e != 0 && e != 1)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_POINTWISE_NAN_PROPAGATION %d", dn, e);
        double lo = 0, hi = 0;
        if (fdnn_be_get_double(d, ATTR(POINTWISE_RELU_LOWER_CLIP), &lo) &&
            fdnn_be_get_double(d, ATTR(POINTWISE_RELU_UPPER_CLIP), &hi) && lo > hi)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP %g is above "
                                  "CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP %g",
                                  dn, lo, hi);
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: {
        RETURN_IF_ERROR(check_dtype(d, ATTR(CONVOLUTION_COMP_TYPE)));
        fdnn_be_get_enum(d, ATTR(CONVOLUTION_CONV_MODE), &e);
        if (e != CUDNN_CONVOLUTION && e != CUDNN_CROSS_CORRELATION)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_CONVOLUTION_CONV_MODE %d is not a cudnnConvolutionMode_t", dn, e);
        static const cudnnBackendAttributeName_t arr[] = {ATTR(CONVOLUTION_DILATIONS),
                                                          ATTR(CONVOLUTION_FILTER_STRIDES),
                                                          ATTR(CONVOLUTION_PRE_PADDINGS),
                                                          ATTR(CONVOLUTION_POST_PADDINGS)};
        static const int64_t lo[] = {1, 1, 0, 0};
        return check_spatial(d, ATTR(CONVOLUTION_SPATIAL_DIMS), arr, lo, 4);
    }
    case CUDNN_BACKEND_MATMUL_DESCRIPTOR: return check_dtype(d, ATTR(MATMUL_COMP_TYPE));
    case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
        fdnn_be_get_enum(d, ATTR(REDUCTION_OPERATOR), &e);
        if (e < CUDNN_REDUCE_TENSOR_ADD || e > CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_REDUCTION_OPERATOR %d is not a cudnnReduceTensorOp_t", dn, e);
        return check_dtype(d, ATTR(REDUCTION_COMP_TYPE));
    case CUDNN_BACKEND_RESAMPLE_DESCRIPTOR: {
        fdnn_be_get_enum(d, ATTR(RESAMPLE_MODE), &e);
        if (e < 0 || e > 4)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_RESAMPLE_MODE %d is not a cudnnResampleMode_t", dn, e);
        RETURN_IF_ERROR(check_dtype(d, ATTR(RESAMPLE_COMP_TYPE)));
        if (fdnn_be_get_enum(d, ATTR(RESAMPLE_PADDING_MODE), &e) && (e < 0 || e > 2))
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_RESAMPLE_PADDING_MODE %d is not a cudnnPaddingMode_t", dn, e);
        static const cudnnBackendAttributeName_t arr[] = {ATTR(RESAMPLE_WINDOW_DIMS), ATTR(RESAMPLE_STRIDES),
                                                          ATTR(RESAMPLE_PRE_PADDINGS),
                                                          ATTR(RESAMPLE_POST_PADDINGS)};
        static const int64_t lo[] = {1, 1, 0, 0};
        return check_spatial(d, ATTR(RESAMPLE_SPATIAL_DIMS), arr, lo, 4);
    }
    case CUDNN_BACKEND_RNG_DESCRIPTOR: {
        fdnn_be_get_enum(d, ATTR(RNG_DISTRIBUTION), &e);
        if (e < CUDNN_RNG_DISTRIBUTION_BERNOULLI || e > CUDNN_RNG_DISTRIBUTION_NORMAL)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_RNG_DISTRIBUTION %d is not a cudnnRngDistribution_t", dn, e);
        double p = 0.5, sd = 1, mn = 0, mx = 1;
        fdnn_be_get_double(d, ATTR(RNG_BERNOULLI_DIST_PROBABILITY), &p);
        fdnn_be_get_double(d, ATTR(RNG_NORMAL_DIST_STANDARD_DEVIATION), &sd);
        fdnn_be_get_double(d, ATTR(RNG_UNIFORM_DIST_MINIMUM), &mn);
        fdnn_be_get_double(d, ATTR(RNG_UNIFORM_DIST_MAXIMUM), &mx);
        if (!(p >= 0 && p <= 1))
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY %g is not in [0, 1]", dn, p);
        if (!(sd >= 0))
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_RNG_NORMAL_DIST_STANDARD_DEVIATION %g is negative", dn, sd);
        if (!(mn <= mx))
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_RNG_UNIFORM_DIST_MINIMUM %g is above the maximum %g", dn, mn, mx);
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
        fdnn_be_get_enum(d, ATTR(KNOB_CHOICE_KNOB_TYPE), &e);
        if (e < 0 || e >= CUDNN_KNOB_TYPE_COUNTS)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE %d is not a cudnnBackendKnobType_t", dn, e);
        return CUDNN_STATUS_SUCCESS;
    default: return FDNN_INTERNAL_ERROR("%s is not a small descriptor", dn);
    }
}

/* ---- operations ------------------------------------------------------------ */

bool
fdnn_be_is_operation(cudnnBackendDescriptorType_t t)
{
    switch (t) {
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR: return true;
    default: return false;
    }
}

typedef struct build {
    const fdnn_be_desc_t *op;
    const char *dn;
    fdnn_be_tensor_index_fn index;
    void *ctx;
} build_t;

static int
tix(const build_t *b, cudnnBackendAttributeName_t name)
{
    const fdnn_be_desc_t *t = fdnn_be_get_desc(b->op, name);
    return t ? b->index(b->ctx, t) : FDNN_GRAPH_NONE;
}

static const fdnn_graph_tensor_t *
tensor(const build_t *b, cudnnBackendAttributeName_t name)
{
    const fdnn_be_desc_t *t = fdnn_be_get_desc(b->op, name);
    return t ? &t->u.tensor : NULL;
}

static double
scalar(const build_t *b, cudnnBackendAttributeName_t name, double dflt)
{
    double v = dflt;
    fdnn_be_get_double(b->op, name, &v);
    return v;
}

static cudnnStatus_t
need(const build_t *b, cudnnBackendAttributeName_t name)
{
    if (fdnn_be_get_desc(b->op, name) == NULL)
        return FDNN_BAD_PARAM("%s: %s is required here and not set", b->dn, an(name));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
same_rank(const build_t *b, const fdnn_graph_tensor_t *t, cudnnBackendAttributeName_t tn, int rank,
          const char *why)
{
    if (t->ndim != rank)
        return FDNN_BAD_PARAM("%s: %s (uid %lld) has %d dimensions, expected %d (%s)", b->dn, an(tn),
                              (long long)t->uid, t->ndim, rank, why);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
build_conv(const build_t *b, fdnn_graph_node_t *n, cudnnBackendAttributeName_t an_alpha, cudnnBackendAttributeName_t an_beta,
           cudnnBackendAttributeName_t an_conv, cudnnBackendAttributeName_t an_x, cudnnBackendAttributeName_t an_w,
           cudnnBackendAttributeName_t an_y)
{
    fdnn_gop_conv_t *c = &n->u.conv;
    const fdnn_be_desc_t *cd = fdnn_be_get_desc(b->op, an_conv);
    c->x = tix(b, an_x), c->w = tix(b, an_w), c->y = tix(b, an_y);
    c->alpha = scalar(b, an_alpha, 1.0), c->beta = scalar(b, an_beta, 0.0);
    int e = 0;
    fdnn_be_get_enum(cd, ATTR(CONVOLUTION_COMP_TYPE), &e), c->compute_type = (cudnnDataType_t)e;
    fdnn_be_get_enum(cd, ATTR(CONVOLUTION_CONV_MODE), &e), c->mode = (cudnnConvolutionMode_t)e;
    int64_t nsp = 0;
    int k = 0;
    fdnn_be_get_i64(cd, ATTR(CONVOLUTION_SPATIAL_DIMS), &nsp);
    c->nsp = (int)nsp;
    RETURN_IF_ERROR(fdnn_be_get_i64s(cd, ATTR(CONVOLUTION_PRE_PADDINGS), c->pre_pad, FDNN_GRAPH_MAX_SPATIAL, &k));
    RETURN_IF_ERROR(fdnn_be_get_i64s(cd, ATTR(CONVOLUTION_POST_PADDINGS), c->post_pad, FDNN_GRAPH_MAX_SPATIAL, &k));
    RETURN_IF_ERROR(fdnn_be_get_i64s(cd, ATTR(CONVOLUTION_FILTER_STRIDES), c->stride, FDNN_GRAPH_MAX_SPATIAL, &k));
    RETURN_IF_ERROR(fdnn_be_get_i64s(cd, ATTR(CONVOLUTION_DILATIONS), c->dilation, FDNN_GRAPH_MAX_SPATIAL, &k));
    const fdnn_graph_tensor_t *x = tensor(b, an_x), *w = tensor(b, an_w), *y = tensor(b, an_y);
    int rank = c->nsp + 2;
    RETURN_IF_ERROR(same_rank(b, x, an_x, rank, "CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS + 2"));
    RETURN_IF_ERROR(same_rank(b, w, an_w, rank, "CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS + 2"));
    RETURN_IF_ERROR(same_rank(b, y, an_y, rank, "CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS + 2"));
    if (x->dims[1] % w->dims[1] != 0)
        return FDNN_BAD_PARAM("%s: the channels of %s (%lld) are not a multiple of those of %s (%lld)", b->dn,
                              an(an_x), (long long)x->dims[1], an(an_w), (long long)w->dims[1]);
    int64_t groups = x->dims[1] / w->dims[1];
    if (w->dims[0] % groups != 0)
        return FDNN_BAD_PARAM("%s: %s has %lld output channels, not a multiple of the %lld groups", b->dn, an(an_w),
                              (long long)w->dims[0], (long long)groups);
    if (y->dims[0] != x->dims[0] || y->dims[1] != w->dims[0])
        return FDNN_BAD_PARAM("%s: %s is [%lld, %lld, ...], expected [%lld (batch of %s), %lld (filters of %s), ...]",
                              b->dn, an(an_y), (long long)y->dims[0], (long long)y->dims[1], (long long)x->dims[0],
                              an(an_x), (long long)w->dims[0], an(an_w));
    for (int i = 0; i < c->nsp; i++) {
        int64_t span = (w->dims[2 + i] - 1) * c->dilation[i] + 1;
        int64_t in = x->dims[2 + i] + c->pre_pad[i] + c->post_pad[i];
        int64_t out = in < span ? 0 : (in - span) / c->stride[i] + 1;
        if (out != y->dims[2 + i])
            return FDNN_BAD_PARAM("%s: spatial dim %d of %s is %lld, the convolution gives %lld", b->dn, i, an(an_y),
                                  (long long)y->dims[2 + i], (long long)out);
    }
    return CUDNN_STATUS_SUCCESS;
}

static int64_t
elements(const fdnn_graph_tensor_t *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->dims[i];
    return n;
}

/* Every dim of `in` is `out`'s or 1; same rank, unless `in` is a scalar. */
static cudnnStatus_t
broadcasts_to(const build_t *b, cudnnBackendAttributeName_t in_name, cudnnBackendAttributeName_t out_name)
{
    const fdnn_graph_tensor_t *in = tensor(b, in_name), *out = tensor(b, out_name);
    if (in == NULL || out == NULL)
        return CUDNN_STATUS_SUCCESS;
    if (elements(in) == 1)
        return CUDNN_STATUS_SUCCESS; /* a scalar (e.g. a by-value [1]) goes with any rank */
    if (in->ndim != out->ndim)
        return FDNN_BAD_PARAM("%s: %s has %d dimensions, %s %d", b->dn, an(in_name), in->ndim, an(out_name),
                              out->ndim);
    for (int i = 0; i < in->ndim; i++)
        if (in->dims[i] != out->dims[i] && in->dims[i] != 1)
            return FDNN_BAD_PARAM("%s: dim %d of %s is %lld, must be %lld (that of %s) or 1", b->dn, i, an(in_name),
                                  (long long)in->dims[i], (long long)out->dims[i], an(out_name));
    return CUDNN_STATUS_SUCCESS;
}

static int
pointwise_arity(int mode)
{
    switch (mode) {
    case CUDNN_POINTWISE_ADD:
    case CUDNN_POINTWISE_ADD_SQUARE:
    case CUDNN_POINTWISE_DIV:
    case CUDNN_POINTWISE_MAX:
    case CUDNN_POINTWISE_MIN:
    case CUDNN_POINTWISE_MOD:
    case CUDNN_POINTWISE_MUL:
    case CUDNN_POINTWISE_POW:
    case CUDNN_POINTWISE_SUB:
    case CUDNN_POINTWISE_CMP_EQ:
    case CUDNN_POINTWISE_CMP_NEQ:
    case CUDNN_POINTWISE_CMP_GT:
    case CUDNN_POINTWISE_CMP_GE:
    case CUDNN_POINTWISE_CMP_LT:
    case CUDNN_POINTWISE_CMP_LE:
    case CUDNN_POINTWISE_LOGICAL_AND:
    case CUDNN_POINTWISE_LOGICAL_OR: return 2;
    case CUDNN_POINTWISE_BINARY_SELECT: return 3;
    default: return mode >= 200 && mode < 300 ? -1 : 1; /* -1: backward (x, dy -> dx) */
    }
}

static cudnnStatus_t
build_pointwise(const build_t *b, fdnn_graph_node_t *n)
{
    fdnn_gop_pointwise_t *p = &n->u.pointwise;
    const fdnn_be_desc_t *pd = fdnn_be_get_desc(b->op, ATTR(OPERATION_POINTWISE_PW_DESCRIPTOR));
    int e = 0;
    fdnn_be_get_enum(pd, ATTR(POINTWISE_MODE), &e), p->mode = (cudnnPointwiseMode_t)e;
    e = CUDNN_DATA_FLOAT;
    fdnn_be_get_enum(pd, ATTR(POINTWISE_MATH_PREC), &e), p->math_prec = (cudnnDataType_t)e;
    e = CUDNN_NOT_PROPAGATE_NAN;
    fdnn_be_get_enum(pd, ATTR(POINTWISE_NAN_PROPAGATION), &e), p->nan_prop = (cudnnNanPropagation_t)e;
    p->relu_lower_clip = 0.0, p->relu_upper_clip = __builtin_inf(), p->relu_lower_clip_slope = 0.0;
    fdnn_be_get_double(pd, ATTR(POINTWISE_RELU_LOWER_CLIP), &p->relu_lower_clip);
    fdnn_be_get_double(pd, ATTR(POINTWISE_RELU_UPPER_CLIP), &p->relu_upper_clip);
    fdnn_be_get_double(pd, ATTR(POINTWISE_RELU_LOWER_CLIP_SLOPE), &p->relu_lower_clip_slope);
    p->elu_alpha = 1.0, p->softplus_beta = 1.0, p->swish_beta = 1.0;
    fdnn_be_get_double(pd, ATTR(POINTWISE_ELU_ALPHA), &p->elu_alpha);
    fdnn_be_get_double(pd, ATTR(POINTWISE_SOFTPLUS_BETA), &p->softplus_beta);
    fdnn_be_get_double(pd, ATTR(POINTWISE_SWISH_BETA), &p->swish_beta);
    p->axis = 0;
    fdnn_be_get_i64(pd, ATTR(POINTWISE_AXIS), &p->axis);
    p->alpha1 = scalar(b, ATTR(OPERATION_POINTWISE_ALPHA1), 1.0);
    p->alpha2 = scalar(b, ATTR(OPERATION_POINTWISE_ALPHA2), 1.0);
    p->x = tix(b, ATTR(OPERATION_POINTWISE_XDESC)), p->b = tix(b, ATTR(OPERATION_POINTWISE_BDESC));
    p->t = tix(b, ATTR(OPERATION_POINTWISE_TDESC)), p->y = tix(b, ATTR(OPERATION_POINTWISE_YDESC));
    p->dx = tix(b, ATTR(OPERATION_POINTWISE_DXDESC)), p->dy = tix(b, ATTR(OPERATION_POINTWISE_DYDESC));
    int arity = pointwise_arity(p->mode);
    if (arity < 0) {
        RETURN_IF_ERROR(need(b, ATTR(OPERATION_POINTWISE_DYDESC)));
        RETURN_IF_ERROR(need(b, ATTR(OPERATION_POINTWISE_DXDESC)));
        RETURN_IF_ERROR(broadcasts_to(b, ATTR(OPERATION_POINTWISE_XDESC), ATTR(OPERATION_POINTWISE_DXDESC)));
        return broadcasts_to(b, ATTR(OPERATION_POINTWISE_DYDESC), ATTR(OPERATION_POINTWISE_DXDESC));
    }
    RETURN_IF_ERROR(need(b, ATTR(OPERATION_POINTWISE_YDESC)));
    if (arity >= 2)
        RETURN_IF_ERROR(need(b, ATTR(OPERATION_POINTWISE_BDESC)));
    if (arity >= 3)
        RETURN_IF_ERROR(need(b, ATTR(OPERATION_POINTWISE_TDESC)));
    if (p->mode == CUDNN_POINTWISE_GEN_INDEX) {
        const fdnn_graph_tensor_t *x = tensor(b, ATTR(OPERATION_POINTWISE_XDESC));
        if (p->axis < 0 || p->axis >= x->ndim)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_POINTWISE_AXIS %lld is not a dimension of the %d-D x", b->dn,
                                  (long long)p->axis, x->ndim);
    }
    RETURN_IF_ERROR(broadcasts_to(b, ATTR(OPERATION_POINTWISE_XDESC), ATTR(OPERATION_POINTWISE_YDESC)));
    RETURN_IF_ERROR(broadcasts_to(b, ATTR(OPERATION_POINTWISE_BDESC), ATTR(OPERATION_POINTWISE_YDESC)));
    return broadcasts_to(b, ATTR(OPERATION_POINTWISE_TDESC), ATTR(OPERATION_POINTWISE_YDESC));
}

static cudnnStatus_t
build_matmul(const build_t *b, fdnn_graph_node_t *n)
{
    fdnn_gop_matmul_t *m = &n->u.matmul;
    const fdnn_be_desc_t *md = fdnn_be_get_desc(b->op, ATTR(OPERATION_MATMUL_DESC));
    int e = 0;
    fdnn_be_get_enum(md, ATTR(MATMUL_COMP_TYPE), &e), m->compute_type = (cudnnDataType_t)e;
    m->padding_value = 0;
    fdnn_be_get_double(md, ATTR(MATMUL_PADDING_VALUE), &m->padding_value);
    m->a = tix(b, ATTR(OPERATION_MATMUL_ADESC)), m->b = tix(b, ATTR(OPERATION_MATMUL_BDESC));
    m->c = tix(b, ATTR(OPERATION_MATMUL_CDESC));
    m->m_override = tix(b, ATTR(OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC));
    m->n_override = tix(b, ATTR(OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC));
    m->k_override = tix(b, ATTR(OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC));
    m->irregular_batch_count = 0;
    fdnn_be_get_i64(b->op, ATTR(OPERATION_MATMUL_IRREGULARLY_STRIDED_BATCH_COUNT), &m->irregular_batch_count);
    static const cudnnBackendAttributeName_t overrides[3] = {ATTR(OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC),
                                                             ATTR(OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC),
                                                             ATTR(OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC)};
    for (int i = 0; i < 3; i++) {
        const fdnn_graph_tensor_t *o = tensor(b, overrides[i]);
        if (o != NULL && o->dtype != CUDNN_DATA_INT32 && o->dtype != CUDNN_DATA_INT64)
            return FDNN_BAD_PARAM("%s: %s (uid %lld) is %s, must be CUDNN_DATA_INT32 or CUDNN_DATA_INT64", b->dn,
                                  an(overrides[i]), (long long)o->uid, fdnn_dtype_name(o->dtype));
    }
    const fdnn_graph_tensor_t *A = tensor(b, ATTR(OPERATION_MATMUL_ADESC)), *B = tensor(b, ATTR(OPERATION_MATMUL_BDESC)),
                              *C = tensor(b, ATTR(OPERATION_MATMUL_CDESC));
    int r = C->ndim;
    if (r < 2)
        return FDNN_BAD_PARAM("%s: CUDNN_ATTR_OPERATION_MATMUL_CDESC has %d dimensions, at least 2 ([..., M, N])",
                              b->dn, r);
    RETURN_IF_ERROR(same_rank(b, A, ATTR(OPERATION_MATMUL_ADESC), r, "the rank of CDESC"));
    RETURN_IF_ERROR(same_rank(b, B, ATTR(OPERATION_MATMUL_BDESC), r, "the rank of CDESC"));
    int64_t M = A->dims[r - 2], K = A->dims[r - 1], K2 = B->dims[r - 2], N = B->dims[r - 1];
    if (K != K2)
        return FDNN_BAD_PARAM("%s: ADESC is [..., %lld, %lld] and BDESC [..., %lld, %lld]: K differs", b->dn,
                              (long long)M, (long long)K, (long long)K2, (long long)N);
    if (C->dims[r - 2] != M || C->dims[r - 1] != N)
        return FDNN_BAD_PARAM("%s: CDESC is [..., %lld, %lld], A x B is [..., %lld, %lld]", b->dn,
                              (long long)C->dims[r - 2], (long long)C->dims[r - 1], (long long)M, (long long)N);
    for (int i = 0; i < r - 2; i++)
        if ((A->dims[i] != C->dims[i] && A->dims[i] != 1) || (B->dims[i] != C->dims[i] && B->dims[i] != 1))
            return FDNN_BAD_PARAM("%s: batch dim %d is %lld in ADESC, %lld in BDESC, %lld in CDESC (each must be "
                                  "CDESC's or 1)",
                                  b->dn, i, (long long)A->dims[i], (long long)B->dims[i], (long long)C->dims[i]);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
build_resample(const build_t *b, fdnn_graph_node_t *n, bool fwd)
{
    fdnn_gop_resample_t *r = &n->u.resample;
    const fdnn_be_desc_t *rd =
        fdnn_be_get_desc(b->op, fwd ? ATTR(OPERATION_RESAMPLE_FWD_DESC) : ATTR(OPERATION_RESAMPLE_BWD_DESC));
    int e = 0, k = 0;
    fdnn_be_get_enum(rd, ATTR(RESAMPLE_MODE), &e), r->mode = (cudnnResampleMode_t)e;
    fdnn_be_get_enum(rd, ATTR(RESAMPLE_COMP_TYPE), &e), r->compute_type = (cudnnDataType_t)e;
    e = CUDNN_NOT_PROPAGATE_NAN;
    fdnn_be_get_enum(rd, ATTR(RESAMPLE_NAN_PROPAGATION), &e), r->nan_prop = (cudnnNanPropagation_t)e;
    e = CUDNN_ZERO_PAD;
    fdnn_be_get_enum(rd, ATTR(RESAMPLE_PADDING_MODE), &e), r->padding_mode = (cudnnPaddingMode_t)e;
    int64_t nsp = 0;
    fdnn_be_get_i64(rd, ATTR(RESAMPLE_SPATIAL_DIMS), &nsp), r->nsp = (int)nsp;
    RETURN_IF_ERROR(fdnn_be_get_i64s(rd, ATTR(RESAMPLE_WINDOW_DIMS), r->window, FDNN_GRAPH_MAX_SPATIAL, &k));
    RETURN_IF_ERROR(fdnn_be_get_i64s(rd, ATTR(RESAMPLE_STRIDES), r->stride, FDNN_GRAPH_MAX_SPATIAL, &k));
    RETURN_IF_ERROR(fdnn_be_get_i64s(rd, ATTR(RESAMPLE_PRE_PADDINGS), r->pre_pad, FDNN_GRAPH_MAX_SPATIAL, &k));
    RETURN_IF_ERROR(fdnn_be_get_i64s(rd, ATTR(RESAMPLE_POST_PADDINGS), r->post_pad, FDNN_GRAPH_MAX_SPATIAL, &k));
    r->x = r->y = r->idx = r->dx = r->dy = FDNN_GRAPH_NONE;
    cudnnBackendAttributeName_t in_n, out_n;
    if (fwd) {
        r->alpha = scalar(b, ATTR(OPERATION_RESAMPLE_FWD_ALPHA), 1.0);
        r->beta = scalar(b, ATTR(OPERATION_RESAMPLE_FWD_BETA), 0.0);
        r->x = tix(b, ATTR(OPERATION_RESAMPLE_FWD_XDESC)), r->y = tix(b, ATTR(OPERATION_RESAMPLE_FWD_YDESC));
        r->idx = tix(b, ATTR(OPERATION_RESAMPLE_FWD_IDXDESC));
        in_n = ATTR(OPERATION_RESAMPLE_FWD_XDESC), out_n = ATTR(OPERATION_RESAMPLE_FWD_YDESC);
    } else {
        r->alpha = scalar(b, ATTR(OPERATION_RESAMPLE_BWD_ALPHA), 1.0);
        r->beta = scalar(b, ATTR(OPERATION_RESAMPLE_BWD_BETA), 0.0);
        r->dx = tix(b, ATTR(OPERATION_RESAMPLE_BWD_DXDESC)), r->dy = tix(b, ATTR(OPERATION_RESAMPLE_BWD_DYDESC));
        r->idx = tix(b, ATTR(OPERATION_RESAMPLE_BWD_IDXDESC));
        r->x = tix(b, ATTR(OPERATION_RESAMPLE_BWD_XDESC)), r->y = tix(b, ATTR(OPERATION_RESAMPLE_BWD_YDESC));
        in_n = ATTR(OPERATION_RESAMPLE_BWD_DXDESC), out_n = ATTR(OPERATION_RESAMPLE_BWD_DYDESC);
        if (r->mode == CUDNN_RESAMPLE_MAXPOOL && r->idx == FDNN_GRAPH_NONE &&
            (r->x == FDNN_GRAPH_NONE || r->y == FDNN_GRAPH_NONE))
            return FDNN_BAD_PARAM("%s: max pooling backward needs CUDNN_ATTR_OPERATION_RESAMPLE_BWD_IDXDESC, or both "
                                  "CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC and CUDNN_ATTR_OPERATION_RESAMPLE_BWD_YDESC "
                                  "to find the maxima",
                                  b->dn);
    }
    const fdnn_graph_tensor_t *in = tensor(b, in_n), *out = tensor(b, out_n);
    RETURN_IF_ERROR(same_rank(b, in, in_n, r->nsp + 2, "CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS + 2"));
    RETURN_IF_ERROR(same_rank(b, out, out_n, r->nsp + 2, "CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS + 2"));
    if (in->dims[0] != out->dims[0] || in->dims[1] != out->dims[1])
        return FDNN_BAD_PARAM("%s: %s and %s differ in batch or channels", b->dn, an(in_n), an(out_n));
    bool pooling = r->mode == CUDNN_RESAMPLE_MAXPOOL || r->mode == CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING ||
                   r->mode == CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING;
    for (int i = 0; pooling && i < r->nsp; i++) {
        int64_t padded = in->dims[2 + i] + r->pre_pad[i] + r->post_pad[i];
        int64_t o = padded < r->window[i] ? 0 : (padded - r->window[i]) / r->stride[i] + 1;
        if (o != out->dims[2 + i])
            return FDNN_BAD_PARAM("%s: spatial dim %d of %s is %lld, the pooling window gives %lld", b->dn, i,
                                  an(out_n), (long long)out->dims[2 + i], (long long)o);
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
build_concat(const build_t *b, fdnn_graph_node_t *n)
{
    fdnn_gop_concat_t *c = &n->u.concat;
    int64_t cnt = 0;
    fdnn_be_desc_t *const *ins = fdnn_be_get_descs(b->op, ATTR(OPERATION_CONCAT_INPUT_DESCS), &cnt);
    c->ninputs = (int)cnt;
    c->axis = 0, c->inplace_index = -1;
    fdnn_be_get_i64(b->op, ATTR(OPERATION_CONCAT_AXIS), &c->axis);
    fdnn_be_get_i64(b->op, ATTR(OPERATION_CONCAT_INPLACE_INDEX), &c->inplace_index);
    c->y = tix(b, ATTR(OPERATION_CONCAT_OUTPUT_DESC));
    const fdnn_graph_tensor_t *y = tensor(b, ATTR(OPERATION_CONCAT_OUTPUT_DESC));
    if (c->axis < 0 || c->axis >= y->ndim)
        return FDNN_BAD_PARAM("%s: CUDNN_ATTR_OPERATION_CONCAT_AXIS %lld is not a dimension of the %d-D output",
                              b->dn, (long long)c->axis, y->ndim);
    if (c->inplace_index < -1 || c->inplace_index >= cnt)
        return FDNN_BAD_PARAM("%s: CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX %lld is not an input index", b->dn,
                              (long long)c->inplace_index);
    int64_t sum = 0;
    for (int64_t k = 0; k < cnt; k++) {
        const fdnn_graph_tensor_t *t = &ins[k]->u.tensor;
        c->inputs[k] = b->index(b->ctx, ins[k]);
        if (t->ndim != y->ndim)
            return FDNN_BAD_PARAM("%s: input %lld of CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS has %d dimensions, the "
                                  "output %d",
                                  b->dn, (long long)k, t->ndim, y->ndim);
        for (int i = 0; i < y->ndim; i++)
            if (i != c->axis && t->dims[i] != y->dims[i])
                return FDNN_BAD_PARAM("%s: input %lld differs from the output in dim %d (off the concatenation axis)",
                                      b->dn, (long long)k, i);
        sum += t->dims[c->axis];
    }
    if (sum != y->dims[c->axis])
        return FDNN_BAD_PARAM("%s: the inputs sum to %lld along the axis, the output has %lld", b->dn, (long long)sum,
                              (long long)y->dims[c->axis]);
    return CUDNN_STATUS_SUCCESS;
}

static void
peers(const build_t *b, cudnnBackendAttributeName_t name, int *np, int *out)
{
    int64_t cnt = 0;
    fdnn_be_desc_t *const *ps = fdnn_be_get_descs(b->op, name, &cnt);
    *np = (int)cnt;
    for (int64_t k = 0; k < cnt; k++)
        out[k] = b->index(b->ctx, ps[k]);
}

cudnnStatus_t
fdnn_be_build_node(const fdnn_be_desc_t *op, fdnn_be_tensor_index_fn index, void *ctx, fdnn_graph_node_t *n)
{
    build_t b = {op, fdnn_be_type_name(op->type), index, ctx};
    const build_t *B = &b;
    memset(n, 0, sizeof(*n));
    int e = 0;
    switch (op->type) {
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
        n->kind = FDNN_GOP_CONV_FWD;
        return build_conv(B, n, ATTR(OPERATION_CONVOLUTION_FORWARD_ALPHA), ATTR(OPERATION_CONVOLUTION_FORWARD_BETA),
                          ATTR(OPERATION_CONVOLUTION_FORWARD_CONV_DESC), ATTR(OPERATION_CONVOLUTION_FORWARD_X),
                          ATTR(OPERATION_CONVOLUTION_FORWARD_W), ATTR(OPERATION_CONVOLUTION_FORWARD_Y));
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
        n->kind = FDNN_GOP_CONV_BWD_DATA;
        return build_conv(B, n, ATTR(OPERATION_CONVOLUTION_BWD_DATA_ALPHA), ATTR(OPERATION_CONVOLUTION_BWD_DATA_BETA),
                          ATTR(OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC), ATTR(OPERATION_CONVOLUTION_BWD_DATA_DX),
                          ATTR(OPERATION_CONVOLUTION_BWD_DATA_W), ATTR(OPERATION_CONVOLUTION_BWD_DATA_DY));
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
        n->kind = FDNN_GOP_CONV_BWD_FILTER;
        return build_conv(B, n, ATTR(OPERATION_CONVOLUTION_BWD_FILTER_ALPHA),
                          ATTR(OPERATION_CONVOLUTION_BWD_FILTER_BETA), ATTR(OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC),
                          ATTR(OPERATION_CONVOLUTION_BWD_FILTER_X), ATTR(OPERATION_CONVOLUTION_BWD_FILTER_DW),
                          ATTR(OPERATION_CONVOLUTION_BWD_FILTER_DY));
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: n->kind = FDNN_GOP_POINTWISE; return build_pointwise(B, n);
    case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: n->kind = FDNN_GOP_MATMUL; return build_matmul(B, n);
    case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: {
        n->kind = FDNN_GOP_REDUCTION;
        const fdnn_be_desc_t *rd = fdnn_be_get_desc(op, ATTR(OPERATION_REDUCTION_DESC));
        fdnn_be_get_enum(rd, ATTR(REDUCTION_OPERATOR), &e), n->u.reduction.op = (cudnnReduceTensorOp_t)e;
        fdnn_be_get_enum(rd, ATTR(REDUCTION_COMP_TYPE), &e), n->u.reduction.compute_type = (cudnnDataType_t)e;
        n->u.reduction.x = tix(B, ATTR(OPERATION_REDUCTION_XDESC));
        n->u.reduction.y = tix(B, ATTR(OPERATION_REDUCTION_YDESC));
        return broadcasts_to(B, ATTR(OPERATION_REDUCTION_YDESC), ATTR(OPERATION_REDUCTION_XDESC));
    }
    case CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR: {
        fdnn_gop_gen_stats_t *g = &n->u.gen_stats;
        n->kind = FDNN_GOP_GEN_STATS;
        fdnn_be_get_enum(op, ATTR(OPERATION_GENSTATS_MODE), &e), g->mode = (cudnnGenStatsMode_t)e;
        fdnn_be_get_enum(op, ATTR(OPERATION_GENSTATS_MATH_PREC), &e), g->math_prec = (cudnnDataType_t)e;
        g->x = tix(B, ATTR(OPERATION_GENSTATS_XDESC)), g->sum = tix(B, ATTR(OPERATION_GENSTATS_SUMDESC));
        g->sqsum = tix(B, ATTR(OPERATION_GENSTATS_SQSUMDESC));
        if (g->mode != CUDNN_GENSTATS_SUM_SQSUM)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_OPERATION_GENSTATS_MODE %d", b.dn, (int)g->mode);
        RETURN_IF_ERROR(broadcasts_to(B, ATTR(OPERATION_GENSTATS_SUMDESC), ATTR(OPERATION_GENSTATS_XDESC)));
        return broadcasts_to(B, ATTR(OPERATION_GENSTATS_SQSUMDESC), ATTR(OPERATION_GENSTATS_XDESC));
    }
    case CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR: {
        fdnn_gop_bn_finalize_t *f = &n->u.bn_finalize;
        n->kind = FDNN_GOP_BN_FINALIZE;
        fdnn_be_get_enum(op, ATTR(OPERATION_BN_FINALIZE_STATS_MODE), &e), f->mode = (cudnnBnFinalizeStatsMode_t)e;
        fdnn_be_get_enum(op, ATTR(OPERATION_BN_FINALIZE_MATH_PREC), &e), f->math_prec = (cudnnDataType_t)e;
        f->y_sum = tix(B, ATTR(OPERATION_BN_FINALIZE_Y_SUM_DESC));
        f->y_sq_sum = tix(B, ATTR(OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC));
        f->scale = tix(B, ATTR(OPERATION_BN_FINALIZE_SCALE_DESC));
        f->bias = tix(B, ATTR(OPERATION_BN_FINALIZE_BIAS_DESC));
        f->prev_running_mean = tix(B, ATTR(OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC));
        f->prev_running_var = tix(B, ATTR(OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC));
        f->updated_running_mean = tix(B, ATTR(OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC));
        f->updated_running_var = tix(B, ATTR(OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC));
        f->saved_mean = tix(B, ATTR(OPERATION_BN_FINALIZE_SAVED_MEAN_DESC));
        f->saved_inv_std = tix(B, ATTR(OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC));
        f->eq_scale = tix(B, ATTR(OPERATION_BN_FINALIZE_EQ_SCALE_DESC));
        f->eq_bias = tix(B, ATTR(OPERATION_BN_FINALIZE_EQ_BIAS_DESC));
        f->accum_count = tix(B, ATTR(OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC));
        f->epsilon = tix(B, ATTR(OPERATION_BN_FINALIZE_EPSILON_DESC));
        f->exp_avg_factor = tix(B, ATTR(OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC));
        if (f->mode == CUDNN_BN_FINALIZE_STATISTICS_TRAINING) {
            RETURN_IF_ERROR(need(B, ATTR(OPERATION_BN_FINALIZE_Y_SUM_DESC)));
            RETURN_IF_ERROR(need(B, ATTR(OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC)));
            RETURN_IF_ERROR(need(B, ATTR(OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC)));
        }
        RETURN_IF_ERROR(need(B, ATTR(OPERATION_BN_FINALIZE_EPSILON_DESC)));
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR: {
        fdnn_gop_bn_bwd_weights_t *w = &n->u.bn_bwd_weights;
        n->kind = FDNN_GOP_BN_BWD_WEIGHTS;
        fdnn_be_get_enum(op, ATTR(OPERATION_BN_BWD_WEIGHTS_MATH_PREC), &e), w->math_prec = (cudnnDataType_t)e;
        w->mean = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_MEAN_DESC));
        w->inv_std = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_INVSTD_DESC));
        w->bn_scale = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_BN_SCALE_DESC));
        w->x = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_X_DESC)), w->dy = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_DY_DESC));
        w->dbn_scale = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_DBN_SCALE_DESC));
        w->dbn_bias = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_DBN_BIAS_DESC));
        w->eq_dy_scale = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_EQ_DY_SCALE_DESC));
        w->eq_x_scale = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_EQ_X_SCALE_DESC));
        w->eq_bias = tix(B, ATTR(OPERATION_BN_BWD_WEIGHTS_EQ_BIAS));
        return broadcasts_to(B, ATTR(OPERATION_BN_BWD_WEIGHTS_DY_DESC), ATTR(OPERATION_BN_BWD_WEIGHTS_X_DESC));
    }
    case CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR: {
        fdnn_gop_norm_fwd_t *f = &n->u.norm_fwd;
        n->kind = FDNN_GOP_NORM_FWD;
        fdnn_be_get_enum(op, ATTR(OPERATION_NORM_FWD_MODE), &e), f->mode = (cudnnBackendNormMode_t)e;
        fdnn_be_get_enum(op, ATTR(OPERATION_NORM_FWD_PHASE), &e), f->phase = (cudnnBackendNormFwdPhase_t)e;
        if (f->mode < CUDNN_LAYER_NORM || f->mode > CUDNN_GROUP_NORM)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_OPERATION_NORM_FWD_MODE %d", b.dn, (int)f->mode);
        if (f->phase != CUDNN_NORM_FWD_INFERENCE && f->phase != CUDNN_NORM_FWD_TRAINING)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_OPERATION_NORM_FWD_PHASE %d", b.dn, (int)f->phase);
        f->x = tix(B, ATTR(OPERATION_NORM_FWD_XDESC)), f->y = tix(B, ATTR(OPERATION_NORM_FWD_YDESC));
        f->mean = tix(B, ATTR(OPERATION_NORM_FWD_MEAN_DESC));
        f->inv_variance = tix(B, ATTR(OPERATION_NORM_FWD_INV_VARIANCE_DESC));
        f->scale = tix(B, ATTR(OPERATION_NORM_FWD_SCALE_DESC)), f->bias = tix(B, ATTR(OPERATION_NORM_FWD_BIAS_DESC));
        f->epsilon = tix(B, ATTR(OPERATION_NORM_FWD_EPSILON_DESC));
        f->exp_avg_factor = tix(B, ATTR(OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC));
        f->input_running_mean = tix(B, ATTR(OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC));
        f->input_running_var = tix(B, ATTR(OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC));
        f->output_running_mean = tix(B, ATTR(OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC));
        f->output_running_var = tix(B, ATTR(OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC));
        peers(B, ATTR(OPERATION_NORM_FWD_PEER_STAT_DESCS), &f->npeer, f->peer_stats);
        return broadcasts_to(B, ATTR(OPERATION_NORM_FWD_XDESC), ATTR(OPERATION_NORM_FWD_YDESC));
    }
    case CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR: {
        fdnn_gop_norm_bwd_t *f = &n->u.norm_bwd;
        n->kind = FDNN_GOP_NORM_BWD;
        fdnn_be_get_enum(op, ATTR(OPERATION_NORM_BWD_MODE), &e), f->mode = (cudnnBackendNormMode_t)e;
        if (f->mode < CUDNN_LAYER_NORM || f->mode > CUDNN_GROUP_NORM)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_OPERATION_NORM_BWD_MODE %d", b.dn, (int)f->mode);
        f->x = tix(B, ATTR(OPERATION_NORM_BWD_XDESC)), f->dy = tix(B, ATTR(OPERATION_NORM_BWD_DYDESC));
        f->mean = tix(B, ATTR(OPERATION_NORM_BWD_MEAN_DESC));
        f->inv_variance = tix(B, ATTR(OPERATION_NORM_BWD_INV_VARIANCE_DESC));
        f->scale = tix(B, ATTR(OPERATION_NORM_BWD_SCALE_DESC)), f->epsilon = tix(B, ATTR(OPERATION_NORM_BWD_EPSILON_DESC));
        f->dscale = tix(B, ATTR(OPERATION_NORM_BWD_DSCALE_DESC)), f->dbias = tix(B, ATTR(OPERATION_NORM_BWD_DBIAS_DESC));
        f->dx = tix(B, ATTR(OPERATION_NORM_BWD_DXDESC));
        peers(B, ATTR(OPERATION_NORM_BWD_PEER_STAT_DESCS), &f->npeer, f->peer_stats);
        RETURN_IF_ERROR(broadcasts_to(B, ATTR(OPERATION_NORM_BWD_DYDESC), ATTR(OPERATION_NORM_BWD_XDESC)));
        return broadcasts_to(B, ATTR(OPERATION_NORM_BWD_DXDESC), ATTR(OPERATION_NORM_BWD_XDESC));
    }
    case CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR: n->kind = FDNN_GOP_RESAMPLE_FWD; return build_resample(B, n, true);
    case CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR:
        n->kind = FDNN_GOP_RESAMPLE_BWD;
        return build_resample(B, n, false);
    case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: {
        n->kind = FDNN_GOP_RESHAPE;
        n->u.reshape.x = tix(B, ATTR(OPERATION_RESHAPE_XDESC)), n->u.reshape.y = tix(B, ATTR(OPERATION_RESHAPE_YDESC));
        const fdnn_graph_tensor_t *x = tensor(B, ATTR(OPERATION_RESHAPE_XDESC)),
                                  *y = tensor(B, ATTR(OPERATION_RESHAPE_YDESC));
        if (elements(x) != elements(y))
            return FDNN_BAD_PARAM("%s: XDESC has %lld elements, YDESC %lld", b.dn, (long long)elements(x),
                                  (long long)elements(y));
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR: n->kind = FDNN_GOP_CONCAT; return build_concat(B, n);
    case CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR: {
        fdnn_gop_rng_t *r = &n->u.rng;
        n->kind = FDNN_GOP_RNG;
        const fdnn_be_desc_t *rd = fdnn_be_get_desc(op, ATTR(OPERATION_RNG_DESC));
        fdnn_be_get_enum(rd, ATTR(RNG_DISTRIBUTION), &e), r->distribution = (cudnnRngDistribution_t)e;
        r->normal_mean = 0, r->normal_stddev = 1, r->uniform_min = 0, r->uniform_max = 1;
        r->bernoulli_probability = 0.5;
        fdnn_be_get_double(rd, ATTR(RNG_NORMAL_DIST_MEAN), &r->normal_mean);
        fdnn_be_get_double(rd, ATTR(RNG_NORMAL_DIST_STANDARD_DEVIATION), &r->normal_stddev);
        fdnn_be_get_double(rd, ATTR(RNG_UNIFORM_DIST_MINIMUM), &r->uniform_min);
        fdnn_be_get_double(rd, ATTR(RNG_UNIFORM_DIST_MAXIMUM), &r->uniform_max);
        fdnn_be_get_double(rd, ATTR(RNG_BERNOULLI_DIST_PROBABILITY), &r->bernoulli_probability);
        r->y = tix(B, ATTR(OPERATION_RNG_YDESC));
        r->seed_tensor = FDNN_GRAPH_NONE, r->seed_value = 0;
        fdnn_be_get_i64(op, ATTR(OPERATION_RNG_SEED), &r->seed_value);
        r->offset = tix(B, ATTR(OPERATION_RNG_OFFSET_DESC));
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR: {
        fdnn_gop_signal_t *s = &n->u.signal;
        n->kind = FDNN_GOP_SIGNAL;
        fdnn_be_get_enum(op, ATTR(OPERATION_SIGNAL_MODE), &e), s->mode = (cudnnSignalMode_t)e;
        if (s->mode != CUDNN_SIGNAL_SET && s->mode != CUDNN_SIGNAL_WAIT)
            return FDNN_BAD_PARAM("%s: CUDNN_ATTR_OPERATION_SIGNAL_MODE %d", b.dn, (int)s->mode);
        s->flag = tix(B, ATTR(OPERATION_SIGNAL_FLAGDESC));
        fdnn_be_get_i64(op, ATTR(OPERATION_SIGNAL_VALUE), &s->value);
        s->x = tix(B, ATTR(OPERATION_SIGNAL_XDESC)), s->y = tix(B, ATTR(OPERATION_SIGNAL_YDESC));
        return CUDNN_STATUS_SUCCESS;
    }
    default: return FDNN_INTERNAL_ERROR("%s is not an operation", b.dn);
    }
}

static int
local_index(void *ctx, const fdnn_be_desc_t *t)
{
    (void)t;
    return (*(int *)ctx)++;
}

cudnnStatus_t
fdnn_be_finalize_operation(fdnn_be_desc_t *d)
{
    int next = 0;
    return fdnn_be_build_node(d, local_index, &next, &d->u.node);
}
