/* SPDX-License-Identifier: Apache-2.0
 * Batch-norm row kernels for the avx2 level (flags from the file name). */
#define BN_KERNELS_NAME fdnn_bn_kernels_avx2
#include "cpu/batchnorm/bn_kernels.inc"
