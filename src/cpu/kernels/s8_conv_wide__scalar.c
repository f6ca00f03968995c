/* SPDX-License-Identifier: Apache-2.0
 * fdnn_s8_conv_wide__scalar: the wide encoding (int16 pairs) in portable
 * C, VK 16, MR 4.  See s8_conv.h. */
#include <stdint.h>
#include <string.h>

#include "cpu/kernels/s8_conv.h"

enum { VK = 16, MR = 4 };

static inline int16_t
ld16(const uint8_t *p)
{
    int16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* Not vectorized: GCC 12's vectorized form of the pixel loop read bytes
 * past the end of the packed input (valgrind, INT8x32 with m < MR), which
 * the loop as written never touches. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
void
fdnn_s8_conv_wide__scalar(const fdnn_s8_conv_args_t *a)
{
    int32_t acc[MR][2][VK];
    memset(acc, 0, sizeof(acc));
    for (int b = 0; b < a->nkb; b++) {
        const uint8_t *w = a->w + b * a->w_block;
        for (int64_t t = 0; t < a->taps; t++)
            for (int64_t u = 0; u < a->units; u++, w += VK * 4)
                for (int i = 0; i < a->m; i++) {
                    const uint8_t *x = a->x + i * a->x_step + a->tap_off[t] + 4 * u;
                    const int32_t x0 = ld16(x), x1 = ld16(x + 2);
                    for (int l = 0; l < VK; l++)
                        acc[i][b][l] += x0 * ld16(w + 4 * l) + x1 * ld16(w + 4 * l + 2);
                }
    }
    for (int i = 0; i < a->m; i++)
        for (int b = 0; b < a->nkb; b++)
            memcpy(a->acc + (i * 2 + b) * VK, acc[i][b], sizeof(acc[i][b]));
}
