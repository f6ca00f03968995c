/* SPDX-License-Identifier: Apache-2.0
 * The attention engine's forward (src/cpu/graph/engine_sdpa.c) on the
 * graphs cuDNN 8.9's frontend builds for scaled dot-product attention
 * (test_graph_sdpa.h): matmul, scale, padding mask (sequence lengths),
 * causal mask, softmax with or without the stats output, dropout (Philox
 * RNG node or a given mask), matmul; FLOAT, HALF and BFLOAT16 I/O.
 *   - against a float64 reference and against the generic engine running
 *     the same graph node by node (tolerance 8e-6 relative to max |O| in
 *     FLOAT: the softmax is summed in another order);
 *   - against PyTorch (float64 values of softmax(Q K^T / 2) V and its
 *     logsumexp, plain and causal, in test_graph_sdpa_torch.h with the
 *     script that made them);
 *   - several key blocks and a short last one; 1 vs 2 threads bitwise;
 *   - graphs that are not attention are declined with a reason. */
#define _POSIX_C_SOURCE 200809L
#include <sys/resource.h>
#include <time.h>

#include "test_graph_sdpa.h"
#include "test_graph_sdpa_torch.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

static double
io_tol(cudnnDataType_t io)
{
    return io == CUDNN_DATA_FLOAT ? 8e-6 : io == CUDNN_DATA_HALF ? 2e-3 : 1.6e-2;
}

static void
check_case(sdpa_opts_t o)
{
    sdpa_graph_t s;
    sg_build_fwd(&s, &o, &rng, false);
    gb_t *b = &s.b;
    int64_t n = sg_n(&s, o.Sq), nl = o.B * o.H * o.Sq;
    double *ref = malloc(sizeof(double) * (size_t)n), *gen = malloc(sizeof(double) * (size_t)n);
    double *got = malloc(sizeof(double) * (size_t)n), *lref = malloc(sizeof(double) * (size_t)nl);
    double *lgot = malloc(sizeof(double) * (size_t)nl), *lgen = malloc(sizeof(double) * (size_t)nl);
    sg_ref_fwd(&s, ref, lref);
    /* the generic engine's matmuls are FLOAT / DOUBLE: HALF and BFLOAT16
     * graphs are checked against the reference alone */
    bool generic = o.io == CUDNN_DATA_FLOAT;
    if (generic) {
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), b));
        sg_get(b, s.out, gen, o.B * o.H, o.Sq, o.D, false);
        for (int64_t i = 0; o.stats && i < nl; i++)
            lgen[i] = gb_get(b, s.stats, i);
    }
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), b));
    sg_get(b, s.out, got, o.B * o.H, o.Sq, o.D, false);
    if (!generic) {
        memcpy(gen, got, sizeof(double) * (size_t)n);
        for (int64_t i = 0; o.stats && i < nl; i++)
            lgen[i] = gb_get(b, s.stats, i);
    }
    double tol = io_tol(o.io);
    int bad_ref = sg_misses(got, ref, n, tol), bad_gen = sg_misses(got, gen, n, tol), bad_l = 0;
    for (int64_t i = 0; o.stats && i < nl; i++) {
        lgot[i] = gb_get(b, s.stats, i);
        bad_l += !(fabs(lgot[i] - lref[i]) <= 1e-5 * (1 + fabs(lref[i])) && fabs(lgot[i] - lgen[i]) <= 1e-5 * (1 + fabs(lref[i])));
    }
    CHECK_MSG(bad_ref == 0 && bad_gen == 0 && bad_l == 0,
              "sdpa B%lld H%lld Sq%lld Sk%lld D%lld scale %d causal %d padding %d stats %d dropout %d io %d: %d off the "
              "reference, %d off the generic engine, %d stats off",
              (long long)o.B, (long long)o.H, (long long)o.Sq, (long long)o.Sk, (long long)o.D, o.scale, o.causal,
              o.padding, o.stats, o.dropout, (int)o.io, bad_ref, bad_gen, bad_l);
    free(ref), free(gen), free(got), free(lref), free(lgot), free(lgen);
    sg_free(&s);
}

