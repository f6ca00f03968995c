/* SPDX-License-Identifier: Apache-2.0
 * The cuDNN handle on the CPU: a thread pool, the ISA level chosen for it, a
 * stream (only an ordering token: every call completes before it returns)
 * and reusable scratch memory.  Handles are independent; one handle must not
 * be used by two threads at once (as in cuDNN). */
#ifndef FDNN_CORE_HANDLE_H
#define FDNN_CORE_HANDLE_H

#include "core/pool.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"
#include "core/pool.h"
#include "cudnn.h"

#define FDNN_HANDLE_MAGIC 0x48444e4eu /* "NNDH" */

struct cudnnContext {
    uint32_t magic;
    cudaStream_t stream;
    fdnn_pool_t pool; /* NULL when the handle runs on one thread */
    size_t num_threads;
    fdnn_isa_t isa;
    void *scratch; /* 64-byte aligned, grown on demand, freed with the handle */
    size_t scratch_bytes;
    bool park_at_return; /* FREEDNN_WORKER_WAIT=sleep: see fdnn_handle_park_workers */
    bool pool_used;      /* a parallel step ran since the workers were parked */
    uint32_t linger_us;  /* idle workers look for work this long, then sleep */
    bool poison_scratch; /* FREEDNN_POISON_SCRATCH: scratch handed out full of NaN bytes */
    void *stage;         /* fdnn_handle_stage's buffer: 64-byte aligned, grown on demand */
    size_t stage_bytes;
};

/* The handle's pool for a parallel step (NULL when the handle runs on one
 * thread).  Every use of the pool goes through here: it notes that the
 * workers may be looking for work, so the entry point may park them after
 * the call, while a call that never took the pool (small problems run on
 * the calling thread) leaves sleeping workers asleep. */
static inline fdnn_pool_t
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

/* A second scratch buffer, distinct from fdnn_handle_scratch's, for a
 * caller that keeps data in it while it runs a solver that takes the
 * first one (the FP32 staging of reduced-precision convolutions on the
 * zero-workspace algorithms, cpu/conv/conv_lowp.c).  Same contract. */
void *fdnn_handle_stage(cudnnHandle_t handle, size_t bytes);

/* The stream of a handle, or NULL for a NULL handle (for log records). */
cudaStream_t fdnn_handle_stream_or_null(cudnnHandle_t handle);

/* Lets the pool's workers sleep (core/pool.h).  After a parallel step the
 * workers keep looking for the next one for linger_us (spinning briefly,
 * then yielding their core to any thread that wants it), because inside one
 * call the next step comes within microseconds and between calls that
 * follow each other closely a wake-up from sleep (5-30 us) would cost more
 * than a small call's work; then they sleep on a futex by themselves.  The
 * generated entry point of every public function that may compute calls
 * this once, after the work; with FREEDNN_WORKER_WAIT=sleep it puts them to
 * sleep at once, otherwise it does nothing.  Safe on any handle value. */
void fdnn_handle_park_workers(cudnnHandle_t handle);

/* Sets the number of worker threads (>= 1). */
cudnnStatus_t fdnn_handle_set_threads(cudnnHandle_t handle, size_t threads);

#endif /* FDNN_CORE_HANDLE_H */
