# SPDX-License-Identifier: Apache-2.0
"""cudnnActivationForward/Backward against PyTorch (forward values and
autograd gradients): every mode, float32/float64/float16, NCHW, NHWC and
5-D, alpha/beta blending, ISA levels and 1 or 2 threads."""
import ctypes

import numpy as np
import torch

import fdnn

vp, c_int, c_double = fdnn.vp, ctypes.c_int, ctypes.c_double
create = fdnn.proto("cudnnCreateActivationDescriptor", [ctypes.POINTER(vp)])
destroy = fdnn.proto("cudnnDestroyActivationDescriptor", [vp])
setd = fdnn.proto("cudnnSetActivationDescriptor", [vp, c_int, c_int, c_double])
set_beta = fdnn.proto("cudnnSetActivationDescriptorSwishBeta", [vp, c_double])
fwd = fdnn.proto("cudnnActivationForward", [vp, vp, vp, vp, vp, vp, vp, vp])
bwd = fdnn.proto("cudnnActivationBackward", [vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp])

SIGMOID, RELU, TANH, CLIPPED, ELU, SWISH = 0, 1, 2, 3, 4, 6
COEF = {CLIPPED: 1.5, ELU: 0.7}
SWISH_BETA = 1.3


def torch_fn(mode, x):
    if mode == SIGMOID:
        return torch.sigmoid(x)
    if mode == RELU:
        return torch.relu(x)
    if mode == TANH:
        return torch.tanh(x)
    if mode == CLIPPED:
        return torch.nn.functional.hardtanh(x, 0.0, COEF[CLIPPED])
    if mode == ELU:
        return torch.nn.functional.elu(x, alpha=COEF[ELU])
    return x * torch.sigmoid(SWISH_BETA * x)


def make(shape, dtype, layout, rng):
    a = rng.uniform(-3, 3, size=shape).astype(dtype)
    if layout == "nhwc" and len(shape) == 4:
        v = fdnn.nhwc_view(shape, dtype)
        v[...] = a
        return v
    return a


def main():
    res = fdnn.Results("oracle_activation")
    rng = np.random.default_rng(5)
    desc = vp()
    fdnn.check(create(ctypes.byref(desc)))
    tol = {np.float32: 3e-6, np.float64: 1e-12, np.float16: 2e-3}
    for isa in ["scalar", "avx2", "avx512"]:
        for threads in (1, 2):
            try:
                h = fdnn.Handle(threads=threads, isa=isa)
            except fdnn.CudnnError:
                continue  # ISA not on this machine
            for dtype in ((np.float32, np.float64, np.float16) if threads == 2 else (np.float32,)):
                for shape, layout in (((2, 3, 5, 7), "nchw"), ((2, 5, 4, 3), "nhwc"), ((1, 3, 2, 3, 4), "nchw"),
                                      ((1, 1, 1, 1), "nchw")):
                    for mode in (SIGMOID, RELU, TANH, CLIPPED, ELU, SWISH):
                        fdnn.check(setd(desc, mode, 0, COEF.get(mode, 0.0)))
                        fdnn.check(set_beta(desc, SWISH_BETA))
                        x = make(shape, dtype, layout, rng)
                        xt = torch.tensor(np.ascontiguousarray(x), dtype=torch.float64, requires_grad=True)
                        yt = torch_fn(mode, xt)
                        dy = rng.uniform(-1, 1, size=shape).astype(dtype)
                        yt.backward(torch.tensor(dy.astype(np.float64)))
                        y = fdnn.poisoned(shape, dtype)
                        if layout == "nhwc" and len(shape) == 4:
                            y = fdnn.nhwc_view(shape, dtype, np.nan)
                        xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
                        fdnn.check(fwd(h.ptr, desc, fdnn.scalar(1.0, dtype), xd.ptr, fdnn.ptr(x),
                                       fdnn.scalar(0.0, dtype), yd.ptr, fdnn.ptr(y)), "forward")
                        what = f"{isa}/{threads} {np.dtype(dtype).name} {shape} {layout} mode {mode}"
                        res.close(tol[dtype], y.astype(np.float64), yt.detach().numpy(), "fwd " + what)
                        # backward from the torch forward value, blended: dx = 0.5 g + 0.25 dx
                        yv = yt.detach().numpy().astype(dtype)
                        dx0 = rng.uniform(-1, 1, size=shape).astype(dtype)
                        dx = dx0.copy()
                        ydsc, dyd, dxd = fdnn.TensorDesc(yv), fdnn.TensorDesc(dy), fdnn.TensorDesc(dx)
                        xc = np.ascontiguousarray(x)
                        xcd = fdnn.TensorDesc(xc)
                        fdnn.check(bwd(h.ptr, desc, fdnn.scalar(0.5, dtype), ydsc.ptr, fdnn.ptr(yv), dyd.ptr,
                                       fdnn.ptr(dy), xcd.ptr, fdnn.ptr(xc), fdnn.scalar(0.25, dtype), dxd.ptr,
                                       fdnn.ptr(dx)), "backward")
                        want = 0.5 * xt.grad.numpy() + 0.25 * dx0.astype(np.float64)
                        res.close(tol[dtype] * 4, dx.astype(np.float64), want, "bwd " + what)
    destroy(desc)
    res.finish()


if __name__ == "__main__":
    main()
