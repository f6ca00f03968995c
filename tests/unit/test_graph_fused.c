/* SPDX-License-Identifier: Apache-2.0
 * The fused-epilogue engine (src/cpu/graph/engine_fused.c) on hand-built
 * graphs:
 *   - conv + bias + ReLU; conv + per-channel scale + bias + residual add +
 *     ReLU (NCHW and NHWC, several image blocks with a short last one);
 *     matmul + bias + GELU (batched, several row panels); a DOUBLE chain
 *     with clamp (RELU_FWD upper clip) and SWISH;
 *   - each against the float64 composition of the ops, and against the
 *     generic engine: bitwise equal (same solver bits per block);
 *   - 1 vs 2 threads bitwise; outputs poisoned;
 *   - the graphs it declines, with their reasons;
 *   - the table: fused first, its notes. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "test_graph_engines.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

/* Runs both engines; checks the fused output equals the generic one bit
 * for bit and returns the fused output as doubles (malloc'd). */
static double *
run_both(gb_t *b, int y)
{
    int64_t n = gb_count(b, y);
    double *gen = malloc(sizeof(double) * (size_t)n), *fus = malloc(sizeof(double) * (size_t)n);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), b));
    for (int64_t i = 0; i < n; i++)
        gen[i] = gb_get(b, y, i);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE), b));
    int diff = 0;
    for (int64_t i = 0; i < n; i++) {
        fus[i] = gb_get(b, y, i);
        diff += memcmp(&fus[i], &gen[i], sizeof(double)) != 0;
    }
    CHECK_MSG(diff == 0, "fused and generic differ in %d of %lld elements", diff, (long long)n);
    free(gen);
    return fus;
}

static int64_t
nchw_index(const int64_t *d, int64_t n, int64_t c, int64_t h, int64_t w)
{
    return ((n * d[1] + c) * d[2] + h) * d[3] + w;
}

/* float64 conv (pad 1, stride 1, 3x3) of flat NCHW-indexed tensors. */
static double
conv_at(const gb_t *b, int x, int w, int64_t n, int64_t k, int64_t p, int64_t q)
{
    const int64_t *xd = b->t[x].dims, *wd = b->t[w].dims;
    double s = 0;
    for (int64_t c = 0; c < xd[1]; c++)
        for (int64_t r = 0; r < wd[2]; r++)
            for (int64_t t = 0; t < wd[3]; t++) {
                int64_t h = p - 1 + r, ww = q - 1 + t;
                if (h < 0 || h >= xd[2] || ww < 0 || ww >= xd[3])
                    continue;
                s += gb_get(b, x, nchw_index(xd, n, c, h, ww)) * gb_get(b, w, nchw_index(wd, k, c, r, t));
            }
    return s;
}

/* conv + [scale] + bias [+ residual] + ReLU. nhwc: x, y, residual stored
 * channels-last. */
