/* SPDX-License-Identifier: Apache-2.0
 * The attention engine's backward (src/cpu/graph/engine_sdpa_bwd.c) on the
 * backward graph of test_graph_sdpa.h (dQ, dK^T, dV^T from Q, K, V, O, dO
 * and the forward's stats; scale, padding and causal masks, dropout from
 * the RNG node or a given mask; FLOAT, HALF and BFLOAT16 I/O):
 *   - against a float64 reference (tolerance 2e-5 of max |grad| in FLOAT)
 *     and, in FLOAT, against the generic engine running the same graph
 *     node by node;
 *   - against PyTorch autograd's float64 gradients (test_graph_sdpa_torch.h);
 *   - several key blocks, a short last one; 1 vs 2 threads bitwise;
 *   - a broken backward graph is declined with a reason.
 * FDNN_GRAPH_BENCH=sdpa_bwd (or sdpa_bwd2048) times B=4 H=16 D=64 S=512. */
#define _POSIX_C_SOURCE 200809L
#include <sys/resource.h>
#include <time.h>

#include "test_graph_sdpa.h"
#include "test_graph_sdpa_torch.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

typedef struct grads {
    double *dq, *dk, *dv;
} grads_t;

static void
grads_alloc(grads_t *g, const sdpa_graph_t *s)
{
    g->dq = malloc(sizeof(double) * (size_t)sg_n(s, s->o.Sq));
    g->dk = malloc(sizeof(double) * (size_t)sg_n(s, s->o.Sk));
    g->dv = malloc(sizeof(double) * (size_t)sg_n(s, s->o.Sk));
}

static void
grads_free(grads_t *g)
{
    free(g->dq), free(g->dk), free(g->dv);
}

static void
grads_read(const sdpa_graph_t *s, grads_t *g)
{
    int64_t BH = s->o.B * s->o.H;
    sg_get(&s->b, s->dq, g->dq, BH, s->o.Sq, s->o.D, false);
    sg_get(&s->b, s->dkt, g->dk, BH, s->o.Sk, s->o.D, true);
    sg_get(&s->b, s->dvt, g->dv, BH, s->o.Sk, s->o.D, true);
}

static int
grads_misses(const sdpa_graph_t *s, const grads_t *got, const grads_t *ref, double tol)
{
    return sg_misses(got->dq, ref->dq, sg_n(s, s->o.Sq), tol) + sg_misses(got->dk, ref->dk, sg_n(s, s->o.Sk), tol) +
           sg_misses(got->dv, ref->dv, sg_n(s, s->o.Sk), tol);
}

static void
check_case(sdpa_opts_t o)
{
    sdpa_graph_t s;
    sg_build_bwd(&s, &o, &rng, false);
    grads_t ref, gen, got;
    grads_alloc(&ref, &s), grads_alloc(&gen, &s), grads_alloc(&got, &s);
    sg_ref_bwd(&s, ref.dq, ref.dk, ref.dv);
    bool generic = o.io == CUDNN_DATA_FLOAT; /* the generic matmuls are FLOAT / DOUBLE */
    if (generic) {
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &s.b));
        grads_read(&s, &gen);
    }
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &s.b));
    grads_read(&s, &got);
    double tol = o.io == CUDNN_DATA_FLOAT ? 2e-5 : o.io == CUDNN_DATA_HALF ? 3e-3 : 2e-2;
    int bad_ref = grads_misses(&s, &got, &ref, tol), bad_gen = generic ? grads_misses(&s, &got, &gen, tol) : 0;
    CHECK_MSG(bad_ref == 0 && bad_gen == 0,
              "sdpa bwd B%lld H%lld Sq%lld Sk%lld D%lld scale %d causal %d padding %d dropout %d io %d: %d off the "
              "reference, %d off the generic engine",
              (long long)o.B, (long long)o.H, (long long)o.Sq, (long long)o.Sk, (long long)o.D, o.scale, o.causal,
              o.padding, o.dropout, (int)o.io, bad_ref, bad_gen);
    grads_free(&ref), grads_free(&gen), grads_free(&got);
    sg_free(&s);
}

/* PyTorch autograd's float64 gradients; O and the stats fed to the graph
 * are PyTorch's too. */
static void
check_torch(bool causal)
{
    sdpa_opts_t o = {1, 2, 5, 7, 4, true, causal, false, false, 0, CUDNN_DATA_FLOAT, false};
    sdpa_graph_t s;
    sg_build_bwd(&s, &o, &rng, true);
    const double *to = causal ? torch_causal_o : torch_plain_o, *tl = causal ? torch_causal_lse : torch_plain_lse;
    double tmp[40];
    memcpy(tmp, to, sizeof(tmp));
    sg_put(&s.b, s.oin, tmp, 2, 5, 4, false);
    for (int i = 0; i < 10; i++)
        gb_set(&s.b, s.stats, i, tl[i]);
    grads_t got, ref = {(double *)(causal ? torch_causal_dq : torch_plain_dq),
                        (double *)(causal ? torch_causal_dk : torch_plain_dk),
                        (double *)(causal ? torch_causal_dv : torch_plain_dv)};
    grads_alloc(&got, &s);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &s.b));
    grads_read(&s, &got);
    CHECK_MSG(grads_misses(&s, &got, &ref, 1e-5) == 0, "sdpa backward vs PyTorch autograd (causal %d): off", causal);
    grads_free(&got);
    sg_free(&s);
}

