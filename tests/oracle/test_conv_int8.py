# SPDX-License-Identifier: Apache-2.0
"""Integer convolutions against PyTorch: INT8_CONFIG (NHWC), INT8x4_CONFIG
(NCHW_VECT_C) and INT8_EXT_CONFIG (FLOAT y) forward and bias-activation.
PyTorch convolves the integer values in float64 (every sum is exact there);
the epilogue is then applied in float32 as cuDNN specifies it for these
configurations (alpha * S + alpha2 * z + bias, ReLU, round half to even,
saturate), and FreeDNN must match bit for bit, with 1 and 2 threads."""
import ctypes

import numpy as np
import torch

import fdnn
from fdnn import check, int_array, proto, ptr, vp

rng = np.random.default_rng(13)

INT8, INT32, FLOAT, INT8x4 = 3, 4, 0, 5
NCHW, NHWC, VECT_C = 0, 1, 2
PRECOMP = 1  # CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM
RELU, IDENTITY = 1, 5

create_t = proto("cudnnCreateTensorDescriptor", [ctypes.POINTER(vp)])
set_t = proto("cudnnSetTensorNdDescriptorEx", [vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, fdnn.c_int_p])
create_f = proto("cudnnCreateFilterDescriptor", [ctypes.POINTER(vp)])
set_f = proto("cudnnSetFilterNdDescriptor", [vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, fdnn.c_int_p])
create_c = proto("cudnnCreateConvolutionDescriptor", [ctypes.POINTER(vp)])
set_c = proto("cudnnSetConvolutionNdDescriptor",
              [vp, ctypes.c_int, fdnn.c_int_p, fdnn.c_int_p, fdnn.c_int_p, ctypes.c_int, ctypes.c_int])
set_groups = proto("cudnnSetConvolutionGroupCount", [vp, ctypes.c_int])
create_a = proto("cudnnCreateActivationDescriptor", [ctypes.POINTER(vp)])
set_a = proto("cudnnSetActivationDescriptor", [vp, ctypes.c_int, ctypes.c_int, ctypes.c_double])
fwd = proto("cudnnConvolutionForward", [vp, vp, vp, vp, vp, vp, vp, ctypes.c_int, vp, ctypes.c_size_t, vp, vp, vp])
bias_act = proto("cudnnConvolutionBiasActivationForward",
                 [vp, vp, vp, vp, vp, vp, vp, ctypes.c_int, vp, ctypes.c_size_t, vp, vp, vp, vp, vp, vp, vp, vp])

R = fdnn.Results("test_conv_int8")
handles = {t: fdnn.Handle(threads=t) for t in (1, 2)}


def tensor(fmt, dtype, dims):
    d = vp()
    check(create_t(ctypes.byref(d)))
    check(set_t(d, fmt, dtype, len(dims), int_array(dims)), "cudnnSetTensorNdDescriptorEx")
    return d