static void
test_conv_chain(bool scale_res, bool nhwc, int64_t N, int64_t C, int64_t K, int64_t H)
{
    gb_t b;
    gb_init(&b);
    const int64_t xd[4] = {N, C, H, H}, wd[4] = {K, C, 3, 3}, yd[4] = {N, K, H, H}, cd[4] = {1, K, 1, 1};
    const int64_t xs[4] = {C * H * H, 1, H * C, C}, ys[4] = {K * H * H, 1, H * K, K};
    int x = gb_tensor_s(&b, CUDNN_DATA_FLOAT, 4, xd, nhwc ? xs : NULL, false);
    int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    int v = gb_tensor_s(&b, CUDNN_DATA_FLOAT, 4, yd, nhwc ? ys : NULL, true);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, v, 1, 1);
    int scale = -1, res = -1, cur = v;
    if (scale_res) {
        scale = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
        int v2 = gb_tensor_s(&b, CUDNN_DATA_FLOAT, 4, yd, nhwc ? ys : NULL, true);
        gb_pw(&b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, cur, scale, FDNN_GRAPH_NONE, v2);
        cur = v2;
    }
    int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
    int v3 = gb_tensor_s(&b, CUDNN_DATA_FLOAT, 4, yd, nhwc ? ys : NULL, true);
    /* the chain enters as b here: bias + v */
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, bias, cur, FDNN_GRAPH_NONE, v3);
    cur = v3;
    if (scale_res) {
        res = gb_tensor_s(&b, CUDNN_DATA_FLOAT, 4, yd, nhwc ? ys : NULL, false);
        int v4 = gb_tensor_s(&b, CUDNN_DATA_FLOAT, 4, yd, nhwc ? ys : NULL, true);
        gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, cur, res, FDNN_GRAPH_NONE, v4);
        cur = v4;
    }
    int y = gb_tensor_s(&b, CUDNN_DATA_FLOAT, 4, yd, nhwc ? ys : NULL, false);
    gb_pw(&b, CUDNN_POINTWISE_RELU_FWD, CUDNN_DATA_FLOAT, cur, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    gb_fill(&b, x, &rng, -1, 1);
    gb_fill(&b, w, &rng, -1, 1);
    gb_fill(&b, bias, &rng, -1, 1);
    if (scale_res) {
        gb_fill(&b, scale, &rng, 0.5, 1.5);
        gb_fill(&b, res, &rng, -1, 1);
    }
    CHECK_OK(gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE)->supports(&b.g));
    double *got = run_both(&b, y);
    int bad = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            for (int64_t p = 0; p < H; p++)
                for (int64_t q = 0; q < H; q++) {
                    int64_t i = nchw_index(yd, n, k, p, q);
                    double s = conv_at(&b, x, w, n, k, p, q);
                    if (scale_res)
                        s *= gb_get(&b, scale, k);
                    s += gb_get(&b, bias, k);
                    if (scale_res)
                        s += gb_get(&b, res, i);
                    s = s > 0 ? s : 0;
                    if (!(fabs(got[i] - s) <= 1e-5 * (double)(C * 9) * 0.1 + 1e-6))
                        bad++;
                }
    CHECK_MSG(bad == 0, "conv chain (scale_res %d nhwc %d N %lld): %d wrong", scale_res, nhwc, (long long)N, bad);
    free(got);
    gb_free(&b);
}

/* C[2,M,N] = A[2,M,K] x B[K,N] (broadcast), + bias[1,1,N], GELU. */
static void
test_matmul_chain(int64_t M, int64_t N, int64_t K, cudnnPointwiseMode_t act)
{
    gb_t b;
    gb_init(&b);
    const int64_t ad[3] = {2, M, K}, bd[3] = {1, K, N}, cd[3] = {2, M, N}, biasd[3] = {1, 1, N};
    int a = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, ad, false);
    int bb = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, bd, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, cd, true);
    int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, biasd, false);
    int v2 = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, cd, true);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, cd, false);
    gb_matmul(&b, CUDNN_DATA_FLOAT, a, bb, v);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v, bias, FDNN_GRAPH_NONE, v2);
    gb_pw(&b, act, CUDNN_DATA_FLOAT, v2, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    gb_fill(&b, a, &rng, -1, 1);
    gb_fill(&b, bb, &rng, -1, 1);
    gb_fill(&b, bias, &rng, -1, 1);
    double *got = run_both(&b, y);
    int bad = 0;
    for (int64_t bt = 0; bt < 2; bt++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double s = 0;
                for (int64_t p = 0; p < K; p++)
                    s += gb_get(&b, a, (bt * M + i) * K + p) * gb_get(&b, bb, p * N + j);
                s += gb_get(&b, bias, j);
                s = act == CUDNN_POINTWISE_GELU_FWD
                        ? 0.5 * s * (1 + erf(s / sqrt(2.0)))
                        : 0.5 * s * (1 + tanh(0.7978845608028654 * (s + 0.044715 * s * s * s)));
                if (!(fabs(got[(bt * M + i) * N + j] - s) <= 1e-5 * (double)K * 0.1 + 1e-5))
                    bad++;
            }
    CHECK_MSG(bad == 0, "matmul chain %lldx%lldx%lld: %d wrong", (long long)M, (long long)N, (long long)K, bad);
    free(got);
    gb_free(&b);
}

/* matmul -> MUL per-column scale -> ADD bias -> ADD residual -> GELU: the
 * chain runs in the GEMM's tile hook (fdnn_sgemm_args_t.tile_hook).  Shapes
 * with several column blocks (N past NC), several k blocks (the hook must
 * see only the last) and partial tiles at both edges; 1 and 2 threads
 * bitwise; against float64 and bitwise against the generic engine. */
