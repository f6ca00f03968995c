/* SPDX-License-Identifier: Apache-2.0
 * The in-place-A 14x32 microkernels alone, called as the rows path calls
 * them (conv_gemm_rows_dy.inc rows_block_ptrs, conv_gemm_rows.inc
 * rows_block_inplace): a row block of 12 row tiles of 14 rows, strips of a
 * packed B (kc x 32) outer, tiles inner, C read and written (beta 1).
 * Linked once against the branch point's kernel objects and once against
 * the branch's (run.sh), so the same harness times both.  Reports GFLOP/s
 * of the calling thread's CPU time (median of 7 repetitions), and a
 * checksum of C that must agree between the two builds (same sums).
 * usage: kbench MODE   MODE = ptrs196 | ptrs245 | rows196 | packed196 (the
 * packed kernel on the same sizes, A packed: the ceiling). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    float alpha, beta;
    const float *bias_row, *bias_col;
    bool relu, stream;
} ep_t;
void fdnn_f32_gemm_aptrs_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *const *a,
                                               const size_t *runs, size_t seg, const float *b, size_t b_stride,
                                               float *c, size_t ldc, const ep_t *ep);
void fdnn_f32_gemm_arows_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
                                               const float *b, size_t b_stride, float *c, size_t ldc,
                                               const ep_t *ep);
void fdnn_f32_gemm_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
                                         size_t b_stride, float *c, size_t ldc, const ep_t *ep);

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int
cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* "layer": res5 1x1 1024->512 backward filter on 14x14 as rows_block_ptrs
 * runs one row block of it (x_ptrs): x of an image group (10 images of
 * 1024 x 196) read in place, k blocks of one image, dy^T of the group
 * packed (16 strips of 1960 x 32), a C block of 9 row tiles x 512. */
static void
layer(void)
{
    size_t osp = 196, nimg = 10, ch = 1024, strips = 16, tiles = 9, ldc = strips * 32, pos = nimg * osp;
    float *x = aligned_alloc(64, sizeof(float) * nimg * ch * osp);
    float *dyt = aligned_alloc(64, sizeof(float) * strips * pos * 32);
    float *c = aligned_alloc(64, sizeof(float) * tiles * 14 * ldc);
    for (size_t i = 0; i < nimg * ch * osp; i++)
        x[i] = (float)((i * 7919u) % 1000u) / 1000.0f - 0.5f;
    for (size_t i = 0; i < strips * pos * 32; i++)
        dyt[i] = (float)((i * 104729u) % 1000u) / 1000.0f - 0.5f;
    ep_t ep1 = {1.0f, 1.0f, NULL, NULL, false, false};
    memset(c, 0, sizeof(float) * tiles * 14 * ldc);
    double t[7];
    int reps = 8;
    for (int rep = 0; rep < 7; rep++) {
        double t0 = now();
        for (int it = 0; it < reps; it++) {
            size_t r0 = (size_t)(it % 8) * tiles * 14; /* the row block: another one each pass */
            for (size_t k0 = 0; k0 < pos; k0 += osp) {
                const float *ptr[14 * 9];
                size_t runs[1] = {0};
                for (size_t i = 0; i < tiles * 14; i++)
                    ptr[i] = x + (k0 / osp) * ch * osp + (r0 + i) * osp;
                for (size_t st = 0; st < strips; st++)
                    for (size_t i0 = 0; i0 < tiles * 14; i0 += 14)
                        fdnn_f32_gemm_aptrs_ukernel_14x32__avx512(14, 32, osp, ptr + i0, runs, osp,
                                                                  dyt + (st * pos + k0) * 32, 32,
                                                                  c + i0 * ldc + st * 32, ldc, &ep1);
            }
        }
        t[rep] = now() - t0;
    }
    qsort(t, 7, sizeof(double), cmp);
    double flop = 2.0 * (double)reps * (double)pos * (double)(tiles * 14) * (double)ldc;
    printf("layer median %.1f GFLOP/s (min time %.1f)\n", flop / t[3] * 1e-9, flop / t[0] * 1e-9);
}

int
main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ptrs196";
    if (strcmp(mode, "layer") == 0) {
        layer();
        return 0;
    }
    /* ptrs196: dy of a 14x14 layer in place (rows 196 apart, one run);
     * ptrs245: x of a 7x7 layer (rows 49 apart, 5 runs of 49, images
     * 1024 x 49 apart); rows196: the arows kernel, rows 196 apart. */
    bool ptrs = strncmp(mode, "ptrs", 4) == 0, packed = strncmp(mode, "packed", 6) == 0;
    size_t osp = strcmp(mode, "ptrs245") == 0 ? 49 : 196, kc = strcmp(mode, "ptrs245") == 0 ? 245 : 196;
    size_t seg = osp, img_stride = 1024 * osp, tiles = 12, rows = tiles * 14, strips = 16, ldc = strips * 32;
    size_t nimg = (kc + osp - 1) / osp;
    float *a = aligned_alloc(64, sizeof(float) * nimg * img_stride);
    float *b = aligned_alloc(64, sizeof(float) * strips * kc * 32);
    float *c = aligned_alloc(64, sizeof(float) * rows * ldc);
    for (size_t i = 0; i < nimg * img_stride; i++)
        a[i] = (float)((i * 7919u) % 1000u) / 1000.0f - 0.5f;
    for (size_t i = 0; i < strips * kc * 32; i++)
        b[i] = (float)((i * 104729u) % 1000u) / 1000.0f - 0.5f;
    const float *ptr[14 * 12];
    size_t runs[8];
    for (size_t i = 0; i < rows; i++)
        ptr[i] = a + i * osp;
    for (size_t j = 0; j < nimg; j++)
        runs[j] = j * img_stride;
    ep_t ep0 = {1.0f, 0.0f, NULL, NULL, false, false}, ep1 = {1.0f, 1.0f, NULL, NULL, false, false};
    double t[7];
    int reps = 40;
    for (int rep = 0; rep < 7; rep++) {
        double t0 = now();
        for (int it = 0; it < reps; it++)
            for (size_t st = 0; st < strips; st++)
                for (size_t i0 = 0; i0 < rows; i0 += 14) {
                    const ep_t *ep = it == 0 ? &ep0 : &ep1;
                    if (packed)
                        fdnn_f32_gemm_ukernel_14x32__avx512(14, 32, kc, a + i0 * kc, b + st * kc * 32, 32,
                                                            c + i0 * ldc + st * 32, ldc, ep);
                    else if (ptrs)
                        fdnn_f32_gemm_aptrs_ukernel_14x32__avx512(14, 32, kc, ptr + i0, runs, seg, b + st * kc * 32,
                                                                  32, c + i0 * ldc + st * 32, ldc, ep);
                    else
                        fdnn_f32_gemm_arows_ukernel_14x32__avx512(14, 32, kc, a + i0 * osp, osp, b + st * kc * 32,
                                                                  32, c + i0 * ldc + st * 32, ldc, ep);
                }
        t[rep] = now() - t0;
    }
    qsort(t, 7, sizeof(double), cmp);
    double sum = 0;
    for (size_t i = 0; i < rows * ldc; i++)
        sum += c[i] * (double)(i % 13 + 1);
    double flop = 2.0 * (double)reps * (double)strips * (double)rows * 32.0 * (double)kc;
    printf("%s median %.1f GFLOP/s (min time %.1f) checksum %.9e\n", mode, flop / t[3] * 1e-9, flop / t[0] * 1e-9,
           sum);
    return 0;
}