/* PyTorch's float64 values (test_graph_sdpa_torch.h) for B1 H2 Sq5 Sk7 D4,
 * scale 0.125, with the stats output. */
static void
check_torch(bool causal)
{
    sdpa_opts_t o = {1, 2, 5, 7, 4, true, causal, false, true, 0, CUDNN_DATA_FLOAT, false};
    sdpa_graph_t s;
    sg_build_fwd(&s, &o, &rng, true);
    double got[40], lse[10];
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &s.b));
    sg_get(&s.b, s.out, got, 2, 5, 4, false);
    for (int i = 0; i < 10; i++)
        lse[i] = gb_get(&s.b, s.stats, i);
    const double *to = causal ? torch_causal_o : torch_plain_o, *tl = causal ? torch_causal_lse : torch_plain_lse;
    CHECK_MSG(sg_misses(got, to, 40, 2e-6) == 0 && sg_misses(lse, tl, 10, 2e-6) == 0,
              "sdpa forward vs PyTorch (causal %d): O or logsumexp off", causal);
    sg_free(&s);
}

static void
test_threads(void)
{
    sdpa_opts_t o = {2, 2, 96, 150, 32, true, true, true, true, 1, CUDNN_DATA_FLOAT, false};
    sdpa_graph_t s;
    sg_build_fwd(&s, &o, &rng, false);
    size_t bytes = 2 * 2 * 96 * 32 * 4, lb = 2 * 2 * 96 * 4;
    float *one = malloc(bytes), *l1 = malloc(lb);
    CHECK_OK(freednnSetNumThreads(handle, 1));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &s.b));
    memcpy(one, s.b.data[s.out], bytes);
    memcpy(l1, s.b.data[s.stats], lb);
    CHECK_OK(freednnSetNumThreads(handle, 2));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &s.b));
    CHECK(memcmp(one, s.b.data[s.out], bytes) == 0);
    CHECK(memcmp(l1, s.b.data[s.stats], lb) == 0);
    CHECK_OK(freednnSetNumThreads(handle, 1));
    free(one), free(l1);
    sg_free(&s);
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
    sdpa_opts_t o = {1, 1, 4, 4, 4, true, false, false, false, 0, CUDNN_DATA_FLOAT, false};
    sdpa_graph_t s;
    sg_build_fwd(&s, &o, &rng, false);
    s.b.t[s.q].dtype = CUDNN_DATA_DOUBLE;
    fdnn_fail_clear();
    CHECK_STATUS(gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH)->supports(&s.b.g), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(strstr(fdnn_fail_reason(), "FLOAT") != NULL);
    s.b.t[s.q].dtype = CUDNN_DATA_FLOAT;
    sg_free(&s);
    /* a stats output of the wrong type */
    o.stats = true;
    sg_build_fwd(&s, &o, &rng, false);
    s.b.t[s.stats].dtype = CUDNN_DATA_HALF;
    fdnn_fail_clear();
    CHECK_STATUS(gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH)->supports(&s.b.g), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(strstr(fdnn_fail_reason(), "stats") != NULL);
    s.b.t[s.stats].dtype = CUDNN_DATA_FLOAT;
    sg_free(&s);
    /* an intermediate (the max) marked as a graph output: the engine would
     * leave it unwritten, so it declines */
    o.stats = false;
    sg_build_fwd(&s, &o, &rng, false);
    for (int i = 0; i < s.b.g.nnodes; i++)
        if (s.b.n[i].kind == FDNN_GOP_REDUCTION && s.b.n[i].u.reduction.op == CUDNN_REDUCE_TENSOR_MAX)
            s.b.t[s.b.n[i].u.reduction.y].is_virtual = false;
    fdnn_fail_clear();
    CHECK_STATUS(gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH)->supports(&s.b.g), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(strstr(fdnn_fail_reason(), "graph output") != NULL);
    for (int i = 0; i < s.b.g.nnodes; i++)
        if (s.b.n[i].kind == FDNN_GOP_REDUCTION && s.b.n[i].u.reduction.op == CUDNN_REDUCE_TENSOR_MAX)
            s.b.t[s.b.n[i].u.reduction.y].is_virtual = true;
    /* a softmax over the queries (reductions to [B,H,1,Sk]) is not attention */
    for (int i = 0; i < s.b.g.nnodes; i++)
        if (s.b.n[i].kind == FDNN_GOP_REDUCTION) {
            fdnn_graph_tensor_t *y = &s.b.t[s.b.n[i].u.reduction.y];
            y->dims[2] = 1, y->dims[3] = o.Sk, y->strides[2] = o.Sk, y->strides[3] = 1;
        }
    fdnn_fail_clear();
    CHECK_STATUS(gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH)->supports(&s.b.g), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(strstr(fdnn_fail_reason(), "keys only") != NULL);
    sg_free(&s);
}

