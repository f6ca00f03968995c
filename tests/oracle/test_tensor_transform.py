# SPDX-License-Identifier: Apache-2.0
"""cudnnTransformTensorEx against PyTorch: folding as torch.pixel_unshuffle
(square folds) or a reshape + permute (any folds), with the channel order
cuDNN uses (phase-major: channel = phase * C + c, where pixel_unshuffle
gives c * f*f + phase); unfolding as torch.pixel_shuffle; padding and
cropping (negative pads) as F.pad; NCHW and NHWC on either side; alpha and
beta; float32 and float64; 1 or 2 threads."""
import ctypes
import itertools

import numpy as np
import torch
import torch.nn.functional as F

import fdnn

vp = fdnn.vp
i32p = ctypes.POINTER(ctypes.c_int32)
u32p = ctypes.POINTER(ctypes.c_uint32)
create_t = fdnn.proto("cudnnCreateTensorTransformDescriptor", [ctypes.POINTER(vp)])
set_t = fdnn.proto("cudnnSetTensorTransformDescriptor", [vp, ctypes.c_uint32, ctypes.c_int, i32p, i32p, u32p,
                                                          ctypes.c_int])
destroy_t = fdnn.proto("cudnnDestroyTensorTransformDescriptor", [vp])
transform_ex = fdnn.proto("cudnnTransformTensorEx", [vp, vp, vp, vp, vp, vp, vp, vp])

FOLD, UNFOLD = 0, 1


