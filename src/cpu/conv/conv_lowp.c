/* SPDX-License-Identifier: Apache-2.0
 * Reduced-precision convolutions on the FP32 solvers.  See conv_lowp.h. */
#include "cpu/conv/conv_lowp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_bf16.h"
#include "cpu/conv/conv_bias.h"
#include "cpu/conv/conv_depthwise.h"
#include "cpu/conv/conv_direct_blocked.h"
#include "cpu/conv/conv_winograd.h"
#include "cpu/simd/cvt.h"
#include "cpu/tensor/convert_row.h"

/* Elements converted per task of the staging and write passes (and the
 * size below which they stay on the calling thread). */
#define LOWP_TILE ((size_t)1 << 15)

static bool
tf32_override_off(void)
{
    const char *v = getenv("NVIDIA_TF32_OVERRIDE");
    return v != NULL && strcmp(v, "0") == 0;
}

bool
fdnn_conv_lowp_rounds_to_bf16(const fdnn_conv_problem_t *p)
{
    switch (p->config) {
    case FDNN_CONV_CFG_PSEUDO_HALF:
    case FDNN_CONV_CFG_TRUE_HALF:
    case FDNN_CONV_CFG_PSEUDO_BFLOAT16:
        return p->math_type == CUDNN_TENSOR_OP_MATH || p->math_type == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    case FDNN_CONV_CFG_FLOAT:
        return p->math_type == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION && !tf32_override_off();
    default: return false;
    }
}

bool
fdnn_conv_lowp_applies(const fdnn_conv_problem_t *p)
{
    switch (p->config) {
    case FDNN_CONV_CFG_PSEUDO_HALF:
    case FDNN_CONV_CFG_TRUE_HALF:
    case FDNN_CONV_CFG_PSEUDO_BFLOAT16: return true;
    case FDNN_CONV_CFG_FLOAT: return fdnn_conv_lowp_rounds_to_bf16(p);
    default: return false;
    }
}

cudnnMathType_t
fdnn_conv_math_used(const fdnn_conv_problem_t *p)
{
    if (fdnn_conv_lowp_rounds_to_bf16(p))
        return p->math_type;
    return p->math_type == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
}

void
fdnn_conv_lowp_shadow(const fdnn_conv_problem_t *p, fdnn_conv_problem_t *shadow)
{
    *shadow = *p;
    shadow->dtype = CUDNN_DATA_FLOAT;
    shadow->config = FDNN_CONV_CFG_FLOAT;
    shadow->x_dtype = shadow->w_dtype = shadow->y_dtype = shadow->compute_type = CUDNN_DATA_FLOAT;
    shadow->math_type = CUDNN_DEFAULT_MATH;
    shadow->x.dtype = shadow->w.dtype = shadow->y.dtype = CUDNN_DATA_FLOAT;
}

/* The operands by index: 0 x (dx), 1 w (dw), 2 y (dy); which one is
 * written. */
static int
out_index(fdnn_conv_dir_t dir)
{
    return dir == FDNN_CONV_FWD ? 2 : dir == FDNN_CONV_BWD_DATA ? 0 : 1;
}

static const fdnn_tensor_t *
operand(const fdnn_conv_problem_t *p, int i)
{
    return i == 0 ? &p->x : i == 1 ? &p->w : &p->y;
}

/* Whether the written operand goes through an FP32 staging buffer: it does
 * unless it is FLOAT (FLOAT data rounded to BF16 only stages its inputs and
 * lets the solver blend into the user's output as the FP32 path does). */
static bool
out_staged(const fdnn_conv_problem_t *p)
{
    return operand(p, out_index(p->dir))->dtype != CUDNN_DATA_FLOAT;
}

/* Bytes of the FP32 staging buffer of operand i (0 when not staged), a
 * multiple of 64.  false on overflow. */
static bool
stage_bytes(const fdnn_conv_problem_t *p, int i, size_t *bytes)
{
    *bytes = 0;
    if (i == out_index(p->dir) && !out_staged(p))
        return true;
    size_t b = 0;
    if (!fdnn_ckd_bytes(fdnn_tensor_span(operand(p, i)), sizeof(float), &b) || !fdnn_ckd_add_size(b, 63, &b))
        return false;
    *bytes = b & ~(size_t)63;
    return true;
}

