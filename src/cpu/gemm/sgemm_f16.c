/* SPDX-License-Identifier: Apache-2.0
 * fdnn_sgemm_f16: the half-source instance of the blocked driver
 * (gemm_driver.inc with SRC_T uint16_t): the level's FP32 tile and blocks,
 * with the level's converting packs in place of its FP32 packs. */
#include "cpu/gemm/sgemm_f16.h"

#include "cpu/config/config.h"
#include "cpu/gemm/gemm_blocking.h"
#include "cpu/kernels/gemm_ukernel.h"
#include "cpu/simd/cvt.h"

#define T float
#define SRC_T uint16_t
#define SRC_LOAD(x) fdnn_f16_to_f32(x)
#define ARGS_T fdnn_sgemm_f16_args_t
#define EP_T fdnn_f32_gemm_epilogue_t
#define UKFN_T fdnn_f32_gemm_ukernel_fn
#define PACKT_FN fdnn_f16_pack_t_fn
#define PACKN_FN fdnn_f16_pack_n_fn
#define ROWS_FN fdnn_f16_rows_fn
#define BHALF_FN fdnn_f16_bhalf_ukernel_fn
#define AHALF_FN fdnn_f16_ahalf_arows_ukernel_fn
#define AROWS_FN fdnn_f32_gemm_arows_ukernel_fn
#define DRIVER(name) h_##name
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
#include "cpu/gemm/gemm_driver.inc"

/* The FP32 tile and blocks sgemm.c picks for this shape (fdnn_sgemm_plan),
 * the tile's packs swapped for their converting twins.  Where fdnn_sgemm
 * would read B in place this one does too when the level names a bhalf
 * twin of the tile's kernel (converting as it loads: the same products),
 * and otherwise converts B as it packs it, with the same blocks.
 * A level whose tile has its own B layout but no converting twin of that
 * pack runs the portable tile instead (never the case for the levels in
 * src/cpu/config). */
static h_config_t
f16_config(fdnn_isa_t isa, const fdnn_sgemm_f16_args_t *args)
{
    fdnn_sgemm_args_t shape = {.trans_a = args->trans_a, .trans_b = args->trans_b, .m = args->m, .n = args->n,
                               .k = args->k, .alpha = args->alpha, .lda = args->lda, .ldb = args->ldb,
                               .beta = args->beta, .ldc = args->ldc, .act = args->act};
    const fdnn_isa_config_t *lvl = fdnn_isa_config(isa);
    fdnn_sgemm_plan_t pl = fdnn_sgemm_plan(lvl->isa, &shape);
    if (pl.tile.pack_b != NULL && lvl->sgemm_f16.pack_b == NULL) {
        lvl = fdnn_isa_config(FDNN_ISA_SCALAR);
        pl = fdnn_sgemm_plan(FDNN_ISA_SCALAR, &shape);
    }
    const fdnn_sgemm_tile_t *t = &pl.tile;
    fdnn_f16_bhalf_ukernel_fn bhalf = NULL;
    for (size_t i = 0; i < lvl->sgemm_f16.bhalf_count && t->ukernel != NULL; i++)
        if (lvl->sgemm_f16.bhalf[i].ukernel == t->ukernel)
            bhalf = lvl->sgemm_f16.bhalf[i].bhalf;
    fdnn_f16_ahalf_arows_ukernel_fn ahalf = NULL;
    for (size_t i = 0; i < lvl->sgemm_f16.ahalf_count && t->arows != NULL && t->ukernel_half == NULL; i++)
        if (lvl->sgemm_f16.ahalf[i].arows == t->arows)
            ahalf = lvl->sgemm_f16.ahalf[i].ahalf;
    return (h_config_t){
        .ukernel = t->ukernel,
        .pack_t = lvl->sgemm_f16.pack_t,
        .pack_n = lvl->sgemm_f16.pack_n,
        .pack_b = t->pack_b != NULL ? lvl->sgemm_f16.pack_b : NULL,
        .arows = t->arows,
        .rows_a = lvl->sgemm_f16.rows,
        .ukernel_half = t->ukernel_half,
        .arows_half = t->arows_half,
        .ukernel_bh = bhalf,
        .arows_ah = ahalf,
        .b_in_place = bhalf != NULL && pl.b_in_place,
        .mr = t->mr,
        .nr = t->nr,
        .kc = pl.kc,
        .mc = pl.mc,
        .nt = pl.nt,
        .mb = pl.mb,
        .nc = pl.nc,
    };
}

size_t
fdnn_sgemm_f16_scratch_size(const fdnn_sgemm_f16_args_t *args, fdnn_isa_t isa)
{
    if (args->m == 0 || args->n == 0 || args->k == 0 || args->alpha == 0)
        return 0;
    h_config_t cfg = f16_config(isa, args);
    return h_scratch_bytes(args, &cfg, 1);
}

bool
fdnn_sgemm_f16(const fdnn_sgemm_f16_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch,
               size_t scratch_bytes)
{
    if (args->m == 0 || args->n == 0)
        return true;
    h_config_t cfg = f16_config(isa, args);
    size_t need = fdnn_sgemm_f16_scratch_size(args, isa);
    void *own = NULL;
    if (need > 0 && (scratch == NULL || scratch_bytes < need)) {
        if ((own = fdnn_aligned_alloc(need)) == NULL)
            return false;
        scratch = own;
    }
    if (fdnn_gemm_is_small(args->m, args->n, args->k))
        pool = NULL;
    h_run(args, &cfg, pool, scratch, 1);
    fdnn_aligned_free(own);
    return true;
}