static void
test_matmul_epilogue(int64_t M, int64_t N, int64_t K)
{
    gb_t b;
    gb_init(&b);
    const int64_t ad[2] = {M, K}, bd[2] = {K, N}, cd[2] = {M, N}, rowd[2] = {1, N};
    int a = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, ad, false);
    int bb = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, bd, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true);
    int scale = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, rowd, false);
    int v2 = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true);
    int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, rowd, false);
    int v3 = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true);
    int res = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, false);
    int v4 = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, false);
    gb_matmul(&b, CUDNN_DATA_FLOAT, a, bb, v);
    gb_pw(&b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, v, scale, FDNN_GRAPH_NONE, v2);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v2, bias, FDNN_GRAPH_NONE, v3);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, res, v3, FDNN_GRAPH_NONE, v4);
    gb_pw(&b, CUDNN_POINTWISE_GELU_FWD, CUDNN_DATA_FLOAT, v4, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    gb_fill(&b, a, &rng, -1, 1);
    gb_fill(&b, bb, &rng, -1, 1);
    gb_fill(&b, scale, &rng, 0.5, 1.5);
    gb_fill(&b, bias, &rng, -1, 1);
    gb_fill(&b, res, &rng, -2, 2);
    double *got = run_both(&b, y);
    int bad = 0;
    double *row = malloc(sizeof(double) * (size_t)N);
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++)
            row[j] = 0;
        for (int64_t p = 0; p < K; p++) {
            double av = gb_get(&b, a, i * K + p);
            const float *brow = (const float *)b.data[bb] + p * N;
            for (int64_t j = 0; j < N; j++)
                row[j] += av * (double)brow[j];
        }
        for (int64_t j = 0; j < N; j++) {
            double s = row[j] * gb_get(&b, scale, j) + gb_get(&b, bias, j) + gb_get(&b, res, i * N + j);
            s = 0.5 * s * (1 + erf(s / sqrt(2.0)));
            if (!(fabs(got[i * N + j] - s) <= 2e-6 * (double)K + 1e-5))
                bad++;
        }
    }
    CHECK_MSG(bad == 0, "matmul epilogue %lldx%lldx%lld: %d wrong", (long long)M, (long long)N, (long long)K, bad);
    size_t bytes = (size_t)(M * N) * 4;
    float *one = malloc(bytes);
    memcpy(one, b.data[y], bytes);
    CHECK_OK(freednnSetNumThreads(handle, 2));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE), &b));
    CHECK_MSG(memcmp(one, b.data[y], bytes) == 0, "matmul epilogue %lldx%lldx%lld: 1 and 2 threads differ",
              (long long)M, (long long)N, (long long)K);
    CHECK_OK(freednnSetNumThreads(handle, 1));
    free(one);
    free(row);
    free(got);
    gb_free(&b);
}

/* DOUBLE: conv -> SWISH -> RELU_FWD with an upper clip (clamp) -> SUB a
 * by-value scalar. */
static void
test_double_chain(void)
{
    gb_t b;
    gb_init(&b);
    const int64_t xd[4] = {3, 4, 7, 7}, wd[4] = {5, 4, 3, 3}, yd[4] = {3, 5, 7, 7};
    int x = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, wd, false);
    int v = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, yd, true);
    int v2 = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, yd, true);
    int v3 = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, yd, true);
    int s = gb_scalar_f32(&b, 0.25f);
    int y = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, yd, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_DOUBLE, x, w, v, 1, 1)->alpha = 0.5;
    gb_pw(&b, CUDNN_POINTWISE_SWISH_FWD, CUDNN_DATA_DOUBLE, v, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, v2)->swish_beta = 1.5;
    fdnn_gop_pointwise_t *clamp =
        gb_pw(&b, CUDNN_POINTWISE_RELU_FWD, CUDNN_DATA_DOUBLE, v2, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, v3);
    clamp->relu_lower_clip = -0.5, clamp->relu_upper_clip = 1.0;
    gb_pw(&b, CUDNN_POINTWISE_SUB, CUDNN_DATA_DOUBLE, v3, s, FDNN_GRAPH_NONE, y);
    gb_fill(&b, x, &rng, -1, 1);
    gb_fill(&b, w, &rng, -1, 1);
    double *got = run_both(&b, y);
    int bad = 0;
    for (int64_t n = 0; n < 3; n++)
        for (int64_t k = 0; k < 5; k++)
            for (int64_t p = 0; p < 7; p++)
                for (int64_t q = 0; q < 7; q++) {
                    double c = 0.5 * conv_at(&b, x, w, n, k, p, q);
                    c = c / (1 + exp(-1.5 * c));
                    c = c <= -0.5 ? -0.5 : c > 1 ? 1 : c;
                    c -= 0.25;
                    if (!(fabs(got[nchw_index(yd, n, k, p, q)] - c) <= 1e-12))
                        bad++;
                }
    CHECK_MSG(bad == 0, "double chain: %d wrong", bad);
    free(got);
    gb_free(&b);
}

