/* SPDX-License-Identifier: Apache-2.0
 * bench-graph: the graph API's fused patterns side by side (see
 * CMakeLists.txt).  Usage:
 *
 *   bench-graph [--threads N] [--reps R] [--no-torch] [conv] [matmul] [sdpa] [sdpa2048] [all]
 *
 * Each case prints one block: FreeDNN's fused graph, the alternatives and
 * the ratios (alternative time / fused time: > 1 means the fused graph is
 * faster).  Times are the best of R runs (default 5), CPU time of the
 * calling thread at 1 thread, wall clock otherwise.  Attention runs each
 * measurement in a child process so that its peak RSS is its own. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_graph.h"
#include "test_graph_sdpa.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;
static int threads = 1, reps = 5;
static bool torch = true;

double
bg_now_ms(int nthreads)
{
    struct timespec ts;
    clock_gettime(nthreads == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Best of reps runs of one engine on b (after one warm-up run). */
static double
time_engine(const fdnn_graph_engine_t *e, gb_t *b)
{
    fdnn_graph_knobs_t knobs = {0};
    size_t ws = 0;
    if (e->supports(&b->g) != CUDNN_STATUS_SUCCESS || e->workspace(&b->g, &knobs, &ws) != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "bench-graph: engine %s declined: %s\n", e->name, fdnn_fail_reason());
        return -1;
    }
    void *w = malloc(ws + 1);
    fdnn_graph_exec_t x = {handle, &b->g, &knobs, b->data, w, ws};
    double best = 1e30;
    for (int r = -1; r < reps; r++) {
        double t0 = bg_now_ms(threads);
        if (e->execute(&x) != CUDNN_STATUS_SUCCESS)
            fprintf(stderr, "bench-graph: engine %s failed\n", e->name);
        double t = bg_now_ms(threads) - t0;
        if (r >= 0)
            best = t < best ? t : best;
    }
    free(w);
    return best;
}

static double
max_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        m = d > m ? d : m;
    }
    return m;
}

static cudnnTensorDescriptor_t
nchw(int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t d;
    cudnnCreateTensorDescriptor(&d);
    cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);
    return d;
}

