/* SPDX-License-Identifier: Apache-2.0
 * fdnn_gemm_bf16dot: the BF16 dot-product GEMM (contract in gemm.h, design
 * in README.md).  A blocked, packed, parallel driver in the loop order of
 * gemm_driver.inc, simpler than it (every operand converted and packed,
 * except a bfloat16 A on narrow products, read in place):
 *
 *   for jc in 0..n step NC
 *     for pc in 0..k step KC              the only blocking the sums see
 *       for ib in 0..m step MB
 *         pass 1 (parallel over strips): pack the A strips of this panel,
 *                 and the B strips when ib == 0, converting to bfloat16
 *         pass 2 (parallel over MC x NT tiles of C): the microkernels
 *
 * An operand whose strips have a single user (A when n fits one column
 * tile, B when m fits one row tile) is packed by that user in pass 2; a
 * bfloat16 A (not transposed) in that case is not packed at all: the
 * vdpbf16ps kernel's "arows" twin reads its pairs in place.
 *
 * The k blocks depend on k only (at most KC_MAX, equal, multiples of 8, so
 * a pair never straddles two blocks) and the rest of the blocking changes
 * which thread computes an element, never how: results are bitwise the same
 * for every thread count and, since every kernel does the same arithmetic,
 * on every ISA level. */
#include <assert.h>
#include <stdint.h>

#include "core/cpu.h"
#include "core/memory.h"
#include "cpu/config/config.h"
#include "cpu/gemm/gemm.h"
#include "cpu/gemm/gemm_blocking.h"
#include "cpu/kernels/bf16_gemm.h"

/* k steps per block: the B micro-panel (KC_MAX / 2 pair rows of 32 words,
 * 32 KiB) stays in a 48 KiB L1 next to the streaming A strip.  Fixed, not
 * taken from the cache sizes, so the results do not depend on the machine. */
#define KC_MAX 512

typedef struct bf16_config {
    fdnn_bf16_gemm_ukernel_fn ukernel;
    fdnn_bf16_gemm_arows_ukernel_fn arows; /* the same tile reading bfloat16 A in place, or NULL */
    fdnn_bf16_gemm_ukernel_fn ukernel_half; /* nr/2-wide twins for a last strip at most half full, or NULL */
    fdnn_bf16_gemm_arows_ukernel_fn arows_half;
    fdnn_bf16_pack_fn pack;
    size_t mr, nr;
    bool a_wide;   /* A packed as floats (two words per pair) */
    size_t mc, nt; /* tile of C per parallel item */
    size_t mb, nc; /* A and B panel extents per pass */
} bf16_config_t;

typedef struct bf16_plan {
    const fdnn_gemm_bf16dot_args_t *args;
    bf16_config_t cfg;
    uint32_t *apack, *bpack;
    size_t jc, nc, pc, kc, ib, mb;
    size_t a_strips, b_strips;
    bool a_fused; /* one column tile: each compute item packs its own A strips */
    bool b_fused; /* one row tile: each compute item packs its own B strips */
    bool a_direct; /* one column tile, A bfloat16 rows: the arows kernel reads A in place */
    bool first_k, last_k;
} bf16_plan_t;

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

static size_t
elem_bytes(fdnn_gemm_dtype_t t)
{
    return t == FDNN_GEMM_F32 ? 4 : 2;
}

static bool
kernel_runs(fdnn_bf16dot_kernel_t kernel)
{
    bool runs;
    return fdnn_isa_bf16dot_tile((int)kernel, &runs) != NULL && runs;
}

fdnn_bf16dot_kernel_t
fdnn_gemm_bf16dot_kernel(fdnn_isa_t isa)
{
    return (fdnn_bf16dot_kernel_t)FDNN_ISA_PICK(fdnn_isa_config(isa)->bf16dot)->id;
}

const char *
fdnn_gemm_bf16dot_kernel_name(fdnn_bf16dot_kernel_t kernel)
{
    static const char *const names[] = {"portable", "avx2", "avx512", "avx512_bf16", "neon", "neon_bf16"};
    return (unsigned)kernel < sizeof(names) / sizeof(names[0]) ? names[kernel] : "unknown";
}

