/* SPDX-License-Identifier: Apache-2.0
 * The native BF16 forward convolution (contract in conv_bf16.h): an
 * implicit GEMM on the vdpbf16ps microkernels of the BF16 GEMM.
 *
 *   A = the filter as bfloat16 rows (K x cg*taps, KCRS order): the user's
 *       filter itself when it is packed BFLOAT16 KCRS with an even row,
 *       else converted once per call into the handle's scratch;
 *   B = the im2col matrix, never stored whole: each 32-column strip (32
 *       output positions, across images) is converted and packed by
 *       bf16_conv__avx512bf16.c for one k block just before the
 *       microkernels use it (it stays in L1);
 *   C = FP32 sums of a tile of strips x the group's K channels, in the
 *       chunk's scratch, blended and rounded into y by the epilogue.
 *
 * Loop order per tile (up to 8 strips): k blocks (<= 512 rows, equal,
 * multiples of 8, fixed by the problem) outermost, so the A block stays in
 * L2 across the tile's strips; then the strips; then 14-row strips of A.
 * The work is split in `threads` chunks of tiles, each with its own slot of
 * scratch; the strips, tiles and k blocks depend on the problem only, so
 * every output element is computed the same way at every thread count. */
#include "cpu/conv/conv_bf16.h"

#include <string.h>

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/config/config.h"
#include "cpu/conv/conv_lowp.h"
#include "cpu/kernels/bf16_conv.h"
#include "cpu/kernels/bf16_gemm.h"

#define STRIP FDNN_BF16_CONV_STRIP
#define KC_MAX 512             /* rows of B per block: a 32 KiB B strip */
#define MR 14                  /* rows of the microkernel */
#define MAX_TILE_STRIPS FDNN_BF16_CONV_MAX_STRIPS /* strips per tile */
#define CTILE_BYTES (1u << 19) /* at most this much of C per tile */

bool
fdnn_conv_bf16_cpu_has(void)
{
    return fdnn_cpu_has_ext(fdnn_isa_config(fdnn_cpu_max_isa())->conv_bf16);
}

bool
fdnn_conv_bf16_applies(const fdnn_conv_problem_t *p, int algo)
{
    if (p->dir != FDNN_CONV_FWD || !fdnn_conv_lowp_rounds_to_bf16(p) || p->config == FDNN_CONV_CFG_TRUE_HALF)
        return false;
    if (algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM && algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM &&
        algo != CUDNN_CONVOLUTION_FWD_ALGO_GEMM && algo != CUDNN_CONVOLUTION_FWD_ALGO_DIRECT)
        return false;
    /* depthwise-like problems: the staged path's depthwise solver */
    if (p->g > 1 && fdnn_conv_cg(p) == 1 && fdnn_conv_kg(p) <= 4)
        return false;
    cudnnDataType_t t = p->x_dtype;
    if (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_HALF && t != CUDNN_DATA_BFLOAT16)
        return false;
    if (p->w_dtype != t || p->y_dtype != t)
        return false;
    return fdnn_conv_bf16_cpu_has();
}

#if defined(__x86_64__) || defined(__i386__)

static int
src_type(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_HALF ? FDNN_BF16_SRC_F16 : dt == CUDNN_DATA_BFLOAT16 ? FDNN_BF16_SRC_BF16
                                                                                   : FDNN_BF16_SRC_F32;
}

/* Whether t's strides are those of a packed tensor of its dims (dims of
 * extent 1 may have any stride). */
static bool
packed(const fdnn_tensor_t *t)
{
    int64_t s = 1;
    for (int i = 4; i >= 0; i--) {
        if (t->dims[i] != 1 && t->strides[i] != s)
            return false;
        s *= t->dims[i];
    }
    return true;
}

typedef struct bf16_job {
    const fdnn_conv_problem_t *p;
    fdnn_bf16_conv_geom_t geom;
    fdnn_bf16_conv_out_t out;
    const uint16_t *a; /* filter rows, lda_words words apart */
    size_t lda_words;
    size_t kpad, kc;   /* rows of B rounded up to even; the k block */
    int64_t kg, cols;  /* channels per group; columns (N * out spatial) */
    size_t strips, tile_strips, tiles, items, chunks;
    char *slots;
    size_t slot_bytes;
    /* the filter conversion */
    const void *w;
    uint16_t *a_own;
} bf16_job_t;

