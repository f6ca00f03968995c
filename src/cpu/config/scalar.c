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
    .conv_gemm = {.ukernel = fdnn_f32_gemm_ukernel_4x16__scalar, .mr = 4, .nr = 16},
    .conv_direct = {fdnn_f32_conv_direct_ukernel__scalar, fdnn_f32_conv_direct_pack16__scalar,
                    FDNN_SCALAR_CONV_DIRECT_UR, FDNN_SCALAR_CONV_DIRECT_NKB},
    .dwconv_rows = fdnn_f32_dwconv_rows__scalar,
    .dwconv_grad = fdnn_f32_dwconv_grad__scalar,
    .dwcb_rows = fdnn_f32_dwcb_rows__scalar,
    .dwcb_grad = fdnn_f32_dwcb_grad__scalar,
    .wino_fused_block = fdnn_wino_fused_block__scalar,
};
