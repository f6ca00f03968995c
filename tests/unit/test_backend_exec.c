/* SPDX-License-Identifier: Apache-2.0
 * Graphs built and run as NVIDIA's frontend does: operation graph, engine
 * heuristics (count query, then finalized engine configs), the engine of a
 * config with its knobs and notes, execution plan with its workspace,
 * variant pack, cudnnBackendExecute; results checked against a float64
 * computation of the composed ops; the plan's JSON turned back into a plan
 * that gives the same bits; use-before-finalize and variant-pack errors.
 * Graphs: conv fwd + bias + ReLU, and matmul + GELU.  While the engine table
 * is empty, heuristics must answer NOT_SUPPORTED with a reason. */
#include <math.h>
#include <string.h>

#include "core/fail.h"
#include "core/graph_ir.h"
#include "cpu/tensor/convert_fp8.h"
#include "ref/conv_ref.h"
#include "test_backend_build.h"

enum { N = 2, C = 3, H = 6, W = 5, K = 4, R = 3, S = 3 };
enum { MB = 2, MM = 5, MK = 7, MN = 3 };

static cudnnHandle_t handle;

static bd_t
heur_for(bd_t graph, cudnnBackendHeurMode_t mode, cudnnStatus_t *st)
{
    bd_t heur = be_create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    CHECK_OK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &graph));
    CHECK_OK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    *st = cudnnBackendFinalize(heur);
    return heur;
}

/* The plan of the heuristics' first result (NULL when none); checks the
 * config's engine on the way. */
static bd_t
plan_for(bd_t graph, int64_t *workspace)
{
    cudnnStatus_t st;
    bd_t heur = heur_for(graph, CUDNN_HEUR_MODE_INSTANT, &st);
    int nengines = 0;
    fdnn_graph_engines(&nengines);
    if (nengines == 0) {
        CHECK_STATUS(st, CUDNN_STATUS_NOT_SUPPORTED);
        CHECK(strstr(fdnn_fail_reason(), "no engine") != NULL);
        cudnnBackendDestroyDescriptor(heur);
        return NULL;
    }
    CHECK_OK(st);
    int64_t count = 0;
    CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                      NULL));
    CHECK(count >= 1 && count <= nengines);
    bd_t cfgs[8];
    int64_t want = count < 8 ? count : 8;
    for (int64_t i = 0; i < want; i++)
        cfgs[i] = be_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, want, &count,
                                      cfgs));
    /* the first config's engine: index, knobs, notes */
    bd_t eng = be_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    int64_t n = 0, gidx = -1;
    CHECK_OK(cudnnBackendGetAttribute(cfgs[0], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng));
    CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &gidx));
    const fdnn_graph_engine_t *e = fdnn_graph_engine_by_index(gidx);
    CHECK(e != NULL);
    int64_t nknobs = -1, nnotes = -1;
    CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &nknobs,
                                      NULL));
    CHECK(e == NULL || nknobs == e->nknobs);
    CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 0, &nnotes,
                                      NULL));
    CHECK(e == NULL || nnotes == __builtin_popcount(e->numerical_notes));
    CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, 0, &nnotes,
                                      NULL));
    CHECK(e == NULL || nnotes == __builtin_popcount(e->behavior_notes));
    /* the plan */
    bd_t plan = be_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
    CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &cfgs[0]));
    CHECK_OK(cudnnBackendFinalize(plan));
    CHECK_OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                                      workspace));
    CHECK(*workspace >= 0);
    /* the plan owns what it needs: everything else may go */
    for (int64_t i = 0; i < want; i++)
        cudnnBackendDestroyDescriptor(cfgs[i]);
    cudnnBackendDestroyDescriptor(eng);
    cudnnBackendDestroyDescriptor(heur);
    return plan;
}

static bd_t
pack_for(const int64_t *uids, void **ptrs, int n, void *workspace)
{
    bd_t vp = be_create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    CHECK_OK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids));
    CHECK_OK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs));
    CHECK_OK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace));
    CHECK_OK(cudnnBackendFinalize(vp));
    return vp;
}

