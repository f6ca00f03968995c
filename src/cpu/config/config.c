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

bool
fdnn_cpu_has_ext(fdnn_isa_ext_t ext)
{
    const fdnn_cpu_features_t *f = fdnn_cpu_features();
    switch (ext) {
    case FDNN_EXT_NONE: return true;
    case FDNN_EXT_AVX512_BF16: return FDNN_ARCH_X86 && f->avx512_bf16;
    case FDNN_EXT_AVX512_VNNI: return FDNN_ARCH_X86 && f->avx512_vnni;
    case FDNN_EXT_ARM_BF16: return FDNN_ARCH_ARM64 && f->bf16;
    case FDNN_EXT_ARM_DOTPROD: return FDNN_ARCH_ARM64 && f->asimddp;
    case FDNN_EXT_ARM_I8MM: return FDNN_ARCH_ARM64 && f->i8mm;
    case FDNN_EXT_NEVER: return false;
    }
    return false;
}

/* The entry of a gated field whose descriptor has `key` == id, over every
 * level of the build; *runs: some level within the detected one registers
 * it as its base, or as its twin with the extension present. */
#define FIND_BY_ID(T, field, key)                                                            \
    const T *found = NULL;                                                                   \
    bool any = false;                                                                        \
    fdnn_isa_t cpu = fdnn_cpu_detected_isa();                                                \
    for (unsigned l = 0; l < FDNN_ISA_COUNT; l++) {                                          \
        const fdnn_isa_config_t *c = configs[l];                                             \
        if (c == NULL)                                                                       \
            continue;                                                                        \
        bool level = l <= (unsigned)cpu;                                                     \
        if (c->field.base != NULL && c->field.base->key == id) {                             \
            found = c->field.base;                                                           \
            any = any || level;                                                              \
        }                                                                                    \
        if (c->field.with_ext != NULL && c->field.with_ext->key == id) {                     \
            found = c->field.with_ext;                                                       \
            any = any || (level && fdnn_cpu_has_ext(c->field.ext));                          \
        }                                                                                    \
    }                                                                                        \
    if (runs != NULL)                                                                        \
        *runs = found != NULL && any;                                                        \
    return found

const fdnn_bf16dot_tile_t *
fdnn_isa_bf16dot_tile(int id, bool *runs)
{
    FIND_BY_ID(fdnn_bf16dot_tile_t, bf16dot, id);
}

const fdnn_i8dot_tile_t *
fdnn_isa_i8dot_tile(int id, bool *runs)
{
    FIND_BY_ID(fdnn_i8dot_tile_t, i8dot, id);
}

const fdnn_cvt_row_kernels_t *
fdnn_isa_cvt_row_kernels(int id, bool *runs)
{
    FIND_BY_ID(fdnn_cvt_row_kernels_t, cvt_row, path);
}
