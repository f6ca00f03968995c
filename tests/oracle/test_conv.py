# SPDX-License-Identifier: Apache-2.0
"""Convolution against PyTorch: forward (conv2d/conv3d, conv1d as H=1),
backward data (conv_transpose / autograd input gradient), backward filter and
bias (autograd), NCHW and NHWC tensors, groups, stride, padding, dilation,
CONVOLUTION mode (flipped kernel), alpha/beta, float and double, every
implemented algorithm (the Winograd ones must run wherever cuDNN 8.9 lists
them), 1 and 2 threads."""
import ctypes

import numpy as np
import torch

import fdnn
from fdnn import check, int_array, proto, ptr, scalar, vp

torch.manual_seed(0)
rng = np.random.default_rng(0)

create_f = proto("cudnnCreateFilterDescriptor", [ctypes.POINTER(vp)])
destroy_f = proto("cudnnDestroyFilterDescriptor", [vp])
set_f = proto("cudnnSetFilterNdDescriptor", [vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, fdnn.c_int_p])
create_c = proto("cudnnCreateConvolutionDescriptor", [ctypes.POINTER(vp)])
destroy_c = proto("cudnnDestroyConvolutionDescriptor", [vp])
set_c = proto("cudnnSetConvolutionNdDescriptor",
              [vp, ctypes.c_int, fdnn.c_int_p, fdnn.c_int_p, fdnn.c_int_p, ctypes.c_int, ctypes.c_int])
set_groups = proto("cudnnSetConvolutionGroupCount", [vp, ctypes.c_int])
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

R = fdnn.Results("test_conv")
ran = set()  # (direction, algo) pairs that ran at least once
handles = {t: fdnn.Handle(threads=t) for t in (1, 2)}


class Filter:
    def __init__(self, arr, nhwc):
        self.ptr = vp()
        check(create_f(ctypes.byref(self.ptr)), "cudnnCreateFilterDescriptor")
        check(set_f(self.ptr, fdnn.DTYPE[arr.dtype], fdnn.NHWC if nhwc else fdnn.NCHW, arr.ndim,
                    int_array(list(arr.shape))), "cudnnSetFilterNdDescriptor")

    def __del__(self):
        destroy_f(self.ptr)


class Conv:
    def __init__(self, pad, stride, dil, groups, flip, dtype):
        self.ptr = vp()
        check(create_c(ctypes.byref(self.ptr)), "cudnnCreateConvolutionDescriptor")
        n = len(pad)
        check(set_c(self.ptr, n, int_array(pad), int_array(stride), int_array(dil), 0 if flip else 1,
                    fdnn.DTYPE[np.dtype(dtype)]), "cudnnSetConvolutionNdDescriptor")
        check(set_groups(self.ptr, groups), "cudnnSetConvolutionGroupCount")

    def __del__(self):
        destroy_c(self.ptr)


def channels_last(a):
    """A copy of a (N, C, spatial...) array whose memory is channels-last."""
    perm = [0] + list(range(2, a.ndim)) + [1]
    inv = np.argsort(perm)
    return np.ascontiguousarray(a.transpose(perm)).transpose(inv)


def filter_memory(w, nhwc):
    """The filter's buffer in the storage order its format names."""
    if nhwc:
        perm = [0] + list(range(2, w.ndim)) + [1]
        return np.ascontiguousarray(w.transpose(perm))
    return np.ascontiguousarray(w)


def workspace(fn, *args):
    size = ctypes.c_size_t(0)
    st = fn(*args, ctypes.byref(size))
    if st == fdnn.NOT_SUPPORTED:
        return None
    check(st, fn.__name__)
    return np.zeros(max(size.value, 1), dtype=np.uint8), size.value


# The Winograd algorithms per direction (fwd, bwd data, bwd filter), with
# the filter sizes each applies to (cuDNN 8.9: 2-D, FLOAT, stride 1,
# dilation 1).  Where they apply they must run, not decline.
WINOGRAD = ({6: ((3, 3),), 7: ((3, 3), (5, 5))}, {4: ((3, 3),), 5: ((3, 3), (5, 5))}, {5: ((3, 3), (5, 5))})


def winograd_must_run(direction, algo, spatial, ker, stride, dil, dtype):
    sizes = WINOGRAD[direction].get(algo)
    return (sizes is not None and len(spatial) == 2 and tuple(ker) in sizes and tuple(stride) == (1, 1)
            and tuple(dil) == (1, 1) and dtype == np.float32)