/* The plan rebuilt from its JSON, finalized. */
static bd_t
plan_from_json(bd_t plan)
{
    int64_t len = 0;
    CHECK_OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &len,
                                      NULL));
    CHECK(len > 10);
    char *text = calloc((size_t)len + 1, 1);
    CHECK_OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, len, &len,
                                      text));
    CHECK(text[len - 1] == 0 && strstr(text, "\"engine_config\"") != NULL);
    bd_t p2 = be_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    CHECK_OK(cudnnBackendSetAttribute(p2, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
    CHECK_OK(cudnnBackendSetAttribute(p2, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, len, text));
    CHECK_OK(cudnnBackendFinalize(p2));
    /* the JSON of the rebuilt plan is the same text */
    int64_t len2 = 0;
    char *text2 = calloc((size_t)len + 1, 1);
    CHECK_OK(cudnnBackendGetAttribute(p2, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, len, &len2,
                                      text2));
    CHECK(len2 == len && strcmp(text, text2) == 0);
    /* a broken text is refused with BAD_PARAM */
    bd_t p3 = be_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    text[len / 2] = '#';
    CHECK_OK(cudnnBackendSetAttribute(p3, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
    CHECK_OK(cudnnBackendSetAttribute(p3, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, len, text));
    CHECK_STATUS(cudnnBackendFinalize(p3), CUDNN_STATUS_BAD_PARAM);
    CHECK(strstr(fdnn_fail_reason(), "CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION") != NULL);
    cudnnBackendDestroyDescriptor(p3);
    /* every strict prefix of the text is refused, none crashes */
    text[len / 2] = text2[len / 2];
    int refused = 0;
    for (int64_t cut = 1; cut < len - 1; cut += 1 + cut / 16) {
        bd_t p4 = be_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        cudnnBackendSetAttribute(p4, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
        cudnnBackendSetAttribute(p4, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, cut, text);
        refused += cudnnBackendFinalize(p4) == CUDNN_STATUS_BAD_PARAM;
        cudnnBackendDestroyDescriptor(p4);
    }
    int tries = 0;
    for (int64_t cut = 1; cut < len - 1; cut += 1 + cut / 16)
        tries++;
    CHECK_MSG(refused == tries, "%d of %d truncated JSON texts refused", refused, tries);
    free(text), free(text2);
    return p2;
}

static double
fill(float *p, size_t n, unsigned seed)
{
    fdnn_rng_t r;
    fdnn_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        p[i] = (float)fdnn_rng_uniform(&r, -1, 1);
    return 0;
}

static void
test_conv_bias_relu(void)
{
    int64_t xd[4] = {N, C, H, W}, wd[4] = {K, C, R, S}, yd[4] = {N, K, H, W}, bd4[4] = {1, K, 1, 1};
    bd_t x = be_tensor(1, 4, xd, false), w = be_tensor(2, 4, wd, false), b = be_tensor(3, 4, bd4, false);
    bd_t v1 = be_tensor(10, 4, yd, true), v2 = be_tensor(11, 4, yd, true), y = be_tensor(4, 4, yd, false);
    bd_t conv = be_conv_desc(2, 1, 1, 1);
    bd_t add = be_pw_desc(CUDNN_POINTWISE_ADD), relu = be_pw_desc(CUDNN_POINTWISE_RELU_FWD);
    bd_t ops[3] = {be_conv_fwd(x, w, v1, conv, true), be_pw_op(add, v1, b, v2), be_pw_op(relu, v2, NULL, y)};
    bd_t graph = be_graph(handle, ops, 3, NULL);
    bd_t parts[] = {x, w, b, v1, v2, y, conv, add, relu, ops[0], ops[1], ops[2]};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]); /* the graph owns copies */

    int64_t wsb = 0;
    bd_t plan = plan_for(graph, &wsb);
    if (plan == NULL) {
        cudnnBackendDestroyDescriptor(graph);
        return;
    }
    _Alignas(16) float xs[N * C * H * W], ws[K * C * R * S], bs[K], ys[N * K * H * W], ys2[N * K * H * W];
    fill(xs, sizeof(xs) / 4, 1), fill(ws, sizeof(ws) / 4, 2), fill(bs, K, 3);
    fdnn_poison_f32(ys, N * K * H * W);
    void *wsp = wsb ? fdnn_guarded_alloc((size_t)wsb) : NULL;
    int64_t uids[4] = {1, 2, 3, 4};
    void *ptrs[4] = {xs, ws, bs, ys};
    bd_t vp = pack_for(uids, ptrs, 4, wsp);
    CHECK_OK(cudnnBackendExecute(handle, plan, vp));
    /* float64: the reference convolution (src/ref), then bias and ReLU */
    fdnn_conv_problem_t p = {0};
    p.nsp = 2, p.n = N, p.g = 1, p.c = C, p.k = K;
    int64_t in[3] = {1, H, W}, ker[3] = {1, R, S}, pad[3] = {0, 1, 1}, one3[3] = {1, 1, 1};
    memcpy(p.in, in, sizeof(in)), memcpy(p.out, in, sizeof(in)), memcpy(p.ker, ker, sizeof(ker));
    memcpy(p.pad, pad, sizeof(pad)), memcpy(p.stride, one3, sizeof(one3)), memcpy(p.dil, one3, sizeof(one3));
    double xd64[N * C * H * W], wd64[K * C * R * S], yd64[N * K * H * W];
    for (size_t i = 0; i < sizeof(xs) / 4; i++)
        xd64[i] = xs[i];
    for (size_t i = 0; i < sizeof(ws) / 4; i++)
        wd64[i] = ws[i];
    fdnn_ref_conv_fwd(&p, xd64, wd64, yd64);
    double maxerr = 0;
    for (int i = 0; i < N * K * H * W; i++) {
        double ref = yd64[i] + bs[(i / (H * W)) % K];
        ref = ref > 0 ? ref : 0;
        double err = isnan(ys[i]) ? INFINITY : fabs(ys[i] - ref) / (1 + fabs(ref));
        maxerr = err > maxerr ? err : maxerr;
    }
    CHECK_MSG(maxerr < 1e-5, "conv+bias+relu max relative error %g", maxerr);

    /* the plan from its JSON gives the same bits */
    bd_t plan2 = plan_from_json(plan);
    fdnn_poison_f32(ys2, N * K * H * W);
    ptrs[3] = ys2;
    bd_t vp2 = pack_for(uids, ptrs, 4, wsp);
    CHECK_OK(cudnnBackendExecute(handle, plan2, vp2));
    CHECK(memcmp(ys, ys2, sizeof(ys)) == 0);

    /* a variant pack without the bias; a NULL pointer; a plan not finalized */
    bd_t vp3 = pack_for(uids, ptrs, 3, wsp);
    CHECK_STATUS(cudnnBackendExecute(handle, plan, vp3), CUDNN_STATUS_BAD_PARAM);
    CHECK(strstr(fdnn_fail_reason(), "uid 4") != NULL);
    ptrs[0] = NULL;
    bd_t vp4 = pack_for(uids, ptrs, 4, wsp);
    CHECK_STATUS(cudnnBackendExecute(handle, plan, vp4), CUDNN_STATUS_BAD_PARAM);
    bd_t raw = be_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    CHECK_STATUS(cudnnBackendExecute(handle, raw, vp), CUDNN_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(cudnnBackendExecute(handle, vp, plan), CUDNN_STATUS_BAD_PARAM);
    if (wsb > 0) {
        bd_t vp5 = pack_for(uids, (void *[]){xs, ws, bs, ys}, 4, NULL);
        CHECK_STATUS(cudnnBackendExecute(handle, plan, vp5), CUDNN_STATUS_BAD_PARAM);
        cudnnBackendDestroyDescriptor(vp5);
    }

    /* every engine the heuristics offer gives the same bits (the engines
     * promise it; checked through the API), except the conv-solver engines
     * with an FFT / WINOGRAD numerical note: within 1e-4 */
    {
        cudnnStatus_t hs;
        bd_t hh = heur_for(graph, CUDNN_HEUR_MODE_INSTANT, &hs);
        int64_t nres = 0;
        CHECK_OK(cudnnBackendGetAttribute(hh, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &nres,
                                          NULL));
        for (int64_t r = 0; r < nres && r < 8; r++) {
            bd_t cfgs[8];
            for (int64_t i = 0; i <= r; i++)
                cfgs[i] = be_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
            int64_t got = 0;
            CHECK_OK(cudnnBackendGetAttribute(hh, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, r + 1,
                                              &got, cfgs));
            bd_t pr = be_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            CHECK_OK(cudnnBackendSetAttribute(pr, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
            CHECK_OK(cudnnBackendSetAttribute(pr, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[r]));
            CHECK_OK(cudnnBackendFinalize(pr));
            int64_t wr = 0, n = 0;
            CHECK_OK(cudnnBackendGetAttribute(pr, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                                              &wr));
            void *wrp = wr ? fdnn_guarded_alloc((size_t)wr) : NULL;
            fdnn_poison_f32(ys2, N * K * H * W);
            bd_t vpr = pack_for(uids, (void *[]){xs, ws, bs, ys2}, 4, wrp);
            CHECK_OK(cudnnBackendExecute(handle, pr, vpr));
            bd_t eng = be_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
            int64_t ne = 0, nnotes = 0;
            CHECK_OK(cudnnBackendGetAttribute(cfgs[r], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                              &ne, &eng));
            CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 0,
                                              &nnotes, NULL));
            cudnnBackendDestroyDescriptor(eng);
            if (nnotes == 0) {
                CHECK_MSG(memcmp(ys, ys2, sizeof(ys)) == 0, "heuristics result %lld gives other bits", (long long)r);
            } else {
                double e = 0;
                for (int i = 0; i < N * K * H * W; i++)
                    e = fmax(e, isnan(ys2[i]) ? INFINITY : fabs(ys2[i] - ys[i]) / (1 + fabs(ys[i])));
                CHECK_MSG(e <= 1e-4, "heuristics result %lld (FFT / Winograd): error %g", (long long)r, e);
            }
            cudnnBackendDestroyDescriptor(vpr);
            cudnnBackendDestroyDescriptor(pr);
            fdnn_guarded_free(wrp);
            for (int64_t i = 0; i <= r; i++)
                cudnnBackendDestroyDescriptor(cfgs[i]);
        }
        cudnnBackendDestroyDescriptor(hh);
    }

    /* a knob choice the engine does not have */
    {
        cudnnStatus_t hs;
        bd_t hh = heur_for(graph, CUDNN_HEUR_MODE_INSTANT, &hs);
        bd_t cfg = be_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR), eng = be_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        int64_t n = 0;
        CHECK_OK(cudnnBackendGetAttribute(hh, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &cfg));
        CHECK_OK(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng));
        int64_t nknobs = 0;
        CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &nknobs,
                                          NULL));
        bd_t kc = be_create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
        int type = CUDNN_KNOB_TYPE_COUNTS - 1; /* no FreeDNN engine has this one */
        int64_t value = 1;
        CHECK_OK(cudnnBackendSetAttribute(kc, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &type));
        CHECK_OK(cudnnBackendSetAttribute(kc, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &value));
        CHECK_OK(cudnnBackendFinalize(kc));
        bd_t cfg2 = be_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        CHECK_OK(cudnnBackendSetAttribute(cfg2, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &eng));
        CHECK_OK(cudnnBackendSetAttribute(cfg2, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &kc));
        CHECK_STATUS(cudnnBackendFinalize(cfg2), CUDNN_STATUS_BAD_PARAM);
        CHECK(strstr(fdnn_fail_reason(), "CUDNN_ATTR_ENGINECFG_KNOB_CHOICES") != NULL);
        bd_t tmp[] = {hh, cfg, eng, kc, cfg2};
        for (size_t i = 0; i < sizeof(tmp) / sizeof(tmp[0]); i++)
            cudnnBackendDestroyDescriptor(tmp[i]);
    }

    /* FALLBACK heuristics offer the fallback engines only */
    cudnnStatus_t st;
    bd_t fb = heur_for(graph, CUDNN_HEUR_MODE_FALLBACK, &st);
    CHECK_OK(st);
    cudnnBackendDestroyDescriptor(fb);

    bd_t rest[] = {raw, vp, vp2, vp3, vp4, plan, plan2, graph};
    for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
        cudnnBackendDestroyDescriptor(rest[i]);
    fdnn_guarded_free(wsp);
}

