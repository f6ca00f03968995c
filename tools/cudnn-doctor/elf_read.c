/* SPDX-License-Identifier: Apache-2.0
 * Reading an ELF shared object without loading it: class and machine, the
 * dynamic section (SONAME, DT_NEEDED, DT_RPATH, DT_RUNPATH), the symbol
 * version definitions and whether a few names are exported.
 *
 * The file is mapped read-only and every offset is bounds-checked before
 * use, so a truncated or hostile file gives an error string, never a crash.
 * 32- and 64-bit little-endian files are read; field offsets follow the
 * System V gABI tables (the layouts are spelled out below rather than taken
 * from <elf.h> so that one code path serves both classes). */
#include "doctor.h"

#include <stdio.h>
#include <string.h>

struct elf_file {
    const unsigned char *p;
    size_t size;
    bool is64;
};

static bool
in_bounds(const struct elf_file *f, uint64_t off, uint64_t len)
{
    return off <= f->size && len <= f->size - off;
}

static uint64_t
rd(const struct elf_file *f, uint64_t off, int bytes)
{
    uint64_t v = 0;
    if (!in_bounds(f, off, (uint64_t)bytes))
        return 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | f->p[off + (uint64_t)i];
    return v;
}

/* A word of the file's class: 8 bytes in ELF64, 4 in ELF32. */
static uint64_t
rdw(const struct elf_file *f, uint64_t off)
{
    return rd(f, off, f->is64 ? 8 : 4);
}

struct seg {
    uint64_t type, offset, vaddr, filesz;
};

/* Program header i, normalised.  ELF64: type@0 flags@4 offset@8 vaddr@16
 * paddr@24 filesz@32; ELF32: type@0 offset@4 vaddr@8 paddr@12 filesz@16. */
static struct seg
phdr(const struct elf_file *f, uint64_t base)
{
    struct seg s;
    s.type = rd(f, base, 4);
    if (f->is64) {
        s.offset = rd(f, base + 8, 8);
        s.vaddr = rd(f, base + 16, 8);
        s.filesz = rd(f, base + 32, 8);
    } else {
        s.offset = rd(f, base + 4, 4);
        s.vaddr = rd(f, base + 8, 4);
        s.filesz = rd(f, base + 16, 4);
    }
    return s;
}

#define MAX_LOADS 32

/* A NUL-terminated string at `off` inside the file, or NULL. */
static const char *
str_at(const struct elf_file *f, uint64_t off, uint64_t limit)
{
    if (off >= f->size || off >= limit)
        return NULL;
    const unsigned char *end = memchr(f->p + off, 0, (size_t)((limit < f->size ? limit : f->size) - off));
    return end != NULL ? (const char *)f->p + off : NULL;
}