/* The kernel's tile (src/cpu/config; the portable one for a kernel this
 * build lacks: only its sizes are asked then) and the blocking around it. */
static bf16_config_t
config_for(fdnn_bf16dot_kernel_t kernel)
{
    const fdnn_bf16dot_tile_t *t = fdnn_isa_bf16dot_tile((int)kernel, NULL);
    if (t == NULL)
        t = &fdnn_bf16dot_tile_scalar;
    bf16_config_t cfg = {.ukernel = t->ukernel,
                         .arows = t->arows,
                         .ukernel_half = t->ukernel_half,
                         .arows_half = t->arows_half,
                         .pack = t->pack,
                         .mr = t->mr,
                         .nr = t->nr,
                         .a_wide = t->a_wide};
    /* mc: the A block (mc x KC_MAX) in a quarter of L2, reused by every B
     * strip of the tile; nt: 8 strips; panels of 16 and 8 tiles. */
    size_t l2 = fdnn_cpu_l2_bytes() > 0 ? fdnn_cpu_l2_bytes() : ((size_t)1 << 20);
    size_t row_bytes = KC_MAX / 2 * 4 * (cfg.a_wide ? 2 : 1);
    size_t strips = l2 / 4 / row_bytes / cfg.mr;
    cfg.mc = (strips < 1 ? 1 : strips > 12 ? 12 : strips) * cfg.mr;
    cfg.nt = 8 * cfg.nr;
    cfg.mb = 16 * cfg.mc;
    cfg.nc = 8 * cfg.nt;
    return cfg;
}

/* The k block: equal blocks of at most KC_MAX, rounded up to 8.  0 when
 * there is no product. */
static size_t
k_block(const fdnn_gemm_bf16dot_args_t *args)
{
    if (args->k == 0 || args->alpha == 0)
        return 0;
    size_t blocks = (args->k + KC_MAX - 1) / KC_MAX;
    return min_size(args->k, round_up((args->k + blocks - 1) / blocks, 8));
}

static size_t
a_panel_words(const fdnn_gemm_bf16dot_args_t *args, const bf16_config_t *cfg, size_t kc)
{
    return round_up(min_size(args->m, cfg->mb), cfg->mr) * ((kc + 1) / 2) * (cfg->a_wide ? 2 : 1);
}

static size_t
b_panel_words(const fdnn_gemm_bf16dot_args_t *args, const bf16_config_t *cfg, size_t kc)
{
    return round_up(min_size(args->n, cfg->nc), cfg->nr) * ((kc + 1) / 2);
}

size_t
fdnn_gemm_bf16dot_scratch_size_on(const fdnn_gemm_bf16dot_args_t *args, fdnn_bf16dot_kernel_t kernel)
{
    size_t kc = k_block(args);
    if (args->m == 0 || args->n == 0 || kc == 0)
        return 0;
    bf16_config_t cfg = config_for(kernel);
    fdnn_carver_t carver = {NULL, 0};
    fdnn_carve(&carver, a_panel_words(args, &cfg, kc) * sizeof(uint32_t));
    fdnn_carve(&carver, b_panel_words(args, &cfg, kc) * sizeof(uint32_t));
    return carver.used + FDNN_ALIGNMENT; /* slack to align an unaligned scratch pointer */
}

size_t
fdnn_gemm_bf16dot_scratch_size(const fdnn_gemm_bf16dot_args_t *args, fdnn_isa_t isa)
{
    size_t bytes = fdnn_gemm_bf16dot_scratch_size_on(args, fdnn_gemm_bf16dot_kernel(isa));
#if !FDNN_ARCH_X86
    /* As fdnn_sgemm_scratch_size: a workspace sized once (attention,
     * cudnnGet*WorkspaceSize) may then run at a lower level
     * (freednnSetIsa), and the NEON tiles pack less than the portable one
     * for some shapes, so the size covers the portable tile too.  (The x86
     * sizes are left as they were.) */
    size_t low = fdnn_gemm_bf16dot_scratch_size_on(args, FDNN_BF16DOT_PORTABLE);
    bytes = low > bytes ? low : bytes;
#endif
    return bytes;
}