static void
test_matmul_gelu(void)
{
    int64_t ad[3] = {MB, MM, MK}, bdm[3] = {1, MK, MN}, cd[3] = {MB, MM, MN};
    bd_t a = be_tensor(1, 3, ad, false), b = be_tensor(2, 3, bdm, false), v = be_tensor(9, 3, cd, true);
    bd_t c = be_tensor(3, 3, cd, false);
    bd_t gelu = be_pw_desc(CUDNN_POINTWISE_GELU_FWD);
    bd_t ops[2] = {be_matmul_op(a, b, v), be_pw_op(gelu, v, NULL, c)};
    bd_t graph = be_graph(handle, ops, 2, NULL);
    int64_t wsb = 0;
    bd_t plan = plan_for(graph, &wsb);
    if (plan != NULL) {
        _Alignas(16) float as[MB * MM * MK], bs[MK * MN], cs[MB * MM * MN];
        fill(as, sizeof(as) / 4, 4), fill(bs, sizeof(bs) / 4, 5);
        fdnn_poison_f32(cs, sizeof(cs) / 4);
        void *wsp = wsb ? fdnn_guarded_alloc((size_t)wsb) : NULL;
        int64_t uids[3] = {1, 2, 3};
        void *ptrs[3] = {as, bs, cs};
        bd_t vp = pack_for(uids, ptrs, 3, wsp);
        CHECK_OK(cudnnBackendExecute(handle, plan, vp));
        double maxerr = 0;
        for (int bb = 0; bb < MB; bb++)
            for (int m = 0; m < MM; m++)
                for (int n = 0; n < MN; n++) {
                    double acc = 0;
                    for (int k = 0; k < MK; k++)
                        acc += (double)as[(bb * MM + m) * MK + k] * bs[k * MN + n];
                    double ref = 0.5 * acc * (1 + erf(acc / sqrt(2.0)));
                    double got = cs[(bb * MM + m) * MN + n];
                    double err = isnan(got) ? INFINITY : fabs(got - ref) / (1 + fabs(ref));
                    maxerr = err > maxerr ? err : maxerr;
                }
        CHECK_MSG(maxerr < 1e-5, "matmul+gelu max relative error %g", maxerr);
        cudnnBackendDestroyDescriptor(vp);
        cudnnBackendDestroyDescriptor(plan);
        fdnn_guarded_free(wsp);
    }
    bd_t parts[] = {a, b, v, c, gelu, ops[0], ops[1], graph};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]);
}

