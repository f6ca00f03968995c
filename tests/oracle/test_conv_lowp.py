# SPDX-License-Identifier: Apache-2.0
"""HALF and BFLOAT16 convolutions against PyTorch: forward, backward data,
backward filter (autograd) and backward bias, NCHW and NHWC, strided,
grouped, dilated, CONVOLUTION mode, 2-D and 3-D, every algorithm that
applies, PSEUDO_HALF / TRUE_HALF / PSEUDO_BFLOAT16, DEFAULT and TENSOR_OP
math.

Two oracles per result:
  - PyTorch's float64 convolution of the values the products see (the
    storage values; under TENSOR_OP_MATH those rounded to bfloat16 by
    torch's own conversion), rounded to the output type by torch: ours may
    differ by one unit in the last place where the FP32 sum sits next to a
    rounding boundary (docs/numerics.md);
  - for BFLOAT16, PyTorch's own bfloat16 convolution and autograd on the CPU
    (oneDNN), within two units in the last place.  (PyTorch 1.13 has no
    float16 convolution on the CPU, so HALF has the first oracle only.)
Storage is handled as raw 16-bit words; numpy has no bfloat16."""
import ctypes

import numpy as np
import torch

import fdnn
from fdnn import check, int_array, proto, ptr, scalar, vp

torch.manual_seed(0)
rng = np.random.default_rng(1)

create_f = proto("cudnnCreateFilterDescriptor", [ctypes.POINTER(vp)])
destroy_f = proto("cudnnDestroyFilterDescriptor", [vp])
set_f = proto("cudnnSetFilterNdDescriptor", [vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, fdnn.c_int_p])
create_t = proto("cudnnCreateTensorDescriptor", [ctypes.POINTER(vp)])
destroy_t = proto("cudnnDestroyTensorDescriptor", [vp])
set_t = proto("cudnnSetTensorNdDescriptor", [vp, ctypes.c_int, ctypes.c_int, fdnn.c_int_p, fdnn.c_int_p])
create_c = proto("cudnnCreateConvolutionDescriptor", [ctypes.POINTER(vp)])
destroy_c = proto("cudnnDestroyConvolutionDescriptor", [vp])
set_c = proto("cudnnSetConvolutionNdDescriptor",
              [vp, ctypes.c_int, fdnn.c_int_p, fdnn.c_int_p, fdnn.c_int_p, ctypes.c_int, ctypes.c_int])
set_groups = proto("cudnnSetConvolutionGroupCount", [vp, ctypes.c_int])
set_math = proto("cudnnSetConvolutionMathType", [vp, ctypes.c_int])
fwd = proto("cudnnConvolutionForward", [vp, vp, vp, vp, vp, vp, vp, ctypes.c_int, vp, ctypes.c_size_t, vp, vp, vp])
bwd_data = proto("cudnnConvolutionBackwardData",
                 [vp, vp, vp, vp, vp, vp, vp, ctypes.c_int, vp, ctypes.c_size_t, vp, vp, vp])
bwd_filter = proto("cudnnConvolutionBackwardFilter",
                   [vp, vp, vp, vp, vp, vp, vp, ctypes.c_int, vp, ctypes.c_size_t, vp, vp, vp])
bwd_bias = proto("cudnnConvolutionBackwardBias", [vp, vp, vp, vp, vp, vp, vp])
ws_fwd = proto("cudnnGetConvolutionForwardWorkspaceSize",
               [vp, vp, vp, vp, vp, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)])
ws_bwd_data = proto("cudnnGetConvolutionBackwardDataWorkspaceSize",
                    [vp, vp, vp, vp, vp, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)])
ws_bwd_filter = proto("cudnnGetConvolutionBackwardFilterWorkspaceSize",
                      [vp, vp, vp, vp, vp, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)])

HALF, BF16, FLOAT = 2, 9, 0
TENSOR_OP = 1
R = fdnn.Results("test_conv_lowp")
handle = fdnn.Handle(threads=2)
ran = set()

