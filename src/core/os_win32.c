/* SPDX-License-Identifier: Apache-2.0
 * The OS layer on Windows (os.h), Windows 8 or later (WaitOnAddress).
 * Threads are the CRT's (_beginthreadex, so the C runtime's per-thread data
 * is set up in the pool's workers); waits use WaitOnAddress, the Windows
 * counterpart of a futex. */
#include "core/os.h"

#include <malloc.h>
#include <process.h>
#include <stdlib.h>
#include <windows.h>

#include "core/cpu.h"

uint64_t
fdnn_os_now_ns(void)
{
    LARGE_INTEGER freq, c; /* the frequency is fixed at boot; reading it is cheap */
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&c);
    uint64_t n = (uint64_t)c.QuadPart, f = (uint64_t)freq.QuadPart;
    return n / f * 1000000000u + n % f * 1000000000u / f;
}

size_t
fdnn_os_online_cpus(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 ? (size_t)n : 1;
}

static size_t
bits_set(KAFFINITY mask)
{
    size_t n = 0;
    for (; mask != 0; mask &= mask - 1)
        n++;
    return n;
}

/* The first L1 data cache and the first L2 the system lists, the L2 divided
 * by the processors of its group mask. */
int
fdnn_os_cache_sizes(size_t *l1d, size_t *l2)
{
    DWORD bytes = 0;
    GetLogicalProcessorInformationEx(RelationCache, NULL, &bytes);
    if (bytes == 0)
        return 0;
    char *buf = malloc(bytes);
    if (buf == NULL)
        return 0;
    int found = 0;
    bool have_l1 = false, have_l2 = false;
    if (GetLogicalProcessorInformationEx(RelationCache, (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)buf, &bytes)) {
        for (DWORD off = 0; off < bytes;) {
            const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX *r = (const void *)(buf + off);
            if (r->Size == 0)
                break;
            const CACHE_RELATIONSHIP *c = &r->Cache;
            if (r->Relationship == RelationCache) {
                if (c->Level == 1 && c->Type == CacheData && !have_l1) {
                    *l1d = c->CacheSize;
                    have_l1 = true;
                    found = 1;
                } else if (c->Level == 2 && c->Type != CacheInstruction && !have_l2) {
                    size_t sharing = bits_set(c->GroupMask.Mask);
                    *l2 = c->CacheSize / (sharing > 0 ? sharing : 1);
                    have_l2 = true;
                    found = 1;
                }
            }
            off += r->Size;
        }
    }
    free(buf);
    return found;
}

/* CPUs in the process affinity mask (its processor group: at most 64);
 * see cpu.h. */
size_t
fdnn_cpu_affinity_count(void)
{
    DWORD_PTR process = 0, system = 0;
    if (!GetProcessAffinityMask(GetCurrentProcess(), &process, &system))
        return 0;
    return bits_set((KAFFINITY)process);
}

unsigned long long
fdnn_os_process_id(void)
{
    return (unsigned long long)GetCurrentProcessId();
}

unsigned long long
fdnn_os_thread_id(void)
{
    return (unsigned long long)GetCurrentThreadId();
}

void *
fdnn_os_aligned_alloc(size_t align, size_t bytes)
{
    return _aligned_malloc(bytes, align);
}

void
fdnn_os_aligned_free(void *p)
{
    _aligned_free(p);
}

int
fdnn_os_aligned_is_emulated(void)
{
    return 1; /* _aligned_malloc returns an offset into its own block */
}

struct fdnn_os_thread {
    HANDLE handle;
    void (*fn)(void *);
    void *arg;
};

static unsigned __stdcall
thread_main(void *t)
{
    struct fdnn_os_thread *self = t;
    self->fn(self->arg);
    return 0;
}

fdnn_os_thread_t *
fdnn_os_thread_start(void (*fn)(void *), void *arg)
{
    struct fdnn_os_thread *t = malloc(sizeof(*t));
    if (t == NULL)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    uintptr_t h = _beginthreadex(NULL, 0, thread_main, t, 0, NULL);
    if (h == 0) {
        free(t);
        return NULL;
    }
    t->handle = (HANDLE)h;
    return t;
}

void
fdnn_os_thread_join(fdnn_os_thread_t *t)
{
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
    free(t);
}

void
fdnn_os_yield(void)
{
    SwitchToThread();
}

void
fdnn_os_wait_u32(_Atomic uint32_t *word, uint32_t expected)
{
    WaitOnAddress((volatile void *)word, &expected, sizeof(expected), INFINITE);
}

void
fdnn_os_wake_u32(_Atomic uint32_t *word, bool all)
{
    if (all)
        WakeByAddressAll((void *)word);
    else
        WakeByAddressSingle((void *)word);
}