/* y = x * s with s a by-value scalar: its value comes from the variant
 * pack's host pointer at execute. */
static void
test_by_value_scale(void)
{
    int64_t d[2] = {3, 4}, one[2] = {1, 1};
    bd_t x = be_tensor(1, 2, d, false), y = be_tensor(2, 2, d, false);
    bd_t sc = be_tensor_full(3, CUDNN_DATA_FLOAT, 2, one, NULL, false, true);
    bd_t mul = be_pw_desc(CUDNN_POINTWISE_MUL);
    bd_t op = be_pw_op(mul, x, sc, y);
    bd_t graph = be_graph(handle, &op, 1, NULL);
    cudnnStatus_t st;
    bd_t heur = heur_for(graph, CUDNN_HEUR_MODE_INSTANT, &st);
    if (st == CUDNN_STATUS_SUCCESS) {
        int64_t wsb = 0;
        bd_t plan = plan_for(graph, &wsb);
        _Alignas(16) float xs[12], ys[12], s = 2.5f;
        fill(xs, 12, 9);
        fdnn_poison_f32(ys, 12);
        void *wsp = wsb ? fdnn_guarded_alloc((size_t)wsb) : NULL;
        int64_t uids[3] = {1, 2, 3};
        void *ptrs[3] = {xs, ys, &s};
        bd_t vp = pack_for(uids, ptrs, 3, wsp);
        CHECK_OK(cudnnBackendExecute(handle, plan, vp));
        bool ok = true;
        for (int i = 0; i < 12; i++)
            ok = ok && fabsf(ys[i] - xs[i] * 2.5f) <= 1e-6f * (1 + fabsf(xs[i]));
        CHECK(ok);
        cudnnBackendDestroyDescriptor(vp);
        cudnnBackendDestroyDescriptor(plan);
        fdnn_guarded_free(wsp);
    } else {
        CHECK_STATUS(st, CUDNN_STATUS_NOT_SUPPORTED);
    }
    bd_t parts[] = {heur, x, y, sc, mul, op, graph};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]);
}

/* The fused pattern of issue 14: y = relu(conv(x, w) * s + b) + z, with s a
 * by-value scalar and z a residual; checked against float64 on every engine
 * the heuristics offer. */
