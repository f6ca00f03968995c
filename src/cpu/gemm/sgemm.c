/* SPDX-License-Identifier: Apache-2.0
 * fdnn_sgemm: the float instance of the blocked driver (gemm_driver.inc),
 * the choice of microkernel per ISA and the block sizes from the caches. */
#include <stdint.h>

#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "cpu/gemm/gemm_blocking.h"
#include "cpu/gemm/sgemm_f16.h"
#include "cpu/gemm/sgemm_thin.h"
#include "cpu/config/config.h"
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
#define TILE_HOOK(args) ((args)->tile_hook)
#define TILE_CTX(args) ((args)->tile_ctx)
#define NEXT_OF(args) (&(args)->next)
#define AROWS_PF_FN fdnn_f32_gemm_arows_pf_ukernel_fn
#include "cpu/gemm/gemm_driver.inc"

/* The kernel and blocks for one call.  The kernel is the level's choice
 * for the shape (its sgemm_tile in src/cpu/config: narrow products take a
 * tall, narrow tile, short ones a short, wide one, each wasting fewer lanes
 * or rows); the blocks follow from the tile and the caches.  The choice
 * depends on the shape and the ISA only, never on the thread count. */
static s_config_t
sgemm_config(fdnn_isa_t isa, const fdnn_sgemm_args_t *args)
{
    size_t m = args->m;
    fdnn_sgemm_tile_t t = fdnn_isa_config(isa)->sgemm_tile(args); /* never a kernel the CPU lacks */
    s_config_t cfg;
    cfg.ukernel = t.ukernel;
    cfg.arows = t.arows;
    cfg.arows_pf = t.arows_pf;
    cfg.ukernel_half = t.ukernel_half;
    cfg.arows_half = t.arows_half;
    cfg.pack_t = t.pack_t;
    cfg.pack_n = t.pack_n;
    cfg.pack_b = t.pack_b;
    cfg.b_in_place = false;
    cfg.mr = t.mr;
    cfg.nr = t.nr;
    fdnn_gemm_blocking_t blk = fdnn_gemm_blocking_k(cfg.mr, cfg.nr, sizeof(float), t.kc, args->k);
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
     * strips of 48, not 6 + 6 + 5).  B of more than 8 MiB only when the
     * caller reads it once (b_read_once): the copy is then a pass over
     * memory with no FMA running (res5 3x3 backward data of one image,
     * 9.4 MB of filter: 2.8 ms with the copy, 1.9 in place). */
    size_t k = args->k, l2 = fdnn_cpu_l2_bytes() > 0 ? fdnn_cpu_l2_bytes() : ((size_t)1 << 20);
    size_t rows = (m + cfg.mr - 1) / cfg.mr * cfg.mr;
    cfg.b_in_place = !args->trans_b && cfg.ukernel != NULL && m <= 2 * cfg.mc && k > 0 &&
                     rows * k * sizeof(float) <= l2 / 2 &&
                     (args->b_read_once || k * args->ldb * sizeof(float) <= ((size_t)8 << 20));
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

fdnn_sgemm_plan_t
fdnn_sgemm_plan(fdnn_isa_t isa, const fdnn_sgemm_args_t *args)
{
    s_config_t cfg = sgemm_config(isa, args);
    fdnn_sgemm_plan_t pl = {.tile = fdnn_isa_config(isa)->sgemm_tile(args),
                            .kc = cfg.kc,
                            .mc = cfg.mc,
                            .nt = cfg.nt,
                            .mb = cfg.mb,
                            .nc = cfg.nc,
                            .b_in_place = cfg.b_in_place};
    return pl;
}

bool
fdnn_sgemm_prefers_rows_of_a(const fdnn_sgemm_args_t *args, fdnn_isa_t isa)
{
    /* a tile with only the kernel that reads A in place (AVX-512's 6x49) */
    if (args->trans_a || fdnn_sgemm_is_thin(args))
        return false;
    fdnn_sgemm_tile_t t = fdnn_isa_config(isa)->sgemm_tile(args);
    return t.ukernel == NULL && t.arows != NULL;
}

size_t
fdnn_sgemm_scratch_size(const fdnn_sgemm_args_t *args, size_t num_threads, fdnn_isa_t isa)
{
    /* The panels are shared, except the private B panels of narrow
     * products (gemm_driver.inc): one per thread where they may run. */
    if (args->m == 0 || args->n == 0 || args->k == 0 || args->alpha == 0)
        return 0;
    if (fdnn_sgemm_is_thin(args))
        return fdnn_sgemm_thin_scratch_size(args);
    s_config_t cfg = sgemm_config(isa, args);
    size_t bytes = s_scratch_bytes(args, &cfg, num_threads);
#if !FDNN_ARCH_X86
    /* Callers that size a workspace once (attention, cudnnGet*WorkspaceSize)
     * and may then run at a lower level (freednnSetIsa) need the size to
     * cover the portable tile too: the NEON 8x12 tile packs less than the
     * portable 4x16 for some shapes.  (The x86 tiles, larger, are left as
     * they were: their sizes must not change.) */
    if (fdnn_isa_config(isa)->isa != FDNN_ISA_SCALAR) {
        s_config_t low = sgemm_config(FDNN_ISA_SCALAR, args);
        size_t low_bytes = s_scratch_bytes(args, &low, num_threads);
        bytes = low_bytes > bytes ? low_bytes : bytes;
    }
#endif
    return bytes;
}

bool
fdnn_sgemm(const fdnn_sgemm_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch, size_t scratch_bytes)
{
    if (args->m == 0 || args->n == 0)
        return true;
    s_config_t cfg = sgemm_config(isa, args);
    if (fdnn_gemm_is_small(args->m, args->n, args->k))
        pool = NULL;
    /* Scratch with a B panel per thread runs the private panels where the
     * shape has them; a caller's scratch sized for one thread runs the
     * shared panel (the same C either way). */
    size_t threads = fdnn_pool_threads(pool);
    size_t need = fdnn_sgemm_scratch_size(args, threads, isa);
    size_t panels = threads;
    void *own = NULL;
    if (need > 0 && (scratch == NULL || scratch_bytes < need)) {
        size_t need1 = fdnn_sgemm_scratch_size(args, 1, isa);
        if (scratch != NULL && scratch_bytes >= need1)
            panels = 1;
        else {
            own = fdnn_aligned_alloc(need);
            if (own == NULL)
                return false;
            scratch = own;
        }
    }
    if (fdnn_sgemm_is_thin(args)) {
        fdnn_sgemm_thin(args, pool, isa, scratch);
        if (args->tile_hook != NULL) /* the thin path has no tiles: the whole C is one */
            args->tile_hook(args->tile_ctx, args->c, args->ldc, 0, 0, args->m, args->n);
    } else
        s_run(args, &cfg, pool, scratch, panels);
    fdnn_aligned_free(own);
    return true;
}
