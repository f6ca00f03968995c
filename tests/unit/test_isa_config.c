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
    CHECK_MSG(c->dwconv_rows && c->dwconv_grad && c->dwcb_rows && c->dwcb_grad && c->wino_fused_block, "%s: dw, winograd", name);
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

int
main(void)
{
    test_levels();
    test_set_isa();
    return fdnn_test_finish("test_isa_config");
}
