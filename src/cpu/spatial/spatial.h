/* SPDX-License-Identifier: Apache-2.0
 * The spatial transformer on the CPU (2-D, bilinear), with cuDNN's (and
 * PyTorch's align_corners=True) conventions:
 *
 *   normalised coordinates: u_w = -1 + 2 w / (W - 1), v_h likewise (0 when
 *   the size is 1), so -1 and +1 are the centres of the corner pixels;
 *   grid[n,h,w] = (theta[n,0,:] . (u_w, v_h, 1), theta[n,1,:] . (u_w, v_h, 1)),
 *   grid packed N x H x W x 2 (x then y), theta packed N x 2 x 3;
 *   sampler: ix = (gx + 1) (Win - 1) / 2, iy = (gy + 1) (Hin - 1) / 2,
 *   y = alpha * bilinear(x, ix, iy) + beta * y, where neighbours outside the
 *   image count as 0.
 *
 * theta and grid have the descriptor's type (FLOAT, DOUBLE or HALF), as do x
 * and y.  Arithmetic is float64.  The backward accumulates dx in float64
 * scratch (planes owned by one task each) and dgrid per output pixel, so
 * results do not depend on the thread count. */
#ifndef FDNN_CPU_SPATIAL_SPATIAL_H
#define FDNN_CPU_SPATIAL_SPATIAL_H

#include "core/handle.h"
#include "core/tensor.h"

/* grid (N x H x W x 2) from theta (N x 2 x 3). */
void fdnn_spatial_grid_forward(cudnnHandle_t handle, cudnnDataType_t dt, int64_t n, int64_t h, int64_t w,
                               const void *theta, void *grid);

/* dtheta (N x 2 x 3, overwritten) from dgrid. */
void fdnn_spatial_grid_backward(cudnnHandle_t handle, cudnnDataType_t dt, int64_t n, int64_t h, int64_t w,
                                const void *dgrid, void *dtheta);

/* y (dims N, C, Hout, Wout) sampled from x (N, C, Hin, Win). */
void fdnn_spatial_sampler_forward(cudnnHandle_t handle, double alpha, const fdnn_tensor_t *xt, const void *x,
                                  const void *grid, double beta, const fdnn_tensor_t *yt, void *y);

/* Scratch bytes the sampler backward needs. */
size_t fdnn_spatial_sampler_backward_scratch(const fdnn_tensor_t *xt);

/* dx = alpha * dx' + beta * dx, dgrid = alpha_g * dgrid' + beta_g * dgrid. */
cudnnStatus_t fdnn_spatial_sampler_backward(cudnnHandle_t handle, double alpha, const fdnn_tensor_t *xt,
                                            const void *x, double beta, const fdnn_tensor_t *dxt, void *dx,
                                            double alpha_g, const fdnn_tensor_t *dyt, const void *dy,
                                            const void *grid, double beta_g, void *dgrid);

#endif /* FDNN_CPU_SPATIAL_SPATIAL_H */