def fold_oracle(x, fh, fw, pb, pa):
    """cuDNN's fold of x (N, C, H, W): pad N, H, W (F.pad, negative crops),
    round H, W up to whole folds, cut into fh x fw blocks, channel
    pb[1] + (i * fw + j) * C + c; C padded around that block."""
    t = torch.from_numpy(x)
    t = F.pad(t, (pb[3], pa[3], pb[2], pa[2], 0, 0, pb[0], pa[0]))
    n, c, h, w = t.shape
    hf, wf = -(-h // fh), -(-w // fw)
    t = F.pad(t, (0, wf * fw - w, 0, hf * fh - h))
    if fh == fw:
        # pixel_unshuffle orders channels c * f*f + phase; cuDNN phase * C + c.
        u = F.pixel_unshuffle(t, fh).reshape(n, c, fh * fw, hf, wf).transpose(1, 2)
    else:
        u = t.reshape(n, c, hf, fh, wf, fw).permute(0, 3, 5, 1, 2, 4)
    u = u.reshape(n, fh * fw * c, hf, wf)
    co = (c + pb[1] + pa[1]) * fh * fw
    return F.pad(u, (0, 0, 0, 0, pb[1], co - pb[1] - fh * fw * c)).numpy()


def unfold_oracle(y, fh, fw, pb, pa):
    """cuDNN's unfold of y (N, C*fh*fw, Hf, Wf) with C pads 0: the inverse
    block arrangement (pixel_shuffle for square folds), then F.pad."""
    t = torch.from_numpy(y)
    n, cf, hf, wf = t.shape
    c = cf // (fh * fw)
    if fh == fw:
        u = F.pixel_shuffle(t.reshape(n, fh * fw, c, hf, wf).transpose(1, 2).reshape(n, cf, hf, wf), fh)
    else:
        u = t.reshape(n, fh, fw, c, hf, wf).permute(0, 3, 4, 1, 5, 2).reshape(n, c, hf * fh, wf * fw)
    return F.pad(u, (pb[3], pa[3], pb[2], pa[2], 0, 0, pb[0], pa[0])).numpy()


def store(x, nhwc):
    if not nhwc:
        return np.ascontiguousarray(x)
    v = fdnn.nhwc_view(x.shape, x.dtype)
    v[...] = x
    return v


def run(res, h, tr, x, out_shape, dtype, nhwc_out, alpha, beta, prior, what):
    xd = fdnn.TensorDesc(x)
    y = fdnn.nhwc_view(out_shape, dtype) if nhwc_out else np.empty(out_shape, dtype=dtype)
    y[...] = prior
    yd = fdnn.TensorDesc(y)
    st = transform_ex(h.ptr, tr, fdnn.scalar(alpha, dtype), xd.ptr, fdnn.ptr(x), fdnn.scalar(beta, dtype), yd.ptr,
                      fdnn.ptr(y))
    res.check(st == fdnn.SUCCESS, f"{what}: status {st}")
    return np.array(y)


def main():
    res = fdnn.Results("oracle_tensor_transform")
    rng = np.random.default_rng(11)
    tr = vp()
    fdnn.check(create_t(ctypes.byref(tr)), "create")
    tol = {np.float32: 2e-6, np.float64: 1e-12}
    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        cases = itertools.product((np.float32, np.float64), ((2, 2), (3, 3), (2, 3), (1, 4)),
                                  (False, True), (False, True), range(3))
        for dtype, (fh, fw), nhwc_in, nhwc_out, k in cases:
            n, c = int(rng.integers(1, 3)), int(rng.integers(1, 6))
            hh, ww = int(rng.integers(2, 12)), int(rng.integers(2, 12))
            pb = [int(rng.integers(0, 2)), int(rng.integers(0, 2))] + [int(v) for v in rng.integers(-1, 3, 2)]
            pa = [int(rng.integers(0, 2)), int(rng.integers(0, 2))] + [int(v) for v in rng.integers(-1, 3, 2)]
            if hh + pb[2] + pa[2] < 1 or ww + pb[3] + pa[3] < 1:
                continue
            x = store(rng.uniform(-3, 3, size=(n, c, hh, ww)).astype(dtype), nhwc_in)
            alpha, beta = (1.0, 0.0) if k == 0 else (float(rng.uniform(-2, 2)), 0.0 if k == 1 else 0.5)
            fdnn.check(set_t(tr, 4, 0, (ctypes.c_int32 * 4)(*pb), (ctypes.c_int32 * 4)(*pa),
                             (ctypes.c_uint32 * 2)(fh, fw), FOLD), "set fold")
            want = fold_oracle(np.array(x), fh, fw, pb, pa)
            prior = rng.uniform(-1, 1, size=want.shape).astype(dtype) if beta else np.nan
            what = f"fold {fh}x{fw} {np.dtype(dtype).name} {x.shape} pads {pb}/{pa} nhwc {nhwc_in}->{nhwc_out}"
            got = run(res, h, tr, x, want.shape, dtype, nhwc_out, alpha, beta, prior, what)
            full = alpha * want + (beta * prior if beta else 0)
            res.close(tol[dtype], got.astype(np.float64), full.astype(dtype).astype(np.float64), what)
            # Unfold a fold without channel padding, then pad / crop.
            y = store(fold_oracle(np.array(x), fh, fw, [0, 0, 0, 0], [0, 0, 0, 0]), nhwc_out)
            ub = [pb[0], 0, pb[2], pb[3]]
            ua = [pa[0], 0, pa[2], pa[3]]
            want_u = unfold_oracle(np.array(y), fh, fw, ub, ua)
            fdnn.check(set_t(tr, 4, 0, (ctypes.c_int32 * 4)(*ub), (ctypes.c_int32 * 4)(*ua),
                             (ctypes.c_uint32 * 2)(fh, fw), UNFOLD), "set unfold")
            prior = rng.uniform(-1, 1, size=want_u.shape).astype(dtype) if beta else np.nan
            what = f"unfold {fh}x{fw} {np.dtype(dtype).name} {y.shape} pads {ub}/{ua}"
            got = run(res, h, tr, y, want_u.shape, dtype, nhwc_in, alpha, beta, prior, what)
            full = alpha * want_u + (beta * prior if beta else 0)
            res.close(tol[dtype], got.astype(np.float64), full.astype(dtype).astype(np.float64), what)
    destroy_t(tr)
    res.finish()


if __name__ == "__main__":
    main()
