/* SPDX-License-Identifier: Apache-2.0
 * The OS layer on Linux (os.h).  The futex calls are Linux's; the rest is
 * POSIX. */
#define _GNU_SOURCE /* syscall, sched_yield, sched_getaffinity, CPU_COUNT_S */
#include "core/os.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/cpu.h"

uint64_t
fdnn_os_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

size_t
fdnn_os_online_cpus(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (size_t)online : 1;
}

int
fdnn_os_cache_sizes(size_t *l1d, size_t *l2)
{
    return fdnn_cpu_sysfs_caches("", l1d, l2);
}

/* CPUs in this thread's affinity mask (taskset, cpusets); see cpu.h. */
size_t
fdnn_cpu_affinity_count(void)
{
    for (size_t ncpu = 1024; ncpu <= (1u << 20); ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpu);
        if (set == NULL)
            return 0;
        size_t bytes = CPU_ALLOC_SIZE(ncpu);
        CPU_ZERO_S(bytes, set);
        if (sched_getaffinity(0, bytes, set) == 0) {
            size_t n = (size_t)CPU_COUNT_S(bytes, set);
            CPU_FREE(set);
            return n;
        }
        CPU_FREE(set);
        /* EINVAL: the kernel's mask is larger than ours; try a larger one. */
    }
    return 0;
}

unsigned long long
fdnn_os_process_id(void)
{
    return (unsigned long long)getpid();
}

unsigned long long
fdnn_os_thread_id(void)
{
    return (unsigned long long)syscall(SYS_gettid);
}

/* Under AddressSanitizer the aligned blocks are laid out as Windows'
 * _aligned_malloc lays them out: an offset pointer inside a malloc'd block.
 * On Windows, free() of an _aligned_malloc pointer (or _aligned_free of a
 * malloc pointer) corrupts the heap; on glibc both happen to work, so the
 * Linux tests alone could never see such a mismatch.  With this layout the
 * ASan stage reports either one ("free on address which was not
 * malloc()-ed", or a bad free inside a block).  Release builds use
 * aligned_alloc. */
#if defined(__SANITIZE_ADDRESS__)
#define FDNN_OS_EMULATE_WIN32_ALIGNED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FDNN_OS_EMULATE_WIN32_ALIGNED 1
#endif
#endif

#ifdef FDNN_OS_EMULATE_WIN32_ALIGNED
void *
fdnn_os_aligned_alloc(size_t align, size_t bytes)
{
    /* [malloc'd start ... | start pointer | aligned block of `bytes`] */
    size_t extra = align + sizeof(void *);
    if (bytes > (size_t)-1 - extra)
        return NULL;
    char *raw = malloc(bytes + extra);
    if (raw == NULL)
        return NULL;
    uintptr_t at = ((uintptr_t)(raw + sizeof(void *)) + align - 1) & ~(uintptr_t)(align - 1);
    ((void **)at)[-1] = raw;
    return (void *)at;
}

void
fdnn_os_aligned_free(void *p)
{
    if (p != NULL)
        free(((void **)p)[-1]);
}

int
fdnn_os_aligned_is_emulated(void)
{
    return 1;
}
#else
void *
fdnn_os_aligned_alloc(size_t align, size_t bytes)
{
    return aligned_alloc(align, bytes);
}

void
fdnn_os_aligned_free(void *p)
{
    free(p);
}

int
fdnn_os_aligned_is_emulated(void)
{
    return 0;
}
#endif

struct fdnn_os_thread {
    pthread_t id;
    void (*fn)(void *);
    void *arg;
};

static void *
thread_main(void *t)
{
    struct fdnn_os_thread *self = t;
    self->fn(self->arg);
    return NULL;
}

fdnn_os_thread_t *
fdnn_os_thread_start(void (*fn)(void *), void *arg)
{
    struct fdnn_os_thread *t = malloc(sizeof(*t));
    if (t == NULL)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    if (pthread_create(&t->id, NULL, thread_main, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

void
fdnn_os_thread_join(fdnn_os_thread_t *t)
{
    pthread_join(t->id, NULL);
    free(t);
}

void
fdnn_os_yield(void)
{
    sched_yield();
}

void
fdnn_os_wait_u32(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void
fdnn_os_wake_u32(_Atomic uint32_t *word, bool all)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, all ? INT_MAX : 1, NULL, NULL, 0);
}
