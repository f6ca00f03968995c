/* SPDX-License-Identifier: Apache-2.0
 * fdnn_sgemm: the float instance of the blocked driver (gemm_driver.inc),
 * the choice of microkernel per ISA and the block sizes from the caches. */
#include <stdint.h>

#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "cpu/gemm/gemm_blocking.h"
#include "cpu/gemm/sgemm_thin.h"
#include "cpu/kernels/gemm_ukernel.h"

#define T float
#define ARGS_T fdnn_sgemm_args_t
#define EP_T fdnn_f32_gemm_epilogue_t
#define UKFN_T fdnn_f32_gemm_ukernel_fn
#define PACKT_FN fdnn_f32_pack_t_fn
#define PACKN_FN fdnn_f32_pack_n_fn
#define AROWS_FN fdnn_f32_gemm_arows_ukernel_fn
#define DRIVER(name) s_##name
#define EPILOGUE_INIT(ep, args, first, last)                          \
    do {                                                              \
        (ep).alpha = (args)->alpha;                                   \
        (ep).beta = (first) ? (args)->beta : 1.0f;                    \
        (ep).relu = (last) && (args)->act == FDNN_GEMM_ACT_RELU;      \
    } while (0)
#define EPILOGUE_SET_ROW(ep, args, last, row) \
    ((ep).bias_row = (last) && (args)->bias_row != NULL ? (args)->bias_row + (row) : NULL)
#define EPILOGUE_SET_COL(ep, args, last, col) \
    ((ep).bias_col = (last) && (args)->bias_col != NULL ? (args)->bias_col + (col) : NULL)
#include "cpu/gemm/gemm_driver.inc"

/* Elements of C a tile grid of mr x nr computes for an m x n product. */
static inline double
padded_area(size_t m, size_t n, size_t mr, size_t nr)
{
    return (double)((m + mr - 1) / mr * mr) * (double)((n + nr - 1) / nr * nr);
}

/* The 6x49 AVX-512 tile (A read in place, B in its own packed strips) for
 * n in one column tile (at most 8 strips) when 49-wide strips pad n no more
 * than 5% beyond the 32-wide ones with their half-width last strip: n = 49,
 * 98, 147, 196 (7x7 .. 14x14 images).  Its lanes are all useful, and it ran
 * faster than 14x32 even at equal padding (1024x96x256: 89% vs 86% of peak;
 * 1024x196x256: 89% vs 79%); at n = 100 (147 vs 112 lanes) it lost (60% vs
 * 74%).  Needs a product to compute (k > 0, alpha != 0: there is no packed
 * twin for the epilogue-only pass) and A, B not transposed. */
static bool
use_49(const fdnn_sgemm_args_t *args)
{
    size_t n = args->n;
    bool trans_a = args->trans_a, trans_b = args->trans_b;
    if (args->k == 0 || args->alpha == 0)
        return false;
    if (trans_a || trans_b || n <= 16 || n > 8 * 49)
        return false;
    size_t n32 = n % 32 != 0 && n % 32 <= 16 ? n / 32 * 32 + 16 : (n + 31) / 32 * 32;
    return (double)((n + 48) / 49 * 49) <= 1.05 * (double)n32;
}

/* The kernel and blocks for one call.  Narrow products (n no wider than
 * half the usual tile) take the tall, narrow kernel of the same ISA, short
 * ones (m no taller than about half the tile) the short, wide one: each
 * wastes fewer lanes or rows.  On AVX-512 the 8x48 tile also replaces 14x32
 * when it pads the product at least 3% less (m = 64 or 128 with large n);
 * the two run at the same speed from L1; 6x49 fits multiples of 49 (see
 * use_49).  The choice depends on the shape and the ISA only, never on the
 * thread count. */