/* Prepacked B (fdnn_gemm_bf16dot_pack_b): one slot per (column panel jc,
 * k block pc), each of the words of a full panel, panels in jc-major
 * order; the slot of (jc, pc) holds exactly what pass 1 would pack. */
static size_t
packed_slot_words(const fdnn_gemm_bf16dot_args_t *args, const bf16_config_t *cfg)
{
    return round_up(b_panel_words(args, cfg, k_block(args)), 16); /* 64-byte slots */
}

static size_t
packed_k_blocks(const fdnn_gemm_bf16dot_args_t *args)
{
    size_t kc = k_block(args);
    return kc == 0 ? 0 : (args->k + kc - 1) / kc;
}

static const uint32_t *
packed_slot(const fdnn_gemm_bf16dot_args_t *args, const bf16_config_t *cfg, size_t jc, size_t pc)
{
    size_t kc = k_block(args), slot = jc / cfg->nc * packed_k_blocks(args) + pc / kc;
    return (const uint32_t *)args->b_packed + slot * packed_slot_words(args, cfg);
}

/* A strip s of the panel (rows ib + s * mr ..). */
static void
pack_a_strip(const bf16_plan_t *pl, size_t s)
{
    const fdnn_gemm_bf16dot_args_t *g = pl->args;
    const bf16_config_t *cfg = &pl->cfg;
    const size_t kp = (pl->kc + 1) / 2;
    size_t i0 = pl->ib + s * cfg->mr, rows = min_size(cfg->mr, g->m - i0);
    size_t off = g->trans_a ? pl->pc * g->lda + i0 : i0 * g->lda + pl->pc; /* op(A)(i0, pc) */
    cfg->pack((int)g->a_type, !g->trans_a, pl->kc, rows, (const char *)g->a + off * elem_bytes(g->a_type), g->lda,
              cfg->mr, cfg->a_wide, pl->apack + s * kp * cfg->mr * (cfg->a_wide ? 2 : 1));
}

/* `count` B strips of the panel from strip s (columns jc + s * nr ..). */
static void
pack_b_strips(const bf16_plan_t *pl, size_t s, size_t count)
{
    const fdnn_gemm_bf16dot_args_t *g = pl->args;
    const bf16_config_t *cfg = &pl->cfg;
    const size_t kp = (pl->kc + 1) / 2;
    size_t j0 = pl->jc + s * cfg->nr, cols = min_size(count * cfg->nr, g->n - j0);
    size_t off = g->trans_b ? j0 * g->ldb + pl->pc : pl->pc * g->ldb + j0; /* op(B)(pc, j0) */
    cfg->pack((int)g->b_type, g->trans_b, pl->kc, cols, (const char *)g->b + off * elem_bytes(g->b_type), g->ldb,
              cfg->nr, false, pl->bpack + s * kp * cfg->nr);
}

/* Pass 1 item: A strip s of the panel, or B strip s - a_strips. */
static void
pack_task(void *ctx, size_t s)
{
    const bf16_plan_t *pl = ctx;
    if (s < pl->a_strips)
        pack_a_strip(pl, s);
    else
        pack_b_strips(pl, s - pl->a_strips, 1);
}

