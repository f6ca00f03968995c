/* SPDX-License-Identifier: Apache-2.0
 * The BF16 GEMM microkernel with the AArch64 BF16 instructions, 8 x 12, A
 * in pairs (built with +bf16; run only where AT_HWCAP2 reports BF16).
 * Per k pair: 5 loads of 16 bytes (3 of B, 2 of A: the pairs of 8 rows)
 * and 48 BFMLALT/BFMLALB by element: for each row and column vector, the
 * odd k (T, the top halves of B's pairs) then the even k (B, the bottom
 * halves), each a fused multiply-add to nearest with the FPCR's flush
 * controls, which is the contract's arithmetic (bf16_gemm.h).  BFDOT and
 * BFMMLA would do twice and four times the work per instruction, but they
 * round their two-product sums their own way (round to odd, no IEEE
 * fused steps), which is not the bits the other levels give; see
 * docs/platforms.md.  DAZ/FTZ: bf16_gemm_neon.inc. */
#define UKERNEL fdnn_bf16_gemm_ukernel_8x12__neonbf16
#define A_WIDE 0

#define BF16_ROW_(i, av, r)                                                   \
    v[i][0] = vbfmlaltq_laneq_f32(v[i][0], b0_, av, 2 * (r) + 1);             \
    v[i][0] = vbfmlalbq_laneq_f32(v[i][0], b0_, av, 2 * (r));                 \
    v[i][1] = vbfmlaltq_laneq_f32(v[i][1], b1_, av, 2 * (r) + 1);             \
    v[i][1] = vbfmlalbq_laneq_f32(v[i][1], b1_, av, 2 * (r));                 \
    v[i][2] = vbfmlaltq_laneq_f32(v[i][2], b2_, av, 2 * (r) + 1);             \
    v[i][2] = vbfmlalbq_laneq_f32(v[i][2], b2_, av, 2 * (r));
#define PAIR_STEP(ap, bp)                                                                  \
    do {                                                                                   \
        const uint32_t *bq_ = (bp), *aq_ = (ap);                                           \
        bfloat16x8_t b0_ = vreinterpretq_bf16_u32(vld1q_u32(bq_));                         \
        bfloat16x8_t b1_ = vreinterpretq_bf16_u32(vld1q_u32(bq_ + 4));                     \
        bfloat16x8_t b2_ = vreinterpretq_bf16_u32(vld1q_u32(bq_ + 8));                     \
        bfloat16x8_t a0_ = vreinterpretq_bf16_u32(vld1q_u32(aq_));                         \
        bfloat16x8_t a1_ = vreinterpretq_bf16_u32(vld1q_u32(aq_ + 4));                     \
        BF16_ROW_(0, a0_, 0) BF16_ROW_(1, a0_, 1) BF16_ROW_(2, a0_, 2) BF16_ROW_(3, a0_, 3) \
        BF16_ROW_(4, a1_, 0) BF16_ROW_(5, a1_, 1) BF16_ROW_(6, a1_, 2) BF16_ROW_(7, a1_, 3) \
    } while (0)

#include "cpu/kernels/bf16_gemm_neon.inc"
