/* SPDX-License-Identifier: Apache-2.0
 * The attention backward graph through the backend API, as a frontend
 * builds it (test_graph_sdpa.h's graph: dV^T = dO^T x P, dP = dO x V^T,
 * dS = P (dP - rowsum(dO o O)) x scale, dQ = dS x K, dK^T = Q^T x dS, the
 * transposes as strides of the graph's inputs and outputs): it finalizes,
 * the heuristics put the attention engine first, and every engine they
 * offer matches the float64 gradients. */
#include <math.h>
#include <string.h>

#include "core/fail.h"
#include "core/graph_ir.h"
#include "cpu/graph/engines.h"
#include "test_backend_build.h"

enum { B = 1, H = 2, SQ = 5, SK = 7, D = 4 };

static cudnnHandle_t handle;

static bd_t
reduce_op(cudnnReduceTensorOp_t op, bd_t x, bd_t y)
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

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    /* logical Q [SQ][D], K [SK][D], V, dO, per head; buffers as stored */
    static float q[B * H * SQ * D], k[B * H * SK * D], v[B * H * SK * D], o[B * H * SQ * D], dout[B * H * SQ * D];
    static float stats[B * H * SQ], dq[B * H * SQ * D], dk[B * H * SK * D], dv[B * H * SK * D];
    float sc = 0.125f;
    fdnn_rng_t r;
    fdnn_rng_seed(&r, 99);
    for (int i = 0; i < B * H * SQ * D; i++)
        q[i] = (float)fdnn_rng_uniform(&r, -1, 1), dout[i] = (float)fdnn_rng_uniform(&r, -1, 1);
    for (int i = 0; i < B * H * SK * D; i++)
        k[i] = (float)fdnn_rng_uniform(&r, -1, 1), v[i] = (float)fdnn_rng_uniform(&r, -1, 1);
    /* forward in double: O and the stats as a forward graph would give them */
    double P[B * H][SQ][SK];
    for (int h = 0; h < B * H; h++)
        for (int i = 0; i < SQ; i++) {
            double s[SK], m = -INFINITY, l = 0;
            for (int j = 0; j < SK; j++) {
                double acc = 0;
                for (int d = 0; d < D; d++)
                    acc += (double)q[(h * SQ + i) * D + d] * k[(h * SK + j) * D + d];
                s[j] = acc * sc;
                m = s[j] > m ? s[j] : m;
            }
            for (int j = 0; j < SK; j++)
                l += exp(s[j] - m);
            stats[h * SQ + i] = (float)(m + log(l));
            for (int j = 0; j < SK; j++)
                P[h][i][j] = exp(s[j] - stats[h * SQ + i]);
            for (int d = 0; d < D; d++) {
                double acc = 0;
                for (int j = 0; j < SK; j++)
                    acc += P[h][i][j] * v[(h * SK + j) * D + d];
                o[(h * SQ + i) * D + d] = (float)acc;
            }
        }
    double rq[B * H * SQ * D] = {0}, rk[B * H * SK * D] = {0}, rv[B * H * SK * D] = {0};
    for (int h = 0; h < B * H; h++)
        for (int i = 0; i < SQ; i++) {
            double dr = 0;
            for (int d = 0; d < D; d++)
                dr += (double)dout[(h * SQ + i) * D + d] * o[(h * SQ + i) * D + d];
            for (int j = 0; j < SK; j++) {
                double dp = 0;
                for (int d = 0; d < D; d++)
                    dp += (double)dout[(h * SQ + i) * D + d] * v[(h * SK + j) * D + d];
                double ds = P[h][i][j] * (dp - dr) * sc;
                for (int d = 0; d < D; d++) {
                    rv[(h * SK + j) * D + d] += P[h][i][j] * dout[(h * SQ + i) * D + d];
                    rk[(h * SK + j) * D + d] += ds * q[(h * SQ + i) * D + d];
                    rq[(h * SQ + i) * D + d] += ds * k[(h * SK + j) * D + d];
                }
            }
        }
    /* the graph */
    const int64_t qd[4] = {B, H, SQ, D}, qtd[4] = {B, H, D, SQ}, ktd[4] = {B, H, D, SK}, kd[4] = {B, H, SK, D};
    const int64_t sd[4] = {B, H, SQ, SK}, rd[4] = {B, H, SQ, 1}, one[4] = {1, 1, 1, 1};
    const int64_t kts[4] = {H * SK * D, SK * D, 1, D}, qts[4] = {H * SQ * D, SQ * D, 1, D};
    bd_t tq = be_tensor(1, 4, qd, false), tqt = be_tensor_full(2, CUDNN_DATA_FLOAT, 4, qtd, qts, false, false);
    bd_t tkt = be_tensor_full(3, CUDNN_DATA_FLOAT, 4, ktd, kts, false, false), tk = be_tensor(4, 4, kd, false);
    bd_t tvt = be_tensor_full(5, CUDNN_DATA_FLOAT, 4, ktd, kts, false, false), to = be_tensor(6, 4, qd, false);
    bd_t tdo = be_tensor(7, 4, qd, false), tdot = be_tensor_full(8, CUDNN_DATA_FLOAT, 4, qtd, qts, false, false);
    bd_t tst = be_tensor(9, 4, rd, false), tsc = be_tensor_full(10, CUDNN_DATA_FLOAT, 4, one, NULL, false, true);
    bd_t tdq = be_tensor(11, 4, qd, false), tdkt = be_tensor_full(12, CUDNN_DATA_FLOAT, 4, ktd, kts, false, false);
    bd_t tdvt = be_tensor_full(13, CUDNN_DATA_FLOAT, 4, ktd, kts, false, false);
    bd_t v0 = be_tensor(20, 4, sd, true), v1 = be_tensor(21, 4, sd, true), v2 = be_tensor(22, 4, sd, true);
    bd_t v3 = be_tensor(23, 4, sd, true), v4 = be_tensor(24, 4, sd, true), v5 = be_tensor(25, 4, sd, true);
    bd_t v6 = be_tensor(26, 4, sd, true), v7 = be_tensor(27, 4, sd, true), v8 = be_tensor(28, 4, qd, true);
    bd_t v9 = be_tensor(29, 4, rd, true);
    bd_t mul = be_pw_desc(CUDNN_POINTWISE_MUL), sub = be_pw_desc(CUDNN_POINTWISE_SUB);
    bd_t ex = be_pw_desc(CUDNN_POINTWISE_EXP);
    bd_t ops[] = {
        be_matmul_op(tq, tkt, v0),     be_pw_op(mul, v0, tsc, v1),  be_pw_op(sub, v1, tst, v2),
        be_pw_op(ex, v2, NULL, v3),    be_matmul_op(tdot, v3, tdvt), be_matmul_op(tdo, tvt, v4),
        be_pw_op(mul, tdo, to, v8),    reduce_op(CUDNN_REDUCE_TENSOR_ADD, v8, v9),
        be_pw_op(sub, v4, v9, v5),     be_pw_op(mul, v3, v5, v6),   be_pw_op(mul, v6, tsc, v7),
        be_matmul_op(v7, tk, tdq),     be_matmul_op(tqt, v7, tdkt),
    };
    const int nops = (int)(sizeof(ops) / sizeof(ops[0]));
    bd_t graph = be_graph(handle, ops, nops, NULL);
    bd_t heur = be_create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_INSTANT;
    CHECK_OK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &graph));
    CHECK_OK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    CHECK_OK(cudnnBackendFinalize(heur));
    int64_t nres = 0;
    CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &nres, NULL));
    CHECK(nres >= 2); /* the attention engine and the generic one */
    bd_t cfgs[4];
    int64_t want = nres < 4 ? nres : 4, got = 0;
    for (int64_t i = 0; i < want; i++)
        cfgs[i] = be_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, want, &got,
                                      cfgs));
    for (int64_t c = 0; c < got; c++) {
        bd_t eng = be_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        int64_t n = 0, gi = -1, wb = 0;
        CHECK_OK(cudnnBackendGetAttribute(cfgs[c], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                          &eng));
        CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &gi));
        if (c == 0)
            CHECK_MSG(gi == FDNN_GRAPH_ENGINE_SDPA_FLASH, "the backward graph went to engine %lld first", (long long)gi);
        bd_t plan = be_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
        CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                          1, &cfgs[c]));
        CHECK_OK(cudnnBackendFinalize(plan));
        CHECK_OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &wb));
        void *ws = wb ? fdnn_guarded_alloc((size_t)wb) : NULL;
        fdnn_poison_f32(dq, B * H * SQ * D), fdnn_poison_f32(dk, B * H * SK * D), fdnn_poison_f32(dv, B * H * SK * D);
        /* K^T, V^T, Q^T, dO^T are views of the same buffers */
        int64_t uids[13] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
        void *ptrs[13] = {q, q, k, k, v, o, dout, dout, stats, &sc, dq, dk, dv};
        bd_t vp = be_create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
        CHECK_OK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 13, uids));
        CHECK_OK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 13, ptrs));
        CHECK_OK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
        CHECK_OK(cudnnBackendFinalize(vp));
        CHECK_OK(cudnnBackendExecute(handle, plan, vp));
        double err = 0;
        for (int i = 0; i < B * H * SQ * D; i++)
            err = fmax(err, isnan(dq[i]) ? INFINITY : fabs(dq[i] - rq[i]));
        for (int i = 0; i < B * H * SK * D; i++) {
            err = fmax(err, isnan(dk[i]) ? INFINITY : fabs(dk[i] - rk[i]));
            err = fmax(err, isnan(dv[i]) ? INFINITY : fabs(dv[i] - rv[i]));
        }
        CHECK_MSG(err < 2e-6, "attention backward on engine %lld: max error %g", (long long)gi, err);
        cudnnBackendDestroyDescriptor(vp);
        cudnnBackendDestroyDescriptor(plan);
        cudnnBackendDestroyDescriptor(eng);
        fdnn_guarded_free(ws);
    }
    for (int64_t i = 0; i < want; i++)
        cudnnBackendDestroyDescriptor(cfgs[i]);
    bd_t parts[] = {heur, graph, tq, tqt, tkt, tk, tvt, to, tdo, tdot, tst, tsc, tdq, tdkt, tdvt,
                    v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, mul, sub, ex};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        cudnnBackendDestroyDescriptor(parts[i]);
    for (int i = 0; i < nops; i++)
        cudnnBackendDestroyDescriptor(ops[i]);
    cudnnDestroy(handle);
    return fdnn_test_finish("test_backend_sdpa");
}
