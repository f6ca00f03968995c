/* SPDX-License-Identifier: Apache-2.0
 * fdnn_wino_fused_block__scalar (conv_winograd_engine.h): portable C. */
#define WINO_SCALAR 1
#define BLOCK_FN fdnn_wino_fused_block__scalar
#include "cpu/conv/conv_winograd_fused.inc"
