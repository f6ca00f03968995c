/* SPDX-License-Identifier: Apache-2.0
 * The doctor reads files it does not trust (a broken install is the normal
 * case), so its ELF, PE and ld.so.cache readers must survive any input.
 * This program takes sample files, and for each one parses many damaged
 * variants: truncated at many lengths, and with bytes overwritten at
 * deterministic pseudo-random places (headers, tables, anywhere).  It
 * checks nothing but that every parse returns (run under ASan/UBSan it also
 * catches any read outside the file) and that the undamaged file parses.
 *
 * usage: parse_fuzz elf|pe|ldcache FILE [FILE...] */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint32_t seed = 12345u;

static uint32_t
next(void)
{
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
}

static int
parse(const char *kind, const char *path)
{
    if (strcmp(kind, "elf") == 0) {
        static struct dr_elf e;
        dr_elf_read(path, &e);
        return e.ok;
    }
    if (strcmp(kind, "pe") == 0) {
        static struct dr_pe p;
        dr_pe_read(path, &p);
        return p.ok;
    }
    struct dr_ldcache c;
    int ok = dr_ldcache_load(path, &c) == 0;
    /* Every entry handed out must be a string inside the file. */
    for (int i = 0; ok && i < c.n; i++)
        if (strlen(c.entries[i].key) > c.size || strlen(c.entries[i].value) > c.size)
            ok = 0;
    dr_ldcache_free(&c);
    return ok;
}

static void
write_file(const char *path, const unsigned char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, n, f) != n) {
        perror(path);
        exit(2);
    }
    fclose(f);
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: parse_fuzz elf|pe|ldcache FILE...\n");
        return 2;
    }
    const char *kind = argv[1];
    char tmp[] = "/tmp/doctor-fuzz-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) {
        perror("mkstemp");
        return 2;
    }
    close(fd);
    int failures = 0, runs = 0;
    for (int a = 2; a < argc; a++) {
        unsigned char *data;
        size_t size;
        if (dr_read_file(argv[a], (size_t)1 << 24, &data, &size) != 0) {
            perror(argv[a]);
            return 2;
        }
        if (!parse(kind, argv[a])) {
            fprintf(stderr, "FAIL: %s does not parse undamaged\n", argv[a]);
            failures++;
        }
        unsigned char *copy = malloc(size + 1);
        /* Truncations: every length up to 512, then 64 lengths spread over the file. */
        for (size_t len = 0; len < size; len += len < 512 ? 7 : size / 64 + 1) {
            write_file(tmp, data, len);
            parse(kind, tmp);
            runs++;
        }
        /* Overwrites: 1 to 8 bytes with random values or 0xff, half of them
         * in the first 512 bytes where the headers live. */
        for (int m = 0; m < 300; m++) {
            memcpy(copy, data, size);
            int count = 1 + (int)(next() % 8);
            for (int k = 0; k < count; k++) {
                size_t at = (m & 1) ? next() % (size < 512 ? size : 512) : next() % size;
                copy[at] = (next() & 1) ? (unsigned char)next() : 0xff;
            }
            write_file(tmp, copy, size);
            parse(kind, tmp);
            runs++;
        }
        free(copy);
        free(data);
    }
    unlink(tmp);
    printf("%d damaged files parsed, %d failed\n", runs, failures);
    return failures ? 1 : 0;
}