/* HALF and BFLOAT16 storage: matmul (FLOAT) -> ADD bias -> GELU with the
 * intermediate after the ADD stored as HALF / BFLOAT16 and y HALF /
 * BFLOAT16: both engines round through the same types (bitwise equal), and
 * the result is the float64 composition within the storage precision. */
static void
test_reduced_storage(cudnnDataType_t dt)
{
    gb_t b;
    gb_init(&b);
    const int64_t ad[2] = {20, 16}, bd[2] = {16, 24}, cd[2] = {20, 24}, biasd[2] = {1, 24};
    int a = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, ad, false);
    int bb = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, bd, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true);
    int bias = gb_tensor(&b, dt, 2, biasd, false);
    int v2 = gb_tensor(&b, dt, 2, cd, true);
    int y = gb_tensor(&b, dt, 2, cd, false);
    gb_matmul(&b, CUDNN_DATA_FLOAT, a, bb, v);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v, bias, FDNN_GRAPH_NONE, v2);
    gb_pw(&b, CUDNN_POINTWISE_GELU_FWD, CUDNN_DATA_FLOAT, v2, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    gb_fill(&b, a, &rng, -1, 1);
    gb_fill(&b, bb, &rng, -1, 1);
    gb_fill(&b, bias, &rng, -1, 1);
    double *got = run_both(&b, y);
    double eps = dt == CUDNN_DATA_HALF ? 1.0 / 1024 : 1.0 / 128; /* 2 ulps of the storage at 1 */
    int bad = 0;
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 24; j++) {
            double s = 0;
            for (int p = 0; p < 16; p++)
                s += gb_get(&b, a, i * 16 + p) * gb_get(&b, bb, p * 24 + j);
            s += gb_get(&b, bias, j);
            s = 0.5 * s * (1 + erf(s / sqrt(2.0)));
            bad += !(fabs(got[i * 24 + j] - s) <= 2 * eps * (1 + fabs(s)));
        }
    CHECK_MSG(bad == 0, "%s storage chain: %d wrong", gx_dtype_name(dt), bad);
    free(got);
    gb_free(&b);
}

/* A 3-D grouped convolution (5-D tensors, 2 groups) + bias + ReLU over
 * several image blocks: fused equals generic bit for bit. */
