/* SPDX-License-Identifier: Apache-2.0
 * Scratch regions claimed per running pool task: a step of many tasks
 * whose scratch the workspace holds once per task keeps reusing the same
 * few regions, one per running thread, so they stay in the threads'
 * caches.  Users: the attention tasks (below, where it was measured) and
 * the Winograd backward filter's tile chunks (conv_winograd_bwd_filter43.c).
 *
 * The attention forward and backward run one pool task per (sequence, head), and the
 * workspace holds one scratch region per task (scores or dP block, GEMM
 * packing, the packed K_h^T).  Indexed by task, a call on one thread walks
 * through all of them (h8 e512 L128 n8: 64 regions, ~6 MiB), so every task
 * writes its scores and packs into lines that are no longer cached and
 * pays for fetching them first.  Instead a task claims a free region among
 * the first min(threads, tasks) at its start and frees it at its end, so
 * the same few regions stay in the threads' caches (128-step forward: the
 * task part 2.52 -> 2.34 ms, K_h^T packing 23% less).
 *
 * Why a claim and not the thread's index: the pool does not give one (a
 * task runs on whichever thread took it).  At most `threads` tasks of a
 * step run at once (each thread runs one at a time) and a task frees its
 * region before it returns, so with n = min(threads, tasks) regions one is
 * always free when a task claims: the claim never waits for another task.
 * What a task computes does not depend on which region it gets (it writes
 * every scratch element before reading it), so results stay the same for
 * any thread count.  More threads than FDNN_POOL_SLOTS_MAX: each task uses
 * its own region, as before (the workspace holds one per task either way). */
#ifndef FDNN_CORE_POOL_SLOTS_H
#define FDNN_CORE_POOL_SLOTS_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/pool.h"

#define FDNN_POOL_SLOTS_MAX 64

typedef struct fdnn_pool_slots {
    atomic_int busy[FDNN_POOL_SLOTS_MAX];
    int n; /* regions in use; 0: region = task index */
} fdnn_pool_slots_t;

static inline void
fdnn_pool_slots_init(fdnn_pool_slots_t *s, fdnn_pool_t pool, size_t tasks)
{
    size_t t = fdnn_pool_threads(pool);
    t = t < tasks ? t : tasks;
    s->n = t <= FDNN_POOL_SLOTS_MAX ? (int)t : 0;
    for (int i = 0; i < s->n; i++)
        atomic_init(&s->busy[i], 0);
}

/* The region of `task`: a free one of the n, now marked busy. */
static inline size_t
fdnn_pool_slot_claim(fdnn_pool_slots_t *s, size_t task)
{
    if (s->n == 0)
        return task;
    for (int i = 0;; i = i + 1 < s->n ? i + 1 : 0)
        if (atomic_load_explicit(&s->busy[i], memory_order_relaxed) == 0 &&
            atomic_exchange_explicit(&s->busy[i], 1, memory_order_acquire) == 0)
            return (size_t)i;
}

static inline void
fdnn_pool_slot_release(fdnn_pool_slots_t *s, size_t slot)
{
    if (s->n > 0)
        atomic_store_explicit(&s->busy[slot], 0, memory_order_release);
}

#endif /* FDNN_CORE_POOL_SLOTS_H */
