/* SPDX-License-Identifier: Apache-2.0
 * The one place that says which kernels each ISA level runs.
 *
 * Every level has one configuration file here (scalar.c, x86_avx2.c,
 * x86_avx512.c, arm_neon.c) that fills one fdnn_isa_config_t with the
 * kernels of every family that dispatches by level; the families ask
 * fdnn_isa_config(handle->isa) and never compare levels themselves.  A level
 * without its own kernel for a family names the portable one.  Adding a
 * level is: its enumerator in core/cpu.h, its detection in core/cpu.c, its
 * file here, one line in config.c's table and its file pattern in
 * CMakeLists.txt (which builds x86_*.c and __avx*.c only for x86, arm_*.c
 * and __neon.c only for AArch64).
 *
 * A kernel that needs a CPU extension beyond its level (AVX512-BF16,
 * AVX512-VNNI, the AArch64 BF16 instructions) is a gated entry
 * (FDNN_ISA_GATED): the level's kernel, the extension's kernel and the
 * extension; fdnn_cpu_has_ext says whether this CPU has it, and
 * FDNN_ISA_PICK chooses.  RNN and attention reach their kernels through
 * sgemm, simd and the bf16 GEMM, so through this table. */
#ifndef FDNN_CPU_CONFIG_CONFIG_H
#define FDNN_CPU_CONFIG_CONFIG_H

#include <stddef.h>

#include "core/cpu.h"
#include "cpu/activation/activation.h"
#include "cpu/batchnorm/bn_fused.h"
#include "cpu/batchnorm/bn_kernels.h"
#include "cpu/conv/conv_winograd_engine.h"
#include "cpu/fft/fft.h"
#include "cpu/gemm/gemm.h"
#include "cpu/graph/graph_exec.h"
#include "cpu/graph/gx_sdpa.h"
#include "cpu/kernels/bf16_gemm.h"
#include "cpu/kernels/conv_direct.h"
#include "cpu/kernels/dwconv.h"
#include "cpu/kernels/f16_pack.h"

#include "cpu/kernels/dwconv_cb.h"
#include "cpu/kernels/dwflat.h"
#include "cpu/kernels/gemm_ukernel.h"
#include "cpu/kernels/transpose_ptrs.h"
#include "cpu/kernels/gemv.h"
#include "cpu/kernels/lowp_i8_gemm.h"
#include "cpu/kernels/s8_conv.h"
#include "cpu/lrn/lrn.h"
#include "cpu/pooling/pooling.h"
#include "cpu/simd/simd.h"
#include "cpu/softmax/softmax.h"
#include "cpu/tensor/convert_row.h"
#include "cpu/tensor/tensor_kernels.h"

/* CPU extensions beyond a level that some kernels need. */
typedef enum fdnn_isa_ext {
    FDNN_EXT_NONE = 0,     /* nothing beyond the level: always there */
    FDNN_EXT_AVX512_BF16,  /* x86: vdpbf16ps, vcvtne2ps2bf16 */
    FDNN_EXT_AVX512_VNNI,  /* x86: vpdpbusd */
    FDNN_EXT_ARM_BF16,     /* AArch64 FEAT_BF16: BFMLALB/T, BFDOT, BFCVT */
    FDNN_EXT_ARM_DOTPROD,  /* AArch64 FEAT_DotProd: SDOT, UDOT */
    FDNN_EXT_ARM_I8MM,     /* AArch64 FEAT_I8MM: SMMLA, USDOT */
    FDNN_EXT_NEVER,        /* the level has no such kernel */
} fdnn_isa_ext_t;

/* Whether this CPU has `ext` (NONE: true, NEVER: false); read from
 * fdnn_cpu_features, so FREEDNN_MAX_ISA does not change it (the level's
 * cap already decides which table is asked). */
bool fdnn_cpu_has_ext(fdnn_isa_ext_t ext);

/* A gated entry: `base` always, `with_ext` instead when the CPU has `ext`
 * (with_ext NULL and ext NONE when the level has no such twin). */
#define FDNN_ISA_GATED(T)   \
    struct {                \
        T base;             \
        T with_ext;         \
        fdnn_isa_ext_t ext; \
    }
#define FDNN_ISA_PICK(gated) \
    ((gated).with_ext != NULL && fdnn_cpu_has_ext((gated).ext) ? (gated).with_ext : (gated).base)

