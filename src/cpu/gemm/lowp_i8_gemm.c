/* SPDX-License-Identifier: Apache-2.0
 * fdnn_gemm_i8dot: the INT8 dot-product GEMM (contract in gemm.h), the
 * driver of bf16_gemm.c for bytes: k quads instead of pairs, int32 C.
 *
 *   for jc in 0..n step NC
 *     for pc in 0..k step KC
 *       for ib in 0..m step MB
 *         pass 1 (parallel): pack A strips (and B strips when ib == 0)
 *         pass 2 (parallel over MC x NT tiles): the microkernels
 *
 * Signs.  The kernels multiply an unsigned A by a signed B (vpdpbusd's
 * operands).  With a = a_u - 128 sA (sA: A is int8, stored as a + 128) and
 * b = b_s + 128 uB (uB: B is uint8, stored as b - 128):
 *
 *   sum a b = sum a_u b_s + 128 uB sum_p a_u(i, p) - 128 sA sum_p b_s(p, j)
 *             - 16384 sA uB kc
 *
 * The A pack writes the second term (and the fourth) per row, the B pack
 * the third per column; the kernels add them.  All modulo 2^32, so the
 * result is bitwise the plain integer sum. */
#include <stdint.h>

#include "core/cpu.h"
#include "core/memory.h"
#include "cpu/config/config.h"
#include "cpu/gemm/gemm.h"
#include "cpu/gemm/gemm_blocking.h"
#include "cpu/kernels/lowp_i8_gemm.h"

/* k steps per block: the B micro-panel (KC_MAX / 4 quad rows of 32 words,
 * 32 KiB) stays in L1.  A multiple of 16. */
#define KC_MAX 1024

typedef struct i8_config {
    fdnn_i8_gemm_ukernel_fn ukernel;
    fdnn_i8_gemm_arows_ukernel_fn arows; /* the same tile reading A in place, or NULL */
    fdnn_i8_pack_fn pack;
    fdnn_i8_row_sums_fn row_sums; /* the row corrections of an A read in place */
    size_t mr, nr;
    size_t mc, nt, mb, nc;
} i8_config_t;

typedef struct i8_plan {
    const fdnn_gemm_i8dot_args_t *args;
    i8_config_t cfg;
    uint32_t *apack, *bpack;
    size_t a_words, b_words; /* per strip, sums included */
    bool s_a, u_b;           /* int8 A (stored + 128), uint8 B (stored - 128) */
    size_t jc, nc, pc, kc, ib, mb;
    size_t a_strips, b_strips;
    bool a_fused, b_fused, first_k;
    bool a_direct; /* one column tile: the arows kernel reads A's quads in place */
} i8_plan_t;

static size_t
round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

static size_t
min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static bool
kernel_runs(fdnn_i8dot_kernel_t kernel)
{
    bool runs;
    return fdnn_isa_i8dot_tile((int)kernel, &runs) != NULL && runs;
}

fdnn_i8dot_kernel_t
fdnn_gemm_i8dot_kernel(fdnn_isa_t isa)
{
    return (fdnn_i8dot_kernel_t)FDNN_ISA_PICK(fdnn_isa_config(isa)->i8dot)->id;
}

const char *
fdnn_gemm_i8dot_kernel_name(fdnn_i8dot_kernel_t kernel)
{
    static const char *const names[] = {"portable", "avx2", "avx512", "avx512_vnni", "neon_i8mm"};
    return (unsigned)kernel < sizeof(names) / sizeof(names[0]) ? names[kernel] : "unknown";
}

/* The kernel's tile (src/cpu/config; the portable one for a kernel this
 * build lacks: only its sizes are asked then) and the blocking around it. */
