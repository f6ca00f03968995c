/* SPDX-License-Identifier: Apache-2.0
 * The GEMM leaf kernels on their own (src/cpu/kernels/): the transposing and
 * plain packs against their definition, bit for bit, for every size up to
 * the largest strip and every ISA level the machine has; the float
 * microkernels with every mr <= MR and nr <= NR, a B row stride other than NR
 * (op(B) read in place), and each epilogue term.  Buffers end at guard pages,
 * so a read or write past the valid rows and columns faults. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "cpu/kernels/gemm_ukernel.h"
#include "testutil.h"

static fdnn_rng_t rng;

static void *
galloc(size_t bytes)
{
    return fdnn_guarded_alloc(bytes > 0 ? bytes : 8);
}

typedef struct packs {
    fdnn_isa_t isa;
    fdnn_f32_pack_t_fn pack_t;
    fdnn_f32_pack_n_fn pack_n;
} packs_t;

static const packs_t pack_list[] = {
    {FDNN_ISA_AVX2, FDNN_X86_ONLY(fdnn_f32_pack_t__avx2), FDNN_X86_ONLY(fdnn_f32_pack_n__avx2)},
    {FDNN_ISA_AVX512, FDNN_X86_ONLY(fdnn_f32_pack_t__avx512), FDNN_X86_ONLY(fdnn_f32_pack_n__avx512)},
};

static void
test_packs(void)
{
    static const size_t widths[] = {4, 6, 8, 12, 14, 16, 24, 28, 32, 48}; /* the strip widths the kernels use */
    for (size_t e = 0; e < sizeof(pack_list) / sizeof(pack_list[0]); e++) {
        const packs_t *pk = &pack_list[e];
        if (pk->isa > fdnn_cpu_max_isa())
            continue;
        for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
            size_t width = widths[w];
            for (size_t valid = 0; valid <= width; valid += (valid < 3 || valid + 3 > width) ? 1 : 5) {
                size_t kc = (size_t)fdnn_rng_int(&rng, 1, 40), ld = kc + (size_t)fdnn_rng_int(&rng, 0, 3);
                /* Transposing: `valid` rows of kc floats -> kc rows of `width`. */
                size_t nsrc = valid > 0 ? (valid - 1) * ld + kc : 0;
                float *src = galloc(nsrc * sizeof(float)), *dst = galloc(kc * width * sizeof(float));
                for (size_t i = 0; i < nsrc; i++)
                    src[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
                fdnn_poison_f32(dst, kc * width);
                pk->pack_t(valid, kc, src, ld, dst, width);
                bool ok = true;
                for (size_t c = 0; c < kc; c++)
                    for (size_t r = 0; r < width; r++) {
                        float want = r < valid ? src[r * ld + c] : 0.0f;
                        ok &= memcmp(&dst[c * width + r], &want, sizeof(float)) == 0;
                    }
                CHECK_MSG(ok, "pack_t %s width %zu valid %zu kc %zu", fdnn_isa_name(pk->isa), width, valid, kc);
                fdnn_guarded_free(src);
                fdnn_guarded_free(dst);

                /* Plain, into strips: kc rows of `cols` floats -> strips of `width`. */
                size_t cols = valid + (size_t)fdnn_rng_int(&rng, 0, 2) * width; /* one to three strips */
                size_t strips = (cols + width - 1) / width;
                size_t ldn = cols + (size_t)fdnn_rng_int(&rng, 0, 3);
                nsrc = cols > 0 ? (kc - 1) * ldn + cols : 0;
                src = galloc(nsrc * sizeof(float));
                dst = galloc(strips * kc * width * sizeof(float));
                for (size_t i = 0; i < nsrc; i++)
                    src[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
                fdnn_poison_f32(dst, strips * kc * width);
                pk->pack_n(kc, cols, src, ldn, dst, width);
                ok = true;
                for (size_t r = 0; r < kc; r++)
                    for (size_t c = 0; c < strips * width; c++) {
                        float want = c < cols ? src[r * ldn + c] : 0.0f;
                        ok &= memcmp(&dst[(c / width) * kc * width + r * width + c % width], &want,
                                     sizeof(float)) == 0;
                    }
                CHECK_MSG(ok, "pack_n %s width %zu cols %zu kc %zu", fdnn_isa_name(pk->isa), width, cols, kc);
                fdnn_guarded_free(src);
                fdnn_guarded_free(dst);
            }
        }
    }
}

typedef struct ukernel {
    fdnn_isa_t isa;
    size_t mr, nr;
    fdnn_f32_gemm_ukernel_fn fn;
    const char *name;
} ukernel_t;