static void
test_conv3d_grouped(void)
{
    gb_t b;
    gb_init(&b);
    const int64_t xd[5] = {5, 8, 6, 20, 20}, wd[5] = {16, 4, 3, 3, 3}, yd[5] = {5, 16, 6, 20, 20},
                  cd[5] = {1, 16, 1, 1, 1};
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 5, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 5, wd, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 5, yd, true);
    int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 5, cd, false);
    int v2 = gb_tensor(&b, CUDNN_DATA_FLOAT, 5, yd, true);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 5, yd, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, v, 1, 1);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v, bias, FDNN_GRAPH_NONE, v2);
    gb_pw(&b, CUDNN_POINTWISE_RELU_FWD, CUDNN_DATA_FLOAT, v2, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    gb_fill(&b, x, &rng, -1, 1);
    gb_fill(&b, w, &rng, -1, 1);
    gb_fill(&b, bias, &rng, -1, 1);
    /* 16 x 6 x 20 x 20 floats = 150 KiB per image: 3 images per block, 5 = 3 + 2 */
    double *got = run_both(&b, y);
    /* spot checks against a direct formula */
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        int64_t n = t % 5, k = (t * 7) % 16, dd = (t * 3) % 6, h = (t * 5) % 20, ww = (t * 11) % 20;
        int64_t gi = k / 8;
        double s = 0;
        for (int64_t c = 0; c < 4; c++)
            for (int64_t a = 0; a < 3; a++)
                for (int64_t r = 0; r < 3; r++)
                    for (int64_t q = 0; q < 3; q++) {
                        int64_t id = dd - 1 + a, ih = h - 1 + r, iw = ww - 1 + q;
                        if (id < 0 || id >= 6 || ih < 0 || ih >= 20 || iw < 0 || iw >= 20)
                            continue;
                        s += gb_get(&b, x, (((n * 8 + gi * 4 + c) * 6 + id) * 20 + ih) * 20 + iw) *
                             gb_get(&b, w, (((k * 4 + c) * 3 + a) * 3 + r) * 3 + q);
                    }
        s += gb_get(&b, bias, k);
        s = s > 0 ? s : 0;
        bad += !(fabs(got[(((n * 16 + k) * 6 + dd) * 20 + h) * 20 + ww] - s) <= 1e-4);
    }
    CHECK_MSG(bad == 0, "3-D grouped conv chain: %d of 64 spot checks wrong", bad);
    free(got);
    gb_free(&b);
}

static void
test_threads(void)
{
    /* conv chain with several blocks, and a matmul chain with panels */
    for (int which = 0; which < 2; which++) {
        gb_t b;
        gb_init(&b);
        int y;
        if (which == 0) {
            const int64_t xd[4] = {6, 16, 24, 24}, wd[4] = {32, 16, 3, 3}, yd[4] = {6, 32, 24, 24},
                          cd[4] = {1, 32, 1, 1};
            int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
            int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
            int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
            int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
            y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
            gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, v, 1, 1);
            gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v, bias, FDNN_GRAPH_NONE, y);
            gb_fill(&b, x, &rng, -1, 1);
            gb_fill(&b, w, &rng, -1, 1);
            gb_fill(&b, bias, &rng, -1, 1);
        } else {
            const int64_t ad[2] = {300, 64}, bd[2] = {64, 1024}, cd[2] = {300, 1024};
            int a = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, ad, false);
            int bb = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, bd, false);
            int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true);
            y = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, false);
            gb_matmul(&b, CUDNN_DATA_FLOAT, a, bb, v);
            gb_pw(&b, CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, CUDNN_DATA_FLOAT, v, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
            gb_fill(&b, a, &rng, -1, 1);
            gb_fill(&b, bb, &rng, -1, 1);
        }
        size_t bytes = (size_t)gb_count(&b, y) * 4;
        float *one = malloc(bytes);
        CHECK_OK(freednnSetNumThreads(handle, 1));
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE), &b));
        memcpy(one, b.data[y], bytes);
        CHECK_OK(freednnSetNumThreads(handle, 2));
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE), &b));
        CHECK_MSG(memcmp(one, b.data[y], bytes) == 0, "fused %s: 1 and 2 threads differ", which ? "matmul" : "conv");
        /* and the generic engine gives the same bits */
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
        CHECK(memcmp(one, b.data[y], bytes) == 0);
        CHECK_OK(freednnSetNumThreads(handle, 1));
        free(one);
        gb_free(&b);
    }
}

static void
expect_declined(gb_t *b, const char *what)
{
    fdnn_fail_clear();
    CHECK_STATUS(gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE)->supports(&b->g), CUDNN_STATUS_NOT_SUPPORTED);
    const char *r = fdnn_fail_reason();
    CHECK_MSG(strstr(r, what) != NULL, "reason \"%s\" should say %s", r, what);
}

