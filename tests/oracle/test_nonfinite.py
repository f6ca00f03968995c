# SPDX-License-Identifier: Apache-2.0
"""NaN, Inf, extreme and denormal inputs, per op family, against PyTorch in
float64 (the IEEE arithmetic of each documented formula); the rules are in
docs/numerics.md.  A result must hold NaN exactly where the oracle does, the
same infinities, and close finite values; denormal inputs must not be
flushed.  Families: activation (both NaN flags), pooling (max with both NaN
flags, averages), softmax (ACCURATE, FAST, LOG), LRN, batch normalization
(training statistics, running values, inference), op-tensor, add, scale,
reduce, convolution (forward, backward data, backward filter), dropout,
the spatial transformer sampler, CTC, and alpha/beta NaN."""
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

import fdnn

vp, c_int, c_double, c_size = fdnn.vp, ctypes.c_int, ctypes.c_double, ctypes.c_size_t
P = fdnn.proto
act_create = P("cudnnCreateActivationDescriptor", [ctypes.POINTER(vp)])
act_set = P("cudnnSetActivationDescriptor", [vp, c_int, c_int, c_double])
act_swish = P("cudnnSetActivationDescriptorSwishBeta", [vp, c_double])
act_fwd = P("cudnnActivationForward", [vp, vp, vp, vp, vp, vp, vp, vp])
act_bwd = P("cudnnActivationBackward", [vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp])
pool_create = P("cudnnCreatePoolingDescriptor", [ctypes.POINTER(vp)])
pool_set = P("cudnnSetPooling2dDescriptor", [vp, c_int, c_int, c_int, c_int, c_int, c_int, c_int, c_int])
pool_fwd = P("cudnnPoolingForward", [vp, vp, vp, vp, vp, vp, vp, vp])
soft_fwd = P("cudnnSoftmaxForward", [vp, c_int, c_int, vp, vp, vp, vp, vp, vp])
lrn_create = P("cudnnCreateLRNDescriptor", [ctypes.POINTER(vp)])
lrn_set = P("cudnnSetLRNDescriptor", [vp, ctypes.c_uint, c_double, c_double, c_double])
lrn_fwd = P("cudnnLRNCrossChannelForward", [vp, vp, c_int, vp, vp, vp, vp, vp, vp])
bn_train = P("cudnnBatchNormalizationForwardTraining",
             [vp, c_int, vp, vp, vp, vp, vp, vp, vp, vp, vp, c_double, vp, vp, c_double, vp, vp])
bn_infer = P("cudnnBatchNormalizationForwardInference", [vp, c_int, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp,
                                                          c_double])
op_create = P("cudnnCreateOpTensorDescriptor", [ctypes.POINTER(vp)])
op_set = P("cudnnSetOpTensorDescriptor", [vp, c_int, c_int, c_int])
op_tensor = P("cudnnOpTensor", [vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp])
add_tensor = P("cudnnAddTensor", [vp, vp, vp, vp, vp, vp, vp])
scale_tensor = P("cudnnScaleTensor", [vp, vp, vp, vp])
red_create = P("cudnnCreateReduceTensorDescriptor", [ctypes.POINTER(vp)])
red_set = P("cudnnSetReduceTensorDescriptor", [vp, c_int, c_int, c_int, c_int, c_int])
red_ws = P("cudnnGetReductionWorkspaceSize", [vp, vp, vp, vp, ctypes.POINTER(c_size)])
red_run = P("cudnnReduceTensor", [vp, vp, vp, c_size, vp, c_size, vp, vp, vp, vp, vp, vp])
f_create = P("cudnnCreateFilterDescriptor", [ctypes.POINTER(vp)])
f_set = P("cudnnSetFilterNdDescriptor", [vp, c_int, c_int, c_int, fdnn.c_int_p])
c_create = P("cudnnCreateConvolutionDescriptor", [ctypes.POINTER(vp)])
c_set = P("cudnnSetConvolution2dDescriptor", [vp, c_int, c_int, c_int, c_int, c_int, c_int, c_int, c_int])
conv_fwd = P("cudnnConvolutionForward", [vp, vp, vp, vp, vp, vp, vp, c_int, vp, c_size, vp, vp, vp])
conv_bwd_data = P("cudnnConvolutionBackwardData", [vp, vp, vp, vp, vp, vp, vp, c_int, vp, c_size, vp, vp, vp])
conv_bwd_filter = P("cudnnConvolutionBackwardFilter", [vp, vp, vp, vp, vp, vp, vp, c_int, vp, c_size, vp, vp, vp])
ws_fwd = P("cudnnGetConvolutionForwardWorkspaceSize", [vp, vp, vp, vp, vp, c_int, ctypes.POINTER(c_size)])
ws_bwd_data = P("cudnnGetConvolutionBackwardDataWorkspaceSize", [vp, vp, vp, vp, vp, c_int, ctypes.POINTER(c_size)])
ws_bwd_filter = P("cudnnGetConvolutionBackwardFilterWorkspaceSize",
                  [vp, vp, vp, vp, vp, c_int, ctypes.POINTER(c_size)])
