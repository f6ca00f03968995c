/* SPDX-License-Identifier: Apache-2.0
 * The operating-system layer: everything the library needs from the OS
 * beyond ISO C, behind one interface.  os_posix.c implements it for Linux
 * (and other POSIX systems), os_win32.c for Windows; CMakeLists.txt builds
 * one of them (files named *_posix.c or *_win32.c are chosen by platform).
 * Nothing else under src/ includes an OS header. */
#ifndef FDNN_CORE_OS_H
#define FDNN_CORE_OS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nanoseconds on a monotonic clock (an arbitrary origin). */
uint64_t fdnn_os_now_ns(void);

/* Logical processors online in the system (>= 1). */
size_t fdnn_os_online_cpus(void);

/* L1 data cache and the per-CPU share of the L2 as the OS reports them
 * (Linux: sysfs; Windows: GetLogicalProcessorInformationEx); returns 1
 * when it gave at least one of them, leaving the others untouched. */
int fdnn_os_cache_sizes(size_t *l1d, size_t *l2);

/* Ids of the process and the calling thread, for the API log. */
unsigned long long fdnn_os_process_id(void);
unsigned long long fdnn_os_thread_id(void);

/* `bytes` (a multiple of `align`, a power of two) aligned to `align`;
 * NULL on failure.  Freed only by fdnn_os_aligned_free (on Windows such a
 * block cannot be given to free()). */
void *fdnn_os_aligned_alloc(size_t align, size_t bytes);
void fdnn_os_aligned_free(void *p);
/* 1 when the blocks are offset pointers inside larger allocations (Windows'
 * _aligned_malloc, and the ASan build on Linux that mimics it so a stray
 * free() is reported there too), 0 when they are the allocator's own. */
int fdnn_os_aligned_is_emulated(void);

/* ---- for the thread pool (pool.c) --------------------------------------- */

/* A started thread; fdnn_os_thread_join waits for it and frees it. */
typedef struct fdnn_os_thread fdnn_os_thread_t;
fdnn_os_thread_t *fdnn_os_thread_start(void (*fn)(void *arg), void *arg);
void fdnn_os_thread_join(fdnn_os_thread_t *t);

/* Gives the processor to another ready thread, if any (returns at once
 * when none is waiting). */
void fdnn_os_yield(void);

/* Sleeps while *word == expected (returns at once otherwise; may return
 * spuriously): Linux futex, Windows WaitOnAddress. */
void fdnn_os_wait_u32(_Atomic uint32_t *word, uint32_t expected);
/* Wakes one (all == false) or every thread sleeping on `word`. */
void fdnn_os_wake_u32(_Atomic uint32_t *word, bool all);

#endif /* FDNN_CORE_OS_H */
