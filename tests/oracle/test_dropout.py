# SPDX-License-Identifier: Apache-2.0
"""Dropout against PyTorch semantics: y = x * mask / (1 - p) with the mask in
the reserve space (bit i of 32-bit words, elements in NCHW order); the kept
fraction is 1 - p; the backward equals PyTorch's autograd through the same
mask; a seed gives the same masks for any handle, ISA level and thread
count, and successive calls give new masks."""
import ctypes

import numpy as np
import torch

import fdnn

vp, c_size, c_float, c_ull = fdnn.vp, ctypes.c_size_t, ctypes.c_float, ctypes.c_ulonglong
create = fdnn.proto("cudnnCreateDropoutDescriptor", [ctypes.POINTER(vp)])
destroy = fdnn.proto("cudnnDestroyDropoutDescriptor", [vp])
states_size = fdnn.proto("cudnnDropoutGetStatesSize", [vp, ctypes.POINTER(c_size)])
reserve_size = fdnn.proto("cudnnDropoutGetReserveSpaceSize", [vp, ctypes.POINTER(c_size)])
setd = fdnn.proto("cudnnSetDropoutDescriptor", [vp, vp, c_float, vp, c_size, c_ull])
fwd = fdnn.proto("cudnnDropoutForward", [vp, vp, vp, vp, vp, vp, vp, c_size])
bwd = fdnn.proto("cudnnDropoutBackward", [vp, vp, vp, vp, vp, vp, vp, c_size])


def mask_of(reserve, n):
    bits = np.unpackbits(reserve.view(np.uint8), bitorder="little")
    return bits[:n].astype(bool)


def run(h, p, seed, x, calls=1):
    d = vp()
    fdnn.check(create(ctypes.byref(d)))
    ss = c_size(0)
    fdnn.check(states_size(h.ptr, ctypes.byref(ss)))
    states = np.zeros(ss.value, np.uint8)
    fdnn.check(setd(d, h.ptr, p, fdnn.ptr(states), ss.value, seed))
    xd = fdnn.TensorDesc(x)
    rs = c_size(0)
    fdnn.check(reserve_size(xd.ptr, ctypes.byref(rs)))
    outs = []
    for _ in range(calls):
        y = fdnn.poisoned(x.shape, x.dtype)
        reserve = np.zeros(rs.value // 4, np.uint32)
        yd = fdnn.TensorDesc(y)
        fdnn.check(fwd(h.ptr, d, xd.ptr, fdnn.ptr(x), yd.ptr, fdnn.ptr(y), fdnn.ptr(reserve), rs.value))
        outs.append((y, reserve))
    return d, states, outs


def main():
    res = fdnn.Results("oracle_dropout")
    rng = np.random.default_rng(3)
    base = None
    for isa in ["scalar", "avx2", "avx512"]:
        for threads in (1, 2):
            try:
                h = fdnn.Handle(threads=threads, isa=isa)
            except fdnn.CudnnError:
                continue
            # Every type on the first handle; float32 on the others (the
            # masks do not depend on the type).
            dtypes = (np.float32, np.float64, np.float16) if base is None else (np.float32,)
            for dtype in dtypes:
                for p in (0.0, 0.25, 0.5, 0.9):
                    x = rng.uniform(-2, 2, size=(2, 8, 33, 35)).astype(dtype)
                    d, states, outs = run(h, p, 1234, x, calls=2)
                    (y, reserve), (y2, reserve2) = outs
                    m = mask_of(reserve, x.size).reshape(x.shape)
                    what = f"{isa}/{threads} {np.dtype(dtype).name} p={p}"
                    # Autograd through the same mask (torch's own RNG cannot
                    # reproduce ours: the mask is the input here).
                    tx = torch.tensor(x.astype(np.float64), requires_grad=True)
                    pf = float(np.float32(p))  # the descriptor holds a float
                    ty = tx * torch.tensor(m, dtype=torch.float64) / (1.0 - pf)
                    tol = {np.float32: 1e-6, np.float64: 1e-12, np.float16: 1e-3}[dtype]
                    res.close(tol, y.astype(np.float64), ty.detach().numpy(), f"{what}: y")
                    frac = m.mean()
                    sd = np.sqrt(p * (1 - p) / x.size)
                    res.check(abs(frac - (1 - p)) <= 5 * sd + 1e-6, f"{what}: kept {frac}, expected {1 - p}")
                    res.check(p == 0.0 or not np.array_equal(reserve, reserve2), f"{what}: second call same mask")
                    dy = rng.uniform(-1, 1, size=x.shape).astype(dtype)
                    ty.backward(torch.tensor(dy.astype(np.float64)))
                    dx = fdnn.poisoned(x.shape, dtype)
                    dyd, dxd = fdnn.TensorDesc(dy), fdnn.TensorDesc(dx)
                    st = bwd(h.ptr, d, dyd.ptr, fdnn.ptr(dy), dxd.ptr, fdnn.ptr(dx), fdnn.ptr(reserve),
                             reserve.nbytes)
                    res.check(st == 0, f"{what}: backward status {st}")
                    res.close(tol, dx.astype(np.float64), tx.grad.numpy(), f"{what}: dx")
                    destroy(d)
            # One seed, one mask: the same on every handle.
            x = np.ones((3, 5, 7, 11), np.float32)
            _, _, outs = run(h, 0.3, 77, x)
            if base is None:
                base = outs[0][1]
            res.check(np.array_equal(base, outs[0][1]), f"{isa}/{threads}: mask differs from the first handle's")
    res.finish()


if __name__ == "__main__":
    main()
