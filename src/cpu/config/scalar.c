/* SPDX-License-Identifier: Apache-2.0
 * The portable level: plain C kernels, correct on every CPU (and the
 * reference the other levels are tested against). */
#include "cpu/config/config.h"

static fdnn_sgemm_tile_t
sgemm_tile(const fdnn_sgemm_args_t *args)
{
    (void)args;
    return (fdnn_sgemm_tile_t){.ukernel = fdnn_f32_gemm_ukernel_4x16__scalar, .mr = 4, .nr = 16};
}

/* The portable entries of the families below, which levels without their
 * own kernel name too (config.h). */
const fdnn_bf16dot_tile_t fdnn_bf16dot_tile_scalar = {.id = FDNN_BF16DOT_PORTABLE,
                                                     .ukernel = fdnn_bf16_gemm_ukernel_4x16__scalar,
                                                     .pack = fdnn_bf16_pack__scalar,
                                                     .mr = 4,
                                                     .nr = 16,
                                                     .a_wide = true};
const fdnn_i8dot_tile_t fdnn_i8dot_tile_scalar = {.id = FDNN_I8DOT_PORTABLE,
                                                 .ukernel = fdnn_i8_gemm_ukernel_4x16__scalar,
                                                 .pack = fdnn_i8_pack__scalar,
                                                 .mr = 4,
                                                 .nr = 16};
const fdnn_s8_conv_kernels_t fdnn_s8_conv_kernels_scalar = {.wide = fdnn_s8_conv_wide__scalar, .vk = 16, .mr = 4};
const fdnn_cvt_row_kernels_t fdnn_cvt_row_kernels_scalar = {
    FDNN_CVT_SCALAR, fdnn_convert_row_f32_f16__scalar, fdnn_convert_row_f16_f32__scalar,
    fdnn_convert_row_f32_bf16__scalar, fdnn_convert_row_bf16_f32__scalar};

const fdnn_isa_config_t fdnn_isa_config_scalar = {
    .isa = FDNN_ISA_SCALAR,
    .act_fwd_f32 = fdnn_act_fwd_f32__scalar,
    .act_bwd_f32 = fdnn_act_bwd_f32__scalar,
    .pool_f32 = &fdnn_pool_f32__scalar,
    .softmax_f32 = &fdnn_softmax_f32__scalar,
    .lrn_f32 = &fdnn_lrn_f32__scalar,
    .elt_task = fdnn_elt_task__scalar,
    .red_chunk_task = fdnn_red_chunk_task__scalar,
    .red_output_task = fdnn_red_output_task__scalar,
    .red_vertical_task = fdnn_red_vertical_task__scalar,
    .bn = &fdnn_bn_kernels_scalar,
    .bn_fused = &fdnn_bn_fused_scalar,
    .fft = {fdnn_fft_f32__scalar, fdnn_fft_f64__scalar, fdnn_cgemm_f32__scalar, fdnn_cgemm_f64__scalar},
    .simd_apply = fdnn_simd_f32_apply__scalar,
    .sgemm_tile = sgemm_tile,
    .dgemm = {fdnn_f64_gemm_ukernel_4x8__scalar, NULL, 4, 8},
    .dot_rows = fdnn_f32_dot_rows__scalar,
    .axpy_rows = fdnn_f32_axpy_rows__scalar,
    .conv_gemm = {.ukernel = fdnn_f32_gemm_ukernel_4x16__scalar,
                  .mr = 4,
                  .nr = 16,
                  .transpose_ptrs = fdnn_f32_transpose_ptrs__scalar},
    .conv_direct = {fdnn_f32_conv_direct_ukernel__scalar, fdnn_f32_conv_direct_pack16__scalar,
                    FDNN_SCALAR_CONV_DIRECT_UR, FDNN_SCALAR_CONV_DIRECT_NKB},
    .dwconv_rows = fdnn_f32_dwconv_rows__scalar,
    .dwconv_grad = fdnn_f32_dwconv_grad__scalar,
    .dwcb_rows = fdnn_f32_dwcb_rows__scalar,
    .dwcb_grad = fdnn_f32_dwcb_grad__scalar,
    .wino_fused_block = fdnn_wino_fused_block__scalar,
    .wino_bwdf = &fdnn_wino_bwdf_kernels__scalar,
    .bf16dot = {&fdnn_bf16dot_tile_scalar, NULL, FDNN_EXT_NONE},
    .i8dot = {&fdnn_i8dot_tile_scalar, NULL, FDNN_EXT_NONE},
    .s8conv = {&fdnn_s8_conv_kernels_scalar, NULL, FDNN_EXT_NONE},
    .conv_bf16 = FDNN_EXT_NEVER,
    .cvt_row = {&fdnn_cvt_row_kernels_scalar, NULL, FDNN_EXT_NONE},
    .gx_pw_row_f32 = gx_pw_row_f32__scalar,
    .gx_pw_row_f64 = gx_pw_row_f64__scalar,
    .sdpa_fwd = gx_sdpa_fwd__scalar,
    .sdpa_bwd = gx_sdpa_bwd__scalar,
};