/* The runs of strip s; returns their count. */
static int
strip_runs(const bf16_job_t *j, size_t s, fdnn_bf16_conv_run_t *runs)
{
    const fdnn_conv_problem_t *p = j->p;
    const int64_t ow = p->out[2], oh = p->out[1], od = p->out[0];
    int64_t col = (int64_t)s * STRIP, end = col + STRIP < j->cols ? col + STRIP : j->cols;
    int nr = 0;
    while (col < end) {
        int64_t sp = col % (od * oh * ow), n = col / (od * oh * ow);
        int64_t w0 = sp % ow, h = sp / ow % oh, d = sp / (ow * oh);
        int64_t len = ow - w0 < end - col ? ow - w0 : end - col;
        runs[nr++] = (fdnn_bf16_conv_run_t){
            .n = n, .od = d, .oh = h, .ow0 = w0, .j = (int32_t)(col - (int64_t)s * STRIP), .len = (int32_t)len};
        col += len;
    }
    return nr;
}

/* The kernels for a block of r <= 14 output channels, by (r + 1) / 2 - 1:
 * the twin of r rounded up to even rows, so that a last block of r < 14
 * channels does r rows of work, not 14 (the same sums). */
static const fdnn_bf16_gemm_arows_ukernel_fn row_tails[MR / 2] = {
    fdnn_bf16_gemm_arows_ukernel_2x32__avx512bf16,  fdnn_bf16_gemm_arows_ukernel_4x32__avx512bf16,
    fdnn_bf16_gemm_arows_ukernel_6x32__avx512bf16,  fdnn_bf16_gemm_arows_ukernel_8x32__avx512bf16,
    fdnn_bf16_gemm_arows_ukernel_10x32__avx512bf16, fdnn_bf16_gemm_arows_ukernel_12x32__avx512bf16,
    fdnn_bf16_gemm_arows_ukernel_14x32__avx512bf16,
};

/* Tile `item` (group, tile of strips) with the slot's buffers. */
static void
run_item(const bf16_job_t *j, size_t item, uint32_t *bbuf, float *ctile, fdnn_bf16_conv_run_t *runs, void *table)
{
    const size_t g = item / j->tiles, tile = item % j->tiles;
    const size_t s0 = tile * j->tile_strips;
    const size_t ns = s0 + j->tile_strips < j->strips ? j->tile_strips : j->strips - s0;
    const size_t ldc = j->tile_strips * STRIP;
    int nruns[MAX_TILE_STRIPS];
    size_t width[MAX_TILE_STRIPS];
    for (size_t s = 0; s < ns; s++) {
        nruns[s] = strip_runs(j, s0 + s, runs + s * STRIP);
        size_t first = (s0 + s) * STRIP;
        width[s] = first + STRIP <= (size_t)j->cols ? STRIP : (size_t)j->cols - first;
    }
    const int64_t c0 = (int64_t)g * fdnn_conv_cg(j->p), k0 = (int64_t)g * j->kg;
    const size_t b_words = (KC_MAX / 2) * STRIP;
    for (size_t pc = 0; pc < j->kpad; pc += j->kc) {
        size_t kc = j->kpad - pc < j->kc ? j->kpad - pc : j->kc;
        fdnn_f32_gemm_epilogue_t ep = {.alpha = 1.0f, .beta = pc == 0 ? 0.0f : 1.0f};
        fdnn_bf16_conv_pack__avx512bf16(&j->geom, c0, runs, nruns, ns, pc, kc, table, bbuf, b_words);
        for (size_t s = 0; s < ns; s++) {
            const uint32_t *b = bbuf + s * b_words;
            for (int64_t i = 0; i < j->kg; i += MR) {
                size_t rows = j->kg - i < MR ? (size_t)(j->kg - i) : MR;
                const uint32_t *a = (const uint32_t *)(const void *)(j->a + (size_t)(k0 + i) * j->lda_words * 2) +
                                    pc / 2;
                float *c = ctile + (size_t)i * ldc + s * STRIP;
                fdnn_bf16_gemm_arows_ukernel_fn kernel = row_tails[(rows + 1) / 2 - 1];
                if (width[s] <= STRIP / 2)
                    kernel = fdnn_bf16_gemm_arows_ukernel_14x16__avx512bf16;
                kernel(rows, width[s], kc, a, j->lda_words, b, c, ldc, &ep);
            }
        }
    }
    for (size_t s = 0; s < ns; s++)
        fdnn_bf16_conv_store__avx512bf16(&j->out, ctile + s * STRIP, ldc, (size_t)j->kg, k0, runs + s * STRIP,
                                         nruns[s]);
}