static const ukernel_t ukernels[] = {
    {FDNN_ISA_SCALAR, 4, 16, fdnn_f32_gemm_ukernel_4x16__scalar, "4x16__scalar"},
    {FDNN_ISA_AVX2, 6, 16, FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_6x16__avx2), "6x16__avx2"},
    {FDNN_ISA_AVX2, 12, 8, FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_12x8__avx2), "12x8__avx2"},
    {FDNN_ISA_AVX2, 4, 24, FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_4x24__avx2), "4x24__avx2"},
    {FDNN_ISA_AVX2, 6, 8, FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_6x8__avx2), "6x8__avx2"},
    {FDNN_ISA_AVX512, 14, 32, FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_14x32__avx512), "14x32__avx512"},
    {FDNN_ISA_AVX512, 28, 16, FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_28x16__avx512), "28x16__avx512"},
    {FDNN_ISA_AVX512, 8, 48, FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_8x48__avx512), "8x48__avx512"},
    {FDNN_ISA_AVX512, 14, 16, FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_14x16__avx512), "14x16__avx512"},
    {FDNN_ISA_NEON, 8, 12, FDNN_ARM64_ONLY(fdnn_f32_gemm_ukernel_8x12__neon), "8x12__neon"},
};

/* One call: mr x nr of C, kc steps, B rows b_stride apart. */
static void
run_ukernel(const ukernel_t *uk, size_t mr, size_t nr, size_t kc, size_t b_stride, float alpha, float beta,
            bool brow, bool bcol, bool relu)
{
    size_t MR = uk->mr, NR = uk->nr, ldc = nr + 2;
    float *a = galloc(kc * MR * sizeof(float)) /* packed: zero rows past mr */;
    size_t nb = kc > 0 ? (kc - 1) * b_stride + NR : 0;
    float *b = galloc(nb * sizeof(float));
    size_t nc = (mr - 1) * ldc + nr;
    float *c = galloc(nc * sizeof(float)), *c0 = galloc(nc * sizeof(float));
    float *br = galloc(mr * sizeof(float)), *bc = galloc(nr * sizeof(float));
    for (size_t p = 0; p < kc; p++)
        for (size_t i = 0; i < MR; i++)
            a[p * MR + i] = i < mr ? (float)fdnn_rng_uniform(&rng, -1, 1) : 0.0f;
    for (size_t i = 0; i < nb; i++)
        b[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (size_t i = 0; i < nc; i++)
        c0[i] = beta == 0 ? NAN : (float)fdnn_rng_uniform(&rng, -1, 1);
    for (size_t i = 0; i < mr; i++)
        br[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (size_t j = 0; j < nr; j++)
        bc[j] = (float)fdnn_rng_uniform(&rng, -1, 1);
    memcpy(c, c0, nc * sizeof(float));
    fdnn_f32_gemm_epilogue_t ep = {alpha, beta, brow ? br : NULL, bcol ? bc : NULL, relu, false};
    uk->fn(mr, nr, kc, a, b, b_stride, c, ldc, &ep);
    bool ok = true;
    for (size_t i = 0; i < mr; i++) {
        for (size_t j = 0; j < ldc && i * ldc + j < nc; j++) {
            size_t at = i * ldc + j;
            if (j >= nr) {
                ok &= memcmp(&c[at], &c0[at], sizeof(float)) == 0;
                continue;
            }
            double sum = 0, mag = 0;
            for (size_t p = 0; p < kc; p++) {
                sum += (double)a[p * MR + i] * b[p * b_stride + j];
                mag += fabs((double)a[p * MR + i] * b[p * b_stride + j]);
            }
            double v = alpha * sum;
            mag *= fabs(alpha);
            if (beta != 0) {
                v += beta * (double)c0[at];
                mag += fabs(beta * (double)c0[at]);
            }
            if (brow) {
                v += br[i];
                mag += fabs(br[i]);
            }
            if (bcol) {
                v += bc[j];
                mag += fabs(bc[j]);
            }
            if (relu && v < 0)
                v = 0;
            ok &= fabs(c[at] - v) <= (2.0 * (double)kc + 8) * 0x1p-24 * mag + 1e-30;
        }
    }
    CHECK_MSG(ok, "%s mr=%zu nr=%zu kc=%zu b_stride=%zu alpha=%g beta=%g brow=%d bcol=%d relu=%d", uk->name, mr,
              nr, kc, b_stride, alpha, beta, brow, bcol, relu);
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
    fdnn_guarded_free(c);
    fdnn_guarded_free(c0);
    fdnn_guarded_free(br);
    fdnn_guarded_free(bc);
}

static void
test_ukernels(void)
{
    for (size_t u = 0; u < sizeof(ukernels) / sizeof(ukernels[0]); u++) {
        const ukernel_t *uk = &ukernels[u];
        if (uk->isa > fdnn_cpu_max_isa())
            continue;
        for (size_t mr = 1; mr <= uk->mr; mr++)
            for (size_t nr = 1; nr <= uk->nr; nr++)
                run_ukernel(uk, mr, nr, (mr * 7 + nr) % 23, uk->nr, 1, 0, false, false, false);
        /* op(B) in place: a full strip of a wider matrix. */
        run_ukernel(uk, uk->mr, uk->nr, 37, uk->nr + 5, 1, 1, false, false, false);
        run_ukernel(uk, 3, uk->nr, 64, 3 * uk->nr + 1, 0.5f, 0, true, false, true);
        for (int e = 0; e < 16; e++)
            run_ukernel(uk, uk->mr - (size_t)(e % 2), uk->nr - (size_t)(e % 3), 19, uk->nr, e & 4 ? -2.0f : 1.0f,
                        e & 8 ? 0.75f : (e & 1 ? 1.0f : 0.0f), e & 1, e & 2, e & 4);
    }
}

/* Each arows kernel reads A in place and must give the same bits as the
 * packed kernel of the same tile (same operations in the same order); its A
 * buffer holds exactly mr rows, the last one ending at the guard page. */
typedef struct arows_pair {
    fdnn_isa_t isa;
    size_t mr, nr;
    fdnn_f32_gemm_arows_ukernel_fn arows;
    fdnn_f32_gemm_ukernel_fn packed;
    const char *name;
    fdnn_f32_gemm_arows_pf_ukernel_fn arows_pf; /* its prefetching twin, or NULL */
} arows_pair_t;

static const arows_pair_t arows_list[] = {
    {FDNN_ISA_AVX2, 6, 16, FDNN_X86_ONLY(fdnn_f32_gemm_arows_ukernel_6x16__avx2), FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_6x16__avx2), "6x16__avx2",
     FDNN_X86_ONLY(fdnn_f32_gemm_arows_pf_ukernel_6x16__avx2)},
    {FDNN_ISA_AVX2, 6, 8, FDNN_X86_ONLY(fdnn_f32_gemm_arows_ukernel_6x8__avx2), FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_6x8__avx2), "6x8__avx2",
     FDNN_X86_ONLY(fdnn_f32_gemm_arows_pf_ukernel_6x8__avx2)},
    {FDNN_ISA_AVX512, 14, 32, FDNN_X86_ONLY(fdnn_f32_gemm_arows_ukernel_14x32__avx512), FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_14x32__avx512),
     "14x32__avx512", FDNN_X86_ONLY(fdnn_f32_gemm_arows_pf_ukernel_14x32__avx512)},
    {FDNN_ISA_AVX512, 14, 16, FDNN_X86_ONLY(fdnn_f32_gemm_arows_ukernel_14x16__avx512), FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_14x16__avx512),
     "14x16__avx512", FDNN_X86_ONLY(fdnn_f32_gemm_arows_pf_ukernel_14x16__avx512)},
    {FDNN_ISA_AVX512, 8, 48, FDNN_X86_ONLY(fdnn_f32_gemm_arows_ukernel_8x48__avx512), FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_8x48__avx512),
     "8x48__avx512", FDNN_X86_ONLY(fdnn_f32_gemm_arows_pf_ukernel_8x48__avx512)},
    {FDNN_ISA_NEON, 8, 12, FDNN_ARM64_ONLY(fdnn_f32_gemm_arows_ukernel_8x12__neon), FDNN_ARM64_ONLY(fdnn_f32_gemm_ukernel_8x12__neon),
     "8x12__neon", NULL},
};

