/* SPDX-License-Identifier: Apache-2.0
 * The INT8x32 filter and bias orders of cudnnReorderFilterAndBias (see
 * tensor_ops.h for the layout and where it comes from).  One pass, each
 * destination byte written once; a one-off preparation of the weights, so
 * plain loops on the calling thread. */
#include <assert.h>
#include <string.h>

#include "cpu/tensor/tensor_ops.h"

void
fdnn_reorder_int8x32_filter(const int8_t *src, int8_t *dst, int64_t k, int64_t row)
{
    assert(k % 8 == 0 && row % 32 == 0);
    const int64_t chunks = row / 32, groups = k / 8;
    int8_t *d = dst;
    /* Destination order, slowest first: chunk, group a, c, lane / 4, b,
     * lane % 4; the source byte is row o = 8a + 2b + c, column
     * chunk * 32 + lane. */
    for (int64_t t = 0; t < chunks; t++)
        for (int64_t a = 0; a < groups; a++)
            for (int c = 0; c < 2; c++)
                for (int y = 0; y < 8; y++)
                    for (int b = 0; b < 4; b++) {
                        const int8_t *s = src + (8 * a + 2 * b + c) * row + t * 32 + 4 * y;
                        d[0] = s[0];
                        d[1] = s[1];
                        d[2] = s[2];
                        d[3] = s[3];
                        d += 4;
                    }
}

void
fdnn_reorder_int8x32_bias(const void *src, void *dst, int64_t k, size_t esz)
{
    assert(k % 32 == 0);
    const char *s = src;
    char *d = dst;
    for (int64_t q = 0; q < k / 32; q++)
        for (int g = 0; g < 4; g++)
            for (int h = 0; h < 2; h++)
                memcpy(d + (q * 32 + 16 * h + 4 * g) * esz, s + (q * 32 + 8 * g + 4 * h) * esz, 4 * esz);
}
