/* SPDX-License-Identifier: Apache-2.0
 * The attention engine (src/cpu/graph/engine_sdpa.c) on the graph cuDNN
 * 8.9's frontend builds for scaled dot-product attention: matmul, scale,
 * optional causal mask (GEN_INDEX x2, CMP_GE, BINARY_SELECT), softmax as
 * MAX / SUB / EXP / ADD / DIV, matmul.
 *   - against a float64 reference and against the generic engine running
 *     the same graph node by node (tolerance 2e-6 relative to max |O|: the
 *     softmax is summed in another order);
 *   - K given transposed through its strides, several key blocks and a
 *     short last one; 1 vs 2 threads bitwise;
 *   - graphs that are not attention are declined with a reason. */
#define _POSIX_C_SOURCE 200809L
#include <sys/resource.h>
#include <time.h>

#include "test_graph_engines.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;
/* K^T stored packed [B,H,D,Sk] instead of K [B,H,Sk,D] (the engine's
 * strided path) */
static bool kt_packed;

typedef struct attn {
    gb_t b;
    int q, kt, v, o;
} attn_t;

/* Q [B,H,S,D], K stored [B,H,Sk,D] and given as K^T [B,H,D,Sk] through
 * strides, V [B,H,Sk,D], O [B,H,S,D]. */
static void
build(attn_t *a, int64_t B, int64_t H, int64_t S, int64_t Sk, int64_t D, bool scale, bool causal)
{
    gb_t *b = &a->b;
    gb_init(b);
    const int64_t qd[4] = {B, H, S, D}, ktd[4] = {B, H, D, Sk}, kts[4] = {H * Sk * D, Sk * D, 1, D},
                  vd[4] = {B, H, Sk, D}, sd[4] = {B, H, S, Sk}, rd[4] = {B, H, S, 1};
    a->q = gb_tensor(b, CUDNN_DATA_FLOAT, 4, qd, false);
    a->kt = gb_tensor_s(b, CUDNN_DATA_FLOAT, 4, ktd, kt_packed ? NULL : kts, false);
    a->v = gb_tensor(b, CUDNN_DATA_FLOAT, 4, vd, false);
    int s = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    gb_matmul(b, CUDNN_DATA_FLOAT, a->q, a->kt, s);
    if (scale) {
        int s2 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
        gb_pw(b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, s, gb_scalar_f32(b, 0.125f), FDNN_GRAPH_NONE, s2);
        s = s2;
    }
    if (causal) {
        int r = gb_tensor(b, CUDNN_DATA_INT32, 4, sd, true), c = gb_tensor(b, CUDNN_DATA_INT32, 4, sd, true);
        int m = gb_tensor(b, CUDNN_DATA_BOOLEAN, 4, sd, true), s2 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
        gb_pw(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, s, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, r)->axis = 2;
        gb_pw(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, s, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, c)->axis = 3;
        gb_pw(b, CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_FLOAT, r, c, FDNN_GRAPH_NONE, m);
        gb_pw(b, CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, s, gb_scalar_f32(b, -1e9f), m, s2);
        s = s2;
    }
    int mx = gb_tensor(b, CUDNN_DATA_FLOAT, 4, rd, true), e1 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    int e2 = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true), sm = gb_tensor(b, CUDNN_DATA_FLOAT, 4, rd, true);
    int p = gb_tensor(b, CUDNN_DATA_FLOAT, 4, sd, true);
    gb_reduction(b, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, s, mx);
    gb_pw(b, CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, s, mx, FDNN_GRAPH_NONE, e1);
    gb_pw(b, CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, e1, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, e2);
    gb_reduction(b, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, e2, sm);
    gb_pw(b, CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, e2, sm, FDNN_GRAPH_NONE, p);
    a->o = gb_tensor(b, CUDNN_DATA_FLOAT, 4, qd, false);
    gb_matmul(b, CUDNN_DATA_FLOAT, p, a->v, a->o);
    gb_fill(b, a->q, &rng, -1, 1);
    gb_fill(b, a->kt, &rng, -1, 1);
    gb_fill(b, a->v, &rng, -1, 1);
}

