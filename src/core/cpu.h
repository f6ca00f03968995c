/* SPDX-License-Identifier: Apache-2.0
 * The CPU: instruction-set levels and their detection.  Detected once per
 * process (read-only afterwards); FREEDNN_MAX_ISA caps the level
 * ("scalar", "avx2", "avx512", "neon").  Which kernels a level runs is said
 * in one place, src/cpu/config/ (one file per level). */
#ifndef FDNN_CORE_CPU_H
#define FDNN_CORE_CPU_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this build targets x86 and so compiles the AVX2/AVX-512 kernel
 * files (the __avx2.c/__avx512.c sources; CMakeLists.txt leaves them out
 * elsewhere, where the detected level is always SCALAR). */
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__) || defined(_M_IX86)
#define FDNN_ARCH_X86 1
#else
#define FDNN_ARCH_X86 0
#endif

/* Whether this build targets AArch64 and so compiles the NEON kernel files
 * (the __neon.c sources, left out elsewhere by CMakeLists.txt). */
#if defined(__aarch64__) || defined(_M_ARM64)
#define FDNN_ARCH_ARM64 1
#else
#define FDNN_ARCH_ARM64 0
#endif

/* An x86 kernel in a per-ISA table: the kernel on x86, NULL elsewhere (an
 * entry no CPU of that build selects).  FDNN_ARM64_ONLY: the same for NEON. */
#if FDNN_ARCH_X86
#define FDNN_X86_ONLY(fn) fn
#else
#define FDNN_X86_ONLY(fn) NULL
#endif
#if FDNN_ARCH_ARM64
#define FDNN_ARM64_ONLY(fn) fn
#else
#define FDNN_ARM64_ONLY(fn) NULL
#endif

/* The levels.  Each architecture's levels are ordered (a higher level of
 * one architecture implies every lower one of it, and SCALAR is below all);
 * levels of different architectures are not comparable.  The numbering puts
 * the build's own architecture right after SCALAR, 1, 2, ... in order, and
 * the other architecture's levels after them: so on every build the levels
 * its CPUs can have are 0 .. fdnn_cpu_max_isa(), a comparison `isa >= L`
 * between two of them keeps its meaning, and a level of the other
 * architecture is above everything a CPU of this build reports (never
 * detected, refused by freednnSetIsa, ignored as a FREEDNN_MAX_ISA cap).
 * On x86 the values are the historical 0, 1, 2. */
typedef enum fdnn_isa {
    FDNN_ISA_SCALAR = 0, /* portable C, always correct */
#if FDNN_ARCH_X86 || !FDNN_ARCH_ARM64
    FDNN_ISA_AVX2 = 1,   /* x86: AVX2 + FMA + F16C */
    FDNN_ISA_AVX512 = 2, /* x86: AVX-512 F, BW, VL, DQ */
    FDNN_ISA_NEON = 3,   /* AArch64: ASIMD (every AArch64 CPU) */
#else
    FDNN_ISA_NEON = 1,   /* AArch64: ASIMD (every AArch64 CPU) */
    FDNN_ISA_AVX2 = 2,   /* x86: AVX2 + FMA + F16C */
    FDNN_ISA_AVX512 = 3, /* x86: AVX-512 F, BW, VL, DQ */
#endif
    FDNN_ISA_COUNT = 4
} fdnn_isa_t;

/* The best level this CPU supports, capped by FREEDNN_MAX_ISA. */
fdnn_isa_t fdnn_cpu_max_isa(void);

/* The best level the CPU itself supports, ignoring the cap. */
fdnn_isa_t fdnn_cpu_detected_isa(void);

const char *fdnn_isa_name(fdnn_isa_t isa);

/* Parses "scalar", "avx2", "avx512", "neon"; returns -1 for anything else. */
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

/* What the processor offers, detected once per process by FreeDNN's own
 * probe (core/cpu_probe.c; docs/architecture.md says why not a library).
 * FREEDNN_MAX_ISA does not change it.  An x86 flag is set only when CPUID
 * reports the instructions AND the OS saves their registers (XCR0), so a
 * set flag means the instructions can run; Linux's /proc/cpuinfo flags
 * follow the same rule.  The AArch64 flags come from the Linux hwcaps. */
typedef struct fdnn_cpu_features {
    bool avx2, fma3, f16c;                 /* x86: the AVX2 level */
    bool avx512f, avx512bw, avx512vl, avx512dq; /* x86: the AVX-512 level */
    bool avx512_bf16, avx512_vnni;         /* x86: gate kernels of the AVX512 level */
    bool asimd, asimdhp, asimddp, sve;     /* AArch64 (AT_HWCAP) */
    bool bf16, i8mm;                       /* AArch64 (AT_HWCAP2): FEAT_BF16, FEAT_I8MM */
    size_t l1d_bytes; /* L1 data cache of one core, 0 if unknown */
    size_t l2_bytes;  /* L2 share of one logical processor, 0 if unknown */
    char name[64];    /* the brand string, trimmed; "unknown CPU" if none */
} fdnn_cpu_features_t;

const fdnn_cpu_features_t *fdnn_cpu_features(void);

/* The probe behind fdnn_cpu_features, run afresh on each call (tests). */
void fdnn_cpu_probe(fdnn_cpu_features_t *f);

/* Cache sizes from sysfs: `root` (a fake tree for tests, "" for the real
 * one) + /sys/devices/system/cpu/cpu0/cache/index<N>/{level,type,size,
 * shared_cpu_list}.  Sets the L1 data size and the L2 size divided by the
 * CPUs sharing it; returns 1 when the tree gave at least one of them. */
int fdnn_cpu_sysfs_caches(const char *root, size_t *l1d, size_t *l2);

/* Per-core data cache sizes in bytes (0 when unknown). */
size_t fdnn_cpu_l1d_bytes(void);
size_t fdnn_cpu_l2_bytes(void);

/* A short human name of the processor ("AMD EPYC 9B45"). */
const char *fdnn_cpu_name(void);

#endif /* FDNN_CORE_CPU_H */
