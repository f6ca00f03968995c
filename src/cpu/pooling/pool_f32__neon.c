/* SPDX-License-Identifier: Apache-2.0 */
#include "cpu/simd/f32_neon.h"
#include "cpu/pooling/pool_f32.inc"
