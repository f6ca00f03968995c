/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN's own CPU probe (core/cpu_probe.c) against what Linux says about
 * the same machine: each instruction-set flag against the "flags" line of
 * /proc/cpuinfo (the kernel clears the AVX flags when it does not save
 * their state, as the probe does through XCR0), the cache sizes against
 * sysfs where this machine has it, the sysfs reader against fake trees,
 * the ISA level derived from the flags and the FREEDNN_MAX_ISA cap. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cpu.h"
#include "testutil.h"

/* The first "flags" line of /proc/cpuinfo, with a space at both ends so a
 * flag is found as " name ".  Empty when there is none (not x86 Linux). */
static char flags[8192];

static void
read_flags(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    flags[0] = '\0';
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "flags", 5) == 0 && strchr(line, ':') != NULL) {
            snprintf(flags, sizeof(flags), "%s ", strchr(line, ':') + 1);
            flags[0] = ' ';
            char *nl = strchr(flags, '\n');
            if (nl != NULL)
                *nl = ' ';
            break;
        }
    if (f != NULL)
        fclose(f);
}

static bool
has_flag(const char *name)
{
    char key[64];
    snprintf(key, sizeof(key), " %s ", name);
    return strstr(flags, key) != NULL;
}

static inline void
check_flag(const char *name, bool probed)
{
    CHECK_MSG(probed == has_flag(name), "flag %s: probe says %d, /proc/cpuinfo says %d", name, probed,
              has_flag(name));
}

static char root[64];

static void
put(const char *path, const char *text)
{
    fdnn_test_put_file(root, path, text);
}

static void
put_cache(int index, const char *level, const char *type, const char *size, const char *shared)
{
    char path[128];
    const char *names[4] = {"level", "type", "size", "shared_cpu_list"};
    const char *values[4] = {level, type, size, shared};
    for (int i = 0; i < 4; i++)
        if (values[i] != NULL) {
            snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu0/cache/index%d/%s", index, names[i]);
            put(path, values[i]);
        }
}

/* The sysfs reader on fake trees: the L1 data cache (not the instruction
 * one), L2 divided among the CPUs of shared_cpu_list, size suffixes. */
static void
test_sysfs_fake(void)
{
    size_t l1 = 0, l2 = 0;
    snprintf(root, sizeof(root), "/tmp/fdnn_cpuprobe_%d_a", (int)getpid());
    fdnn_test_make_dir(root);
    put_cache(0, "1\n", "Data\n", "48K\n", "0\n");
    put_cache(1, "1\n", "Instruction\n", "32K\n", "0\n");
    put_cache(2, "2\n", "Unified\n", "2048K\n", "0-1\n");
    put_cache(3, "3\n", "Unified\n", "32768K\n", "0-15\n");
    CHECK(fdnn_cpu_sysfs_caches(root, &l1, &l2) == 1);
    CHECK_MSG(l1 == 48 * 1024, "l1d %zu", l1);
    CHECK_MSG(l2 == 1024 * 1024, "l2 share %zu", l2);

    snprintf(root, sizeof(root), "/tmp/fdnn_cpuprobe_%d_b", (int)getpid());
    fdnn_test_make_dir(root);
    put_cache(0, "1\n", "Data\n", "32K\n", NULL);
    put_cache(3, "2\n", "Unified\n", "1M\n", "0,2,4-5\n");
    l1 = l2 = 0;
    CHECK(fdnn_cpu_sysfs_caches(root, &l1, &l2) == 1);
    CHECK_MSG(l1 == 32 * 1024, "l1d %zu", l1);
    CHECK_MSG(l2 == 256 * 1024, "l2 share %zu", l2);

    snprintf(root, sizeof(root), "/tmp/fdnn_cpuprobe_%d_c", (int)getpid());
    l1 = l2 = 7;
    CHECK(fdnn_cpu_sysfs_caches(root, &l1, &l2) == 0);
    CHECK(l1 == 7 && l2 == 7);
    (void)!system("rm -rf /tmp/fdnn_cpuprobe_*");
}

static void
test_against_linux(void)
{
    fdnn_cpu_features_t f;
    fdnn_cpu_probe(&f);
    read_flags();
    printf("probe: %s, L1d %zu, L2 share %zu; avx2 %d fma %d f16c %d avx512 f%d bw%d vl%d dq%d bf16 %d vnni %d\n",
           f.name, f.l1d_bytes, f.l2_bytes, f.avx2, f.fma3, f.f16c, f.avx512f, f.avx512bw, f.avx512vl,
           f.avx512dq, f.avx512_bf16, f.avx512_vnni);
    CHECK(f.name[0] != '\0' && strlen(f.name) < sizeof(f.name));
#if defined(__x86_64__) || defined(__i386__)
    CHECK_MSG(flags[0] != '\0', "no flags line in /proc/cpuinfo");
    check_flag("avx2", f.avx2);
    check_flag("fma", f.fma3);
    check_flag("f16c", f.f16c);
    check_flag("avx512f", f.avx512f);
    check_flag("avx512bw", f.avx512bw);
    check_flag("avx512vl", f.avx512vl);
    check_flag("avx512dq", f.avx512dq);
    check_flag("avx512_bf16", f.avx512_bf16);
    check_flag("avx512_vnni", f.avx512_vnni);
#endif
    /* Against sysfs where the machine has it (some sandboxes and VMs do
     * not), as long as the probe did not take them from CPUID. */
    size_t l1 = 0, l2 = 0;
    if (fdnn_cpu_sysfs_caches("", &l1, &l2)) {
        CHECK_MSG(l1 == f.l1d_bytes, "L1d: sysfs %zu, probe %zu", l1, f.l1d_bytes);
        /* CPUID's sharing count is an upper bound: the share may be smaller. */
        CHECK_MSG(f.l2_bytes <= l2 && f.l2_bytes * 4 >= l2, "L2 share: sysfs %zu, probe %zu", l2, f.l2_bytes);
    } else {
        printf("no sysfs cache data here: sizes not compared\n");
    }
    /* The cached copy is the same probe. */
    CHECK(memcmp(fdnn_cpu_features(), &f, sizeof(f)) == 0);
    CHECK(strcmp(fdnn_cpu_name(), f.name) == 0);
    CHECK(fdnn_cpu_l1d_bytes() == f.l1d_bytes && fdnn_cpu_l2_bytes() == f.l2_bytes);

    fdnn_isa_t want = FDNN_ISA_SCALAR;
    if (FDNN_ARCH_X86 && f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq)
        want = FDNN_ISA_AVX512;
    else if (FDNN_ARCH_X86 && f.avx2 && f.fma3 && f.f16c)
        want = FDNN_ISA_AVX2;
    else if (FDNN_ARCH_ARM64 && f.asimd)
        want = FDNN_ISA_NEON;
    CHECK_MSG(fdnn_cpu_detected_isa() == want, "detected %s, flags give %s",
              fdnn_isa_name(fdnn_cpu_detected_isa()), fdnn_isa_name(want));
    /* main() set FREEDNN_MAX_ISA=avx2 before the first detection: it caps
     * an x86 level and leaves an AArch64 one as it is. */
    fdnn_isa_t capped = FDNN_ARCH_X86 && want > FDNN_ISA_AVX2 ? FDNN_ISA_AVX2 : want;
    CHECK_MSG(fdnn_cpu_max_isa() == capped, "capped %s", fdnn_isa_name(fdnn_cpu_max_isa()));
}

int
main(void)
{
    setenv("FREEDNN_MAX_ISA", "avx2", 1);
    test_sysfs_fake();
    test_against_linux();
    return fdnn_test_finish("test_cpu_probe");
}
