/* SPDX-License-Identifier: Apache-2.0
 * Batch-norm row kernels for the scalar level (flags from the file name). */
#define BN_KERNELS_NAME fdnn_bn_kernels_scalar
#include "cpu/batchnorm/bn_kernels.inc"