static void
chunk_task(void *ctx, size_t chunk)
{
    const bf16_job_t *j = ctx;
    char *slot = j->slots + chunk * j->slot_bytes;
    fdnn_carver_t cv = {slot, 0};
    uint32_t *bbuf = fdnn_carve(&cv, j->tile_strips * (KC_MAX / 2) * STRIP * sizeof(uint32_t));
    float *ctile = fdnn_carve(&cv, (size_t)j->kg * j->tile_strips * STRIP * sizeof(float));
    fdnn_bf16_conv_run_t *runs = fdnn_carve(&cv, j->tile_strips * STRIP * sizeof(fdnn_bf16_conv_run_t));
    void *table = fdnn_carve(&cv, j->tile_strips * fdnn_bf16_conv_table_bytes(fdnn_conv_taps(j->p)));
    size_t first = chunk * j->items / j->chunks, last = (chunk + 1) * j->items / j->chunks;
    for (size_t it = first; it < last; it++)
        run_item(j, it, bbuf, ctile, runs, table);
}

/* Filter row k as bfloat16 into a_own (kpad entries, the pad zero). */
static void
convert_filter_row(void *ctx, size_t k)
{
    const bf16_job_t *j = ctx;
    const fdnn_conv_problem_t *p = j->p;
    uint16_t *dst = j->a_own + k * j->lda_words * 2;
    size_t rows = (size_t)j->geom.rows, es = p->w_dtype == CUDNN_DATA_FLOAT ? 4 : 2;
    int type = src_type(p->w_dtype);
    if (packed(&p->w) && !p->flip) {
        fdnn_bf16_conv_cvt_row__avx512bf16(type, (const char *)j->w + k * rows * es, rows, dst);
    } else {
        int64_t cg = fdnn_conv_cg(p), q = 0;
        for (int64_t c = 0; c < cg; c++)
            for (int64_t qd = 0; qd < p->ker[0]; qd++)
                for (int64_t qh = 0; qh < p->ker[1]; qh++)
                    for (int64_t qw = 0; qw < p->ker[2]; qw++) {
                        int64_t off = fdnn_conv_w_off(p, (int64_t)k, c, qd, qh, qw);
                        fdnn_bf16_conv_cvt_row__avx512bf16(type, (const char *)j->w + off * (int64_t)es, 1,
                                                            dst + q++);
                    }
    }
    for (size_t i = rows; i < j->kpad; i++)
        dst[i] = 0;
}

