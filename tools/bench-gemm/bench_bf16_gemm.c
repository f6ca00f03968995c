/* SPDX-License-Identifier: Apache-2.0
 * bench-bf16-gemm: GFLOP/s of the BF16 dot-product GEMM (fdnn_gemm_bf16dot)
 * next to the FP32 GEMM (fdnn_sgemm) on the same shapes, one thread, and
 * the peak rates of the FP32 FMA and vdpbf16ps loops on this core.
 *
 *   bench-bf16-gemm                  512^3, 1024^3 and ResNet-50 im2col shapes
 *   bench-bf16-gemm 64x3136x576 ...  given shapes (M x N x K, no transposes)
 *   options: --min-time S (each number: best of >= 5 runs and >= S s; 0.3)
 *
 * Columns: sgemm (FLOAT), bf16dot with FLOAT operands (converted in the
 * packing pass: TENSOR_OP_MATH_ALLOW_CONVERSION), with BFLOAT16 and HALF
 * operands (TENSOR_OP_MATH on 16-bit data), and the AVX-512 FMA fallback
 * kernel on BFLOAT16 operands; then the INT8 GEMM (fdnn_gemm_i8dot, int32
 * C) with uint8 x int8 and int8 x int8 operands (GOP/s, 2MNK).  Flops are 2 M N K over the calling
 * thread's CPU time (the peaks: wall clock of 1 ms loops); each number is
 * the best run.  Asserts nothing. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cpu.h"
#include "core/memory.h"
#include "cpu/gemm/gemm.h"
#include "cpu/simd/cvt.h"

double bench_fma_loop_avx512(size_t iters, float *sink);
double bench_dpbf16_loop_avx512(size_t iters, float *sink);

static double min_time = 0.3;

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The GEMM columns time the calling thread's CPU time: on a shared machine
 * the time it spends descheduled is not counted (one thread only). */
static double
cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double
peak(double (*loop)(size_t, float *))
{
    float sink = 0;
    double best = 0;
    for (int rep = 0; rep < 200; rep++) {
        double t0 = now(), flops = loop(100000, &sink);
        double g = flops / (now() - t0) * 1e-9;
        best = g > best ? g : best;
    }
    if (sink == 12345.f)
        printf(" ");
    return best;
}

typedef struct shape {
    size_t m, n, k;
    const char *what;
} shape_t;

static const shape_t shapes[] = {
    {512, 512, 512, "square"},
    {1024, 1024, 1024, "square"},
    {64, 3136, 576, "res2 3x3 (im2col)"},
    {64, 3136, 64, "res2 1x1 reduce"},
    {256, 3136, 64, "res2 1x1 expand"},
    {128, 784, 1152, "res3 3x3 (im2col)"},
    {512, 784, 128, "res3 1x1 expand"},
    {256, 196, 2304, "res4 3x3 (im2col)"},
    {1024, 196, 256, "res4 1x1 expand"},
    {512, 49, 4608, "res5 3x3 (im2col)"},
    {2048, 49, 512, "res5 1x1 expand"},
};

typedef struct job {
    const fdnn_sgemm_args_t *s;        /* FP32 when set */
    const fdnn_gemm_i8dot_args_t *q;   /* INT8 when set */
    const fdnn_gemm_bf16dot_args_t *b; /* otherwise BF16 dot */
    fdnn_bf16dot_kernel_t kernel;
    void *scratch;
    size_t scratch_bytes;
} job_t;

static double
gflops(const job_t *j, size_t m, size_t n, size_t k)
{
    double best = 1e30, spent = 0;
    for (int rep = 0; rep < 5 || spent < min_time; rep++) {
        double t0 = cpu_now();
        bool ok = j->s != NULL   ? fdnn_sgemm(j->s, NULL, fdnn_cpu_max_isa(), j->scratch, j->scratch_bytes)
                  : j->q != NULL ? fdnn_gemm_i8dot(j->q, NULL, fdnn_cpu_max_isa(), j->scratch, j->scratch_bytes)
                                 : fdnn_gemm_bf16dot_on(j->b, NULL, j->kernel, j->scratch, j->scratch_bytes);
        double t = cpu_now() - t0;
        if (!ok)
            return 0;
        spent += t;
        best = t < best ? t : best;
        if (rep > 1000)
            break;
    }
    return 2.0 * (double)m * (double)n * (double)k / best * 1e-9;
}

