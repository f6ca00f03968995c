/* SPDX-License-Identifier: Apache-2.0
 * The activation semantics of the pointwise modes against PyTorch: the
 * values and gradients below were computed by torch in float64 with this
 * script (kept here so the table can be regenerated):
 *
 *   import torch, torch.nn.functional as F
 *   torch.set_default_dtype(torch.float64)
 *   xs = [-4.0, -2.5, -1.0, -0.3, 0.0, 0.2, 0.7, 1.6, 3.0, 6.0]; dy = 0.7
 *   per mode f: y = f(x), dx = autograd.grad(y * dy, x) with
 *     GELU            F.gelu(x)
 *     GELU_APPROX_TANH F.gelu(x, approximate="tanh")
 *     SWISH (beta 1.5) x * torch.sigmoid(1.5 * x)
 *     ELU (alpha 0.75) F.elu(x, alpha=0.75)
 *     SOFTPLUS (beta 1.5) F.softplus(x, beta=1.5)
 *     TANH, SIGMOID   torch.tanh, torch.sigmoid
 *     RELU (lower clip 0, slope 0.125) F.leaky_relu(x, 0.125)
 *     ERF             torch.erf (forward only)
 *
 * Each mode runs alone through the generic engine, FLOAT and DOUBLE math,
 * forward (y from x) and backward (dx from x and dy = 0.7). */
#include "test_graph_engines.h"

static cudnnHandle_t handle;

/* generated with torch 1.13.0a0 */
static const double torch_x[10] = {-4.0, -2.5, -1.0, -0.3, 0.0, 0.2, 0.7, 1.6, 3.0, 6.0};
static const struct torch_case {
    cudnnPointwiseMode_t fwd, bwd;
    double y[10], dx[10];
} torch_cases[] = {
    {CUDNN_POINTWISE_GELU_FWD,
     CUDNN_POINTWISE_GELU_BWD,
     {-0.00012668496733247991, -0.015524163314440398, -0.15865525393145702, -0.11462657334331421, 0,
      0.11585194188782061, 0.53062544344384888, 1.5123211332807074, 2.9959503059051098, 5.9999999940804738},
     {-0.000352554762858495, -0.026327760135701633, -0.058320829411380441, 0.18737056322102308, 0.34999999999999998,
      0.46022777376393587, 0.68362987079356186, 0.78587183065129951, 0.7083619530429287, 0.70000002482809642}},
    {CUDNN_POINTWISE_GELU_APPROX_TANH_FWD,
     CUDNN_POINTWISE_GELU_APPROX_TANH_BWD,
     {-7.0245948192271257e-05, -0.015084266089998577, -0.15880800939172324, -0.11462907645724074, 0,
      0.11585142978210627, 0.53057013470511671, 1.5121369621443617, 2.9963626079182268, 5.9999999999156035},
     {-0.00023458623798553078, -0.026566103348866322, -0.058074858692047759, 0.18739318385283871, 0.34999999999999998,
      0.46022070443698965, 0.68345005305927276, 0.78617035916425138, 0.70810891664167863, 0.70000000053969835}},
    {CUDNN_POINTWISE_SWISH_FWD,
     CUDNN_POINTWISE_SWISH_BWD,
     {-0.0098904926265390974, -0.057443424775064034, -0.18242552380635635, -0.11680822981523339, 0, 0.11488850336233181,
      0.51854242942750772, 1.4669236856097243, 2.9670391721082203, 5.9992596325440823},
     {-0.0086285028140678597, -0.042845543315846162, -0.028905908009400044, 0.19765846386353886, 0.34999999999999998,
      0.45344600722321793, 0.6596826036515181, 0.76988751086136609, 0.72653776378359425, 0.70069091370032865}},
    {CUDNN_POINTWISE_ELU_FWD,
     CUDNN_POINTWISE_ELU_BWD,
     {-0.73626327083344933, -0.68843625103207584, -0.47409041912141825, -0.19438633448871159, 0, 0.20000000000000001,
      0.69999999999999996, 1.6000000000000001, 3, 6},
     {0.0096157104165854428, 0.043094624277546865, 0.1931367066150072, 0.38892956585790184, 0.52499999999999991,
      0.69999999999999996, 0.69999999999999996, 0.69999999999999996, 0.69999999999999996, 0.69999999999999996}},
    {CUDNN_POINTWISE_SOFTPLUS_FWD,
     CUDNN_POINTWISE_SOFTPLUS_BWD,
     {0.0016504567584869664, 0.015496976248283353, 0.13427551865516826, 0.32883263066496993, 0.46209812037329684,
      0.56957016297901808, 0.90003898641176205, 1.6578907681026334, 3.0073651632323961, 6.0000822681264827},
     {0.001730836209644342, 0.016084158937017926, 0.12769786666444941, 0.27255253623554465, 0.34999999999999998,
      0.40210976176816127, 0.51854242942750772, 0.64177911245425434, 0.69230914015858469, 0.69991362379680955}},
    {CUDNN_POINTWISE_TANH_FWD,
     CUDNN_POINTWISE_TANH_BWD,
     {-0.99932929973906703, -0.98661429815143031, -0.76159415595576485, -0.2913126124515909, 0, 0.19737532022490401,
      0.6043677771171635, 0.92166855440647133, 0.99505475368673046, 0.99998771165079559},
     {0.00093866547811814142, 0.018614558678212399, 0.2939820391298183, 0.64059587327864043, 0.69999999999999996,
      0.67273008807628154, 0.44431771298772099, 0.10536895307279977, 0.0069062260158081158, 1.7203583183712081e-05}},
    {CUDNN_POINTWISE_SIGMOID_FWD,
     CUDNN_POINTWISE_SIGMOID_BWD,
     {0.017986209962091559, 0.075858180021243546, 0.2689414213699951, 0.42555748318834102, 0.5, 0.54983399731247795,
      0.66818777216816616, 0.83201838513392445, 0.95257412682243336, 0.99752737684336534},
     {0.012363894349303782, 0.049072601581575705, 0.13762835326903727, 0.17112081818352207, 0.17499999999999999,
      0.17326160089830195, 0.1551990113051763, 0.097834654353142703, 0.031623661811638393, 0.0017265565039519513}},
    {CUDNN_POINTWISE_RELU_FWD,
     CUDNN_POINTWISE_RELU_BWD,
     {-0.5, -0.3125, -0.125, -0.037499999999999999, 0, 0.20000000000000001, 0.69999999999999996, 1.6000000000000001, 3,
      6},
     {0.087499999999999994, 0.087499999999999994, 0.087499999999999994, 0.087499999999999994, 0.087499999999999994,
      0.69999999999999996, 0.69999999999999996, 0.69999999999999996, 0.69999999999999996, 0.69999999999999996}},
    {CUDNN_POINTWISE_ERF,
     (cudnnPointwiseMode_t)-1,
     {-0.99999998458274209, -0.99959304798255499, -0.84270079294971489, -0.32862675945912739, 0, 0.22270258921047847,
      0.67780119383741844, 0.97634838334464402, 0.99997790950300136, 1},
     {8.88876427030659e-08, 0.0015247989612468969, 0.29057524819441627, 0.72188263673327413, 0.78986541696685875,
      0.75889435097340407, 0.48389240228737701, 0.061060341043761714, 9.7477136362723497e-05, 1.8321108674744851e-16}},
};

