/* SPDX-License-Identifier: Apache-2.0
 * The AArch64 ASIMD (NEON) level: 4 float lanes.  Built for AArch64 only.
 *
 * NEON kernels (__neon.c): activation, pooling, softmax, LRN and the simd
 * apply (the fv_* templates over cpu/simd/f32_neon.h), the 8x12 float GEMM
 * tile (FMLA by element) and its A-in-place twin, the matrix-vector
 * kernels, depthwise convolution, the fused Winograd block, the blocked
 * direct convolution (6 pixels x 16 channels), the bf16 GEMM's 8x12 tiles
 * (FMLA, or BFMLALT/BFMLALB with FEAT_BF16) and the int8 GEMM's SUDOT tile
 * (FEAT_I8MM; the portable tile without).  The rest
 * is the portable code, which on AArch64 the compiler already vectorises
 * for ASIMD (the baseline): the tensor and batchnorm loops (plain loops by
 * design, identical on every level), FFT, the double GEMM. */
#include "cpu/config/config.h"

static fdnn_sgemm_tile_t
sgemm_tile(const fdnn_sgemm_args_t *args)
{
    (void)args;
    return (fdnn_sgemm_tile_t){.ukernel = fdnn_f32_gemm_ukernel_8x12__neon,
                               .arows = fdnn_f32_gemm_arows_ukernel_8x12__neon,
                               .mr = 8,
                               .nr = 12};
}

/* The bf16 GEMM: FMLA on floats, or BFMLALT/BFMLALB where the CPU has
 * FEAT_BF16 (the same bits: bf16_gemm_neon.inc). */
static const fdnn_bf16dot_tile_t bf16dot = {.id = FDNN_BF16DOT_NEON,
                                           .ukernel = fdnn_bf16_gemm_ukernel_8x12__neon,
                                           .pack = fdnn_bf16_pack__scalar,
                                           .mr = 8,
                                           .nr = 12,
                                           .a_wide = true};
static const fdnn_bf16dot_tile_t bf16dot_bf16 = {.id = FDNN_BF16DOT_NEON_BF16,
                                                .ukernel = fdnn_bf16_gemm_ukernel_8x12__neonbf16,
                                                .pack = fdnn_bf16_pack__scalar,
                                                .mr = 8,
                                                .nr = 12,
                                                .a_wide = false};

/* The int8 GEMM: the portable tile, or SUDOT where the CPU has FEAT_I8MM
 * (exact integers: the same bits). */
static const fdnn_i8dot_tile_t i8dot_i8mm = {.id = FDNN_I8DOT_NEON_I8MM,
                                            .ukernel = fdnn_i8_gemm_ukernel_8x12__neoni8mm,
                                            .pack = fdnn_i8_pack__scalar,
                                            .mr = 8,
                                            .nr = 12};

const fdnn_isa_config_t fdnn_isa_config_neon = {
    .isa = FDNN_ISA_NEON,
    .act_fwd_f32 = fdnn_act_fwd_f32__neon,
    .act_bwd_f32 = fdnn_act_bwd_f32__neon,
    .pool_f32 = &fdnn_pool_f32__neon,
    .softmax_f32 = &fdnn_softmax_f32__neon,
    .lrn_f32 = &fdnn_lrn_f32__neon,
    .elt_task = fdnn_elt_task__scalar,
    .red_chunk_task = fdnn_red_chunk_task__scalar,
    .red_output_task = fdnn_red_output_task__scalar,
    .red_vertical_task = fdnn_red_vertical_task__scalar,
    .bn = &fdnn_bn_kernels_scalar,
    .bn_fused = &fdnn_bn_fused_scalar,
    .fft = {fdnn_fft_f32__scalar, fdnn_fft_f64__scalar, fdnn_cgemm_f32__scalar, fdnn_cgemm_f64__scalar},
    .simd_apply = fdnn_simd_f32_apply__neon,
    .sgemm_tile = sgemm_tile,
    .dgemm = {fdnn_f64_gemm_ukernel_4x8__scalar, NULL, 4, 8},
    .dot_rows = fdnn_f32_dot_rows__neon,
    .axpy_rows = fdnn_f32_axpy_rows__neon,
    /* packed A only: the in-place row paths of the implicit GEMM are tuned
     * for the x86 tiles and wait for a measurement on ARM hardware */
    .conv_gemm = {.ukernel = fdnn_f32_gemm_ukernel_8x12__neon,
                  .mr = 8,
                  .nr = 12,
                  .transpose_ptrs = fdnn_f32_transpose_ptrs__scalar},
    .conv_direct = {fdnn_f32_conv_direct_ukernel__neon, fdnn_f32_conv_direct_pack16__neon,
                    FDNN_NEON_CONV_DIRECT_UR, FDNN_NEON_CONV_DIRECT_NKB},
    .dwconv_rows = fdnn_f32_dwconv_rows__neon,
    .dwconv_grad = fdnn_f32_dwconv_grad__neon,
    .dwcb_rows = fdnn_f32_dwcb_rows__neon,
    .dwcb_grad = fdnn_f32_dwcb_grad__neon,
    .wino_fused_block = fdnn_wino_fused_block__neon,
    .wino_bwdf = &fdnn_wino_bwdf_kernels__scalar,
    .bf16dot = {&bf16dot, &bf16dot_bf16, FDNN_EXT_ARM_BF16},
    .i8dot = {&fdnn_i8dot_tile_scalar, &i8dot_i8mm, FDNN_EXT_ARM_I8MM},
    .s8conv = {&fdnn_s8_conv_kernels_scalar, NULL, FDNN_EXT_NONE},
    .conv_bf16 = FDNN_EXT_NEVER,
    .cvt_row = {&fdnn_cvt_row_kernels_scalar, NULL, FDNN_EXT_NONE},
    .gx_pw_row_f32 = gx_pw_row_f32__scalar,
    .gx_pw_row_f64 = gx_pw_row_f64__scalar,
    .sdpa_fwd = gx_sdpa_fwd__scalar,
    .sdpa_bwd = gx_sdpa_bwd__scalar,
};
