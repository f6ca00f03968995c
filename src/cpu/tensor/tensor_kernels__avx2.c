/* SPDX-License-Identifier: Apache-2.0
 * The tensor kernels, avx2 build (see tensor_kernels.inc). */
#define FDNN_TK_ISA avx2
#include "cpu/tensor/tensor_kernels.inc"
