/* SPDX-License-Identifier: Apache-2.0
 * ISA dispatch of fdnn_simd_f32_apply, through the level's configuration
 * (src/cpu/config). */
#include "cpu/simd/simd.h"

#include "cpu/config/config.h"

void
fdnn_simd_f32_apply(fdnn_isa_t isa, fdnn_simd_fn_t fn, const float *x, float *y, size_t n)
{
    fdnn_isa_config(isa)->simd_apply(fn, x, y, n);
}