def case(name, n, c, k, spatial, ker, pad, stride, dil, groups, flip, dtype, nhwc):
    x = rng.uniform(-1, 1, (n, c) + spatial).astype(dtype)
    w = rng.uniform(-1, 1, (k, c // groups) + ker).astype(dtype)
    tx, tw = torch.from_numpy(x).requires_grad_(), torch.from_numpy(w).requires_grad_()
    tw_eff = torch.flip(tw, dims=list(range(2, w.ndim))) if flip else tw
    conv = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}[len(spatial)]
    ty = conv(tx, tw_eff, stride=stride, padding=pad, dilation=dil, groups=groups)
    dy = rng.uniform(-1, 1, tuple(ty.shape)).astype(dtype)
    ty.backward(torch.from_numpy(dy))
    want_y, want_dx, want_dw = ty.detach().numpy(), tx.grad.numpy(), tw.grad.numpy()
    want_db = dy.sum(axis=tuple(i for i in range(dy.ndim) if i != 1))

    # cuDNN takes 4-D or 5-D tensors: conv1d runs as H = 1.
    def lift(a):
        return a.reshape(a.shape[:2] + (1,) + a.shape[2:]) if len(spatial) == 1 else a

    lpad, lstride, ldil = (([0] if len(spatial) == 1 else []) + list(pad), ([1] if len(spatial) == 1 else [])
                           + list(stride), ([1] if len(spatial) == 1 else []) + list(dil))
    x4, w4, dy4, y4 = lift(x), lift(w), lift(dy), lift(want_y)
    layout = channels_last if nhwc else np.ascontiguousarray
    xm, dym = layout(x4), layout(dy4)
    wmem = filter_memory(w4, nhwc)
    xd, yd = fdnn.TensorDesc(xm), fdnn.TensorDesc(layout(np.zeros_like(y4)))
    wd = Filter(w4, nhwc)
    cd = Conv(lpad, lstride, ldil, groups, flip, dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    tag = f"{name} {np.dtype(dtype).name} {'nhwc' if nhwc else 'nchw'}"
    for threads, h in handles.items():
        for algo in range(8):
            ws = workspace(ws_fwd, h.ptr, xd.ptr, wd.ptr, cd.ptr, yd.ptr, algo)
            R.check(ws is not None or not winograd_must_run(0, algo, spatial, ker, stride, dil, dtype),
                    f"{tag} fwd algo {algo} declined")
            if ws is None:
                continue
            for alpha, beta in ((1.0, 0.0), (0.5, 2.0)):
                y = layout(np.full(y4.shape, np.nan if beta == 0 else 1.0, dtype=dtype))
                st = fwd(h.ptr, scalar(alpha, dtype), xd.ptr, ptr(xm), wd.ptr, ptr(wmem), cd.ptr, algo, ptr(ws[0]),
                         ws[1], scalar(beta, dtype), yd.ptr, ptr(y))
                R.check(st == fdnn.SUCCESS, f"{tag} fwd algo {algo}: status {st}")
                ran.add(("fwd", algo))
                R.close(tol, y, alpha * y4 + (beta if beta else 0.0), f"{tag} fwd algo {algo} t{threads} a{alpha}")
        for algo in range(6):
            ws = workspace(ws_bwd_data, h.ptr, wd.ptr, yd.ptr, cd.ptr, xd.ptr, algo)
            R.check(ws is not None or not winograd_must_run(1, algo, spatial, ker, stride, dil, dtype),
                    f"{tag} bwd data algo {algo} declined")
            if ws is None:
                continue
            dx = layout(np.full(x4.shape, np.nan, dtype=dtype))
            st = bwd_data(h.ptr, scalar(1.0, dtype), wd.ptr, ptr(wmem), yd.ptr, ptr(dym), cd.ptr, algo, ptr(ws[0]),
                          ws[1], scalar(0.0, dtype), xd.ptr, ptr(dx))
            R.check(st == fdnn.SUCCESS, f"{tag} bwd data algo {algo}: status {st}")
            ran.add(("bwd data", algo))
            R.close(tol, dx, lift(want_dx), f"{tag} bwd data algo {algo} t{threads}")
        for algo in range(7):
            ws = workspace(ws_bwd_filter, h.ptr, xd.ptr, yd.ptr, cd.ptr, wd.ptr, algo)
            R.check(ws is not None or not winograd_must_run(2, algo, spatial, ker, stride, dil, dtype),
                    f"{tag} bwd filter algo {algo} declined")
            if ws is None:
                continue
            dwmem = np.full(wmem.shape, np.nan, dtype=dtype)
            st = bwd_filter(h.ptr, scalar(1.0, dtype), xd.ptr, ptr(xm), yd.ptr, ptr(dym), cd.ptr, algo, ptr(ws[0]),
                            ws[1], scalar(0.0, dtype), wd.ptr, ptr(dwmem))
            R.check(st == fdnn.SUCCESS, f"{tag} bwd filter algo {algo}: status {st}")
            ran.add(("bwd filter", algo))
            R.close(tol * 10, dwmem, filter_memory(lift(want_dw), nhwc), f"{tag} bwd filter algo {algo} t{threads}")
        db = np.full((1, k) + (1,) * (x4.ndim - 2), np.nan, dtype=dtype)
        dbd = fdnn.TensorDesc(db)
        st = bwd_bias(h.ptr, scalar(1.0, dtype), yd.ptr, ptr(dym), scalar(0.0, dtype), dbd.ptr, ptr(db))
        R.check(st == fdnn.SUCCESS, f"{tag} bias: status {st}")
        R.close(tol * 10, db.reshape(-1), want_db, f"{tag} bias t{threads}")


CASES = [
    # name, n, c, k, spatial, kernel, pad, stride, dilation, groups, flip
    ("resnet-like 3x3", 2, 16, 32, (14, 14), (3, 3), (1, 1), (1, 1), (1, 1), 1, False),
    ("stem 7x7 s2", 1, 3, 8, (23, 23), (7, 7), (3, 3), (2, 2), (1, 1), 1, False),
    ("1x1 s2", 2, 8, 16, (9, 9), (1, 1), (0, 0), (2, 2), (1, 1), 1, False),
    ("grouped dilated conv-mode", 2, 6, 9, (11, 10), (3, 2), (2, 1), (1, 2), (2, 1), 3, True),
    ("depthwise", 2, 8, 8, (12, 12), (3, 3), (1, 1), (2, 2), (1, 1), 8, False),
    ("fashion 5x5", 4, 1, 6, (28, 28), (5, 5), (2, 2), (1, 1), (1, 1), 1, False),
    ("fc as conv", 5, 8, 10, (7, 7), (7, 7), (0, 0), (1, 1), (1, 1), 1, False),
    ("conv1d", 3, 4, 5, (19,), (3,), (1,), (2,), (1,), 1, False),
    ("conv3d", 2, 3, 4, (6, 7, 5), (3, 3, 3), (1, 1, 1), (1, 2, 1), (1, 1, 1), 1, True),
    ("N=1 C=1 1x1", 1, 1, 1, (1, 1), (1, 1), (0, 0), (1, 1), (1, 1), 1, False),
    # FFT / FFT_TILING: several 32-point tiles, a strided tiled forward, a
    # 1-D problem (backward-filter FFT_TILING), a 3-D stride-1 problem.
    ("fft tiles 5x5", 2, 4, 6, (45, 38), (5, 5), (2, 2), (1, 1), (1, 1), 1, True),
    ("fft tiled s2", 2, 3, 5, (40, 36), (3, 3), (1, 1), (2, 2), (1, 1), 1, False),
    ("fft conv1d", 2, 3, 4, (70,), (7,), (3,), (1,), (1,), 1, False),
    ("fft conv3d", 1, 2, 3, (5, 36, 6), (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), 1, False),
    # Winograd edges: no padding and channel counts off the kernels' blocks,
    # padding past r-1 (backward data pads by r-1-pad), groups in
    # CONVOLUTION mode with 5x5.
    ("winograd 3x3 pad0 wide", 2, 24, 40, (20, 19), (3, 3), (0, 0), (1, 1), (1, 1), 1, False),
    ("winograd 3x3 pad3 conv-mode", 1, 5, 7, (9, 11), (3, 3), (3, 2), (1, 1), (1, 1), 1, True),
    ("winograd 5x5 groups conv-mode", 2, 4, 6, (13, 12), (5, 5), (2, 4), (1, 1), (1, 1), 2, True),
    # Strided backward data on the blocked direct kernels (ALGO_0, one
    # forward convolution per stride phase): a res3-like 3x3 stride 2 over
    # 16+ channels, a kernel smaller than the stride (phases no tap reaches),
    # stride 3 with dilation 2 in CONVOLUTION mode, groups.
    ("polyphase 3x3 s2", 2, 20, 24, (15, 14), (3, 3), (1, 1), (2, 2), (1, 1), 1, False),
    ("polyphase 2x2 s3", 2, 17, 9, (13, 11), (2, 2), (0, 1), (3, 3), (1, 1), 1, False),
    ("polyphase 3x3 s3 dil2 groups conv-mode", 1, 18, 12, (16, 17), (3, 3), (2, 1), (3, 2), (2, 1), 2, True),
]

for args in CASES:
    for dtype in (np.float32, np.float64):
        for nhwc in (False, True):
            case(*args, dtype, nhwc)
# The FFT algorithms and the direct backward data ran (their applicability
# is tested in test_conv.c).
for want in [("fwd", 4), ("fwd", 5), ("bwd data", 0), ("bwd data", 2), ("bwd data", 3), ("bwd filter", 2),
             ("bwd filter", 6)]:
    R.check(want in ran, f"{want[0]} algo {want[1]} never ran")
R.finish()