static void
test_declined(void)
{
    const int64_t d[4] = {1, 4, 6, 6}, wd[4] = {4, 4, 3, 3}, rd[4] = {1, 4, 1, 1};
    gb_t b;
    /* a conv alone */
    gb_init(&b);
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, y, 1, 1);
    expect_declined(&b, "nothing to fuse");
    gb_free(&b);
    /* pointwise first */
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, true);
    y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    gb_pw(&b, CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, x, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, v);
    gb_pw(&b, CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, v, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    expect_declined(&b, "node 0 (pointwise)");
    gb_free(&b);
    /* conv then a reduction */
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    v = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, true);
    y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, rd, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, v, 1, 1);
    gb_reduction(&b, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, v, y);
    expect_declined(&b, "node 1 (reduction) is not pointwise");
    gb_free(&b);
    /* the chain read twice (v * v), and an intermediate that is an output */
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    v = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, true);
    y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, v, 1, 1);
    gb_pw(&b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, v, v, FDNN_GRAPH_NONE, y);
    expect_declined(&b, "reads the chain twice");
    gb_free(&b);
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    v = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, true);
    int mid = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, v, 1, 1);
    gb_pw(&b, CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, v, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, mid);
    gb_pw(&b, CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, mid, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    expect_declined(&b, "only the last output may be non-virtual");
    /* ... which the generic engine runs */
    gb_fill(&b, x, &rng, -1, 1);
    gb_fill(&b, w, &rng, -0.1, 0.1);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    gb_free(&b);
}

static void
test_table(void)
{
    int n = 0;
    const fdnn_graph_engine_t *list = fdnn_graph_engines(&n);
    CHECK(n == 3 + 20);
    /* attention, then the fused epilogue, the 20 conv-solver engines
     * (engine_conv.c), then the generic fallback */
    CHECK(list[0].global_index == FDNN_GRAPH_ENGINE_SDPA_FLASH && !list[0].fallback);
    CHECK(list[1].global_index == FDNN_GRAPH_ENGINE_FUSED_EPILOGUE && !list[1].fallback);
    CHECK(list[1].behavior_notes == (1u << CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION));
    CHECK(list[n - 1].global_index == FDNN_GRAPH_ENGINE_GENERIC && list[n - 1].fallback);
}

/* ---- speed (FDNN_GRAPH_BENCH=1 only; prints, asserts nothing) ----------- */

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* 1 thread on a shared machine: CPU time */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best of `reps` runs of one engine on b (workspace allocated once). */
static double
time_engine(const fdnn_graph_engine_t *e, gb_t *b, int reps)
{
    fdnn_graph_knobs_t knobs = {0};
    size_t ws = 0;
    CHECK_OK(e->supports(&b->g));
    CHECK_OK(e->workspace(&b->g, &knobs, &ws));
    void *w = malloc(ws + 1);
    fdnn_graph_exec_t x = {handle, &b->g, &knobs, b->data, w, ws};
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        CHECK_OK(e->execute(&x));
        double t = now_s() - t0;
        best = t < best ? t : best;
    }
    free(w);
    return best;
}

static cudnnTensorDescriptor_t
nchw_desc(int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t d;
    cudnnCreateTensorDescriptor(&d);
    cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);
    return d;
}

/* conv + scale + bias + residual add + ReLU: the fused engine against the
 * same computation in separate legacy calls (cudnnConvolutionForward with
 * the _v7 heuristic's first algorithm, cudnnOpTensor MUL, cudnnAddTensor,
 * cudnnOpTensor ADD, cudnnActivationForward RELU, all in place on y), and
 * against the generic engine (the same passes through the graph API). */