# name, data type, compute type, math type, torch dtype, ulp relative to 1
CONFIGS = [
    ("PSEUDO_HALF", HALF, FLOAT, 0, torch.float16, 2.0 ** -10),
    ("TRUE_HALF", HALF, HALF, 0, torch.float16, 2.0 ** -10),
    ("PSEUDO_HALF tensor-op", HALF, FLOAT, TENSOR_OP, torch.float16, 2.0 ** -10),
    ("PSEUDO_BFLOAT16", BF16, FLOAT, 0, torch.bfloat16, 2.0 ** -7),
    ("PSEUDO_BFLOAT16 tensor-op", BF16, FLOAT, TENSOR_OP, torch.bfloat16, 2.0 ** -7),
]


def words(t, nhwc):
    """The 16-bit storage of torch tensor t (NCHW order) as a numpy uint16
    array, channels-last in memory when nhwc (same logical shape)."""
    a = t.detach().contiguous().view(torch.int16).numpy().view(np.uint16)
    if nhwc:
        perm = [0] + list(range(2, a.ndim)) + [1]
        a = np.ascontiguousarray(a.transpose(perm)).transpose(np.argsort(perm))
    return a


def from_words(a, tdtype):
    """The torch tensor (float64) of 16-bit storage words a."""
    return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(tdtype).to(torch.float64)


