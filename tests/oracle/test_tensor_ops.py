# SPDX-License-Identifier: Apache-2.0
"""cudnnOpTensor, cudnnAddTensor and cudnnReduceTensor against PyTorch:
ADD/MUL/MIN/MAX (NaN propagated as torch.minimum/maximum, or not as
torch.fmin/fmax)/SQRT/NOT with B broadcast; every reduction over dim subsets
with the indices of MIN/MAX/AMAX (torch.argmax/argmin take the first
extreme too); float32/float64/float16, NCHW and NHWC, 1 or 2 threads."""
import ctypes
import itertools

import numpy as np
import torch

import fdnn

vp = fdnn.vp
sz_t = ctypes.c_size_t
create_op = fdnn.proto("cudnnCreateOpTensorDescriptor", [ctypes.POINTER(vp)])
set_op = fdnn.proto("cudnnSetOpTensorDescriptor", [vp, ctypes.c_int, ctypes.c_int, ctypes.c_int])
destroy_op = fdnn.proto("cudnnDestroyOpTensorDescriptor", [vp])
op_tensor = fdnn.proto("cudnnOpTensor", [vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp])
add_tensor = fdnn.proto("cudnnAddTensor", [vp, vp, vp, vp, vp, vp, vp])
create_red = fdnn.proto("cudnnCreateReduceTensorDescriptor", [ctypes.POINTER(vp)])
set_red = fdnn.proto("cudnnSetReduceTensorDescriptor",
                     [vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int])
destroy_red = fdnn.proto("cudnnDestroyReduceTensorDescriptor", [vp])
ws_size = fdnn.proto("cudnnGetReductionWorkspaceSize", [vp, vp, vp, vp, ctypes.POINTER(sz_t)])
idx_size = fdnn.proto("cudnnGetReductionIndicesSize", [vp, vp, vp, vp, ctypes.POINTER(sz_t)])
reduce_tensor = fdnn.proto("cudnnReduceTensor", [vp, vp, vp, sz_t, vp, sz_t, vp, vp, vp, vp, vp, vp])

DT = {np.float32: 0, np.float64: 1, np.float16: 2}
TOL = {np.float32: 2e-6, np.float64: 1e-12, np.float16: 2e-3}


def layout(x, nhwc):
    """x in NCHW order, stored NHWC when asked (a view with NHWC strides)."""
    if not nhwc:
        return np.ascontiguousarray(x)
    v = fdnn.nhwc_view(x.shape, x.dtype)
    v[...] = x
    return v


def same_nan(res, got, want, what):
    """NaN where the oracle has NaN, and close elsewhere."""
    gn, wn = np.isnan(got), np.isnan(want)
    res.check(np.array_equal(gn, wn), f"{what}: NaN positions differ")
    res.close(TOL[got.dtype.type] if got.dtype.type in TOL else 2e-6, got[~wn].astype(np.float64), want[~wn],
              what)