static void
run_mode(cudnnPointwiseMode_t m, cudnnDataType_t prec, const double *want)
{
    gb_t b;
    gb_init(&b);
    const int64_t d[1] = {10};
    bool bwd = m >= CUDNN_POINTWISE_RELU_BWD;
    int x = gb_tensor(&b, prec, 1, d, false);
    int dy = bwd ? gb_tensor(&b, prec, 1, d, false) : FDNN_GRAPH_NONE;
    int y = gb_tensor(&b, prec, 1, d, false);
    fdnn_gop_pointwise_t *op = gb_pw(&b, m, prec, x, dy, FDNN_GRAPH_NONE, y);
    op->swish_beta = 1.5;
    op->elu_alpha = 0.75;
    op->softplus_beta = 1.5;
    op->relu_lower_clip_slope = 0.125;
    for (int i = 0; i < 10; i++) {
        gb_set(&b, x, i, torch_x[i]);
        if (bwd)
            gb_set(&b, dy, i, 0.7);
    }
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    /* DOUBLE: 1e-11, as torch's own float64 tanh-GELU gradient loses a few
     * digits to 1 - tanh^2 near x = -4 (ours avoids that cancellation) */
    double rel = prec == CUDNN_DATA_DOUBLE ? 1e-11 : 2e-6, abs_tol = prec == CUDNN_DATA_DOUBLE ? 1e-16 : 1e-9;
    int bad = 0;
    for (int i = 0; i < 10; i++) {
        double got = gb_get(&b, y, i);
        if (!(fabs(got - want[i]) <= rel * fabs(want[i]) + abs_tol)) {
            if (bad++ < 3)
                fprintf(stderr, "%s (%s) at x = %g: got %.17g, torch %.17g\n", gx_pw_mode_name(m), gx_dtype_name(prec),
                        torch_x[i], got, want[i]);
        }
    }
    CHECK_MSG(bad == 0, "%s (%s) differs from PyTorch in %d of 10 points", gx_pw_mode_name(m), gx_dtype_name(prec),
              bad);
    gb_free(&b);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    for (size_t i = 0; i < sizeof(torch_cases) / sizeof(torch_cases[0]); i++)
        for (int p = 0; p < 2; p++) {
            cudnnDataType_t prec = p ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
            run_mode(torch_cases[i].fwd, prec, torch_cases[i].y);
            if ((int)torch_cases[i].bwd >= 0)
                run_mode(torch_cases[i].bwd, prec, torch_cases[i].dx);
        }
    cudnnDestroy(handle);
    return fdnn_test_finish("test_graph_torch");
}
