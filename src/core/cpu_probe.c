/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN's own CPU probe: instruction sets, cache sizes and the name.
 * See cpu.h; docs/architecture.md ("Dependencies") says why this replaced
 * the cpuinfo library.
 *
 * x86 facts used (Intel SDM vol. 2A "CPUID", AMD APM vol. 3 appendix E):
 *   leaf 1 ECX: bit 12 FMA, 27 OSXSAVE, 28 AVX, 29 F16C;
 *   leaf 7.0 EBX: bit 5 AVX2, 16 AVX512F, 17 AVX512DQ, 30 AVX512BW,
 *               31 AVX512VL; ECX bit 11 AVX512_VNNI;
 *   leaf 7.1 EAX: bit 5 AVX512_BF16;
 *   XCR0 (XGETBV 0): bits 1-2 SSE/AVX state, 5-7 opmask/ZMM state.  The
 *   instructions fault (#UD) unless the OS enabled their state in XCR0,
 *   whatever CPUID says, so each flag requires both;
 *   leaf 4 (Intel) and 0x8000001D (AMD, with TOPOEXT) subleaf n: EAX[4:0]
 *   type (0 none, 1 data, 3 unified), EAX[7:5] level, EAX[25:14] logical
 *   processors sharing - 1; size = ways * partitions * line * sets, each
 *   field (EBX[31:22], EBX[21:12], EBX[11:0], ECX) plus one;
 *   0x80000005 ECX[31:24] L1d KiB, 0x80000006 ECX[31:16] L2 KiB (AMD);
 *   0x80000002..4: the 48-byte brand string. */
#define _DEFAULT_SOURCE
#include "core/cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/os.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define FDNN_CPU_X86 1
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#define FDNN_CPU_ARM64_LINUX 1
#endif

/* Reads a small sysfs file into buf; 0 when unreadable or empty. */
static int
read_text(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return n > 0;
}

/* CPUs in a list such as "0-3,8,10-11"; 0 when malformed. */
static size_t
count_cpu_list(const char *s)
{
    size_t count = 0;
    while (*s != '\0') {
        char *end;
        unsigned long lo = strtoul(s, &end, 10), hi = lo;
        if (end == s)
            return 0;
        s = end;
        if (*s == '-') {
            hi = strtoul(s + 1, &end, 10);
            if (end == s + 1 || hi < lo)
                return 0;
            s = end;
        }
        count += hi - lo + 1;
        if (*s == ',')
            s++;
        else if (*s != '\0')
            return 0;
    }
    return count;
}

int
fdnn_cpu_sysfs_caches(const char *root, size_t *l1d, size_t *l2)
{
    int found = 0;
    for (int i = 0; i < 16; i++) {
        char dir[256], path[320], level[16], type[32], size[32], shared[256];
        snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu/cpu0/cache/index%d", root, i);
        snprintf(path, sizeof(path), "%s/level", dir);
        if (!read_text(path, level, sizeof(level)))
            continue; /* indices may have gaps; the loop is bounded anyway */
        snprintf(path, sizeof(path), "%s/type", dir);
        if (!read_text(path, type, sizeof(type)) || strcmp(type, "Instruction") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/size", dir);
        if (!read_text(path, size, sizeof(size)))
            continue;
        char *end;
        unsigned long long bytes = strtoull(size, &end, 10);
        if (*end == 'K')
            bytes <<= 10;
        else if (*end == 'M')
            bytes <<= 20;
        else if (*end == 'G')
            bytes <<= 30;
        if (bytes == 0)
            continue;
        snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
        size_t sharing = read_text(path, shared, sizeof(shared)) ? count_cpu_list(shared) : 0;
        if (strcmp(level, "1") == 0 && strcmp(type, "Data") == 0) {
            *l1d = (size_t)bytes;
            found = 1;
        } else if (strcmp(level, "2") == 0) {
            *l2 = (size_t)bytes / (sharing > 0 ? sharing : 1);
            found = 1;
        }
    }
    return found;
}

#if FDNN_CPU_X86
typedef struct regs {
    unsigned a, b, c, d;
} regs_t;

/* One CPUID leaf/subleaf; all zero when the leaf is beyond the maximum
 * (which __get_cpuid_count checks for basic and extended leaves). */
static regs_t
cpuid(unsigned leaf, unsigned sub)
{
    regs_t r = {0, 0, 0, 0};
    if (!__get_cpuid_count(leaf, sub, &r.a, &r.b, &r.c, &r.d))
        memset(&r, 0, sizeof(r));
    return r;
}

static unsigned long long
xcr0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static bool
bit(unsigned word, int n)
{
    return (word >> n) & 1u;
}

/* L1d and the L2 share of one logical processor from the deterministic
 * cache leaf (4 or 0x8000001D); 0 when the leaf lists nothing.  The
 * sharing field is an upper bound (addressable IDs), so it is capped by
 * the online CPU count. */
static int
cache_leaf(unsigned leaf, size_t online, size_t *l1d, size_t *l2)
{
    int found = 0;
    for (unsigned sub = 0; sub < 16; sub++) {
        regs_t r = cpuid(leaf, sub);
        unsigned type = r.a & 0x1f, level = (r.a >> 5) & 7;
        if (type == 0)
            break;
        size_t bytes = (size_t)((r.b >> 22) + 1) * (((r.b >> 12) & 0x3ff) + 1) * ((r.b & 0xfff) + 1) *
                       ((size_t)r.c + 1);
        size_t sharing = ((r.a >> 14) & 0xfff) + 1;
        if (sharing > online)
            sharing = online;
        if (level == 1 && type == 1) {
            *l1d = bytes;
            found = 1;
        } else if (level == 2 && (type == 1 || type == 3)) {
            *l2 = bytes / sharing;
            found = 1;
        }
    }
    return found;
}

static void
probe_x86(fdnn_cpu_features_t *f, size_t online)
{
    regs_t v = cpuid(0, 0);
    unsigned max_leaf = v.a;
    char vendor[13];
    memcpy(vendor, &v.b, 4);
    memcpy(vendor + 4, &v.d, 4);
    memcpy(vendor + 8, &v.c, 4);
    vendor[12] = '\0';
    bool amd = strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0;

    regs_t l1 = cpuid(1, 0);
    regs_t l7 = max_leaf >= 7 ? cpuid(7, 0) : (regs_t){0, 0, 0, 0};
    regs_t l71 = max_leaf >= 7 && l7.a >= 1 ? cpuid(7, 1) : (regs_t){0, 0, 0, 0};
    unsigned long long xcr = bit(l1.c, 27) ? xcr0() : 0;
    bool os_avx = (xcr & 0x6) == 0x6;
    bool os_avx512 = os_avx && (xcr & 0xe0) == 0xe0;

    f->fma3 = os_avx && bit(l1.c, 12);
    f->f16c = os_avx && bit(l1.c, 29);
    f->avx2 = os_avx && bit(l1.c, 28) && bit(l7.b, 5);
    f->avx512f = os_avx512 && bit(l7.b, 16);
    f->avx512dq = os_avx512 && bit(l7.b, 17);
    f->avx512bw = os_avx512 && bit(l7.b, 30);
    f->avx512vl = os_avx512 && bit(l7.b, 31);
    f->avx512_vnni = os_avx512 && bit(l7.c, 11);
    f->avx512_bf16 = os_avx512 && bit(l71.a, 5);

    unsigned max_ext = cpuid(0x80000000u, 0).a;
    if (max_ext >= 0x80000004u) {
        char brand[49];
        for (unsigned i = 0; i < 3; i++) {
            regs_t r = cpuid(0x80000002u + i, 0);
            memcpy(brand + 16 * i, &r, 16);
        }
        brand[48] = '\0';
        const char *s = brand;
        while (*s == ' ')
            s++;
        size_t n = strlen(s);
        while (n > 0 && s[n - 1] == ' ')
            n--;
        if (n > 0) {
            if (n >= sizeof(f->name))
                n = sizeof(f->name) - 1;
            memcpy(f->name, s, n);
            f->name[n] = '\0';
        }
    }

    /* Caches: the deterministic leaf, else the OS (sysfs, Windows' processor
     * information), else AMD's legacy leaves. */
    bool topoext = max_ext >= 0x80000001u && bit(cpuid(0x80000001u, 0).c, 22);
    if (!amd && max_leaf >= 4 && cache_leaf(4, online, &f->l1d_bytes, &f->l2_bytes))
        return;
    if (amd && topoext && max_ext >= 0x8000001du &&
        cache_leaf(0x8000001du, online, &f->l1d_bytes, &f->l2_bytes))
        return;
    if (fdnn_os_cache_sizes(&f->l1d_bytes, &f->l2_bytes))
        return;
    if (amd && max_ext >= 0x80000006u) {
        f->l1d_bytes = (size_t)(cpuid(0x80000005u, 0).c >> 24) << 10;
        f->l2_bytes = (size_t)(cpuid(0x80000006u, 0).c >> 16) << 10;
    }
}
#endif

void
fdnn_cpu_probe(fdnn_cpu_features_t *f)
{
    memset(f, 0, sizeof(*f));
    strcpy(f->name, "unknown CPU");
#if FDNN_CPU_X86
    probe_x86(f, fdnn_os_online_cpus());
#else
    fdnn_os_cache_sizes(&f->l1d_bytes, &f->l2_bytes);
#if FDNN_CPU_ARM64_LINUX
    /* Linux arm64 AT_HWCAP bits (arch/arm64/include/uapi/asm/hwcap.h):
     * 1 ASIMD, 10 ASIMDHP, 20 ASIMDDP, 22 SVE.  AT_HWCAP2 below. */
    unsigned long hw = getauxval(AT_HWCAP);
    f->asimd = (hw >> 1) & 1;
    f->asimdhp = (hw >> 10) & 1;
    f->asimddp = (hw >> 20) & 1;
    f->sve = (hw >> 22) & 1;
    /* AT_HWCAP2 bits: 13 I8MM, 14 BF16. */
    unsigned long hw2 = getauxval(AT_HWCAP2);
    f->i8mm = (hw2 >> 13) & 1;
    f->bf16 = (hw2 >> 14) & 1;
#endif
#endif
}
