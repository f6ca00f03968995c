/* SPDX-License-Identifier: Apache-2.0
 * The explicit im2col matrix of cudnnIm2Col: row (n, o) for every image n
 * and output position o (row-major over N, OD, OH, OW), column (c, q) for
 * every input channel c and filter tap q (row-major over C, KD, KH, KW; taps
 * reversed in CONVOLUTION mode, so that the matrix times the packed filter
 * is the convolution); the value is the input element the tap reads, 0 in
 * the padding.  Fully packed: N*P rows of C*taps elements. */
#ifndef FDNN_CPU_CONV_IM2COL_H
#define FDNN_CPU_CONV_IM2COL_H

#include "core/pool.h"

#include "core/conv.h"

void fdnn_conv_im2col_matrix(fdnn_pool_t pool, const fdnn_conv_problem_t *p, const void *x, void *col);

#endif /* FDNN_CPU_CONV_IM2COL_H */