static void
check_case(int64_t B, int64_t H, int64_t S, int64_t Sk, int64_t D, bool scale, bool causal)
{
    attn_t a;
    build(&a, B, H, S, Sk, D, scale, causal);
    gb_t *b = &a.b;
    int64_t n = B * H * S * D;
    double *ref = malloc(sizeof(double) * (size_t)n), *gen = malloc(sizeof(double) * (size_t)n);
    double *w = malloc(sizeof(double) * (size_t)Sk);
    double omax = 0;
    for (int64_t bh = 0; bh < B * H; bh++)
        for (int64_t i = 0; i < S; i++) {
            double m = -INFINITY, l = 0;
            for (int64_t j = 0; j < Sk; j++) {
                double dot = 0;
                for (int64_t d = 0; d < D; d++)
                    dot += gb_get(b, a.q, (bh * S + i) * D + d) * gb_get(b, a.kt, (bh * D + d) * Sk + j);
                if (scale)
                    dot *= 0.125;
                if (causal && j > i)
                    dot = -1e9;
                w[j] = dot;
                m = dot > m ? dot : m;
            }
            for (int64_t j = 0; j < Sk; j++)
                l += (w[j] = exp(w[j] - m));
            for (int64_t d = 0; d < D; d++) {
                double o = 0;
                for (int64_t j = 0; j < Sk; j++)
                    o += w[j] / l * gb_get(b, a.v, (bh * Sk + j) * D + d);
                ref[(bh * S + i) * D + d] = o;
                omax = fabs(o) > omax ? fabs(o) : omax;
            }
        }
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), b));
    for (int64_t i = 0; i < n; i++)
        gen[i] = gb_get(b, a.o, i);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), b));
    int bad_ref = 0, bad_gen = 0;
    for (int64_t i = 0; i < n; i++) {
        double got = gb_get(b, a.o, i);
        bad_ref += !(fabs(got - ref[i]) <= 2e-6 * omax * 4);
        bad_gen += !(fabs(got - gen[i]) <= 2e-6 * omax * 4);
    }
    CHECK_MSG(bad_ref == 0 && bad_gen == 0,
              "sdpa B%lld H%lld S%lld Sk%lld D%lld scale %d causal %d: %d off the reference, %d off the generic engine",
              (long long)B, (long long)H, (long long)S, (long long)Sk, (long long)D, scale, causal, bad_ref, bad_gen);
    free(ref);
    free(gen);
    free(w);
    gb_free(b);
}

static void
test_threads(void)
{
    attn_t a;
    build(&a, 2, 2, 96, 150, 32, true, true);
    size_t bytes = 2 * 2 * 96 * 32 * 4;
    float *one = malloc(bytes);
    CHECK_OK(freednnSetNumThreads(handle, 1));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &a.b));
    memcpy(one, a.b.data[a.o], bytes);
    CHECK_OK(freednnSetNumThreads(handle, 2));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &a.b));
    CHECK(memcmp(one, a.b.data[a.o], bytes) == 0);
    CHECK_OK(freednnSetNumThreads(handle, 1));
    free(one);
    gb_free(&a.b);
}

static void
test_declined(void)
{
    /* a matmul + GELU is not attention */
    gb_t b;
    gb_init(&b);
    const int64_t d[4] = {1, 1, 4, 4};
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, true);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, d, false);
    gb_matmul(&b, CUDNN_DATA_FLOAT, x, x, v);
    gb_pw(&b, CUDNN_POINTWISE_GELU_FWD, CUDNN_DATA_FLOAT, v, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    fdnn_fail_clear();
    CHECK_STATUS(gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH)->supports(&b.g), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(strstr(fdnn_fail_reason(), "sdpa engine") != NULL);
    gb_free(&b);
    /* attention in DOUBLE is not done */
    attn_t a;
    build(&a, 1, 1, 4, 4, 4, true, false);
    for (int i = 0; i < a.b.g.ntensors; i++)
        if (a.b.t[i].dtype == CUDNN_DATA_FLOAT && !a.b.t[i].by_value && i == a.q)
            a.b.t[i].dtype = CUDNN_DATA_DOUBLE;
    fdnn_fail_clear();
    CHECK_STATUS(gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH)->supports(&a.b.g), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(strstr(fdnn_fail_reason(), "FLOAT") != NULL);
    gb_free(&a.b);
}

/* FDNN_GRAPH_BENCH=sdpa: B=4, H=16, D=64, S=512 (and 2048 with
 * FDNN_GRAPH_BENCH=sdpa2048), causal off, 1 thread, CPU time of the thread,
 * best of 3; prints the peak RSS. */
static void
bench(int64_t S)
{
    attn_t a;
    build(&a, 4, 16, S, S, 64, true, false);
    fdnn_graph_knobs_t knobs = {0};
    size_t ws = 0;
    const fdnn_graph_engine_t *e = gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH);
    CHECK_OK(e->workspace(&a.b.g, &knobs, &ws));
    void *w = malloc(ws + 1);
    fdnn_graph_exec_t x = {handle, &a.b.g, &knobs, a.b.data, w, ws};
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        CHECK_OK(e->execute(&x));
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        double t = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        best = t < best ? t : best;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("bench sdpa B=4 H=16 S=%lld D=64 fp32 forward, 1 thread: %.1f ms, workspace %zu bytes, peak RSS %ld MiB\n",
           (long long)S, best * 1e3, ws, ru.ru_maxrss / 1024);
    free(w);
    gb_free(&a.b);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    fdnn_rng_seed(&rng, 2048);
    check_case(1, 1, 5, 7, 4, false, false);
    check_case(2, 3, 33, 33, 16, true, false);
    check_case(2, 2, 70, 130, 64, true, true); /* keys in blocks of 64: 64 + 64 + 2 */
    check_case(1, 2, 64, 64, 8, false, true);
    kt_packed = true;
    check_case(2, 2, 40, 100, 12, true, true);
    kt_packed = false;
    test_threads();
    test_declined();
    const char *bn = getenv("FDNN_GRAPH_BENCH");
    if (bn != NULL && strstr(bn, "sdpa2048"))
        bench(2048);
    else if (bn != NULL && strstr(bn, "sdpa"))
        bench(512);
    cudnnDestroy(handle);
    return fdnn_test_finish("test_graph_sdpa");
}