static void
test_conv_scale_bias_relu_add(void)
{
    int64_t xd[4] = {N, C, H, W}, wd[4] = {K, C, R, S}, yd[4] = {N, K, H, W}, bd4[4] = {1, K, 1, 1};
    int64_t one[4] = {1, 1, 1, 1};
    bd_t x = be_tensor(1, 4, xd, false), w = be_tensor(2, 4, wd, false), b = be_tensor(3, 4, bd4, false);
    bd_t z = be_tensor(5, 4, yd, false), y = be_tensor(4, 4, yd, false);
    bd_t sc = be_tensor_full(6, CUDNN_DATA_FLOAT, 4, one, NULL, false, true);
    bd_t v[4];
    for (int i = 0; i < 4; i++)
        v[i] = be_tensor(20 + i, 4, yd, true);
    bd_t conv = be_conv_desc(2, 1, 1, 1);
    bd_t mul = be_pw_desc(CUDNN_POINTWISE_MUL), add = be_pw_desc(CUDNN_POINTWISE_ADD);
    bd_t relu = be_pw_desc(CUDNN_POINTWISE_RELU_FWD);
    bd_t ops[5] = {be_conv_fwd(x, w, v[0], conv, true), be_pw_op(mul, v[0], sc, v[1]), be_pw_op(add, v[1], b, v[2]),
                   be_pw_op(relu, v[2], NULL, v[3]), be_pw_op(add, v[3], z, y)};
    bd_t graph = be_graph(handle, ops, 5, NULL);
    cudnnStatus_t st;
    bd_t heur = heur_for(graph, CUDNN_HEUR_MODE_INSTANT, &st);
    int64_t nres = 0;
    if (st == CUDNN_STATUS_SUCCESS)
        CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &nres,
                                          NULL));
    /* Aligned as the tensors say (CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT 16):
     * only x86's ABI aligns such stack arrays by itself. */
    _Alignas(16) float xs[N * C * H * W], ws[K * C * R * S], bs[K], zs[N * K * H * W], ys[N * K * H * W];
    _Alignas(16) float s = 0.75f;
    fill(xs, N * C * H * W, 21), fill(ws, K * C * R * S, 22), fill(bs, K, 23), fill(zs, N * K * H * W, 24);
    fdnn_conv_problem_t p = {0};
    p.nsp = 2, p.n = N, p.g = 1, p.c = C, p.k = K;
    int64_t in[3] = {1, H, W}, ker[3] = {1, R, S}, pad[3] = {0, 1, 1}, one3[3] = {1, 1, 1};
    memcpy(p.in, in, sizeof(in)), memcpy(p.out, in, sizeof(in)), memcpy(p.ker, ker, sizeof(ker));
    memcpy(p.pad, pad, sizeof(pad)), memcpy(p.stride, one3, sizeof(one3)), memcpy(p.dil, one3, sizeof(one3));
    double xd64[N * C * H * W], wd64[K * C * R * S], ref[N * K * H * W];
    for (int i = 0; i < N * C * H * W; i++)
        xd64[i] = xs[i];
    for (int i = 0; i < K * C * R * S; i++)
        wd64[i] = ws[i];
    fdnn_ref_conv_fwd(&p, xd64, wd64, ref);
    for (int i = 0; i < N * K * H * W; i++) {
        double t = ref[i] * s + bs[(i / (H * W)) % K];
        ref[i] = (t > 0 ? t : 0) + zs[i];
    }
    for (int64_t r = 0; r < nres && r < 8; r++) {
        bd_t cfgs[8];
        for (int64_t i = 0; i <= r; i++)
            cfgs[i] = be_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        int64_t got = 0, n = 0, wb = 0;
        CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, r + 1,
                                          &got, cfgs));
        bd_t plan = be_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
        CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                          1, &cfgs[r]));
        CHECK_OK(cudnnBackendFinalize(plan));
        CHECK_OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                                          &wb));
        void *wsp = wb ? fdnn_guarded_alloc((size_t)wb) : NULL;
        fdnn_poison_f32(ys, N * K * H * W);
        int64_t uids[6] = {1, 2, 3, 4, 5, 6};
        bd_t vp = pack_for(uids, (void *[]){xs, ws, bs, ys, zs, &s}, 6, wsp);
        CHECK_OK(cudnnBackendExecute(handle, plan, vp));
        double maxerr = 0;
        for (int i = 0; i < N * K * H * W; i++) {
            double err = isnan(ys[i]) ? INFINITY : fabs(ys[i] - ref[i]) / (1 + fabs(ref[i]));
            maxerr = err > maxerr ? err : maxerr;
        }
        CHECK_MSG(maxerr < 1e-5, "conv*s+b, relu, +z on result %lld: max relative error %g", (long long)r, maxerr);
        cudnnBackendDestroyDescriptor(vp);
        cudnnBackendDestroyDescriptor(plan);
        fdnn_guarded_free(wsp);
        for (int64_t i = 0; i <= r; i++)
            cudnnBackendDestroyDescriptor(cfgs[i]);
    }
    int ne = 0;
    fdnn_graph_engines(&ne);
    CHECK(ne == 0 || nres >= 1);
    bd_t parts[] = {heur, x, w, b, z, y, sc, v[0], v[1], v[2], v[3], conv, mul, add, relu,
                    ops[0], ops[1], ops[2], ops[3], ops[4], graph};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]);
}