do_create = P("cudnnCreateDropoutDescriptor", [ctypes.POINTER(vp)])
do_states = P("cudnnDropoutGetStatesSize", [vp, ctypes.POINTER(c_size)])
do_reserve = P("cudnnDropoutGetReserveSpaceSize", [vp, ctypes.POINTER(c_size)])
do_set = P("cudnnSetDropoutDescriptor", [vp, vp, ctypes.c_float, vp, c_size, ctypes.c_ulonglong])
do_fwd = P("cudnnDropoutForward", [vp, vp, vp, vp, vp, vp, vp, c_size])
st_create = P("cudnnCreateSpatialTransformerDescriptor", [ctypes.POINTER(vp)])
st_set = P("cudnnSetSpatialTransformerNdDescriptor", [vp, c_int, c_int, c_int, fdnn.c_int_p])
st_sample = P("cudnnSpatialTfSamplerForward", [vp, vp, vp, vp, vp, vp, vp, vp, vp])
ctc_create = P("cudnnCreateCTCLossDescriptor", [ctypes.POINTER(vp)])
ctc_set = P("cudnnSetCTCLossDescriptor_v8", [vp, c_int, c_int, c_int, c_int])
ctc_ws = P("cudnnGetCTCLossWorkspaceSize_v8", [vp, c_int, vp, vp, vp, ctypes.POINTER(c_size)])
ctc_loss = P("cudnnCTCLoss_v8", [vp, c_int, vp, vp, vp, fdnn.c_int_p, fdnn.c_int_p, fdnn.c_int_p, vp, vp, vp,
                                 c_size, vp])
t_create = P("cudnnCreateTensorDescriptor", [ctypes.POINTER(vp)])
t_set = P("cudnnSetTensorNdDescriptor", [vp, c_int, c_int, fdnn.c_int_p, fdnn.c_int_p])

NAN, INF = float("nan"), float("inf")
TINY = 1e-40  # a float32 denormal
# The special values each input draws from, with ordinary ones between them.
SPECIALS = [NAN, INF, -INF, TINY, -TINY, 0.0, -0.0, 3e38, -3e38]
res = fdnn.Results("oracle_nonfinite")
rng = np.random.default_rng(29)


def new(create):
    d = vp()
    fdnn.check(create(ctypes.byref(d)))
    return d


