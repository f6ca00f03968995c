/* SPDX-License-Identifier: Apache-2.0
 * The INT8 GEMM microkernel with the AArch64 I8MM instructions, 8 x 12
 * (built with +i8mm; run only where AT_HWCAP2 reports I8MM).  The packed
 * operands are vpdpbusd's (lowp_i8_gemm.h): A unsigned, B signed, so the
 * mixed-sign SUDOT by element multiplies them as they are: B's vector (4
 * columns x 4 k, signed) by one row's quad of A (unsigned, lane r of A's
 * vector).  Per k quad: 3 `LDR q` of B, 2 of A (8 rows), 24 SUDOT (64
 * multiply-adds each, 1536 per quad).  Plain SDOT (FEAT_DotProd) would
 * need the signs made equal first; exact integers either way. */
#include <arm_neon.h>
#include <assert.h>

#include "cpu/kernels/lowp_i8_gemm.h"

#define MR 8
#define NR 12

#define ROW_(i, av, r)                                         \
    v[i][0] = vsudotq_laneq_s32(v[i][0], b0, av, r);           \
    v[i][1] = vsudotq_laneq_s32(v[i][1], b1, av, r);           \
    v[i][2] = vsudotq_laneq_s32(v[i][2], b2, av, r);

void
fdnn_i8_gemm_ukernel_8x12__neoni8mm(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                    const int32_t *row_add, const int32_t *col_add, bool accumulate, int32_t *c,
                                    size_t ldc)
{
    assert(mr >= 1 && mr <= MR && nr >= 1 && nr <= NR);
    const size_t kq = (kc + 3) / 4;
    int32x4_t v[MR][3];
    for (int i = 0; i < MR; i++)
        v[i][0] = v[i][1] = v[i][2] = vdupq_n_s32(0);
    for (size_t q = 0; q < kq; q++) {
        const uint32_t *bq = b + q * NR, *aq = a + q * MR;
        const int8x16_t b0 = vreinterpretq_s8_u32(vld1q_u32(bq)), b1 = vreinterpretq_s8_u32(vld1q_u32(bq + 4)),
                        b2 = vreinterpretq_s8_u32(vld1q_u32(bq + 8));
        const uint8x16_t a0 = vreinterpretq_u8_u32(vld1q_u32(aq)), a1 = vreinterpretq_u8_u32(vld1q_u32(aq + 4));
        ROW_(0, a0, 0) ROW_(1, a0, 1) ROW_(2, a0, 2) ROW_(3, a0, 3)
        ROW_(4, a1, 0) ROW_(5, a1, 1) ROW_(6, a1, 2) ROW_(7, a1, 3)
    }
    int32_t acc[MR][NR];
    for (int i = 0; i < MR; i++) {
        vst1q_s32(acc[i], v[i][0]);
        vst1q_s32(acc[i] + 4, v[i][1]);
        vst1q_s32(acc[i] + 8, v[i][2]);
    }
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++) {
            uint32_t x = (uint32_t)acc[i][j];
            if (row_add != NULL)
                x += (uint32_t)row_add[i];
            if (col_add != NULL)
                x += (uint32_t)col_add[j];
            if (accumulate)
                x += (uint32_t)c[i * ldc + j];
            c[i * ldc + j] = (int32_t)x;
        }
}
