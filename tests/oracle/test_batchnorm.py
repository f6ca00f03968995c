# SPDX-License-Identifier: Apache-2.0
"""Batch normalization against PyTorch: training forward (y, running mean and
unbiased running variance, saved mean and inverse std), inference, autograd
gradients (dx, dscale, dbias), the fused add + ReLU of the Ex forms (dz too),
per channel and per activation, NCHW / NHWC / 5-D, float32 / float64 /
float16, ISA levels and 1 or 2 threads; and the generic normalization API."""
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

import fdnn

vp, c_int, c_double, c_size = fdnn.vp, ctypes.c_int, ctypes.c_double, ctypes.c_size_t
create_act = fdnn.proto("cudnnCreateActivationDescriptor", [ctypes.POINTER(vp)])
set_act = fdnn.proto("cudnnSetActivationDescriptor", [vp, c_int, c_int, c_double])
derive = fdnn.proto("cudnnDeriveBNTensorDescriptor", [vp, vp, c_int])
infer = fdnn.proto("cudnnBatchNormalizationForwardInference",
                   [vp, c_int, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, c_double])
train_ex = fdnn.proto("cudnnBatchNormalizationForwardTrainingEx",
                      [vp, c_int, c_int, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, c_double, vp, vp, c_double, vp,
                       vp, vp, vp, c_size, vp, c_size])
bwd_ex = fdnn.proto("cudnnBatchNormalizationBackwardEx",
                    [vp, c_int, c_int, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp,
                     c_double, vp, vp, vp, vp, c_size, vp, c_size])
reserve_size = fdnn.proto("cudnnGetBatchNormalizationTrainingExReserveSpaceSize",
                          [vp, c_int, c_int, vp, vp, ctypes.POINTER(c_size)])
norm_reserve_size = fdnn.proto("cudnnGetNormalizationTrainingReserveSpaceSize",
                               [vp, c_int, c_int, c_int, vp, vp, ctypes.POINTER(c_size), c_int])
norm_train = fdnn.proto("cudnnNormalizationForwardTraining",
                        [vp, c_int, c_int, c_int, vp, vp, vp, vp, vp, vp, vp, c_double, vp, vp, vp, c_double, vp, vp,
                         vp, vp, vp, vp, vp, vp, c_size, vp, c_size, c_int])

PER_ACT, SPATIAL = 0, 1
OPS_BN, OPS_ACT, OPS_ADD_ACT = 0, 1, 2
EPS, FACTOR = 1e-4, 0.3


def layout(a, kind):
    if kind == "nhwc" and a.ndim == 4:
        v = fdnn.nhwc_view(a.shape, a.dtype)
        v[...] = a
        return v
    return np.ascontiguousarray(a)


def torch_bn(x, z, scale, bias, rm, rv, mode, ops, training):
    """Returns y (and the autograd leaves) with PyTorch's batch_norm; per
    activation normalises the (N, C*spatial) matrix per column."""
    shape = x.shape
    xin = x if mode == SPATIAL else x.reshape(shape[0], -1)
    y = F.batch_norm(xin, rm, rv, scale.reshape(-1), bias.reshape(-1), training=training, momentum=FACTOR,
                     eps=EPS).reshape(shape)
    if ops == OPS_ADD_ACT:
        y = y + z
    if ops != OPS_BN:
        y = torch.relu(y)
    return y


