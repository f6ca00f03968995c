/* SPDX-License-Identifier: Apache-2.0
 * The BF16 GEMM microkernel in plain ASIMD, 8 x 12, A wide: for CPUs
 * without the BF16 instructions.  Per k pair: 7 loads of 16 bytes (3 of
 * B's pairs, 4 of A's 16 floats), 6 instructions that split B's pairs
 * into floats (SHL #16 for the even k, AND for the odd k) and 48 FMLA by
 * element, odd k first (bf16_gemm.h).  DAZ/FTZ: bf16_gemm_neon.inc. */
#define UKERNEL fdnn_bf16_gemm_ukernel_8x12__neon
#define A_WIDE 1

#define F32_ROW_(i, av, r)                                             \
    v[i][0] = vfmaq_laneq_f32(v[i][0], o0_, av, 2 * (r) + 1);          \
    v[i][0] = vfmaq_laneq_f32(v[i][0], e0_, av, 2 * (r));              \
    v[i][1] = vfmaq_laneq_f32(v[i][1], o1_, av, 2 * (r) + 1);          \
    v[i][1] = vfmaq_laneq_f32(v[i][1], e1_, av, 2 * (r));              \
    v[i][2] = vfmaq_laneq_f32(v[i][2], o2_, av, 2 * (r) + 1);          \
    v[i][2] = vfmaq_laneq_f32(v[i][2], e2_, av, 2 * (r));
#define SPLIT_(j, bq)                                                                         \
    const uint32x4_t w##j##_ = vld1q_u32((bq) + 4 * (j));                                     \
    const float32x4_t e##j##_ = vreinterpretq_f32_u32(vshlq_n_u32(w##j##_, 16));              \
    const float32x4_t o##j##_ = vreinterpretq_f32_u32(vandq_u32(w##j##_, vdupq_n_u32(0xffff0000u)));
#define PAIR_STEP(ap, bp)                                                         \
    do {                                                                          \
        const uint32_t *bq_ = (bp);                                               \
        const float *aq_ = (const float *)(const void *)(ap);                     \
        SPLIT_(0, bq_) SPLIT_(1, bq_) SPLIT_(2, bq_)                              \
        const float32x4_t a0_ = vld1q_f32(aq_), a1_ = vld1q_f32(aq_ + 4);         \
        F32_ROW_(0, a0_, 0) F32_ROW_(1, a0_, 1)                                   \
        F32_ROW_(2, a1_, 0) F32_ROW_(3, a1_, 1)                                   \
        const float32x4_t a2_ = vld1q_f32(aq_ + 8), a3_ = vld1q_f32(aq_ + 12);    \
        F32_ROW_(4, a2_, 0) F32_ROW_(5, a2_, 1)                                   \
        F32_ROW_(6, a3_, 0) F32_ROW_(7, a3_, 1)                                   \
    } while (0)

#include "cpu/kernels/bf16_gemm_neon.inc"