/* FDNN_GRAPH_BENCH=sdpa: B=4, H=16, D=64, S=512 (and 2048 with
 * FDNN_GRAPH_BENCH=sdpa2048), causal off, 1 thread, CPU time of the thread,
 * best of 3; prints the peak RSS. */
static void
bench(int64_t S)
{
    sdpa_opts_t o = {4, 16, S, S, 64, true, false, false, true, 0, CUDNN_DATA_FLOAT, false};
    sdpa_graph_t s;
    sg_build_fwd(&s, &o, &rng, false);
    fdnn_graph_knobs_t knobs = {0};
    size_t ws = 0;
    const fdnn_graph_engine_t *e = gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH);
    CHECK_OK(e->workspace(&s.b.g, &knobs, &ws));
    void *w = malloc(ws + 1);
    fdnn_graph_exec_t x = {handle, &s.b.g, &knobs, s.b.data, w, ws};
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
    printf("bench sdpa B=4 H=16 S=%lld D=64 fp32 forward + stats, 1 thread: %.1f ms, workspace %zu bytes, peak RSS "
           "%ld MiB\n",
           (long long)S, best * 1e3, ws, ru.ru_maxrss / 1024);
    free(w);
    sg_free(&s);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    fdnn_rng_seed(&rng, 2048);
    const cudnnDataType_t F = CUDNN_DATA_FLOAT;
    /*                B  H  Sq   Sk   D  scale  causal padding stats dropout io */
    check_case((sdpa_opts_t){1, 1, 5, 7, 4, false, false, false, false, 0, F, false});
    check_case((sdpa_opts_t){2, 3, 33, 33, 16, true, false, false, true, 0, F, false});
    check_case((sdpa_opts_t){2, 2, 70, 130, 64, true, true, false, true, 0, F, false}); /* keys 64 + 64 + 2 */
    check_case((sdpa_opts_t){1, 2, 64, 64, 8, false, true, false, false, 0, F, false});
    check_case((sdpa_opts_t){3, 2, 40, 100, 12, true, false, true, true, 0, F, false});
    check_case((sdpa_opts_t){2, 2, 40, 100, 20, true, true, true, true, 0, F, false});
    check_case((sdpa_opts_t){2, 2, 37, 90, 16, true, true, false, true, 1, F, false});
    check_case((sdpa_opts_t){2, 1, 37, 70, 16, true, false, true, false, 2, F, false});
    check_case((sdpa_opts_t){1, 1, 3, 200, 200, true, false, false, true, 0, F, false}); /* D not a multiple of 16 */
    check_case((sdpa_opts_t){2, 2, 40, 100, 32, true, true, false, true, 0, CUDNN_DATA_HALF, false});
    check_case((sdpa_opts_t){2, 2, 40, 100, 32, true, false, true, true, 1, CUDNN_DATA_BFLOAT16, false});
    check_torch(false);
    check_torch(true);
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
