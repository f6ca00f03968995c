/* SPDX-License-Identifier: Apache-2.0
 * The INT8 dot-product GEMM (fdnn_gemm_i8dot, src/cpu/gemm/lowp_i8_gemm.c),
 * exact against an int64 reference: every kernel this CPU can run
 * (portable, AVX2, AVX-512, AVX-512 VNNI), int8/uint8 operands in all four
 * combinations (the +-128 corrections), all transposes, M, N, K = 1, K off
 * the quad, sizes off the tiles, several k blocks, leading dimensions wider
 * than the rows (gaps of C untouched), accumulate or not (C poisoned when it
 * must not be read), extreme values (every product -128 * 255 or 127 *
 * 255), 1 vs 2 and 3 threads bitwise.  Every buffer ends at a guard page. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "testutil.h"

static fdnn_pool_t pool2, pool3;
static fdnn_rng_t rng;
static int kernels[8], n_kernels;

typedef struct shape {
    size_t m, n, k;
} shape_t;

static size_t
span(size_t rows, size_t cols, size_t ld)
{
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

static void *
galloc(size_t bytes)
{
    return fdnn_guarded_alloc(bytes > 0 ? bytes : 8);
}

/* extreme: 0 random, 1 every element at its type's minimum, 2 at its maximum */
static uint8_t *
random_bytes(size_t n, int extreme, fdnn_gemm_i8_type_t t)
{
    uint8_t *p = galloc(n);
    for (size_t i = 0; i < n; i++) {
        if (extreme == 0)
            p[i] = (uint8_t)fdnn_rng_u64(&rng);
        else if (t == FDNN_GEMM_S8)
            p[i] = extreme == 1 ? 0x80 : 0x7f;
        else
            p[i] = extreme == 1 ? 0 : 0xff;
    }
    return p;
}

static int64_t
value(fdnn_gemm_i8_type_t t, const uint8_t *p, size_t i)
{
    return t == FDNN_GEMM_S8 ? (int64_t)(int8_t)p[i] : (int64_t)p[i];
}

typedef struct variant {
    bool trans_a, trans_b;
    fdnn_gemm_i8_type_t ta, tb;
    size_t pad_a, pad_b, pad_c;
    bool accumulate, user_scratch, three_threads;
    int extreme_a, extreme_b;
} variant_t;

static void
run_case(shape_t s, const variant_t *v)
{
    size_t m = s.m, n = s.n, k = s.k;
    size_t a_rows = v->trans_a ? k : m, a_cols = v->trans_a ? m : k;
    size_t b_rows = v->trans_b ? n : k, b_cols = v->trans_b ? k : n;
    size_t lda = a_cols + v->pad_a, ldb = b_cols + v->pad_b, ldc = n + v->pad_c;
    size_t na = span(a_rows, a_cols, lda), nb = span(b_rows, b_cols, ldb), nc = span(m, n, ldc);
    uint8_t *a = random_bytes(na, v->extreme_a, v->ta), *b = random_bytes(nb, v->extreme_b, v->tb);
    int32_t *c0 = galloc(nc * sizeof(int32_t)), *c1 = galloc(nc * sizeof(int32_t)), *c2 = galloc(nc * sizeof(int32_t));
    for (size_t i = 0; i < nc; i++)
        c0[i] = v->accumulate ? (int32_t)(fdnn_rng_u64(&rng) % 2000001) - 1000000 : (int32_t)0x7fc0dead;
    int64_t *ref = malloc((m * n + 1) * sizeof(int64_t));
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            int64_t sum = v->accumulate ? c0[i * ldc + j] : 0;
            for (size_t p = 0; p < k; p++)
                sum += value(v->ta, a, v->trans_a ? p * lda + i : i * lda + p) *
                       value(v->tb, b, v->trans_b ? j * ldb + p : p * ldb + j);
            ref[i * n + j] = sum;
        }
    fdnn_gemm_i8dot_args_t g = {.trans_a = v->trans_a, .trans_b = v->trans_b, .m = m, .n = n, .k = k,
                                .a_type = v->ta, .a = a, .lda = lda, .b_type = v->tb, .b = b, .ldb = ldb,
                                .accumulate = v->accumulate, .c = c1, .ldc = ldc};
    for (int kk = 0; kk < n_kernels; kk++) {
        fdnn_i8dot_kernel_t kern = (fdnn_i8dot_kernel_t)kernels[kk];
        const char *kname = fdnn_gemm_i8dot_kernel_name(kern);
        size_t need = fdnn_gemm_i8dot_scratch_size_on(&g, kern);
        void *scratch = v->user_scratch ? galloc(need) : NULL;
        memcpy(c1, c0, nc * sizeof(int32_t));
        g.c = c1;
        CHECK(fdnn_gemm_i8dot_on(&g, NULL, kern, scratch, v->user_scratch ? need : 0));
        int bad = 0;
        for (size_t i = 0; i < m && bad < 3; i++)
            for (size_t j = 0; j < ldc && bad < 3; j++) {
                size_t at = i * ldc + j;
                if (at >= nc)
                    break;
                int32_t want = j < n ? (int32_t)ref[i * n + j] : c0[at];
                if (c1[at] != want) {
                    fdnn_test_fail(__FILE__, __LINE__,
                                   "%s m=%zu n=%zu k=%zu ta=%d tb=%d types=%d,%d acc=%d: C(%zu,%zu) = %d, want %d",
                                   kname, m, n, k, v->trans_a, v->trans_b, v->ta, v->tb, v->accumulate, i, j, c1[at],
                                   want);
                    bad++;
                }
            }
        if (bad == 0)
            fdnn_test_passed++;
        memcpy(c2, c0, nc * sizeof(int32_t));
        g.c = c2;
        CHECK(fdnn_gemm_i8dot_on(&g, pool2, kern, scratch, v->user_scratch ? need : 0));
        CHECK_MSG(memcmp(c1, c2, nc * sizeof(int32_t)) == 0, "%s m=%zu n=%zu k=%zu: 1 and 2 threads differ", kname,
                  m, n, k);
        if (v->three_threads) {
            memcpy(c2, c0, nc * sizeof(int32_t));
            CHECK(fdnn_gemm_i8dot_on(&g, pool3, kern, scratch, v->user_scratch ? need : 0));
            CHECK_MSG(memcmp(c1, c2, nc * sizeof(int32_t)) == 0, "%s: 1 and 3 threads differ", kname);
        }
        fdnn_guarded_free(scratch);
    }
    free(ref);
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
    fdnn_guarded_free(c0);
    fdnn_guarded_free(c1);
    fdnn_guarded_free(c2);
}