/* The float GEMM tile for one product (fdnn_sgemm): the kernels and their
 * shape.  ukernel reads packed A; arows (NULL if none) reads A in place;
 * the _half twins (NULL if none) are the same arithmetic nr/2 wide, for a
 * last strip of at most nr/2 columns; pack_t/pack_n (NULL: the driver's
 * portable packs) pack op(A)/op(B) strips; pack_b (NULL: pack_n) packs B
 * into the kernel's own strip layout.  A tile with ukernel NULL has only
 * the arows kernel, for A read in place (fdnn_sgemm_prefers_rows_of_a). */
typedef struct fdnn_sgemm_tile {
    fdnn_f32_gemm_ukernel_fn ukernel, ukernel_half;
    fdnn_f32_gemm_arows_ukernel_fn arows, arows_half;
    fdnn_f32_gemm_arows_pf_ukernel_fn arows_pf; /* arows with the driver's prefetch hint (args.next), or NULL */
    /* arows(_half) prefetching a share their caller names (the NHWC 1x1
     * rows path: the next tile's rows of A), or NULL.  The same kinds of
     * kernels as arows_pf, kept apart because the driver's hint was
     * measured on the 6x49 tile only. */
    fdnn_f32_gemm_arows_pf_ukernel_fn arows_ahead, arows_half_ahead;
    fdnn_f32_pack_t_fn pack_t;
    fdnn_f32_pack_n_fn pack_n, pack_b;
    size_t mr, nr;
    size_t kc; /* the most k per block (B micro-panels then stream from L2), or
                  0: the L1-sized block of fdnn_gemm_blocking */
} fdnn_sgemm_tile_t;

/* A level's choice of tile for a product: depends on the shape only
 * (never on the thread count). */
typedef fdnn_sgemm_tile_t (*fdnn_sgemm_tile_fn)(const fdnn_sgemm_args_t *args);

typedef struct fdnn_isa_config {
    fdnn_isa_t isa;
    /* src/cpu/activation: contiguous float rows */
    fdnn_act_fwd_f32_fn act_fwd_f32;
    fdnn_act_bwd_f32_fn act_bwd_f32;
    /* src/cpu/pooling, softmax, lrn: the float fast paths */
    const fdnn_pool_f32_kernels_t *pool_f32;
    const fdnn_softmax_f32_kernels_t *softmax_f32;
    const fdnn_lrn_f32_kernels_t *lrn_f32;
    /* src/cpu/tensor: OpTensor/AddTensor tasks and ReduceTensor tasks */
    void (*elt_task)(const fdnn_elt_plan_t *plan, size_t task);
    void (*red_chunk_task)(const fdnn_red_plan_t *plan, size_t task);
    void (*red_output_task)(const fdnn_red_plan_t *plan, size_t output);
    void (*red_vertical_task)(const fdnn_red_plan_t *plan, size_t task);
    /* src/cpu/batchnorm: the engine's passes and the fused (NHWC) kernels */
    const fdnn_bn_kernels_t *bn;
    const fdnn_bn_fused_kernels_t *bn_fused;
    /* src/cpu/fft: transforms and the pointwise complex products */
    fdnn_fft_kernels_t fft;
    /* src/cpu/simd: fdnn_simd_f32_apply (RNN gates, ...) */
    void (*simd_apply)(fdnn_simd_fn_t fn, const float *x, float *y, size_t n);
    /* src/cpu/gemm: the float tile chooser, the double tile, the thin
     * (matrix-vector) kernels */
    fdnn_sgemm_tile_fn sgemm_tile;
    struct {
        fdnn_f64_gemm_ukernel_fn ukernel;
        fdnn_f64_gemm_arows_ukernel_fn arows; /* NULL if none */
        size_t mr, nr;
    } dgemm;
    fdnn_f32_gemv_fn dot_rows, axpy_rows;
    /* src/cpu/conv/conv_gemm*: the implicit-GEMM tile (same meaning as
     * fdnn_sgemm_tile_t; aptrs reads a pointer per row of A, NULL if none;
     * half_nr the width of the _half twins, 0 if none) */
    struct {
        fdnn_f32_gemm_ukernel_fn ukernel, ukernel_half;
        fdnn_f32_gemm_arows_ukernel_fn arows, arows_half;
        fdnn_f32_gemm_aptrs_ukernel_fn aptrs;
        fdnn_f32_pack_t_fn pack_t;
        size_t mr, nr, half_nr;
        /* conv_gemm_nhwc_krsc's im2col and output transposes, and the
         * blocked direct solver's KRSC filter reorder (every level names
         * one; the portable one where it has none of its own) */
        fdnn_f32_transpose_ptrs_fn transpose_ptrs;
    } conv_gemm;
    /* src/cpu/conv/conv_direct_blocked: the blocked direct kernel, its
     * 16-channel pack and its largest row tile and output-channel blocks */
    struct {
        fdnn_f32_conv_direct_fn ukernel;
        fdnn_f32_conv_direct_pack_fn pack16;
        int64_t max_ur, max_nkb;
    } conv_direct;
    /* src/cpu/conv/conv_depthwise and conv_winograd_fused */
    fdnn_f32_dwconv_rows_fn dwconv_rows;
    fdnn_f32_dwconv_grad_fn dwconv_grad;
    /* src/cpu/conv/conv_depthwise_cb: channel-blocked depthwise */
    fdnn_f32_dwcb_rows_fn dwcb_rows;
    fdnn_f32_dwcb_grad_fn dwcb_grad;
    fdnn_f32_dwcb_pack_fn dwcb_pack;     /* NULL: the portable loops */
    fdnn_f32_dwcb_unpack_fn dwcb_unpack; /* NULL: the portable loops */
    fdnn_f32_dwcb_gather_fn dwcb_gather; /* NULL: the portable loop */
    /* src/cpu/conv/conv_depthwise_flat: NULL where the level has no
     * masked loads (the path declines, the others run) */
    const fdnn_f32_dwflat_kernels_t *dwflat;
    fdnn_wino_fused_block_fn wino_fused_block;
    /* src/cpu/conv/conv_winograd_bwd_filter43: transforms and product */
    const fdnn_wino_bwdf_kernels_t *wino_bwdf;
    /* src/cpu/gemm/sgemm_f16: the converting (HALF -> FLOAT) twins of the
     * sgemm tile's packs (f16_pack.h); NULL members: the portable ones */
    fdnn_f16_packs_t sgemm_f16;

    /* src/cpu/gemm/bf16_gemm.c and lowp_i8_gemm.c: the dot-product GEMM
     * tiles (every tile does the same arithmetic: any choice is bitwise
     * the same) */
    FDNN_ISA_GATED(const fdnn_bf16dot_tile_t *) bf16dot;
    FDNN_ISA_GATED(const fdnn_i8dot_tile_t *) i8dot;
    /* src/cpu/conv/conv_int8.c: the int8 convolution kernels */
    FDNN_ISA_GATED(const fdnn_s8_conv_kernels_t *) s8conv;
    /* src/cpu/conv/conv_bf16.c: the extension its native (vdpbf16ps)
     * kernels need at this level; NEVER where there are none */
    fdnn_isa_ext_t conv_bf16;
    /* src/cpu/tensor/convert_row.c: the row conversions */
    FDNN_ISA_GATED(const fdnn_cvt_row_kernels_t *) cvt_row;
    /* src/cpu/graph: the pointwise rows and the fused attention kernels */
    gx_pw_row_f32_fn gx_pw_row_f32;
    gx_pw_row_f64_fn gx_pw_row_f64;
    gx_sdpa_fwd_fn sdpa_fwd;
    gx_sdpa_bwd_fn sdpa_bwd;
} fdnn_isa_config_t;

