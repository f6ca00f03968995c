# SPDX-License-Identifier: Apache-2.0
"""cudnnSoftmaxForward/Backward against PyTorch softmax / log_softmax and
their autograd gradients: INSTANCE and CHANNEL modes, FAST, ACCURATE, LOG,
float32/float64/float16, NCHW and NHWC, 1 or 2 threads."""
import ctypes

import numpy as np
import torch

import fdnn

vp = fdnn.vp
fwd = fdnn.proto("cudnnSoftmaxForward", [vp, ctypes.c_int, ctypes.c_int, vp, vp, vp, vp, vp, vp])
bwd = fdnn.proto("cudnnSoftmaxBackward", [vp, ctypes.c_int, ctypes.c_int, vp, vp, vp, vp, vp, vp, vp, vp])


def main():
    res = fdnn.Results("oracle_softmax")
    rng = np.random.default_rng(11)
    tol = {np.float32: 5e-6, np.float64: 1e-12, np.float16: 2e-3}
    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        for dtype in ((np.float32, np.float64, np.float16) if threads == 2 else (np.float32,)):
            for shape, layout in (((32, 1000, 1, 1), "nchw"), ((2, 7, 5, 3), "nchw"), ((2, 6, 4, 5), "nhwc"),
                                  ((1, 1, 1, 1), "nchw")):
                for algo in (0, 1, 2):
                    for mode in (0, 1):
                        x = rng.uniform(-4, 4, size=shape).astype(dtype)
                        if layout == "nhwc":
                            v = fdnn.nhwc_view(shape, dtype)
                            v[...] = x
                            x = v
                        xt = torch.tensor(np.ascontiguousarray(x), dtype=torch.float64, requires_grad=True)
                        flat = xt if mode == 1 else xt.reshape(shape[0], -1)
                        yt = (torch.log_softmax(flat, 1) if algo == 2 else torch.softmax(flat, 1)).reshape(shape)
                        dy = rng.uniform(-1, 1, size=shape).astype(dtype)
                        yt.backward(torch.tensor(dy.astype(np.float64)))
                        y = fdnn.nhwc_view(shape, dtype, np.nan) if layout == "nhwc" else fdnn.poisoned(shape, dtype)
                        xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
                        fdnn.check(fwd(h.ptr, algo, mode, fdnn.scalar(1.0, dtype), xd.ptr, fdnn.ptr(x),
                                       fdnn.scalar(0.0, dtype), yd.ptr, fdnn.ptr(y)), "forward")
                        what = f"{threads} {np.dtype(dtype).name} {shape} {layout} algo {algo} mode {mode}"
                        res.close(tol[dtype], y.astype(np.float64), yt.detach().numpy(), "fwd " + what)
                        yv = yt.detach().numpy().astype(dtype)
                        dx = fdnn.poisoned(shape, dtype)
                        yvd, dyd, dxd = fdnn.TensorDesc(yv), fdnn.TensorDesc(dy), fdnn.TensorDesc(dx)
                        fdnn.check(bwd(h.ptr, algo, mode, fdnn.scalar(1.0, dtype), yvd.ptr, fdnn.ptr(yv), dyd.ptr,
                                       fdnn.ptr(dy), fdnn.scalar(0.0, dtype), dxd.ptr, fdnn.ptr(dx)), "backward")
                        res.close(tol[dtype] * 20, dx.astype(np.float64), xt.grad.numpy(), "bwd " + what)
    res.finish()


if __name__ == "__main__":
    main()
