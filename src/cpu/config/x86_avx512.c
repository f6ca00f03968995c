/* SPDX-License-Identifier: Apache-2.0
 * The x86 AVX-512 (F, BW, VL, DQ) level (16 float lanes).  Built for x86
 * only. */
#include "cpu/config/config.h"

/* Elements of C a tile grid of mr x nr computes for an m x n product. */
static double
padded_area(size_t m, size_t n, size_t mr, size_t nr)
{
    return (double)((m + mr - 1) / mr * mr) * (double)((n + nr - 1) / nr * nr);
}

/* The 6x49 tile (A read in place, B in its own packed strips) for n in one
 * column tile (at most 8 strips) when 49-wide strips pad n no more than 5%
 * beyond the 32-wide ones with their half-width last strip: n = 49, 98,
 * 147, 196 (7x7 .. 14x14 images).  Its lanes are all useful, and it ran
 * faster than 14x32 even at equal padding (1024x96x256: 89% vs 86% of peak;
 * 1024x196x256: 89% vs 79%); at n = 100 (147 vs 112 lanes) it lost (60% vs
 * 74%).  Needs a product to compute (k > 0, alpha != 0: there is no packed
 * twin for the epilogue-only pass) and A, B not transposed. */
static bool
use_49(const fdnn_sgemm_args_t *args)
{
    size_t n = args->n;
    if (args->k == 0 || args->alpha == 0)
        return false;
    if (args->trans_a || args->trans_b || n <= 16 || n > 8 * 49)
        return false;
    size_t n32 = n % 32 != 0 && n % 32 <= 16 ? n / 32 * 32 + 16 : (n + 31) / 32 * 32;
    return (double)((n + 48) / 49 * 49) <= 1.05 * (double)n32;
}

/* With B read in place by 48-wide strips (b_strips_in_place), a last
 * partial strip is copied: more than a quarter of B's columns where 32-wide
 * strips would leave none is a copy 14x32 avoids (n = 32: all of B; 1x1
 * backward filter 32 -> 16 channels at 112x112, 1 thread: 1.5x faster).
 * A smaller share (n = 512: 32 columns) measured no better with 14x32. */
static bool
b_pack_avoidable(const fdnn_sgemm_args_t *args)
{
    size_t n = args->n;
    return args->b_strips_in_place && n % 32 == 0 && n % 48 * 4 > n;
}

/* The k block of the wide tiles (14x32, 8x48): 768, so a transformer's
 * hidden size (768) is one block and a product with a deep k makes a
 * quarter of the passes over C (each block reads and writes all of C, from
 * L3 or memory once C outgrows L2).  The B micro-panel (96 KiB at NR = 32)
 * then streams from L2 instead of staying in L1, which the kernels absorb:
 * 1 thread, median of 5 alternating runs, % of the FMA peak, kc 256 ->
 * 768: 1024x3072x768 71 -> 75, 1024x768x3072 73 -> 77, 512x3072x768
 * 67 -> 76, 768x3072x1024 66 -> 74 (docs/performance.md).  Products with
 * k <= 256 or B read in place are unchanged. */
#define KC_L2 768

/* 6x49 where it fits (use_49); narrow products (n <= 16) 14x16 with A in
 * place or 28x16 packed; otherwise 8x48 when it pads the product at least
 * 3% less than 14x32 (m = 64 or 128 with large n; the two run at the same
 * speed from L1), else 14x32 with its 14x16 twin for a last half strip. */
static fdnn_sgemm_tile_t
sgemm_tile(const fdnn_sgemm_args_t *args)
{
    size_t m = args->m, n = args->n;
    fdnn_sgemm_tile_t t = {.pack_t = fdnn_f32_pack_t__avx512, .pack_n = fdnn_f32_pack_n__avx512};
    if (use_49(args)) {
        t.arows = fdnn_f32_gemm_arows_ukernel_6x49__avx512; /* only: n fits one column tile */
        t.arows_pf = fdnn_f32_gemm_arows_pf_ukernel_6x49__avx512;
        t.pack_b = fdnn_f32_pack_b49__avx512;
        t.mr = 6;
        t.nr = 49;
    } else if (n <= 16 && !args->trans_a) { /* A read in place: 14 rows suffice */
        t.ukernel = fdnn_f32_gemm_ukernel_14x16__avx512;
        t.arows = fdnn_f32_gemm_arows_ukernel_14x16__avx512;
        t.arows_ahead = fdnn_f32_gemm_arows_pf_ukernel_14x16__avx512;
        t.mr = 14;
        t.nr = 16;
    } else if (n <= 16) {
        t.ukernel = fdnn_f32_gemm_ukernel_28x16__avx512;
        t.mr = 28;
        t.nr = 16;
    } else if (!b_pack_avoidable(args) &&
               (m <= 8 || padded_area(m, n, 8, 48) < padded_area(m, n, 14, 32) * 0.97)) {
        t.ukernel = fdnn_f32_gemm_ukernel_8x48__avx512;
        t.arows = fdnn_f32_gemm_arows_ukernel_8x48__avx512;
        t.arows_ahead = fdnn_f32_gemm_arows_pf_ukernel_8x48__avx512;
        t.mr = 8;
        t.nr = 48;
        t.kc = KC_L2;
    } else {
        t.ukernel = fdnn_f32_gemm_ukernel_14x32__avx512;
        t.arows = fdnn_f32_gemm_arows_ukernel_14x32__avx512;
        /* n = 196 = 6 x 32 + 4: the last strip at half the cost */
        t.ukernel_half = fdnn_f32_gemm_ukernel_14x16__avx512;
        t.arows_half = fdnn_f32_gemm_arows_ukernel_14x16__avx512;
        t.arows_ahead = fdnn_f32_gemm_arows_pf_ukernel_14x32__avx512;
        t.arows_half_ahead = fdnn_f32_gemm_arows_pf_ukernel_14x16__avx512;
        t.mr = 14;
        t.nr = 32;
        t.kc = KC_L2;
    }
    return t;
}