/* Pass 2 item: the C tile rows ib+i0 .. +ti, columns jc+j0 .. +tj. */
static void
compute_task(void *ctx, size_t i0, size_t j0, size_t ti, size_t tj)
{
    const bf16_plan_t *pl = ctx;
    const fdnn_gemm_bf16dot_args_t *g = pl->args;
    const bf16_config_t *cfg = &pl->cfg;
    const size_t mr = cfg->mr, nr = cfg->nr, kp = (pl->kc + 1) / 2;
    const size_t a_words = kp * mr * (cfg->a_wide ? 2 : 1), b_words = kp * nr;
    /* The only user of these strips packs them: they are then hot in this
     * core's caches instead of written to L3 by pass 1 and read back. */
    if (pl->a_fused && !pl->a_direct && pl->kc > 0)
        for (size_t i = i0; i < i0 + ti; i += mr)
            pack_a_strip(pl, i / mr);
    if (pl->b_fused && pl->kc > 0 && g->b_packed == NULL)
        pack_b_strips(pl, j0 / nr, (tj + nr - 1) / nr);
    fdnn_f32_gemm_epilogue_t ep = {
        .alpha = pl->kc == 0 ? 0.0f : g->alpha, /* no product: op(A) op(B) is not referenced */
        .beta = pl->first_k ? g->beta : 1.0f,
        .relu = pl->last_k && g->act == FDNN_GEMM_ACT_RELU,
    };
    for (size_t j = j0; j < j0 + tj; j += nr) {
        size_t cols = min_size(nr, j0 + tj - j), col = pl->jc + j;
        ep.bias_col = pl->last_k && g->bias_col != NULL ? g->bias_col + col : NULL;
        const uint32_t *bp = pl->kc > 0 ? pl->bpack + j / nr * b_words : NULL;
        /* a last strip at most half full: the half-width twin (same sums) */
        bool half = 2 * cols <= nr && cfg->ukernel_half != NULL;
        for (size_t i = i0; i < i0 + ti; i += mr) {
            size_t rows = min_size(mr, i0 + ti - i), row = pl->ib + i;
            ep.bias_row = pl->last_k && g->bias_row != NULL ? g->bias_row + row : NULL;
            if (pl->a_direct && pl->kc > 0) {
                const uint16_t *arow = (const uint16_t *)g->a + row * g->lda + pl->pc;
                (half ? cfg->arows_half : cfg->arows)(rows, cols, pl->kc, (const uint32_t *)(const void *)arow,
                                                      g->lda / 2, bp, g->c + row * g->ldc + col, g->ldc, &ep);
                continue;
            }
            const uint32_t *ap = pl->kc > 0 ? pl->apack + i / mr * a_words : NULL;
            (half ? cfg->ukernel_half : cfg->ukernel)(rows, cols, pl->kc, ap, bp, g->c + row * g->ldc + col, g->ldc,
                                                      &ep);
        }
    }
}

/* Tiles of equal size (whole strips) of at most `most`. */
static size_t
balanced(size_t extent, size_t most, size_t strip)
{
    size_t parts = (extent + most - 1) / most;
    return round_up((extent + parts - 1) / parts, strip);
}