def to_layout(a, layout):
    """The bytes of an NCHW integer array in NHWC or NCHW_VECT_C (4) order."""
    if layout == NHWC:
        return np.ascontiguousarray(a.transpose(0, 2, 3, 1))
    if layout == VECT_C:
        n, c, h, w = a.shape
        return np.ascontiguousarray(a.reshape(n, c // 4, 4, h, w).transpose(0, 1, 3, 4, 2))
    return np.ascontiguousarray(a)


def from_layout(b, layout, shape):
    n, c, h, w = shape
    if layout == NHWC:
        return b.reshape(n, h, w, c).transpose(0, 3, 1, 2)
    if layout == VECT_C:
        return b.reshape(n, c // 4, h, w, 4).transpose(0, 1, 4, 2, 3).reshape(n, c, h, w)
    return b.reshape(shape)


def epilogue(s, alpha, beta, z, bias, relu, out_float):
    v = np.float32(alpha) * s.astype(np.float32)
    if beta != 0:
        v = v + np.float32(beta) * z.astype(np.float32)
    if bias is not None:
        v = v + bias.reshape(1, -1, 1, 1)
    if relu:
        v = np.where(v > 0, v, np.float32(0))
    if out_float:
        return v.astype(np.float32)
    return np.clip(np.rint(v), -128, 127).astype(np.int8)


def case(cfg, n, c, k, g, hw, ks, pad, stride, dil, alpha, beta, biased, relu):
    vect = cfg == "INT8x4"
    layout = VECT_C if vect else NHWC
    dt = INT8x4 if vect else INT8
    out_float = cfg == "INT8_EXT"
    x = rng.integers(-128, 128, size=(n, c, hw, hw + 1), dtype=np.int8)
    w = rng.integers(-128, 128, size=(k, c // g, ks, ks), dtype=np.int8)
    s = torch.nn.functional.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)),
                                   stride=stride, padding=pad, dilation=dil, groups=g).numpy()
    assert np.abs(s).max() < 2 ** 31
    s = s.astype(np.int64)
    yshape = s.shape
    if out_float:
        z = (rng.integers(-4000, 4000, size=yshape) / 16).astype(np.float32)
    else:
        z = rng.integers(-128, 128, size=yshape, dtype=np.int8)
    bias = (rng.integers(-40000, 40000, size=k) / 64).astype(np.float32) if biased else None
    want = epilogue(s, alpha, beta, z, bias, relu, out_float)

    ylayout = NCHW if out_float else layout
    ydt = FLOAT if out_float else dt
    xd = tensor(layout, dt, list(x.shape))
    yd = tensor(ylayout, ydt, list(yshape))
    wd = vp()
    check(create_f(ctypes.byref(wd)))
    check(set_f(wd, dt, layout, 4, int_array(list(w.shape))), "cudnnSetFilterNdDescriptor")
    cd = vp()
    check(create_c(ctypes.byref(cd)))
    check(set_c(cd, 2, int_array([pad, pad]), int_array([stride, stride]), int_array([dil, dil]), 1, INT32),
          "cudnnSetConvolutionNdDescriptor")
    check(set_groups(cd, g))
    xb, wb = to_layout(x, layout), to_layout(w, layout)
    a, b = ctypes.c_float(alpha), ctypes.c_float(beta)
    what = f"{cfg} n{n} c{c} k{k} g{g} {hw} k{ks} p{pad} s{stride} d{dil} alpha {alpha} beta {beta}"
    for t, h in handles.items():
        zb = to_layout(z, ylayout).copy()
        if biased:
            bd = tensor(NCHW, FLOAT, [1, k, 1, 1])
            ad = vp()
            check(create_a(ctypes.byref(ad)))
            check(set_a(ad, RELU if relu else IDENTITY, 0, 0.0))
            yb = np.full(zb.shape, 0x5a if not out_float else np.nan, dtype=zb.dtype)
            check(bias_act(h.ptr, ctypes.byref(a), xd, ptr(xb), wd, ptr(wb), cd, PRECOMP, None, 0, ctypes.byref(b),
                           yd, ptr(zb), bd, ptr(bias), ad, yd, ptr(yb)), what)
        else:
            yb = zb if beta != 0 else np.full(zb.shape, 0x5a if not out_float else np.nan, dtype=zb.dtype)
            check(fwd(h.ptr, ctypes.byref(a), xd, ptr(xb), wd, ptr(wb), cd, PRECOMP, None, 0, ctypes.byref(b), yd,
                      ptr(yb)), what)
        got = from_layout(yb.reshape(-1), ylayout, yshape)
        R.check(np.array_equal(got.view(np.int32) if out_float else got,
                               want.view(np.int32) if out_float else want), f"{what} threads {t}")


for cfg in ("INT8", "INT8x4", "INT8_EXT"):
    case(cfg, 2, 16, 32, 1, 9, 3, 1, 1, 1, 0.015625, 0.0, False, False)
    case(cfg, 1, 32, 16, 2, 8, 3, 2, 2, 2, 0.01, 0.5, False, False)
    case(cfg, 2, 64, 64, 1, 14, 3, 1, 1, 1, 0.0078125, 0.75, True, True)
    case(cfg, 1, 8, 12, 1, 7, 1, 0, 1, 1, 1.0, 0.0, True, False)
raise SystemExit(R.finish())