class Tensor:
    def __init__(self, a, dt):
        self.ptr = vp()
        check(create_t(ctypes.byref(self.ptr)), "cudnnCreateTensorDescriptor")
        check(set_t(self.ptr, dt, a.ndim, int_array(list(a.shape)), int_array([s // 2 for s in a.strides])),
              "cudnnSetTensorNdDescriptor")

    def __del__(self):
        destroy_t(self.ptr)


class Filter:
    def __init__(self, shape, dt, nhwc):
        self.ptr = vp()
        check(create_f(ctypes.byref(self.ptr)), "cudnnCreateFilterDescriptor")
        check(set_f(self.ptr, dt, fdnn.NHWC if nhwc else fdnn.NCHW, len(shape), int_array(list(shape))),
              "cudnnSetFilterNdDescriptor")

    def __del__(self):
        destroy_f(self.ptr)


class Conv:
    def __init__(self, pad, stride, dil, groups, flip, compute, math):
        self.ptr = vp()
        check(create_c(ctypes.byref(self.ptr)), "cudnnCreateConvolutionDescriptor")
        check(set_c(self.ptr, len(pad), int_array(pad), int_array(stride), int_array(dil), 0 if flip else 1,
                    compute), "cudnnSetConvolutionNdDescriptor")
        check(set_groups(self.ptr, groups), "cudnnSetConvolutionGroupCount")
        check(set_math(self.ptr, math), "cudnnSetConvolutionMathType")

    def __del__(self):
        destroy_c(self.ptr)


def workspace(fn, *args):
    size = ctypes.c_size_t(0)
    st = fn(*args, ctypes.byref(size))
    if st == fdnn.NOT_SUPPORTED:
        return None
    check(st, fn.__name__)
    return np.zeros(max(size.value, 1), dtype=np.uint8), size.value


def close(got_words, want, tdtype, ulps, ulp, what):
    """got (storage words) within `ulps` units in the last place of want
    (float64 torch tensor), relative to max(1, |want|)."""
    got = from_words(got_words, tdtype)
    if got.shape != want.shape:
        got = got.reshape(want.shape)
    err = float(((got - want).abs() / want.abs().clamp(min=1.0)).max()) if want.numel() else 0.0
    R.check(np.isfinite(err) and err <= ulps * ulp, f"{what}: max rel error {err:.3g} > {ulps} ulp ({ulps * ulp:.3g})")


def nchw(a):
    """A channels-last numpy array back in NCHW memory order."""
    return np.ascontiguousarray(a)


def case(name, n, c, k, spatial, ker, pad, stride, dil, groups, flip, config, nhwc):
    cname, dt, compute, math, tdtype, ulp = config
    conv = {2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}[len(spatial)]
    x = torch.from_numpy(rng.uniform(-1, 1, (n, c) + spatial)).to(tdtype)
    w = torch.from_numpy(rng.uniform(-1, 1, (k, c // groups) + ker)).to(tdtype)
    y_shape = conv(x.double(), w.double(), stride=stride, padding=pad, dilation=dil, groups=groups).shape
    dy = torch.from_numpy(rng.uniform(-1, 1, tuple(y_shape))).to(tdtype)

    # The float64 oracle of the values the products see.
    def seen(t):
        return t.to(torch.bfloat16).double() if math == TENSOR_OP else t.double()

    xd, wd_, dyd = seen(x).requires_grad_(), seen(w).requires_grad_(), seen(dy)
    weff = torch.flip(wd_, dims=list(range(2, w.dim()))) if flip else wd_
    y64 = conv(xd, weff, stride=stride, padding=pad, dilation=dil, groups=groups)
    y64.backward(dyd)
    oracle = {"y": y64.detach(), "dx": xd.grad, "dw": wd_.grad}
    db64 = dy.double().sum(dim=[i for i in range(dy.dim()) if i != 1])
    # PyTorch's own bfloat16 convolution and autograd (no TENSOR_OP
    # distinction there: oneDNN's bf16 products are exact in FP32).
    native = None
    if tdtype == torch.bfloat16:
        xb, wb = x.clone().requires_grad_(), w.clone().requires_grad_()
        wbe = torch.flip(wb, dims=list(range(2, w.dim()))) if flip else wb
        yb = conv(xb, wbe, stride=stride, padding=pad, dilation=dil, groups=groups)
        yb.backward(dy)
        native = {"y": yb.detach().double(), "dx": xb.grad.double(), "dw": wb.grad.double()}

    xm, wm, dym = words(x, nhwc), words(w, False), words(dy, nhwc)
    if nhwc:
        wm = np.ascontiguousarray(wm.transpose([0] + list(range(2, wm.ndim)) + [1]))
    tx, ty = Tensor(xm, dt), Tensor(dym, dt)
    tw = Filter(w.shape, dt, nhwc)
    cd = Conv(list(pad), list(stride), list(dil), groups, flip, compute, math)
    tag = f"{name} {cname} {'nhwc' if nhwc else 'nchw'}"

    def layout_like(a, shape):
        out = np.empty(shape, dtype=np.uint16)
        if nhwc:
            perm = [0] + list(range(2, len(shape))) + [1]
            out = np.empty([shape[i] for i in perm], dtype=np.uint16).transpose(np.argsort(perm))
        out[...] = a
        return out

    def filt_out(mem):
        """A filter buffer (in its format's memory order) in NCHW order."""
        if nhwc:
            return np.moveaxis(mem, -1, 1)
        return mem

    def compare(got, key, what):
        close(got, oracle[key], tdtype, 1, ulp, f"{what} vs float64")
        if native is not None:
            close(got, native[key], tdtype, 2 if key == "y" else 4, ulp, f"{what} vs torch bfloat16")

    nan = 0x7e00 if dt == HALF else 0x7fc0
    one = 0x3c00 if dt == HALF else 0x3f80
    for algo in range(8):
        ws = workspace(ws_fwd, handle.ptr, tx.ptr, tw.ptr, cd.ptr, ty.ptr, algo)
        if ws is None:
            continue
        for alpha, beta in ((1.0, 0.0), (0.5, 2.0)):
            y = layout_like(nan if beta == 0 else one, tuple(y_shape))
            st = fwd(handle.ptr, scalar(alpha), tx.ptr, ptr(xm), tw.ptr, ptr(wm), cd.ptr, algo, ptr(ws[0]), ws[1],
                     scalar(beta), ty.ptr, ptr(y))
            R.check(st == fdnn.SUCCESS, f"{tag} fwd algo {algo}: status {st}")
            ran.add((cname, "fwd", algo))
            want = alpha * oracle["y"] + beta
            # TRUE_HALF rounds the sum, then the blend: two roundings.
            ulps = 2 if compute == HALF and beta != 0 else 1
            close(nchw(y), want, tdtype, ulps, ulp, f"{tag} fwd algo {algo} a{alpha} b{beta} vs float64")
            if native is not None and beta == 0:
                close(nchw(y), native["y"], tdtype, 2, ulp, f"{tag} fwd algo {algo} vs torch bfloat16")
    for algo in range(6):
        ws = workspace(ws_bwd_data, handle.ptr, tw.ptr, ty.ptr, cd.ptr, tx.ptr, algo)
        if ws is None:
            continue
        dx = layout_like(nan, tuple(x.shape))
        st = bwd_data(handle.ptr, scalar(1.0), tw.ptr, ptr(wm), ty.ptr, ptr(dym), cd.ptr, algo, ptr(ws[0]), ws[1],
                      scalar(0.0), tx.ptr, ptr(dx))
        R.check(st == fdnn.SUCCESS, f"{tag} bwd data algo {algo}: status {st}")
        ran.add((cname, "bwd data", algo))
        compare(nchw(dx), "dx", f"{tag} bwd data algo {algo}")
    for algo in range(7):
        ws = workspace(ws_bwd_filter, handle.ptr, tx.ptr, ty.ptr, cd.ptr, tw.ptr, algo)
        if ws is None:
            continue
        dwm = np.full(wm.shape, nan, dtype=np.uint16)
        st = bwd_filter(handle.ptr, scalar(1.0), tx.ptr, ptr(xm), ty.ptr, ptr(dym), cd.ptr, algo, ptr(ws[0]), ws[1],
                        scalar(0.0), tw.ptr, ptr(dwm))
        R.check(st == fdnn.SUCCESS, f"{tag} bwd filter algo {algo}: status {st}")
        ran.add((cname, "bwd filter", algo))
        compare(nchw(filt_out(dwm)), "dw", f"{tag} bwd filter algo {algo}")
    db = np.full((1, k) + (1,) * len(spatial), nan, dtype=np.uint16)
    tb = Tensor(db, dt)
    st = bwd_bias(handle.ptr, scalar(1.0), ty.ptr, ptr(dym), scalar(0.0), tb.ptr, ptr(db))
    R.check(st == fdnn.SUCCESS, f"{tag} bias: status {st}")
    close(db.reshape(-1), db64, tdtype, 1, ulp, f"{tag} bias vs float64")


CASES = [
    # name, n, c, k, spatial, kernel, pad, stride, dilation, groups, flip
    ("resnet-like 3x3", 2, 16, 32, (14, 14), (3, 3), (1, 1), (1, 1), (1, 1), 1, False),
    ("stem 7x7 s2", 1, 3, 8, (23, 23), (7, 7), (3, 3), (2, 2), (1, 1), 1, False),
    ("grouped dilated conv-mode", 2, 6, 9, (11, 10), (3, 2), (2, 1), (1, 2), (2, 1), 3, True),
    ("depthwise s2", 2, 8, 8, (12, 12), (3, 3), (1, 1), (2, 2), (1, 1), 8, False),
    ("conv3d", 2, 3, 4, (6, 7, 5), (3, 3, 3), (1, 1, 1), (1, 2, 1), (1, 1, 1), 1, True),
    ("fft tiles 5x5", 1, 4, 6, (40, 38), (5, 5), (2, 2), (1, 1), (1, 1), 1, True),
    # A 1-D problem (H = 1): backward-filter FFT_TILING applies there.
    ("fft 1-D", 2, 3, 4, (1, 70), (1, 7), (0, 3), (1, 1), (1, 1), 1, False),
]

for args in CASES:
    for config in CONFIGS:
        for nhwc in (False, True):
            case(*args, config, nhwc)
# Every algorithm ran in some configuration (FFT and Winograd included).
for d, count in (("fwd", 8), ("bwd data", 6), ("bwd filter", 7)):
    for algo in range(count):
        if d == "bwd filter" and algo == 4:  # WINOGRAD: not implemented (nor in cuDNN)
            continue
        R.check(any((c[0], d, algo) in ran for c in CONFIGS), f"{d} algo {algo} never ran")
R.finish()
