# SPDX-License-Identifier: Apache-2.0
"""cudnnLRNCrossChannelForward/Backward against PyTorch local_response_norm
and its autograd gradient.  PyTorch divides alpha by the window width as
cuDNN does; its window puts the extra element of an even width before the
centre while cuDNN puts it after, so only odd widths are compared here (the
even ones are covered by tests/unit/test_lrn.c)."""
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

import fdnn

vp, c_double = fdnn.vp, ctypes.c_double
create = fdnn.proto("cudnnCreateLRNDescriptor", [ctypes.POINTER(vp)])
destroy = fdnn.proto("cudnnDestroyLRNDescriptor", [vp])
setd = fdnn.proto("cudnnSetLRNDescriptor", [vp, ctypes.c_uint, c_double, c_double, c_double])
fwd = fdnn.proto("cudnnLRNCrossChannelForward", [vp, vp, ctypes.c_int, vp, vp, vp, vp, vp, vp])
bwd = fdnn.proto("cudnnLRNCrossChannelBackward", [vp, vp, ctypes.c_int, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp])


def main():
    res = fdnn.Results("oracle_lrn")
    rng = np.random.default_rng(17)
    desc = vp()
    fdnn.check(create(ctypes.byref(desc)))
    tol = {np.float32: 2e-6, np.float64: 1e-12, np.float16: 2e-3}
    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        for dtype in ((np.float32, np.float64, np.float16) if threads == 2 else (np.float32,)):
            for shape in ((2, 7, 5, 3), (1, 16, 4, 4), (2, 3, 2, 2, 3)):
                for n, alpha, beta, k in ((5, 1e-4, 0.75, 2.0), (3, 0.5, 0.9, 1.0), (1, 0.2, 0.5, 1.5)):
                    fdnn.check(setd(desc, n, alpha, beta, k))
                    x = rng.uniform(-3, 3, size=shape).astype(dtype)
                    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
                    yt = F.local_response_norm(xt, n, alpha, beta, k)
                    dy = rng.uniform(-1, 1, size=shape).astype(dtype)
                    yt.backward(torch.tensor(dy.astype(np.float64)))
                    y = fdnn.poisoned(shape, dtype)
                    xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
                    fdnn.check(fwd(h.ptr, desc, 0, fdnn.scalar(1.0, dtype), xd.ptr, fdnn.ptr(x),
                                   fdnn.scalar(0.0, dtype), yd.ptr, fdnn.ptr(y)), "forward")
                    what = f"{threads} {np.dtype(dtype).name} {shape} n {n}"
                    res.close(tol[dtype], y.astype(np.float64), yt.detach().numpy(), "fwd " + what)
                    dx = fdnn.poisoned(shape, dtype)
                    dyd, dxd = fdnn.TensorDesc(dy), fdnn.TensorDesc(dx)
                    fdnn.check(bwd(h.ptr, desc, 0, fdnn.scalar(1.0, dtype), yd.ptr, fdnn.ptr(y), dyd.ptr,
                                   fdnn.ptr(dy), xd.ptr, fdnn.ptr(x), fdnn.scalar(0.0, dtype), dxd.ptr,
                                   fdnn.ptr(dx)), "backward")
                    res.close(tol[dtype] * 4, dx.astype(np.float64), xt.grad.numpy(), "bwd " + what)
    destroy(desc)
    res.finish()


if __name__ == "__main__":
    main()