static void
parse(const struct elf_file *f, struct dr_elf *out)
{
    /* e_type@16 e_machine@18; ELF64: e_phoff@32 e_shoff@40 e_phentsize@54
     * e_phnum@56 e_shentsize@58 e_shnum@60; ELF32: e_phoff@28 e_shoff@32
     * e_phentsize@42 e_phnum@44 e_shentsize@46 e_shnum@48. */
    out->is_shared = rd(f, 16, 2) == 3;
    out->machine = (int)rd(f, 18, 2);
    uint64_t phoff = f->is64 ? rd(f, 32, 8) : rd(f, 28, 4);
    uint64_t shoff = f->is64 ? rd(f, 40, 8) : rd(f, 32, 4);
    uint64_t phent = rd(f, f->is64 ? 54 : 42, 2), phnum = rd(f, f->is64 ? 56 : 44, 2);
    uint64_t shent = rd(f, f->is64 ? 58 : 46, 2), shnum = rd(f, f->is64 ? 60 : 48, 2);

    struct seg loads[MAX_LOADS];
    int n_loads = 0;
    struct seg dyn = {0, 0, 0, 0};
    bool have_dyn = false;
    for (uint64_t i = 0; i < phnum && phent >= (f->is64 ? 56u : 32u); i++) {
        uint64_t base = phoff + i * phent;
        if (!in_bounds(f, base, phent))
            break;
        struct seg s = phdr(f, base);
        if ((s.type == 1 || s.type == 2) && !in_bounds(f, s.offset, s.filesz)) {
            /* The loader would map pages past the end (SIGBUS) or refuse. */
            dr_fmt(out->error, sizeof out->error, "truncated: a segment ends past the end of the file (%zu bytes)",
                   f->size);
            return;
        }
        if (s.type == 1 /* PT_LOAD */ && n_loads < MAX_LOADS)
            loads[n_loads++] = s;
        else if (s.type == 2 /* PT_DYNAMIC */) {
            dyn = s;
            have_dyn = true;
        }
    }
    if (!have_dyn) {
        dr_copy(out->error, sizeof out->error, "no dynamic section (static or not a shared object)");
        return;
    }

    /* Addresses in the dynamic section are virtual; map through PT_LOAD. */
#define VA2OFF(va, res)                                                                      \
    do {                                                                                     \
        res = UINT64_MAX;                                                                    \
        for (int k_ = 0; k_ < n_loads; k_++)                                                 \
            if ((va) >= loads[k_].vaddr && (va) < loads[k_].vaddr + loads[k_].filesz)        \
                res = loads[k_].offset + ((va) - loads[k_].vaddr);                           \
    } while (0)

    uint64_t entsz = f->is64 ? 16 : 8;
    uint64_t strtab_va = 0, strsz = 0, verdef_va = 0, verdefnum = 0, symtab_va = 0, hash_va = 0;
    for (uint64_t off = dyn.offset; off + entsz <= dyn.offset + dyn.filesz; off += entsz) {
        uint64_t tag = rdw(f, off), val = rdw(f, off + entsz / 2);
        if (tag == 0)
            break;
        switch (tag) {
        case 5: strtab_va = val; break;   /* DT_STRTAB */
        case 10: strsz = val; break;      /* DT_STRSZ */
        case 6: symtab_va = val; break;   /* DT_SYMTAB */
        case 4: hash_va = val; break;     /* DT_HASH */
        case 0x6ffffffc: verdef_va = val; break;   /* DT_VERDEF */
        case 0x6ffffffd: verdefnum = val; break;   /* DT_VERDEFNUM */
        default: break;
        }
    }
    uint64_t strtab;
    VA2OFF(strtab_va, strtab);
    if (strtab == UINT64_MAX || !in_bounds(f, strtab, strsz)) {
        dr_copy(out->error, sizeof out->error, "dynamic string table outside the file");
        return;
    }
    uint64_t strend = strtab + strsz;

    for (uint64_t off = dyn.offset; off + entsz <= dyn.offset + dyn.filesz; off += entsz) {
        uint64_t tag = rdw(f, off), val = rdw(f, off + entsz / 2);
        if (tag == 0)
            break;
        const char *s = (tag == 1 || tag == 14 || tag == 15 || tag == 29) ? str_at(f, strtab + val, strend) : NULL;
        if (s == NULL)
            continue;
        if (tag == 1 && out->n_needed < DR_MAX_NEEDED)       /* DT_NEEDED */
            dr_copy(out->needed[out->n_needed++], sizeof out->needed[0], s);
        else if (tag == 14)                                 /* DT_SONAME */
            dr_copy(out->soname, sizeof out->soname, s);
        else if (tag == 15)                                 /* DT_RPATH */
            dr_copy(out->rpath, sizeof out->rpath, s);
        else if (tag == 29)                                 /* DT_RUNPATH */
            dr_copy(out->runpath, sizeof out->runpath, s);
    }

    /* Version definitions: Elf_Verdef is 20 bytes in both classes:
     * version@0 flags@2 ndx@4 cnt@6 hash@8 aux@12 next@16; Elf_Verdaux is
     * name@0 next@4. */
    uint64_t vd;
    VA2OFF(verdef_va, vd);
    for (uint64_t i = 0; verdef_va != 0 && vd != UINT64_MAX && i < verdefnum && i < 64; i++) {
        if (!in_bounds(f, vd, 20))
            break;
        uint64_t aux = vd + rd(f, vd + 12, 4);
        const char *name = in_bounds(f, aux, 8) ? str_at(f, strtab + rd(f, aux, 4), strend) : NULL;
        if (name != NULL && out->n_verdefs < 8)
            dr_copy(out->verdefs[out->n_verdefs++], sizeof out->verdefs[0], name);
        uint64_t next = rd(f, vd + 16, 4);
        if (next == 0)
            break;
        vd += next;
    }

    /* The number of dynamic symbols: from the .dynsym section header when
     * the file has section headers, else DT_HASH's nchain. */
    uint64_t nsyms = 0;
    uint64_t symsz = f->is64 ? 24 : 16;
    for (uint64_t i = 0; i < shnum && shent >= (f->is64 ? 64u : 40u); i++) {
        uint64_t base = shoff + i * shent;
        if (!in_bounds(f, base, shent))
            break;
        if (rd(f, base + 4, 4) == 11 /* SHT_DYNSYM */) {
            uint64_t size = f->is64 ? rd(f, base + 32, 8) : rd(f, base + 20, 4);
            nsyms = size / symsz;
        }
    }
    if (nsyms == 0 && hash_va != 0) {
        uint64_t h;
        VA2OFF(hash_va, h);
        if (h != UINT64_MAX)
            nsyms = rd(f, h + 4, 4);
    }
    uint64_t sym;
    VA2OFF(symtab_va, sym);
    for (uint64_t i = 1; sym != UINT64_MAX && i < nsyms; i++) {
        uint64_t base = sym + i * symsz;
        if (!in_bounds(f, base, symsz))
            break;
        /* ELF64: name@0 info@4 other@5 shndx@6; ELF32: name@0 ... shndx@14. */
        uint64_t shndx = rd(f, base + (f->is64 ? 6 : 14), 2);
        if (shndx == 0)
            continue;                                        /* undefined: imported */
        const char *name = str_at(f, strtab + rd(f, base, 4), strend);
        if (name == NULL)
            continue;
        if (strcmp(name, "cudnnGetVersion") == 0)
            out->exports_get_version = true;
        else if (strcmp(name, "freednnSetIsa") == 0)
            out->exports_freednn = true;
    }
#undef VA2OFF
    out->ok = true;
}