static bd_t
be_reduce_op(cudnnReduceTensorOp_t op, bd_t x, bd_t y)
{
    bd_t red = be_create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    int ct = CUDNN_DATA_FLOAT;
    CHECK_OK(cudnnBackendSetAttribute(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &op));
    CHECK_OK(cudnnBackendSetAttribute(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
    CHECK_OK(cudnnBackendFinalize(red));
    bd_t ro = be_create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    CHECK_OK(cudnnBackendSetAttribute(ro, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    CHECK_OK(cudnnBackendSetAttribute(ro, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    CHECK_OK(cudnnBackendSetAttribute(ro, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &red));
    CHECK_OK(cudnnBackendFinalize(ro));
    cudnnBackendDestroyDescriptor(red);
    return ro;
}

/* Scaled dot-product attention as the 8.9 frontend builds it: S = Q K^T,
 * S * scale (by value), softmax as MAX / SUB / EXP / ADD / DIV, O = P V;
 * against float64 on every engine the heuristics offer. */
static void
test_sdpa(void)
{
    enum { AB = 1, AH = 2, AS = 5, AK = 7, AD = 4 };
    int64_t qd[4] = {AB, AH, AS, AD}, ktd[4] = {AB, AH, AD, AK}, kts[4] = {AH * AK * AD, AK * AD, 1, AD};
    int64_t vd[4] = {AB, AH, AK, AD}, sd[4] = {AB, AH, AS, AK}, rd[4] = {AB, AH, AS, 1}, one[4] = {1, 1, 1, 1};
    bd_t q = be_tensor(1, 4, qd, false), kt = be_tensor_full(2, CUDNN_DATA_FLOAT, 4, ktd, kts, false, false);
    bd_t v = be_tensor(3, 4, vd, false), o = be_tensor(4, 4, qd, false);
    bd_t scale = be_tensor_full(5, CUDNN_DATA_FLOAT, 4, one, NULL, false, true);
    bd_t s0 = be_tensor(10, 4, sd, true), s1 = be_tensor(11, 4, sd, true), mx = be_tensor(12, 4, rd, true);
    bd_t e1 = be_tensor(13, 4, sd, true), e2 = be_tensor(14, 4, sd, true), sm = be_tensor(15, 4, rd, true);
    bd_t pr = be_tensor(16, 4, sd, true);
    bd_t mul = be_pw_desc(CUDNN_POINTWISE_MUL), sub = be_pw_desc(CUDNN_POINTWISE_SUB);
    bd_t ex = be_pw_desc(CUDNN_POINTWISE_EXP), dv = be_pw_desc(CUDNN_POINTWISE_DIV);
    bd_t ops[7] = {be_matmul_op(q, kt, s0),           be_pw_op(mul, s0, scale, s1),
                   be_reduce_op(CUDNN_REDUCE_TENSOR_MAX, s1, mx), be_pw_op(sub, s1, mx, e1),
                   be_pw_op(ex, e1, NULL, e2),        be_reduce_op(CUDNN_REDUCE_TENSOR_ADD, e2, sm),
                   be_pw_op(dv, e2, sm, pr)};
    bd_t mm2 = be_matmul_op(pr, v, o);
    bd_t all_ops[8];
    memcpy(all_ops, ops, sizeof(ops));
    all_ops[7] = mm2;
    bd_t graph = be_graph(handle, all_ops, 8, NULL);
    cudnnStatus_t st;
    bd_t heur = heur_for(graph, CUDNN_HEUR_MODE_INSTANT, &st);
    int64_t nres = 0;
    if (st == CUDNN_STATUS_SUCCESS)
        CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &nres,
                                          NULL));
    _Alignas(16) float qs[AB * AH * AS * AD], ks[AB * AH * AK * AD], vs[AB * AH * AK * AD];
    _Alignas(16) float os[AB * AH * AS * AD], sc = 0.5f;
    fill(qs, sizeof(qs) / 4, 31), fill(ks, sizeof(ks) / 4, 32), fill(vs, sizeof(vs) / 4, 33);
    double ref[AB * AH * AS * AD];
    for (int h = 0; h < AB * AH; h++)
        for (int i = 0; i < AS; i++) {
            double srow[AK], m = -INFINITY, sum = 0;
            for (int j = 0; j < AK; j++) {
                double acc = 0;
                for (int d = 0; d < AD; d++) /* K stored [.., AK, AD] */
                    acc += (double)qs[(h * AS + i) * AD + d] * ks[(h * AK + j) * AD + d];
                srow[j] = acc * sc;
                m = srow[j] > m ? srow[j] : m;
            }
            for (int j = 0; j < AK; j++)
                sum += exp(srow[j] - m);
            for (int d = 0; d < AD; d++) {
                double acc = 0;
                for (int j = 0; j < AK; j++)
                    acc += exp(srow[j] - m) / sum * vs[(h * AK + j) * AD + d];
                ref[(h * AS + i) * AD + d] = acc;
            }
        }
    for (int64_t r = 0; r < nres && r < 8; r++) {
        bd_t cfgs[8];
        for (int64_t i = 0; i <= r; i++)
            cfgs[i] = be_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        int64_t got = 0, n = 0, wb = 0;
        CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, r + 1,
                                          &got, cfgs));
        bd_t plan = be_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
        CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                          1, &cfgs[r]));
        CHECK_OK(cudnnBackendFinalize(plan));
        CHECK_OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                                          &wb));
        void *wsp = wb ? fdnn_guarded_alloc((size_t)wb) : NULL;
        fdnn_poison_f32(os, sizeof(os) / 4);
        int64_t uids[5] = {1, 2, 3, 4, 5};
        bd_t vp = pack_for(uids, (void *[]){qs, ks, vs, os, &sc}, 5, wsp);
        CHECK_OK(cudnnBackendExecute(handle, plan, vp));
        double maxerr = 0;
        for (size_t i = 0; i < sizeof(os) / 4; i++) {
            double err = isnan(os[i]) ? INFINITY : fabs(os[i] - ref[i]);
            maxerr = err > maxerr ? err : maxerr;
        }
        CHECK_MSG(maxerr < 1e-5, "attention on result %lld: max error %g", (long long)r, maxerr);
        if (r == 0) { /* an attention engine, where the table has one, comes first */
            bd_t eng = be_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
            int64_t gi = -1;
            CHECK_OK(cudnnBackendGetAttribute(cfgs[0], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                              &eng));
            CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &gi));
            int ne = 0;
            const fdnn_graph_engine_t *list = fdnn_graph_engines(&ne);
            for (int i = 0; i < ne; i++)
                if (strstr(list[i].name, "sdpa") != NULL)
                    CHECK_MSG(gi == list[i].global_index, "the attention graph went to engine %lld first",
                              (long long)gi);
            cudnnBackendDestroyDescriptor(eng);
        }
        cudnnBackendDestroyDescriptor(vp);
        cudnnBackendDestroyDescriptor(plan);
        fdnn_guarded_free(wsp);
        for (int64_t i = 0; i <= r; i++)
            cudnnBackendDestroyDescriptor(cfgs[i]);
    }
    int ne = 0;
    fdnn_graph_engines(&ne);
    CHECK(ne == 0 || nres >= 1);
    bd_t parts[] = {heur, q, kt, v, o, scale, s0, s1, mx, e1, e2, sm, pr, mul, sub, ex, dv, graph};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]);
    for (int i = 0; i < 8; i++)
        cudnnBackendDestroyDescriptor(all_ops[i]);
}

