/* SPDX-License-Identifier: Apache-2.0
 * The x86 AVX2 + FMA + F16C level (8 float lanes).  Built for x86 only. */
#include "cpu/config/config.h"

/* Narrow products (n <= 8) take the tall 6x8 or 12x8 tiles, short ones
 * (m <= 4) the wide 4x24, the rest 6x16 (sgemm.c says why). */
static fdnn_sgemm_tile_t
sgemm_tile(const fdnn_sgemm_args_t *args)
{
    fdnn_sgemm_tile_t t = {.pack_t = fdnn_f32_pack_t__avx2, .pack_n = fdnn_f32_pack_n__avx2};
    if (args->n <= 8 && !args->trans_a) {
        t.ukernel = fdnn_f32_gemm_ukernel_6x8__avx2;
        t.arows = fdnn_f32_gemm_arows_ukernel_6x8__avx2;
        t.arows_ahead = fdnn_f32_gemm_arows_pf_ukernel_6x8__avx2;
        t.mr = 6;
        t.nr = 8;
    } else if (args->n <= 8) {
        t.ukernel = fdnn_f32_gemm_ukernel_12x8__avx2;
        t.mr = 12;
        t.nr = 8;
    } else if (args->m <= 4) {
        t.ukernel = fdnn_f32_gemm_ukernel_4x24__avx2;
        t.mr = 4;
        t.nr = 24;
    } else {
        t.ukernel = fdnn_f32_gemm_ukernel_6x16__avx2;
        t.arows = fdnn_f32_gemm_arows_ukernel_6x16__avx2;
        t.arows_ahead = fdnn_f32_gemm_arows_pf_ukernel_6x16__avx2;
        t.mr = 6;
        t.nr = 16;
    }
    return t;
}

static const fdnn_bf16dot_tile_t bf16dot = {.id = FDNN_BF16DOT_AVX2,
                                           .ukernel = fdnn_bf16_gemm_ukernel_4x16__avx2,
                                           .pack = fdnn_bf16_pack__avx2,
                                           .mr = 4,
                                           .nr = 16,
                                           .a_wide = true};
static const fdnn_i8dot_tile_t i8dot = {.id = FDNN_I8DOT_AVX2,
                                       .ukernel = fdnn_i8_gemm_ukernel_4x16__avx2,
                                       .pack = fdnn_i8_pack__avx2,
                                       .mr = 4,
                                       .nr = 16};
static const fdnn_s8_conv_kernels_t s8conv = {
    .wide = fdnn_s8_conv_wide__avx2, .epi = fdnn_s8_conv_epilogue__avx2, .vk = 8, .mr = 6};
static const fdnn_cvt_row_kernels_t cvt_row = {FDNN_CVT_F16C, fdnn_convert_row_f32_f16__avx2,
                                               fdnn_convert_row_f16_f32__avx2, fdnn_convert_row_f32_bf16__avx2,
                                               fdnn_convert_row_bf16_f32__avx2};

const fdnn_isa_config_t fdnn_isa_config_avx2 = {
    .isa = FDNN_ISA_AVX2,
    .act_fwd_f32 = fdnn_act_fwd_f32__avx2,
    .act_bwd_f32 = fdnn_act_bwd_f32__avx2,
    .pool_f32 = &fdnn_pool_f32__avx2,
    .softmax_f32 = &fdnn_softmax_f32__avx2,
    .lrn_f32 = &fdnn_lrn_f32__avx2,
    .elt_task = fdnn_elt_task__avx2,
    .red_chunk_task = fdnn_red_chunk_task__avx2,
    .red_output_task = fdnn_red_output_task__avx2,
    .red_vertical_task = fdnn_red_vertical_task__avx2,
    .bn = &fdnn_bn_kernels_avx2,
    .bn_fused = &fdnn_bn_fused_avx2,
    .fft = {fdnn_fft_f32__avx2, fdnn_fft_f64__avx2, fdnn_cgemm_f32__avx2, fdnn_cgemm_f64__avx2},
    .simd_apply = fdnn_simd_f32_apply__avx2,
    .sgemm_tile = sgemm_tile,
    .dgemm = {fdnn_f64_gemm_ukernel_6x8__avx2, fdnn_f64_gemm_arows_ukernel_6x8__avx2, 6, 8},
    .dot_rows = fdnn_f32_dot_rows__avx2,
    .axpy_rows = fdnn_f32_axpy_rows__avx2,
    .conv_gemm = {.ukernel = fdnn_f32_gemm_ukernel_6x16__avx2,
                  .ukernel_half = fdnn_f32_gemm_ukernel_6x8__avx2,
                  .arows = fdnn_f32_gemm_arows_ukernel_6x16__avx2,
                  .arows_half = fdnn_f32_gemm_arows_ukernel_6x8__avx2,
                  .aptrs = fdnn_f32_gemm_aptrs_ukernel_6x16__avx2,
                  .pack_t = fdnn_f32_pack_t__avx2,
                  .mr = 6,
                  .nr = 16,
                  .half_nr = 8,
                  .transpose_ptrs = fdnn_f32_transpose_ptrs__scalar},
    .conv_direct = {fdnn_f32_conv_direct_ukernel__avx2, fdnn_f32_conv_direct_pack16__avx2,
                    FDNN_AVX2_CONV_DIRECT_UR, FDNN_AVX2_CONV_DIRECT_NKB},
    .dwconv_rows = fdnn_f32_dwconv_rows__avx2,
    .dwconv_grad = fdnn_f32_dwconv_grad__avx2,
    .dwcb_rows = fdnn_f32_dwcb_rows__avx2,
    .dwcb_grad = fdnn_f32_dwcb_grad__avx2,
    .dwcb_gather = fdnn_f32_dwcb_gather__avx2,
    .wino_fused_block = fdnn_wino_fused_block__avx2,
    .wino_bwdf = &fdnn_wino_bwdf_kernels__avx2,
    .sgemm_f16 = {fdnn_f16_pack_t__avx2, fdnn_f16_pack_n__avx2, NULL, fdnn_f16_rows__avx2},

    .bf16dot = {&bf16dot, NULL, FDNN_EXT_NONE},
    .i8dot = {&i8dot, NULL, FDNN_EXT_NONE},
    .s8conv = {&s8conv, NULL, FDNN_EXT_NONE},
    .conv_bf16 = FDNN_EXT_NEVER,
    .cvt_row = {&cvt_row, NULL, FDNN_EXT_NONE},
    .gx_pw_row_f32 = gx_pw_row_f32__avx2,
    .gx_pw_row_f64 = gx_pw_row_f64__avx2,
    .sdpa_fwd = gx_sdpa_fwd__avx2,
    .sdpa_bwd = gx_sdpa_bwd__avx2,
};
