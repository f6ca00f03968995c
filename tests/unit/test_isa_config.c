/* SPDX-License-Identifier: Apache-2.0
 * The per-ISA configuration place (src/cpu/config) and the ISA levels of
 * both architectures (core/cpu.h): every level this CPU runs has a
 * complete table of its own; a level above the CPU, or of the other
 * architecture, falls back to the detected level's table, is refused by
 * freednnSetIsa and ignored as a FREEDNN_MAX_ISA cap; names round-trip.
 * The kernels themselves are checked against the portable ones by each
 * family's test, which loops over the levels 0 .. fdnn_cpu_max_isa(). */
#include <string.h>

#include "core/cpu.h"
#include "cpu/config/config.h"
#include "freednn.h"
#include "testutil.h"

/* Every entry of a table is set (a level without its own kernel names the
 * portable one). */
static void
check_complete(const fdnn_isa_config_t *c)
{
    const char *name = fdnn_isa_name(c->isa);
    CHECK_MSG(c->act_fwd_f32 && c->act_bwd_f32 && c->pool_f32 && c->softmax_f32 && c->lrn_f32, "%s: ops", name);
    CHECK_MSG(c->elt_task && c->red_chunk_task && c->red_output_task && c->red_vertical_task, "%s: tensor", name);
    CHECK_MSG(c->bn && c->bn_fused && c->simd_apply, "%s: bn, simd", name);
    CHECK_MSG(c->fft.fft_f32 && c->fft.fft_f64 && c->fft.cgemm_f32 && c->fft.cgemm_f64, "%s: fft", name);
    CHECK_MSG(c->dgemm.ukernel && c->dgemm.mr > 0 && c->dgemm.nr > 0 && c->dot_rows && c->axpy_rows, "%s: gemm", name);
    CHECK_MSG(c->conv_gemm.ukernel && c->conv_gemm.mr > 0 && c->conv_gemm.nr > 0, "%s: conv gemm", name);
    CHECK_MSG(c->conv_direct.ukernel && c->conv_direct.pack16 && c->conv_direct.max_ur > 0, "%s: direct", name);
    CHECK_MSG(c->dwconv_rows && c->dwconv_grad && c->dwcb_rows && c->dwcb_grad && c->wino_fused_block,
              "%s: dw, winograd", name);
    CHECK_MSG(c->bf16dot.base && c->bf16dot.base->ukernel && c->bf16dot.base->pack && c->bf16dot.base->mr > 0,
              "%s: bf16 gemm", name);
    CHECK_MSG(c->i8dot.base && c->i8dot.base->ukernel && c->i8dot.base->pack && c->i8dot.base->mr > 0,
              "%s: int8 gemm", name);
    CHECK_MSG(c->s8conv.base && (c->s8conv.base->wide != NULL) != (c->s8conv.base->fused != NULL), "%s: s8 conv",
              name);
    CHECK_MSG(c->cvt_row.base && c->cvt_row.base->f32_f16 && c->cvt_row.base->bf16_f32, "%s: convert rows", name);
    CHECK_MSG(c->gx_pw_row_f32 && c->gx_pw_row_f64 && c->sdpa_fwd && c->sdpa_bwd, "%s: graph", name);
    /* a gated twin names its extension, and an entry without one has none */
    CHECK_MSG((c->bf16dot.with_ext != NULL) == (c->bf16dot.ext != FDNN_EXT_NONE), "%s: bf16 gemm gate", name);
    CHECK_MSG((c->i8dot.with_ext != NULL) == (c->i8dot.ext != FDNN_EXT_NONE), "%s: int8 gemm gate", name);
    CHECK_MSG((c->s8conv.with_ext != NULL) == (c->s8conv.ext != FDNN_EXT_NONE), "%s: s8 conv gate", name);
    CHECK_MSG((c->cvt_row.with_ext != NULL) == (c->cvt_row.ext != FDNN_EXT_NONE), "%s: convert gate", name);
    /* the float GEMM tile for a few shapes: a kernel that covers it */
    static const size_t shapes[][3] = {{1, 1, 1}, {4, 8, 16}, {64, 196, 256}, {1024, 49, 64}, {3, 1000, 7}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        fdnn_sgemm_args_t g = {.m = shapes[s][0], .n = shapes[s][1], .k = shapes[s][2], .alpha = 1};
        fdnn_sgemm_tile_t t = c->sgemm_tile(&g);
        CHECK_MSG((t.ukernel != NULL || t.arows != NULL) && t.mr > 0 && t.nr > 0, "%s: sgemm tile %zu", name, s);
    }
}

