/* SPDX-License-Identifier: Apache-2.0
 * Fused-ops constant and variant parameter packs and plans: label sets per
 * op, scalar and descriptor attributes (descriptors are copied out into the
 * caller's descriptor on get), bad arguments, and a cross-check of every
 * (op, label) pair against NVIDIA's cuDNN 9. */
#include <stdint.h>
#include <string.h>

#include "cudnn9.h"
#include "testutil.h"

#define N_OPS (CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM + 1)

static bool
is_desc_label(int l)
{
    switch (l) {
    case CUDNN_PARAM_XDESC:
    case CUDNN_PARAM_BN_EQSCALEBIAS_DESC:
    case CUDNN_PARAM_ACTIVATION_DESC:
    case CUDNN_PARAM_CONV_DESC:
    case CUDNN_PARAM_WDESC:
    case CUDNN_PARAM_DWDESC:
    case CUDNN_PARAM_YDESC:
    case CUDNN_PARAM_DYDESC:
    case CUDNN_PARAM_YSTATS_DESC:
    case CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC:
    case CUDNN_PARAM_ZDESC:
    case CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC:
    case CUDNN_PARAM_ACTIVATION_BITMASK_DESC:
    case CUDNN_PARAM_DXDESC:
    case CUDNN_PARAM_DZDESC: return true;
    default: return false;
    }
}