def main():
    res = fdnn.Results("oracle_batchnorm")
    rng = np.random.default_rng(11)
    act = vp()
    fdnn.check(create_act(ctypes.byref(act)))
    fdnn.check(set_act(act, 1, 0, 0.0))  # RELU
    shapes = [(4, 8, 6, 5), (2, 3, 5, 7), (3, 5, 2, 3, 4), (8, 16, 1, 1), (1, 4, 9, 9)]
    for isa in ["scalar", "avx512"]:
        for threads in (1, 2):
            try:
                h = fdnn.Handle(threads=threads, isa=isa)
            except fdnn.CudnnError:
                continue
            for si, shape in enumerate(shapes):
                for mode in (SPATIAL, PER_ACT):
                    if mode == PER_ACT and shape[0] == 1:
                        continue
                    dtype = [np.float32, np.float64, np.float16][(si + mode) % 3]
                    ops = (si + mode + threads) % 3
                    kind = "nhwc" if (si + mode) % 2 else "nchw"
                    what = f"{isa}/{threads} {shape} mode {mode} ops {ops} {np.dtype(dtype).name} {kind}"
                    pdt = np.float64 if dtype == np.float64 else np.float32
                    C = shape[1]
                    pshape = (1, C, 1, 1) if mode == SPATIAL else (1,) + shape[1:]
                    if mode == SPATIAL and len(shape) == 5:
                        pshape = (1, C, 1, 1, 1)
                    off = rng.uniform(-3, 3, size=(1, C) + (1,) * (len(shape) - 2))
                    x = layout((rng.uniform(-2, 2, size=shape) + off).astype(dtype), kind)
                    z = layout(rng.uniform(-1, 1, size=shape).astype(dtype), kind)
                    dy = layout(rng.uniform(-1, 1, size=shape).astype(dtype), kind)
                    scale = rng.uniform(0.5, 1.5, size=pshape).astype(pdt)
                    bias = rng.uniform(-0.5, 0.5, size=pshape).astype(pdt)
                    rm0 = rng.uniform(-1, 1, size=pshape).astype(pdt)
                    rv0 = rng.uniform(0.5, 2, size=pshape).astype(pdt)
                    rm, rv = rm0.copy(), rv0.copy()
                    sm, si_ = fdnn.poisoned(pshape, pdt), fdnn.poisoned(pshape, pdt)
                    y = layout(fdnn.poisoned(shape, dtype), kind)
                    xd, yd, zd, dyd = fdnn.TensorDesc(x), fdnn.TensorDesc(y), fdnn.TensorDesc(z), fdnn.TensorDesc(dy)
                    pd = fdnn.TensorDesc(scale)
                    rsz = c_size(0)
                    fdnn.check(reserve_size(h.ptr, mode, ops, act, xd.ptr, ctypes.byref(rsz)))
                    reserve = np.zeros(max(rsz.value, 1), np.uint8)
                    one, zero = fdnn.scalar(1.0, dtype), fdnn.scalar(0.0, dtype)
                    st = train_ex(h.ptr, mode, ops, one, zero, xd.ptr, fdnn.ptr(x), zd.ptr, fdnn.ptr(z), yd.ptr,
                                  fdnn.ptr(y), pd.ptr, fdnn.ptr(scale), fdnn.ptr(bias), FACTOR, fdnn.ptr(rm),
                                  fdnn.ptr(rv), EPS, fdnn.ptr(sm), fdnn.ptr(si_), act, None, 0, fdnn.ptr(reserve),
                                  rsz.value)
                    res.check(st == 0, f"{what}: training forward status {st}")
                    # PyTorch in float64 from the same (rounded) inputs.
                    tx = torch.tensor(x.astype(np.float64), requires_grad=True)
                    tz = torch.tensor(z.astype(np.float64), requires_grad=True)
                    ts = torch.tensor(scale.astype(np.float64), requires_grad=True)
                    tb = torch.tensor(bias.astype(np.float64), requires_grad=True)
                    trm = torch.tensor(rm0.astype(np.float64)).reshape(-1)
                    trv = torch.tensor(rv0.astype(np.float64)).reshape(-1)
                    ty = torch_bn(tx, tz, ts, tb, trm, trv, mode, ops, True)
                    tol = {np.float32: 2e-5, np.float64: 1e-10, np.float16: 4e-3}[dtype]
                    res.close(tol, y.astype(np.float64), ty.detach().numpy(), f"{what}: y")
                    ptol = 1e-10 if dtype == np.float64 else 2e-6
                    res.close(ptol, rm.reshape(-1).astype(np.float64), trm.numpy(), f"{what}: running mean")
                    res.close(ptol * 5, rv.reshape(-1).astype(np.float64), trv.numpy(), f"{what}: running var")
                    xs = tx.detach().numpy()
                    axes = (0,) + tuple(range(2, len(shape))) if mode == SPATIAL else (0,)
                    mean = xs.mean(axis=axes, keepdims=True)
                    inv = 1.0 / np.sqrt(xs.var(axis=axes, keepdims=True) + EPS)
                    res.close(ptol, sm.astype(np.float64).reshape(-1), mean.reshape(-1), f"{what}: saved mean")
                    res.close(ptol * 5, si_.astype(np.float64).reshape(-1), inv.reshape(-1), f"{what}: saved inv")

                    (ty * torch.tensor(dy.astype(np.float64))).sum().backward()
                    dx = layout(fdnn.poisoned(shape, dtype), kind)
                    dz = layout(fdnn.poisoned(shape, dtype), kind)
                    ds, db = fdnn.poisoned(pshape, pdt), fdnn.poisoned(pshape, pdt)
                    dxd, dzd = fdnn.TensorDesc(dx), fdnn.TensorDesc(dz)
                    st = bwd_ex(h.ptr, mode, ops, one, zero, one, zero, xd.ptr, fdnn.ptr(x), yd.ptr, fdnn.ptr(y),
                                dyd.ptr, fdnn.ptr(dy), dzd.ptr, fdnn.ptr(dz), dxd.ptr, fdnn.ptr(dx), pd.ptr,
                                fdnn.ptr(scale), fdnn.ptr(bias), fdnn.ptr(ds), fdnn.ptr(db), EPS, fdnn.ptr(sm),
                                fdnn.ptr(si_), act, None, 0, fdnn.ptr(reserve), rsz.value)
                    res.check(st == 0, f"{what}: backward status {st}")
                    # Saved statistics are float for float/half data: dx is
                    # ill-conditioned for tiny batches, so the bound scales.
                    m = shape[0] if mode == PER_ACT else x.size // C
                    gtol = {np.float32: 2e-4 if m > 2 else 2e-3, np.float64: 1e-8, np.float16: 3e-2}[dtype]
                    res.close(gtol, dx.astype(np.float64), tx.grad.numpy(), f"{what}: dx")
                    res.close(gtol * 10, ds.astype(np.float64).reshape(-1), ts.grad.numpy().reshape(-1),
                              f"{what}: dscale")
                    res.close(gtol * 10, db.astype(np.float64).reshape(-1), tb.grad.numpy().reshape(-1),
                              f"{what}: dbias")
                    if ops == OPS_ADD_ACT:
                        res.close(tol, dz.astype(np.float64), tz.grad.numpy(), f"{what}: dz")

                    # Inference with the running statistics just computed.
                    y2 = layout(fdnn.poisoned(shape, dtype), kind)
                    y2d = fdnn.TensorDesc(y2)
                    st = infer(h.ptr, mode, one, zero, xd.ptr, fdnn.ptr(x), y2d.ptr, fdnn.ptr(y2), pd.ptr,
                               fdnn.ptr(scale), fdnn.ptr(bias), fdnn.ptr(rm), fdnn.ptr(rv), EPS)
                    res.check(st == 0, f"{what}: inference status {st}")
                    ti = torch_bn(tx.detach(), None, ts.detach(), tb.detach(),
                                  torch.tensor(rm.astype(np.float64)).reshape(-1),
                                  torch.tensor(rv.astype(np.float64)).reshape(-1), mode, OPS_BN, False)
                    res.close(tol, y2.astype(np.float64), ti.numpy(), f"{what}: inference y")

    # The generic API, per channel, with ReLU, against the same PyTorch.
    h = fdnn.Handle(threads=2)
    x = rng.uniform(-2, 2, size=(6, 4, 5, 5)).astype(np.float32)
    y = fdnn.poisoned(x.shape)
    scale = np.ones((1, 4, 1, 1), np.float32) * 1.25
    bias = np.full((1, 4, 1, 1), 0.1, np.float32)
    rm, rv = np.zeros_like(scale), np.ones_like(scale)
    sm, si_ = fdnn.poisoned(scale.shape), fdnn.poisoned(scale.shape)
    xd, yd, pd = fdnn.TensorDesc(x), fdnn.TensorDesc(y), fdnn.TensorDesc(scale)
    rsz_q = c_size()
    fdnn.check(norm_reserve_size(h.ptr, 1, 1, 0, act, xd.ptr, ctypes.byref(rsz_q), 1))
    rsz = rsz_q.value
    reserve = np.zeros(rsz, np.uint8)
    st = norm_train(h.ptr, 1, 1, 0, fdnn.scalar(1.0), fdnn.scalar(0.0), xd.ptr, fdnn.ptr(x), pd.ptr,
                    fdnn.ptr(scale), fdnn.ptr(bias), FACTOR, pd.ptr, fdnn.ptr(rm), fdnn.ptr(rv), EPS, fdnn.ptr(sm),
                    fdnn.ptr(si_), act, None, None, yd.ptr, fdnn.ptr(y), None, 0, fdnn.ptr(reserve), rsz, 1)
    res.check(st == 0, f"normalization training status {st}")
    ty = torch.relu(F.batch_norm(torch.tensor(x, dtype=torch.float64), None, None,
                                 torch.tensor(scale.reshape(-1), dtype=torch.float64),
                                 torch.tensor(bias.reshape(-1), dtype=torch.float64), training=True, eps=EPS))
    res.close(2e-5, y.astype(np.float64), ty.numpy(), "normalization y")
    res.finish()


if __name__ == "__main__":
    main()
