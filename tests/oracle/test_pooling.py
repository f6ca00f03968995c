# SPDX-License-Identifier: Apache-2.0
"""cudnnPoolingForward/Backward against PyTorch max/avg pooling (2-D and
3-D, padding, strides, count_include_pad both ways) and their autograd
gradients; float32/float64/float16, NCHW and NHWC, 1 or 2 threads; plus a
network shape (ResNet stem max pool, 56x56, mb 1)."""
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

import fdnn

vp, c_int = fdnn.vp, ctypes.c_int
ip = ctypes.POINTER(c_int)
create = fdnn.proto("cudnnCreatePoolingDescriptor", [ctypes.POINTER(vp)])
destroy = fdnn.proto("cudnnDestroyPoolingDescriptor", [vp])
setnd = fdnn.proto("cudnnSetPoolingNdDescriptor", [vp, c_int, c_int, c_int, ip, ip, ip])
fwd = fdnn.proto("cudnnPoolingForward", [vp, vp, vp, vp, vp, vp, vp, vp])
bwd = fdnn.proto("cudnnPoolingBackward", [vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp])

MAX, AVG_INC, AVG_EXC = 0, 1, 2


def torch_pool(mode, x, k, p, s):
    three = x.dim() == 5
    if mode == MAX:
        return (F.max_pool3d if three else F.max_pool2d)(x, k, s, p)
    return (F.avg_pool3d if three else F.avg_pool2d)(x, k, s, p, count_include_pad=(mode == AVG_INC))


def channels_last(a):
    perm = (0,) + tuple(range(2, a.ndim)) + (1,)
    inv = (0, a.ndim - 1) + tuple(range(1, a.ndim - 1))
    return np.ascontiguousarray(a.transpose(perm)).transpose(inv)


def main():
    res = fdnn.Results("oracle_pooling")
    rng = np.random.default_rng(3)
    desc = vp()
    fdnn.check(create(ctypes.byref(desc)))
    tol = {np.float32: 2e-6, np.float64: 1e-12, np.float16: 1e-3}
    cases = [((2, 3, 9, 11), (3, 3), (1, 1), (2, 2)), ((1, 4, 8, 8), (2, 2), (0, 0), (2, 2)),
             ((2, 17, 7, 6), (3, 2), (1, 1), (1, 3)), ((1, 5, 4, 6, 5), (2, 3, 2), (1, 1, 0), (2, 1, 2)),
             ((1, 64, 56, 56), (3, 3), (1, 1), (2, 2))]
    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        for dtype in ((np.float32, np.float64, np.float16) if threads == 2 else (np.float32,)):
            for ci, (shape, k, p, s) in enumerate(cases):
                if ci == 4 and (dtype != np.float32 or threads == 1):
                    continue  # the bench-sized case once
                for layout in ("nchw", "nhwc"):
                    for mode in (MAX, AVG_INC, AVG_EXC):
                        x = rng.uniform(-2, 2, size=shape).astype(dtype)
                        if layout == "nhwc":
                            x = channels_last(x)
                        xt = torch.tensor(np.ascontiguousarray(x), dtype=torch.float64, requires_grad=True)
                        yt = torch_pool(mode, xt, k, p, s)
                        ys = tuple(yt.shape)
                        dy = rng.uniform(-1, 1, size=ys).astype(dtype)
                        yt.backward(torch.tensor(dy.astype(np.float64)))
                        nd = len(k)
                        fdnn.check(setnd(desc, mode, 0, nd, fdnn.int_array(k), fdnn.int_array(p), fdnn.int_array(s)))
                        y = np.full(ys, np.nan, dtype=dtype)
                        if layout == "nhwc":
                            y = channels_last(y)
                        xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
                        fdnn.check(fwd(h.ptr, desc, fdnn.scalar(1.0, dtype), xd.ptr, fdnn.ptr(x),
                                       fdnn.scalar(0.0, dtype), yd.ptr, fdnn.ptr(y)), "forward")
                        what = f"{threads} {np.dtype(dtype).name} {shape} {layout} mode {mode}"
                        res.close(tol[dtype], y.astype(np.float64), yt.detach().numpy(), "fwd " + what)
                        dx = np.full(x.shape, np.nan, dtype=dtype)
                        if layout == "nhwc":
                            dx = channels_last(dx)
                        dyd, dxd = fdnn.TensorDesc(dy), fdnn.TensorDesc(dx)
                        fdnn.check(bwd(h.ptr, desc, fdnn.scalar(1.0, dtype), yd.ptr, fdnn.ptr(y), dyd.ptr,
                                       fdnn.ptr(dy), xd.ptr, fdnn.ptr(x), fdnn.scalar(0.0, dtype), dxd.ptr,
                                       fdnn.ptr(dx)), "backward")
                        res.close(tol[dtype] * 4, dx.astype(np.float64), xt.grad.numpy(), "bwd " + what)
    destroy(desc)
    res.finish()


if __name__ == "__main__":
    main()
