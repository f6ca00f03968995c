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
 *   export dir.    NumberOfNames u32 @24, AddressOfNames (RVA of u32 name RVAs) @32
 *   import desc.   20 bytes, Name RVA @12, all-zero terminator
 *   delay desc.    32 bytes, DllName RVA @4, all-zero terminator
 * The file version is the VS_FIXEDFILEINFO block (signature 0xFEEF04BD,
 * then StrucVersion, FileVersionMS, FileVersionLS) found in the resource
 * section.  Every offset, size and RVA read from the file is checked
 * against the file before use (dr_pe_parse works on a buffer of exactly the
 * file's size, which tests/doctor/parse_fuzz.c places against an unmapped
 * page so that any read past the end faults): a damaged DLL gives an error
 * string, never a crash and never an empty or partial import name. */
#include "doctor.h"

#include <string.h>

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

/* File offset of a relative virtual address, or UINT64_MAX when the
 * address is in no section, in a section's zero-filled tail, or past the end
 * of the file. */
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
            uint64_t off = (uint64_t)raw + (rva - va);
            return off < f->size ? off : UINT64_MAX;
        }
    }
    return UINT64_MAX;
}

/* Adds the DLL name at name_rva.  A name that is not inside the file, not
 * NUL-terminated within 63 bytes, empty, or not printable ASCII means the
 * import table is damaged: returns false. */
static bool
add_import(const struct pe_file *f, struct dr_pe *out, uint32_t name_rva)
{
    uint64_t off = rva2off(f, name_rva);
    if (off == UINT64_MAX)
        return false;
    size_t avail = f->size - (size_t)off;
    const unsigned char *s = f->p + off;
    const unsigned char *end = memchr(s, 0, avail < 64 ? avail : 64);
    if (end == NULL || end == s)
        return false;
    for (const unsigned char *c = s; c < end; c++)
        if (*c < 0x20 || *c >= 0x7f)
            return false;
    if (out->n_imports < DR_PE_MAX_IMPORTS)
        dr_copy(out->imports[out->n_imports++], sizeof out->imports[0], (const char *)s);
    return true;
}

/* True when the NUL-terminated name at rva is `want`. */
static bool
name_is(const struct pe_file *f, uint32_t rva, const char *want)
{
    uint64_t off = rva2off(f, rva);
    size_t n = strlen(want) + 1;
    return off != UINT64_MAX && ok(f, off, n) && memcmp(f->p + off, want, n) == 0;
}

/* The two exported names the doctor looks for (cudnnGetVersion: a cuDNN
 * DLL one can ask its version; freednnSetIsa: FreeDNN's).  A damaged
 * export table only means they are not seen: Windows itself reads it only
 * when a caller asks for a name. */
static void
read_exports(const struct pe_file *f, uint32_t exp_rva, struct dr_pe *out)
{
    uint64_t e = rva2off(f, exp_rva);
    if (e == UINT64_MAX || !ok(f, e, 40))
        return;
    uint32_t n_names = u32(f, e + 24);
    uint64_t names = rva2off(f, u32(f, e + 32));
    if (names == UINT64_MAX)
        return;
    for (uint32_t i = 0; i < n_names && i < 100000 && ok(f, names + 4ull * i, 4); i++) {
        uint32_t rva = u32(f, names + 4ull * i);
        out->exports_get_version |= name_is(f, rva, "cudnnGetVersion");
        out->exports_freednn |= name_is(f, rva, "freednnSetIsa");
    }
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
    /* A section whose raw data ends past the end of the file: the DLL was
     * truncated (Windows refuses it: "not a valid Win32 application"). */
    for (unsigned i = 0; i < f->nsec; i++) {
        uint64_t s = f->sec + 40u * i;
        uint32_t rawsize = u32(f, s + 16), raw = u32(f, s + 20);
        if (rawsize != 0 && !ok(f, raw, rawsize)) {
            dr_fmt(out->error, sizeof out->error, "truncated: section %u ends at byte %llu, past the end of the "
                   "file (%zu bytes)", i + 1, (unsigned long long)raw + rawsize, f->size);
            return;
        }
    }
    /* Data directories: a count, then (RVA, size) pairs, all inside the
     * optional header. */
    uint64_t dirs = opt + (out->pe32plus ? 112 : 96);
    uint64_t ndirs = u32(f, dirs - 4);
    if (dirs > opt + optsize)
        ndirs = 0;
    else if (ndirs > (opt + optsize - dirs) / 8)
        ndirs = (opt + optsize - dirs) / 8;
    uint32_t exp_rva = ndirs > 0 ? u32(f, dirs) : 0;
    uint32_t imp_rva = ndirs > 1 ? u32(f, dirs + 8) : 0;
    uint32_t rsrc_rva = ndirs > 2 ? u32(f, dirs + 16) : 0, rsrc_size = ndirs > 2 ? u32(f, dirs + 20) : 0;
    uint32_t dly_rva = ndirs > 13 ? u32(f, dirs + 13 * 8) : 0;

    bool damaged = false;
    if (imp_rva != 0) {
        uint64_t d = rva2off(f, imp_rva);
        damaged |= d == UINT64_MAX;
        for (int i = 0; d != UINT64_MAX && i < 512; i++, d += 20) {
            if (!ok(f, d, 20)) {
                damaged = true;
                break;
            }
            if (u32(f, d) == 0 && u32(f, d + 12) == 0 && u32(f, d + 16) == 0)
                break;
            damaged |= !add_import(f, out, u32(f, d + 12));
        }
    }
    int n_static = out->n_imports;
    if (dly_rva != 0) {
        uint64_t d = rva2off(f, dly_rva);
        damaged |= d == UINT64_MAX;
        for (int i = 0; d != UINT64_MAX && i < 512; i++, d += 32) {
            if (!ok(f, d, 32)) {
                damaged = true;
                break;
            }
            if (u32(f, d + 4) == 0)
                break;
            damaged |= !add_import(f, out, u32(f, d + 4));
        }
    }
    out->n_delay = out->n_imports - n_static;
    if (damaged) {
        dr_copy(out->error, sizeof out->error, "damaged import table (a name or descriptor outside the file)");
        return;
    }

    if (exp_rva != 0)
        read_exports(f, exp_rva, out);
    if (rsrc_rva != 0) {
        uint64_t r = rva2off(f, rsrc_rva);
        if (r != UINT64_MAX) {
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
dr_pe_parse(const unsigned char *data, size_t size, struct dr_pe *out)
{
    memset(out, 0, sizeof *out);
    struct pe_file f = {data, size, 0, 0};
    if (size < 64)
        dr_copy(out->error, sizeof out->error, "too small to be a DLL");
    else if (data[0] != 'M' || data[1] != 'Z')
        dr_copy(out->error, sizeof out->error, "not a DLL (no MZ header)");
    else
        parse(&f, out);
}

void
dr_pe_read(const char *path, struct dr_pe *out)
{
    memset(out, 0, sizeof *out);
    struct dr_map m;
    if (dr_plat_map(path, &m, out->error, sizeof out->error) != 0) {
        if (strstr(out->error, "empty") != NULL)
            dr_copy(out->error, sizeof out->error, "too small to be a DLL");
        return;
    }
    if (m.size < 64) {
        dr_plat_unmap(&m);
        dr_copy(out->error, sizeof out->error, "too small to be a DLL");
        return;
    }
    dr_pe_parse(m.data, m.size, out);
    dr_plat_unmap(&m);
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
