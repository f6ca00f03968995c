/* SPDX-License-Identifier: Apache-2.0
 * The thread pool of a handle: the calling thread plus threads-1 workers
 * that run the items of one parallel step at a time.
 *
 * The call shapes follow pthreadpool's (a task function, its context, the
 * ranges, tiles and a flags word), which this pool replaced, so kernels read
 * the same.  Why our own: pthreadpool waits by spinning a million `pause`
 * instructions, both in the workers and in the caller waiting for the last
 * worker; with more threads than usable CPUs (a CPU quota, `taskset`, a busy
 * machine) a spinner holds the core that the thread it waits for needs, and
 * a GEMM of hundreds of small steps turned milliseconds into seconds.
 *
 * Here every wait backs off: a short spin (the common case: the other side
 * answers within microseconds), then a yield (hands the core to a thread
 * that wants it, returns at once when none does), then a sleep on the word
 * (futex, WaitOnAddress: core/os.h).
 * Items are claimed in chunks from a shared counter, so a worker that is not
 * running holds no work back: the threads that run take it, and the caller
 * waits only for chunks already started.  Which thread runs an item never
 * changes what it computes (results do not depend on the thread count).
 *
 * A NULL pool runs everything on the calling thread.  Steps on one pool are
 * serialised by a mutex; a task must not start a step on its own pool.
 *
 * An item must never wait for another item of its step (a barrier between
 * items, or spinning on a flag another item sets): nothing guarantees that
 * the items run at the same time.  The caller may run every item alone
 * while a worker is still waking up, and a worker may claim its first item
 * after the others have finished, so such a wait can hang (rnn2t's split
 * time loop, session 5, deadlocked on a barrier this way).  Work that needs
 * several phases is several steps. */
#ifndef FDNN_CORE_POOL_H
#define FDNN_CORE_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct fdnn_pool *fdnn_pool_t;

typedef void (*fdnn_task_1d_t)(void *ctx, size_t i);
typedef void (*fdnn_task_1d_tile_1d_t)(void *ctx, size_t i, size_t ti);
typedef void (*fdnn_task_2d_t)(void *ctx, size_t i, size_t j);
typedef void (*fdnn_task_2d_tile_1d_t)(void *ctx, size_t i, size_t j, size_t tj);
typedef void (*fdnn_task_2d_tile_2d_t)(void *ctx, size_t i, size_t j, size_t ti, size_t tj);

/* A pool of `threads` threads, the caller included (threads-1 are started);
 * NULL when threads < 2 or a thread cannot be started. */
fdnn_pool_t fdnn_pool_create(size_t threads);

/* Stops and joins the workers.  NULL is fine. */
void fdnn_pool_destroy(fdnn_pool_t pool);

/* Threads of the pool, the caller included (1 for NULL). */
size_t fdnn_pool_threads(fdnn_pool_t pool);

/* How long idle workers keep looking for the next step (spinning, then
 * yielding) before they sleep, in microseconds. */
void fdnn_pool_set_linger(fdnn_pool_t pool, uint32_t linger_us);

/* Puts idle workers to sleep now instead of after the linger time. */
void fdnn_pool_park(fdnn_pool_t pool);

/* The parallel steps: f(ctx, i) for i < range; the tiled forms pass the
 * start of each tile and its size (the last one may be short).  `flags` is
 * accepted for pthreadpool's call shape and ignored. */
void fdnn_parallelize_1d(fdnn_pool_t pool, fdnn_task_1d_t f, void *ctx, size_t range, uint32_t flags);
void fdnn_parallelize_1d_tile_1d(fdnn_pool_t pool, fdnn_task_1d_tile_1d_t f, void *ctx, size_t range, size_t tile,
                                 uint32_t flags);
void fdnn_parallelize_2d(fdnn_pool_t pool, fdnn_task_2d_t f, void *ctx, size_t range_i, size_t range_j,
                         uint32_t flags);
void fdnn_parallelize_2d_tile_1d(fdnn_pool_t pool, fdnn_task_2d_tile_1d_t f, void *ctx, size_t range_i,
                                 size_t range_j, size_t tile_j, uint32_t flags);
void fdnn_parallelize_2d_tile_2d(fdnn_pool_t pool, fdnn_task_2d_tile_2d_t f, void *ctx, size_t range_i,
                                 size_t range_j, size_t tile_i, size_t tile_j, uint32_t flags);

#endif /* FDNN_CORE_POOL_H */
