/* SPDX-License-Identifier: Apache-2.0
 * The storage boundary of the reduced-precision RNN and attention paths
 * (src/cpu/rnn/rnn_stage.c, src/cpu/attn/attn_stage.c): HALF and BFLOAT16
 * user buffers are widened into FP32 staging buffers before the FP32
 * kernels run, and the FP32 results are rounded (to nearest even, cvt.h)
 * back into the user's buffers after.
 *
 * The store changes only the elements the kernel changed: the staging
 * buffer of an output is first loaded from the user's buffer, so an
 * element the kernel left alone (padding rows, the steps other than currIdx,
 * rows past a sequence length) still holds the exact widened user value and
 * keeps its bits (NaN payloads included).  Outputs thus keep the FP32
 * kernels' contract of which elements are written, without restating it
 * here. */
#ifndef FDNN_CPU_RNN_STAGE_IO_H
#define FDNN_CPU_RNN_STAGE_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/pool.h"
#include "cpu/simd/cvt.h"
#include "cudnn.h"

/* True for the storage types staged through FP32. */
static inline bool
fdnn_stage_is_16(cudnnDataType_t dtype)
{
    return dtype == CUDNN_DATA_HALF || dtype == CUDNN_DATA_BFLOAT16;
}

static inline float
fdnn_stage_widen(cudnnDataType_t dtype, uint16_t v)
{
    return dtype == CUDNN_DATA_HALF ? fdnn_f16_to_f32(v) : fdnn_bf16_to_f32(v);
}

static inline uint16_t
fdnn_stage_narrow(cudnnDataType_t dtype, float v)
{
    return dtype == CUDNN_DATA_HALF ? fdnn_f32_to_f16(v) : fdnn_f32_to_bf16(v);
}

/* dst[i] = widen(src[i]) for n elements; src may be NULL (nothing done). */
static inline void
fdnn_stage_load(cudnnDataType_t dtype, const void *src, int64_t n, float *dst)
{
    if (src == NULL)
        return;
    const uint16_t *s = src;
    if (dtype == CUDNN_DATA_HALF)
        for (int64_t i = 0; i < n; i++)
            dst[i] = fdnn_f16_to_f32(s[i]);
    else
        for (int64_t i = 0; i < n; i++)
            dst[i] = fdnn_bf16_to_f32(s[i]);
}

/* user[i] = narrow(src[i]) where src[i] differs (bitwise) from widen(user[i]),
 * user[i] keeps its bits elsewhere; user may be NULL (nothing done). */
static inline void
fdnn_stage_store(cudnnDataType_t dtype, const float *src, int64_t n, void *user)
{
    if (user == NULL)
        return;
    /* Unchanged elements are rewritten with their own bits (a no-op): a
     * select instead of a branch lets the loop vectorize. */
    uint16_t *u = user;
    if (dtype == CUDNN_DATA_HALF)
        for (int64_t i = 0; i < n; i++) {
            uint16_t nw = fdnn_f32_to_f16(src[i]);
            u[i] = fdnn_f32_bits(fdnn_f16_to_f32(u[i])) != fdnn_f32_bits(src[i]) ? nw : u[i];
        }
    else
        for (int64_t i = 0; i < n; i++) {
            uint16_t nw = fdnn_f32_to_bf16(src[i]);
            u[i] = fdnn_f32_bits(fdnn_bf16_to_f32(u[i])) != fdnn_f32_bits(src[i]) ? nw : u[i];
        }
}

/* Rounds v[i] to half precision and back (HALF math precision), through
 * the row converters (stage_io.c). */
void fdnn_stage_round_f16_row(float *v, int64_t n);

static inline void
fdnn_stage_round_f16(float *v, int64_t n)
{
    fdnn_stage_round_f16_row(v, n);
}

/* The same over a thread pool (stage_io.c), for whole buffers; bitwise the
 * results of the serial forms. */
void fdnn_stage_load_pool(fdnn_pool_t pool, cudnnDataType_t dtype, const void *src, int64_t n, float *dst);
void fdnn_stage_store_pool(fdnn_pool_t pool, cudnnDataType_t dtype, const float *src, int64_t n, void *user);
void fdnn_stage_round_f16_pool(fdnn_pool_t pool, float *v, int64_t n);

#endif /* FDNN_CPU_RNN_STAGE_IO_H */