static const shape_t shapes[] = {
    {1, 1, 1},    {1, 1, 4},     {1, 1, 7},    {1, 17, 1},  {17, 1, 3},    {2, 3, 4},    {13, 31, 7},
    {14, 32, 16}, {15, 33, 17},  {12, 32, 5},  {4, 16, 6},  {5, 17, 9},    {28, 64, 33}, {29, 65, 100},
    {37, 41, 43}, {3, 7, 1601},  {97, 3, 11},  {1, 100, 50}, {100, 1, 50}, {71, 300, 19}, {3, 5, 0},
    {64, 49, 576}, {30, 530, 2100}, /* three k blocks of 704, the last 692 */
    {33, 49, 64}, {15, 250, 1040}, /* k a multiple of 4: A read in place when not transposed */
};

static void
test_shapes(void)
{
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
        for (int t = 0; t < 4; t++)
            for (int types = 0; types < 4; types++) {
                variant_t v = {.trans_a = t & 1, .trans_b = t >> 1, .ta = types & 1, .tb = types >> 1};
                v.pad_a = (s % 3) * 5;
                v.pad_b = ((s + t) % 2) * 3;
                v.pad_c = ((s + types) % 2) * 7;
                v.accumulate = (s + t + types) % 2 == 1;
                v.user_scratch = (s + t) % 2 == 0;
                v.three_threads = s + 1 == sizeof(shapes) / sizeof(shapes[0]) && t == 0;
                run_case(shapes[s], &v);
            }
}

/* The extremes of every type pair: each product at the edge of its range,
 * sums up to 127 * 255 * 1100. */
static void
test_extremes(void)
{
    for (int types = 0; types < 4; types++)
        for (int ea = 1; ea <= 2; ea++)
            for (int eb = 1; eb <= 2; eb++) {
                variant_t v = {.trans_a = (ea + eb) % 2, .trans_b = types % 2, .ta = types & 1, .tb = types >> 1,
                               .extreme_a = ea, .extreme_b = eb};
                run_case((shape_t){17, 35, 1100}, &v);
            }
}

int
main(void)
{
    fdnn_rng_seed(&rng, 20261203);
    pool2 = fdnn_pool_create(2);
    pool3 = fdnn_pool_create(3);
    for (int kern = FDNN_I8DOT_NEON_I8MM; kern >= FDNN_I8DOT_PORTABLE; kern--) {
        fdnn_gemm_i8dot_args_t probe = {.m = 0};
        if (fdnn_gemm_i8dot_on(&probe, NULL, (fdnn_i8dot_kernel_t)kern, NULL, 0))
            kernels[n_kernels++] = kern;
    }
    CHECK(fdnn_gemm_i8dot_kernel(FDNN_ISA_SCALAR) == FDNN_I8DOT_PORTABLE);
    if (fdnn_cpu_detected_isa() >= FDNN_ISA_AVX512)
        CHECK(fdnn_gemm_i8dot_kernel(FDNN_ISA_AVX512) ==
              (fdnn_cpu_features()->avx512_vnni ? FDNN_I8DOT_AVX512_VNNI : FDNN_I8DOT_AVX512));
    if (fdnn_cpu_detected_isa() == FDNN_ISA_NEON)
        CHECK(fdnn_gemm_i8dot_kernel(FDNN_ISA_NEON) ==
              (fdnn_cpu_features()->i8mm ? FDNN_I8DOT_NEON_I8MM : FDNN_I8DOT_PORTABLE));
    printf("test_lowp_i8_gemm: kernels run:");
    for (int i = 0; i < n_kernels; i++)
        printf(" %s", fdnn_gemm_i8dot_kernel_name(kernels[i]));
    printf("\n");
    test_shapes();
    test_extremes();
    fdnn_pool_destroy(pool2);
    fdnn_pool_destroy(pool3);
    return fdnn_test_finish("test_lowp_i8_gemm");
}
