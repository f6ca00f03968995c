/* SPDX-License-Identifier: Apache-2.0
 * The handle's thread pool (core/pool.h): every item of every step shape
 * runs exactly once, with tiles cut right at the edges, for pools of 1..6
 * threads (more than this machine's CPUs too), over many back-to-back steps
 * (workers that join a step late must find nothing left to do), and after
 * the workers were parked or let sleep. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/pool.h"
#include "testutil.h"

#define RI 37
#define RJ 23

static _Atomic int hits[RI][RJ];

static void
clear(void)
{
    for (int i = 0; i < RI; i++)
        for (int j = 0; j < RJ; j++)
            atomic_store(&hits[i][j], 0);
}

/* Every cell in ri x rj hit once, nothing else. */
static void
check_once(const char *what, size_t threads, size_t ri, size_t rj)
{
    int bad = 0;
    for (size_t i = 0; i < RI; i++)
        for (size_t j = 0; j < RJ; j++)
            bad += atomic_load(&hits[i][j]) != (i < ri && j < rj ? 1 : 0);
    CHECK_MSG(bad == 0, "%s, %zu threads, %zux%zu: %d cells not run exactly once", what, threads, ri, rj, bad);
}

static void
t1(void *ctx, size_t i)
{
    (void)ctx;
    atomic_fetch_add(&hits[i][0], 1);
}

static void
t1t1(void *ctx, size_t i, size_t n)
{
    size_t tile = *(size_t *)ctx;
    CHECK(i % tile == 0 && n >= 1 && n <= tile);
    for (size_t k = i; k < i + n; k++)
        atomic_fetch_add(&hits[k][0], 1);
}

static void
t2(void *ctx, size_t i, size_t j)
{
    (void)ctx;
    atomic_fetch_add(&hits[i][j], 1);
}

static void
t2t1(void *ctx, size_t i, size_t j, size_t nj)
{
    size_t tile = *(size_t *)ctx;
    CHECK(j % tile == 0 && nj >= 1 && nj <= tile);
    for (size_t k = j; k < j + nj; k++)
        atomic_fetch_add(&hits[i][k], 1);
}

static void
t2t2(void *ctx, size_t i, size_t j, size_t ni, size_t nj)
{
    const size_t *tiles = ctx;
    CHECK(i % tiles[0] == 0 && j % tiles[1] == 0 && ni >= 1 && ni <= tiles[0] && nj >= 1 && nj <= tiles[1]);
    for (size_t a = i; a < i + ni; a++)
        for (size_t b = j; b < j + nj; b++)
            atomic_fetch_add(&hits[a][b], 1);
}

static void
shapes(fdnn_pool_t pool, size_t threads)
{
    size_t tile = 5, tiles2[2] = {4, 6};
    for (size_t r = 0; r <= RI; r += 9) {
        clear();
        fdnn_parallelize_1d(pool, t1, NULL, r, 0);
        check_once("1d", threads, r, r ? 1 : 0);
        clear();
        fdnn_parallelize_1d_tile_1d(pool, t1t1, &tile, r, tile, 0);
        check_once("1d tile 1d", threads, r, r ? 1 : 0);
    }
    clear();
    fdnn_parallelize_2d(pool, t2, NULL, RI, RJ, 0);
    check_once("2d", threads, RI, RJ);
    clear();
    fdnn_parallelize_2d_tile_1d(pool, t2t1, &tile, RI, RJ, tile, 0);
    check_once("2d tile 1d", threads, RI, RJ);
    clear();
    fdnn_parallelize_2d_tile_2d(pool, t2t2, tiles2, RI, RJ, tiles2[0], tiles2[1], 0);
    check_once("2d tile 2d", threads, RI, RJ);
    clear();
    fdnn_parallelize_2d(pool, t2, NULL, 1, 1, 0);
    check_once("2d 1x1", threads, 1, 1);
}

/* Many small steps back to back: a sum over each step's items. */
static _Atomic long total;
static void
add_item(void *ctx, size_t i)
{
    (void)ctx;
    atomic_fetch_add(&total, (long)i + 1);
}

static void
sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

int
main(void)
{
    CHECK(fdnn_pool_create(1) == NULL);
    CHECK(fdnn_pool_threads(NULL) == 1);
    shapes(NULL, 1);
    for (size_t threads = 2; threads <= 6; threads++) {
        fdnn_pool_t pool = fdnn_pool_create(threads);
        CHECK_MSG(pool != NULL, "no pool of %zu threads", threads);
        if (pool == NULL)
            continue;
        CHECK(fdnn_pool_threads(pool) == threads);
        shapes(pool, threads);
        for (int step = 0; step < 3000; step++) {
            size_t n = (size_t)(step % 7) + 1;
            atomic_store(&total, 0);
            fdnn_parallelize_1d(pool, add_item, NULL, n, 0);
            long want = (long)(n * (n + 1) / 2);
            if (atomic_load(&total) != want) {
                CHECK_MSG(0, "%zu threads, step %d: sum %ld, expected %ld", threads, step, atomic_load(&total), want);
                break;
            }
        }
        /* Workers asleep: after parking, and after the linger time. */
        fdnn_pool_park(pool);
        sleep_ms(5);
        shapes(pool, threads);
        fdnn_pool_set_linger(pool, 0);
        sleep_ms(5);
        shapes(pool, threads);
        fdnn_pool_destroy(pool);
    }
    fdnn_pool_destroy(NULL);
    return fdnn_test_finish("test_pool");
}