static i8_config_t
config_for(fdnn_i8dot_kernel_t kernel)
{
    const fdnn_i8dot_tile_t *t = fdnn_isa_i8dot_tile((int)kernel, NULL);
    if (t == NULL)
        t = &fdnn_i8dot_tile_scalar;
    i8_config_t cfg = {.ukernel = t->ukernel,
                       .arows = t->arows,
                       .pack = t->pack,
                       .row_sums = t->row_sums,
                       .mr = t->mr,
                       .nr = t->nr};
    size_t l2 = fdnn_cpu_l2_bytes() > 0 ? fdnn_cpu_l2_bytes() : ((size_t)1 << 20);
    size_t strips = l2 / 4 / KC_MAX / cfg.mr;
    cfg.mc = (strips < 1 ? 1 : strips > 12 ? 12 : strips) * cfg.mr;
    cfg.nt = 8 * cfg.nr;
    cfg.mb = 16 * cfg.mc;
    cfg.nc = 8 * cfg.nt;
    return cfg;
}

static size_t
k_block(const fdnn_gemm_i8dot_args_t *args)
{
    if (args->k == 0)
        return 0;
    size_t blocks = (args->k + KC_MAX - 1) / KC_MAX;
    return min_size(args->k, round_up((args->k + blocks - 1) / blocks, 16));
}

/* Words of one A (B) strip for a block of kc, sums included. */
static size_t
a_strip_words(const fdnn_gemm_i8dot_args_t *args, const i8_config_t *cfg, size_t kc)
{
    return (kc + 3) / 4 * cfg->mr + (args->b_type == FDNN_GEMM_U8 ? cfg->mr : 0);
}

static size_t
b_strip_words(const fdnn_gemm_i8dot_args_t *args, const i8_config_t *cfg, size_t kc)
{
    return (kc + 3) / 4 * cfg->nr + (args->a_type == FDNN_GEMM_S8 ? cfg->nr : 0);
}

size_t
fdnn_gemm_i8dot_scratch_size_on(const fdnn_gemm_i8dot_args_t *args, fdnn_i8dot_kernel_t kernel)
{
    size_t kc = k_block(args);
    if (args->m == 0 || args->n == 0 || kc == 0)
        return 0;
    i8_config_t cfg = config_for(kernel);
    size_t a_strips = (min_size(args->m, cfg.mb) + cfg.mr - 1) / cfg.mr;
    size_t b_strips = (min_size(args->n, cfg.nc) + cfg.nr - 1) / cfg.nr;
    fdnn_carver_t carver = {NULL, 0};
    fdnn_carve(&carver, a_strips * a_strip_words(args, &cfg, kc) * sizeof(uint32_t));
    fdnn_carve(&carver, b_strips * b_strip_words(args, &cfg, kc) * sizeof(uint32_t));
    return carver.used + FDNN_ALIGNMENT;
}

size_t
fdnn_gemm_i8dot_scratch_size(const fdnn_gemm_i8dot_args_t *args, fdnn_isa_t isa)
{
    size_t bytes = fdnn_gemm_i8dot_scratch_size_on(args, fdnn_gemm_i8dot_kernel(isa));
#if !FDNN_ARCH_X86
    /* As fdnn_sgemm_scratch_size: a workspace sized once (attention,
     * cudnnGet*WorkspaceSize) may then run at a lower level
     * (freednnSetIsa), and the NEON tiles pack less than the portable one
     * for some shapes, so the size covers the portable tile too.  (The x86
     * sizes are left as they were.) */
    size_t low = fdnn_gemm_i8dot_scratch_size_on(args, FDNN_I8DOT_PORTABLE);
    bytes = low > bytes ? low : bytes;
#endif
    return bytes;
}

static void
pack_a_strip(const i8_plan_t *pl, size_t s)
{
    const fdnn_gemm_i8dot_args_t *g = pl->args;
    const i8_config_t *cfg = &pl->cfg;
    size_t i0 = pl->ib + s * cfg->mr, rows = min_size(cfg->mr, g->m - i0);
    size_t off = g->trans_a ? pl->pc * g->lda + i0 : i0 * g->lda + pl->pc; /* op(A)(i0, pc) */
    uint32_t *dst = pl->apack + s * pl->a_words;
    int32_t add = pl->s_a ? (int32_t)(0u - 16384u * (uint32_t)pl->kc) : 0;
    cfg->pack(!g->trans_a, pl->kc, rows, (const uint8_t *)g->a + off, g->lda, cfg->mr, pl->s_a ? 0x80 : 0, false,
              128, add, dst, pl->u_b ? (int32_t *)(dst + (pl->kc + 3) / 4 * cfg->mr) : NULL);
}

