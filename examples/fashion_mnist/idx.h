/* SPDX-License-Identifier: Apache-2.0
 * Reading the IDX files of (Fashion-)MNIST, gzip-compressed or not. */
#ifndef FASHION_IDX_H
#define FASHION_IDX_H

#include <stddef.h>
#include <stdint.h>

typedef struct dataset {
    size_t count;    /* images */
    int rows, cols;  /* 28 x 28 */
    uint8_t *pixels; /* count * rows * cols, row-major */
    uint8_t *labels; /* count, 0..9 */
} dataset_t;

/* Loads `<dir>/<prefix>-images-idx3-ubyte[.gz]` and the matching labels.
 * On failure prints what is wrong with which file and returns -1. */
int dataset_load(dataset_t *ds, const char *dir, const char *prefix);
void dataset_free(dataset_t *ds);

#endif
