/* SPDX-License-Identifier: Apache-2.0
 * Set-then-get round trips: for every descriptor type a caller builds, every
 * attribute is set (recorded by test_backend_build.h), the descriptor
 * finalized, and every attribute read back with a count query and a full
 * read and compared byte for byte.  The engine-side types (ENGINE,
 * ENGINECFG, ENGINEHEUR, EXECUTION_PLAN) are in test_backend_exec; the
 * three filled-in-by-the-library types are refused a set and a finalize. */
#include <string.h>

#include "test_backend_build.h"

#define REF(d, a, r, t) be_set_ref(d, CUDNN_ATTR_##a, r, CUDNN_BACKEND_##t##_DESCRIPTOR)
#define TREF(d, a, r) REF(d, a, r, TENSOR)

static bd_t
ten(int64_t uid, int64_t n, int64_t c, int64_t h, int64_t w)
{
    int64_t d[4] = {n, c, h, w};
    return be_tensor(uid, 4, d, false);
}

static void
finish(bd_t d)
{
    CHECK_OK(cudnnBackendFinalize(d));
    be_check_roundtrip(d);
}

static void
put_scalar(bd_t d, cudnnBackendAttributeName_t a, double v)
{
    be_set(d, a, CUDNN_TYPE_DOUBLE, 1, &v);
}

static void
put_float(bd_t d, cudnnBackendAttributeName_t a, float v)
{
    be_set(d, a, CUDNN_TYPE_FLOAT, 1, &v);
}

