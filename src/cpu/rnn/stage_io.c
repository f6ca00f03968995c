/* SPDX-License-Identifier: Apache-2.0
 * The pooled forms of the staging conversions (stage_io.h): the buffer is
 * cut into fixed tiles, one task each; every element is converted on its
 * own, so the result does not depend on the thread count. */
#include "cpu/rnn/stage_io.h"

#define STAGE_TILE 16384

typedef struct stage_job {
    cudnnDataType_t dt;
    const void *in;
    void *out;
} stage_job_t;

static void
load_tile(void *arg, size_t i, size_t n)
{
    const stage_job_t *j = arg;
    fdnn_stage_load(j->dt, (const uint16_t *)j->in + i, (int64_t)n, (float *)j->out + i);
}

static void
store_tile(void *arg, size_t i, size_t n)
{
    const stage_job_t *j = arg;
    fdnn_stage_store(j->dt, (const float *)j->in + i, (int64_t)n, (uint16_t *)j->out + i);
}

static void
round_tile(void *arg, size_t i, size_t n)
{
    const stage_job_t *j = arg;
    fdnn_stage_round_f16((float *)j->out + i, (int64_t)n);
}

void
fdnn_stage_load_pool(fdnn_pool_t pool, cudnnDataType_t dt, const void *src, int64_t n, float *dst)
{
    if (src == NULL || n <= 0)
        return;
    stage_job_t j = {dt, src, dst};
    fdnn_parallelize_1d_tile_1d(pool, load_tile, &j, (size_t)n, STAGE_TILE, 0);
}

void
fdnn_stage_store_pool(fdnn_pool_t pool, cudnnDataType_t dt, const float *src, int64_t n, void *user)
{
    if (user == NULL || n <= 0)
        return;
    stage_job_t j = {dt, src, user};
    fdnn_parallelize_1d_tile_1d(pool, store_tile, &j, (size_t)n, STAGE_TILE, 0);
}

void
fdnn_stage_round_f16_pool(fdnn_pool_t pool, float *v, int64_t n)
{
    if (v == NULL || n <= 0)
        return;
    stage_job_t j = {CUDNN_DATA_HALF, NULL, v};
    fdnn_parallelize_1d_tile_1d(pool, round_tile, &j, (size_t)n, STAGE_TILE, 0);
}