static void
bench_conv(int N, int C, int K, int H, int R)
{
    gb_t b;
    gb_init(&b);
    const int64_t xd[4] = {N, C, H, H}, wd[4] = {K, C, R, R}, yd[4] = {N, K, H, H}, cd[4] = {1, K, 1, 1};
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int scale = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
    int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
    int res = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    int v2 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int v3 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int v4 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, v, R / 2, 1);
    gb_pw(&b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, v, scale, FDNN_GRAPH_NONE, v2);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v2, bias, FDNN_GRAPH_NONE, v3);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v3, res, FDNN_GRAPH_NONE, v4);
    gb_pw(&b, CUDNN_POINTWISE_RELU_FWD, CUDNN_DATA_FLOAT, v4, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    gb_fill(&b, x, &rng, -1, 1);
    gb_fill(&b, w, &rng, -0.1, 0.1);
    gb_fill(&b, scale, &rng, 0.5, 1.5);
    gb_fill(&b, bias, &rng, -1, 1);
    gb_fill(&b, res, &rng, -1, 1);
    const int reps = 9;
    double t_fused = time_engine(gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE), &b, reps);
    double t_gen = time_engine(gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b, reps);

    cudnnTensorDescriptor_t xdsc = nchw_desc(N, C, H, H), ydsc = nchw_desc(N, K, H, H), cdsc = nchw_desc(1, K, 1, 1);
    cudnnFilterDescriptor_t wdsc;
    cudnnCreateFilterDescriptor(&wdsc);
    cudnnSetFilter4dDescriptor(wdsc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, R);
    cudnnConvolutionDescriptor_t conv;
    cudnnCreateConvolutionDescriptor(&conv);
    cudnnSetConvolution2dDescriptor(conv, R / 2, R / 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    cudnnConvolutionFwdAlgoPerf_t perf;
    int got = 0;
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle, xdsc, wdsc, conv, ydsc, 1, &got, &perf));
    size_t wsb = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, xdsc, wdsc, conv, ydsc, perf.algo, &wsb));
    void *ws = malloc(wsb + 1);
    cudnnOpTensorDescriptor_t mul, add;
    cudnnCreateOpTensorDescriptor(&mul);
    cudnnCreateOpTensorDescriptor(&add);
    cudnnSetOpTensorDescriptor(mul, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
    cudnnSetOpTensorDescriptor(add, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
    cudnnActivationDescriptor_t relu;
    cudnnCreateActivationDescriptor(&relu);
    cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0);
    const float one = 1, zero = 0;
    float *Y = b.data[y];
    double t_legacy = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        CHECK_OK(cudnnConvolutionForward(handle, &one, xdsc, b.data[x], wdsc, b.data[w], conv, perf.algo, ws, wsb,
                                         &zero, ydsc, Y));
        CHECK_OK(cudnnOpTensor(handle, mul, &one, ydsc, Y, &one, cdsc, b.data[scale], &zero, ydsc, Y));
        CHECK_OK(cudnnAddTensor(handle, &one, cdsc, b.data[bias], &one, ydsc, Y));
        CHECK_OK(cudnnOpTensor(handle, add, &one, ydsc, Y, &one, ydsc, b.data[res], &zero, ydsc, Y));
        CHECK_OK(cudnnActivationForward(handle, relu, &one, ydsc, Y, &zero, ydsc, Y));
        double t = now_s() - t0;
        t_legacy = t < t_legacy ? t : t_legacy;
    }
    printf("bench conv%dx%d N=%d C=%d K=%d H=W=%d + scale + bias + residual + relu (algo %d), 1 thread, best of %d:\n"
           "  fused %.2f ms, legacy calls %.2f ms (%.2fx), generic engine %.2f ms (%.2fx)\n",
           R, R, N, C, K, H, (int)perf.algo, reps, t_fused * 1e3, t_legacy * 1e3, t_legacy / t_fused, t_gen * 1e3,
           t_gen / t_fused);
    free(ws);
    cudnnDestroyActivationDescriptor(relu);
    cudnnDestroyOpTensorDescriptor(mul);
    cudnnDestroyOpTensorDescriptor(add);
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(wdsc);
    cudnnDestroyTensorDescriptor(xdsc);
    cudnnDestroyTensorDescriptor(ydsc);
    cudnnDestroyTensorDescriptor(cdsc);
    gb_free(&b);
}

/* One pointwise pass (y = x + bias) and the conv alone, generic engine:
 * where the time of the chains goes. */
static void
bench_parts(void)
{
    gb_t b;
    gb_init(&b);
    const int64_t yd[4] = {4, 64, 56, 56}, cd[4] = {1, 64, 1, 1}, xd[4] = {4, 64, 56, 56}, wd[4] = {64, 64, 3, 3};
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, x, bias, FDNN_GRAPH_NONE, y);
    gb_fill(&b, x, &rng, -1, 1);
    gb_fill(&b, bias, &rng, -1, 1);
    double t = time_engine(gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b, 5);
    printf("bench one ADD pass over 4x64x56x56: %.2f ms\n", t * 1e3);
    gb_free(&b);
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, y, 1, 1);
    gb_fill(&b, x, &rng, -1, 1);
    gb_fill(&b, w, &rng, -1, 1);
    t = time_engine(gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b, 5);
    printf("bench conv3x3 alone 4x64x56x56: %.2f ms\n", t * 1e3);
    gb_free(&b);
}