cudnnStatus_t
fdnn_conv_bf16_run(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    if (e->handle == NULL)
        return FDNN_BAD_PARAM("the native BF16 convolution needs a handle (its scratch)");
    bf16_job_t j;
    memset(&j, 0, sizeof(j));
    j.p = p;
    j.kg = fdnn_conv_kg(p);
    j.geom = (fdnn_bf16_conv_geom_t){.type = src_type(p->x_dtype), .x = e->x_in, .rows = fdnn_conv_cg(p) * fdnn_conv_taps(p)};
    j.geom.x_bytes = 1;
    for (int i = 0; i < 5; i++) {
        j.geom.xs[i] = p->x.strides[i];
        j.geom.x_bytes += (p->x.dims[i] - 1) * p->x.strides[i];
    }
    j.geom.x_bytes *= p->x_dtype == CUDNN_DATA_FLOAT ? 4 : 2;
    for (int i = 0; i < 3; i++) {
        j.geom.in[i] = p->in[i];
        j.geom.ker[i] = p->ker[i];
        j.geom.pad[i] = p->pad[i];
        j.geom.stride[i] = p->stride[i];
        j.geom.dil[i] = p->dil[i];
    }
    j.out = (fdnn_bf16_conv_out_t){.type = src_type(p->y_dtype), .y = e->out, .alpha = (float)e->alpha,
                                   .beta = (float)e->beta, .bias = e->bias, .relu = e->relu};
    for (int i = 0; i < 5; i++)
        j.out.ys[i] = p->y.strides[i];
    size_t rows = (size_t)j.geom.rows;
    j.kpad = (rows + 1) & ~(size_t)1;
    size_t blocks = (j.kpad + KC_MAX - 1) / KC_MAX;
    j.kc = (j.kpad + blocks - 1) / blocks;
    j.kc = (j.kc + 7) & ~(size_t)7;
    if (j.kc > j.kpad)
        j.kc = j.kpad;
    j.cols = p->n * fdnn_conv_out_spatial(p);
    j.strips = (size_t)((j.cols + STRIP - 1) / STRIP);

    fdnn_pool_t pool = fdnn_handle_pool(e->handle);
    size_t threads = fdnn_pool_threads(pool);
    double macs = (double)j.cols * (double)p->k * (double)rows;
    if (macs < 1e6)
        threads = 1;
    /* tiles: as wide as C's budget allows, narrower while there are fewer
     * than 4 per thread */
    size_t t = MAX_TILE_STRIPS;
    while (t > 1 && (size_t)j.kg * t * STRIP * sizeof(float) > CTILE_BYTES)
        t /= 2;
    while (t > 1 && (size_t)p->g * ((j.strips + t - 1) / t) < 4 * threads)
        t /= 2;
    j.tile_strips = t;
    j.tiles = (j.strips + t - 1) / t;
    j.items = (size_t)p->g * j.tiles;
    j.chunks = threads < j.items ? threads : j.items;
    if (j.chunks == 0)
        return CUDNN_STATUS_SUCCESS; /* no output */

    /* The filter: in place when it is packed BFLOAT16 KCRS with even rows. */
    bool in_place = p->w_dtype == CUDNN_DATA_BFLOAT16 && packed(&p->w) && !p->flip && rows % 2 == 0 &&
                    ((uintptr_t)e->w_in & 3u) == 0;
    fdnn_carver_t cv = {NULL, 0};
    fdnn_carve(&cv, in_place ? 0 : (size_t)p->k * j.kpad * sizeof(uint16_t));
    size_t a_bytes = cv.used;
    fdnn_carve(&cv, t * (KC_MAX / 2) * STRIP * sizeof(uint32_t));
    fdnn_carve(&cv, (size_t)j.kg * t * STRIP * sizeof(float));
    fdnn_carve(&cv, t * STRIP * sizeof(fdnn_bf16_conv_run_t));
    fdnn_carve(&cv, t * fdnn_bf16_conv_table_bytes(fdnn_conv_taps(p)));
    j.slot_bytes = cv.used - a_bytes;
    char *scratch = fdnn_handle_scratch(e->handle, a_bytes + j.chunks * j.slot_bytes);
    if (scratch == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    j.slots = scratch + a_bytes;
    j.lda_words = j.kpad / 2;
    j.w = e->w_in;
    if (in_place) {
        j.a = e->w_in;
    } else {
        j.a_own = (uint16_t *)(void *)scratch;
        j.a = j.a_own;
        fdnn_parallelize_1d(threads > 1 ? pool : NULL, convert_filter_row, &j, (size_t)p->k, 0);
    }
    fdnn_parallelize_1d(threads > 1 ? pool : NULL, chunk_task, &j, j.chunks, 0);
    return CUDNN_STATUS_SUCCESS;
}

#else /* the kernels are x86 only: fdnn_conv_bf16_cpu_has() is false here */

cudnnStatus_t
fdnn_conv_bf16_run(const fdnn_conv_exec_t *e)
{
    (void)e;
    return FDNN_NOT_SUPPORTED("the native BF16 convolution needs x86 AVX512-BF16");
}

#endif