static void
test_const_pack(void)
{
    cudnnFusedOpsConstParamPack_t p;
    CHECK_STATUS(cudnnCreateFusedOpsConstParamPack(NULL, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateFusedOpsConstParamPack(&p, (cudnnFusedOps_t)7), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateFusedOpsConstParamPack(&p, (cudnnFusedOps_t)-1), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&p, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS));

    /* Scalars: defaults, set, get, NULL resets, bad values. */
    int v = -1, isnull = -1;
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull));
    CHECK(v == CUDNN_PTR_NULL && isnull == 0);
    cudnnFusedOpsPointerPlaceHolder_t ph = CUDNN_PTR_16B_ALIGNED;
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, &ph));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull));
    CHECK(v == CUDNN_PTR_16B_ALIGNED && isnull == 0);
    ph = (cudnnFusedOpsPointerPlaceHolder_t)3;
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, &ph),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull));
    CHECK(v == CUDNN_PTR_16B_ALIGNED);
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, NULL));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull));
    CHECK(v == CUDNN_PTR_NULL);
    cudnnBatchNormMode_t bm = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_BN_MODE, &bm));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_BN_MODE, &v, &isnull));
    CHECK(v == CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
    bm = (cudnnBatchNormMode_t)3;
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_BN_MODE, &bm), CUDNN_STATUS_BAD_PARAM);

    /* Descriptors: NULL reads as isNULL; content is copied out on get. */
    cudnnTensorDescriptor_t x, x_out;
    CHECK_OK(cudnnCreateTensorDescriptor(&x));
    CHECK_OK(cudnnCreateTensorDescriptor(&x_out));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, x_out, &isnull));
    CHECK(isnull == 1);
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 3, 4, 5));
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, x));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, x_out, &isnull));
    CHECK(isnull == 0);
    cudnnDataType_t dt;
    int n, c, h, w, ns, cs, hs, ws;
    CHECK_OK(cudnnGetTensor4dDescriptor(x_out, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(dt == CUDNN_DATA_HALF && n == 2 && c == 3 && h == 4 && w == 5 && cs == 1);
    /* The pack holds a copy: later changes to x, or destroying it, do not
     * reach the pack. */
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 7, 7, 7, 7));
    cudnnTensorDescriptor_t tmp;
    CHECK_OK(cudnnCreateTensorDescriptor(&tmp));
    CHECK_OK(cudnnSetTensor4dDescriptor(tmp, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 2, 3, 4));
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YDESC, tmp));
    CHECK_OK(cudnnDestroyTensorDescriptor(tmp));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, x_out, &isnull));
    CHECK_OK(cudnnGetTensor4dDescriptor(x_out, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(dt == CUDNN_DATA_HALF && n == 2 && c == 3 && h == 4 && w == 5);
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YDESC, x_out, &isnull));
    CHECK_OK(cudnnGetTensor4dDescriptor(x_out, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(isnull == 0 && dt == CUDNN_DATA_DOUBLE && n == 1 && c == 2 && h == 3 && w == 4);
    /* Wrong descriptor types are refused both ways. */
    cudnnActivationDescriptor_t act;
    CHECK_OK(cudnnCreateActivationDescriptor(&act));
    CHECK_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_PROPAGATE_NAN, 6.0));
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, act), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, act, &isnull), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_ACTIVATION_DESC, act));
    cudnnActivationDescriptor_t act_out;
    CHECK_OK(cudnnCreateActivationDescriptor(&act_out));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_ACTIVATION_DESC, act_out, &isnull));
    cudnnActivationMode_t am;
    cudnnNanPropagation_t an;
    double coef = 0;
    CHECK_OK(cudnnGetActivationDescriptor(act_out, &am, &an, &coef));
    CHECK(isnull == 0 && am == CUDNN_ACTIVATION_CLIPPED_RELU && an == CUDNN_PROPAGATE_NAN && coef == 6.0);
    /* Convolution and filter descriptors. */
    cudnnConvolutionDescriptor_t conv, conv_out;
    CHECK_OK(cudnnCreateConvolutionDescriptor(&conv));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&conv_out));
    CHECK_OK(cudnnSetConvolution2dDescriptor(conv, 1, 2, 3, 4, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_CONV_DESC, conv));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_CONV_DESC, conv_out, &isnull));
    int ph2, pw2, u, vv, d1, d2;
    cudnnConvolutionMode_t cm;
    cudnnDataType_t ct;
    CHECK_OK(cudnnGetConvolution2dDescriptor(conv_out, &ph2, &pw2, &u, &vv, &d1, &d2, &cm, &ct));
    CHECK(ph2 == 1 && pw2 == 2 && u == 3 && vv == 4 && cm == CUDNN_CROSS_CORRELATION);
    cudnnFilterDescriptor_t wd, wd_out;
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateFilterDescriptor(&wd_out));
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 8, 3, 3, 3));
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_WDESC, wd));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_WDESC, wd_out, &isnull));
    int k;
    cudnnTensorFormat_t fmt;
    CHECK_OK(cudnnGetFilter4dDescriptor(wd_out, &dt, &fmt, &k, &c, &h, &w));
    CHECK(k == 8 && c == 3 && h == 3 && w == 3);
    /* Setting NULL clears a descriptor label. */
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, NULL));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, x_out, &isnull));
    CHECK(isnull == 1);

    /* Labels of other ops and bad pointers. */
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_DWDESC, wd), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, (cudnnFusedOpsConstParamLabel_t)39, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, (cudnnFusedOpsConstParamLabel_t)-1, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, NULL, &isnull),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, &v, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(NULL, CUDNN_PARAM_XDESC, x), CUDNN_STATUS_BAD_PARAM);

    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(p));
    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(NULL));
    CHECK_OK(cudnnDestroyTensorDescriptor(x));
    CHECK_OK(cudnnDestroyTensorDescriptor(x_out));
    CHECK_OK(cudnnDestroyActivationDescriptor(act));
    CHECK_OK(cudnnDestroyActivationDescriptor(act_out));
    CHECK_OK(cudnnDestroyConvolutionDescriptor(conv));
    CHECK_OK(cudnnDestroyConvolutionDescriptor(conv_out));
    CHECK_OK(cudnnDestroyFilterDescriptor(wd));
    CHECK_OK(cudnnDestroyFilterDescriptor(wd_out));
}

