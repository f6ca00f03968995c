/* SPDX-License-Identifier: Apache-2.0
 * Handle life cycle and scratch memory.  See handle.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_condattr_setclock */
#include "core/handle.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fail.h"
#include "core/memory.h"

cudnnStatus_t
fdnn_handle_check(cudnnHandle_t handle)
{
    if (handle == NULL)
        return FDNN_BAD_PARAM("handle is NULL");
    if (handle->magic != FDNN_HANDLE_MAGIC)
        return FDNN_BAD_PARAM("handle %p was not created by cudnnCreate or was destroyed", (void *)handle);
    return CUDNN_STATUS_SUCCESS;
}

void *
fdnn_handle_scratch(cudnnHandle_t handle, size_t bytes)
{
    if (bytes > handle->scratch_bytes) {
        fdnn_aligned_free(handle->scratch);
        handle->scratch = fdnn_aligned_alloc(bytes);
        handle->scratch_bytes = handle->scratch != NULL ? bytes : 0;
        if (handle->scratch == NULL) {
            FDNN_ALLOC_FAILED("cannot allocate %zu bytes of scratch memory", bytes);
            return NULL;
        }
    }
    /* For the tests: a solver that reads scratch it did not write this call
     * (left over from an earlier call) sees NaNs instead of stale values
     * that may happen to be right. */
    if (handle->poison_scratch)
        memset(handle->scratch, 0xff, bytes);
    return handle->scratch;
}

cudaStream_t
fdnn_handle_stream_or_null(cudnnHandle_t handle)
{
    if (handle == NULL || handle->magic != FDNN_HANDLE_MAGIC)
        return NULL;
    return handle->stream;
}

static void
wake_and_return(void *context, size_t i)
{
    (void)context;
    (void)i;
}

static void
park_now(cudnnHandle_t handle)
{
    pthreadpool_parallelize_1d(handle->pool, wake_and_return, NULL, handle->num_threads,
                               PTHREADPOOL_FLAG_YIELD_WORKERS);
}

/* The late parker: `pending` says a call used the pool since the last
 * parking, `last` when the latest such call ended.  The thread sleeps
 * until linger_us after `last`, and parks the workers if no call came
 * meanwhile.  pthreadpool runs one parallel call at a time (its own lock),
 * so the parking step never overlaps a call of the handle's user; it only
 * delays it by the parking step when they meet. */
struct fdnn_parker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC */
    struct timespec last;
    bool pending, stop;
};

static struct timespec
after_us(struct timespec t, uint32_t us)
{
    t.tv_nsec += (long)us * 1000L;
    while (t.tv_nsec >= 1000000000L) {
        t.tv_nsec -= 1000000000L;
        t.tv_sec++;
    }
    return t;
}

static bool
before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

static void *
parker_main(void *arg)
{
    cudnnHandle_t handle = arg;
    struct fdnn_parker *pk = handle->parker;
    pthread_mutex_lock(&pk->mu);
    while (!pk->stop) {
        if (!pk->pending) {
            pthread_cond_wait(&pk->cv, &pk->mu);
            continue;
        }
        struct timespec now, due = after_us(pk->last, handle->linger_us);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (before(now, due)) {
            pthread_cond_timedwait(&pk->cv, &pk->mu, &due);
            continue;
        }
        pk->pending = false;
        pthread_mutex_unlock(&pk->mu);
        park_now(handle);
        pthread_mutex_lock(&pk->mu);
    }
    pthread_mutex_unlock(&pk->mu);
    return NULL;
}

/* Starts the parker; false (nothing started) when a thread cannot be had. */
static bool
start_parker(cudnnHandle_t handle)
{
    struct fdnn_parker *pk = calloc(1, sizeof(*pk));
    if (pk == NULL)
        return false;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&pk->mu, NULL);
    pthread_cond_init(&pk->cv, &ca);
    pthread_condattr_destroy(&ca);
    handle->parker = pk;
    if (pthread_create(&pk->thread, NULL, parker_main, handle) != 0) {
        pthread_cond_destroy(&pk->cv);
        pthread_mutex_destroy(&pk->mu);
        free(pk);
        handle->parker = NULL;
        return false;
    }
    return true;
}

void
fdnn_handle_stop_parker(cudnnHandle_t handle)
{
    struct fdnn_parker *pk = handle->parker;
    if (pk == NULL)
        return;
    pthread_mutex_lock(&pk->mu);
    pk->stop = true;
    pthread_cond_signal(&pk->cv);
    pthread_mutex_unlock(&pk->mu);
    pthread_join(pk->thread, NULL);
    pthread_cond_destroy(&pk->cv);
    pthread_mutex_destroy(&pk->mu);
    free(pk);
    handle->parker = NULL;
}

void
fdnn_handle_park_workers(cudnnHandle_t handle)
{
    if (handle == NULL || handle->magic != FDNN_HANDLE_MAGIC || handle->pool == NULL || !handle->park_workers ||
        !handle->pool_used)
        return;
    handle->pool_used = false;
    if (handle->linger_us == 0 || (handle->parker == NULL && !start_parker(handle))) {
        park_now(handle);
        return;
    }
    struct fdnn_parker *pk = handle->parker;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&pk->mu);
    pk->last = now;
    if (!pk->pending) { /* otherwise the parker is already timing, and re-reads `last` when due */
        pk->pending = true;
        pthread_cond_signal(&pk->cv);
    }
    pthread_mutex_unlock(&pk->mu);
}

cudnnStatus_t
fdnn_handle_set_threads(cudnnHandle_t handle, size_t threads)
{
    if (threads == handle->num_threads)
        return CUDNN_STATUS_SUCCESS;
    pthreadpool_t pool = NULL;
    if (threads > 1) {
        pool = pthreadpool_create(threads);
        if (pool == NULL)
            return FDNN_ALLOC_FAILED("cannot start a pool of %zu threads", threads);
    }
    fdnn_handle_stop_parker(handle);
    if (handle->pool != NULL)
        pthreadpool_destroy(handle->pool);
    handle->pool = pool;
    handle->num_threads = threads;
    return CUDNN_STATUS_SUCCESS;
}