static void
pack_b_strip(const i8_plan_t *pl, size_t s)
{
    const fdnn_gemm_i8dot_args_t *g = pl->args;
    const i8_config_t *cfg = &pl->cfg;
    size_t j0 = pl->jc + s * cfg->nr, cols = min_size(cfg->nr, g->n - j0);
    size_t off = g->trans_b ? j0 * g->ldb + pl->pc : pl->pc * g->ldb + j0; /* op(B)(pc, j0) */
    uint32_t *dst = pl->bpack + s * pl->b_words;
    cfg->pack(g->trans_b, pl->kc, cols, (const uint8_t *)g->b + off, g->ldb, cfg->nr, pl->u_b ? 0x80 : 0, true,
              -128, 0, dst, pl->s_a ? (int32_t *)(dst + (pl->kc + 3) / 4 * cfg->nr) : NULL);
}

static void
pack_task(void *ctx, size_t s)
{
    const i8_plan_t *pl = ctx;
    if (s < pl->a_strips)
        pack_a_strip(pl, s);
    else
        pack_b_strip(pl, s - pl->a_strips);
}

static void
compute_task(void *ctx, size_t i0, size_t j0, size_t ti, size_t tj)
{
    const i8_plan_t *pl = ctx;
    const fdnn_gemm_i8dot_args_t *g = pl->args;
    const i8_config_t *cfg = &pl->cfg;
    const size_t mr = cfg->mr, nr = cfg->nr, kq = (pl->kc + 3) / 4;
    if (pl->a_fused && !pl->a_direct && pl->kc > 0)
        for (size_t i = i0; i < i0 + ti; i += mr)
            pack_a_strip(pl, i / mr);
    if (pl->b_fused && pl->kc > 0)
        for (size_t j = j0; j < j0 + tj; j += nr)
            pack_b_strip(pl, j / nr);
    bool accumulate = pl->first_k ? g->accumulate : true;
    for (size_t j = j0; j < j0 + tj; j += nr) {
        size_t cols = min_size(nr, j0 + tj - j);
        const uint32_t *bp = pl->kc > 0 ? pl->bpack + j / nr * pl->b_words : NULL;
        const int32_t *col_add = pl->kc > 0 && pl->s_a ? (const int32_t *)(bp + kq * nr) : NULL;
        for (size_t i = i0; i < i0 + ti; i += mr) {
            size_t rows = min_size(mr, i0 + ti - i), row = pl->ib + i;
            if (pl->a_direct && pl->kc > 0) {
                const uint8_t *arow = (const uint8_t *)g->a + row * g->lda + pl->pc;
                int32_t radd[32]; /* a uint8 B: the row sums an A pack would have stored */
                if (pl->u_b)
                    cfg->row_sums(rows, pl->kc, arow, g->lda, pl->s_a ? 0x80 : 0, 128,
                                  pl->s_a ? (int32_t)(0u - 16384u * (uint32_t)pl->kc) : 0, radd);
                cfg->arows(rows, cols, pl->kc, (const uint32_t *)(const void *)arow, g->lda / 4,
                           pl->s_a ? 0x80808080u : 0u, bp, pl->u_b ? radd : NULL, col_add, accumulate,
                           g->c + row * g->ldc + pl->jc + j, g->ldc);
                continue;
            }
            const uint32_t *ap = pl->kc > 0 ? pl->apack + i / mr * pl->a_words : NULL;
            const int32_t *row_add = pl->kc > 0 && pl->u_b ? (const int32_t *)(ap + kq * mr) : NULL;
            cfg->ukernel(rows, cols, pl->kc, ap, bp, row_add, col_add, accumulate,
                         g->c + row * g->ldc + pl->jc + j, g->ldc);
        }
    }
}

static size_t
balanced(size_t extent, size_t most, size_t strip)
{
    size_t parts = (extent + most - 1) / most;
    return round_up((extent + parts - 1) / parts, strip);
}