/* The dot-product GEMMs: FP32 FMA (bf16) or widened bytes with vpmaddwd
 * (int8), and the vdpbf16ps / vpdpbusd tiles where the CPU has them. */
static const fdnn_bf16dot_tile_t bf16dot = {.id = FDNN_BF16DOT_AVX512,
                                           .ukernel = fdnn_bf16_gemm_ukernel_12x32__avx512,
                                           .pack = fdnn_bf16_pack__avx512,
                                           .mr = 12,
                                           .nr = 32,
                                           .a_wide = true};
static const fdnn_bf16dot_tile_t bf16dot_bf16 = {.id = FDNN_BF16DOT_AVX512_BF16,
                                                .ukernel = fdnn_bf16_gemm_ukernel_14x32__avx512bf16,
                                                .ukernel_half = fdnn_bf16_gemm_ukernel_14x16__avx512bf16,
                                                .arows = fdnn_bf16_gemm_arows_ukernel_14x32__avx512bf16,
                                                .arows_half = fdnn_bf16_gemm_arows_ukernel_14x16__avx512bf16,
                                                .pack = fdnn_bf16_pack__avx512,
                                                .mr = 14,
                                                .nr = 32,
                                                .a_wide = false};
static const fdnn_i8dot_tile_t i8dot = {.id = FDNN_I8DOT_AVX512,
                                       .ukernel = fdnn_i8_gemm_ukernel_12x32__avx512,
                                       .pack = fdnn_i8_pack__avx512,
                                       .mr = 12,
                                       .nr = 32};
static const fdnn_i8dot_tile_t i8dot_vnni = {.id = FDNN_I8DOT_AVX512_VNNI,
                                            .ukernel = fdnn_i8_gemm_ukernel_14x32__avx512vnni,
                                            .arows = fdnn_i8_gemm_arows_ukernel_14x32__avx512vnni,
                                            .pack = fdnn_i8_pack__avx512,
                                            .row_sums = fdnn_i8_row_sums__avx512,
                                            .mr = 14,
                                            .nr = 32};
/* int8 convolution: widened bytes, or the fused vpdpbusd kernel */
static const fdnn_s8_conv_kernels_t s8conv = {
    .wide = fdnn_s8_conv_wide__avx512, .epi = fdnn_s8_conv_epilogue__avx512, .vk = 16, .mr = 8};
static const fdnn_s8_conv_kernels_t s8conv_vnni = {
    .fused = fdnn_s8_conv_fused__avx512vnni, .pack_block = fdnn_s8_conv_pack_block__avx512vnni, .epi = fdnn_s8_conv_epilogue__avx512, .vk = 16, .mr = 6};
/* row conversions: vcvtne2ps2bf16 for float -> bfloat16 where present */
static const fdnn_cvt_row_kernels_t cvt_row = {FDNN_CVT_AVX512, fdnn_convert_row_f32_f16__avx512,
                                               fdnn_convert_row_f16_f32__avx512, fdnn_convert_row_f32_bf16__avx512,
                                               fdnn_convert_row_bf16_f32__avx512};
static const fdnn_cvt_row_kernels_t cvt_row_bf16 = {
    FDNN_CVT_AVX512_BF16, fdnn_convert_row_f32_f16__avx512, fdnn_convert_row_f16_f32__avx512,
    fdnn_convert_row_f32_bf16__avx512bf16, fdnn_convert_row_bf16_f32__avx512};

/* PSEUDO_HALF GEMM (sgemm_f16.c): the tiles that read half B in place */
static const fdnn_f16_bhalf_twin_t f16_bhalf[] = {
    {fdnn_f32_gemm_ukernel_14x32__avx512, fdnn_f32_gemm_bhalf_ukernel_14x32__avx512, 14, 32},
    {fdnn_f32_gemm_ukernel_8x48__avx512, fdnn_f32_gemm_bhalf_ukernel_8x48__avx512, 8, 48},
};