static void
run_shape(size_t m, size_t n, size_t k, const char *what)
{
    float *a = fdnn_aligned_alloc(m * k * sizeof(float)), *b = fdnn_aligned_alloc(k * n * sizeof(float));
    float *c = fdnn_aligned_alloc(m * n * sizeof(float));
    uint16_t *a16 = fdnn_aligned_alloc(m * k * 2), *b16 = fdnn_aligned_alloc(k * n * 2);
    uint16_t *ah = fdnn_aligned_alloc(m * k * 2), *bh = fdnn_aligned_alloc(k * n * 2);
    for (size_t i = 0; i < m * k; i++) {
        a[i] = (float)((int)(i * 7919 % 2001) - 1000) * 1e-3f;
        a16[i] = fdnn_f32_to_bf16(a[i]);
        ah[i] = fdnn_f32_to_f16(a[i]);
    }
    for (size_t i = 0; i < k * n; i++) {
        b[i] = (float)((int)(i * 104729 % 2001) - 1000) * 1e-3f;
        b16[i] = fdnn_f32_to_bf16(b[i]);
        bh[i] = fdnn_f32_to_f16(b[i]);
    }
    memset(c, 0, m * n * sizeof(float));
    fdnn_sgemm_args_t sg = {.m = m, .n = n, .k = k, .alpha = 1, .a = a, .lda = k, .b = b, .ldb = n, .c = c, .ldc = n};
    fdnn_gemm_bf16dot_args_t bf = {.m = m, .n = n, .k = k, .alpha = 1, .a_type = FDNN_GEMM_F32, .a = a, .lda = k,
                                   .b_type = FDNN_GEMM_F32, .b = b, .ldb = n, .c = c, .ldc = n};
    fdnn_gemm_bf16dot_args_t bb = bf, bhh = bf;
    bb.a_type = bb.b_type = FDNN_GEMM_BF16;
    bb.a = a16;
    bb.b = b16;
    bhh.a_type = bhh.b_type = FDNN_GEMM_F16;
    bhh.a = ah;
    bhh.b = bh;
    fdnn_bf16dot_kernel_t best = fdnn_gemm_bf16dot_kernel(fdnn_cpu_max_isa());
    size_t sbytes = fdnn_sgemm_scratch_size(&sg, 1, fdnn_cpu_max_isa());
    size_t bbytes = fdnn_gemm_bf16dot_scratch_size_on(&bf, best);
    size_t fbytes = fdnn_gemm_bf16dot_scratch_size_on(&bf, FDNN_BF16DOT_AVX512);
    int32_t *ci = fdnn_aligned_alloc(m * n * sizeof(int32_t));
    fdnn_gemm_i8dot_args_t qu = {.m = m, .n = n, .k = k, .a_type = FDNN_GEMM_U8, .a = a16, .lda = k,
                                 .b_type = FDNN_GEMM_S8, .b = b16, .ldb = n, .c = ci, .ldc = n};
    fdnn_gemm_i8dot_args_t qs = qu;
    qs.a_type = FDNN_GEMM_S8;
    size_t qbytes = fdnn_gemm_i8dot_scratch_size(&qs, fdnn_cpu_max_isa());
    size_t most = sbytes > bbytes ? sbytes : bbytes;
    most = most > fbytes ? most : fbytes;
    most = most > qbytes ? most : qbytes;
    void *scratch = fdnn_aligned_alloc(most);
    job_t js = {.s = &sg, .scratch = scratch, .scratch_bytes = most};
    job_t jf = {.b = &bf, .kernel = best, .scratch = scratch, .scratch_bytes = most};
    job_t jb = {.b = &bb, .kernel = best, .scratch = scratch, .scratch_bytes = most};
    job_t jh = {.b = &bhh, .kernel = best, .scratch = scratch, .scratch_bytes = most};
    job_t jfb = {.b = &bb, .kernel = FDNN_BF16DOT_AVX512, .scratch = scratch, .scratch_bytes = most};
    double gs = gflops(&js, m, n, k), gf = gflops(&jf, m, n, k), gb = gflops(&jb, m, n, k);
    double gh = gflops(&jh, m, n, k), gfb = gflops(&jfb, m, n, k);
    job_t jqu = {.q = &qu, .scratch = scratch, .scratch_bytes = most};
    job_t jqs = {.q = &qs, .scratch = scratch, .scratch_bytes = most};
    double gqu = gflops(&jqu, m, n, k), gqs = gflops(&jqs, m, n, k);
    printf("| %zux%zux%zu %s | %.0f | %.0f (%.2fx) | %.0f (%.2fx) | %.0f (%.2fx) | %.0f (%.2fx) | %.0f (%.2fx) | "
           "%.0f (%.2fx) |\n",
           m, n, k, what, gs, gf, gf / gs, gb, gb / gs, gh, gh / gs, gfb, gfb / gs, gqu, gqu / gs, gqs, gqs / gs);
    fflush(stdout);
    fdnn_aligned_free(scratch);
    fdnn_aligned_free(ci);
    fdnn_aligned_free(a);
    fdnn_aligned_free(b);
    fdnn_aligned_free(c);
    fdnn_aligned_free(a16);
    fdnn_aligned_free(b16);
    fdnn_aligned_free(ah);
    fdnn_aligned_free(bh);
}

int
main(int argc, char **argv)
{
    int first_shape = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc)
            min_time = atof(argv[++i]);
        else {
            first_shape = i;
            break;
        }
    }
    if (fdnn_cpu_max_isa() < FDNN_ISA_AVX512) {
        printf("bench-bf16-gemm: needs AVX-512 (the fallback column)\n");
        return 0;
    }
    double pf = peak(bench_fma_loop_avx512);
    printf("CPU: %s; FP32 FMA peak %.0f GFLOP/s", fdnn_cpu_name(), pf);
    if (fdnn_cpu_features()->avx512_bf16) {
        double pb = peak(bench_dpbf16_loop_avx512);
        printf(", vdpbf16ps peak %.0f GFLOP/s (%.2fx)", pb, pb / pf);
    }
    printf("; bf16dot kernel: %s; i8dot kernel: %s\n\n",
           fdnn_gemm_bf16dot_kernel_name(fdnn_gemm_bf16dot_kernel(fdnn_cpu_max_isa())),
           fdnn_gemm_i8dot_kernel_name(fdnn_gemm_i8dot_kernel(fdnn_cpu_max_isa())));
    printf("| M x N x K | sgemm GFLOP/s | bf16dot, FLOAT operands | BFLOAT16 operands | HALF operands | "
           "AVX-512 FMA fallback, BFLOAT16 | i8dot u8 x s8 (GOP/s) | i8dot s8 x s8 |\n"
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    if (first_shape < argc) {
        for (int i = first_shape; i < argc; i++) {
            size_t m, n, k;
            if (sscanf(argv[i], "%zux%zux%zu", &m, &n, &k) == 3)
                run_shape(m, n, k, "");
        }
    } else {
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
            run_shape(shapes[s].m, shapes[s].n, shapes[s].k, shapes[s].what);
    }
    return 0;
}
