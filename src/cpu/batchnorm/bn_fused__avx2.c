/* SPDX-License-Identifier: Apache-2.0
 * Fused batch-norm kernels for the avx2 level (flags from the file name). */
#define BN_FUSED_NAME fdnn_bn_fused_avx2
#include "cpu/batchnorm/bn_fused_kernels.inc"
