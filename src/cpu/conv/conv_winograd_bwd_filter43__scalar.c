/* SPDX-License-Identifier: Apache-2.0
 * fdnn_wino_bwdf_kernels__scalar (conv_winograd_engine.h): portable C. */
#define WINO_SCALAR 1
#define KERNELS fdnn_wino_bwdf_kernels__scalar
#include "cpu/conv/conv_winograd_bwd_filter43.inc"
