/* SPDX-License-Identifier: Apache-2.0
 * CPU detection through cpuinfo, done once.  See cpu.h. */
#include "core/cpu.h"

#include <cpuinfo.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    pthread_once_t once;
    fdnn_isa_t detected;
    fdnn_isa_t capped;
    size_t count;
    size_t l1d, l2;
    char name[64];
} cpu = {PTHREAD_ONCE_INIT, FDNN_ISA_SCALAR, FDNN_ISA_SCALAR, 1, 0, 0, "unknown CPU"};

static const char *const isa_names[FDNN_ISA_COUNT] = {"scalar", "avx2", "avx512"};

static void
cpu_detect(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu.count = online > 0 ? (size_t)online : 1;
    if (cpuinfo_initialize()) {
#if defined(__x86_64__) || defined(__i386__)
        if (cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl() &&
            cpuinfo_has_x86_avx512dq())
            cpu.detected = FDNN_ISA_AVX512;
        else if (cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3() && cpuinfo_has_x86_f16c())
            cpu.detected = FDNN_ISA_AVX2;
#endif
        const struct cpuinfo_processor *p = cpuinfo_get_processor(0);
        if (p != NULL && p->cache.l1d != NULL)
            cpu.l1d = p->cache.l1d->size;
        if (p != NULL && p->cache.l2 != NULL)
            cpu.l2 = p->cache.l2->size / (p->cache.l2->processor_count ? p->cache.l2->processor_count : 1);
        const struct cpuinfo_package *pkg = cpuinfo_get_package(0);
        if (pkg != NULL && pkg->name[0] != '\0') {
            strncpy(cpu.name, pkg->name, sizeof(cpu.name) - 1);
        }
    }
    cpu.capped = cpu.detected;
    const char *cap = getenv("FREEDNN_MAX_ISA");
    if (cap != NULL) {
        int level = fdnn_isa_from_name(cap);
        if (level >= 0 && (fdnn_isa_t)level < cpu.capped)
            cpu.capped = (fdnn_isa_t)level;
    }
}

fdnn_isa_t
fdnn_cpu_max_isa(void)
{
    pthread_once(&cpu.once, cpu_detect);
    return cpu.capped;
}

fdnn_isa_t
fdnn_cpu_detected_isa(void)
{
    pthread_once(&cpu.once, cpu_detect);
    return cpu.detected;
}

const char *
fdnn_isa_name(fdnn_isa_t isa)
{
    return (unsigned)isa < FDNN_ISA_COUNT ? isa_names[isa] : "unknown";
}

int
fdnn_isa_from_name(const char *name)
{
    for (int i = 0; i < FDNN_ISA_COUNT; i++)
        if (strcmp(name, isa_names[i]) == 0)
            return i;
    return -1;
}

size_t
fdnn_cpu_count(void)
{
    pthread_once(&cpu.once, cpu_detect);
    return cpu.count;
}

size_t
fdnn_cpu_usable_count(void)
{
    return fdnn_cpu_usable_from(fdnn_cpu_count(), fdnn_cpu_affinity_count(), fdnn_cpu_quota_count(""));
}

size_t
fdnn_cpu_default_threads(void)
{
    const char *env = getenv("FREEDNN_NUM_THREADS");
    if (env != NULL) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end == '\0' && n > 0 && n <= 1024)
            return (size_t)n;
    }
    return fdnn_cpu_usable_count();
}

size_t
fdnn_cpu_l1d_bytes(void)
{
    pthread_once(&cpu.once, cpu_detect);
    return cpu.l1d;
}

size_t
fdnn_cpu_l2_bytes(void)
{
    pthread_once(&cpu.once, cpu_detect);
    return cpu.l2;
}

const char *
fdnn_cpu_name(void)
{
    pthread_once(&cpu.once, cpu_detect);
    return cpu.name;
}