/* y[n,c] = sum over h,w of x (a reduction to [N,C,1,1]). */
static void
test_reduction_sum(void)
{
    int64_t xd[4] = {N, C, H, W}, yd[4] = {N, C, 1, 1};
    bd_t x = be_tensor(1, 4, xd, false), y = be_tensor(2, 4, yd, false);
    bd_t red = be_create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    int op = CUDNN_REDUCE_TENSOR_ADD, ct = CUDNN_DATA_FLOAT;
    CHECK_OK(cudnnBackendSetAttribute(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &op));
    CHECK_OK(cudnnBackendSetAttribute(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
    CHECK_OK(cudnnBackendFinalize(red));
    bd_t ro = be_create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    CHECK_OK(cudnnBackendSetAttribute(ro, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    CHECK_OK(cudnnBackendSetAttribute(ro, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    CHECK_OK(cudnnBackendSetAttribute(ro, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &red));
    CHECK_OK(cudnnBackendFinalize(ro));
    bd_t graph = be_graph(handle, &ro, 1, NULL);
    int64_t wsb = 0;
    bd_t plan = plan_for(graph, &wsb);
    if (plan != NULL) {
        _Alignas(16) float xs[N * C * H * W], ys[N * C];
        fill(xs, N * C * H * W, 11);
        fdnn_poison_f32(ys, N * C);
        void *wsp = wsb ? fdnn_guarded_alloc((size_t)wsb) : NULL;
        int64_t uids[2] = {1, 2};
        bd_t vp = pack_for(uids, (void *[]){xs, ys}, 2, wsp);
        CHECK_OK(cudnnBackendExecute(handle, plan, vp));
        double maxerr = 0;
        for (int i = 0; i < N * C; i++) {
            double ref = 0;
            for (int j = 0; j < H * W; j++)
                ref += xs[i * H * W + j];
            double err = isnan(ys[i]) ? INFINITY : fabs(ys[i] - ref) / (1 + fabs(ref));
            maxerr = err > maxerr ? err : maxerr;
        }
        CHECK_MSG(maxerr < 1e-5, "reduction max relative error %g", maxerr);
        cudnnBackendDestroyDescriptor(vp);
        cudnnBackendDestroyDescriptor(plan);
        fdnn_guarded_free(wsp);
    }
    bd_t parts[] = {x, y, red, ro, graph};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]);
}

/* Every engine of the table by global index: a graph the engine does not
 * run is NOT_SUPPORTED at the ENGINE's finalize, with the engine's reason;
 * an index no engine has is NOT_SUPPORTED too. */
static void
test_engines_by_index(void)
{
    int64_t d[2] = {3, 4};
    bd_t x = be_tensor(1, 2, d, false), y = be_tensor(2, 2, d, false);
    bd_t sig = be_pw_desc(CUDNN_POINTWISE_SIGMOID_FWD);
    bd_t op = be_pw_op(sig, x, NULL, y);
    bd_t graph = be_graph(handle, &op, 1, NULL);
    int64_t count = 0, n = 0;
    CHECK_OK(cudnnBackendGetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &n,
                                      &count));
    int ne = 0;
    const fdnn_graph_engine_t *list = fdnn_graph_engines(&ne);
    CHECK(count == ne);
    for (int i = 0; i < ne; i++) {
        bd_t e = be_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        int64_t gi = list[i].global_index;
        CHECK_OK(cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                          &graph));
        CHECK_OK(cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &gi));
        cudnnStatus_t st = cudnnBackendFinalize(e);
        CHECK(st == CUDNN_STATUS_SUCCESS || st == CUDNN_STATUS_NOT_SUPPORTED);
        if (st == CUDNN_STATUS_NOT_SUPPORTED)
            CHECK(strstr(fdnn_fail_reason(), list[i].name) != NULL);
        cudnnBackendDestroyDescriptor(e);
    }
    bd_t e = be_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    int64_t bad = 1000;
    CHECK_OK(cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph));
    CHECK_OK(cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &bad));
    CHECK_STATUS(cudnnBackendFinalize(e), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(strstr(fdnn_fail_reason(), "CUDNN_ATTR_ENGINE_GLOBAL_INDEX 1000") != NULL);
    bd_t parts[] = {e, x, y, sig, op, graph};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]);
}

/* FP8 through the API as a program would: y (E4M3) = (A (E4M3) x B (E5M2))
 * x scale, FLOAT compute; the plan's output against the float64
 * composition encoded once (convert_fp8.h), and after a JSON round trip the
 * same bits. */
static void
test_fp8_matmul_scale(void)
{
    int64_t ad[3] = {1, 4, 8}, bdm[3] = {1, 8, 3}, cd[3] = {1, 4, 3}, one[3] = {1, 1, 1};
    bd_t a = be_tensor_full(1, CUDNN_DATA_FP8_E4M3, 3, ad, NULL, false, false);
    bd_t b = be_tensor_full(2, CUDNN_DATA_FP8_E5M2, 3, bdm, NULL, false, false);
    bd_t v = be_tensor(9, 3, cd, true);
    bd_t y = be_tensor_full(3, CUDNN_DATA_FP8_E4M3, 3, cd, NULL, false, false);
    bd_t sc = be_tensor_full(4, CUDNN_DATA_FLOAT, 3, one, NULL, false, true);
    bd_t mul = be_pw_desc(CUDNN_POINTWISE_MUL);
    bd_t ops[2] = {be_matmul_op(a, b, v), be_pw_op(mul, v, sc, y)};
    bd_t graph = be_graph(handle, ops, 2, NULL);
    int64_t wsb = 0;
    bd_t plan = plan_for(graph, &wsb);
    if (plan != NULL) {
        _Alignas(16) uint8_t as[32], bs[24], ys[12], ys2[12];
        _Alignas(16) float s = 8.5f;
        for (int i = 0; i < 32; i++)
            as[i] = (uint8_t)((i * 37 + 11) % 0x7F) | (uint8_t)(i % 3 == 0 ? 0x80 : 0); /* no NaN code */
        for (int i = 0; i < 24; i++)
            bs[i] = (uint8_t)(0x30 + (i * 5) % 24) | (uint8_t)(i % 4 == 1 ? 0x80 : 0);
        memset(ys, 0xA5, sizeof(ys));
        void *wsp = wsb ? fdnn_guarded_alloc((size_t)wsb) : NULL;
        int64_t uids[4] = {1, 2, 3, 4};
        bd_t vp = pack_for(uids, (void *[]){as, bs, ys, &s}, 4, wsp);
        CHECK_OK(cudnnBackendExecute(handle, plan, vp));
        int bad = 0;
        for (int m = 0; m < 4; m++)
            for (int n = 0; n < 3; n++) {
                double acc = 0;
                for (int k = 0; k < 8; k++)
                    acc += (double)fdnn_fp8_to_f32(as[m * 8 + k], FDNN_FP8_E4M3) *
                           fdnn_fp8_to_f32(bs[k * 3 + n], FDNN_FP8_E5M2);
                double r = acc * s;
                uint8_t got = ys[m * 3 + n];
                bad += got != fdnn_f64_to_fp8(r, FDNN_FP8_E4M3, FDNN_FP8_SATFINITE) &&
                       got != fdnn_f64_to_fp8(r * (1 + 1e-6), FDNN_FP8_E4M3, FDNN_FP8_SATFINITE) &&
                       got != fdnn_f64_to_fp8(r * (1 - 1e-6), FDNN_FP8_E4M3, FDNN_FP8_SATFINITE);
            }
        CHECK_MSG(bad == 0, "FP8 matmul x scale through the API: %d of 12 codes wrong", bad);
        bd_t plan2 = plan_from_json(plan);
        memset(ys2, 0x5A, sizeof(ys2));
        bd_t vp2 = pack_for(uids, (void *[]){as, bs, ys2, &s}, 4, wsp);
        CHECK_OK(cudnnBackendExecute(handle, plan2, vp2));
        CHECK(memcmp(ys, ys2, sizeof(ys)) == 0);
        bd_t tmp[] = {vp, vp2, plan2, plan};
        for (size_t i = 0; i < sizeof(tmp) / sizeof(tmp[0]); i++)
            cudnnBackendDestroyDescriptor(tmp[i]);
        fdnn_guarded_free(wsp);
    }
    bd_t parts[] = {a, b, v, y, sc, mul, ops[0], ops[1], graph};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]);
}