static void
test_threads(void)
{
    sdpa_opts_t o = {2, 3, 96, 150, 32, true, true, true, false, 1, CUDNN_DATA_FLOAT, false};
    sdpa_graph_t s;
    sg_build_bwd(&s, &o, &rng, false);
    size_t bq = 2 * 3 * 96 * 32 * 4, bk = 2 * 3 * 150 * 32 * 4;
    char *one = malloc(bq + 2 * bk);
    CHECK_OK(freednnSetNumThreads(handle, 1));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &s.b));
    memcpy(one, s.b.data[s.dq], bq);
    memcpy(one + bq, s.b.data[s.dkt], bk);
    memcpy(one + bq + bk, s.b.data[s.dvt], bk);
    CHECK_OK(freednnSetNumThreads(handle, 2));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &s.b));
    CHECK(memcmp(one, s.b.data[s.dq], bq) == 0);
    CHECK(memcmp(one + bq, s.b.data[s.dkt], bk) == 0);
    CHECK(memcmp(one + bq + bk, s.b.data[s.dvt], bk) == 0);
    CHECK_OK(freednnSetNumThreads(handle, 1));
    free(one);
    sg_free(&s);
}

static void
test_declined(void)
{
    sdpa_opts_t o = {1, 1, 8, 8, 4, true, false, false, false, 0, CUDNN_DATA_FLOAT, false};
    sdpa_graph_t s;
    sg_build_bwd(&s, &o, &rng, false);
    /* dS's MUL reads the scores instead of P: not the attention backward */
    for (int i = 0; i < s.b.g.nnodes; i++) {
        fdnn_gop_pointwise_t *p = &s.b.n[i].u.pointwise;
        if (s.b.n[i].kind == FDNN_GOP_POINTWISE && p->mode == CUDNN_POINTWISE_EXP) {
            int pt = p->y;
            for (int j = 0; j < s.b.g.nnodes; j++) {
                fdnn_gop_pointwise_t *m = &s.b.n[j].u.pointwise;
                if (s.b.n[j].kind == FDNN_GOP_POINTWISE && m->mode == CUDNN_POINTWISE_MUL && m->x == pt &&
                    s.b.t[m->b].ndim == 4 && !s.b.t[m->b].by_value)
                    m->x = p->x;
            }
        }
    }
    fdnn_fail_clear();
    CHECK_STATUS(gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH)->supports(&s.b.g), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(strstr(fdnn_fail_reason(), "sdpa engine (backward)") != NULL);
    sg_free(&s);
}

/* FDNN_GRAPH_BENCH=sdpa_bwd: B=4 H=16 D=64 S=512 (2048 with sdpa_bwd2048),
 * no mask, 1 thread, CPU time of the thread, best of 3, peak RSS. */
static void
bench(int64_t S)
{
    sdpa_opts_t o = {4, 16, S, S, 64, true, false, false, false, 0, CUDNN_DATA_FLOAT, false};
    sdpa_graph_t s;
    sg_build_bwd(&s, &o, &rng, false);
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
    printf("bench sdpa B=4 H=16 S=%lld D=64 fp32 backward, 1 thread: %.1f ms, workspace %zu bytes, peak RSS %ld MiB\n",
           (long long)S, best * 1e3, ws, ru.ru_maxrss / 1024);
    free(w);
    sg_free(&s);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    fdnn_rng_seed(&rng, 4096);
    const cudnnDataType_t F = CUDNN_DATA_FLOAT;
    const char *bn = getenv("FDNN_GRAPH_BENCH");
    if (bn == NULL || getenv("FDNN_GRAPH_BENCH_ONLY") == NULL) {
        /*                B  H  Sq   Sk   D  scale  causal padding stats dropout io */
        check_case((sdpa_opts_t){1, 1, 5, 7, 4, false, false, false, false, 0, F, false});
        check_case((sdpa_opts_t){2, 3, 33, 33, 16, true, false, false, false, 0, F, false});
        check_case((sdpa_opts_t){2, 2, 70, 130, 64, true, true, false, false, 0, F, false}); /* keys 64 + 64 + 2 */
        check_case((sdpa_opts_t){3, 2, 40, 100, 12, true, false, true, false, 0, F, false});
        check_case((sdpa_opts_t){2, 2, 40, 100, 20, true, true, true, false, 0, F, false});
        check_case((sdpa_opts_t){2, 2, 37, 90, 16, true, true, false, false, 1, F, false});
        check_case((sdpa_opts_t){2, 1, 37, 70, 16, true, false, true, false, 2, F, false});
        check_case((sdpa_opts_t){1, 1, 3, 70, 200, true, false, false, false, 0, F, false}); /* D not a multiple of 16 */
        check_case((sdpa_opts_t){2, 2, 40, 100, 32, true, true, false, false, 0, CUDNN_DATA_HALF, false});
        check_case((sdpa_opts_t){2, 2, 40, 100, 32, true, false, true, false, 1, CUDNN_DATA_BFLOAT16, false});
        check_torch(false);
        check_torch(true);
        test_threads();
        test_declined();
    }
    if (bn != NULL && strstr(bn, "sdpa_bwd2048"))
        bench(2048);
    else if (bn != NULL && strstr(bn, "sdpa_bwd"))
        bench(512);
    cudnnDestroy(handle);
    return fdnn_test_finish("test_graph_sdpa_bwd");
}
