/* SPDX-License-Identifier: Apache-2.0
 * The handle's thread pool.  See pool.h for the contract; the protocol:
 *
 * `state` counts steps: even = closed (no step to join), odd = open.  The
 * caller, holding `mu`, closes the previous step (state+1), waits until no
 * worker is `inside` it, writes the new `step`, resets the counters and
 * opens it (state+1).  A worker joins by incrementing `inside` and then
 * re-reading `state`: if it is still the open step it saw, the caller cannot
 * be rewriting `step` (both sides use sequentially consistent operations, so
 * either the worker sees the close or the caller sees the worker inside).
 * Everyone then claims chunks from `next` until they run out; the caller
 * returns when `done` counts every chunk.  A step stays open after its
 * caller returns, harmlessly: a late worker finds no chunk left.
 *
 * Waits back off in three stages (spin with `pause`, a yield, a sleep on
 * the word: a futex on Linux, WaitOnAddress on Windows), so a thread that
 * waits never keeps a thread it waits for off the CPU for more than a
 * yield.  The threads, yields and sleeps are the OS layer's (os.h); the
 * protocol, and so which items each step hands out, is the same on every
 * OS. */
#include "core/pool.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/os.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

/* Spins before the first yield: a few microseconds, the time in
 * which the other side usually answers when it is running. */
#define SPIN_PAUSES 256
/* Yields of a caller waiting for workers before it sleeps. */
#define CALLER_YIELDS 64
/* Claims per thread and step: fewer claims cost less, more balance better. */
#define CHUNKS_PER_THREAD 8
#define DEFAULT_LINGER_US 1000

enum step_kind { STEP_1D, STEP_1D_TILE_1D, STEP_2D, STEP_2D_TILE_1D, STEP_2D_TILE_2D };

struct step {
    enum step_kind kind;
    union {
        fdnn_task_1d_t t1;
        fdnn_task_1d_tile_1d_t t1t1;
        fdnn_task_2d_t t2;
        fdnn_task_2d_tile_1d_t t2t1;
        fdnn_task_2d_tile_2d_t t2t2;
    } fn;
    void *ctx;
    size_t range_i, range_j, tile_i, tile_j;
    size_t tiles_j; /* tiles along j (items of one i) */
    size_t items;   /* tiles in all */
    size_t chunk;   /* items per claim */
    uint32_t chunks;
};

struct fdnn_pool {
    size_t threads; /* the caller included */
    fdnn_os_thread_t **workers;
    size_t started;
    _Atomic uint32_t mu; /* one step at a time: 0 free, 1 held, 2 held with sleepers */
    struct step step;   /* written by the caller only while no worker is inside */
    _Atomic uint32_t state;
    _Atomic uint32_t next, done, inside;
    _Atomic uint32_t sleepers;      /* workers asleep (or about to be) on `state` */
    _Atomic uint32_t caller_asleep; /* the caller sleeps on `done` or `inside` */
    _Atomic uint32_t park;          /* bumped by fdnn_pool_park */
    _Atomic uint32_t linger_us;
    _Atomic bool stop;
};

static uint64_t
now_us(void)
{
    return fdnn_os_now_ns() / 1000u;
}

/* The step mutex, a word with the OS's sleep-on-address (the three-state
 * lock of Drepper's "Futexes Are Tricky"): callers of one pool rarely
 * contend, and when they do they sleep. */
static void
step_lock(_Atomic uint32_t *mu)
{
    uint32_t c = 0;
    if (atomic_compare_exchange_strong(mu, &c, 1))
        return;
    if (c != 2)
        c = atomic_exchange(mu, 2);
    while (c != 0) {
        fdnn_os_wait_u32(mu, 2);
        c = atomic_exchange(mu, 2);
    }
}

static void
step_unlock(_Atomic uint32_t *mu)
{
    if (atomic_exchange(mu, 0) == 2)
        fdnn_os_wake_u32(mu, false);
}

static size_t
min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static void
run_item(const struct step *st, size_t item)
{
    switch (st->kind) {
    case STEP_1D:
        st->fn.t1(st->ctx, item);
        break;
    case STEP_1D_TILE_1D: {
        size_t i = item * st->tile_i;
        st->fn.t1t1(st->ctx, i, min_size(st->tile_i, st->range_i - i));
        break;
    }
    case STEP_2D:
        st->fn.t2(st->ctx, item / st->range_j, item % st->range_j);
        break;
    case STEP_2D_TILE_1D: {
        size_t i = item / st->tiles_j, j = (item % st->tiles_j) * st->tile_j;
        st->fn.t2t1(st->ctx, i, j, min_size(st->tile_j, st->range_j - j));
        break;
    }
    case STEP_2D_TILE_2D: {
        size_t i = (item / st->tiles_j) * st->tile_i, j = (item % st->tiles_j) * st->tile_j;
        st->fn.t2t2(st->ctx, i, j, min_size(st->tile_i, st->range_i - i), min_size(st->tile_j, st->range_j - j));
        break;
    }
    }
}