/* A plain convolution: the heuristics' first result is the conv-solver
 * engine of _v7's first algorithm (global index 3..22); its plan survives
 * the JSON round trip (same text, same bits) and matches float64. */
static void
test_conv_solver_engine_json(void)
{
    int64_t xd[4] = {N, C, H, W}, wd[4] = {K, C, R, S}, yd[4] = {N, K, H, W};
    bd_t x = be_tensor(1, 4, xd, false), w = be_tensor(2, 4, wd, false), y = be_tensor(4, 4, yd, false);
    bd_t conv = be_conv_desc(2, 1, 1, 1);
    bd_t op = be_conv_fwd(x, w, y, conv, true);
    bd_t graph = be_graph(handle, &op, 1, NULL);
    int64_t wsb = 0;
    bd_t plan = plan_for(graph, &wsb);
    if (plan == NULL) {
        cudnnBackendDestroyDescriptor(graph);
        return;
    }
    bd_t cfg = be_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR), eng = be_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    int64_t n = 0, gi = -1;
    CHECK_OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &n, &cfg));
    CHECK_OK(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng));
    CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &gi));
    const fdnn_graph_engine_t *e = fdnn_graph_engine_by_index(gi);
    CHECK_MSG(e != NULL && strncmp(e->name, "conv_fwd_", 9) == 0, "first engine of a conv graph: %lld (%s)",
              (long long)gi, e != NULL ? e->name : "none");
    _Alignas(16) float xs[N * C * H * W], ws[K * C * R * S], ys[N * K * H * W], ys2[N * K * H * W];
    fill(xs, sizeof(xs) / 4, 5), fill(ws, sizeof(ws) / 4, 6);
    void *wsp = wsb ? fdnn_guarded_alloc((size_t)wsb) : NULL;
    int64_t uids[3] = {1, 2, 4};
    fdnn_poison_f32(ys, N * K * H * W);
    bd_t vp = pack_for(uids, (void *[]){xs, ws, ys}, 3, wsp);
    CHECK_OK(cudnnBackendExecute(handle, plan, vp));
    fdnn_conv_problem_t p = {0};
    p.nsp = 2, p.n = N, p.g = 1, p.c = C, p.k = K;
    int64_t in[3] = {1, H, W}, ker[3] = {1, R, S}, pad[3] = {0, 1, 1}, one3[3] = {1, 1, 1};
    memcpy(p.in, in, sizeof(in)), memcpy(p.out, in, sizeof(in)), memcpy(p.ker, ker, sizeof(ker));
    memcpy(p.pad, pad, sizeof(pad)), memcpy(p.stride, one3, sizeof(one3)), memcpy(p.dil, one3, sizeof(one3));
    double xd64[N * C * H * W], wd64[K * C * R * S], ref[N * K * H * W], err = 0;
    for (size_t i = 0; i < sizeof(xs) / 4; i++)
        xd64[i] = xs[i];
    for (size_t i = 0; i < sizeof(ws) / 4; i++)
        wd64[i] = ws[i];
    fdnn_ref_conv_fwd(&p, xd64, wd64, ref);
    for (int i = 0; i < N * K * H * W; i++)
        err = fmax(err, isnan(ys[i]) ? INFINITY : fabs(ys[i] - ref[i]) / (1 + fabs(ref[i])));
    CHECK_MSG(err < 1e-5, "conv-solver engine: error %g", err);
    bd_t plan2 = plan_from_json(plan);
    fdnn_poison_f32(ys2, N * K * H * W);
    bd_t vp2 = pack_for(uids, (void *[]){xs, ws, ys2}, 3, wsp);
    CHECK_OK(cudnnBackendExecute(handle, plan2, vp2));
    CHECK_MSG(memcmp(ys, ys2, sizeof(ys)) == 0, "the conv-solver plan from its JSON gives other bits");
    bd_t parts[] = {vp, vp2, plan, plan2, cfg, eng, x, w, y, conv, op, graph};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]);
    fdnn_guarded_free(wsp);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    test_conv_bias_relu();
    test_matmul_gelu();
    test_by_value_scale();
    test_reduction_sum();
    test_conv_scale_bias_relu_add();
    test_sdpa();
    test_engines_by_index();
    test_conv_solver_engine_json();
    test_fp8_matmul_scale();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_backend_exec");
}
