/* SPDX-License-Identifier: Apache-2.0
 * The attention kernels (gx_sdpa_kern.inc) for one ISA level (scalar);
 * engine_sdpa.c and engine_sdpa_bwd.c dispatch on the handle's level. */
#include <math.h>
#include <stdint.h>

#include "cpu/graph/gx_sdpa.h"
#include "cpu/simd/f32_scalar.h"

#include "cpu/graph/gx_sdpa_kern.inc"
