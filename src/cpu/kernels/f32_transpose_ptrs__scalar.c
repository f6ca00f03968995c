/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_transpose_ptrs__scalar: the portable transpose of
 * transpose_ptrs.h, one element at a time (dst row by dst row, so the
 * stores are contiguous). */
#include <assert.h>

#include "cpu/kernels/transpose_ptrs.h"

void
fdnn_f32_transpose_ptrs__scalar(size_t ni, size_t nj, const float *const *src, float *const *dst)
{
    assert(ni <= 16 && nj <= 16);
    for (size_t j = 0; j < nj; j++) {
        float *d = dst[j];
        for (size_t i = 0; i < ni; i++)
            d[i] = src[i][j];
    }
}