/* conv + per-channel scale + bias + residual add + ReLU. */
static void
bench_conv(const char *name, int N, int C, int K, int H, int R)
{
    gb_t b;
    gb_init(&b);
    const int64_t xd[4] = {N, C, H, H}, wd[4] = {K, C, R, R}, yd[4] = {N, K, H, H}, cd[4] = {1, K, 1, 1};
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false), w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int scale = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false), bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
    int res = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    int v2 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true), v3 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int v4 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true), y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
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
    size_t ny = (size_t)N * K * H * H;
    double t_fused = time_engine(gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE), &b);
    float *yf = malloc(ny * sizeof(float)), *yo = malloc(ny * sizeof(float));
    memcpy(yf, b.data[y], ny * sizeof(float));
    double t_gen = time_engine(gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b);

    cudnnTensorDescriptor_t xdsc = nchw(N, C, H, H), ydsc = nchw(N, K, H, H), cdsc = nchw(1, K, 1, 1);
    cudnnFilterDescriptor_t wdsc;
    cudnnCreateFilterDescriptor(&wdsc);
    cudnnSetFilter4dDescriptor(wdsc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, R);
    cudnnConvolutionDescriptor_t conv;
    cudnnCreateConvolutionDescriptor(&conv);
    cudnnSetConvolution2dDescriptor(conv, R / 2, R / 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    cudnnConvolutionFwdAlgoPerf_t perf;
    int got = 0;
    cudnnGetConvolutionForwardAlgorithm_v7(handle, xdsc, wdsc, conv, ydsc, 1, &got, &perf);
    size_t wsb = 0;
    cudnnGetConvolutionForwardWorkspaceSize(handle, xdsc, wdsc, conv, ydsc, perf.algo, &wsb);
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
    for (int r = -1; r < reps; r++) {
        double t0 = bg_now_ms(threads);
        cudnnConvolutionForward(handle, &one, xdsc, b.data[x], wdsc, b.data[w], conv, perf.algo, ws, wsb, &zero, ydsc,
                                Y);
        cudnnOpTensor(handle, mul, &one, ydsc, Y, &one, cdsc, b.data[scale], &zero, ydsc, Y);
        cudnnAddTensor(handle, &one, cdsc, b.data[bias], &one, ydsc, Y);
        cudnnOpTensor(handle, add, &one, ydsc, Y, &one, ydsc, b.data[res], &zero, ydsc, Y);
        cudnnActivationForward(handle, relu, &one, ydsc, Y, &zero, ydsc, Y);
        double t = bg_now_ms(threads) - t0;
        if (r >= 0)
            t_legacy = t < t_legacy ? t : t_legacy;
    }
    double prim = -1;
    double t_dnnl = bg_onednn_conv(threads, reps, N, C, K, H, R, b.data[x], b.data[w], b.data[scale], b.data[bias],
                                   b.data[res], yo, &prim);
    printf("conv %s: N=%d C=%d K=%d %dx%d R=%d + scale + bias + residual + relu (legacy algo %d)\n", name, N, C, K, H,
           H, R, (int)perf.algo);
    printf("  fused graph %8.2f ms | legacy calls %8.2f ms (%.2fx) | node by node %8.2f ms (%.2fx) | oneDNN post-ops "
           "%8.2f ms (%.2fx; primitive alone %.2f ms, %.2fx) | max |fused - oneDNN| %.2g\n",
           t_fused, t_legacy, t_legacy / t_fused, t_gen, t_gen / t_fused, t_dnnl, t_dnnl / t_fused, prim,
           prim / t_fused, t_dnnl > 0 ? max_diff(yf, yo, ny) : -1.0);
    fflush(stdout);
    free(ws), free(yf), free(yo);
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

/* matmul + bias + GELU. */
static void
bench_matmul(int M, int N, int K)
{
    gb_t b;
    gb_init(&b);
    const int64_t ad[2] = {M, K}, bd[2] = {K, N}, cd[2] = {M, N}, biasd[2] = {1, N};
    int a = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, ad, false), bb = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, bd, false);
    int v = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true), bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, biasd, false);
    int v2 = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, true), y = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, cd, false);
    gb_matmul(&b, CUDNN_DATA_FLOAT, a, bb, v);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v, bias, FDNN_GRAPH_NONE, v2);
    gb_pw(&b, CUDNN_POINTWISE_GELU_FWD, CUDNN_DATA_FLOAT, v2, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    gb_fill(&b, a, &rng, -1, 1);
    gb_fill(&b, bb, &rng, -0.1, 0.1);
    gb_fill(&b, bias, &rng, -1, 1);
    size_t ny = (size_t)M * N;
    double t_fused = time_engine(gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE), &b);
    float *yf = malloc(ny * sizeof(float)), *yo = malloc(ny * sizeof(float));
    memcpy(yf, b.data[y], ny * sizeof(float));
    double t_gen = time_engine(gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b);
    double t_dnnl = bg_onednn_matmul(threads, reps, M, N, K, b.data[a], b.data[bb], b.data[bias], yo);
    printf("matmul M=%d N=%d K=%d + bias + GELU\n", M, N, K);
    printf("  fused graph %8.2f ms | separate passes (node by node) %8.2f ms (%.2fx) | oneDNN post-ops %8.2f ms "
           "(%.2fx) | max |fused - oneDNN| %.2g\n",
           t_fused, t_gen, t_gen / t_fused, t_dnnl, t_dnnl / t_fused, t_dnnl > 0 ? max_diff(yf, yo, ny) : -1.0);
    fflush(stdout);
    free(yf), free(yo);
    gb_free(&b);
}

/* One attention measurement of ours in a child process: best ms and the
 * child's peak RSS in MiB. */
static void
sdpa_ours(int64_t S, bool bwd, double *ms, double *rss_mib)
{
    int fd[2];
    *ms = *rss_mib = -1;
    if (pipe(fd) != 0)
        return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        cudnnHandle_t h;
        cudnnCreate(&h);
        freednnSetNumThreads(h, threads);
        handle = h;
        sdpa_opts_t o = {4, 16, S, S, 64, true, false, false, false, 0, CUDNN_DATA_FLOAT, true};
        sdpa_graph_t s;
        fdnn_rng_t r;
        fdnn_rng_seed(&r, 5);
        if (bwd)
            sg_build_bwd(&s, &o, &r, false);
        else
            sg_build_fwd(&s, &o, &r, false);
        double t = time_engine(gb_engine(FDNN_GRAPH_ENGINE_SDPA_FLASH), &s.b);
        if (write(fd[1], &t, sizeof(t)) != (ssize_t)sizeof(t))
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    double t = -1;
    if (pid > 0) {
        if (read(fd[0], &t, sizeof(t)) != (ssize_t)sizeof(t))
            t = -1;
        int status;
        struct rusage ru;
        if (wait4(pid, &status, 0, &ru) == pid)
            *rss_mib = (double)ru.ru_maxrss / 1024;
    }
    close(fd[0]);
    *ms = t;
}