static void
test_levels(void)
{
    fdnn_isa_t max = fdnn_cpu_max_isa(), detected = fdnn_cpu_detected_isa();
    CHECK(max <= detected);
    for (int l = 0; l < FDNN_ISA_COUNT; l++) {
        fdnn_isa_t isa = (fdnn_isa_t)l;
        CHECK(fdnn_isa_from_name(fdnn_isa_name(isa)) == l);
        const fdnn_isa_config_t *c = fdnn_isa_config(isa);
        CHECK(c != NULL);
        if (isa <= detected)
            CHECK_MSG(c->isa == isa, "level %s has the table of %s", fdnn_isa_name(isa), fdnn_isa_name(c->isa));
        else
            CHECK_MSG(c->isa == detected, "level %s above the CPU gave %s", fdnn_isa_name(isa), fdnn_isa_name(c->isa));
        check_complete(c);
    }
    CHECK(fdnn_isa_from_name("sse2") == -1 && fdnn_isa_from_name("") == -1);
    CHECK(strcmp(fdnn_isa_name(FDNN_ISA_NEON), "neon") == 0 && strcmp(fdnn_isa_name(FDNN_ISA_AVX2), "avx2") == 0);
    /* the numbering (core/cpu.h): this build's levels right after scalar */
    if (FDNN_ARCH_X86)
        CHECK(FDNN_ISA_AVX2 == 1 && FDNN_ISA_AVX512 == 2 && FDNN_ISA_NEON > FDNN_ISA_AVX512);
    if (FDNN_ARCH_ARM64)
        CHECK(FDNN_ISA_NEON == 1 && FDNN_ISA_AVX2 > FDNN_ISA_NEON && FDNN_ISA_AVX512 > FDNN_ISA_NEON);
    if (FDNN_ARCH_ARM64)
        CHECK_MSG(detected == FDNN_ISA_NEON, "AArch64 detected %s", fdnn_isa_name(detected));
}

/* freednnSetIsa accepts exactly the levels 0 .. max of this build's
 * architecture and refuses the other architecture's. */
static void
test_set_isa(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    fdnn_isa_t max = fdnn_cpu_max_isa();
    for (int l = 0; l < FDNN_ISA_COUNT; l++) {
        const char *name = fdnn_isa_name((fdnn_isa_t)l), *got = NULL;
        if ((fdnn_isa_t)l <= max) {
            CHECK_OK(freednnSetIsa(h, name));
            CHECK_OK(freednnGetIsa(h, &got));
            CHECK(got != NULL && strcmp(got, name) == 0);
        } else {
            CHECK_STATUS(freednnSetIsa(h, name), CUDNN_STATUS_NOT_SUPPORTED);
        }
    }
    CHECK_STATUS(freednnSetIsa(h, FDNN_ARCH_X86 ? "neon" : "avx2"), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(freednnSetIsa(h, "sse"), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroy(h));
}

/* The gated choices of the x86 levels are the ones the families made in
 * place before the table held them; every chosen entry is found again by
 * its id and runs here. */
static void
test_gated(void)
{
    const fdnn_cpu_features_t *f = fdnn_cpu_features();
    CHECK(fdnn_cpu_has_ext(FDNN_EXT_NONE) && !fdnn_cpu_has_ext(FDNN_EXT_NEVER));
    fdnn_isa_t detected = fdnn_cpu_detected_isa();
    if (FDNN_ARCH_X86 && detected >= FDNN_ISA_AVX512) {
        const fdnn_isa_config_t *c = fdnn_isa_config(FDNN_ISA_AVX512);
        CHECK(FDNN_ISA_PICK(c->bf16dot)->id == (f->avx512_bf16 ? FDNN_BF16DOT_AVX512_BF16 : FDNN_BF16DOT_AVX512));
        CHECK(FDNN_ISA_PICK(c->i8dot)->id == (f->avx512_vnni ? FDNN_I8DOT_AVX512_VNNI : FDNN_I8DOT_AVX512));
        CHECK(FDNN_ISA_PICK(c->cvt_row)->path == (f->avx512_bf16 ? FDNN_CVT_AVX512_BF16 : FDNN_CVT_AVX512));
        CHECK((FDNN_ISA_PICK(c->s8conv)->fused != NULL) == f->avx512_vnni);
    }
    if (FDNN_ARCH_X86 && detected >= FDNN_ISA_AVX2) {
        const fdnn_isa_config_t *c = fdnn_isa_config(FDNN_ISA_AVX2);
        CHECK(FDNN_ISA_PICK(c->bf16dot)->id == FDNN_BF16DOT_AVX2 && FDNN_ISA_PICK(c->i8dot)->id == FDNN_I8DOT_AVX2);
        CHECK(FDNN_ISA_PICK(c->cvt_row)->path == FDNN_CVT_F16C);
    }
    for (int l = 0; l < FDNN_ISA_COUNT; l++) {
        const fdnn_isa_config_t *c = fdnn_isa_config((fdnn_isa_t)l);
        bool runs = false;
        CHECK(fdnn_isa_bf16dot_tile(FDNN_ISA_PICK(c->bf16dot)->id, &runs) == FDNN_ISA_PICK(c->bf16dot) && runs);
        CHECK(fdnn_isa_i8dot_tile(FDNN_ISA_PICK(c->i8dot)->id, &runs) == FDNN_ISA_PICK(c->i8dot) && runs);
        CHECK(fdnn_isa_cvt_row_kernels(FDNN_ISA_PICK(c->cvt_row)->path, &runs) == FDNN_ISA_PICK(c->cvt_row) && runs);
    }
    bool runs = true;
    CHECK(fdnn_isa_bf16dot_tile(-1, &runs) == NULL && !runs);
}

int
main(void)
{
    test_levels();
    test_gated();
    test_set_isa();
    return fdnn_test_finish("test_isa_config");
}
