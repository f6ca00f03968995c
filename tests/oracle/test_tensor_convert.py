# SPDX-License-Identifier: Apache-2.0
"""cudnnTransformTensor as a type conversion against PyTorch, bit for bit:
x.half(), x.bfloat16(), x.float(), x.double() and integer casts with
clamping (round half to even, saturate, NaN to 0: torch.round + clamp)
on random and edge values (ties, subnormals, overflow, Inf, NaN), dense
(the row kernels on the handle's pool) and strided (NHWC -> NCHW, the
elementwise engine), on every ISA level and 1 or 2 threads.  NaNs match
as NaN (their payload bits are not compared: PyTorch's scalar and vector
paths differ there themselves)."""
import ctypes

import numpy as np
import torch

import fdnn

vp = fdnn.vp
transform = fdnn.proto("cudnnTransformTensor", [vp, vp, vp, vp, vp, vp, vp])

# cudnnDataType_t
CUDNN = {torch.float32: 0, torch.float64: 1, torch.float16: 2, torch.int8: 3, torch.int32: 4, torch.uint8: 6,
         torch.bfloat16: 9}
INT_RANGE = {torch.int8: (-128, 127), torch.uint8: (0, 255), torch.int32: (-2147483648, 2147483647)}


class Desc:
    def __init__(self, t):
        self.ptr = vp()
        fdnn.check(fdnn._create_tensor(ctypes.byref(self.ptr)), "create")
        fdnn.check(fdnn._set_nd(self.ptr, CUDNN[t.dtype], t.dim(), fdnn.int_array(list(t.shape)),
                                fdnn.int_array(list(t.stride()))), "set")

    def __del__(self):
        fdnn._destroy_tensor(self.ptr)


def edge_floats(rng, n):
    """float64 values: ties of every destination, subnormals, overflow."""
    edges = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 127.5, 128.5, -128.5, -129.0, 255.5, 256.0, 65504.0,
                      65519.0, 65520.0, 1e5, 3e9, -3e9, 6e-8, 3e-8, 2.98e-8, 1e-40, 1e-45, np.inf, -np.inf, np.nan,
                      1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.3961776e38, 2147483520.0])
    kinds = rng.integers(0, 4, n)
    v = np.where(kinds == 0, rng.choice(edges, n), rng.uniform(-300, 300, n))
    v = np.where(kinds == 2, np.ldexp(rng.uniform(-1, 1, n), rng.integers(-150, 130, n)), v)
    v = np.where(kinds == 3, rng.integers(-400, 1200, n) / 4.0, v)
    return v


def source(rng, dtype, n):
    if dtype in INT_RANGE:
        lo, hi = INT_RANGE[dtype]
        return torch.from_numpy(rng.integers(lo, hi, n, endpoint=True, dtype=np.int64)).to(dtype)
    with np.errstate(over="ignore"):
        return torch.from_numpy(edge_floats(rng, n)).to(dtype)


def torch_convert(x, dtype):
    """PyTorch's conversion; integers rounded half to even, clamped, NaN 0."""
    if dtype in INT_RANGE:
        lo, hi = INT_RANGE[dtype]
        d = x.double()
        d = torch.where(torch.isnan(d), torch.zeros_like(d), d)
        return d.round().clamp(lo, hi).to(dtype)
    return x.to(dtype)


def same(got, want):
    """Bitwise equal, NaN matching NaN."""
    if got.dtype.is_floating_point:
        nan = torch.isnan(want)
        if not torch.equal(torch.isnan(got), nan):
            return False
        bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[got.element_size()]
        return torch.equal(got.masked_fill(nan, 0).view(bits), want.masked_fill(nan, 0).view(bits))
    return torch.equal(got, want)


def run(h, x, y):
    one = fdnn.scalar(1.0, np.float64 if y.dtype == torch.float64 else np.float32)
    zero = fdnn.scalar(0.0, np.float64 if y.dtype == torch.float64 else np.float32)
    xd, yd = Desc(x), Desc(y)  # kept alive through the call
    fdnn.check(transform(h.ptr, one, xd.ptr, vp(x.data_ptr()), zero, yd.ptr, vp(y.data_ptr())),
               f"cudnnTransformTensor {x.dtype} -> {y.dtype}")


def main():
    res = fdnn.Results("oracle_tensor_convert")
    rng = np.random.default_rng(13)
    types = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int32]
    # Every ISA, 1 and 2 threads (test_tensor_convert.c covers every
    # combination bit for bit against its reference; this keeps CI short).
    handles = []
    for isa, threads in (("scalar", 1), ("avx2", 2), ("avx512", 1), ("avx512", 2)):
        try:
            handles.append((fdnn.Handle(threads=threads, isa=isa), f"{isa}/{threads}"))
        except fdnn.CudnnError:
            pass  # this ISA is not on the machine
    for st in types:
        x = source(rng, st, 2 * 3 * 40 * 300).reshape(2, 3, 40, 300)  # 72k: three row-kernel tiles
        for dt in types:
            want = torch_convert(x, dt)
            for h, name in handles:
                # dense, same layout
                y = torch.empty(x.shape, dtype=dt)
                y.view(torch.uint8).fill_(255)  # poison: NaN or -1 in every type
                run(h, x, y)
                res.check(same(y, want), f"dense {st} -> {dt} ({name})")
                # strided: NHWC source, NCHW destination (the elementwise engine)
                if name not in ("scalar/1", "avx512/2"):
                    continue
                xs = x.contiguous(memory_format=torch.channels_last)
                y.zero_()
                run(h, xs, y)
                res.check(same(y, want), f"NHWC {st} -> NCHW {dt} ({name})")
    res.finish()


if __name__ == "__main__":
    main()