bool
fdnn_gemm_i8dot_on(const fdnn_gemm_i8dot_args_t *args, fdnn_pool_t pool, fdnn_i8dot_kernel_t kernel, void *scratch,
                   size_t scratch_bytes)
{
    if (!kernel_runs(kernel))
        return false;
    if (args->m == 0 || args->n == 0)
        return true;
    i8_plan_t pl = {.args = args, .cfg = config_for(kernel)};
    const i8_config_t *cfg = &pl.cfg;
    pl.s_a = args->a_type == FDNN_GEMM_S8;
    pl.u_b = args->b_type == FDNN_GEMM_U8;
    size_t kc_max = k_block(args);
    size_t need = fdnn_gemm_i8dot_scratch_size_on(args, kernel);
    void *own = NULL;
    if (need > 0 && (scratch == NULL || scratch_bytes < need)) {
        own = fdnn_aligned_alloc(need);
        if (own == NULL)
            return false;
        scratch = own;
    }
    if (need > 0) {
        uintptr_t base = ((uintptr_t)scratch + FDNN_ALIGNMENT - 1) & ~(uintptr_t)(FDNN_ALIGNMENT - 1);
        fdnn_carver_t carver = {(char *)base, 0};
        size_t a_strips = (min_size(args->m, cfg->mb) + cfg->mr - 1) / cfg->mr;
        size_t b_strips = (min_size(args->n, cfg->nc) + cfg->nr - 1) / cfg->nr;
        pl.apack = fdnn_carve(&carver, a_strips * a_strip_words(args, cfg, kc_max) * sizeof(uint32_t));
        pl.bpack = fdnn_carve(&carver, b_strips * b_strip_words(args, cfg, kc_max) * sizeof(uint32_t));
    }
    if (fdnn_gemm_is_small(args->m, args->n, args->k))
        pool = NULL;
    const size_t k = kc_max == 0 ? 0 : args->k;
    for (pl.jc = 0; pl.jc < args->n; pl.jc += cfg->nc) {
        pl.nc = min_size(cfg->nc, args->n - pl.jc);
        pl.a_fused = pl.nc <= cfg->nt;
        /* A read in place (as in bf16_gemm.c): its quads are the words of
         * the rows when A is not transposed, lda and k are multiples of 4
         * (the blocks are multiples of 16) and rows are 4-byte aligned.  A
         * uint8 B's correction then takes the row sums of A for each tile
         * (they are recomputed per B strip: cheap next to the product). */
        pl.a_direct = pl.a_fused && cfg->arows != NULL && !args->trans_a && args->k % 4 == 0 &&
                      args->lda % 4 == 0 && ((uintptr_t)args->a & 3u) == 0;
        pl.b_fused = args->m <= cfg->mc;
        pl.pc = 0;
        do {
            pl.kc = min_size(kc_max, k - pl.pc);
            /* strips of this block's size: the sums sit right after each */
            pl.a_words = a_strip_words(args, cfg, pl.kc);
            pl.b_words = b_strip_words(args, cfg, pl.kc);
            pl.first_k = pl.pc == 0;
            for (pl.ib = 0; pl.ib < args->m; pl.ib += cfg->mb) {
                pl.mb = min_size(cfg->mb, args->m - pl.ib);
                if (pl.kc > 0) {
                    pl.a_strips = pl.a_fused ? 0 : (pl.mb + cfg->mr - 1) / cfg->mr;
                    pl.b_strips = pl.ib == 0 && !pl.b_fused ? (pl.nc + cfg->nr - 1) / cfg->nr : 0;
                    if (pl.a_strips + pl.b_strips > 0)
                        fdnn_parallelize_1d(pool, pack_task, &pl, pl.a_strips + pl.b_strips, 0);
                }
                fdnn_parallelize_2d_tile_2d(pool, compute_task, &pl, pl.mb, pl.nc,
                                            balanced(pl.mb, cfg->mc, cfg->mr), balanced(pl.nc, cfg->nt, cfg->nr),
                                            0);
            }
            pl.pc += pl.kc;
        } while (pl.pc < k);
    }
    fdnn_aligned_free(own);
    return true;
}

bool
fdnn_gemm_i8dot(const fdnn_gemm_i8dot_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch,
                size_t scratch_bytes)
{
    return fdnn_gemm_i8dot_on(args, pool, fdnn_gemm_i8dot_kernel(isa), scratch, scratch_bytes);
}