static void
test_arows(void)
{
    for (size_t e = 0; e < sizeof(arows_list) / sizeof(arows_list[0]); e++) {
        const arows_pair_t *k = &arows_list[e];
        if (k->isa > fdnn_cpu_max_isa())
            continue;
        const size_t MR = k->mr, NR = k->nr;
        for (size_t mr = 1; mr <= MR; mr++) {
            size_t nr = mr % 2 ? NR : NR - mr % NR, kc = 5 + 9 * mr, lda = kc + mr % 3, ldc = nr + 1;
            float *arows = galloc(((mr - 1) * lda + kc) * sizeof(float)), *apack = galloc(kc * MR * sizeof(float));
            float *b = galloc(kc * NR * sizeof(float));
            size_t nc = (mr - 1) * ldc + nr;
            float *c1 = galloc(nc * sizeof(float)), *c2 = galloc(nc * sizeof(float));
            for (size_t i = 0; i < mr; i++)
                for (size_t p = 0; p < kc; p++)
                    arows[i * lda + p] = (float)fdnn_rng_uniform(&rng, -1, 1);
            for (size_t p = 0; p < kc; p++)
                for (size_t i = 0; i < MR; i++)
                    apack[p * MR + i] = i < mr ? arows[i * lda + p] : 0.0f;
            for (size_t i = 0; i < kc * NR; i++)
                b[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
            for (size_t i = 0; i < nc; i++)
                c1[i] = c2[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
            fdnn_f32_gemm_epilogue_t ep = {0.5f, mr % 3 == 0 ? 0.0f : 1.0f, NULL, NULL, mr % 2 == 0, false};
            k->packed(mr, nr, kc, apack, b, NR, c1, ldc, &ep);
            k->arows(mr, nr, kc, arows, lda, b, NR, c2, ldc, &ep);
            CHECK_MSG(memcmp(c1, c2, nc * sizeof(float)) == 0, "arows %s mr=%zu nr=%zu kc=%zu differs from packed",
                      k->name, mr, nr, kc);
            /* The prefetching twin gives the same bits, for no lines, fewer
             * lines than k steps, more (several per step), and a share
             * starting mid-row whose lines run past A's end (a prefetch
             * reads nothing).  C starts from the same values each time. */
            if (k->arows_pf != NULL) {
                static const size_t counts[] = {0, 3, 40, 1000};
                float *c0 = galloc(nc * sizeof(float)), *c3 = galloc(nc * sizeof(float));
                for (size_t i = 0; i < nc; i++)
                    c0[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
                for (size_t q = 0; q < 4; q++) {
                    memcpy(c1, c0, nc * sizeof(float));
                    memcpy(c3, c0, nc * sizeof(float));
                    k->arows(mr, nr, kc, arows, lda, b, NR, c1, ldc, &ep);
                    fdnn_gemm_pf_share_t pf = {(const char *)arows, (kc * 4 + 63) / 64 + 1, lda * 4, q, counts[q]};
                    k->arows_pf(mr, nr, kc, arows, lda, b, NR, c3, ldc, &ep, &pf);
                    CHECK_MSG(memcmp(c1, c3, nc * sizeof(float)) == 0, "arows_pf %s mr=%zu nr=%zu kc=%zu lines=%zu",
                              k->name, mr, nr, kc, counts[q]);
                }
                fdnn_guarded_free(c0);
                fdnn_guarded_free(c3);
            }
            fdnn_guarded_free(arows);
            fdnn_guarded_free(apack);
            fdnn_guarded_free(b);
            fdnn_guarded_free(c1);
            fdnn_guarded_free(c2);
        }
    }
}

/* The aptrs kernels (a pointer per row of A, read in runs of seg elements
 * at offsets from a table) give the packed kernel's bits.  Each row is its
 * own allocation ending at a guard page right after its last run, with NaN
 * between the runs: a read past a run or past the last row's end either
 * faults or poisons the result.  Runs of 1, of several (the last one
 * partial) and one run as long as k; gaps that vary from run to run (as
 * between images); every mr; partial and full nr. */
typedef struct aptrs_pair {
    fdnn_isa_t isa;
    size_t mr, nr;
    fdnn_f32_gemm_aptrs_ukernel_fn aptrs;
    fdnn_f32_gemm_ukernel_fn packed;
    const char *name;
} aptrs_pair_t;

static const aptrs_pair_t aptrs_list[] = {
    {FDNN_ISA_AVX2, 6, 16, FDNN_X86_ONLY(fdnn_f32_gemm_aptrs_ukernel_6x16__avx2), FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_6x16__avx2), "6x16__avx2"},
    {FDNN_ISA_AVX512, 14, 32, FDNN_X86_ONLY(fdnn_f32_gemm_aptrs_ukernel_14x32__avx512), FDNN_X86_ONLY(fdnn_f32_gemm_ukernel_14x32__avx512),
     "14x32__avx512"},
};

static void
test_aptrs(void)
{
    static const size_t kcs[] = {1, 7, 56, 131};
    for (size_t e = 0; e < sizeof(aptrs_list) / sizeof(aptrs_list[0]); e++) {
        const aptrs_pair_t *k = &aptrs_list[e];
        if (k->isa > fdnn_cpu_max_isa())
            continue;
        const size_t MR = k->mr, NR = k->nr;
        for (size_t mr = 1; mr <= MR; mr++)
            for (size_t q = 0; q < sizeof(kcs) / sizeof(kcs[0]); q++) {
                size_t kc = kcs[q], seg = (mr + q) % 3 == 0 ? kc : (mr + q) % 3 == 1 ? 1 : 5;
                size_t nruns = (kc + seg - 1) / seg, *runs = malloc(nruns * sizeof(size_t));
                for (size_t j = 0; j < nruns; j++) /* gaps of mr % 4, and 2 more every third run */
                    runs[j] = j == 0 ? 0 : runs[j - 1] + seg + mr % 4 + (j % 3 == 0 ? 2 : 0);
                size_t span = runs[nruns - 1] + (kc - (nruns - 1) * seg); /* elements a row covers */
                size_t nr = mr % 2 ? NR : NR - mr % NR, ldc = nr + 2, nc = (mr - 1) * ldc + nr;
                float *rows[16] = {NULL}, *apack = galloc(kc * MR * sizeof(float));
                float *b = galloc(kc * NR * sizeof(float));
                float *c1 = galloc(nc * sizeof(float)), *c2 = galloc(nc * sizeof(float));
                for (size_t i = 0; i < mr; i++) {
                    rows[i] = galloc(span * sizeof(float));
                    fdnn_poison_f32(rows[i], span);
                    for (size_t p = 0; p < kc; p++) {
                        float v = (float)fdnn_rng_uniform(&rng, -1, 1);
                        rows[i][runs[p / seg] + p % seg] = v;
                        apack[p * MR + i] = v;
                    }
                }
                for (size_t p = 0; p < kc; p++)
                    for (size_t i = mr; i < MR; i++)
                        apack[p * MR + i] = 0.0f;
                for (size_t i = 0; i < kc * NR; i++)
                    b[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
                for (size_t i = 0; i < nc; i++)
                    c1[i] = c2[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
                fdnn_f32_gemm_epilogue_t ep = {mr % 2 ? 1.0f : 0.5f, mr % 3 == 0 ? 0.0f : 1.0f, NULL, NULL, false,
                                               false};
                k->packed(mr, nr, kc, apack, b, NR, c1, ldc, &ep);
                k->aptrs(mr, nr, kc, (const float *const *)rows, runs, seg, b, NR, c2, ldc, &ep);
                bool ok = memcmp(c1, c2, nc * sizeof(float)) == 0 && !isnan(c2[0]);
                CHECK_MSG(ok, "aptrs %s mr=%zu nr=%zu kc=%zu seg=%zu differs from packed", k->name, mr, nr, kc, seg);
                free(runs);
                for (size_t i = 0; i < mr; i++)
                    fdnn_guarded_free(rows[i]);
                fdnn_guarded_free(apack);
                fdnn_guarded_free(b);
                fdnn_guarded_free(c1);
                fdnn_guarded_free(c2);
            }
    }
}

/* Rows equally spaced in one buffer, as the rows path passes them (dy or x
 * read in place): the 14-row aptrs and arows kernels address a full tile of
 * such rows from two bases and the spacing (gemm_ukernel_simd.inc, A_SCALED)
 * and must still give the packed kernel's bits.  Spacing forwards and
 * backwards; a tile with one row off the spacing (the kernel must notice
 * and read that row through its own pointer); partial tiles; k of 1, 2 and
 * odd lengths, in runs with gaps of NaN.  The buffer ends at a guard page
 * right after the highest row's last element. */
static void
check_spaced(const aptrs_pair_t *k, size_t mr, size_t kc, size_t seg, int dir, bool displaced)
{
    const size_t MR = k->mr, NR = k->nr;
    size_t nruns = (kc + seg - 1) / seg, *runs = malloc(nruns * sizeof(size_t));
    for (size_t j = 0; j < nruns; j++)
        runs[j] = j == 0 ? 0 : runs[j - 1] + seg + 1 + j % 2;
    size_t span = runs[nruns - 1] + (kc - (nruns - 1) * seg), sp = span + 3, nbuf = (MR - 1) * sp + span;
    float *buf = galloc(nbuf * sizeof(float)), *moved = galloc(span * sizeof(float));
    fdnn_poison_f32(buf, nbuf);
    fdnn_poison_f32(moved, span);
    const float *rows[16];
    float *apack = galloc(kc * MR * sizeof(float)), *b = galloc(kc * NR * sizeof(float));
    size_t nr = kc % 2 ? NR : NR - 3, ldc = NR + 1, nc = (mr - 1) * ldc + nr;
    float *c1 = galloc(nc * sizeof(float)), *c2 = galloc(nc * sizeof(float));
    for (size_t i = 0; i < MR; i++) {
        float *row = buf + (dir > 0 ? i : MR - 1 - i) * sp;
        if (displaced && i == 9)
            row = moved; /* the spacing holds for every row but this one */
        rows[i] = row;
        for (size_t p = 0; p < kc; p++) {
            float v = (float)fdnn_rng_uniform(&rng, -1, 1);
            row[runs[p / seg] + p % seg] = v;
            apack[p * MR + i] = i < mr ? v : 0.0f;
        }
    }
    for (size_t i = 0; i < kc * NR; i++)
        b[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (size_t i = 0; i < nc; i++)
        c1[i] = c2[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    fdnn_f32_gemm_epilogue_t ep = {1.0f, kc % 3 == 0 ? 0.0f : 1.0f, NULL, NULL, false, false};
    k->packed(mr, nr, kc, apack, b, NR, c1, ldc, &ep);
    k->aptrs(mr, nr, kc, rows, runs, seg, b, NR, c2, ldc, &ep);
    bool ok = memcmp(c1, c2, nc * sizeof(float)) == 0 && !isnan(c2[0]);
    CHECK_MSG(ok, "aptrs %s spaced dir=%d displaced=%d mr=%zu kc=%zu seg=%zu differs from packed", k->name, dir,
              (int)displaced, mr, kc, seg);
    free(runs);
    fdnn_guarded_free(buf);
    fdnn_guarded_free(moved);
    fdnn_guarded_free(apack);
    fdnn_guarded_free(b);
    fdnn_guarded_free(c1);
    fdnn_guarded_free(c2);
}

static void
test_inplace_spaced(void)
{
    static const size_t kcs[] = {1, 2, 3, 7, 49, 131, 196};
    for (size_t e = 0; e < sizeof(aptrs_list) / sizeof(aptrs_list[0]); e++) {
        const aptrs_pair_t *k = &aptrs_list[e];
        if (k->isa > fdnn_cpu_max_isa())
            continue;
        for (size_t q = 0; q < sizeof(kcs) / sizeof(kcs[0]); q++) {
            size_t kc = kcs[q], segs[2] = {kc, kc > 7 ? 7 : 1};
            for (int s = 0; s < 2; s++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    check_spaced(k, k->mr, kc, segs[s], dir, false);
                    check_spaced(k, k->mr, kc, segs[s], dir, true);
                    check_spaced(k, k->mr - 1, kc, segs[s], dir, false);
                }
        }
    }
    /* The arows kernels' full tiles at the shortest k (the partial ones and
     * longer k: test_arows, test_b_in_place). */
    for (size_t e = 0; e < sizeof(arows_list) / sizeof(arows_list[0]); e++) {
        const arows_pair_t *k = &arows_list[e];
        if (k->isa > fdnn_cpu_max_isa())
            continue;
        const size_t MR = k->mr, NR = k->nr;
        for (size_t kc = 1; kc <= 3; kc++) {
            size_t lda = kc + 5, ldc = NR + 2, nc = (MR - 1) * ldc + NR;
            float *arows = galloc(((MR - 1) * lda + kc) * sizeof(float)), *apack = galloc(kc * MR * sizeof(float));
            float *b = galloc(kc * NR * sizeof(float)), *c1 = galloc(nc * sizeof(float)), *c2 = galloc(nc * sizeof(float));
            fdnn_poison_f32(arows, (MR - 1) * lda + kc);
            for (size_t i = 0; i < MR; i++)
                for (size_t p = 0; p < kc; p++)
                    apack[p * MR + i] = arows[i * lda + p] = (float)fdnn_rng_uniform(&rng, -1, 1);
            for (size_t i = 0; i < kc * NR; i++)
                b[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
            for (size_t i = 0; i < nc; i++)
                c1[i] = c2[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
            fdnn_f32_gemm_epilogue_t ep = {1.0f, 1.0f, NULL, NULL, false, false};
            k->packed(MR, NR, kc, apack, b, NR, c1, ldc, &ep);
            k->arows(MR, NR, kc, arows, lda, b, NR, c2, ldc, &ep);
            CHECK_MSG(memcmp(c1, c2, nc * sizeof(float)) == 0 && !isnan(c2[0]),
                      "arows %s full tile kc=%zu differs from packed", k->name, kc);
            fdnn_guarded_free(arows);
            fdnn_guarded_free(apack);
            fdnn_guarded_free(b);
            fdnn_guarded_free(c1);
            fdnn_guarded_free(c2);
        }
    }
}

/* op(B) read in place (b_stride != NR) runs a k loop of its own that also
 * fetches rows ahead; it must give the same bits as the packed strip
 * (b_stride == NR) for every k around the fetch distance, aligned and
 * unaligned row strides, and both kinds of A.  The in-place B ends at the
 * guard page, so the kernel reads no row past kc. */
static void
run_b_in_place(size_t MR, size_t NR, fdnn_f32_gemm_ukernel_fn fn, fdnn_f32_gemm_arows_ukernel_fn arows,
               const char *name, size_t mr, size_t kc, size_t stride, float beta)
{
    size_t ldc = NR + 3, nc = (mr - 1) * ldc + NR, lda = kc + 1;
    float *a = galloc(kc * MR * sizeof(float)), *arow = galloc(((mr - 1) * lda + kc) * sizeof(float));
    float *bin = galloc(((kc - 1) * stride + NR) * sizeof(float)), *bpk = galloc(kc * NR * sizeof(float));
    float *c0 = galloc(nc * sizeof(float)), *c1 = galloc(nc * sizeof(float)), *c2 = galloc(nc * sizeof(float));
    for (size_t p = 0; p < kc; p++)
        for (size_t i = 0; i < MR; i++)
            a[p * MR + i] = i < mr ? (float)fdnn_rng_uniform(&rng, -1, 1) : 0.0f;
    for (size_t i = 0; i < mr; i++)
        for (size_t p = 0; p < kc; p++)
            arow[i * lda + p] = a[p * MR + i];
    for (size_t i = 0; i < (kc - 1) * stride + NR; i++)
        bin[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    for (size_t p = 0; p < kc; p++)
        memcpy(bpk + p * NR, bin + p * stride, NR * sizeof(float));
    for (size_t i = 0; i < nc; i++)
        c0[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
    if (beta == 0)
        fdnn_poison_f32(c0, nc); /* not read: the result must not depend on it */
    fdnn_f32_gemm_epilogue_t ep = {0.75f, beta, NULL, NULL, false, false};
    memcpy(c1, c0, nc * sizeof(float));
    memcpy(c2, c0, nc * sizeof(float));
    if (arows != NULL) {
        arows(mr, NR, kc, arow, lda, bpk, NR, c1, ldc, &ep);
        arows(mr, NR, kc, arow, lda, bin, stride, c2, ldc, &ep);
    } else {
        fn(mr, NR, kc, a, bpk, NR, c1, ldc, &ep);
        fn(mr, NR, kc, a, bin, stride, c2, ldc, &ep);
    }
    bool ok = memcmp(c1, c2, nc * sizeof(float)) == 0;
    for (size_t i = 0; i < mr && ok; i++) /* and the packed result is a product, not the poison */
        ok &= !isnan(c1[i * ldc]);
    CHECK_MSG(ok, "%s%s mr=%zu kc=%zu b_stride=%zu beta=%g: B in place differs from packed",
              arows != NULL ? "arows " : "", name, mr, kc, stride, beta);
    fdnn_guarded_free(a);
    fdnn_guarded_free(arow);
    fdnn_guarded_free(bin);
    fdnn_guarded_free(bpk);
    fdnn_guarded_free(c0);
    fdnn_guarded_free(c1);
    fdnn_guarded_free(c2);
}

static void
test_b_in_place(void)
{
    static const size_t kcs[] = {1, 2, 7, 8, 9, 10, 16, 17, 40, 131};
    for (size_t u = 0; u < sizeof(ukernels) / sizeof(ukernels[0]); u++) {
        const ukernel_t *uk = &ukernels[u];
        if (uk->isa > fdnn_cpu_max_isa())
            continue;
        fdnn_f32_gemm_arows_ukernel_fn arows = NULL;
        for (size_t e = 0; e < sizeof(arows_list) / sizeof(arows_list[0]); e++)
            if (arows_list[e].packed == uk->fn)
                arows = arows_list[e].arows;
        /* strides: one more than NR, a multiple of 16 (rows 64-byte aligned), odd */
        size_t strides[] = {uk->nr + 1, 4 * uk->nr, 3 * uk->nr + 5};
        for (size_t q = 0; q < sizeof(kcs) / sizeof(kcs[0]); q++)
            for (size_t t = 0; t < 3; t++) {
                size_t mr = (q + t) % 2 ? uk->mr : 1 + (q % uk->mr);
                float beta = t == 1 ? 1.0f : 0.0f;
                run_b_in_place(uk->mr, uk->nr, uk->fn, NULL, uk->name, mr, kcs[q], strides[t], beta);
                if (arows != NULL)
                    run_b_in_place(uk->mr, uk->nr, uk->fn, arows, uk->name, mr, kcs[q], strides[t], beta);
            }
    }
}

/* The 6x49 kernel (A in place, B in its own strip layout) and its pack:
 * the pack bit for bit against the layout's definition, the kernel against
 * float64 sums for every mr and nr, k lengths around its 16-step blocks,
 * and each epilogue term.  A holds exactly mr rows ending at a guard page;
 * the gaps between rows of C must stay untouched. */
static void
test_b49(void)
{
#if !FDNN_ARCH_X86
    return;
#else
    if (fdnn_cpu_max_isa() < FDNN_ISA_AVX512)
        return;
    static const size_t kcs[] = {0, 1, 7, 15, 16, 17, 32, 50, 100};
    int count = 0;
    for (size_t mr = 1; mr <= 6; mr++)
        for (size_t nr = 1; nr <= 49; nr += (nr < 3 || nr > 44) ? 1 : 4)
            for (size_t q = 0; q < sizeof(kcs) / sizeof(kcs[0]); q++, count++) {
                size_t kc = kcs[q], lda = kc + (size_t)(count % 3), ldb = nr + (size_t)(count % 4), ldc = nr + 2;
                /* B: kc rows of nr columns, ldb apart; packed into one strip. */
                size_t nsrc = kc > 0 ? (kc - 1) * ldb + nr : 0;
                float *src = galloc(nsrc * sizeof(float)), *bp = galloc(kc * 49 * sizeof(float));
                for (size_t i = 0; i < nsrc; i++)
                    src[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
                fdnn_poison_f32(bp, kc * 49);
                fdnn_f32_pack_b49__avx512(kc, nr, src, ldb, bp, 49);
                bool ok = true;
                for (size_t p = 0; p < kc; p++)
                    for (size_t j = 0; j < 49; j++) {
                        float want = j < nr ? src[p * ldb + j] : 0.0f;
                        float got = j < 48 ? bp[p * 48 + j] : bp[48 * kc + p];
                        ok &= memcmp(&got, &want, sizeof(float)) == 0;
                    }
                CHECK_MSG(ok, "pack_b49 nr=%zu kc=%zu", nr, kc);

                size_t na = (mr - 1) * lda + kc, nc = (mr - 1) * ldc + nr;
                float *a = galloc((na > 0 ? na : 1) * sizeof(float));
                float *c = galloc(nc * sizeof(float)), *c0 = galloc(nc * sizeof(float));
                float *br = galloc(mr * sizeof(float)), *bc = galloc(nr * sizeof(float));
                for (size_t i = 0; i < na; i++)
                    a[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
                int e = count % 16;
                float alpha = e & 4 ? -2.0f : 1.0f, beta = e & 8 ? 0.75f : (e & 1 ? 1.0f : 0.0f);
                bool brow = e & 1, bcol = e & 2, relu = e & 4;
                for (size_t i = 0; i < nc; i++)
                    c0[i] = beta == 0 ? NAN : (float)fdnn_rng_uniform(&rng, -1, 1);
                for (size_t i = 0; i < mr; i++)
                    br[i] = (float)fdnn_rng_uniform(&rng, -1, 1);
                for (size_t j = 0; j < nr; j++)
                    bc[j] = (float)fdnn_rng_uniform(&rng, -1, 1);
                memcpy(c, c0, nc * sizeof(float));
                fdnn_f32_gemm_epilogue_t ep = {alpha, beta, brow ? br : NULL, bcol ? bc : NULL, relu, false};
                fdnn_f32_gemm_arows_ukernel_6x49__avx512(mr, nr, kc, a, lda, bp, 49, c, ldc, &ep);
                for (size_t i = 0; i < mr; i++)
                    for (size_t j = 0; j < ldc && i * ldc + j < nc; j++) {
                        size_t at = i * ldc + j;
                        if (j >= nr) {
                            ok &= memcmp(&c[at], &c0[at], sizeof(float)) == 0;
                            continue;
                        }
                        double sum = 0, mag = 0;
                        for (size_t p = 0; p < kc; p++) {
                            double t = (double)a[i * lda + p] * src[p * ldb + j];
                            sum += t;
                            mag += fabs(t);
                        }
                        double v = alpha * sum;
                        mag *= fabs(alpha);
                        if (beta != 0) {
                            v += beta * (double)c0[at];
                            mag += fabs(beta * (double)c0[at]);
                        }
                        if (brow) {
                            v += br[i];
                            mag += fabs(br[i]);
                        }
                        if (bcol) {
                            v += bc[j];
                            mag += fabs(bc[j]);
                        }
                        if (relu && v < 0)
                            v = 0;
                        ok &= fabs(c[at] - v) <= (2.0 * (double)kc + 8) * 0x1p-24 * mag + 1e-30;
                    }
                CHECK_MSG(ok, "6x49__avx512 mr=%zu nr=%zu kc=%zu alpha=%g beta=%g brow=%d bcol=%d relu=%d", mr, nr,
                          kc, alpha, beta, brow, bcol, relu);
                /* The twin with a prefetch share: C bit for bit the plain
                 * kernel's, for no lines, fewer lines than 16-step blocks,
                 * more, and a share starting mid-row of a 2-D region whose
                 * lines run past A's end (addresses only, never read). */
                {
                    static const size_t counts[] = {0, 1, 5, 300};
                    float *c2 = galloc(nc * sizeof(float));
                    memcpy(c2, c0, nc * sizeof(float));
                    fdnn_gemm_pf_share_t pf = {(const char *)a, 3, 64 * 5, (size_t)count % 7, counts[count % 4]};
                    fdnn_f32_gemm_arows_pf_ukernel_6x49__avx512(mr, nr, kc, a, lda, bp, 49, c2, ldc, &ep, &pf);
                    CHECK_MSG(memcmp(c2, c, nc * sizeof(float)) == 0, "6x49 pf twin mr=%zu nr=%zu kc=%zu lines=%zu", mr,
                              nr, kc, pf.count);
                    fdnn_guarded_free(c2);
                }
                fdnn_guarded_free(src);
                fdnn_guarded_free(bp);
                fdnn_guarded_free(a);
                fdnn_guarded_free(c);
                fdnn_guarded_free(c0);
                fdnn_guarded_free(br);
                fdnn_guarded_free(bc);
            }
#endif
}

int
main(void)
{
    fdnn_rng_seed(&rng, 7);
    test_packs();
    test_ukernels();
    test_arows();
    test_aptrs();
    test_inplace_spaced();
    test_b_in_place();
    test_b49();
    return fdnn_test_finish("test_gemm_kernels");
}