def op_tensor_tests(res, h, rng):
    desc = vp()
    fdnn.check(create_op(ctypes.byref(desc)), "create")
    for dtype, op, prop, bshape, nhwc in itertools.product((np.float32, np.float64, np.float16), range(6), (0, 1),
                                                           ((1, 5, 1, 1), (2, 5, 3, 4), (2, 1, 3, 1), (1, 1, 1, 1)),
                                                           (False, True)):
        shape = (2, 5, 3, 4)
        comp = 1 if dtype == np.float64 else 0
        lo = 0 if op == 4 else -3
        a = rng.uniform(lo, 3, size=shape).astype(dtype)
        b = rng.uniform(lo, 3, size=bshape).astype(dtype)
        if op in (2, 3):
            a.flat[::7] = np.nan
            b.flat[::3] = np.nan
        c0 = rng.uniform(-1, 1, size=shape).astype(dtype)
        a1, a2, beta = 0.5, 2.0 if op != 4 else 1.0, 0.25
        ta, tb, tc = (torch.tensor(v.astype(np.float64)) for v in (a, b, c0))
        x, y = a1 * ta, a2 * tb
        want = {0: lambda: x + y, 1: lambda: x * y,
                2: lambda: torch.minimum(x, y) if prop else torch.fmin(x, y),
                3: lambda: torch.maximum(x, y) if prop else torch.fmax(x, y),
                4: lambda: torch.sqrt(x), 5: lambda: 1 - x}[op]() + beta * tc
        A, B, C = layout(a, nhwc), layout(b, nhwc), layout(c0, nhwc)
        ad, bd, cd = fdnn.TensorDesc(A), fdnn.TensorDesc(B), fdnn.TensorDesc(C)
        fdnn.check(set_op(desc, op, comp, prop), "set op")
        st = op_tensor(h.ptr, desc, fdnn.scalar(a1, dtype), ad.ptr, fdnn.ptr(A), fdnn.scalar(a2, dtype), bd.ptr,
                       fdnn.ptr(B), fdnn.scalar(beta, dtype), cd.ptr, fdnn.ptr(C))
        what = f"OpTensor op {op} prop {prop} {np.dtype(dtype).name} B {bshape} nhwc {nhwc}"
        res.check(st == fdnn.SUCCESS, f"{what}: status {st}")
        want = want.numpy().astype(dtype).astype(np.float64)  # the oracle rounded to the output type
        same_nan(res, np.asarray(C), want, what)
    destroy_op(desc)


def add_tensor_tests(res, h, rng):
    for dtype, ashape, nhwc in itertools.product((np.float32, np.float64, np.float16),
                                                 ((1, 6, 1, 1), (1, 6, 5, 7), (3, 1, 1, 1), (3, 6, 5, 7)),
                                                 (False, True)):
        shape = (3, 6, 5, 7)
        a = rng.uniform(-2, 2, size=ashape).astype(dtype)
        c = rng.uniform(-2, 2, size=shape).astype(dtype)
        want = (1.5 * torch.tensor(a.astype(np.float64)) + -1.0 * torch.tensor(c.astype(np.float64))).numpy()
        A, C = layout(a, nhwc), layout(c, nhwc)
        ad, cd = fdnn.TensorDesc(A), fdnn.TensorDesc(C)
        st = add_tensor(h.ptr, fdnn.scalar(1.5, dtype), ad.ptr, fdnn.ptr(A), fdnn.scalar(-1.0, dtype), cd.ptr,
                        fdnn.ptr(C))
        what = f"AddTensor {np.dtype(dtype).name} A {ashape} nhwc {nhwc}"
        res.check(st == fdnn.SUCCESS, f"{what}: status {st}")
        res.close(TOL[dtype], np.asarray(C).astype(np.float64), want.astype(dtype).astype(np.float64), what)


def torch_reduce(op, x, dims, prop):
    """The oracle of each cudnnReduceTensorOp_t over dims (keepdim)."""
    kd = dict(dim=dims, keepdim=True)
    if op == 0:
        return x.sum(**kd)
    if op in (1, 8):
        y = torch.where(x == 0, torch.ones_like(x), x) if op == 8 else x
        for d in dims:
            y = y.prod(dim=d, keepdim=True)
        return y
    if op in (2, 3, 4):
        v = x.abs() if op == 4 else x
        if not prop:  # NaNs do not count: replace them by the neutral value
            v = torch.nan_to_num(v, nan=float("inf") if op == 2 else float("-inf"))
        return v.amin(**kd) if op == 2 else v.amax(**kd)
    if op == 5:
        return x.mean(**kd)
    if op == 6:
        return x.abs().sum(**kd)
    return torch.sqrt((x * x).sum(**kd))


