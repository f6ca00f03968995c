/* SPDX-License-Identifier: Apache-2.0
 * Dropout forward and backward.  See dropout.h. */
#include "cpu/dropout/dropout.h"

#include <string.h>

#include "cpu/dropout/philox.h"
#include "cpu/simd/cvt.h"

/* Elements per parallel block: 64 mask words. */
#define DROPOUT_BLOCK 2048

size_t
fdnn_dropout_reserve_bytes(int64_t n)
{
    return (size_t)((n + 31) / 32) * 4;
}

/* Walks a tensor in packed NCHW order from element i0 on. */
typedef struct cursor {
    const fdnn_tensor_t *t;
    int64_t idx[CUDNN_DIM_MAX];
    int64_t off;
} cursor_t;

static void
cursor_init(cursor_t *c, const fdnn_tensor_t *t, int64_t i)
{
    c->t = t;
    c->off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        c->idx[d] = i % t->dims[d];
        i /= t->dims[d];
        c->off += c->idx[d] * t->strides[d];
    }
}

static void
cursor_next(cursor_t *c)
{
    const fdnn_tensor_t *t = c->t;
    for (int d = t->ndim - 1; d >= 0; d--) {
        c->off += t->strides[d];
        if (++c->idx[d] < t->dims[d])
            return;
        c->off -= c->idx[d] * t->strides[d];
        c->idx[d] = 0;
    }
}

static double
load(const void *base, cudnnDataType_t dt, int64_t off)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: return ((const double *)base)[off];
    case CUDNN_DATA_HALF: return fdnn_f16_to_f32(((const uint16_t *)base)[off]);
    case CUDNN_DATA_BFLOAT16: return fdnn_bf16_to_f32(((const uint16_t *)base)[off]);
    default: return ((const float *)base)[off];
    }
}

static void
store(void *base, cudnnDataType_t dt, int64_t off, double v)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: ((double *)base)[off] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)base)[off] = fdnn_f32_to_f16((float)v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)base)[off] = fdnn_f32_to_bf16((float)v); break;
    default: ((float *)base)[off] = (float)v; break;
    }
}

typedef struct task {
    const fdnn_tensor_t *st, *dt;
    const void *src;
    void *dst;
    uint32_t *mask_out;
    const uint32_t *mask_in;
    uint64_t seed, call, threshold; /* keep when random >= threshold (2^32 drops all) */
    float p;
    double scale; /* 1 / (1 - p); 0 when p == 1 (everything dropped) */
    int64_t n;
} task_t;

static void
run_block(void *ctx, size_t block)
{
    const task_t *T = ctx;
    int64_t i0 = (int64_t)block * DROPOUT_BLOCK;
    int64_t i1 = i0 + DROPOUT_BLOCK < T->n ? i0 + DROPOUT_BLOCK : T->n;
    cursor_t s, d;
    cursor_init(&s, T->st, i0);
    cursor_init(&d, T->dt, i0);
    uint32_t word = 0;
    uint32_t r[4] = {0};
    for (int64_t i = i0; i < i1; i++) {
        int keep;
        if (T->mask_in != NULL) {
            keep = (T->mask_in[i >> 5] >> (i & 31)) & 1;
        } else {
            if ((i & 3) == 0 || i == i0) {
                uint64_t blk = (uint64_t)i >> 2;
                const uint32_t c[4] = {(uint32_t)blk, (uint32_t)(blk >> 32), (uint32_t)T->call,
                                       (uint32_t)(T->call >> 32)};
                const uint32_t k[2] = {(uint32_t)T->seed, (uint32_t)(T->seed >> 32)};
                fdnn_philox4x32_10(c, k, r);
            }
            keep = (uint64_t)r[i & 3] >= T->threshold;
            word |= (uint32_t)keep << (i & 31);
            if ((i & 31) == 31 || i == i1 - 1) {
                T->mask_out[i >> 5] = word;
                word = 0;
            }
        }
        /* A dropped element is 0 even when the input is Inf or NaN. */
        store(T->dst, T->dt->dtype, d.off, keep ? load(T->src, T->st->dtype, s.off) * T->scale : 0.0);
        cursor_next(&s);
        cursor_next(&d);
    }
}

static void
run(cudnnHandle_t handle, task_t *T)
{
    T->scale = T->threshold >= ((uint64_t)1 << 32) ? 0.0 : 1.0 / (1.0 - (double)T->p);
    size_t blocks = (size_t)((T->n + DROPOUT_BLOCK - 1) / DROPOUT_BLOCK);
    /* Small tensors stay on the calling thread (waking the pool costs more);
     * the result is the same. */
    if (blocks > 0)
        fdnn_parallelize_1d(blocks >= 8 ? fdnn_handle_pool(handle) : NULL, run_block, T, blocks, 0);
}

static uint64_t
threshold(float p)
{
    /* p * 2^32, exact for every float p in [0, 1] (at most 24 significant
     * bits shifted left by 32). */
    return (uint64_t)((double)p * 4294967296.0);
}

void
fdnn_dropout_forward(cudnnHandle_t handle, float p, uint64_t seed, uint64_t call, const fdnn_tensor_t *xt,
                     const void *x, const fdnn_tensor_t *yt, void *y, uint32_t *mask)
{
    task_t T = {.st = xt, .dt = yt, .src = x, .dst = y, .mask_out = mask, .seed = seed, .call = call,
                .threshold = threshold(p), .p = p, .n = fdnn_tensor_elements(xt)};
    run(handle, &T);
}

void
fdnn_dropout_backward(cudnnHandle_t handle, float p, const fdnn_tensor_t *dyt, const void *dy,
                      const fdnn_tensor_t *dxt, void *dx, const uint32_t *mask)
{
    task_t T = {.st = dyt, .dt = dxt, .src = dy, .dst = dx, .mask_in = mask, .threshold = threshold(p), .p = p,
                .n = fdnn_tensor_elements(dyt)};
    run(handle, &T);
}