def sprinkle(shape, every=7, lo=-3.0, hi=3.0, specials=SPECIALS):
    """Uniform values with a special one at every `every`-th element."""
    a = rng.uniform(lo, hi, size=shape)
    flat = a.reshape(-1)
    for i in range(0, flat.size, every):
        flat[i] = specials[(i // every) % len(specials)]
    return a.astype(np.float32)


def same(got, want, what, tol=3e-6, dtype=np.float32):
    """NaN where the oracle has NaN, equal infinities, close finite values
    (the oracle first rounded to the output type)."""
    got = np.asarray(got, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.asarray(want, dtype=np.float64).astype(dtype).astype(np.float64)
    gn, wn = np.isnan(got), np.isnan(want)
    bad = np.flatnonzero(gn != wn)
    res.check(bad.size == 0, f"{what}: NaN differs at {bad[:5]} (got {got.ravel()[bad[:5]]}, "
                             f"want {want.ravel()[bad[:5]]})")
    gi, wi = np.isinf(got) & ~wn, np.isinf(want) & ~wn
    bad = np.flatnonzero((gi != wi) | (gi & wi & (np.sign(got) != np.sign(want))))
    res.check(bad.size == 0, f"{what}: Inf differs at {bad[:5]} (got {got.ravel()[bad[:5]]}, "
                             f"want {want.ravel()[bad[:5]]})")
    fin = ~(gn | wn | gi | wi)
    if fin.any():
        res.close(tol, got[fin], want[fin], what)


def exact(got, want, what):
    """Bitwise the same float32 values (for denormals, which a relative
    tolerance of max(1, |want|) cannot see)."""
    g, w = np.asarray(got, np.float32).view(np.uint32), np.asarray(want, np.float32).view(np.uint32)
    bad = np.flatnonzero(g != w)
    res.check(bad.size == 0, f"{what}: bits differ at {bad[:5]}")


def one(v):
    return fdnn.scalar(v)


# ---- activation ---------------------------------------------------------------

SIGMOID, RELU, TANH, CLIPPED, ELU, SWISH = 0, 1, 2, 3, 4, 6


def act_oracle(mode, x, prop):
    t = torch.tensor(x, dtype=torch.float64)
    if mode == SIGMOID:
        y = torch.sigmoid(t)
    elif mode == TANH:
        y = torch.tanh(t)
    elif mode == ELU:
        y = F.elu(t, 0.7)
    elif mode == SWISH:
        y = t / (1 + torch.exp(-1.3 * t))
    else:
        # max(x, 0) (and min(., coef)): with NOT_PROPAGATE_NAN a NaN is
        # "not a number to keep" and the clamp gives 0.
        y = torch.clamp(t, 0.0, 1.5 if mode == CLIPPED else None)
        if not prop:
            y = torch.nan_to_num(y, nan=0.0, posinf=INF, neginf=-INF)
    return y.numpy()


def activation(h, tag):
    d = new(act_create)
    x = sprinkle((2, 3, 7, 11), every=5)
    for mode in (SIGMOID, RELU, TANH, CLIPPED, ELU, SWISH):
        for prop in (0, 1):
            fdnn.check(act_set(d, mode, prop, {CLIPPED: 1.5, ELU: 0.7}.get(mode, 0.0)))
            fdnn.check(act_swish(d, 1.3))
            y = fdnn.poisoned(x.shape)
            xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
            fdnn.check(act_fwd(h.ptr, d, one(1.0), xd.ptr, fdnn.ptr(x), one(0.0), yd.ptr, fdnn.ptr(y)), "act fwd")
            want = act_oracle(mode, x.astype(np.float64), prop)
            same(y, want, f"{tag} activation {mode} nan {prop}", tol=5e-6)
            if mode in (RELU, CLIPPED):
                keep = (x > 0) & (x < 1.5)
                exact(y[keep], x[keep], f"{tag} activation {mode}: denormals kept")


# ---- pooling ------------------------------------------------------------------

def pooling(h, tag):
    d = new(pool_create)
    x = sprinkle((2, 3, 8, 8), every=11)
    x[1, 2, 0:2, 0:2] = NAN  # a window of NaN only
    t = torch.tensor(x, dtype=torch.float64)
    for mode, prop in ((0, 0), (0, 1), (1, 0), (2, 0), (3, 1)):
        fdnn.check(pool_set(d, mode, prop, 2, 2, 0, 0, 2, 2))
        y = fdnn.poisoned((2, 3, 4, 4))
        xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
        fdnn.check(pool_fwd(h.ptr, d, one(1.0), xd.ptr, fdnn.ptr(x), one(0.0), yd.ptr, fdnn.ptr(y)), "pool fwd")
        if mode in (0, 3):
            want = F.max_pool2d(t, 2, 2)  # propagates NaN
            if not prop:
                # NaN does not count: a window of NaN only gives -Inf, the
                # maximum of no number (as the reductions do)
                want = F.max_pool2d(torch.nan_to_num(t, nan=-INF, posinf=INF, neginf=-INF), 2, 2)
        else:
            want = F.avg_pool2d(t, 2, 2)
        same(y, want.numpy(), f"{tag} pooling mode {mode} nan {prop}")


# ---- softmax ------------------------------------------------------------------

def softmax(h, tag):
    x = rng.uniform(-4, 4, size=(6, 5, 1, 1)).astype(np.float32)
    x[0, 2], x[1, 0], x[2, 4], x[3, 1] = NAN, INF, -INF, 80.0  # exp(80) overflows float32
    x[4, :] = -INF
    x[5, 3] = 3e38
    t = torch.tensor(x.reshape(6, 5), dtype=torch.float64)
    for algo in (0, 1, 2):
        y = fdnn.poisoned(x.shape)
        xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
        fdnn.check(soft_fwd(h.ptr, algo, 1, one(1.0), xd.ptr, fdnn.ptr(x), one(0.0), yd.ptr, fdnn.ptr(y)), "softmax")
        # ACCURATE and LOG subtract the row maximum; FAST is exp(x) / sum exp(x)
        if algo == 0:
            e = torch.exp(t.float()).double()
            want = e / e.sum(1, keepdim=True)
        else:
            want = torch.log_softmax(t, 1) if algo == 2 else torch.softmax(t, 1)
        same(y.reshape(6, 5), want.numpy(), f"{tag} softmax algo {algo}", tol=1e-5)


# ---- LRN ----------------------------------------------------------------------

def lrn(h, tag):
    d = new(lrn_create)
    fdnn.check(lrn_set(d, 3, 0.5, 0.75, 1.0))
    x = sprinkle((2, 9, 3, 4), every=13, specials=[NAN, INF, -INF, TINY, 1e30])
    y = fdnn.poisoned(x.shape)
    xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
    fdnn.check(lrn_fwd(h.ptr, d, 0, one(1.0), xd.ptr, fdnn.ptr(x), one(0.0), yd.ptr, fdnn.ptr(y)), "lrn")
    want = F.local_response_norm(torch.tensor(x, dtype=torch.float64), 3, 0.5, 0.75, 1.0)
    same(y, want.numpy(), f"{tag} lrn", tol=1e-5)


# ---- batch normalization --------------------------------------------------------

def batchnorm(h, tag):
    n, c, hw = 4, 6, (3, 5)
    x = rng.uniform(-2, 2, size=(n, c) + hw).astype(np.float32)
    x[1, 0, 1, 2] = NAN               # channel 0 holds NaN
    x[0, 1, 0, 0] = INF               # channel 1: +Inf (as the first element)
    x[2, 2, 2, 1] = INF
    x[3, 2, 0, 3] = -INF              # channel 2: +Inf and -Inf
    x[:, 3] = TINY                    # channel 3: constant denormals
    x[:, 4] *= 1e18                   # channel 4: huge but finite squares
    scale = rng.uniform(0.5, 1.5, size=(1, c, 1, 1)).astype(np.float32)
    bias = rng.uniform(-1, 1, size=(1, c, 1, 1)).astype(np.float32)
    rm0 = rng.uniform(-1, 1, size=(1, c, 1, 1)).astype(np.float32)
    rv0 = rng.uniform(0.5, 2, size=(1, c, 1, 1)).astype(np.float32)
    rm, rv = rm0.copy(), rv0.copy()
    sm, si = fdnn.poisoned((1, c, 1, 1)), fdnn.poisoned((1, c, 1, 1))
    y = fdnn.poisoned(x.shape)
    xd, yd, pd = fdnn.TensorDesc(x), fdnn.TensorDesc(y), fdnn.TensorDesc(scale)
    eps, f = 1e-5, 0.25
    fdnn.check(bn_train(h.ptr, 1, one(1.0), one(0.0), xd.ptr, fdnn.ptr(x), yd.ptr, fdnn.ptr(y), pd.ptr,
                        fdnn.ptr(scale), fdnn.ptr(bias), f, fdnn.ptr(rm), fdnn.ptr(rv), eps, fdnn.ptr(sm),
                        fdnn.ptr(si)), "bn train")
    # The documented formulas, in float64: mean = sum / M, var = sum (x - mean)^2 / M.
    with np.errstate(invalid="ignore", over="ignore"):
        xx = x.astype(np.float64)
        M = n * hw[0] * hw[1]
        mean = xx.sum(axis=(0, 2, 3), keepdims=True) / M
        var = ((xx - mean) ** 2).sum(axis=(0, 2, 3), keepdims=True) / M
        inv = 1.0 / np.sqrt(var + eps)
        want_y = scale * (xx - mean) * inv + bias
        want_rm = (1 - f) * rm0 + f * mean
        want_rv = (1 - f) * rv0 + f * var * M / (M - 1)
    same(sm, mean, f"{tag} bn saved mean")
    same(si, inv, f"{tag} bn saved inverse variance", tol=1e-5)
    same(rm, want_rm, f"{tag} bn running mean")
    same(rv, want_rv, f"{tag} bn running variance", tol=1e-5)
    same(y, want_y, f"{tag} bn y", tol=1e-5)
    # Inference from running values that hold NaN / Inf.
    rmi = np.array([NAN, 0, INF, 0, 0, 0], np.float32).reshape(1, c, 1, 1)
    rvi = np.array([1, NAN, 1, INF, -1e-5 / 2, 1], np.float32).reshape(1, c, 1, 1)
    xi = rng.uniform(-2, 2, size=x.shape).astype(np.float32)
    y = fdnn.poisoned(x.shape)
    fdnn.check(bn_infer(h.ptr, 1, one(1.0), one(0.0), xd.ptr, fdnn.ptr(xi), yd.ptr, fdnn.ptr(y), pd.ptr,
                        fdnn.ptr(scale), fdnn.ptr(bias), fdnn.ptr(rmi), fdnn.ptr(rvi), eps), "bn infer")
    with np.errstate(invalid="ignore", divide="ignore"):
        want = scale * (xi.astype(np.float64) - rmi) / np.sqrt(rvi.astype(np.float64) + eps) + bias
    same(y, want, f"{tag} bn inference", tol=1e-5)


# ---- op-tensor, add, scale, reduce, alpha/beta ----------------------------------

def tensor_ops(h, tag):
    d = new(op_create)
    a = sprinkle((2, 3, 4, 5), every=3)
    b = sprinkle((2, 3, 4, 5), every=4)
    c0 = rng.uniform(-1, 1, size=a.shape).astype(np.float32)
    ta, tb, tc = (torch.tensor(v, dtype=torch.float64) for v in (a, b, c0))
    for op in range(6):
        for prop in (0, 1):
            if op == 4:
                x1 = torch.abs(ta)
                A = x1.numpy().astype(np.float32)
            else:
                x1, A = ta, a
            fdnn.check(op_set(d, op, 0, prop))
            C = c0.copy()
            ad, cd = fdnn.TensorDesc(A), fdnn.TensorDesc(C)
            fdnn.check(op_tensor(h.ptr, d, one(1.0), ad.ptr, fdnn.ptr(A), one(1.0), ad.ptr, fdnn.ptr(b),
                                 one(0.5), cd.ptr, fdnn.ptr(C)), "op tensor")
            want = {0: lambda: x1 + tb, 1: lambda: x1 * tb,
                    2: lambda: torch.minimum(x1, tb) if prop else torch.fmin(x1, tb),
                    3: lambda: torch.maximum(x1, tb) if prop else torch.fmax(x1, tb),
                    4: lambda: torch.sqrt(x1), 5: lambda: 1 - x1}[op]() + 0.5 * tc
            same(C, want.numpy(), f"{tag} op-tensor {op} nan {prop}", tol=1e-5)
    # alpha == 0 still multiplies: 0 * Inf is NaN (IEEE of alpha * A).
    C = c0.copy()
    ad, cd = fdnn.TensorDesc(a), fdnn.TensorDesc(C)
    fdnn.check(add_tensor(h.ptr, one(0.0), ad.ptr, fdnn.ptr(a), one(1.0), cd.ptr, fdnn.ptr(C)), "add")
    same(C, (0.0 * ta + tc).numpy(), f"{tag} add alpha 0")
    # (alpha 1: alpha * 3e38 must not overflow the FLOAT compute type,
    # which a float64 oracle would not see)
    for alpha, beta in ((NAN, 1.0), (1.0, NAN), (NAN, 0.0), (1.0, INF)):
        C = c0.copy()
        fdnn.check(add_tensor(h.ptr, one(alpha), ad.ptr, fdnn.ptr(a), one(beta), cd.ptr, fdnn.ptr(C)), "add")
        want = alpha * ta + (beta * tc if beta != 0.0 else 0.0)
        same(C, want.numpy(), f"{tag} add alpha {alpha} beta {beta}")
        # beta == 0 never reads C, whatever C holds
        C = np.full(a.shape, NAN, np.float32)
        fdnn.check(add_tensor(h.ptr, one(alpha), ad.ptr, fdnn.ptr(a), one(0.0), cd.ptr, fdnn.ptr(C)), "add")
        same(C, (alpha * ta).numpy(), f"{tag} add alpha {alpha} beta 0 over NaN")
    for alpha in (NAN, 0.0, INF):
        C = a.copy()
        fdnn.check(scale_tensor(h.ptr, cd.ptr, fdnn.ptr(C), one(alpha)), "scale")
        same(C, (alpha * ta).numpy(), f"{tag} scale by {alpha}")
    # reductions over W (without the huge values: a FLOAT sum or product of
    # them overflows where the float64 oracle does not)
    a = sprinkle((2, 3, 4, 5), every=3, specials=[NAN, INF, -INF, TINY, -TINY, 0.0, 1e-30])
    ta = torch.tensor(a, dtype=torch.float64)
    r = new(red_create)
    for op in range(9):
        for prop in ((0, 1) if op in (2, 3, 4) else (0,)):
            fdnn.check(red_set(r, op, 0, prop, 0, 0))
            C = fdnn.poisoned((2, 3, 4, 1))
            ad, cd = fdnn.TensorDesc(a), fdnn.TensorDesc(C)
            ws = c_size(0)
            fdnn.check(red_ws(h.ptr, r, ad.ptr, cd.ptr, ctypes.byref(ws)))
            wbuf = np.zeros(max(ws.value, 8), np.uint8)
            fdnn.check(red_run(h.ptr, r, None, 0, fdnn.ptr(wbuf), ws.value, one(1.0), ad.ptr, fdnn.ptr(a), one(0.0),
                               cd.ptr, fdnn.ptr(C)), "reduce")
            kd = dict(dim=3, keepdim=True)
            v = ta.abs() if op == 4 else ta
            if op in (2, 3, 4) and not prop:
                v = torch.nan_to_num(v, nan=INF if op == 2 else -INF, posinf=INF, neginf=-INF)
            want = {0: lambda: v.sum(**kd), 1: lambda: v.prod(**kd), 2: lambda: v.amin(**kd),
                    3: lambda: v.amax(**kd), 4: lambda: v.amax(**kd), 5: lambda: v.mean(**kd),
                    6: lambda: v.abs().sum(**kd), 7: lambda: torch.sqrt((v * v).sum(**kd)),
                    8: lambda: torch.where(v == 0, torch.ones_like(v), v).prod(**kd)}[op]()
            same(C, want.numpy(), f"{tag} reduce {op} nan {prop}", tol=1e-5)


# ---- convolution ----------------------------------------------------------------

def convolution(h, tag):
    n, c, k, hw = 2, 3, 4, (7, 6)
    x = rng.uniform(-1, 1, size=(n, c) + hw).astype(np.float32)
    w = rng.uniform(-1, 1, size=(k, c, 3, 3)).astype(np.float32)
    x[0, 1, 3, 2], x[1, 0, 0, 5], x[1, 2, 6, 0] = NAN, INF, -INF
    x[0, 2, 5, 5] = TINY
    dy = rng.uniform(-1, 1, size=(n, k, 7, 6)).astype(np.float32)
    dy[0, 3, 2, 2], dy[1, 1, 6, 5] = NAN, INF
    xt, wt, dyt = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, w, dy))
    yt = F.conv2d(xt, wt, padding=1)
    fd, cv = new(f_create), new(c_create)
    fdnn.check(f_set(fd, 0, 0, 4, fdnn.int_array([k, c, 3, 3])))
    fdnn.check(c_set(cv, 1, 1, 1, 1, 1, 1, 1, 0))  # CROSS_CORRELATION, FLOAT
    y = fdnn.poisoned((n, k) + hw)
    xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
    # The direct and GEMM algorithms (each output reads only its window);
    # FFT and Winograd transform whole tiles, so a non-finite input there
    # reaches the outputs of its tile (docs/numerics.md).
    for algo in (0, 1, 2):
        size = c_size(0)
        if ws_fwd(h.ptr, xd.ptr, fd, cv, yd.ptr, algo, ctypes.byref(size)) != 0:
            continue
        wsb = np.zeros(max(size.value, 8), np.uint8)
        y[...] = NAN
        fdnn.check(conv_fwd(h.ptr, one(1.0), xd.ptr, fdnn.ptr(x), fd, fdnn.ptr(w), cv, algo, fdnn.ptr(wsb),
                            size.value, one(0.0), yd.ptr, fdnn.ptr(y)), f"conv fwd {algo}")
        same(y, yt.detach().numpy(), f"{tag} conv fwd algo {algo}", tol=1e-5)
    # backward data / filter: dy holds NaN and Inf
    with torch.no_grad():
        want_dx = torch.nn.grad.conv2d_input(x.shape, wt, dyt, padding=1).numpy()
        want_dw = torch.nn.grad.conv2d_weight(xt, w.shape, dyt, padding=1).numpy()
    dyd = fdnn.TensorDesc(dy)
    for algo in (0, 1):
        size = c_size(0)
        if ws_bwd_data(h.ptr, fd, dyd.ptr, cv, xd.ptr, algo, ctypes.byref(size)) == 0:
            wsb = np.zeros(max(size.value, 8), np.uint8)
            dx = fdnn.poisoned(x.shape)
            fdnn.check(conv_bwd_data(h.ptr, one(1.0), fd, fdnn.ptr(w), dyd.ptr, fdnn.ptr(dy), cv, algo,
                                     fdnn.ptr(wsb), size.value, one(0.0), xd.ptr, fdnn.ptr(dx)), "bwd data")
            same(dx, want_dx, f"{tag} conv bwd data algo {algo}", tol=1e-5)
        if ws_bwd_filter(h.ptr, xd.ptr, dyd.ptr, cv, fd, algo, ctypes.byref(size)) == 0:
            wsb = np.zeros(max(size.value, 8), np.uint8)
            dw = fdnn.poisoned(w.shape)
            fdnn.check(conv_bwd_filter(h.ptr, one(1.0), xd.ptr, fdnn.ptr(x), dyd.ptr, fdnn.ptr(dy), cv, algo,
                                       fdnn.ptr(wsb), size.value, one(0.0), fd, fdnn.ptr(dw)), "bwd filter")
            same(dw, want_dw, f"{tag} conv bwd filter algo {algo}", tol=1e-5)


# ---- dropout, spatial transformer, CTC ------------------------------------------

def dropout(h, tag):
    d = new(do_create)
    ss = c_size(0)
    fdnn.check(do_states(h.ptr, ctypes.byref(ss)))
    states = np.zeros(ss.value, np.uint8)
    fdnn.check(do_set(d, h.ptr, 0.5, fdnn.ptr(states), ss.value, 77))
    x = sprinkle((2, 3, 8, 9), every=2)
    y = fdnn.poisoned(x.shape)
    xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
    rs = c_size(0)
    fdnn.check(do_reserve(xd.ptr, ctypes.byref(rs)))
    reserve = np.zeros(rs.value, np.uint8)
    fdnn.check(do_fwd(h.ptr, d, xd.ptr, fdnn.ptr(x), yd.ptr, fdnn.ptr(y), fdnn.ptr(reserve), rs.value), "dropout")
    keep = np.unpackbits(reserve, bitorder="little")[:x.size].astype(bool).reshape(x.shape)
    # A dropped element is 0 whatever x holds (a selection, not 0 * x).
    want = np.where(keep, x.astype(np.float64) * 2.0, 0.0)
    same(y, want, f"{tag} dropout")


def spatial(h, tag):
    d = new(st_create)
    n, c, hh, ww = 1, 2, 5, 6
    fdnn.check(st_set(d, 0, 0, 4, fdnn.int_array([n, c, hh, ww])))
    x = rng.uniform(-1, 1, size=(n, c, hh, ww)).astype(np.float32)
    x[0, 0, 2, 3], x[0, 1, 1, 1] = NAN, INF
    gx, gy = np.meshgrid(np.linspace(-1, 1, ww), np.linspace(-1, 1, hh))
    grid = np.stack([gx * 0.83 + 0.05, gy * 0.9 - 0.02], axis=-1)[None].astype(np.float32)
    grid[0, 4, 5] = [NAN, 0.0]  # a NaN coordinate
    y = fdnn.poisoned((n, c, hh, ww))
    xd, yd = fdnn.TensorDesc(x), fdnn.TensorDesc(y)
    fdnn.check(st_sample(h.ptr, d, one(1.0), xd.ptr, fdnn.ptr(x), fdnn.ptr(grid), one(0.0), yd.ptr, fdnn.ptr(y)),
               "sampler")
    # Only the pixels with a nonzero bilinear weight contribute.
    xt = torch.tensor(x, dtype=torch.float64)
    gt = torch.tensor(grid, dtype=torch.float64)
    want = np.empty(y.shape)
    for i in range(hh):
        for j in range(ww):
            u, v = gt[0, i, j]
            if torch.isnan(u) or torch.isnan(v):
                want[0, :, i, j] = NAN
                continue
            px, py = (float(u) + 1) * (ww - 1) / 2, (float(v) + 1) * (hh - 1) / 2
            acc = np.zeros(c)
            for yy in range(hh):
                for xx in range(ww):
                    wgt = max(0.0, 1 - abs(px - xx)) * max(0.0, 1 - abs(py - yy))
                    if wgt > 0:
                        acc = acc + wgt * xt[0, :, yy, xx].numpy()
            want[0, :, i, j] = acc
    same(y, want, f"{tag} spatial sampler", tol=1e-5)


def ctc(h, tag):
    for prop in (0, 1):
        ctc_case(h, f"{tag} nan {prop}", prop)


def ctc_case(h, tag, prop):
    t, b, a = 6, 3, 5
    x = rng.uniform(-2, 2, size=(t, b, a)).astype(np.float32)
    x[2, 1, 3] = NAN
    x[4, 2, 0] = INF
    labels = np.array([1, 2, 3, 1, 4, 2], np.int32)
    lab_len = np.array([2, 2, 2], np.int32)
    in_len = np.array([t, t, t], np.int32)

    def desc3(arr):
        dd = new(t_create)
        fdnn.check(t_set(dd, 0, 3, fdnn.int_array(list(arr.shape)),
                         fdnn.int_array([s // 4 for s in arr.strides])))
        return dd

    d = new(ctc_create)
    fdnn.check(ctc_set(d, 0, 1, prop, a))  # FLOAT, normalization SOFTMAX, gradient NaN mode
    grad = np.full(x.shape, NAN, np.float32)
    costs = np.full(b, NAN, np.float32)
    pd, gd, cdesc = desc3(x), desc3(grad), new(t_create)
    fdnn.check(t_set(cdesc, 0, 3, fdnn.int_array([b, 1, 1]), fdnn.int_array([1, 1, 1])))
    ws = c_size(0)
    fdnn.check(ctc_ws(h.ptr, 0, d, pd, gd, ctypes.byref(ws)))
    wsb = np.zeros(max(ws.value, 8), np.uint8)
    fdnn.check(ctc_loss(h.ptr, 0, d, pd, fdnn.ptr(x), labels.ctypes.data_as(fdnn.c_int_p),
                        lab_len.ctypes.data_as(fdnn.c_int_p), in_len.ctypes.data_as(fdnn.c_int_p),
                        fdnn.ptr(costs), gd, fdnn.ptr(grad), ws.value, fdnn.ptr(wsb)), "ctc")
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    lp = torch.log_softmax(xt, 2)
    loss = F.ctc_loss(lp, torch.tensor(labels.reshape(b, 2), dtype=torch.long), torch.tensor(in_len),
                      torch.tensor(lab_len), blank=0, reduction="none", zero_infinity=False)
    loss.sum().backward()
    same(costs, loss.detach().numpy(), f"{tag} ctc costs", tol=1e-5)
    # A sequence whose loss is not finite has no usable gradient: NaN with
    # CUDNN_PROPAGATE_NAN, 0 without; the other sequences are untouched.
    fill = NAN if prop else 0.0
    same(grad[:, 1:], np.full(grad[:, 1:].shape, fill), f"{tag} ctc gradient of the non-finite sequences")
    same(grad[:, 0], xt.grad[:, 0].numpy(), f"{tag} ctc gradient of the finite sequence", tol=1e-5)


# ---- alpha / beta NaN, per family ------------------------------------------------

transform = P("cudnnTransformTensor", [vp, vp, vp, vp, vp, vp, vp])


def blending(h, tag):
    """y = alpha * op + beta * y as IEEE gives it: a NaN alpha, or a NaN beta
    (not 0), makes every element NaN; beta == 0 never reads y; alpha == 0
    still multiplies (0 * Inf is NaN).  Also: denormals pass exactly where
    the op passes values through (max pooling, transform)."""
    x = rng.uniform(-1, 1, size=(2, 4, 6, 6)).astype(np.float32)
    x[0, 0, 0:2, 0:2] = -0.5
    x[0, 0, 0, 0] = TINY
    xd = fdnn.TensorDesc(x)
    act, pool, lrnd = new(act_create), new(pool_create), new(lrn_create)
    fdnn.check(act_set(act, RELU, 1, 0.0))
    fdnn.check(pool_set(pool, 0, 1, 2, 2, 0, 0, 2, 2))
    fdnn.check(lrn_set(lrnd, 3, 0.5, 0.75, 1.0))
    fams = {
        "activation": ((2, 4, 6, 6), lambda a, yd, y, b: act_fwd(h.ptr, act, a, xd.ptr, fdnn.ptr(x), b, yd.ptr,
                                                                  fdnn.ptr(y))),
        "pooling": ((2, 4, 3, 3), lambda a, yd, y, b: pool_fwd(h.ptr, pool, a, xd.ptr, fdnn.ptr(x), b, yd.ptr,
                                                               fdnn.ptr(y))),
        "softmax": ((2, 4, 6, 6), lambda a, yd, y, b: soft_fwd(h.ptr, 1, 1, a, xd.ptr, fdnn.ptr(x), b, yd.ptr,
                                                               fdnn.ptr(y))),
        "LRN": ((2, 4, 6, 6), lambda a, yd, y, b: lrn_fwd(h.ptr, lrnd, 0, a, xd.ptr, fdnn.ptr(x), b, yd.ptr,
                                                          fdnn.ptr(y))),
        "transform": ((2, 4, 6, 6), lambda a, yd, y, b: transform(h.ptr, a, xd.ptr, fdnn.ptr(x), b, yd.ptr,
                                                                  fdnn.ptr(y))),
    }
    for name, (shape, call) in fams.items():
        y0 = rng.uniform(-1, 1, size=shape).astype(np.float32)
        # reference run: alpha 1, beta 0
        ref = fdnn.poisoned(shape)
        yd = fdnn.TensorDesc(ref)
        fdnn.check(call(one(1.0), yd, ref, one(0.0)), name)
        for alpha, beta in ((NAN, 0.0), (NAN, 1.0), (1.0, NAN), (0.0, 1.0), (1.0, 0.0)):
            y = y0.copy()
            if beta == 0.0:
                y[...] = NAN  # never read
            fdnn.check(call(one(alpha), yd, y, one(beta)), name)
            with np.errstate(invalid="ignore"):
                want = alpha * ref.astype(np.float64) + (beta * y0.astype(np.float64) if beta != 0.0 else 0.0)
            same(y, want, f"{tag} {name} alpha {alpha} beta {beta}", tol=1e-5)
        if name in ("pooling", "transform"):
            # the maximum of a window holding the denormal and negatives, or
            # a copy: the denormal itself, bit for bit
            exact(ref[0, 0, 0, 0], np.float32(TINY), f"{tag} {name}: denormal kept")
    # alpha == 0 multiplies: 0 * Inf is NaN (activation of +Inf is +Inf)
    xi = x.copy()
    xi[1, 2, 3, 4] = INF
    xid = fdnn.TensorDesc(xi)
    y = rng.uniform(-1, 1, size=x.shape).astype(np.float32)
    y0 = y.copy()
    fdnn.check(act_fwd(h.ptr, act, one(0.0), xid.ptr, fdnn.ptr(xi), one(1.0), xid.ptr, fdnn.ptr(y)), "act")
    with np.errstate(invalid="ignore"):
        want = 0.0 * np.maximum(xi.astype(np.float64), 0) + y0
    same(y, want, f"{tag} activation alpha 0 over Inf")


def main():
    for isa in ("scalar", "avx2", "avx512"):
        for threads in (1, 2):
            try:
                h = fdnn.Handle(threads=threads, isa=isa)
            except fdnn.CudnnError:
                continue
            tag = f"{isa}/{threads}"
            for fn in (activation, pooling, softmax, lrn, batchnorm, tensor_ops, convolution, dropout, spatial, ctc,
                       blending):
                try:
                    fn(h, tag)
                except fdnn.CudnnError as e:
                    res.check(False, f"{tag} {fn.__name__}: {e}")
    res.finish()


if __name__ == "__main__":
    main()