/* The layout of one call: the shadow problem, the staging bytes (all three
 * buffers, in operand order) and the FP32 algorithm's own workspace. */
typedef struct lowp_plan {
    fdnn_conv_problem_t shadow;
    size_t stage[3];
    size_t stage_total;
    size_t solver_ws;
    bool fallback; /* zero-workspace fallback: staging allocated per call */
} lowp_plan_t;

static cudnnStatus_t
plan(const fdnn_conv_problem_t *p, int algo, lowp_plan_t *pl)
{
    fdnn_conv_lowp_shadow(p, &pl->shadow);
    RETURN_IF_ERROR(fdnn_conv_algo_check(&pl->shadow, algo, &pl->solver_ws));
    pl->stage_total = 0;
    for (int i = 0; i < 3; i++)
        if (!stage_bytes(p, i, &pl->stage[i]) || !fdnn_ckd_add_size(pl->stage_total, pl->stage[i], &pl->stage_total))
            return FDNN_NOT_SUPPORTED("the FP32 staging buffers of this %s convolution overflow size_t",
                                      fdnn_dtype_name(p->dtype));
    pl->fallback = fdnn_conv_is_zero_workspace_fallback(p->dir, algo);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_lowp_algo_check(const fdnn_conv_problem_t *p, int algo, size_t *workspace_bytes)
{
    lowp_plan_t pl;
    RETURN_IF_ERROR(plan(p, algo, &pl));
    if (fdnn_conv_bf16_applies(p, algo)) {
        *workspace_bytes = 0; /* the native path: scratch in the handle */
        return CUDNN_STATUS_SUCCESS;
    }
    if (pl.fallback) {
        *workspace_bytes = pl.solver_ws;
        return CUDNN_STATUS_SUCCESS;
    }
    if (!fdnn_ckd_add_size(pl.stage_total, pl.solver_ws, workspace_bytes))
        return FDNN_NOT_SUPPORTED("the workspace of algorithm %d with its FP32 staging buffers overflows size_t",
                                  algo);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- conversions, one loop per type so that they vectorise ---- */

/* HALF -> FP32 without branches: the 15 bits of exponent and mantissa
 * shifted into a float's place and scaled by 2^112 (exact, subnormals
 * included), Inf/NaN given the float's all-ones exponent.  Same values as
 * fdnn_f16_to_f32. */
static inline float
half_to_f32(uint16_t h)
{
    uint32_t em = h & 0x7fffu;
    uint32_t b = fdnn_f32_bits(fdnn_f32_from_bits(em << 13) * 0x1p112f);
    b = em >= 0x7c00u ? b | 0x7f800000u : b;
    return fdnn_f32_from_bits(b | ((uint32_t)(h & 0x8000u) << 16));
}

/* v rounded to BF16 precision (nearest even), as an FP32 value; NaN kept
 * (quiet).  Same values as fdnn_bf16_to_f32(fdnn_f32_to_bf16(v)). */
static inline float
round_to_bf16(float v)
{
    uint32_t u = fdnn_f32_bits(v);
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    r = (u & 0x7fffffffu) > 0x7f800000u ? (u | 0x400000u) & 0xffff0000u : r;
    return fdnn_f32_from_bits(r);
}

static float
load_f32(const void *src, cudnnDataType_t dtype, size_t i)
{
    switch (dtype) {
    case CUDNN_DATA_HALF: return half_to_f32(((const uint16_t *)src)[i]);
    case CUDNN_DATA_BFLOAT16: return fdnn_bf16_to_f32(((const uint16_t *)src)[i]);
    default: return ((const float *)src)[i];
    }
}

/* dst[j] = src[(o + j*stride)] as FP32, j < len (unit-stride 16-bit rows
 * with the vector row converters of `isa`). */
static void
load_row(fdnn_isa_t isa, float *dst, const void *src, cudnnDataType_t dtype, int64_t o, int64_t stride, int64_t len)
{
    const uint16_t *s16 = (const uint16_t *)src + o;
    if (stride == 1 && dtype != CUDNN_DATA_FLOAT)
        fdnn_convert_row(isa, dtype, s16, CUDNN_DATA_FLOAT, dst, (size_t)len);
    else if (dtype == CUDNN_DATA_HALF)
        for (int64_t j = 0; j < len; j++)
            dst[j] = half_to_f32(s16[j * stride]);
    else if (dtype == CUDNN_DATA_BFLOAT16)
        for (int64_t j = 0; j < len; j++)
            dst[j] = fdnn_bf16_to_f32(s16[j * stride]);
    else
        for (int64_t j = 0; j < len; j++)
            dst[j] = ((const float *)src)[o + j * stride];
}

/* dst[(o + j*stride)] = src[j] rounded to the type (nearest even). */
static void
store_row(fdnn_isa_t isa, void *dst, cudnnDataType_t dtype, int64_t o, int64_t stride, const float *src, int64_t len)
{
    uint16_t *d16 = (uint16_t *)dst + o;
    if (stride == 1)
        fdnn_convert_row(isa, CUDNN_DATA_FLOAT, src, dtype, d16, (size_t)len);
    else if (dtype == CUDNN_DATA_HALF)
        for (int64_t j = 0; j < len; j++)
            d16[j * stride] = fdnn_f32_to_f16(src[j]);
    else
        for (int64_t j = 0; j < len; j++)
            d16[j * stride] = fdnn_f32_to_bf16(src[j]);
}

/* ---- staging: dtype -> FP32, optionally rounded to BF16 precision ---- */

typedef struct stage_ctx {
    fdnn_isa_t isa;
    float *dst;
    const void *src;
    cudnnDataType_t dtype;
    bool round_bf16;
} stage_ctx_t;

static void
stage_tile(void *ctx, size_t start, size_t len)
{
    const stage_ctx_t *c = ctx;
    float *d = c->dst + start;
    load_row(c->isa, d, c->src, c->dtype, (int64_t)start, 1, (int64_t)len);
    if (c->round_bf16)
        for (size_t i = 0; i < len; i++)
            d[i] = round_to_bf16(d[i]);
}

/* The whole span of the operand, gaps included (they are inside the user's
 * buffer and never read by the solver), so the copy keeps its strides. */
static void
stage_operand(fdnn_isa_t isa, fdnn_pool_t pool, float *dst, const fdnn_tensor_t *t, const void *src, bool round_bf16)
{
    stage_ctx_t c = {isa, dst, src, t->dtype, round_bf16};
    size_t count = (size_t)fdnn_tensor_span(t);
    if (count == 0)
        return;
    fdnn_parallelize_1d_tile_1d(count > LOWP_TILE ? pool : NULL, stage_tile, &c, count, LOWP_TILE, 0);
}

/* ---- the write pass: blend, bias, ReLU, round to the storage type ---- */

typedef struct write_ctx {
    fdnn_isa_t isa;
    const fdnn_tensor_t *t; /* the written operand (5-D view) */
    const float *sum;       /* the raw FP32 convolution, same strides */
    void *out;
    float alpha, beta;
    const void *bias; /* K packed values of t->dtype (forward only), or NULL */
    bool relu;
    bool true_half; /* TRUE_HALF_CONFIG: each blend step rounded to half */
} write_ctx_t;

static float
round_to_half(float v)
{
    return half_to_f32(fdnn_f32_to_f16(v));
}

/* TRUE_HALF_CONFIG's blend: the FP32-accumulated sum rounded to half, then
 * each step of alpha*s + beta*y + bias in half arithmetic (FP32 operation,
 * result rounded to half), as a half ALU would. */
static float
blend_true_half(float s, float alpha, float beta, float old, const float *bias, bool relu)
{
    float v = round_to_half(alpha * round_to_half(s));
    if (beta != 0)
        v = round_to_half(v + round_to_half(beta * old));
    if (bias != NULL)
        v = round_to_half(v + *bias);
    if (relu && !(v > 0))
        v = v != v ? v : 0;
    return v;
}

#define WRITE_CHUNK 256

/* One (n, c) plane of the output, W rows in chunks. */
static void
write_plane(void *ctx, size_t nc)
{
    const write_ctx_t *c = ctx;
    const fdnn_tensor_t *t = c->t;
    int64_t n = (int64_t)nc / t->dims[1], ch = (int64_t)nc % t->dims[1];
    float b = 0;
    if (c->bias != NULL)
        b = load_f32(c->bias, t->dtype, (size_t)ch);
    const float *bp = c->bias != NULL ? &b : NULL;
    int64_t sw = t->strides[4];
    float old[WRITE_CHUNK], v[WRITE_CHUNK];
    for (int64_t d = 0; d < t->dims[2]; d++)
        for (int64_t h = 0; h < t->dims[3]; h++)
            for (int64_t w0 = 0; w0 < t->dims[4]; w0 += WRITE_CHUNK) {
                int64_t len = t->dims[4] - w0 < WRITE_CHUNK ? t->dims[4] - w0 : WRITE_CHUNK;
                int64_t o = fdnn_conv_off5(t, n, ch, d, h, w0);
                if (c->beta != 0)
                    load_row(c->isa, old, c->out, t->dtype, o, sw, len);
                const float *sum = c->sum + o;
                /* alpha 1, beta 0, no bias, no ReLU: the raw sums are the
                 * result, converted straight from the FP32 buffer */
                bool raw = !c->true_half && sw == 1 && c->alpha == 1 && c->beta == 0 && bp == NULL && !c->relu;
                if (c->true_half)
                    for (int64_t j = 0; j < len; j++)
                        v[j] = blend_true_half(sum[j * sw], c->alpha, c->beta, old[j], bp, c->relu);
                else if (!raw)
                    for (int64_t j = 0; j < len; j++)
                        v[j] = fdnn_conv_epilogue_f32(sum[j * sw], c->alpha, c->beta, &old[j], bp, c->relu);
                store_row(c->isa, c->out, t->dtype, o, sw, raw ? sum : v, len);
            }
}

/* Forward problems of several images with a staged (HALF or BFLOAT16)
 * output run in chunks of images: each chunk's input is staged, the FP32
 * solver runs on the chunk and its output is written, so the FP32 copies
 * of x and y stay in the cache instead of making whole-tensor passes
 * through memory (ResNet-50's stem at mb=32 stages 100 MB of FP32 output
 * otherwise); the filter is staged once.  Images per chunk: as many as
 * keep a chunk's FP32 x and y within CHUNK_BYTES, from the shape only (the
 * same for every thread count).  0 (whole batch) when the chunked problem
 * is not one the algorithm takes with the workspace already planned. */
#define CHUNK_BYTES ((size_t)2 << 20)

static int64_t
fwd_chunk(const fdnn_conv_problem_t *p, int algo, const lowp_plan_t *pl, fdnn_conv_problem_t *sub)
{
    if (p->dir != FDNN_CONV_FWD || !out_staged(p) || p->n < 2 || pl->stage[0] == 0 || pl->stage[2] == 0)
        return 0;
    if (p->x.strides[0] <= 0 || p->y.strides[0] <= 0)
        return 0;
    /* The fused Winograd transforms the whole filter in every call: once
     * per chunk cost ResNet-50's res5 3x3 at mb=32 2.7x the FP32 time (one
     * call on the whole staged batch costs the staging passes only) */
    if (algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD)
        return 0;
    double per_image = ((double)p->x.strides[0] + (double)p->y.strides[0]) * sizeof(float);
    int64_t chunk = per_image >= (double)CHUNK_BYTES ? 1 : (int64_t)((double)CHUNK_BYTES / per_image);
    if (chunk >= p->n)
        return 0;
    *sub = pl->shadow;
    sub->n = chunk;
    sub->x.dims[0] = sub->y.dims[0] = chunk;
    size_t ws = 0;
    if (fdnn_conv_algo_check(sub, algo, &ws) != CUDNN_STATUS_SUCCESS || ws > pl->solver_ws)
        return 0;
    return chunk;
}

/* The chunked forward run (see fwd_chunk): buf[1] holds the staged filter;
 * buf[0] and buf[2] (each at least one chunk's span) take each chunk's x
 * and raw FP32 output. */
static cudnnStatus_t
run_chunks(const fdnn_conv_exec_t *e, int algo, fdnn_conv_exec_t *run, fdnn_conv_problem_t *sub, int64_t chunk,
           float *const buf[3], fdnn_isa_t isa, fdnn_pool_t pool, bool round)
{
    const fdnn_conv_problem_t *p = e->p;
    size_t xes = fdnn_dtype_size(p->x.dtype), yes = fdnn_dtype_size(p->y.dtype);
    for (int64_t n0 = 0; n0 < p->n; n0 += chunk) {
        int64_t cn = p->n - n0 < chunk ? p->n - n0 : chunk;
        sub->n = cn;
        sub->x.dims[0] = sub->y.dims[0] = cn;
        fdnn_tensor_t xt = p->x, yt = p->y;
        xt.dims[0] = yt.dims[0] = cn;
        const char *xu = (const char *)e->x_in + (size_t)(n0 * p->x.strides[0]) * xes;
        char *yu = (char *)e->out + (size_t)(n0 * p->y.strides[0]) * yes;
        stage_operand(isa, pool, buf[0], &xt, xu, round);
        run->p = sub;
        run->x_in = buf[0];
        run->w_in = buf[1];
        run->y_in = run->out = buf[2];
        run->alpha = 1;
        run->beta = 0;
        run->bias = NULL;
        run->relu = false;
        RETURN_IF_ERROR(fdnn_conv_run(run, algo));
        write_ctx_t w = {
            .isa = isa,
            .t = &yt,
            .sum = buf[2],
            .out = yu,
            .alpha = (float)e->alpha,
            .beta = (float)e->beta,
            .bias = e->bias,
            .relu = e->relu,
            .true_half = p->config == FDNN_CONV_CFG_TRUE_HALF,
        };
        size_t planes = (size_t)(yt.dims[0] * yt.dims[1]);
        bool big = (size_t)fdnn_tensor_elements(&yt) > LOWP_TILE;
        fdnn_parallelize_1d(big ? pool : NULL, write_plane, &w, planes, 0);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Whether DIRECT runs p (HALF / BFLOAT16 storage, FP32 math without
 * rounding to BF16 or half steps) with the blocked solver converting in
 * its reorders: what the DIRECT solver would do with the FP32 shadow
 * (conv_direct.c: depthwise first, then the blocked path). */
static bool
direct_converts(const fdnn_conv_problem_t *p, int algo, const fdnn_conv_problem_t *shadow)
{
    if (algo != CUDNN_CONVOLUTION_FWD_ALGO_DIRECT || p->config == FDNN_CONV_CFG_TRUE_HALF ||
        fdnn_conv_lowp_rounds_to_bf16(p))
        return false;
    return fdnn_conv_direct_blocked_converts(p) && fdnn_conv_direct_blocked_applies(shadow) &&
           !fdnn_conv_depthwise_applies(shadow);
}

/* Whether the fused WINOGRAD forward or backward data runs p on the user's
 * half tensors (conv_winograd_fused.c: the gather converts the input, the
 * output is blended and rounded as it is stored): HALF x, w and y with FP32
 * math, no rounding to BF16, no half-precision blend steps (TRUE_HALF). */
static bool
winograd_converts(const fdnn_conv_problem_t *p, int algo)
{
    bool wino = p->dir == FDNN_CONV_FWD ? algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD
                                        : p->dir == FDNN_CONV_BWD_DATA &&
                                              algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD;
    return wino && p->config == FDNN_CONV_CFG_PSEUDO_HALF && !fdnn_conv_lowp_rounds_to_bf16(p) &&
           p->x.dtype == CUDNN_DATA_HALF && p->w.dtype == CUDNN_DATA_HALF && p->y.dtype == CUDNN_DATA_HALF;
}

/* The multiply-adds below which the direct path stays on the calling
 * thread (fdnn_conv_run's SMALL_MACS; the results do not depend on it). */
#define DIRECT_POOL_MACS (1 << 20)

cudnnStatus_t
fdnn_conv_lowp_run(const fdnn_conv_exec_t *e, int algo)
{
    const fdnn_conv_problem_t *p = e->p;
    lowp_plan_t pl;
    RETURN_IF_ERROR(plan(p, algo, &pl));
    if (fdnn_conv_bf16_applies(p, algo) && e->handle != NULL)
        return fdnn_conv_bf16_run(e);
    size_t need = pl.solver_ws;
    if (!pl.fallback && !fdnn_ckd_add_size(pl.stage_total, pl.solver_ws, &need))
        return FDNN_NOT_SUPPORTED("the workspace of algorithm %d with its FP32 staging buffers overflows size_t",
                                  algo);
    if (e->workspace_bytes < need)
        return FDNN_BAD_PARAM("workSpaceSizeInBytes is %zu, algorithm %d needs %zu", e->workspace_bytes, algo, need);
    if (need > 0 && e->workspace == NULL)
        return FDNN_BAD_PARAM("workSpace is NULL (workSpaceSizeInBytes %zu), algorithm %d needs %zu",
                              e->workspace_bytes, algo, need);
    /* PSEUDO_HALF 1x1 forward, and the GEMM algorithms where the filter
     * outweighs the image: no staging (conv_lowp_1x1.c) */
    if (fdnn_conv_lowp_1x1_applies(p) || fdnn_conv_lowp_im2col_applies(p, algo))
        return fdnn_conv_lowp_1x1_run(e);
    /* DIRECT forward on the blocked kernels: the conversions in its own
     * reorders and tile stores, no staging */
    if (direct_converts(p, algo, &pl.shadow) && e->handle != NULL) {
        fdnn_conv_exec_t run = *e;
        run.pool = fdnn_conv_macs(p) < DIRECT_POOL_MACS ? NULL : fdnn_handle_pool(e->handle);
        if (fdnn_conv_direct_blocked_execute(&run) == CUDNN_STATUS_SUCCESS)
            return CUDNN_STATUS_SUCCESS;
        fdnn_fail_clear(); /* out of scratch: the staged path below */
    }
    /* Fused WINOGRAD forward / backward data: converted in its gather and
     * its stores, no staging; its workspace (the transformed filter,
     * per-slot scratch) is the FP32 solver's, within the `need` checked
     * above */
    if (winograd_converts(p, algo) && e->handle != NULL) {
        fdnn_conv_exec_t run = *e;
        run.pool = fdnn_conv_macs(p) < DIRECT_POOL_MACS ? NULL : fdnn_handle_pool(e->handle);
        return fdnn_conv_winograd_fused_execute_f16(&run, &pl.shadow);
    }

    fdnn_conv_exec_t run = *e;
    run.p = &pl.shadow;
    char *stage = NULL, *own = NULL;
    /* A zero-workspace fallback given a workspace large enough anyway
     * stages there; otherwise in the handle's staging buffer (kept from
     * call to call, apart from the scratch the FP32 solver takes), or,
     * without a handle, in memory allocated for the call. */
    if (pl.fallback && (e->workspace == NULL || e->workspace_bytes < pl.stage_total)) {
        if (pl.stage_total > 0 && e->handle != NULL) {
            if ((stage = fdnn_handle_stage(e->handle, pl.stage_total)) == NULL)
                return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_stage */
        } else if (pl.stage_total > 0) {
            if ((own = fdnn_aligned_alloc(pl.stage_total)) == NULL)
                return FDNN_ALLOC_FAILED("cannot allocate the %zu bytes of FP32 staging buffers", pl.stage_total);
            stage = own;
        }
    } else {
        stage = e->workspace;
        run.workspace = pl.solver_ws > 0 ? stage + pl.stage_total : NULL;
        run.workspace_bytes = e->workspace_bytes - pl.stage_total;
    }
    /* (The staging buffers and the solver's part lie at multiples of 64
     * bytes from the workspace's start: they keep its alignment.) */
    fdnn_pool_t pool = e->handle != NULL ? fdnn_handle_pool(e->handle) : NULL;
    fdnn_isa_t isa = e->handle != NULL ? e->handle->isa : fdnn_cpu_max_isa();
    bool round = fdnn_conv_lowp_rounds_to_bf16(p);
    const void *user[3] = {e->x_in, e->w_in, e->y_in};
    float *buf[3] = {NULL, NULL, NULL};
    size_t off = 0;
    int oi = out_index(p->dir);
    fdnn_conv_problem_t sub;
    int64_t chunk = fwd_chunk(p, algo, &pl, &sub);
    for (int i = 0; i < 3; i++) {
        if (pl.stage[i] > 0)
            buf[i] = (float *)(stage + off);
        off += pl.stage[i];
        if (i != oi && !(chunk > 0 && i == 0))
            stage_operand(isa, pool, buf[i], operand(p, i), user[i], round);
    }
    if (chunk > 0) {
        cudnnStatus_t st = run_chunks(e, algo, &run, &sub, chunk, buf, isa, pool, round);
        fdnn_aligned_free(own);
        return st;
    }
    bool staged_out = out_staged(p);
    void *out_f32 = staged_out ? (void *)buf[oi] : e->out;
    run.x_in = oi == 0 ? out_f32 : buf[0];
    run.w_in = oi == 1 ? out_f32 : buf[1];
    run.y_in = oi == 2 ? out_f32 : buf[2];
    run.out = out_f32;
    if (staged_out) {
        /* The raw sum: the blend is done on write, in FP32. */
        run.alpha = 1;
        run.beta = 0;
        run.bias = NULL;
        run.relu = false;
    }
    cudnnStatus_t st = fdnn_conv_run(&run, algo);
    if (st == CUDNN_STATUS_SUCCESS && staged_out) {
        const fdnn_tensor_t *t = operand(p, oi);
        write_ctx_t w = {
            .isa = isa,
            .t = t,
            .sum = buf[oi],
            .out = e->out,
            .alpha = (float)e->alpha,
            .beta = (float)e->beta,
            .bias = e->bias,
            .relu = e->relu,
            .true_half = p->config == FDNN_CONV_CFG_TRUE_HALF,
        };
        size_t planes = (size_t)(t->dims[0] * t->dims[1]);
        bool big = (size_t)fdnn_tensor_elements(t) > LOWP_TILE;
        fdnn_parallelize_1d(big ? pool : NULL, write_plane, &w, planes, 0);
    }
    fdnn_aligned_free(own);
    return st;
}

/* ---- backward bias ---- */

cudnnStatus_t
fdnn_conv_lowp_bwd_bias(fdnn_pool_t pool, const fdnn_tensor_t *dy, const void *dy_data, double alpha, double beta,
                        void *db, int64_t db_stride)
{
    size_t bytes = 0, kbytes = 0;
    int64_t k = dy->dims[1];
    if (!fdnn_ckd_bytes(fdnn_tensor_span(dy), sizeof(float), &bytes) || !fdnn_ckd_bytes(k, sizeof(float), &kbytes))
        return FDNN_BAD_PARAM("dyDesc spans more bytes than size_t holds");
    float *dyf = fdnn_aligned_alloc(bytes > 0 ? bytes : 1);
    float *dbf = fdnn_aligned_alloc(kbytes > 0 ? kbytes : 1);
    if (dyf == NULL || dbf == NULL) {
        fdnn_aligned_free(dyf);
        fdnn_aligned_free(dbf);
        return FDNN_ALLOC_FAILED("cannot allocate the FP32 copies of dy and db (%zu bytes)", bytes + kbytes);
    }
    fdnn_isa_t isa = fdnn_cpu_max_isa();
    stage_operand(isa, pool, dyf, dy, dy_data, false);
    for (int64_t c = 0; c < k; c++)
        dbf[c] = beta != 0 ? load_f32(db, dy->dtype, (size_t)(c * db_stride)) : 0.0f;
    fdnn_tensor_t t = *dy;
    t.dtype = CUDNN_DATA_FLOAT;
    fdnn_conv_bwd_bias(pool, &t, dyf, alpha, beta, dbf, 1);
    store_row(isa, db, dy->dtype, 0, db_stride, dbf, k);
    fdnn_aligned_free(dyf);
    fdnn_aligned_free(dbf);
    return CUDNN_STATUS_SUCCESS;
}
