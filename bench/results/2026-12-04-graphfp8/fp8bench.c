/* FP8 overhead: converter rows and a graph matmul with FP8 vs FLOAT
 * operands, 1 thread, CPU time of the calling thread, best of 7. */
#include <time.h>
#include "cpu/tensor/convert_fp8.h"
#include "test_graph_engines.h"

static double
cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
run_mm(cudnnHandle_t h, cudnnDataType_t dt, int n)
{
    int64_t d[3] = {1, n, n};
    gb_t b;
    gb_init(&b);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 1);
    int A = gb_tensor(&b, dt, 3, d, false), B = gb_tensor(&b, dt, 3, d, false), C = gb_tensor(&b, dt, 3, d, false);
    gb_matmul(&b, CUDNN_DATA_FLOAT, A, B, C);
    gb_fill(&b, A, &rng, -1, 1);
    gb_fill(&b, B, &rng, -1, 1);
    const fdnn_graph_engine_t *e = gb_engine(0);
    fdnn_graph_knobs_t knobs = {0};
    size_t ws = 0;
    e->workspace(&b.g, &knobs, &ws);
    void *w = malloc(ws + 64);
    fdnn_graph_exec_t x = {h, &b.g, &knobs, b.data, w, ws};
    double best = 1e9;
    for (int r = 0; r < 7; r++) {
        double t0 = cpu_s();
        e->execute(&x);
        double t = cpu_s() - t0;
        best = t < best ? t : best;
    }
    free(w);
    gb_free(&b);
    return best;
}

int
main(void)
{
    size_t n = 1 << 24;
    float *f = malloc(n * 4);
    uint8_t *q = malloc(n);
    for (size_t i = 0; i < n; i++)
        f[i] = (float)((double)(i % 1000) - 500) * 0.37f;
    double be = 1e9, bd = 1e9;
    for (int r = 0; r < 5; r++) {
        double t0 = cpu_s();
        fdnn_f32_to_fp8_row(FDNN_FP8_E4M3, f, n, q);
        double t1 = cpu_s();
        fdnn_fp8_to_f32_row(FDNN_FP8_E4M3, q, n, f);
        double t2 = cpu_s();
        be = t1 - t0 < be ? t1 - t0 : be;
        bd = t2 - t1 < bd ? t2 - t1 : bd;
    }
    printf("f32->e4m3 row: %.2f ns/elem; e4m3->f32 row: %.2f ns/elem (16M elements, best of 5)\n", be / n * 1e9,
           bd / n * 1e9);
    cudnnHandle_t h;
    cudnnCreate(&h);
    freednnSetNumThreads(h, 1);
    for (int sz = 256; sz <= 1024; sz *= 2) {
        double tf = run_mm(h, CUDNN_DATA_FLOAT, sz), t8 = run_mm(h, CUDNN_DATA_FP8_E4M3, sz);
        printf("matmul %dx%dx%d generic engine: FLOAT %.3f ms, FP8 E4M3 I/O %.3f ms (x%.2f)\n", sz, sz, sz, tf * 1e3,
               t8 * 1e3, t8 / tf);
    }
    cudnnDestroy(h);
    return 0;
}