int
main(void)
{
    cudnnHandle_t h = NULL;
    CHECK_OK(cudnnCreate(&h));
    bd_t keep[256];
    int nk = 0;
#define KEEP(x) (keep[nk++] = (x))

    /* TENSOR, every attribute */
    bd_t rag = KEEP(ten(900, 3, 1, 1, 1));
    bd_t t = KEEP(be_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR));
    int64_t dims[4] = {2, 8, 3, 3}, strides[4] = {72, 9, 3, 1};
    be_set_enum(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_BFLOAT16);
    be_set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    be_set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    be_set_i64(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, 0xD0D0CACALL);
    be_set_i64(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 16);
    be_set_i64(t, CUDNN_ATTR_TENSOR_VECTOR_COUNT, 1);
    be_set_i64(t, CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, 1);
    bool f = false;
    be_set(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &f);
    be_set(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &f);
    be_set_enum(t, CUDNN_ATTR_TENSOR_REORDERING_MODE, CUDNN_TYPE_TENSOR_REORDERING_MODE, CUDNN_TENSOR_REORDERING_NONE);
    TREF(t, TENSOR_RAGGED_OFFSET_DESC, rag);
    finish(t);

    /* POINTWISE */
    bd_t pw = KEEP(be_create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR));
    be_set_enum(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, CUDNN_POINTWISE_RELU_FWD);
    be_set_enum(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    be_set_enum(pw, CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION, CUDNN_PROPAGATE_NAN);
    put_scalar(pw, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, -0.5);
    put_scalar(pw, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, 6.0);
    put_float(pw, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, 0.125f);
    put_scalar(pw, CUDNN_ATTR_POINTWISE_ELU_ALPHA, 1.5);
    put_scalar(pw, CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, 2.0);
    put_scalar(pw, CUDNN_ATTR_POINTWISE_SWISH_BETA, 1.25);
    be_set_i64(pw, CUDNN_ATTR_POINTWISE_AXIS, 1);
    finish(pw);

    /* CONVOLUTION (the helper records every attribute) */
    bd_t conv = KEEP(be_conv_desc(2, 1, 1, 1));
    be_check_roundtrip(conv);

    /* MATMUL, REDUCTION, RESAMPLE, RNG, KNOB_CHOICE */
    bd_t mm = KEEP(be_create(CUDNN_BACKEND_MATMUL_DESCRIPTOR));
    be_set_enum(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    put_scalar(mm, CUDNN_ATTR_MATMUL_PADDING_VALUE, -3.0);
    finish(mm);
    bd_t red = KEEP(be_create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR));
    be_set_enum(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, CUDNN_REDUCE_TENSOR_MAX);
    be_set_enum(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    finish(red);
    bd_t rs = KEEP(be_create(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR));
    int64_t win[2] = {2, 2}, zero[2] = {0, 0};
    cudnnFraction_t fr[2] = {{2, 1}, {4, 2}};
    be_set_enum(rs, CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, CUDNN_RESAMPLE_MAXPOOL);
    be_set_enum(rs, CUDNN_ATTR_RESAMPLE_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    be_set_i64(rs, CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, 2);
    be_set(rs, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_INT64, 2, win);
    be_set(rs, CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_FRACTION, 2, fr); /* integral fractions */
    be_set(rs, CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, zero);
    be_set(rs, CUDNN_ATTR_RESAMPLE_POST_PADDINGS, CUDNN_TYPE_INT64, 2, zero);
    be_set_enum(rs, CUDNN_ATTR_RESAMPLE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION, CUDNN_NOT_PROPAGATE_NAN);
    be_set_enum(rs, CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_TYPE_PADDING_MODE, CUDNN_NEG_INF_PAD);
    finish(rs);
    bd_t rng = KEEP(be_create(CUDNN_BACKEND_RNG_DESCRIPTOR));
    be_set_enum(rng, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, CUDNN_RNG_DISTRIBUTION_BERNOULLI);
    put_scalar(rng, CUDNN_ATTR_RNG_NORMAL_DIST_MEAN, 0.5);
    put_scalar(rng, CUDNN_ATTR_RNG_NORMAL_DIST_STANDARD_DEVIATION, 2.0);
    put_scalar(rng, CUDNN_ATTR_RNG_UNIFORM_DIST_MAXIMUM, 3.0);
    put_scalar(rng, CUDNN_ATTR_RNG_UNIFORM_DIST_MINIMUM, -3.0);
    put_scalar(rng, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, 0.25);
    finish(rng);
    bd_t kc = KEEP(be_create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR));
    be_set_enum(kc, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, CUDNN_KNOB_TYPE_TILE_SIZE);
    be_set_i64(kc, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, 3);
    finish(kc);

    /* the three convolution operations, x [2,4,8,8], w [6,4,3,3], y [2,6,8,8] */
    bd_t x = KEEP(ten(1, 2, 4, 8, 8)), w = KEEP(ten(2, 6, 4, 3, 3)), y = KEEP(ten(3, 2, 6, 8, 8));
    bd_t cf = KEEP(be_conv_fwd(x, w, y, conv, true));
    be_check_roundtrip(cf);
    bd_t cbd = KEEP(be_create(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR));
    TREF(cbd, OPERATION_CONVOLUTION_BWD_DATA_DX, x);
    TREF(cbd, OPERATION_CONVOLUTION_BWD_DATA_W, w);
    TREF(cbd, OPERATION_CONVOLUTION_BWD_DATA_DY, y);
    REF(cbd, OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, conv, CONVOLUTION);
    put_scalar(cbd, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, 1.0);
    put_scalar(cbd, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, 0.5);
    finish(cbd);
    bd_t cbf = KEEP(be_create(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR));
    TREF(cbf, OPERATION_CONVOLUTION_BWD_FILTER_X, x);
    TREF(cbf, OPERATION_CONVOLUTION_BWD_FILTER_DW, w);
    TREF(cbf, OPERATION_CONVOLUTION_BWD_FILTER_DY, y);
    REF(cbf, OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, conv, CONVOLUTION);
    put_float(cbf, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, 2.0f);
    put_float(cbf, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, 0.0f);
    finish(cbf);

    /* POINTWISE operation with every operand (BINARY_SELECT: x, b, t) */
    bd_t sel = KEEP(be_pw_desc(CUDNN_POINTWISE_BINARY_SELECT));
    bd_t b = KEEP(ten(4, 1, 4, 1, 1)), tt = KEEP(ten(5, 2, 4, 8, 8)), yy = KEEP(ten(6, 2, 4, 8, 8));
    bd_t po = KEEP(be_create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR));
    REF(po, OPERATION_POINTWISE_PW_DESCRIPTOR, sel, POINTWISE);
    TREF(po, OPERATION_POINTWISE_XDESC, x);
    TREF(po, OPERATION_POINTWISE_BDESC, b);
    TREF(po, OPERATION_POINTWISE_TDESC, tt);
    TREF(po, OPERATION_POINTWISE_YDESC, yy);
    put_scalar(po, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, 1.0);
    put_float(po, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, 0.5f);
    finish(po);
    /* and a backward mode: x, dy -> dx */
    bd_t rbwd = KEEP(be_pw_desc(CUDNN_POINTWISE_RELU_BWD));
    bd_t pb = KEEP(be_create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR));
    REF(pb, OPERATION_POINTWISE_PW_DESCRIPTOR, rbwd, POINTWISE);
    TREF(pb, OPERATION_POINTWISE_XDESC, x);
    TREF(pb, OPERATION_POINTWISE_DYDESC, tt);
    TREF(pb, OPERATION_POINTWISE_DXDESC, yy);
    finish(pb);

    /* GEN_STATS: per-channel sums of x */
    bd_t sum = KEEP(ten(7, 1, 4, 1, 1)), sq = KEEP(ten(8, 1, 4, 1, 1));
    bd_t gs = KEEP(be_create(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR));
    be_set_enum(gs, CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, CUDNN_GENSTATS_SUM_SQSUM);
    be_set_enum(gs, CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    TREF(gs, OPERATION_GENSTATS_XDESC, x);
    TREF(gs, OPERATION_GENSTATS_SUMDESC, sum);
    TREF(gs, OPERATION_GENSTATS_SQSUMDESC, sq);
    finish(gs);

    /* MATMUL operation with overrides */
    int64_t ad[3] = {2, 4, 5}, bdm[3] = {2, 5, 3}, cd[3] = {2, 4, 3}, od[3] = {2, 1, 1};
    bd_t A = KEEP(be_tensor(20, 3, ad, false)), B = KEEP(be_tensor(21, 3, bdm, false));
    bd_t C = KEEP(be_tensor(22, 3, cd, false));
    bd_t mo = KEEP(be_tensor_full(23, CUDNN_DATA_INT64, 3, od, NULL, false, false));
    bd_t mmo = KEEP(be_create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR));
    TREF(mmo, OPERATION_MATMUL_ADESC, A);
    TREF(mmo, OPERATION_MATMUL_BDESC, B);
    TREF(mmo, OPERATION_MATMUL_CDESC, C);
    REF(mmo, OPERATION_MATMUL_DESC, mm, MATMUL);
    be_set_i64(mmo, CUDNN_ATTR_OPERATION_MATMUL_IRREGULARLY_STRIDED_BATCH_COUNT, 2);
    TREF(mmo, OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, mo);
    TREF(mmo, OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, mo);
    TREF(mmo, OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, mo);
    finish(mmo);

    /* BN_FINALIZE_STATISTICS, every tensor */
    int64_t one[4] = {1, 1, 1, 1};
    bd_t s1 = KEEP(be_tensor(30, 4, one, false));
    bd_t ch[12];
    for (int i = 0; i < 12; i++)
        ch[i] = KEEP(ten(31 + i, 1, 4, 1, 1));
    bd_t bnf = KEEP(be_create(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR));
    be_set_enum(bnf, CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE, CUDNN_TYPE_BN_FINALIZE_STATS_MODE,
                CUDNN_BN_FINALIZE_STATISTICS_TRAINING);
    be_set_enum(bnf, CUDNN_ATTR_OPERATION_BN_FINALIZE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    TREF(bnf, OPERATION_BN_FINALIZE_Y_SUM_DESC, sum);
    TREF(bnf, OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC, sq);
    TREF(bnf, OPERATION_BN_FINALIZE_SCALE_DESC, ch[0]);
    TREF(bnf, OPERATION_BN_FINALIZE_BIAS_DESC, ch[1]);
    TREF(bnf, OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC, ch[2]);
    TREF(bnf, OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC, ch[3]);
    TREF(bnf, OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC, ch[4]);
    TREF(bnf, OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC, ch[5]);
    TREF(bnf, OPERATION_BN_FINALIZE_SAVED_MEAN_DESC, ch[6]);
    TREF(bnf, OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC, ch[7]);
    TREF(bnf, OPERATION_BN_FINALIZE_EQ_SCALE_DESC, ch[8]);
    TREF(bnf, OPERATION_BN_FINALIZE_EQ_BIAS_DESC, ch[9]);
    TREF(bnf, OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC, s1);
    TREF(bnf, OPERATION_BN_FINALIZE_EPSILON_DESC, s1);
    TREF(bnf, OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC, s1);
    finish(bnf);

    /* REDUCTION operation: x [2,4,8,8] -> [1,4,1,1] */
    bd_t ro = KEEP(be_create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR));
    TREF(ro, OPERATION_REDUCTION_XDESC, x);
    TREF(ro, OPERATION_REDUCTION_YDESC, sum);
    REF(ro, OPERATION_REDUCTION_DESC, red, REDUCTION);
    finish(ro);

    /* BN_BWD_WEIGHTS */
    bd_t bw = KEEP(be_create(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR));
    be_set_enum(bw, CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_MEAN_DESC, ch[0]);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_INVSTD_DESC, ch[1]);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_BN_SCALE_DESC, ch[2]);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_X_DESC, x);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_DY_DESC, tt);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_DBN_SCALE_DESC, ch[3]);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_DBN_BIAS_DESC, ch[4]);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_EQ_DY_SCALE_DESC, ch[5]);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_EQ_X_SCALE_DESC, ch[6]);
    TREF(bw, OPERATION_BN_BWD_WEIGHTS_EQ_BIAS, ch[7]);
    finish(bw);

    /* RESAMPLE forward and backward: 2x2 max pooling, [2,4,8,8] -> [2,4,4,4] */
    bd_t py = KEEP(ten(50, 2, 4, 4, 4)), pidx = KEEP(be_tensor_full(51, CUDNN_DATA_INT8, 4,
                                                                    (int64_t[]){2, 4, 4, 4}, NULL, false, false));
    bd_t rf = KEEP(be_create(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR));
    TREF(rf, OPERATION_RESAMPLE_FWD_XDESC, x);
    TREF(rf, OPERATION_RESAMPLE_FWD_YDESC, py);
    TREF(rf, OPERATION_RESAMPLE_FWD_IDXDESC, pidx);
    put_scalar(rf, CUDNN_ATTR_OPERATION_RESAMPLE_FWD_ALPHA, 1.0);
    put_scalar(rf, CUDNN_ATTR_OPERATION_RESAMPLE_FWD_BETA, 0.0);
    REF(rf, OPERATION_RESAMPLE_FWD_DESC, rs, RESAMPLE);
    finish(rf);
    bd_t rb = KEEP(be_create(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR));
    TREF(rb, OPERATION_RESAMPLE_BWD_DXDESC, yy);
    TREF(rb, OPERATION_RESAMPLE_BWD_DYDESC, py);
    TREF(rb, OPERATION_RESAMPLE_BWD_IDXDESC, pidx);
    put_scalar(rb, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_ALPHA, 1.0);
    put_scalar(rb, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_BETA, 0.0);
    REF(rb, OPERATION_RESAMPLE_BWD_DESC, rs, RESAMPLE);
    TREF(rb, OPERATION_RESAMPLE_BWD_XDESC, x);
    TREF(rb, OPERATION_RESAMPLE_BWD_YDESC, py);
    finish(rb);

    /* CONCAT: [2,4,8,8] ++ [2,4,8,8] on axis 1 -> [2,8,8,8] */
    bd_t cy = KEEP(ten(60, 2, 8, 8, 8));
    bd_t cc = KEEP(be_create(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR));
    bd_t ins[2] = {x, tt};
    be_set_i64(cc, CUDNN_ATTR_OPERATION_CONCAT_AXIS, 1);
    be_set_full(cc, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, ins,
                CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    be_set_i64(cc, CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, 0);
    TREF(cc, OPERATION_CONCAT_OUTPUT_DESC, cy);
    finish(cc);

    /* SIGNAL */
    bd_t flag = KEEP(be_tensor_full(61, CUDNN_DATA_INT64, 4, one, NULL, false, false));
    bd_t sg = KEEP(be_create(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR));
    be_set_enum(sg, CUDNN_ATTR_OPERATION_SIGNAL_MODE, CUDNN_TYPE_SIGNAL_MODE, CUDNN_SIGNAL_SET);
    TREF(sg, OPERATION_SIGNAL_FLAGDESC, flag);
    be_set_i64(sg, CUDNN_ATTR_OPERATION_SIGNAL_VALUE, 7);
    TREF(sg, OPERATION_SIGNAL_XDESC, x);
    TREF(sg, OPERATION_SIGNAL_YDESC, yy);
    finish(sg);

    /* NORM forward (training) and backward */
    bd_t nf = KEEP(be_create(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR));
    be_set_enum(nf, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_BATCH_NORM);
    be_set_enum(nf, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, CUDNN_NORM_FWD_TRAINING);
    TREF(nf, OPERATION_NORM_FWD_XDESC, x);
    TREF(nf, OPERATION_NORM_FWD_MEAN_DESC, ch[0]);
    TREF(nf, OPERATION_NORM_FWD_INV_VARIANCE_DESC, ch[1]);
    TREF(nf, OPERATION_NORM_FWD_SCALE_DESC, ch[2]);
    TREF(nf, OPERATION_NORM_FWD_BIAS_DESC, ch[3]);
    TREF(nf, OPERATION_NORM_FWD_EPSILON_DESC, s1);
    TREF(nf, OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, s1);
    TREF(nf, OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, ch[4]);
    TREF(nf, OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, ch[5]);
    TREF(nf, OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, ch[6]);
    TREF(nf, OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, ch[7]);
    TREF(nf, OPERATION_NORM_FWD_YDESC, yy);
    bd_t peers[2] = {ch[8], ch[9]};
    be_set_full(nf, CUDNN_ATTR_OPERATION_NORM_FWD_PEER_STAT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, peers,
                CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    finish(nf);
    bd_t nb = KEEP(be_create(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR));
    be_set_enum(nb, CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_LAYER_NORM);
    TREF(nb, OPERATION_NORM_BWD_XDESC, x);
    TREF(nb, OPERATION_NORM_BWD_MEAN_DESC, ch[0]);
    TREF(nb, OPERATION_NORM_BWD_INV_VARIANCE_DESC, ch[1]);
    TREF(nb, OPERATION_NORM_BWD_DYDESC, tt);
    TREF(nb, OPERATION_NORM_BWD_SCALE_DESC, ch[2]);
    TREF(nb, OPERATION_NORM_BWD_EPSILON_DESC, s1);
    TREF(nb, OPERATION_NORM_BWD_DSCALE_DESC, ch[3]);
    TREF(nb, OPERATION_NORM_BWD_DBIAS_DESC, ch[4]);
    TREF(nb, OPERATION_NORM_BWD_DXDESC, yy);
    be_set_full(nb, CUDNN_ATTR_OPERATION_NORM_BWD_PEER_STAT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, peers,
                CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    finish(nb);

    /* RESHAPE, RNG operation */
    int64_t flat[2] = {2, 256};
    bd_t xf = KEEP(be_tensor(70, 2, flat, false));
    bd_t rsh = KEEP(be_create(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR));
    TREF(rsh, OPERATION_RESHAPE_XDESC, x);
    TREF(rsh, OPERATION_RESHAPE_YDESC, xf);
    finish(rsh);
    bd_t off = KEEP(be_tensor_full(71, CUDNN_DATA_INT64, 4, one, NULL, false, false));
    bd_t ropn = KEEP(be_create(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR));
    TREF(ropn, OPERATION_RNG_YDESC, yy);
    be_set_i64(ropn, CUDNN_ATTR_OPERATION_RNG_SEED, 1234);
    REF(ropn, OPERATION_RNG_DESC, rng, RNG);
    TREF(ropn, OPERATION_RNG_OFFSET_DESC, off);
    finish(ropn);

    /* VARIANT_PACK */
    bd_t vp = KEEP(be_create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR));
    int64_t uids[3] = {1, 2, 3};
    float buf[4];
    void *ptrs[3] = {buf, buf + 1, buf + 2}, *wsp = buf + 3;
    be_set(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    be_set(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
    be_set(vp, CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES, CUDNN_TYPE_VOID_PTR, 1, &wsp);
    be_set(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &wsp);
    finish(vp);
    bd_t vp2 = KEEP(be_create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR));
    int64_t dupl[2] = {4, 4};
    CHECK_OK(cudnnBackendSetAttribute(vp2, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 2, dupl));
    CHECK_OK(cudnnBackendSetAttribute(vp2, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 2, ptrs));
    CHECK_STATUS(cudnnBackendFinalize(vp2), CUDNN_STATUS_BAD_PARAM); /* a uid twice */

    /* the graph of several of them */
    bd_t ops[3] = {cf, gs, rsh};
    bd_t g = KEEP(be_graph(h, ops, 3, NULL));
    be_check_roundtrip(g);

    /* the library fills these: no set, no finalize */
    cudnnBackendDescriptorType_t info[3] = {CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR,
                                            CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR};
    for (int i = 0; i < 3; i++) {
        bd_t d = be_create(info[i]);
        int64_t v = 1;
        CHECK_STATUS(cudnnBackendSetAttribute(d, i == 0 ? CUDNN_ATTR_KNOB_INFO_STRIDE
                                                  : i == 1 ? CUDNN_ATTR_LAYOUT_INFO_TENSOR_UID
                                                           : CUDNN_ATTR_INTERMEDIATE_INFO_SIZE,
                                              CUDNN_TYPE_INT64, 1, &v),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnBackendFinalize(d), CUDNN_STATUS_BAD_PARAM);
        cudnnBackendDestroyDescriptor(d);
    }

    for (int i = nk - 1; i >= 0; i--)
        CHECK_OK(cudnnBackendDestroyDescriptor(keep[i]));
    cudnnDestroy(h);
    return fdnn_test_finish("test_backend_roundtrip");
}
