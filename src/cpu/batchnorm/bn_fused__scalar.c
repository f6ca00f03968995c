/* SPDX-License-Identifier: Apache-2.0
 * Fused batch-norm kernels for the scalar level (flags from the file name). */
#define BN_FUSED_NAME fdnn_bn_fused_scalar
#include "cpu/batchnorm/bn_fused_kernels.inc"
