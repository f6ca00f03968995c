/* SPDX-License-Identifier: Apache-2.0
 * The FFT convolution solvers (conv_fft.c): CUDNN_CONVOLUTION_*_ALGO_FFT and
 * *_FFT_TILING of the three directions, on the FFT core of src/cpu/fft.
 *
 * Every direction is a sum of products of spectra, one complex matrix
 * product per frequency:
 *   forward:         Y[f][n][k]  = sum_c  X[f][n][c]  * conj(W'[f][k][c])
 *   backward data:   DX[f][n][c] = sum_k  DY[f][n][k] * W'[f][k][c]
 *   backward filter: DW'[f][k][c] = sum_n X[f][n][c] * conj(DY[f][n][k])
 * (per group; W' is the filter as applied, i.e. reversed in CONVOLUTION
 * mode), followed by inverse transforms.  FFT transforms whole (padded)
 * images; FFT_TILING cuts the result into tiles (32-point transforms for
 * filters up to 16, more for larger ones) and treats each tile as an image
 * (overlap-save), so large images need no large transforms.
 *
 * Applicability follows the cuDNN 8.9 "supported configurations" of each
 * algorithm (see docs/convolution.md); beyond cuDNN, DOUBLE, groups and any
 * tensor strides are accepted (the transforms gather through the strides).
 * The workspace holds the three spectra and per-slot transform buffers: it
 * is large, as in cuDNN. */
#ifndef FDNN_CPU_CONV_FFT_H
#define FDNN_CPU_CONV_FFT_H

#include <stdbool.h>

#include "core/conv_solver.h"

cudnnStatus_t fdnn_conv_fft_applicable(const fdnn_conv_problem_t *p, bool tiling);
cudnnStatus_t fdnn_conv_fft_workspace(const fdnn_conv_problem_t *p, bool tiling, size_t *bytes);
cudnnStatus_t fdnn_conv_fft_execute(const fdnn_conv_exec_t *e, bool tiling);

#endif /* FDNN_CPU_CONV_FFT_H */
