// SPDX-License-Identifier: Apache-2.0
// The fused-ops API from C++ as a client program uses it (public headers
// and libcudnn.so.8 only, built with -Wall -Wextra -Werror): BN finalize for
// inference, then scale + bias + ReLU with its bitmask on the result.
#include <cudnn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

int failures = 0;

void
check(bool ok, const char *what)
{
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        failures++;
    }
}

void
ok(cudnnStatus_t st, const char *what)
{
    check(st == CUDNN_STATUS_SUCCESS, what);
}

// Makes a plan for cp and runs vp with a workspace of the size it asks for.
cudnnStatus_t
run(cudnnHandle_t h, cudnnFusedOps_t op, cudnnFusedOpsConstParamPack_t cp, cudnnFusedOpsVariantParamPack_t vp)
{
    cudnnFusedOpsPlan_t plan = nullptr;
    ok(cudnnCreateFusedOpsPlan(&plan, op), "create plan");
    size_t bytes = 0;
    cudnnStatus_t st = cudnnMakeFusedOpsPlan(h, plan, cp, &bytes);
    std::vector<unsigned char> ws(bytes + 16);
    if (st == CUDNN_STATUS_SUCCESS) {
        ok(cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_WORKSPACE, ws.data()), "set workspace");
        ok(cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &bytes),
           "set workspace size");
        st = cudnnFusedOpsExecute(h, plan, vp);
    }
    ok(cudnnDestroyFusedOpsPlan(plan), "destroy plan");
    return st;
}

} // namespace

