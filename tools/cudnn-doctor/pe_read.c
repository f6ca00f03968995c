/* SPDX-License-Identifier: Apache-2.0
 * Reading a Windows DLL (PE/COFF) on any system: the machine it is built
 * for, the DLLs it imports (import table and delay-import table) and its
 * file version.  No Windows is needed; this is how the doctor checks a
 * copied cudnn-windows-x86_64-*-archive folder.
 *
 * Layout used (Microsoft PE format specification):
 *   0x3c           e_lfanew: offset of "PE\0\0"
 *   +4  (COFF)     Machine u16, NumberOfSections u16 @+6, SizeOfOptionalHeader u16 @+20
 *   +24 (optional) Magic u16: 0x10b PE32, 0x20b PE32+; data directories at
 *                  +96 (PE32) / +112 (PE32+), count just before them;
 *                  entry 1 = imports, 2 = resources, 13 = delay imports
 *   sections       40 bytes each: VirtualSize @8, VirtualAddress @12,
 *                  SizeOfRawData @16, PointerToRawData @20
 *   import desc.   20 bytes, Name RVA @12, all-zero terminator
 *   delay desc.    32 bytes, DllName RVA @4, all-zero terminator
 * The file version is the VS_FIXEDFILEINFO block (signature 0xFEEF04BD,
 * then StrucVersion, FileVersionMS, FileVersionLS) found in the resource
 * section.  Every offset is bounds-checked. */
#include "doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct pe_file {
    const unsigned char *p;
    size_t size;
    uint64_t sec;       /* offset of the section table */
    unsigned nsec;
};

static bool
ok(const struct pe_file *f, uint64_t off, uint64_t len)
{
    return off <= f->size && len <= f->size - off;
}

static uint32_t
u32(const struct pe_file *f, uint64_t off)
{
    if (!ok(f, off, 4))
        return 0;
    return (uint32_t)f->p[off] | (uint32_t)f->p[off + 1] << 8 | (uint32_t)f->p[off + 2] << 16 |
           (uint32_t)f->p[off + 3] << 24;
}

static uint16_t
u16(const struct pe_file *f, uint64_t off)
{
    return ok(f, off, 2) ? (uint16_t)(f->p[off] | f->p[off + 1] << 8) : 0;
}

/* File offset of a relative virtual address, or UINT64_MAX. */
static uint64_t
rva2off(const struct pe_file *f, uint32_t rva)
{
    for (unsigned i = 0; i < f->nsec; i++) {
        uint64_t s = f->sec + 40u * i;
        uint32_t vsize = u32(f, s + 8), va = u32(f, s + 12), rawsize = u32(f, s + 16), raw = u32(f, s + 20);
        uint32_t span = vsize > rawsize ? vsize : rawsize;
        if (rva >= va && rva - va < span) {
            if (rva - va >= rawsize)
                return UINT64_MAX;                       /* in the zero-filled tail */
            return (uint64_t)raw + (rva - va);
        }
    }
    return UINT64_MAX;
}

static void
add_import(const struct pe_file *f, struct dr_pe *out, uint32_t name_rva)
{
    uint64_t off = rva2off(f, name_rva);
    if (off == UINT64_MAX || out->n_imports >= DR_PE_MAX_IMPORTS)
        return;
    const unsigned char *end = memchr(f->p + off, 0, f->size - off);
    if (end == NULL || end - (f->p + off) >= 64)
        return;
    dr_copy(out->imports[out->n_imports++], sizeof out->imports[0], (const char *)f->p + off);
}

static void
parse(struct pe_file *f, struct dr_pe *out)
{
    uint32_t pe = u32(f, 0x3c);
    if (!ok(f, pe, 24) || memcmp(f->p + pe, "PE\0\0", 4) != 0) {
        dr_copy(out->error, sizeof out->error, "no PE signature (DOS program or damaged file)");
        return;
    }
    out->machine = u16(f, pe + 4);
    f->nsec = u16(f, pe + 6);
    uint16_t optsize = u16(f, pe + 20);
    uint64_t opt = pe + 24;
    uint16_t magic = u16(f, opt);
    if (magic != 0x10b && magic != 0x20b) {
        dr_fmt(out->error, sizeof out->error, "unknown optional header magic 0x%x", magic);
        return;
    }
    out->pe32plus = magic == 0x20b;
    f->sec = opt + optsize;
    if (!ok(f, f->sec, 40ull * f->nsec)) {
        dr_copy(out->error, sizeof out->error, "section table outside the file");
        return;
    }
    uint64_t dirs = opt + (out->pe32plus ? 112 : 96);
    uint32_t ndirs = u32(f, dirs - 4);
    uint32_t imp_rva = ndirs > 1 ? u32(f, dirs + 8) : 0;
    uint32_t rsrc_rva = ndirs > 2 ? u32(f, dirs + 16) : 0, rsrc_size = ndirs > 2 ? u32(f, dirs + 20) : 0;
    uint32_t dly_rva = ndirs > 13 ? u32(f, dirs + 13 * 8) : 0;

    if (imp_rva != 0) {
        uint64_t d = rva2off(f, imp_rva);
        for (int i = 0; d != UINT64_MAX && i < 512 && ok(f, d, 20); i++, d += 20) {
            if (u32(f, d) == 0 && u32(f, d + 12) == 0 && u32(f, d + 16) == 0)
                break;
            add_import(f, out, u32(f, d + 12));
        }
    }
    int n_static = out->n_imports;
    if (dly_rva != 0) {
        uint64_t d = rva2off(f, dly_rva);
        for (int i = 0; d != UINT64_MAX && i < 512 && ok(f, d, 32); i++, d += 32) {
            if (u32(f, d + 4) == 0)
                break;
            add_import(f, out, u32(f, d + 4));
        }
    }
    out->n_delay = out->n_imports - n_static;

    if (rsrc_rva != 0) {
        uint64_t r = rva2off(f, rsrc_rva);
        if (r != UINT64_MAX && ok(f, r, 0)) {
            uint64_t end = r + rsrc_size < f->size ? r + rsrc_size : f->size;
            for (uint64_t o = r; o + 16 <= end; o += 4) {
                if (u32(f, o) == 0xFEEF04BDu) {
                    uint32_t ms = u32(f, o + 8), ls = u32(f, o + 12);
                    out->file_version[0] = (int)(ms >> 16);
                    out->file_version[1] = (int)(ms & 0xffff);
                    out->file_version[2] = (int)(ls >> 16);
                    out->file_version[3] = (int)(ls & 0xffff);
                    out->has_version = true;
                    break;
                }
            }
        }
    }
    out->ok = true;
}

void
dr_pe_read(const char *path, struct dr_pe *out)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        dr_fmt(out->error, sizeof out->error, "cannot open: %s", strerror(errno));
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 64) {
        dr_copy(out->error, sizeof out->error, "too small to be a DLL");
        close(fd);
        return;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        dr_fmt(out->error, sizeof out->error, "cannot map: %s", strerror(errno));
        return;
    }
    struct pe_file f = {map, (size_t)st.st_size, 0, 0};
    if (f.p[0] != 'M' || f.p[1] != 'Z')
        dr_copy(out->error, sizeof out->error, "not a DLL (no MZ header)");
    else
        parse(&f, out);
    munmap(map, (size_t)st.st_size);
}

const char *
dr_pe_machine_name(int machine)
{
    switch (machine) {
    case 0x8664: return "x64";
    case 0x14c: return "x86 (32-bit)";
    case 0xaa64: return "arm64";
    case 0x1c4: return "arm";
    default: return "unknown";
    }
}
