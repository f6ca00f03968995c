/* SPDX-License-Identifier: Apache-2.0
 * The pooled forms of the staging conversions (stage_io.h): the buffer is
 * cut into fixed tiles, one task each, and every tile goes through the
 * row converters of src/cpu/tensor/convert_row.h (vector paths, bitwise
 * the scalar conversions of cvt.h on every path), so the result depends
 * neither on the thread count nor on the ISA. */
#include "cpu/rnn/stage_io.h"

#include "cpu/tensor/convert_row.h"

#define STAGE_TILE 16384
#define STAGE_CHUNK 512 /* elements per stack buffer of the store and the rounding */

typedef struct stage_job {
    cudnnDataType_t dt;
    const void *in;
    void *out;
    fdnn_convert_row_fn widen, narrow; /* dt <-> FLOAT, on the best path of this CPU */
} stage_job_t;

static void
load_tile(void *arg, size_t i, size_t n)
{
    const stage_job_t *j = arg;
    j->widen((const uint16_t *)j->in + i, (float *)j->out + i, n);
}

/* user[i] = narrow(src[i]) where src[i] differs bitwise from widen(user[i])
 * (fdnn_stage_store), a chunk at a time: both conversions by the row
 * kernels, then a branch-free select. */
static void
store_tile(void *arg, size_t i, size_t n)
{
    const stage_job_t *j = arg;
    const float *src = (const float *)j->in + i;
    uint16_t *u = (uint16_t *)j->out + i;
    float wide[STAGE_CHUNK];
    uint16_t nar[STAGE_CHUNK];
    for (size_t c = 0; c < n; c += STAGE_CHUNK) {
        size_t len = n - c < STAGE_CHUNK ? n - c : STAGE_CHUNK;
        j->widen(u + c, wide, len);
        j->narrow(src + c, nar, len);
        for (size_t e = 0; e < len; e++)
            u[c + e] = fdnn_f32_bits(wide[e]) != fdnn_f32_bits(src[c + e]) ? nar[e] : u[c + e];
    }
}

static void
round_tile(void *arg, size_t i, size_t n)
{
    const stage_job_t *j = arg;
    float *v = (float *)j->out + i;
    uint16_t h[STAGE_CHUNK];
    for (size_t c = 0; c < n; c += STAGE_CHUNK) {
        size_t len = n - c < STAGE_CHUNK ? n - c : STAGE_CHUNK;
        j->narrow(v + c, h, len);
        j->widen(h, v + c, len);
    }
}

static stage_job_t
job(cudnnDataType_t dt, const void *in, void *out)
{
    fdnn_cvt_path_t path = fdnn_convert_row_path(fdnn_cpu_max_isa());
    return (stage_job_t){dt, in, out, fdnn_convert_row_kernel(path, dt, CUDNN_DATA_FLOAT),
                         fdnn_convert_row_kernel(path, CUDNN_DATA_FLOAT, dt)};
}

void
fdnn_stage_load_pool(fdnn_pool_t pool, cudnnDataType_t dt, const void *src, int64_t n, float *dst)
{
    if (src == NULL || n <= 0)
        return;
    stage_job_t j = job(dt, src, dst);
    fdnn_parallelize_1d_tile_1d(pool, load_tile, &j, (size_t)n, STAGE_TILE, 0);
}

void
fdnn_stage_store_pool(fdnn_pool_t pool, cudnnDataType_t dt, const float *src, int64_t n, void *user)
{
    if (user == NULL || n <= 0)
        return;
    stage_job_t j = job(dt, src, user);
    fdnn_parallelize_1d_tile_1d(pool, store_tile, &j, (size_t)n, STAGE_TILE, 0);
}

void
fdnn_stage_round_f16_pool(fdnn_pool_t pool, float *v, int64_t n)
{
    if (v == NULL || n <= 0)
        return;
    stage_job_t j = job(CUDNN_DATA_HALF, NULL, v);
    fdnn_parallelize_1d_tile_1d(pool, round_tile, &j, (size_t)n, STAGE_TILE, 0);
}

void
fdnn_stage_round_f16_row(float *v, int64_t n)
{
    stage_job_t j = job(CUDNN_DATA_HALF, NULL, v);
    if (n > 0)
        round_tile(&j, 0, (size_t)n);
}
