/* SPDX-License-Identifier: Apache-2.0
 * fdnn_dgemm: the double instance of the blocked driver (gemm_driver.inc).
 * Same contract as fdnn_sgemm, no epilogue, packing buffers allocated per
 * call. */
#include "core/cpu.h"
#include "cpu/gemm/gemm.h"
#include "cpu/gemm/gemm_blocking.h"
#include "cpu/kernels/gemm_ukernel.h"

/* No SIMD packs for double yet: the driver's portable loops (same signature
 * for both). */
typedef void (*d_pack_t_fn)(size_t rows, size_t cols, const double *src, size_t src_ld, double *dst,
                            size_t dst_rows);

#define T double
#define ARGS_T fdnn_dgemm_args_t
#define EP_T fdnn_f64_gemm_epilogue_t
#define UKFN_T fdnn_f64_gemm_ukernel_fn
#define PACKT_FN d_pack_t_fn
#define PACKN_FN d_pack_t_fn
#define AROWS_FN fdnn_f64_gemm_arows_ukernel_fn
#define DRIVER(name) d_##name
#define EPILOGUE_INIT(ep, args, first, last)          \
    do {                                              \
        (ep).alpha = (args)->alpha;                   \
        (ep).beta = (first) ? (args)->beta : 1.0;     \
        (ep).relu = false;                            \
        (void)(last);                                 \
    } while (0)
#define EPILOGUE_SET_ROW(ep, args, last, row) ((ep).bias_row = NULL)
#define EPILOGUE_SET_COL(ep, args, last, col) ((ep).bias_col = NULL)
#include "cpu/gemm/gemm_driver.inc"
#include "cpu/config/config.h"

static d_config_t
dgemm_config(fdnn_isa_t isa)
{
    d_config_t cfg;
    cfg.pack_t = NULL;
    cfg.pack_n = NULL;
    cfg.pack_b = NULL;
    cfg.b_in_place = false;
    cfg.arows = NULL;
    cfg.ukernel_half = NULL;
    cfg.arows_half = NULL;
    const fdnn_isa_config_t *level = fdnn_isa_config(isa); /* never a kernel the CPU lacks */
    cfg.ukernel = level->dgemm.ukernel;
    cfg.arows = level->dgemm.arows;
    cfg.mr = level->dgemm.mr;
    cfg.nr = level->dgemm.nr;
    fdnn_gemm_blocking_t blk = fdnn_gemm_blocking(cfg.mr, cfg.nr, sizeof(double));
    cfg.kc = blk.kc;
    cfg.mc = blk.mc;
    cfg.nt = blk.nt;
    cfg.mb = blk.mb;
    cfg.nc = blk.nc;
    return cfg;
}

bool
fdnn_dgemm_isa(const fdnn_dgemm_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa)
{
    if (args->m == 0 || args->n == 0)
        return true;
    d_config_t cfg = dgemm_config(isa);
    void *scratch = NULL;
    if (args->k > 0 && args->alpha != 0) {
        scratch = fdnn_aligned_alloc(d_scratch_bytes(args, &cfg, 1));
        if (scratch == NULL)
            return false;
    }
    if (fdnn_gemm_is_small(args->m, args->n, args->k))
        pool = NULL;
    d_run(args, &cfg, pool, scratch, 1);
    fdnn_aligned_free(scratch);
    return true;
}

void
fdnn_dgemm(const fdnn_dgemm_args_t *args, fdnn_pool_t pool)
{
    (void)fdnn_dgemm_isa(args, pool, fdnn_cpu_max_isa());
}
