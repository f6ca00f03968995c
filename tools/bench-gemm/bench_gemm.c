/* SPDX-License-Identifier: Apache-2.0
 * bench-gemm: throughput of fdnn_sgemm on the GEMM shapes of ResNet-50
 * (1x1 convolutions as C[cout x HW] = W[cout x cin] * X[cin x HW], 3x3 ones
 * through im2col with K = 9 cin, and the classifier), next to the measured
 * FMA peak of one core and oneDNN's dnnl_sgemm.
 *
 *   bench-gemm                     the built-in list
 *   bench-gemm 64x3136x256 ...     given shapes (M x N x K, no transposes)
 *   bench-gemm --kernels           each microkernel alone, panels in L1
 *   options: --isa avx512|avx2|scalar   --batch B (N times B, default 1)
 *            --cpu-time (1-thread columns: thread CPU time, not wall clock)
 *            --threads T (the parallel columns' thread count, default 2; 1: skip)
 *            --min-time S (each number: best of >= 10 runs and >= S s; 0.2)
 *            --only fdnn|dnnl (time one library only, e.g. under perf record)
 *   bench-gemm --tile-l2           the 14x32 kernel over the tiles of
 *                                  1008x3072x768 without packing, each
 *                                  operand new per tile or kept in L2
 *
 * To compare two builds on a noisy machine, alternate them:
 * tools/bench-gemm/ab.py OLD NEW -- [shapes] (median and best of each).
 *
 * Each number is the best of several runs (at least 10, at least 0.2 s in total: the best run is the one the machine left alone); the
 * bench asserts nothing (no timed checks anywhere in the project). */
#define _POSIX_C_SOURCE 200809L
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cpu.h"
#include "core/memory.h"
#include "cpu/gemm/gemm.h"
#include "cpu/kernels/gemm_ukernel.h"

#if defined(FDNN_BENCH_HAVE_DNNL)
#include <oneapi/dnnl/dnnl.h>
#endif

double bench_fma_loop_avx512(size_t iters, float *sink);
double bench_fma_loop_avx2(size_t iters, float *sink);

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --cpu-time: the single-thread columns time the calling thread's CPU time
 * (time spent descheduled on a shared machine is not counted); the
 * two-thread columns always use the wall clock. */
static bool use_cpu_time = false;
/* --min-time S: each number is the best of at least 10 runs and S seconds. */
static double min_time = 0.2;
/* --threads T: the thread count of the parallel columns (1: skip them). */
static size_t par_threads = 2;
/* --only fdnn|dnnl: time one library only (for perf record on one side). */
static const char *only = NULL;

