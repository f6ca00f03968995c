/* SPDX-License-Identifier: Apache-2.0
 * The NEON float microkernel, 8 rows x 12 columns: 24 accumulators (q
 * registers), 3 for the row of B, 2 for the 8 values of packed A: 29 of the
 * 32 vector registers.  Per k step: 5 loads of 16 bytes and 24 FMLA by
 * element (vfmaq_laneq_f32), so the FMA pipes, not the loads, bound it
 * (docs/platforms.md gives the cycles on Neoverse N1 and V1). */
#include "cpu/kernels/gemm_vec_f32_neon.h"

#define UKERNEL fdnn_f32_gemm_ukernel_8x12__neon
#define MR 8
#define NV 3

#define ROW_(i, av, lane)                                          \
    acc[i][0] = vfmaq_laneq_f32(acc[i][0], b0_, av, lane);         \
    acc[i][1] = vfmaq_laneq_f32(acc[i][1], b1_, av, lane);         \
    acc[i][2] = vfmaq_laneq_f32(acc[i][2], b2_, av, lane);
#define K_STEP_PACKED()                                                              \
    do {                                                                             \
        float32x4_t b0_ = vld1q_f32(b), b1_ = vld1q_f32(b + 4), b2_ = vld1q_f32(b + 8); \
        float32x4_t a0_ = vld1q_f32(a), a1_ = vld1q_f32(a + 4);                      \
        ROW_(0, a0_, 0) ROW_(1, a0_, 1) ROW_(2, a0_, 2) ROW_(3, a0_, 3)              \
        ROW_(4, a1_, 0) ROW_(5, a1_, 1) ROW_(6, a1_, 2) ROW_(7, a1_, 3)              \
    } while (0)

#include "cpu/kernels/gemm_ukernel_simd.inc"