static void
test_variant_pack_and_plan(void)
{
    cudnnFusedOpsVariantParamPack_t p;
    CHECK_STATUS(cudnnCreateFusedOpsVariantParamPack(&p, (cudnnFusedOps_t)7), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateFusedOpsVariantParamPack(NULL, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&p, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING));
    void *ptr = (void *)1;
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(p, CUDNN_PTR_BN_SCALE, &ptr));
    CHECK(ptr == NULL);
    float buf[4];
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(p, CUDNN_PTR_BN_SCALE, buf));
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(p, CUDNN_PTR_BN_SCALE, &ptr));
    CHECK(ptr == buf);
    size_t ws = 4096, ws_out = 0;
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(p, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws));
    ws = 1; /* copied, not referenced */
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(p, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws_out));
    CHECK(ws_out == 4096);
    int64_t cnt = 77, cnt_out = 0;
    double eps = 1e-5, eps_out = 0, f = 0.1, f_out = 0;
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(p, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &cnt));
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(p, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps));
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(p, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &f));
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(p, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &cnt_out));
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(p, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps_out));
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(p, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &f_out));
    CHECK(cnt_out == 77 && eps_out == 1e-5 && f_out == 0.1);
    CHECK_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(p, CUDNN_PTR_XDATA, buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(p, (cudnnFusedOpsVariantParamLabel_t)99, buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(p, (cudnnFusedOpsVariantParamLabel_t)104, buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsVariantParamPackAttribute(p, CUDNN_PTR_BN_SCALE, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(NULL, CUDNN_PTR_BN_SCALE, buf), CUDNN_STATUS_BAD_PARAM);

    cudnnFusedOpsPlan_t plan;
    CHECK_STATUS(cudnnCreateFusedOpsPlan(NULL, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateFusedOpsPlan(&plan, (cudnnFusedOps_t)9), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateFusedOpsPlan(&plan, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING));
    /* An empty pack: its BN mode is the default PER_ACTIVATION, which the
     * fused ops refuse; a plan that was never made does not run
     * (test_fusedops_exec covers the working cases). */
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    cudnnFusedOpsConstParamPack_t cp;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&cp, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING));
    size_t wsz = 0;
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, cp, &wsz), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, p), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(cp));
    CHECK_OK(cudnnDestroy(h));
    CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
    CHECK_OK(cudnnDestroyFusedOpsPlan(NULL));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(p));
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(NULL));
}

/* ---- cuDNN 9 cross-check --------------------------------------------------- */

typedef int (*c9_create_fn)(void **, cudnnFusedOps_t);
typedef int (*c9_destroy_fn)(void *);
typedef int (*c9_cset_fn)(void *, cudnnFusedOpsConstParamLabel_t, const void *);
typedef int (*c9_cget_fn)(void *, cudnnFusedOpsConstParamLabel_t, void *, int *);
typedef int (*c9_vset_fn)(void *, cudnnFusedOpsVariantParamLabel_t, void *);
typedef int (*c9_vget_fn)(void *, cudnnFusedOpsVariantParamLabel_t, void *);

