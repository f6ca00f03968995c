# SPDX-License-Identifier: Apache-2.0
"""The spatial transformer against PyTorch: cudnnSpatialTfGridGeneratorForward
= affine_grid(align_corners=True), cudnnSpatialTfSamplerForward =
grid_sample(bilinear, zeros, align_corners=True) (the configuration in which
PyTorch itself calls cuDNN), and the backward functions = autograd (dx,
dgrid, dtheta), float32 and float64, NCHW and NHWC inputs, 1 or 2 threads."""
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

import fdnn

vp, c_int = fdnn.vp, ctypes.c_int
create = fdnn.proto("cudnnCreateSpatialTransformerDescriptor", [ctypes.POINTER(vp)])
destroy = fdnn.proto("cudnnDestroySpatialTransformerDescriptor", [vp])
setd = fdnn.proto("cudnnSetSpatialTransformerNdDescriptor", [vp, c_int, c_int, c_int, fdnn.c_int_p])
grid_fwd = fdnn.proto("cudnnSpatialTfGridGeneratorForward", [vp, vp, vp, vp])
grid_bwd = fdnn.proto("cudnnSpatialTfGridGeneratorBackward", [vp, vp, vp, vp])
samp_fwd = fdnn.proto("cudnnSpatialTfSamplerForward", [vp, vp, vp, vp, vp, vp, vp, vp, vp])
samp_bwd = fdnn.proto("cudnnSpatialTfSamplerBackward", [vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp])


def main():
    res = fdnn.Results("oracle_spatial")
    rng = np.random.default_rng(8)
    cases = [((2, 3, 7, 9), (5, 6)), ((1, 1, 4, 4), (4, 4)), ((3, 4, 10, 8), (12, 7)), ((2, 2, 1, 5), (3, 3))]
    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        for ci, (xshape, (ho, wo)) in enumerate(cases):
            for dtype in (np.float32, np.float64):
                n, c = xshape[:2]
                what = f"{threads} {xshape}->{ho}x{wo} {np.dtype(dtype).name}"
                st = vp()
                fdnn.check(create(ctypes.byref(st)))
                fdnn.check(setd(st, 0, fdnn.DTYPE[np.dtype(dtype)], 4, fdnn.int_array([n, c, ho, wo])))
                ang = rng.uniform(-0.5, 0.5, size=n)
                sc = rng.uniform(0.7, 1.4, size=n)
                theta = np.stack([np.stack([sc * np.cos(ang), -sc * np.sin(ang), rng.uniform(-0.3, 0.3, n)], 1),
                                  np.stack([sc * np.sin(ang), sc * np.cos(ang), rng.uniform(-0.3, 0.3, n)], 1)],
                                 1).astype(dtype)
                if ci == 1:
                    theta[:] = np.array([[1, 0, 0], [0, 1, 0]], dtype)  # identity: points on pixel centres
                grid = fdnn.poisoned((n, ho, wo, 2), dtype)
                fdnn.check(grid_fwd(h.ptr, st, fdnn.ptr(theta), fdnn.ptr(grid)))
                tt = torch.tensor(theta.astype(np.float64), requires_grad=True)
                tg = F.affine_grid(tt, (n, c, ho, wo), align_corners=True)
                tol = 1e-5 if dtype == np.float32 else 1e-12
                res.close(tol, grid.astype(np.float64), tg.detach().numpy(), f"{what}: grid")

                xa = rng.uniform(-2, 2, size=xshape).astype(dtype)
                x = xa
                if ci % 2:
                    x = fdnn.nhwc_view(xshape, dtype)
                    x[...] = xa
                y = fdnn.poisoned((n, c, ho, wo), dtype)
                xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
                one, zero = fdnn.scalar(1.0, dtype), fdnn.scalar(0.0, dtype)
                fdnn.check(samp_fwd(h.ptr, st, one, xd.ptr, fdnn.ptr(x), fdnn.ptr(grid), zero, yd.ptr, fdnn.ptr(y)))
                tx = torch.tensor(xa.astype(np.float64), requires_grad=True)
                tgl = torch.tensor(grid.astype(np.float64), requires_grad=True)
                ty = F.grid_sample(tx, tgl, mode="bilinear", padding_mode="zeros", align_corners=True)
                res.close(tol, y.astype(np.float64), ty.detach().numpy(), f"{what}: y")

                dy = rng.uniform(-1, 1, size=y.shape).astype(dtype)
                ty.backward(torch.tensor(dy.astype(np.float64)))
                dx = fdnn.poisoned(xshape, dtype)
                dgrid = fdnn.poisoned(grid.shape, dtype)
                dxd, dyd = fdnn.TensorDesc(dx), fdnn.TensorDesc(dy)
                fdnn.check(samp_bwd(h.ptr, st, one, xd.ptr, fdnn.ptr(x), zero, dxd.ptr, fdnn.ptr(dx), one, dyd.ptr,
                                    fdnn.ptr(dy), fdnn.ptr(grid), zero, fdnn.ptr(dgrid)))
                res.close(tol * 10, dx.astype(np.float64), tx.grad.numpy(), f"{what}: dx")
                res.close(tol * 100, dgrid.astype(np.float64), tgl.grad.numpy(), f"{what}: dgrid")
                dtheta = fdnn.poisoned(theta.shape, dtype)
                fdnn.check(grid_bwd(h.ptr, st, fdnn.ptr(dgrid), fdnn.ptr(dtheta)))
                tg.backward(torch.tensor(dgrid.astype(np.float64)))
                res.close(tol * 100, dtheta.astype(np.float64), tt.grad.numpy(), f"{what}: dtheta")
                destroy(st)
    res.finish()


if __name__ == "__main__":
    main()