/* Claims and runs chunks of the open step until none is left. */
static void
run_chunks(struct fdnn_pool *p)
{
    const struct step *st = &p->step;
    for (;;) {
        uint32_t c = atomic_fetch_add(&p->next, 1);
        if (c >= st->chunks)
            return;
        size_t lo = (size_t)c * st->chunk, hi = min_size(lo + st->chunk, st->items);
        for (size_t it = lo; it < hi; it++)
            run_item(st, it);
        if (atomic_fetch_add(&p->done, 1) + 1 == st->chunks && atomic_load(&p->caller_asleep))
            fdnn_os_wake_u32(&p->done, false);
    }
}

/* The caller waits until *word == target: spin, yield, then sleep; a
 * worker that makes *word reach the target wakes it when it sleeps. */
static void
caller_wait(struct fdnn_pool *p, _Atomic uint32_t *word, uint32_t target)
{
    for (unsigned n = 0; atomic_load(word) != target; n++) {
        if (n < SPIN_PAUSES) {
            cpu_relax();
        } else if (n < SPIN_PAUSES + CALLER_YIELDS) {
            fdnn_os_yield();
        } else {
            atomic_store(&p->caller_asleep, 1);
            uint32_t v = atomic_load(word);
            if (v != target)
                fdnn_os_wait_u32(word, v);
            atomic_store(&p->caller_asleep, 0);
        }
    }
}

/* A worker waits for a state other than `seen`: spin, then yield until the
 * linger time has passed since the wait began (or the pool was parked after
 * `park_seen`), then sleep on the word. */
static uint32_t
worker_wait(struct fdnn_pool *p, uint32_t seen, uint32_t park_seen)
{
    uint64_t start = 0;
    for (unsigned n = 0;; n++) {
        uint32_t s = atomic_load(&p->state);
        if (s != seen || atomic_load(&p->stop))
            return s;
        if (n < SPIN_PAUSES) {
            cpu_relax();
            continue;
        }
        if (n == SPIN_PAUSES)
            start = now_us();
        bool parked = atomic_load(&p->park) != park_seen;
        if (!parked && ((n & 31) != 0 || now_us() - start < atomic_load(&p->linger_us))) {
            fdnn_os_yield();
            continue;
        }
        atomic_fetch_add(&p->sleepers, 1);
        while (atomic_load(&p->state) == seen && !atomic_load(&p->stop))
            fdnn_os_wait_u32(&p->state, seen);
        atomic_fetch_sub(&p->sleepers, 1);
    }
}

static void
worker_main(void *arg)
{
    struct fdnn_pool *p = arg;
    uint32_t seen = atomic_load(&p->state), park_seen = atomic_load(&p->park);
    for (;;) {
        uint32_t s = worker_wait(p, seen, park_seen);
        if (atomic_load(&p->stop))
            return;
        seen = s;
        if ((s & 1u) == 0)
            continue; /* closed: wait for the next open step */
        park_seen = atomic_load(&p->park);
        atomic_fetch_add(&p->inside, 1);
        if (atomic_load(&p->state) == s)
            run_chunks(p);
        if (atomic_fetch_sub(&p->inside, 1) == 1 && atomic_load(&p->caller_asleep))
            fdnn_os_wake_u32(&p->inside, false);
    }
}

fdnn_pool_t
fdnn_pool_create(size_t threads)
{
    if (threads < 2)
        return NULL;
    struct fdnn_pool *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return NULL;
    p->workers = calloc(threads - 1, sizeof(*p->workers));
    if (p->workers == NULL) {
        free(p);
        return NULL;
    }
    p->threads = threads;
    atomic_init(&p->linger_us, DEFAULT_LINGER_US);
    for (; p->started < threads - 1; p->started++) {
        if ((p->workers[p->started] = fdnn_os_thread_start(worker_main, p)) == NULL) {
            fdnn_pool_destroy(p);
            return NULL;
        }
    }
    return p;
}

void
fdnn_pool_destroy(fdnn_pool_t p)
{
    if (p == NULL)
        return;
    step_lock(&p->mu);
    atomic_store(&p->stop, true);
    atomic_fetch_add(&p->state, 2); /* a state no worker has seen */
    fdnn_os_wake_u32(&p->state, true);
    step_unlock(&p->mu);
    for (size_t i = 0; i < p->started; i++)
        fdnn_os_thread_join(p->workers[i]);
    free(p->workers);
    free(p);
}

