/* SPDX-License-Identifier: Apache-2.0
 * Spatial transformer, float64 reference (2-D, bilinear, zero outside),
 * the conventions of src/cpu/spatial/spatial.h (cuDNN = PyTorch
 * affine_grid / grid_sample with align_corners=True, padding "zeros").
 * Packed arrays: theta N x 2 x 3, grid N x H x W x 2, x N x C x Hin x Win,
 * y N x C x H x W.
 *
 *   u_j = -1 + 2 j / (W - 1) (0 if W == 1), v_i likewise with H
 *   grid[n,i,j] = theta[n] . (u_j, v_i, 1)
 *   y[n,c,i,j]  = sum over the 4 neighbours (p, q) of (iy, ix) inside the
 *                 image of x[n,c,p,q] (1 - |ix - q|) (1 - |iy - p|),
 *   ix = (gx + 1) (Win - 1) / 2, iy = (gy + 1) (Hin - 1) / 2.
 * The backward functions are the exact derivatives of these. */
#ifndef FDNN_REF_SPATIAL_REF_H
#define FDNN_REF_SPATIAL_REF_H

#include <stdint.h>

void fdnn_ref_st_grid(int64_t n, int64_t h, int64_t w, const double *theta, double *grid);
void fdnn_ref_st_grid_backward(int64_t n, int64_t h, int64_t w, const double *dgrid, double *dtheta);
void fdnn_ref_st_sample(int64_t n, int64_t c, int64_t hin, int64_t win, int64_t h, int64_t w, const double *x,
                        const double *grid, double *y);
void fdnn_ref_st_sample_backward(int64_t n, int64_t c, int64_t hin, int64_t win, int64_t h, int64_t w,
                                 const double *x, const double *grid, const double *dy, double *dx, double *dgrid);

#endif /* FDNN_REF_SPATIAL_REF_H */