void
dr_elf_parse(const unsigned char *data, size_t size, struct dr_elf *out)
{
    memset(out, 0, sizeof *out);
    struct elf_file f = {data, size, false};
    if (size < 64 || memcmp(f.p, "\177ELF", 4) != 0) {
        /* A linker script ("GROUP ( ... )") or text stub is not loadable. */
        dr_copy(out->error, sizeof out->error, size < 64 ? "too small to be an ELF file" : "not an ELF file");
    } else if (f.p[5] != 1) {
        dr_copy(out->error, sizeof out->error, "big-endian ELF, not readable here");
    } else {
        out->elf_class = f.p[4];
        f.is64 = f.p[4] == 2;
        if (f.p[4] != 1 && f.p[4] != 2)
            dr_copy(out->error, sizeof out->error, "unknown ELF class");
        else
            parse(&f, out);
    }
}

void
dr_elf_read(const char *path, struct dr_elf *out)
{
    memset(out, 0, sizeof *out);
    struct dr_map m;
    if (dr_plat_map(path, &m, out->error, sizeof out->error) != 0) {
        if (strstr(out->error, "empty") != NULL)
            dr_copy(out->error, sizeof out->error, "too small to be an ELF file");
        return;
    }
    if (m.size < 64) {
        dr_plat_unmap(&m);
        dr_copy(out->error, sizeof out->error, "too small to be an ELF file");
        return;
    }
    dr_elf_parse(m.data, m.size, out);
    dr_plat_unmap(&m);
}

#if defined(__x86_64__)
#define HOST_MACHINE 62 /* EM_X86_64 */
#elif defined(__aarch64__)
#define HOST_MACHINE 183 /* EM_AARCH64 */
#elif defined(__powerpc64__)
#define HOST_MACHINE 21 /* EM_PPC64 */
#else
#define HOST_MACHINE -1
#endif

bool
dr_elf_loadable_machine(const struct dr_elf *e)
{
    return HOST_MACHINE < 0 || e->machine == HOST_MACHINE;
}

bool
dr_elf_loadable(const struct dr_elf *e)
{
    return e->ok && e->elf_class == (sizeof(void *) == 8 ? 2 : 1) && dr_elf_loadable_machine(e);
}

const char *
dr_elf_machine_name(int machine)
{
    switch (machine) {
    case 3: return "i386";
    case 62: return "x86-64";
    case 183: return "aarch64";
    case 21: return "ppc64";
    case 40: return "arm";
    default: return "other";
    }
}
