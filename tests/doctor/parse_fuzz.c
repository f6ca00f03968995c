/* SPDX-License-Identifier: Apache-2.0
 * The doctor reads files it does not trust (a broken install is the normal
 * case), so its ELF, PE and ld.so.cache readers must survive any input.
 * This program takes sample files and, for each, parses many damaged
 * variants from a seeded mutation loop (reproducible: the same seed gives
 * the same variants):
 *   - truncations at every length up to 4 KiB, then spread over the file;
 *   - 1 to 8 bytes overwritten with random values or 0xff, half of them in
 *     the first 1 KiB where the headers live;
 *   - aligned 16/32-bit words (offsets, sizes, counts, RVAs) set to edge
 *     values: 0, all ones, 0x7fffffff, the file size, just past it, random.
 * The ELF and PE readers get each variant in a buffer of exactly its size
 * whose end touches an unmapped page: a read past the end faults at once,
 * with or without ASan.  The ld.so.cache reader reads a file, so its
 * variants are written to a temporary file.  Every parse must return; the
 * undamaged samples must parse.
 *
 * usage: parse_fuzz elf|pe|ldcache [-n ROUNDS] [-s SEED] FILE [FILE...] */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint32_t seed = 12345u;

static uint32_t
next(void)
{
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
}

/* A buffer of n bytes that ends exactly at an inaccessible page. */
struct guarded {
    unsigned char *map;
    size_t map_len;
    unsigned char *data;
};

static void
guarded_alloc(struct guarded *g, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (n + page - 1) / page * page;
    g->map_len = body + page;
    g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED || mprotect(g->map + body, page, PROT_NONE) != 0) {
        perror("mmap");
        exit(2);
    }
    g->data = g->map + body - n;
}

static void
guarded_free(struct guarded *g)
{
    munmap(g->map, g->map_len);
}

static char tmp[] = "/tmp/doctor-fuzz-XXXXXX";

/* Parses the n bytes at `data`.  For ELF and PE, `data` must end at the
 * guard page (see main).  Returns 1 parsed, 0 rejected, -1 when the reader
 * handed out a string that is empty or outside the file. */
static int
parse(const char *kind, const unsigned char *data, size_t n)
{
    if (kind[0] == 'e') {
        static struct dr_elf e;
        dr_elf_parse(data, n, &e);
        return e.ok;
    }
    if (kind[0] == 'p') {
        static struct dr_pe p;
        dr_pe_parse(data, n, &p);
        for (int i = 0; p.ok && i < p.n_imports; i++)
            if (p.imports[i][0] == 0)
                return -1;
        return p.ok;
    }
    FILE *f = fopen(tmp, "wb");
    if (f == NULL || fwrite(data, 1, n, f) != n) {
        perror(tmp);
        exit(2);
    }
    fclose(f);
    struct dr_ldcache c;
    int ok = dr_ldcache_load(tmp, &c) == 0;
    /* Every entry handed out must be a string inside the file. */
    for (int i = 0; ok && i < c.n; i++)
        if (strlen(c.entries[i].key) > c.size || strlen(c.entries[i].value) > c.size)
            ok = -1;
    dr_ldcache_free(&c);
    return ok;
}

static void
put_le(unsigned char *p, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

int
main(int argc, char **argv)
{
    int rounds = 2000, a = 2;
    if (argc < 3) {
        fprintf(stderr, "usage: parse_fuzz elf|pe|ldcache [-n ROUNDS] [-s SEED] FILE...\n");
        return 2;
    }
    const char *kind = argv[1];
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (strcmp(argv[a], "-n") == 0)
            rounds = atoi(argv[a + 1]);
        else if (strcmp(argv[a], "-s") == 0)
            seed = (uint32_t)strtoul(argv[a + 1], NULL, 0);
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        perror("mkstemp");
        return 2;
    }
    close(fd);
    int failures = 0, runs = 0;
    for (; a < argc; a++) {
        unsigned char *data;
        size_t size;
        if (dr_read_file(argv[a], (size_t)1 << 26, &data, &size) != 0) {
            perror(argv[a]);
            return 2;
        }
        struct guarded g;
        guarded_alloc(&g, size);
        unsigned char *end = g.data + size;          /* the guard page starts here */
        memcpy(g.data, data, size);
        if (parse(kind, g.data, size) != 1) {
            fprintf(stderr, "FAIL: %s does not parse undamaged\n", argv[a]);
            failures++;
        }
        /* Truncations: the first len bytes, placed against the guard. */
        for (size_t len = 0; len < size; len += len < 4096 ? 1 + (kind[0] == 'l') * 7 : size / 128 + 1) {
            memcpy(end - len, data, len);
            if (parse(kind, end - len, len) < 0)
                failures++;
            runs++;
        }
        /* Overwrites, undone after each parse. */
        memcpy(g.data, data, size);
        size_t head = size < 1024 ? size : 1024;
        for (int m = 0; m < rounds && size >= 4; m++) {
            size_t undo_at[8];
            int count = 1 + (int)(next() % 8);
            for (int k = 0; k < count; k++) {
                size_t at = (m & 1) ? next() % head : next() % size;
                if (m % 3 == 2) {
                    at &= ~(size_t)1;
                    int bytes = (next() & 1) ? 4 : 2;
                    if (at + (size_t)bytes > size)
                        at = size - (size_t)bytes;
                    static const uint32_t edge[] = {0, 0xffffffffu, 0x7fffffffu, 0x80000000u, 1, 0xfffffff0u};
                    uint32_t v = next() % 3 == 0 ? (uint32_t)size + (next() % 3) - 1
                                 : next() % 2 ? edge[next() % 6] : next() * 7919u;
                    put_le(g.data + at, v, bytes);
                } else {
                    g.data[at] = (next() & 1) ? (unsigned char)next() : 0xff;
                }
                undo_at[k] = at;
            }
            if (parse(kind, g.data, size) < 0) {
                fprintf(stderr, "FAIL: round %d of %s hands out an empty or outside string\n", m, argv[a]);
                failures++;
            }
            runs++;
            for (int k = 0; k < count; k++) {
                size_t at = undo_at[k] < size - 4 ? undo_at[k] : size - 4;
                memcpy(g.data + at, data + at, 4);
            }
        }
        guarded_free(&g);
        free(data);
    }
    unlink(tmp);
    printf("%d damaged files parsed, %d failed\n", runs, failures);
    return failures ? 1 : 0;
}