int
main()
{
    const int N = 2, C = 3, H = 2, W = 2;
    cudnnHandle_t h = nullptr;
    ok(cudnnCreate(&h), "cudnnCreate");
    cudnnTensorDescriptor_t xD = nullptr, pD = nullptr, mD = nullptr;
    ok(cudnnCreateTensorDescriptor(&xD), "create x");
    ok(cudnnSetTensor4dDescriptor(xD, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, C, H, W), "set x");
    ok(cudnnCreateTensorDescriptor(&pD), "create param");
    ok(cudnnSetTensor4dDescriptor(pD, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, C, 1, 1), "set param");
    ok(cudnnCreateTensorDescriptor(&mD), "create mask");
    ok(cudnnSetTensor4dDescriptor(mD, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT32, N, 1, H, W), "set mask");
    cudnnActivationDescriptor_t aD = nullptr;
    ok(cudnnCreateActivationDescriptor(&aD), "create act");
    ok(cudnnSetActivationDescriptor(aD, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0), "set act");
    const cudnnFusedOpsPointerPlaceHolder_t elem = CUDNN_PTR_ELEM_ALIGNED;
    const cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;

    // BN finalize (inference): eqscale = scale / sqrt(var + eps), eqbias = bias - mean * eqscale.
    std::vector<float> scale = {1.0f, 2.0f, 0.5f}, bias = {0.0f, 1.0f, -1.0f}, mean = {1.0f, 0.0f, 2.0f},
                       var = {3.0f, 0.0f, 15.0f}, eqs(C, NAN), eqb(C, NAN);
    double eps = 1.0;
    cudnnFusedOpsConstParamPack_t cf = nullptr;
    ok(cudnnCreateFusedOpsConstParamPack(&cf, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE), "create cf");
    ok(cudnnSetFusedOpsConstParamPackAttribute(cf, CUDNN_PARAM_BN_MODE, &mode), "mode");
    ok(cudnnSetFusedOpsConstParamPackAttribute(cf, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, pD), "param desc");
    ok(cudnnSetFusedOpsConstParamPackAttribute(cf, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, pD), "eq desc");
    const cudnnFusedOpsConstParamLabel_t phs[] = {
        CUDNN_PARAM_BN_SCALE_PLACEHOLDER,        CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
        CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER,
        CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,      CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER};
    for (cudnnFusedOpsConstParamLabel_t l : phs)
        ok(cudnnSetFusedOpsConstParamPackAttribute(cf, l, &elem), "placeholder");
    cudnnFusedOpsVariantParamPack_t vf = nullptr;
    ok(cudnnCreateFusedOpsVariantParamPack(&vf, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE), "create vf");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vf, CUDNN_PTR_BN_SCALE, scale.data()), "scale");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vf, CUDNN_PTR_BN_BIAS, bias.data()), "bias");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vf, CUDNN_PTR_BN_RUNNING_MEAN, mean.data()), "mean");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vf, CUDNN_PTR_BN_RUNNING_VAR, var.data()), "var");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vf, CUDNN_PTR_BN_EQSCALE, eqs.data()), "eqscale");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vf, CUDNN_PTR_BN_EQBIAS, eqb.data()), "eqbias");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vf, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps), "epsilon");
    ok(run(h, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE, cf, vf), "finalize inference");
    // Exact: 1/sqrt(4) = 0.5, 2/sqrt(1) = 2, 0.5/sqrt(16) = 0.125.
    check(eqs[0] == 0.5f && eqs[1] == 2.0f && eqs[2] == 0.125f, "eqscale values");
    check(eqb[0] == -0.5f && eqb[1] == 1.0f && eqb[2] == -1.25f, "eqbias values");

    // y = relu(x * eqscale + eqbias) with its bitmask, NHWC.
    std::vector<float> x(N * C * H * W), y(x.size(), NAN);
    for (size_t i = 0; i < x.size(); i++)
        x[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
    std::vector<uint32_t> mask(N * H * W, 0xdeadbeefu);
    cudnnFusedOpsConstParamPack_t cg = nullptr;
    ok(cudnnCreateFusedOpsConstParamPack(&cg, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), "create cg");
    ok(cudnnSetFusedOpsConstParamPackAttribute(cg, CUDNN_PARAM_XDESC, xD), "x desc");
    ok(cudnnSetFusedOpsConstParamPackAttribute(cg, CUDNN_PARAM_YDESC, xD), "y desc");
    ok(cudnnSetFusedOpsConstParamPackAttribute(cg, CUDNN_PARAM_BN_MODE, &mode), "mode");
    ok(cudnnSetFusedOpsConstParamPackAttribute(cg, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, pD), "eq desc");
    ok(cudnnSetFusedOpsConstParamPackAttribute(cg, CUDNN_PARAM_ACTIVATION_DESC, aD), "act desc");
    ok(cudnnSetFusedOpsConstParamPackAttribute(cg, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, mD), "mask desc");
    const cudnnFusedOpsConstParamLabel_t gphs[] = {
        CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,
        CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER};
    for (cudnnFusedOpsConstParamLabel_t l : gphs)
        ok(cudnnSetFusedOpsConstParamPackAttribute(cg, l, &elem), "placeholder");
    cudnnFusedOpsVariantParamPack_t vg = nullptr;
    ok(cudnnCreateFusedOpsVariantParamPack(&vg, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK), "create vg");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vg, CUDNN_PTR_XDATA, x.data()), "x");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vg, CUDNN_PTR_YDATA, y.data()), "y");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vg, CUDNN_PTR_BN_EQSCALE, eqs.data()), "eqscale");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vg, CUDNN_PTR_BN_EQBIAS, eqb.data()), "eqbias");
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vg, CUDNN_PTR_ACTIVATION_BITMASK, mask.data()), "mask");
    ok(run(h, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, cg, vg), "gen bitmask");
    for (int p = 0; p < N * H * W; p++) {
        uint32_t want = 0;
        for (int c = 0; c < C; c++) {
            size_t i = static_cast<size_t>(p) * C + c; // NHWC
            float v = x[i] * eqs[c] + eqb[c];
            check(y[i] == (v > 0 ? v : 0.0f), "y value");
            want |= (v > 0 ? 1u : 0u) << c;
        }
        check(mask[p] == want, "mask word");
    }

    // A required pointer left out is refused with BAD_PARAM.
    ok(cudnnSetFusedOpsVariantParamPackAttribute(vg, CUDNN_PTR_YDATA, nullptr), "unset y");
    check(run(h, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, cg, vg) == CUDNN_STATUS_BAD_PARAM, "y missing");

    ok(cudnnDestroyFusedOpsConstParamPack(cf), "destroy cf");
    ok(cudnnDestroyFusedOpsConstParamPack(cg), "destroy cg");
    ok(cudnnDestroyFusedOpsVariantParamPack(vf), "destroy vf");
    ok(cudnnDestroyFusedOpsVariantParamPack(vg), "destroy vg");
    ok(cudnnDestroyActivationDescriptor(aD), "destroy act");
    ok(cudnnDestroyTensorDescriptor(xD), "destroy x");
    ok(cudnnDestroyTensorDescriptor(pD), "destroy p");
    ok(cudnnDestroyTensorDescriptor(mD), "destroy m");
    ok(cudnnDestroy(h), "cudnnDestroy");
    std::printf("test_fusedops_cpp: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures == 0 ? 0 : 1;
}