size_t
fdnn_pool_threads(fdnn_pool_t p)
{
    return p != NULL ? p->threads : 1;
}

void
fdnn_pool_set_linger(fdnn_pool_t p, uint32_t linger_us)
{
    if (p != NULL)
        atomic_store(&p->linger_us, linger_us);
}

void
fdnn_pool_park(fdnn_pool_t p)
{
    if (p != NULL)
        atomic_fetch_add(&p->park, 1);
}

/* Runs `st` (items > 0) on the pool, or on the caller alone. */
static void
run_step(struct fdnn_pool *p, const struct step *st)
{
    if (p == NULL || st->items == 1) {
        for (size_t it = 0; it < st->items; it++)
            run_item(st, it);
        return;
    }
    step_lock(&p->mu);
    uint32_t s = atomic_load(&p->state);
    if (s & 1u) { /* close the previous step and let its late joiners leave */
        atomic_store(&p->state, ++s);
        caller_wait(p, &p->inside, 0);
    }
    p->step = *st;
    size_t max_chunks = p->threads * CHUNKS_PER_THREAD;
    p->step.chunk = st->items <= max_chunks ? 1 : (st->items + max_chunks - 1) / max_chunks;
    p->step.chunks = (uint32_t)((st->items + p->step.chunk - 1) / p->step.chunk);
    atomic_store(&p->next, 0);
    atomic_store(&p->done, 0);
    atomic_store(&p->state, s + 1);
    if (atomic_load(&p->sleepers) != 0)
        fdnn_os_wake_u32(&p->state, true);
    run_chunks(p);
    caller_wait(p, &p->done, p->step.chunks);
    step_unlock(&p->mu);
}

static size_t
tiles(size_t range, size_t tile)
{
    return tile == 0 ? 0 : range / tile + (range % tile != 0);
}

void
fdnn_parallelize_1d(fdnn_pool_t pool, fdnn_task_1d_t f, void *ctx, size_t range, uint32_t flags)
{
    (void)flags;
    struct step st = {.kind = STEP_1D, .fn.t1 = f, .ctx = ctx, .range_i = range, .items = range};
    if (st.items != 0)
        run_step(pool, &st);
}

void
fdnn_parallelize_1d_tile_1d(fdnn_pool_t pool, fdnn_task_1d_tile_1d_t f, void *ctx, size_t range, size_t tile,
                            uint32_t flags)
{
    (void)flags;
    struct step st = {.kind = STEP_1D_TILE_1D, .fn.t1t1 = f, .ctx = ctx, .range_i = range, .tile_i = tile,
                      .items = tiles(range, tile)};
    if (st.items != 0)
        run_step(pool, &st);
}

void
fdnn_parallelize_2d(fdnn_pool_t pool, fdnn_task_2d_t f, void *ctx, size_t range_i, size_t range_j, uint32_t flags)
{
    (void)flags;
    struct step st = {.kind = STEP_2D, .fn.t2 = f, .ctx = ctx, .range_i = range_i, .range_j = range_j,
                      .items = range_i * range_j};
    if (st.items != 0)
        run_step(pool, &st);
}

void
fdnn_parallelize_2d_tile_1d(fdnn_pool_t pool, fdnn_task_2d_tile_1d_t f, void *ctx, size_t range_i, size_t range_j,
                            size_t tile_j, uint32_t flags)
{
    (void)flags;
    size_t tj = tiles(range_j, tile_j);
    struct step st = {.kind = STEP_2D_TILE_1D, .fn.t2t1 = f, .ctx = ctx, .range_i = range_i, .range_j = range_j,
                      .tile_j = tile_j, .tiles_j = tj, .items = range_i * tj};
    if (st.items != 0)
        run_step(pool, &st);
}

void
fdnn_parallelize_2d_tile_2d(fdnn_pool_t pool, fdnn_task_2d_tile_2d_t f, void *ctx, size_t range_i, size_t range_j,
                            size_t tile_i, size_t tile_j, uint32_t flags)
{
    (void)flags;
    size_t tj = tiles(range_j, tile_j);
    struct step st = {.kind = STEP_2D_TILE_2D, .fn.t2t2 = f, .ctx = ctx, .range_i = range_i, .range_j = range_j,
                      .tile_i = tile_i, .tile_j = tile_j, .tiles_j = tj, .items = tiles(range_i, tile_i) * tj};
    if (st.items != 0)
        run_step(pool, &st);
}