/* and the one that reads half A rows in place */
static const fdnn_f16_ahalf_twin_t f16_ahalf[] = {
    {fdnn_f32_gemm_arows_ukernel_6x49__avx512, fdnn_f32_gemm_arows_ahalf_ukernel_6x49__avx512, 6, 49},
};

const fdnn_isa_config_t fdnn_isa_config_avx512 = {
    .isa = FDNN_ISA_AVX512,
    .act_fwd_f32 = fdnn_act_fwd_f32__avx512,
    .act_bwd_f32 = fdnn_act_bwd_f32__avx512,
    .pool_f32 = &fdnn_pool_f32__avx512,
    .softmax_f32 = &fdnn_softmax_f32__avx512,
    .lrn_f32 = &fdnn_lrn_f32__avx512,
    .elt_task = fdnn_elt_task__avx512,
    .red_chunk_task = fdnn_red_chunk_task__avx512,
    .red_output_task = fdnn_red_output_task__avx512,
    .red_vertical_task = fdnn_red_vertical_task__avx512,
    .bn = &fdnn_bn_kernels_avx512,
    .bn_fused = &fdnn_bn_fused_avx512,
    .fft = {fdnn_fft_f32__avx512, fdnn_fft_f64__avx512, fdnn_cgemm_f32__avx512, fdnn_cgemm_f64__avx512},
    .simd_apply = fdnn_simd_f32_apply__avx512,
    .sgemm_tile = sgemm_tile,
    .dgemm = {fdnn_f64_gemm_ukernel_14x16__avx512, fdnn_f64_gemm_arows_ukernel_14x16__avx512, 14, 16},
    .dot_rows = fdnn_f32_dot_rows__avx512,
    .axpy_rows = fdnn_f32_axpy_rows__avx512,
    .conv_gemm = {.ukernel = fdnn_f32_gemm_ukernel_14x32__avx512,
                  .ukernel_half = fdnn_f32_gemm_ukernel_14x16__avx512,
                  .arows = fdnn_f32_gemm_arows_ukernel_14x32__avx512,
                  .arows_half = fdnn_f32_gemm_arows_ukernel_14x16__avx512,
                  .aptrs = fdnn_f32_gemm_aptrs_ukernel_14x32__avx512,
                  .pack_t = fdnn_f32_pack_t__avx512,
                  .mr = 14,
                  .nr = 32,
                  .half_nr = 16,
                  .transpose_ptrs = fdnn_f32_transpose_ptrs__avx512},
    .conv_direct = {fdnn_f32_conv_direct_ukernel__avx512, fdnn_f32_conv_direct_pack16__avx512,
                    FDNN_AVX512_CONV_DIRECT_UR, FDNN_AVX512_CONV_DIRECT_NKB},
    .dwconv_rows = fdnn_f32_dwconv_rows__avx512,
    .dwconv_grad = fdnn_f32_dwconv_grad__avx512,
    .dwcb_rows = fdnn_f32_dwcb_rows__avx512,
    .dwcb_grad = fdnn_f32_dwcb_grad__avx512,
    .dwcb_gather = fdnn_f32_dwcb_gather__avx512,
    .dwcb_pack = fdnn_f32_dwcb_pack__avx512,
    .dwcb_unpack = fdnn_f32_dwcb_unpack__avx512,
    .dwflat = &fdnn_f32_dwflat__avx512,
    .wino_fused_block = fdnn_wino_fused_block__avx512,
    .wino_bwdf = &fdnn_wino_bwdf_kernels__avx512,
    .sgemm_f16 = {fdnn_f16_pack_t__avx512, fdnn_f16_pack_n__avx512, fdnn_f16_pack_b49__avx512, fdnn_f16_rows__avx512,
                  f16_bhalf, sizeof f16_bhalf / sizeof f16_bhalf[0], f16_ahalf, sizeof f16_ahalf / sizeof f16_ahalf[0]},

    .bf16dot = {&bf16dot, &bf16dot_bf16, FDNN_EXT_AVX512_BF16},
    .i8dot = {&i8dot, &i8dot_vnni, FDNN_EXT_AVX512_VNNI},
    .s8conv = {&s8conv, &s8conv_vnni, FDNN_EXT_AVX512_VNNI},
    .conv_bf16 = FDNN_EXT_AVX512_BF16,
    .cvt_row = {&cvt_row, &cvt_row_bf16, FDNN_EXT_AVX512_BF16},
    .gx_pw_row_f32 = gx_pw_row_f32__avx512,
    .gx_pw_row_f64 = gx_pw_row_f64__avx512,
    .sdpa_fwd = gx_sdpa_fwd__avx512,
    .sdpa_bwd = gx_sdpa_bwd__avx512,
};