static bool
sdpa_torch(int64_t S, bool bwd, double *ms, double *rss_mib, char *impl)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd),
             "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=%d OPENBLAS_NUM_THREADS=%d /usr/bin/python3 "
             "%s 4 16 %lld 64 %d %d %s",
             threads, threads, FDNN_BENCH_TORCH_SCRIPT, (long long)S, threads, reps < 3 ? reps : 3, bwd ? "bwd" : "fwd");
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return false;
    char what[8];
    int n = fscanf(p, "torch %7s %lf %lf %15s", what, ms, rss_mib, impl);
    pclose(p);
    return n == 4;
}

static void
bench_sdpa(int64_t S)
{
    for (int bwd = 0; bwd < 2; bwd++) {
        double ms, rss, tms = -1, trss = -1;
        char impl[16] = "-";
        sdpa_ours(S, bwd, &ms, &rss);
        if (torch && !sdpa_torch(S, bwd, &tms, &trss, impl))
            fprintf(stderr, "bench-graph: the PyTorch side failed\n");
        double io = (double)4 * 16 * S * 64 * 4 / (1 << 20);
        printf("sdpa %s B=4 H=16 S=%lld D=64 fp32 (scale, no mask; tensors %.0f MiB each)\n", bwd ? "backward" : "forward",
               (long long)S, io);
        printf("  sdpa_flash %9.1f ms, peak RSS %6.0f MiB | PyTorch (%s) %9.1f ms (%.2fx), peak RSS %6.0f MiB\n", ms, rss,
               impl, tms, tms / ms, trss);
        fflush(stdout);
    }
}

int
main(int argc, char **argv)
{
    bool conv = false, mm = false, sdpa = false, sdpa2048 = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-torch"))
            torch = false;
        else if (!strcmp(argv[i], "conv"))
            conv = true;
        else if (!strcmp(argv[i], "matmul"))
            mm = true;
        else if (!strcmp(argv[i], "sdpa"))
            sdpa = true;
        else if (!strcmp(argv[i], "sdpa2048"))
            sdpa2048 = true;
        else if (!strcmp(argv[i], "all"))
            conv = mm = sdpa = true;
        else {
            fprintf(stderr, "usage: bench-graph [--threads N] [--reps R] [--no-torch] [conv] [matmul] [sdpa] "
                            "[sdpa2048] [all]\n");
            return 2;
        }
    }
    if (!conv && !mm && !sdpa && !sdpa2048)
        conv = mm = sdpa = true;
    if (threads < 1 || reps < 1)
        return 2;
    fdnn_rng_seed(&rng, 14);
    printf("bench-graph: %d thread(s), best of %d, %s\n", threads, reps,
           threads == 1 ? "CPU time of the calling thread" : "wall clock");
    if (sdpa)
        bench_sdpa(512);
    if (sdpa2048)
        bench_sdpa(2048);
    cudnnCreate(&handle);
    freednnSetNumThreads(handle, threads);
    if (conv) {
        bench_conv("res2a 1x1 expand", 4, 64, 256, 56, 1);
        bench_conv("res2 3x3", 4, 64, 64, 56, 3);
        bench_conv("res3 3x3", 4, 128, 128, 28, 3);
        bench_conv("res4 1x1 expand", 4, 256, 1024, 14, 1);
        bench_conv("res5 3x3", 4, 512, 512, 7, 3);
    }
    if (mm) {
        bench_matmul(1024, 3072, 768);
        bench_matmul(1024, 768, 3072);
        bench_matmul(512, 3072, 768); /* BERT-base MLP up-projection, 512 tokens */
    }
    cudnnDestroy(handle);
    return 0;
}