bool
fdnn_gemm_bf16dot_on(const fdnn_gemm_bf16dot_args_t *args, fdnn_pool_t pool, fdnn_bf16dot_kernel_t kernel,
                     void *scratch, size_t scratch_bytes)
{
    if (!kernel_runs(kernel))
        return false;
    if (args->m == 0 || args->n == 0)
        return true;
    bf16_plan_t pl = {.args = args, .cfg = config_for(kernel)};
    const bf16_config_t *cfg = &pl.cfg;
    size_t kc_max = k_block(args);
    size_t need = fdnn_gemm_bf16dot_scratch_size_on(args, kernel);
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
        pl.apack = fdnn_carve(&carver, a_panel_words(args, cfg, kc_max) * sizeof(uint32_t));
        pl.bpack = fdnn_carve(&carver, b_panel_words(args, cfg, kc_max) * sizeof(uint32_t));
    }
    if (fdnn_gemm_is_small(args->m, args->n, args->k))
        pool = NULL;
    const size_t k = kc_max == 0 ? 0 : args->k;
    for (pl.jc = 0; pl.jc < args->n; pl.jc += cfg->nc) {
        pl.nc = min_size(cfg->nc, args->n - pl.jc);
        pl.a_fused = pl.nc <= cfg->nt;
        /* A read in place: its pairs are the 32-bit words of bfloat16 rows
         * when A is not transposed, the rows start 4-byte aligned (even
         * lda) and every block has whole pairs (even k; the blocks are
         * multiples of 8).  Only with one column tile: otherwise each A
         * strip serves many B strips and is worth packing. */
        pl.a_direct = pl.a_fused && cfg->arows != NULL && args->a_type == FDNN_GEMM_BF16 && !args->trans_a &&
                      args->k % 2 == 0 && args->lda % 2 == 0 && ((uintptr_t)args->a & 3u) == 0;
        pl.b_fused = args->m <= cfg->mc;
        pl.pc = 0;
        do { /* one block even when k == 0: beta and the epilogue still apply */
            pl.kc = min_size(kc_max, k - pl.pc);
            pl.first_k = pl.pc == 0;
            pl.last_k = pl.pc + pl.kc >= k;
            if (args->b_packed != NULL && pl.kc > 0)
                pl.bpack = (uint32_t *)(uintptr_t)packed_slot(args, cfg, pl.jc, pl.pc);
            for (pl.ib = 0; pl.ib < args->m; pl.ib += cfg->mb) {
                pl.mb = min_size(cfg->mb, args->m - pl.ib);
                if (pl.kc > 0) {
                    pl.a_strips = pl.a_fused ? 0 : (pl.mb + cfg->mr - 1) / cfg->mr;
                    pl.b_strips = pl.ib == 0 && !pl.b_fused && args->b_packed == NULL
                                      ? (pl.nc + cfg->nr - 1) / cfg->nr : 0;
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
fdnn_gemm_bf16dot(const fdnn_gemm_bf16dot_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch,
                  size_t scratch_bytes)
{
    return fdnn_gemm_bf16dot_on(args, pool, fdnn_gemm_bf16dot_kernel(isa), scratch, scratch_bytes);
}

size_t
fdnn_gemm_bf16dot_packed_b_size_on(const fdnn_gemm_bf16dot_args_t *args, fdnn_bf16dot_kernel_t kernel)
{
    if (args->m == 0 || args->n == 0 || k_block(args) == 0)
        return 0;
    bf16_config_t cfg = config_for(kernel);
    size_t panels = (args->n + cfg.nc - 1) / cfg.nc * packed_k_blocks(args);
    return panels * packed_slot_words(args, &cfg) * sizeof(uint32_t);
}

size_t
fdnn_gemm_bf16dot_packed_b_size(const fdnn_gemm_bf16dot_args_t *args, fdnn_isa_t isa)
{
    return fdnn_gemm_bf16dot_packed_b_size_on(args, fdnn_gemm_bf16dot_kernel(isa));
}

typedef struct prepack {
    bf16_plan_t pl; /* jc, nc, pc, kc and bpack of the panel being packed */
} prepack_t;

static void
prepack_task(void *ctx, size_t s)
{
    const prepack_t *pp = ctx;
    pack_b_strips(&pp->pl, s, 1);
}

void
fdnn_gemm_bf16dot_pack_b_on(const fdnn_gemm_bf16dot_args_t *args, fdnn_pool_t pool, fdnn_bf16dot_kernel_t kernel,
                            void *buf)
{
    if (fdnn_gemm_bf16dot_packed_b_size_on(args, kernel) == 0)
        return;
    fdnn_gemm_bf16dot_args_t g = *args;
    g.b_packed = buf;
    prepack_t pp = {.pl = {.args = &g, .cfg = config_for(kernel)}};
    bf16_plan_t *pl = &pp.pl;
    size_t kc_max = k_block(args);
    for (pl->jc = 0; pl->jc < args->n; pl->jc += pl->cfg.nc) {
        pl->nc = min_size(pl->cfg.nc, args->n - pl->jc);
        for (pl->pc = 0; pl->pc < args->k; pl->pc += pl->kc) {
            pl->kc = min_size(kc_max, args->k - pl->pc);
            pl->bpack = (uint32_t *)(uintptr_t)packed_slot(&g, &pl->cfg, pl->jc, pl->pc);
            fdnn_parallelize_1d(pool, prepack_task, &pp, (pl->nc + pl->cfg.nr - 1) / pl->cfg.nr, 0);
        }
    }
}

void
fdnn_gemm_bf16dot_pack_b(const fdnn_gemm_bf16dot_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *buf)
{
    fdnn_gemm_bf16dot_pack_b_on(args, pool, fdnn_gemm_bf16dot_kernel(isa), buf);
}
