/* SPDX-License-Identifier: Apache-2.0
 * The cuDNN handle on the CPU: a thread pool, the ISA level chosen for it, a
 * stream (only an ordering token: every call completes before it returns)
 * and reusable scratch memory.  Handles are independent; one handle must not
 * be used by two threads at once (as in cuDNN). */
#ifndef FDNN_CORE_HANDLE_H
#define FDNN_CORE_HANDLE_H

#include <pthreadpool.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"
#include "cudnn.h"

#define FDNN_HANDLE_MAGIC 0x48444e4eu /* "NNDH" */

struct cudnnContext {
    uint32_t magic;
    cudaStream_t stream;
    pthreadpool_t pool; /* NULL when the handle runs on one thread */
    size_t num_threads;
    fdnn_isa_t isa;
    void *scratch; /* 64-byte aligned, grown on demand, freed with the handle */
    size_t scratch_bytes;
    bool park_workers; /* see fdnn_handle_park_workers */
    bool pool_used;    /* a parallel step ran since the workers were parked */
    uint32_t linger_us; /* park this long after the last call; 0: at once */
    struct fdnn_parker *parker; /* the thread that parks late; NULL until needed */
    bool poison_scratch; /* FREEDNN_POISON_SCRATCH: scratch handed out full of NaN bytes */
};

/* The handle's pool for a parallel step (NULL when the handle runs on one
 * thread).  Every use of the pool goes through here: it notes that the
 * workers may be spinning, so the entry point parks them after the call,
 * while a call that never took the pool (small problems run on the calling
 * thread) leaves sleeping workers asleep instead of waking them to park. */
static inline pthreadpool_t
fdnn_handle_pool(cudnnHandle_t handle)
{
    if (handle->pool != NULL)
        handle->pool_used = true;
    return handle->pool;
}

/* BAD_PARAM with a reason unless `handle` is a live handle. */
cudnnStatus_t fdnn_handle_check(cudnnHandle_t handle);

/* Scratch memory of at least `bytes` bytes, 64-byte aligned, owned by the
 * handle and valid until the next call on it.  NULL (with a reason recorded)
 * when memory runs out. */
void *fdnn_handle_scratch(cudnnHandle_t handle, size_t bytes);

/* The stream of a handle, or NULL for a NULL handle (for log records). */
cudaStream_t fdnn_handle_stream_or_null(cudnnHandle_t handle);

/* Lets the pool's workers sleep.  pthreadpool workers busy-wait for the next
 * command after every parallel call: a million pause instructions, tens of
 * milliseconds on recent Intel cores, during which they hold their cores
 * away from the program's own threads and other libraries' pools.  Inside
 * one call the spinning is what we want (the next parallel step comes
 * within microseconds), and between calls that follow each other closely
 * too (a wake-up from sleep costs 5-30 us, more than a small call's work).
 * So the generated entry point of every public function that may compute
 * calls this once, after the work, and the workers are parked (one empty
 * parallel step with PTHREADPOOL_FLAG_YIELD_WORKERS, after which they wait
 * on a futex) once no call has come for linger_us microseconds: by a parker
 * thread of the handle, started at the first call that used the pool.  With
 * linger_us = 0 they are parked at once, by the caller.  A call that did not
 * take the pool (fdnn_handle_pool) changes nothing.  FREEDNN_WORKER_WAIT at
 * handle creation chooses (docs/env.md).  Safe on any handle value (does
 * nothing unless it is a live handle with a pool). */
void fdnn_handle_park_workers(cudnnHandle_t handle);

/* Sets the number of worker threads (>= 1). */
cudnnStatus_t fdnn_handle_set_threads(cudnnHandle_t handle, size_t threads);

/* Stops the parker thread, if any (before the pool goes away). */
void fdnn_handle_stop_parker(cudnnHandle_t handle);

#endif /* FDNN_CORE_HANDLE_H */