/* matmul + bias + GELU: fused against the generic engine (the same three
 * passes as separate calls; the legacy API has no GELU). */
static void
bench_matmul(int M, int N, int K)
{
    gb_t b;
    gb_init(&b);
    const int64_t ad[2] = {M, K}, bd[2] = {K, N}, cd[2] = {M, N}, biasd[2] = {1, N};
    int a = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, ad, false);
    int bb = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, bd, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true);
    int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, biasd, false);
    int v2 = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, false);
    gb_matmul(&b, CUDNN_DATA_FLOAT, a, bb, v);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v, bias, FDNN_GRAPH_NONE, v2);
    gb_pw(&b, CUDNN_POINTWISE_GELU_FWD, CUDNN_DATA_FLOAT, v2, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    gb_fill(&b, a, &rng, -1, 1);
    gb_fill(&b, bb, &rng, -0.1, 0.1);
    gb_fill(&b, bias, &rng, -1, 1);
    const int reps = 9;
    double t_fused = time_engine(gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE), &b, reps);
    double t_gen = time_engine(gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b, reps);
    printf("bench matmul M=%d N=%d K=%d + bias + GELU, 1 thread, best of %d:\n"
           "  fused %.2f ms, generic engine (separate passes) %.2f ms (%.2fx)\n",
           M, N, K, reps, t_fused * 1e3, t_gen * 1e3, t_gen / t_fused);
    gb_free(&b);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    fdnn_rng_seed(&rng, 1414);
    if (getenv("FDNN_GRAPH_BENCH_ONLY") == NULL) {
        test_table();
        test_conv_chain(false, false, 2, 8, 16, 9);
        test_conv_chain(true, false, 2, 8, 16, 9);
        test_conv_chain(true, true, 2, 8, 16, 9);
        /* 32 x 24 x 24 floats = 72 KiB per image: 7 images per block, 9 = 7 + 2 */
        test_conv_chain(true, false, 9, 8, 32, 24);
        test_conv_chain(true, true, 9, 8, 32, 24);
        /* channel and width tails in the direct kernels' store (20 = 16 + 4 channels) */
        test_conv_chain(true, false, 3, 5, 20, 11);
        test_conv_chain(true, true, 3, 5, 20, 11);
        test_matmul_chain(5, 7, 3, CUDNN_POINTWISE_GELU_FWD);
        /* 1024 columns: 128 rows per panel, 300 = 128 + 128 + 44 */
        test_matmul_chain(300, 1024, 24, CUDNN_POINTWISE_GELU_FWD);
        test_matmul_chain(33, 65, 17, CUDNN_POINTWISE_GELU_APPROX_TANH_FWD);
        /* several k blocks, N past one column block, odd edges; a thin one */
        test_matmul_epilogue(37, 2100, 700);
        test_matmul_epilogue(200, 2100, 1100);
        test_matmul_epilogue(3, 131, 9);
        test_double_chain();
        test_reduced_storage(CUDNN_DATA_HALF);
        test_reduced_storage(CUDNN_DATA_BFLOAT16);
        test_conv3d_grouped();
        test_threads();
        test_declined();
    }
    const char *bench = getenv("FDNN_GRAPH_BENCH"); /* "all", "conv3", "conv1" or "matmul" */
    if (bench != NULL) {
        CHECK_OK(freednnSetNumThreads(handle, 1));
        if (strstr(bench, "parts"))
            bench_parts();
        if (strstr(bench, "all") || strstr(bench, "conv3"))
            bench_conv(4, 64, 64, 56, 3);
        if (strstr(bench, "all") || strstr(bench, "conv1"))
            bench_conv(4, 64, 256, 56, 1);
        if (strstr(bench, "all") || strstr(bench, "matmul"))
            bench_matmul(1024, 3072, 768);
    }
    cudnnDestroy(handle);
    return fdnn_test_finish("test_graph_fused");
}
