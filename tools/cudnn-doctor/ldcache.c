/* SPDX-License-Identifier: Apache-2.0
 * /etc/ld.so.cache, read directly (no ldconfig -p).  Layout, as glibc's
 * ldconfig writes it (all little-endian on the platforms we read):
 *
 *   optional old table: "ld.so-1.7.0" (11 bytes), pad to 12, nlibs u32,
 *                       nlibs x {flags i32, key u32, value u32}; the new
 *                       header follows at the next multiple of 8.
 *   new header (48 bytes): "glibc-ld.so.cache" "1.1" (20 bytes), nlibs u32,
 *                       len_strings u32, flags u8, 3 pad, extension_offset
 *                       u32, 3 x u32 unused;
 *   nlibs x 24-byte entries: flags i32, key u32, value u32, osversion u32,
 *                       hwcap u64.  key/value are offsets of NUL-terminated
 *                       strings counted from the start of the new header.
 * Entries are ordered as the loader searches them; the first entry whose
 * key matches (and whose ELF class fits) wins. */
#include "doctor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_MAGIC "glibc-ld.so.cache1.1"

static uint32_t
le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int
dr_ldcache_load(const char *path, struct dr_ldcache *c)
{
    memset(c, 0, sizeof *c);
    if (dr_read_file(path, (size_t)1 << 28, &c->data, &c->size) != 0) {
        dr_fmt(c->error, sizeof c->error, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    size_t hdr = 0;
    if (c->size >= 16 && memcmp(c->data, OLD_MAGIC, 11) == 0) {
        uint64_t nold = le32(c->data + 12);
        hdr = (size_t)((16 + nold * 12 + 7) & ~(uint64_t)7);
    }
    if (hdr > c->size || c->size - hdr < 48 || memcmp(c->data + hdr, NEW_MAGIC, 20) != 0) {
        dr_fmt(c->error, sizeof c->error, "%s is not in the glibc-ld.so.cache1.1 format", path);
        return -1;
    }
    const unsigned char *base = c->data + hdr;
    size_t avail = c->size - hdr;
    uint64_t n = le32(base + 20);
    if (n > (avail - 48) / 24) {
        dr_fmt(c->error, sizeof c->error, "%s is truncated", path);
        return -1;
    }
    c->entries = calloc(n > 0 ? n : 1, sizeof *c->entries);
    if (c->entries == NULL) {
        dr_copy(c->error, sizeof c->error, "out of memory");
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *e = base + 48 + 24 * i;
        uint32_t key = le32(e + 4), value = le32(e + 8);
        if (key >= avail || value >= avail)
            continue;
        /* Strings must end inside the file (data is NUL-terminated past the
         * end by dr_read_file, so memchr over `avail` bytes is enough). */
        if (memchr(base + key, 0, avail - key) == NULL || memchr(base + value, 0, avail - value) == NULL)
            continue;
        c->entries[c->n].flags = (int32_t)le32(e);
        c->entries[c->n].key = (const char *)base + key;
        c->entries[c->n].value = (const char *)base + value;
        c->n++;
    }
    return 0;
}

void
dr_ldcache_free(struct dr_ldcache *c)
{
    free(c->entries);
    free(c->data);
    memset(c, 0, sizeof *c);
}
