/* In-process A/B of one FP32 product shape: fdnn_sgemm (blocked driver, its scratch preallocated)
 * against fdnn_sgemm_bpack_init + fdnn_sgemm_bpacked (B packed per call, counted in; buffers
 * preallocated), alternated per repetition so both see the same host state.
 * A third column: the packed product in k blocks of KC rows (one packed B per block, C accumulated
 * with beta 1 after the first), when KC is given.
 * Usage: gemm_ab M N K [REPS [KC]]; prints median and min of each, ms of the calling thread's CPU time.
 * Build: gcc -O2 -std=c11 -Isrc -Iinclude -Icompat/cudart/include -Ibuild/generated
 *   bench/results/2026-12-04-rnnattn/gemm_ab.c build/libfdnn_internal.a -lm -lpthread -o /tmp/gemm_ab */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "cpu/gemm/sgemm_bpack.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
    size_t m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
    int reps = argc > 4 ? atoi(argv[4]) : 15;
    fdnn_isa_t isa = fdnn_cpu_max_isa();
    float *A = aligned_alloc(64, m * k * 4), *B = aligned_alloc(64, k * n * 4), *C = aligned_alloc(64, m * n * 4);
    for (size_t i = 0; i < m * k; i++) A[i] = (float)rand() / RAND_MAX;
    for (size_t i = 0; i < k * n; i++) B[i] = (float)rand() / RAND_MAX;
    memset(C, 0, m * n * 4);
    fdnn_sgemm_args_t g = {.m = m, .n = n, .k = k, .alpha = 1, .a = A, .lda = k, .b = B, .ldb = n, .c = C, .ldc = n};
    size_t sb = fdnn_sgemm_scratch_size(&g, 1, isa);
    void *scr = aligned_alloc(64, (sb + 127) / 64 * 64); memset(scr, 0, sb);
    size_t pb = fdnn_sgemm_bpack_bytes(m, n, k, false, isa), ab = (m + 63) * k * 4 + 64;
    char *buf = aligned_alloc(64, (pb + ab + 127) / 64 * 64); memset(buf, 0, pb + ab);
    size_t kc = argc > 5 ? atoi(argv[5]) : 0, nkb = kc ? (k + kc - 1) / kc : 0;
    size_t pbk = kc ? fdnn_sgemm_bpack_bytes(m, n, kc, false, isa) : 0;
    char *bufk = kc ? aligned_alloc(64, (nkb * pbk + 127) / 64 * 64) : NULL;
    if (bufk) memset(bufk, 0, nkb * pbk);
    double *t1 = calloc(reps, 8), *t2 = calloc(reps, 8), *t3 = calloc(reps, 8);
    for (int r = -1; r < reps; r++) {
        double s = now();
        fdnn_sgemm(&g, NULL, isa, scr, sb);
        double a = now() - s;
        s = now();
        fdnn_sgemm_bpack_t pk;
        fdnn_sgemm_bpack_init(&pk, m, n, k, B, n, false, NULL, isa, buf, pb);
        fdnn_sgemm_bpacked(&pk, m, 1, A, k, 0, C, n, NULL, NULL, buf + (pb + 63) / 64 * 64, ab);
        fdnn_sgemm_bpack_free(&pk);
        double b = now() - s;
        double c = 0;
        if (kc) {
            s = now();
            for (size_t kb = 0; kb < nkb; kb++) {
                size_t k0 = kb * kc, kn = k - k0 < kc ? k - k0 : kc;
                fdnn_sgemm_bpack_t pk;
                fdnn_sgemm_bpack_init(&pk, m, n, kn, B + k0 * n, n, false, NULL, isa, bufk + kb * pbk, pbk);
                fdnn_sgemm_bpacked(&pk, m, 1, A + k0, k, kb ? 1.0f : 0.0f, C, n, NULL, NULL, buf + (pb + 63) / 64 * 64, ab);
                fdnn_sgemm_bpack_free(&pk);
            }
            c = now() - s;
        }
        if (r >= 0) t1[r] = a, t2[r] = b, t3[r] = c;
    }
    qsort(t1, reps, 8, cmp), qsort(t2, reps, 8, cmp), qsort(t3, reps, 8, cmp);
    double gf = 2.0 * m * n * k * 1e-6;
    printf("%zux%zux%zu sgemm median %.3f ms (%.0f GFLOP/s) min %.3f | bpacked median %.3f ms (%.0f GFLOP/s) min %.3f\n", m, n, k,
           t1[reps / 2], gf / t1[reps / 2], t1[0], t2[reps / 2], gf / t2[reps / 2], t2[0]);
    if (kc)
        printf("    k blocks of %zu: median %.3f ms (%.0f GFLOP/s) min %.3f\n", kc, t3[reps / 2], gf / t3[reps / 2], t3[0]);
    return 0;
}
