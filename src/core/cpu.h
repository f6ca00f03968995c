/* SPDX-License-Identifier: Apache-2.0
 * The CPU: instruction-set levels and their detection.  Detected once per
 * process (read-only afterwards); FREEDNN_MAX_ISA caps the level
 * ("scalar", "avx2", "avx512"). */
#ifndef FDNN_CORE_CPU_H
#define FDNN_CORE_CPU_H

#include <stddef.h>

/* Ordered: a higher level implies every lower one. */
typedef enum fdnn_isa {
    FDNN_ISA_SCALAR = 0, /* portable C, always correct */
    FDNN_ISA_AVX2 = 1,   /* AVX2 + FMA + F16C */
    FDNN_ISA_AVX512 = 2, /* AVX-512 F, BW, VL, DQ */
    FDNN_ISA_COUNT
} fdnn_isa_t;

/* The best level this CPU supports, capped by FREEDNN_MAX_ISA. */
fdnn_isa_t fdnn_cpu_max_isa(void);

/* The best level the CPU itself supports, ignoring the cap. */
fdnn_isa_t fdnn_cpu_detected_isa(void);

const char *fdnn_isa_name(fdnn_isa_t isa);

/* Parses "scalar", "avx2", "avx512"; returns -1 for anything else. */
int fdnn_isa_from_name(const char *name);

/* Logical processors online (the machine's, whatever this process may use). */
size_t fdnn_cpu_count(void);

/* CPUs this process may keep busy: the online processors, cut by the
 * affinity mask and the cgroup CPU quota (core/cpu_limit.c).  Read afresh
 * on each call (affinity can change while the process runs).  The default
 * thread count of a new handle. */
size_t fdnn_cpu_usable_count(void);

/* Threads of a new handle (cuDNN's or cuBLAS's): FREEDNN_NUM_THREADS when
 * set to a number in 1..1024, otherwise fdnn_cpu_usable_count(): more
 * threads than usable CPUs only make them wait for each other. */
size_t fdnn_cpu_default_threads(void);

/* The parts, exposed for tests.  fdnn_cpu_affinity_count: CPUs in this
 * thread's affinity mask (0 if unknown).  fdnn_cpu_quota_count: CPUs that
 * the cgroup (v1 or v2) CPU quota of this process allows, rounded up; 0
 * when there is none; `root` is prefixed to /proc/self/cgroup and
 * /sys/fs/cgroup ("" for the real ones, a directory for a fake tree).
 * fdnn_cpu_usable_from: the smallest of the known (non-zero) counts, >= 1. */
size_t fdnn_cpu_affinity_count(void);
size_t fdnn_cpu_quota_count(const char *root);
size_t fdnn_cpu_usable_from(size_t online, size_t affinity, size_t quota);

/* Per-core data cache sizes in bytes (0 when unknown). */
size_t fdnn_cpu_l1d_bytes(void);
size_t fdnn_cpu_l2_bytes(void);

/* A short human name of the processor ("AMD EPYC 9B45"). */
const char *fdnn_cpu_name(void);

#endif /* FDNN_CORE_CPU_H */