static double
now_timed(bool single)
{
    if (!single || !use_cpu_time)
        return now();
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* GFLOP/s of the FMA loop on the calling thread: the best of many short
 * runs (about 1 ms each), so that a run that kept the core to itself counts
 * even on a busy machine. */
static double
peak_gflops(fdnn_isa_t isa)
{
    float sink = 0;
    double best = 0;
    for (int rep = 0; rep < 200; rep++) {
        double t0 = now(), flops;
        if (isa == FDNN_ISA_AVX512)
            flops = bench_fma_loop_avx512(200000, &sink);
        else
            flops = bench_fma_loop_avx2(200000, &sink);
        double g = flops / (now() - t0) * 1e-9;
        if (g > best)
            best = g;
    }
    if (sink == 12345.f)
        printf(" ");
    return best;
}

typedef struct shape {
    size_t m, n, k;
    const char *what;
} shape_t;

static const shape_t resnet50[] = {
    {64, 3136, 64, "res2 1x1 reduce (first)"},
    {64, 3136, 256, "res2 1x1 reduce"},
    {256, 3136, 64, "res2 1x1 expand"},
    {64, 3136, 576, "res2 3x3 (im2col)"},
    {128, 784, 512, "res3 1x1 reduce"},
    {512, 784, 128, "res3 1x1 expand"},
    {128, 784, 1152, "res3 3x3 (im2col)"},
    {256, 196, 1024, "res4 1x1 reduce"},
    {1024, 196, 256, "res4 1x1 expand"},
    {256, 196, 2304, "res4 3x3 (im2col)"},
    {512, 49, 2048, "res5 1x1 reduce"},
    {2048, 49, 512, "res5 1x1 expand"},
    {512, 49, 4608, "res5 3x3 (im2col)"},
    {1000, 1, 2048, "fc, batch 1"},
    {1000, 32, 2048, "fc, batch 32"},
    {8, 3136, 64, "small M"},
    {2048, 8, 512, "small N"},
    {17, 1000, 300, "odd sizes"},
};

typedef bool (*run_fn)(const fdnn_sgemm_args_t *g, void *ctx);

typedef struct fdnn_ctx {
    fdnn_pool_t pool;
    fdnn_isa_t isa;
    void *scratch;
    size_t scratch_bytes;
} fdnn_ctx_t;

static bool
run_fdnn(const fdnn_sgemm_args_t *g, void *ctx)
{
    fdnn_ctx_t *c = ctx;
    return fdnn_sgemm(g, c->pool, c->isa, c->scratch, c->scratch_bytes);
}

#if defined(FDNN_BENCH_HAVE_DNNL)
static bool
run_dnnl(const fdnn_sgemm_args_t *g, void *ctx)
{
    (void)ctx;
    return dnnl_sgemm(g->trans_a ? 'T' : 'N', g->trans_b ? 'T' : 'N', (dnnl_dim_t)g->m, (dnnl_dim_t)g->n,
                      (dnnl_dim_t)g->k, g->alpha, g->a, (dnnl_dim_t)g->lda, g->b, (dnnl_dim_t)g->ldb, g->beta,
                      g->c, (dnnl_dim_t)g->ldc) == dnnl_success;
}
#endif

/* oneDNN here runs on OpenMP; its thread count is set through the OpenMP
 * runtime it loaded (found at run time: we do not link OpenMP ourselves). */
static void
set_omp_threads(int n)
{
    void (*set)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (set != NULL)
        set(n);
}

/* Best GFLOP/s over at least 10 samples and min_time seconds; `single`: one
 * thread runs it (see now_timed).  A sample times a batch of calls lasting
 * at least 2 ms: on the development VM the thread CPU-time clock is
 * accounted coarsely (over 20 us intervals it read 0.03 to 1.6 times the
 * wall clock), so a single short call could show several times the peak. */
static double
measure(run_fn fn, const fdnn_sgemm_args_t *g, void *ctx, bool single)
{
    double flops = 2.0 * (double)g->m * (double)g->n * (double)g->k;
    double best = 1e30, total = 0;
    double w0 = now();
    if (!fn(g, ctx))
        return 0;
    double first = now() - w0;
    size_t batch = first > 0 && first < 2e-3 ? (size_t)(2e-3 / first) + 1 : 1;
    for (int rep = 0; rep < 10 || total < min_time; rep++) {
        double t0 = now_timed(single);
        for (size_t b = 0; b < batch; b++)
            fn(g, ctx);
        double t = (now_timed(single) - t0) / (double)batch;
        total += t * (double)batch;
        if (t < best)
            best = t;
        if (rep > 1000 && total >= min_time)
            break;
    }
    return flops / best * 1e-9;
}

static void
bench_shape(const shape_t *s, fdnn_isa_t isa, fdnn_pool_t pool2, double peak)
{
    size_t m = s->m, n = s->n, k = s->k;
    float *a = fdnn_aligned_alloc(m * k * sizeof(float));
    float *b = fdnn_aligned_alloc(k * n * sizeof(float));
    float *c = fdnn_aligned_alloc(m * n * sizeof(float));
    for (size_t i = 0; i < m * k; i++)
        a[i] = (float)((i * 7919) % 1000) * 1e-3f - 0.5f;
    for (size_t i = 0; i < k * n; i++)
        b[i] = (float)((i * 104729) % 1000) * 1e-3f - 0.5f;
    memset(c, 0, m * n * sizeof(float));
    fdnn_sgemm_args_t g = {.m = m, .n = n, .k = k, .alpha = 1, .a = a, .lda = k, .b = b, .ldb = n,
                           .beta = 0, .c = c, .ldc = n};
    size_t bytes = fdnn_sgemm_scratch_size(&g, 2, isa);
    fdnn_ctx_t c1 = {NULL, isa, fdnn_aligned_alloc(bytes), bytes};
    fdnn_ctx_t c2 = {pool2, isa, c1.scratch, bytes};
    bool do_fdnn = only == NULL || strcmp(only, "fdnn") == 0;
    double g1 = do_fdnn ? measure(run_fdnn, &g, &c1, true) : NAN;
    double g2 = do_fdnn && par_threads > 1 ? measure(run_fdnn, &g, &c2, false) : NAN;
    printf("%5zu %5zu %5zu  %7.1f %5.1f%%  %7.1f %5.1f%%", m, n, k, g1, 100 * g1 / peak, g2,
           100 * g2 / ((double)par_threads * peak));
#if defined(FDNN_BENCH_HAVE_DNNL)
    bool do_dnnl = only == NULL || strcmp(only, "dnnl") == 0;
    set_omp_threads(1);
    double d1 = do_dnnl ? measure(run_dnnl, &g, NULL, true) : NAN;
    set_omp_threads((int)par_threads);
    double d2 = do_dnnl && par_threads > 1 ? measure(run_dnnl, &g, NULL, false) : NAN;
    printf("  %7.1f %7.1f", d1, d2);
#endif
    printf("  %s\n", s->what);
    fdnn_aligned_free(c1.scratch);
    fdnn_aligned_free(a);
    fdnn_aligned_free(b);
    fdnn_aligned_free(c);
}

/* One microkernel called over and over on the same L1-resident panels: the
 * ceiling the driver can reach with that tile. */
typedef struct kernel_entry {
    fdnn_isa_t isa;
    size_t mr, nr;
    fdnn_f32_gemm_ukernel_fn fn;
    const char *name;
} kernel_entry_t;

static void
bench_kernels(double peak512, double peak256)
{
    static const kernel_entry_t list[] = {
        {FDNN_ISA_AVX512, 14, 32, fdnn_f32_gemm_ukernel_14x32__avx512, "14x32__avx512"},
        {FDNN_ISA_AVX512, 8, 48, fdnn_f32_gemm_ukernel_8x48__avx512, "8x48__avx512"},
        {FDNN_ISA_AVX512, 14, 16, fdnn_f32_gemm_ukernel_14x16__avx512, "14x16__avx512"},
        {FDNN_ISA_AVX512, 28, 16, fdnn_f32_gemm_ukernel_28x16__avx512, "28x16__avx512"},
        {FDNN_ISA_AVX2, 6, 16, fdnn_f32_gemm_ukernel_6x16__avx2, "6x16__avx2"},
        {FDNN_ISA_AVX2, 6, 8, fdnn_f32_gemm_ukernel_6x8__avx2, "6x8__avx2"},
        {FDNN_ISA_AVX2, 12, 8, fdnn_f32_gemm_ukernel_12x8__avx2, "12x8__avx2"},
        {FDNN_ISA_AVX2, 4, 24, fdnn_f32_gemm_ukernel_4x24__avx2, "4x24__avx2"},
    };
    static const size_t kcs[] = {64, 256};
    printf("microkernel      kc  GFLOP/s  %%peak (its ISA's FMA loop)\n");
    for (size_t e = 0; e < sizeof(list) / sizeof(list[0]); e++) {
        const kernel_entry_t *k = &list[e];
        if (k->isa > fdnn_cpu_max_isa())
            continue;
        for (size_t q = 0; q < 2; q++) {
            size_t kc = kcs[q];
            float *a = fdnn_aligned_alloc(k->mr * kc * sizeof(float));
            float *b = fdnn_aligned_alloc(k->nr * kc * sizeof(float));
            float *c = fdnn_aligned_alloc(k->mr * k->nr * sizeof(float));
            for (size_t i = 0; i < k->mr * kc; i++)
                a[i] = 1e-3f;
            for (size_t i = 0; i < k->nr * kc; i++)
                b[i] = 1e-3f;
            memset(c, 0, k->mr * k->nr * sizeof(float));
            fdnn_f32_gemm_epilogue_t ep = {.alpha = 1, .beta = 1};
            size_t calls = 20000 / kc;
            double best = 0;
            for (int rep = 0; rep < 300; rep++) { /* ~1 ms each: the best one ran alone */
                double t0 = now();
                for (size_t i = 0; i < calls; i++)
                    k->fn(k->mr, k->nr, kc, a, b, k->nr, c, k->nr, &ep);
                double g = 2.0 * (double)(k->mr * k->nr * kc * calls) / (now() - t0) * 1e-9;
                if (g > best)
                    best = g;
            }
            double peak = k->isa == FDNN_ISA_AVX512 ? peak512 : peak256;
            printf("%-15s %4zu  %7.1f  %5.1f%%\n", k->name, kc, best, 100 * best / peak);
            fdnn_aligned_free(a);
            fdnn_aligned_free(b);
            fdnn_aligned_free(c);
        }
    }
}

/* --tile-l2: the 14x32 kernel over the tiles of a 1008x3072x768 product
 * (kc = 768, 12 x 12 tiles of 84 x 256 as the driver plans 1024x3072x768,
 * packed operands, no packing timed), in the driver's order or another:
 * a tile is sa A strips x sb B strips, walked B strip outer, A strip inner;
 * tiles row-major (row tiles outer, as the driver) or column tiles outer.
 * Each operand is either the product's own block for the tile (from L3 or
 * memory the first time) or the same block every time (from L2): which
 * stream costs what, without hardware counters (this VM has none).  C is a
 * 1008 x 3072 matrix written with the product's streaming stores. */
static void
bench_tile_l2(double peak)
{
    static const struct {
        size_t sa, sb;
        bool col_outer, a_new, b_new;
    } cases[] = {
        {6, 8, false, false, false}, {6, 8, false, true, false}, {6, 8, false, false, true},
        {6, 8, false, true, true},   {12, 8, false, true, true}, {6, 8, true, true, true},
        {6, 4, true, true, true},    {6, 2, true, true, true},   {12, 4, true, true, true},
    };
    const size_t kc = 768, mr = 14, nr = 32, m = 1008, n = 3072;
    float *a = fdnn_aligned_alloc(m * kc * sizeof(float));
    float *b = fdnn_aligned_alloc(n * kc * sizeof(float));
    float *c = fdnn_aligned_alloc(m * n * sizeof(float));
    for (size_t i = 0; i < m * kc; i++)
        a[i] = 1e-3f;
    for (size_t i = 0; i < n * kc; i++)
        b[i] = 1e-3f;
    memset(c, 0, m * n * sizeof(float));
    printf("14x32 kernel over the tiles of 1008x3072x768, kc 768, C streamed\n");
    printf("A strips  B strips  order         A      B          GFLOP/s  %%peak\n");
    for (size_t e = 0; e < sizeof(cases) / sizeof(cases[0]); e++) {
        size_t sa = cases[e].sa, sb = cases[e].sb, rows = m / (sa * mr), cols = n / (sb * nr);
        fdnn_f32_gemm_epilogue_t ep = {.alpha = 1, .beta = 0, .stream = true};
        double best = 0;
        for (int rep = 0; rep < 20; rep++) { /* thread CPU time: the VM is shared */
            double t0 = now_timed(true);
            for (size_t t = 0; t < rows * cols; t++) {
                size_t ti = cases[e].col_outer ? t % rows : t / cols, tj = cases[e].col_outer ? t / rows : t % cols;
                const float *ab = a + (cases[e].a_new ? ti : 0) * sa * mr * kc;
                const float *bb = b + (cases[e].b_new ? tj : 0) * sb * nr * kc;
                float *cb = c + ti * sa * mr * n + tj * sb * nr;
                for (size_t j = 0; j < sb; j++)
                    for (size_t i = 0; i < sa; i++)
                        fdnn_f32_gemm_ukernel_14x32__avx512(mr, nr, kc, ab + i * mr * kc, bb + j * nr * kc, nr,
                                                            cb + i * mr * n + j * nr, n, &ep);
            }
            double g = 2.0 * (double)(rows * cols * sa * sb * mr * nr * kc) / (now_timed(true) - t0) * 1e-9;
            if (g > best)
                best = g;
        }
        printf("%8zu  %8zu  %-12s  %-5s  %-9s  %7.1f  %5.1f%%\n", sa, sb, cases[e].col_outer ? "cols outer" : "rows outer",
               cases[e].a_new ? "tile" : "same", cases[e].b_new ? "tile" : "same", best, 100 * best / peak);
    }
    fdnn_aligned_free(a);
    fdnn_aligned_free(b);
    fdnn_aligned_free(c);
}

int
main(int argc, char **argv)
{
    fdnn_isa_t isa = fdnn_cpu_max_isa();
    size_t batch = 1;
    shape_t given[64];
    size_t ngiven = 0;
    bool kernels = false, tile_l2 = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--kernels") == 0) {
            kernels = true;
        } else if (strcmp(argv[i], "--tile-l2") == 0) {
            tile_l2 = true;
        } else if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc) {
            int level = fdnn_isa_from_name(argv[++i]);
            if (level < 0 || (fdnn_isa_t)level > fdnn_cpu_max_isa()) {
                fprintf(stderr, "bench-gemm: ISA %s is unknown or not available\n", argv[i]);
                return 2;
            }
            isa = (fdnn_isa_t)level;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            par_threads = (size_t)atoi(argv[++i]);
            if (par_threads < 1)
                par_threads = 1;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--cpu-time") == 0) {
            use_cpu_time = true;
        } else if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc) {
            min_time = atof(argv[++i]);
        } else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc) {
            batch = (size_t)atoi(argv[++i]);
        } else if (ngiven < 64 && sscanf(argv[i], "%zux%zux%zu", &given[ngiven].m, &given[ngiven].n,
                                         &given[ngiven].k) == 3) {
            given[ngiven++].what = "given";
        } else {
            fprintf(stderr, "usage: bench-gemm [--kernels | --tile-l2] [--isa avx512|avx2|scalar] [--batch B] [--threads T]\n"
                            "                  [--cpu-time] [--min-time S] [--only fdnn|dnnl] [MxNxK ...]\n");
            return 2;
        }
    }
    if (tile_l2) {
        if (fdnn_cpu_max_isa() < FDNN_ISA_AVX512) {
            fprintf(stderr, "bench-gemm: --tile-l2 needs AVX-512\n");
            return 2;
        }
        use_cpu_time = true;
        bench_tile_l2(peak_gflops(FDNN_ISA_AVX512));
        return 0;
    }
    if (kernels) {
        double p512 = fdnn_cpu_max_isa() >= FDNN_ISA_AVX512 ? peak_gflops(FDNN_ISA_AVX512) : 0;
        double p256 = fdnn_cpu_max_isa() >= FDNN_ISA_AVX2 ? peak_gflops(FDNN_ISA_AVX2) : 0;
        printf("FMA peak per core: zmm %.1f, ymm %.1f GFLOP/s\n", p512, p256);
        bench_kernels(p512, p256);
        return 0;
    }
    fdnn_pool_t pool2 = fdnn_pool_create(par_threads);
    /* No FMA loop for the portable level: its %peak columns read "nan". */
    double peak = isa == FDNN_ISA_SCALAR ? NAN : peak_gflops(isa);
    printf("CPU %s, %zu logical processors, L1d %zu KiB, L2 %zu KiB\n", fdnn_cpu_name(), fdnn_cpu_count(),
           fdnn_cpu_l1d_bytes() / 1024, fdnn_cpu_l2_bytes() / 1024);
    printf("ISA %s; FMA peak (%s loop) %.1f GFLOP/s per core\n", fdnn_isa_name(isa),
           isa == FDNN_ISA_AVX512 ? "zmm" : "ymm", peak);
    printf("    M     N     K  1 thread  %%peak  %zu threads %%peak(%zu)", par_threads, par_threads);
#if defined(FDNN_BENCH_HAVE_DNNL)
    printf("  dnnl(1) dnnl(2)");
#endif
    printf("   (GFLOP/s)\n");
    const shape_t *list = ngiven > 0 ? given : resnet50;
    size_t count = ngiven > 0 ? ngiven : sizeof(resnet50) / sizeof(resnet50[0]);
    for (size_t i = 0; i < count; i++) {
        shape_t s = list[i];
        if (s.n > 1 || ngiven > 0)
            s.n *= batch;
        bench_shape(&s, isa, pool2, peak);
    }
    fdnn_pool_destroy(pool2);
    return 0;
}