static void
cross_check(void)
{
    c9_create_fn cc = (c9_create_fn)fdnn_cudnn9_sym("cudnnCreateFusedOpsConstParamPack");
    c9_destroy_fn cd = (c9_destroy_fn)fdnn_cudnn9_sym("cudnnDestroyFusedOpsConstParamPack");
    c9_cset_fn cs = (c9_cset_fn)fdnn_cudnn9_sym("cudnnSetFusedOpsConstParamPackAttribute");
    c9_cget_fn cg = (c9_cget_fn)fdnn_cudnn9_sym("cudnnGetFusedOpsConstParamPackAttribute");
    c9_create_fn vc = (c9_create_fn)fdnn_cudnn9_sym("cudnnCreateFusedOpsVariantParamPack");
    c9_destroy_fn vd = (c9_destroy_fn)fdnn_cudnn9_sym("cudnnDestroyFusedOpsVariantParamPack");
    c9_vset_fn vs = (c9_vset_fn)fdnn_cudnn9_sym("cudnnSetFusedOpsVariantParamPackAttribute");
    c9_vget_fn vg = (c9_vget_fn)fdnn_cudnn9_sym("cudnnGetFusedOpsVariantParamPackAttribute");
    c9_create_fn pc = (c9_create_fn)fdnn_cudnn9_sym("cudnnCreateFusedOpsPlan");
    c9_destroy_fn pd = (c9_destroy_fn)fdnn_cudnn9_sym("cudnnDestroyFusedOpsPlan");
    if (!cc || !cd || !cs || !cg || !vc || !vd || !vs || !vg || !pc || !pd) {
        printf("cuDNN 9 not found: fused-ops cross-check skipped\n");
        return;
    }
    for (int op = -1; op <= N_OPS; op++) {
        void *c9 = NULL, *v9 = NULL, *p9 = NULL;
        cudnnFusedOpsConstParamPack_t cp = NULL;
        cudnnFusedOpsVariantParamPack_t vp = NULL;
        cudnnFusedOpsPlan_t plan = NULL;
        cudnnStatus_t a = cudnnCreateFusedOpsConstParamPack(&cp, (cudnnFusedOps_t)op);
        CHECK_MSG(a == fdnn_cudnn9_category(cc(&c9, (cudnnFusedOps_t)op)), "const pack create op %d", op);
        cudnnStatus_t b = cudnnCreateFusedOpsVariantParamPack(&vp, (cudnnFusedOps_t)op);
        CHECK_MSG(b == fdnn_cudnn9_category(vc(&v9, (cudnnFusedOps_t)op)), "variant pack create op %d", op);
        cudnnStatus_t c = cudnnCreateFusedOpsPlan(&plan, (cudnnFusedOps_t)op);
        CHECK_MSG(c == fdnn_cudnn9_category(pc(&p9, (cudnnFusedOps_t)op)), "plan create op %d", op);
        if (a != CUDNN_STATUS_SUCCESS)
            continue;
        for (int l = -1; l <= CUDNN_PARAM_BN_DBIAS_PLACEHOLDER + 1; l++) {
            int value = (l == CUDNN_PARAM_BN_MODE) ? CUDNN_BATCHNORM_SPATIAL : CUDNN_PTR_ELEM_ALIGNED;
            const void *param = is_desc_label(l) ? NULL : &value;
            cudnnStatus_t ours = cudnnSetFusedOpsConstParamPackAttribute(cp, (cudnnFusedOpsConstParamLabel_t)l, param);
            cudnnStatus_t theirs = fdnn_cudnn9_category(cs(c9, (cudnnFusedOpsConstParamLabel_t)l, param));
            CHECK_MSG(ours == theirs, "const set op %d label %d: ours %d, cuDNN 9 %d", op, l, ours, theirs);
            /* cuDNN 9's getter fails for every label of op 4
             * (docs/descriptors-adv.md). */
            if (ours != CUDNN_STATUS_SUCCESS || op == CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION)
                continue;
            int v1 = -1, v2 = -1, n1 = -1, n2 = -1;
            void *slot1 = NULL, *slot2 = NULL; /* never written for a NULL descriptor */
            void *out1 = is_desc_label(l) ? (void *)&slot1 : (void *)&v1;
            void *out2 = is_desc_label(l) ? (void *)&slot2 : (void *)&v2;
            cudnnFusedOpsConstParamLabel_t label = (cudnnFusedOpsConstParamLabel_t)l;
            cudnnStatus_t g1 = cudnnGetFusedOpsConstParamPackAttribute(cp, label, out1, &n1);
            cudnnStatus_t g2 = fdnn_cudnn9_category(cg(c9, label, out2, &n2));
            CHECK_MSG(g1 == g2 && v1 == v2 && n1 == n2 && slot1 == slot2,
                      "const get op %d label %d: ours %d (%d, %d), cuDNN 9 %d (%d, %d)", op, l, g1, v1, n1, g2, v2, n2);
        }
        for (int l = -1; l <= 104; l++) {
            if (l > CUDNN_PTR_BN_DBIAS + 1 && l < CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES - 1)
                continue;
            uint64_t scalar = 0x4010000000000000ull; /* 4.0 as a double, a count as an integer */
            cudnnStatus_t ours = cudnnSetFusedOpsVariantParamPackAttribute(vp, (cudnnFusedOpsVariantParamLabel_t)l,
                                                                           &scalar);
            cudnnStatus_t theirs = fdnn_cudnn9_category(vs(v9, (cudnnFusedOpsVariantParamLabel_t)l, &scalar));
            CHECK_MSG(ours == theirs, "variant set op %d label %d: ours %d, cuDNN 9 %d", op, l, ours, theirs);
            /* cuDNN 9's variant getter fails for every label of op 3. */
            if (ours != CUDNN_STATUS_SUCCESS || op == CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE)
                continue;
            uint64_t o1 = 1, o2 = 2;
            cudnnStatus_t g1 = cudnnGetFusedOpsVariantParamPackAttribute(vp, (cudnnFusedOpsVariantParamLabel_t)l, &o1);
            cudnnStatus_t g2 = fdnn_cudnn9_category(vg(v9, (cudnnFusedOpsVariantParamLabel_t)l, &o2));
            CHECK_MSG(g1 == g2 && o1 == o2, "variant get op %d label %d: ours %d (%llx), cuDNN 9 %d (%llx)", op, l,
                      g1, (unsigned long long)o1, g2, (unsigned long long)o2);
        }
        CHECK_OK(cudnnDestroyFusedOpsConstParamPack(cp));
        CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(vp));
        CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
        CHECK(cd(c9) == 0 && vd(v9) == 0 && pd(p9) == 0);
    }
}

int
main(void)
{
    test_const_pack();
    test_variant_pack_and_plan();
    cross_check();
    return fdnn_test_finish("test_fusedops_desc");
}