def torch_indices(op, x, dims, prop):
    """Flattened index over the reduced dims (row-major) of the first extreme."""
    keep = [d for d in range(x.dim()) if d not in dims]
    v = x.abs() if op == 4 else x
    v = v.permute(*keep, *dims).reshape(*[x.shape[d] for d in keep], -1)
    if prop:
        # the first NaN wins: make NaNs the extreme
        big = float("-inf") if op == 2 else float("inf")
        v = torch.where(torch.isnan(v), torch.full_like(v, big), v)
    else:
        v = torch.nan_to_num(v, nan=float("inf") if op == 2 else float("-inf"))
    return (v.argmin(-1) if op == 2 else v.argmax(-1)).numpy().ravel()


def reduce_tests(res, h, rng):
    desc = vp()
    fdnn.check(create_red(ctypes.byref(desc)), "create")
    shape = (3, 4, 5, 6)
    subsets = [(1,), (0, 2, 3), (2, 3), (0, 1, 2, 3), (3,), (0,)]
    for dtype, op, dims, nhwc, prop in itertools.product((np.float32, np.float64, np.float16), range(9), subsets,
                                                         (False, True), (0, 1)):
        if prop and op not in (2, 3, 4):
            continue
        if dtype == np.float16 and op in (1, 8):
            continue  # products leave half's range
        comp = 1 if dtype == np.float64 else 0
        if op in (1, 8):
            a = rng.uniform(0.9, 1.1, size=shape)
            a.flat[::5] = 0
        else:
            a = rng.integers(-12, 12, size=shape) / 4.0  # ties for the indices
        a = a.astype(dtype)
        if op in (2, 3, 4) and dtype != np.float16:
            a.flat[::37] = np.nan
        cshape = tuple(1 if d in dims else n for d, n in enumerate(shape))
        ta = torch.tensor(a.astype(np.float64))
        want = torch_reduce(op, ta, list(dims), prop).numpy()
        A = layout(a, nhwc)
        C = layout(np.full(cshape, np.nan, dtype=dtype), nhwc)
        ad, cd = fdnn.TensorDesc(A), fdnn.TensorDesc(C)
        indices = 1 if op in (2, 3, 4) else 0
        fdnn.check(set_red(desc, op, comp, prop, indices, 0), "set reduce")
        ws, isz = sz_t(0), sz_t(0)
        fdnn.check(ws_size(h.ptr, desc, ad.ptr, cd.ptr, ctypes.byref(ws)), "ws size")
        fdnn.check(idx_size(h.ptr, desc, ad.ptr, cd.ptr, ctypes.byref(isz)), "indices size")
        wbuf = np.zeros(max(ws.value, 8), dtype=np.uint8)
        ibuf = np.full(max(isz.value // 4, 1), 0xFFFFFFFF, dtype=np.uint32)
        st = reduce_tensor(h.ptr, desc, fdnn.ptr(ibuf), isz.value, fdnn.ptr(wbuf), ws.value, fdnn.scalar(1.0, dtype),
                           ad.ptr, fdnn.ptr(A), fdnn.scalar(0.0, dtype), cd.ptr, fdnn.ptr(C))
        what = f"Reduce op {op} {np.dtype(dtype).name} dims {dims} nhwc {nhwc} prop {prop}"
        res.check(st == fdnn.SUCCESS, f"{what}: status {st}")
        tol = {np.float32: 2e-6 * (30 if op in (1, 8) else 1), np.float64: 1e-12, np.float16: 2e-3}[dtype]
        got = np.asarray(C).astype(np.float64)
        want = want.astype(dtype).astype(np.float64)
        gn, wn = np.isnan(got), np.isnan(want)
        res.check(np.array_equal(gn, wn), f"{what}: NaN positions differ")
        res.close(tol, got[~wn], want[~wn], what)
        if indices:
            res.check(np.array_equal(ibuf[:isz.value // 4], torch_indices(op, ta, list(dims), prop)),
                      f"{what}: indices differ")
    destroy_red(desc)


def main():
    res = fdnn.Results("oracle_tensor_ops")
    rng = np.random.default_rng(7)
    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        op_tensor_tests(res, h, rng)
        add_tensor_tests(res, h, rng)
        reduce_tests(res, h, rng)
    res.finish()


if __name__ == "__main__":
    main()
