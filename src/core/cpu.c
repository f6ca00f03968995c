/* SPDX-License-Identifier: Apache-2.0
 * CPU detection, done once through FreeDNN's own probe (cpu_probe.c).
 * See cpu.h. */
#include "core/cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/os.h"

static struct {
    pthread_once_t once;
    fdnn_isa_t detected;
    fdnn_isa_t capped;
    size_t count;
    fdnn_cpu_features_t features;
} cpu = {.once = PTHREAD_ONCE_INIT};

static const char *const isa_names[FDNN_ISA_COUNT] = {
    [FDNN_ISA_SCALAR] = "scalar", [FDNN_ISA_AVX2] = "avx2", [FDNN_ISA_AVX512] = "avx512", [FDNN_ISA_NEON] = "neon"};

static void
cpu_detect(void)
{
    cpu.count = fdnn_os_online_cpus();
    fdnn_cpu_probe(&cpu.features);
    const fdnn_cpu_features_t *f = &cpu.features;
    cpu.detected = FDNN_ISA_SCALAR;
    if (FDNN_ARCH_X86 && f->avx512f && f->avx512bw && f->avx512vl && f->avx512dq)
        cpu.detected = FDNN_ISA_AVX512;
    else if (FDNN_ARCH_X86 && f->avx2 && f->fma3 && f->f16c)
        cpu.detected = FDNN_ISA_AVX2;
    else if (FDNN_ARCH_ARM64 && f->asimd)
        cpu.detected = FDNN_ISA_NEON;
    cpu.capped = cpu.detected;
    const char *cap = getenv("FREEDNN_MAX_ISA");
    if (cap != NULL) {
        int level = fdnn_isa_from_name(cap);
        if (level >= 0 && (fdnn_isa_t)level < cpu.capped)
            cpu.capped = (fdnn_isa_t)level;
    }
}

const fdnn_cpu_features_t *
fdnn_cpu_features(void)
{
    pthread_once(&cpu.once, cpu_detect);
    return &cpu.features;
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
    return cpu.features.l1d_bytes;
}

size_t
fdnn_cpu_l2_bytes(void)
{
    pthread_once(&cpu.once, cpu_detect);
    return cpu.features.l2_bytes;
}

const char *
fdnn_cpu_name(void)
{
    pthread_once(&cpu.once, cpu_detect);
    return cpu.features.name;
}
