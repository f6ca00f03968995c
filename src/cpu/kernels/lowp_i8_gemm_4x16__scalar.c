/* SPDX-License-Identifier: Apache-2.0
 * The INT8 GEMM microkernel in portable C: 4 x 16, exact, in unsigned
 * 32-bit arithmetic (wrapping modulo 2^32 as the SIMD kernels do). */
#include <assert.h>

#include "cpu/kernels/lowp_i8_gemm.h"

#define MR 4
#define NR 16

void
fdnn_i8_gemm_ukernel_4x16__scalar(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                  const int32_t *row_add, const int32_t *col_add, bool accumulate, int32_t *c,
                                  size_t ldc)
{
    assert(mr >= 1 && mr <= MR && nr >= 1 && nr <= NR);
    const size_t kq = (kc + 3) / 4;
    uint32_t acc[MR][NR] = {{0}};
    for (size_t q = 0; q < kq; q++)
        for (size_t i = 0; i < mr; i++)
            for (size_t j = 0; j < nr; j++)
                for (int h = 0; h < 4; h++) {
                    uint32_t x = (a[q * MR + i] >> (8 * h)) & 0xffu;                    /* uint8 */
                    int32_t y = (int32_t)(int8_t)(uint8_t)((b[q * NR + j] >> (8 * h)) & 0xffu); /* int8 */
                    acc[i][j] += x * (uint32_t)y;
                }
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++) {
            uint32_t v = acc[i][j];
            if (row_add != NULL)
                v += (uint32_t)row_add[i];
            if (col_add != NULL)
                v += (uint32_t)col_add[j];
            if (accumulate)
                v += (uint32_t)c[i * ldc + j];
            c[i * ldc + j] = (int32_t)v;
        }
}