/* The configuration of `isa`, or of the best level this CPU runs when `isa`
 * is above it or belongs to another architecture (never a kernel the CPU
 * lacks).  Never NULL. */
const fdnn_isa_config_t *fdnn_isa_config(fdnn_isa_t isa);

/* A family's entry registered by some level of this build, found by its id
 * (tests and benchmarks force one): NULL when no level registers it; else
 * *runs (when runs != NULL) says whether this CPU runs it (its level is
 * within the detected one and its extension present). */
const fdnn_bf16dot_tile_t *fdnn_isa_bf16dot_tile(int id, bool *runs);
const fdnn_i8dot_tile_t *fdnn_isa_i8dot_tile(int id, bool *runs);
const fdnn_cvt_row_kernels_t *fdnn_isa_cvt_row_kernels(int path, bool *runs);

/* The levels' own tables (config.c picks among them). */
extern const fdnn_isa_config_t fdnn_isa_config_scalar;
extern const fdnn_isa_config_t fdnn_isa_config_avx2;
extern const fdnn_isa_config_t fdnn_isa_config_avx512;
extern const fdnn_isa_config_t fdnn_isa_config_neon;

/* The portable entries (scalar.c), which levels without their own kernel
 * of a family name too. */
extern const fdnn_bf16dot_tile_t fdnn_bf16dot_tile_scalar;
extern const fdnn_i8dot_tile_t fdnn_i8dot_tile_scalar;
extern const fdnn_s8_conv_kernels_t fdnn_s8_conv_kernels_scalar;
extern const fdnn_cvt_row_kernels_t fdnn_cvt_row_kernels_scalar;

#endif /* FDNN_CPU_CONFIG_CONFIG_H */