static s_config_t
sgemm_config(fdnn_isa_t isa, const fdnn_sgemm_args_t *args)
{
    size_t m = args->m, n = args->n;
    bool trans_a = args->trans_a;
    (void)m, (void)n, (void)trans_a; /* (the tile choice is x86's alone so far) */
    s_config_t cfg;
    cfg.arows = NULL;
    cfg.ukernel_half = NULL;
    cfg.arows_half = NULL;
    cfg.pack_b = NULL;
    cfg.b_in_place = false;
    if (isa > fdnn_cpu_detected_isa())
        isa = fdnn_cpu_detected_isa(); /* never run instructions the CPU lacks */
    switch (isa) {
#if FDNN_ARCH_X86
    case FDNN_ISA_AVX512:
        cfg.pack_t = fdnn_f32_pack_t__avx512;
        cfg.pack_n = fdnn_f32_pack_n__avx512;
        if (use_49(args)) {
            cfg.ukernel = NULL; /* only the arows kernel: n fits one column tile */
            cfg.arows = fdnn_f32_gemm_arows_ukernel_6x49__avx512;
            cfg.pack_b = fdnn_f32_pack_b49__avx512;
            cfg.mr = 6;
            cfg.nr = 49;
        } else if (n <= 16 && !trans_a) { /* A read in place: 14 rows suffice */
            cfg.ukernel = fdnn_f32_gemm_ukernel_14x16__avx512;
            cfg.arows = fdnn_f32_gemm_arows_ukernel_14x16__avx512;
            cfg.mr = 14;
            cfg.nr = 16;
        } else if (n <= 16) {
            cfg.ukernel = fdnn_f32_gemm_ukernel_28x16__avx512;
            cfg.mr = 28;
            cfg.nr = 16;
        } else if (m <= 8 || padded_area(m, n, 8, 48) < padded_area(m, n, 14, 32) * 0.97) {
            cfg.ukernel = fdnn_f32_gemm_ukernel_8x48__avx512;
            cfg.arows = fdnn_f32_gemm_arows_ukernel_8x48__avx512;
            cfg.mr = 8;
            cfg.nr = 48;
        } else {
            cfg.ukernel = fdnn_f32_gemm_ukernel_14x32__avx512;
            cfg.arows = fdnn_f32_gemm_arows_ukernel_14x32__avx512;
            /* n = 196 = 6 x 32 + 4: the last strip at half the cost */
            cfg.ukernel_half = fdnn_f32_gemm_ukernel_14x16__avx512;
            cfg.arows_half = fdnn_f32_gemm_arows_ukernel_14x16__avx512;
            cfg.mr = 14;
            cfg.nr = 32;
        }
        break;
    case FDNN_ISA_AVX2:
        cfg.pack_t = fdnn_f32_pack_t__avx2;
        cfg.pack_n = fdnn_f32_pack_n__avx2;
        if (n <= 8 && !trans_a) {
            cfg.ukernel = fdnn_f32_gemm_ukernel_6x8__avx2;
            cfg.arows = fdnn_f32_gemm_arows_ukernel_6x8__avx2;
            cfg.mr = 6;
            cfg.nr = 8;
        } else if (n <= 8) {
            cfg.ukernel = fdnn_f32_gemm_ukernel_12x8__avx2;
            cfg.mr = 12;
            cfg.nr = 8;
        } else if (m <= 4) {
            cfg.ukernel = fdnn_f32_gemm_ukernel_4x24__avx2;
            cfg.mr = 4;
            cfg.nr = 24;
        } else {
            cfg.ukernel = fdnn_f32_gemm_ukernel_6x16__avx2;
            cfg.arows = fdnn_f32_gemm_arows_ukernel_6x16__avx2;
            cfg.mr = 6;
            cfg.nr = 16;
        }
        break;
#endif
    default:
        cfg.ukernel = fdnn_f32_gemm_ukernel_4x16__scalar;
        cfg.pack_t = NULL;
        cfg.pack_n = NULL;
        cfg.mr = 4;
        cfg.nr = 16;
        break;
    }
    fdnn_gemm_blocking_t blk = fdnn_gemm_blocking(cfg.mr, cfg.nr, sizeof(float));
    cfg.kc = blk.kc;
    /* The 49-wide B strip (kc x 49) does not stay in L1 at any useful kc; it
     * streams from L2 either way, so a long k block saves passes over C:
     * 2048x49x512 ran at 92% of peak with kc = 512, 74% with 128;
     * 512x49x2048 at 90% with kc = 1024, 87% with 512, 68% with 128. */
    if (cfg.nr == 49)
        cfg.kc = 1024;
    cfg.mc = blk.mc;
    cfg.nt = blk.nt;
    /* Short products (m up to two row tiles) with B not transposed: one row
     * tile and one k block, so the driver reads B in place instead of
     * copying it.  The copy of op(B), read from L3, took 14% of 128x784x512,
     * which then ran at 75% of peak; in place 85% (128x784x1152: 80% vs 75%,
     * 64x3136x576 with 7 MiB of B: 61% vs 54%).  Bounded by the A block
     * (m x k, read again for every B strip) fitting half of L2.  Tiles of
     * 4 strips keep two threads balanced (784 columns: 4 + 4 + 4 + 4 + 1
     * strips of 48, not 6 + 6 + 5). */
    size_t k = args->k, l2 = fdnn_cpu_l2_bytes() > 0 ? fdnn_cpu_l2_bytes() : ((size_t)1 << 20);
    size_t rows = (m + cfg.mr - 1) / cfg.mr * cfg.mr;
    cfg.b_in_place = !args->trans_b && cfg.ukernel != NULL && m <= 2 * cfg.mc && k > 0 &&
                     rows * k * sizeof(float) <= l2 / 2 && k * args->ldb * sizeof(float) <= ((size_t)8 << 20);
    if (cfg.b_in_place) {
        if (m > cfg.mc) {
            cfg.mc = rows;
            cfg.nt = 4 * cfg.nr;
        }
        cfg.kc = k > cfg.kc ? k : cfg.kc;
    }
    cfg.mb = blk.mb;
    cfg.nc = blk.nc;
    return cfg;
}

