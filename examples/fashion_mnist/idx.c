/* SPDX-License-Identifier: Apache-2.0
 * IDX format: a big-endian magic (0x00000803 images, 0x00000801 labels), the
 * dimensions as big-endian 32-bit integers, then unsigned bytes. */
#include "idx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int
open_either(gzFile *f, char *path, size_t size, const char *dir, const char *name)
{
    snprintf(path, size, "%s/%s.gz", dir, name);
    *f = gzopen(path, "rb");
    if (*f == NULL) {
        snprintf(path, size, "%s/%s", dir, name);
        *f = gzopen(path, "rb");
    }
    if (*f == NULL) {
        fprintf(stderr, "fashion_mnist: cannot open %s/%s[.gz]; install Debian's dataset-fashion-mnist "
                        "or pass --data DIR\n", dir, name);
        return -1;
    }
    return 0;
}

static int
read_exact(gzFile f, void *buf, size_t n, const char *path)
{
    size_t done = 0;
    while (done < n) {
        unsigned chunk = n - done > (1u << 30) ? (1u << 30) : (unsigned)(n - done);
        int got = gzread(f, (char *)buf + done, chunk);
        if (got <= 0) {
            fprintf(stderr, "fashion_mnist: %s is truncated or corrupt (read %zu of %zu bytes)\n", path, done, n);
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

static int
read_header(gzFile f, const char *path, uint32_t magic, int ndims, uint32_t *dims)
{
    unsigned char raw[16];
    if (read_exact(f, raw, 4 + 4 * (size_t)ndims, path) != 0)
        return -1;
    uint32_t got = (uint32_t)raw[0] << 24 | (uint32_t)raw[1] << 16 | (uint32_t)raw[2] << 8 | raw[3];
    if (got != magic) {
        fprintf(stderr, "fashion_mnist: %s is not an IDX file of the expected kind (magic 0x%08x, expected "
                        "0x%08x)\n", path, got, magic);
        return -1;
    }
    for (int i = 0; i < ndims; i++) {
        const unsigned char *p = raw + 4 + 4 * i;
        dims[i] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    }
    return 0;
}

int
dataset_load(dataset_t *ds, const char *dir, const char *prefix)
{
    memset(ds, 0, sizeof(*ds));
    char name[256], path[1024];
    gzFile f;
    uint32_t dims[3];

    snprintf(name, sizeof(name), "%s-images-idx3-ubyte", prefix);
    if (open_either(&f, path, sizeof(path), dir, name) != 0)
        return -1;
    if (read_header(f, path, 0x00000803u, 3, dims) != 0 || dims[0] == 0 || dims[0] > 1000000 || dims[1] != 28 ||
        dims[2] != 28) {
        fprintf(stderr, "fashion_mnist: %s: unexpected image header\n", path);
        gzclose(f);
        return -1;
    }
    ds->count = dims[0];
    ds->rows = (int)dims[1];
    ds->cols = (int)dims[2];
    ds->pixels = malloc(ds->count * 28 * 28);
    if (ds->pixels == NULL || read_exact(f, ds->pixels, ds->count * 28 * 28, path) != 0) {
        gzclose(f);
        dataset_free(ds);
        return -1;
    }
    gzclose(f);

    snprintf(name, sizeof(name), "%s-labels-idx1-ubyte", prefix);
    if (open_either(&f, path, sizeof(path), dir, name) != 0) {
        dataset_free(ds);
        return -1;
    }
    if (read_header(f, path, 0x00000801u, 1, dims) != 0 || dims[0] != ds->count) {
        fprintf(stderr, "fashion_mnist: %s: label count does not match the %zu images\n", path, ds->count);
        gzclose(f);
        dataset_free(ds);
        return -1;
    }
    ds->labels = malloc(ds->count);
    if (ds->labels == NULL || read_exact(f, ds->labels, ds->count, path) != 0) {
        gzclose(f);
        dataset_free(ds);
        return -1;
    }
    gzclose(f);
    for (size_t i = 0; i < ds->count; i++) {
        if (ds->labels[i] > 9) {
            fprintf(stderr, "fashion_mnist: %s: label %u of image %zu is out of range\n", path, ds->labels[i], i);
            dataset_free(ds);
            return -1;
        }
    }
    return 0;
}

void
dataset_free(dataset_t *ds)
{
    free(ds->pixels);
    free(ds->labels);
    memset(ds, 0, sizeof(*ds));
}
