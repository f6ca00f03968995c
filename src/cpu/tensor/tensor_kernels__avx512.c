/* SPDX-License-Identifier: Apache-2.0
 * The tensor kernels, avx512 build (see tensor_kernels.inc). */
#define FDNN_TK_ISA avx512
#include "cpu/tensor/tensor_kernels.inc"
