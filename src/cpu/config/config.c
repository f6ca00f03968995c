/* SPDX-License-Identifier: Apache-2.0
 * The table of levels: one line per level whose file this build compiles
 * (see config.h). */
#include "cpu/config/config.h"

static const fdnn_isa_config_t *const configs[FDNN_ISA_COUNT] = {
    [FDNN_ISA_SCALAR] = &fdnn_isa_config_scalar,
    [FDNN_ISA_AVX2] = FDNN_X86_ONLY(&fdnn_isa_config_avx2),
    [FDNN_ISA_AVX512] = FDNN_X86_ONLY(&fdnn_isa_config_avx512),
    [FDNN_ISA_NEON] = FDNN_ARM64_ONLY(&fdnn_isa_config_neon),
};

const fdnn_isa_config_t *
fdnn_isa_config(fdnn_isa_t isa)
{
    /* The build's own levels are 0 .. detected (core/cpu.h): anything above
     * is a level this CPU lacks or another architecture's. */
    fdnn_isa_t cpu = fdnn_cpu_detected_isa();
    if ((unsigned)isa > (unsigned)cpu)
        isa = cpu;
    const fdnn_isa_config_t *c = configs[isa];
    return c != NULL ? c : &fdnn_isa_config_scalar;
}