bool
fdnn_sgemm_prefers_rows_of_a(const fdnn_sgemm_args_t *args, fdnn_isa_t isa)
{
    if (isa > fdnn_cpu_detected_isa())
        isa = fdnn_cpu_detected_isa();
    return isa >= FDNN_ISA_AVX512 && !args->trans_a && !fdnn_sgemm_is_thin(args) && use_49(args);
}

size_t
fdnn_sgemm_scratch_size(const fdnn_sgemm_args_t *args, size_t num_threads, fdnn_isa_t isa)
{
    (void)num_threads; /* the panels are shared: the size does not depend on it */
    if (args->m == 0 || args->n == 0 || args->k == 0 || args->alpha == 0)
        return 0;
    if (fdnn_sgemm_is_thin(args))
        return fdnn_sgemm_thin_scratch_size(args);
    s_config_t cfg = sgemm_config(isa, args);
    return s_scratch_bytes(args, &cfg);
}

bool
fdnn_sgemm(const fdnn_sgemm_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch, size_t scratch_bytes)
{
    if (args->m == 0 || args->n == 0)
        return true;
    s_config_t cfg = sgemm_config(isa, args);
    size_t need = fdnn_sgemm_scratch_size(args, 1, isa);
    void *own = NULL;
    if (need > 0 && (scratch == NULL || scratch_bytes < need)) {
        own = fdnn_aligned_alloc(need);
        if (own == NULL)
            return false;
        scratch = own;
    }
    if (fdnn_gemm_is_small(args->m, args->n, args->k))
        pool = NULL;
    if (fdnn_sgemm_is_thin(args))
        fdnn_sgemm_thin(args, pool, isa, scratch);
    else
        s_run(args, &cfg, pool, scratch);
    fdnn_aligned_free(own);
    return true;
}
