# SPDX-License-Identifier: Apache-2.0
"""cudnnRNNForward, cudnnRNNBackwardData_v8 and cudnnRNNBackwardWeights_v8
on HALF and BFLOAT16 data (math precision FLOAT, and HALF for HALF data)
against torch.nn.LSTM / GRU / RNN.

PyTorch runs in float64 on the inputs and weights rounded to the tested
type (CPU half LSTMs do not run in this torch), autograd for the gradients.
FreeDNN's outputs, each rounded once from FP32, must be within the
rounding of the type: |got - want| <= u |want| + 1e-4 (1 + |want|) for
FLOAT math precision (u = 2^-11 HALF, 2^-8 BFLOAT16), 4 u T (1 + |want|)
for HALF math precision (docs/numerics.md).  For BFLOAT16 the same module
also runs in torch.bfloat16 on the CPU (every op rounded to bfloat16):
FreeDNN's largest error must be no larger than that run's plus u.
BFLOAT16 data on a CPU with AVX512-BF16 takes its products in bfloat16
(vdpbf16ps, docs/numerics.md): its tolerance adds 2 T 2^-9 (1 + |want|)
for the FP32 operands (h, gradients) rounded to bfloat16 as read.

The setup (weight views through cudnnGetRNNWeightParams, user layouts)
is test_rnn.py's."""
import ctypes
import os

import numpy as np
import torch

import fdnn
import test_rnn as R

HALF, BF16, FLOAT = 2, 9, 0
TORCH = {HALF: torch.float16, BF16: torch.bfloat16}
UNIT = {HALF: 2.0 ** -11, BF16: 2.0 ** -8}


def bf16_products(dt):
    """The rule of fdnn_rnn_bf16_products for the default math type."""
    if dt != BF16 or os.environ.get("FREEDNN_MAX_ISA", "").lower() not in ("", "avx512"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            return "avx512_bf16" in f.read()
    except OSError:
        return False


def rounded(a, dt):
    """a (float64) rounded to dt: the 16-bit bits (uint16) and the float64 values."""
    t = torch.tensor(np.asarray(a, np.float64)).to(torch.float32).to(TORCH[dt])
    return t.view(torch.int16).numpy().view(np.uint16).copy(), t.to(torch.float64).numpy()


def widen(bits, dt):
    return torch.from_numpy(np.ascontiguousarray(bits).view(np.int16)).view(TORCH[dt]).to(torch.float64).numpy()


def poison(shape):
    return np.full(shape, 0xFFFF, np.uint16)  # NaN in HALF and BFLOAT16


def run(res, handle, rng, cell, layers, bidir, layout, lens, T, inp, hidden, dt, mp, tag, proj=0):
    B, dirs = len(lens), 2 if bidir else 1
    Ph = proj if proj else hidden
    u = UNIT[dt]
    torch.manual_seed(int(rng.integers(1 << 30)))
    mod = R.torch_module(cell, inp, hidden, layers, bidir, proj)
    rnn = fdnn.vp()
    fdnn.check(R.create_rnn(ctypes.byref(rnn)))
    fdnn.check(R.set_rnn(rnn, 0, cell, 2, 1 if bidir else 0, 0, dt, mp, 0, inp, hidden, Ph, layers, None,
                         R.PADDED_IO), "cudnnSetRNNDescriptor_v8")
    wbytes, wsb, rsb = R.sz(), R.sz(), R.sz()
    fdnn.check(R.wsize(handle.ptr, rnn, ctypes.byref(wbytes)))
    xd, yd = R.data_desc(layout, T, B, inp, lens, dt), R.data_desc(layout, T, B, dirs * Ph, lens, dt)
    fdnn.check(R.tsizes(handle.ptr, rnn, 1, xd, ctypes.byref(wsb), ctypes.byref(rsb)))
    w = poison(wbytes.value // 2)
    views = R.weight_views(handle, rnn, layers, dirs, cell, w.view(np.float16), proj > 0)
    params = dict(mod.named_parameters())
    for p in params.values():  # torch computes with the rounded weights
        p.data = torch.tensor(rounded(p.detach().numpy(), dt)[1])
    for name, gate, is_bias, off in views:
        blk = params[name].detach().numpy()[gate * hidden:(gate + 1) * hidden]
        w[off:off + blk.size] = rounded(blk.reshape(-1), dt)[0]
    res.check(not np.any(w == 0xFFFF), f"{tag}: weight space covered")

    def rnd(shape):
        return rounded(rng.uniform(-1, 1, shape), dt)[1]

    x, hx, cx = rnd((T, B, inp)), rnd((layers * dirs, B, Ph)), rnd((layers * dirs, B, hidden))
    dy, dhy, dcy = rnd((T, B, dirs * Ph)), rnd(hx.shape), rnd(cx.shape)

    def torch_run(module, tdtype):
        xt = torch.tensor(x, dtype=tdtype, requires_grad=True)
        ht = torch.tensor(hx, dtype=tdtype, requires_grad=True)
        ct = torch.tensor(cx, dtype=tdtype, requires_grad=True)
        packed = torch.nn.utils.rnn.pack_padded_sequence(xt, torch.tensor(lens), enforce_sorted=False)
        out, st = module(packed, (ht, ct) if cell == R.LSTM else ht)
        yt, _ = torch.nn.utils.rnn.pad_packed_sequence(out, total_length=T)
        hyt, cyt = (st if cell == R.LSTM else (st, None))
        mask = torch.tensor(np.array([[t < n for n in lens] for t in range(T)])[:, :, None], dtype=tdtype)
        loss = (yt * mask * torch.tensor(dy, dtype=tdtype)).sum() + (hyt * torch.tensor(dhy, dtype=tdtype)).sum()
        if cell == R.LSTM:
            loss = loss + (cyt * torch.tensor(dcy, dtype=tdtype)).sum()
        loss.backward()
        f64 = lambda t: t.detach().to(torch.float64).numpy()  # noqa: E731
        out = {"y": f64(yt), "hy": f64(hyt), "dx": f64(xt.grad), "dhx": f64(ht.grad)}
        if cell == R.LSTM:
            out.update(cy=f64(cyt), dcx=f64(ct.grad))
        for name, gate, is_bias, off in views:
            out[f"d{name}{gate}"] = f64(dict(module.named_parameters())[name].grad)[gate * hidden:(gate + 1) *
                                                                                      hidden].reshape(-1)
        return out

    want = torch_run(mod, torch.float64)
    ref16 = None
    if dt == BF16:
        mod16 = R.torch_module(cell, inp, hidden, layers, bidir, proj)
        mod16.load_state_dict(mod.state_dict())
        mod16 = mod16.to(torch.bfloat16)
        ref16 = torch_run(mod16, torch.bfloat16)

    bits = lambda a: rounded(a, dt)[0]  # noqa: E731
    ux, udy = bits(R.to_user(x, layout, lens, np.float64)), bits(R.to_user(dy, layout, lens, np.float64))
    bhx, bcx, bdhy, bdcy = bits(hx), bits(cx), bits(dhy), bits(dcy)
    uy, udx = poison(ux.shape[:-1] + (dirs * Ph,)), poison(ux.shape)
    hy, cy, dhx, dcx = poison(hx.shape), poison(cx.shape), poison(hx.shape), poison(cx.shape)
    dw = np.zeros(w.shape, np.uint16)  # +0 in both types: ADD onto zero
    ws = np.empty(max(wsb.value // 4, 1), np.float32)
    rs = np.empty(max(rsb.value // 4, 1), np.float32)
    lens_c = fdnn.int_array(lens)
    P = fdnn.ptr
    hd, cd = hdesc3(hx.shape, dt), hdesc3(cx.shape, dt)
    fdnn.check(R.forward(handle.ptr, rnn, 1, lens_c, xd, P(ux), yd, P(uy), hd, P(bhx), P(hy), cd, P(bcx), P(cy),
                         w.nbytes, P(w), ws.nbytes, P(ws), rs.nbytes, P(rs)), "cudnnRNNForward")
    fdnn.check(R.bwd_data(handle.ptr, rnn, lens_c, yd, P(uy), P(udy), xd, P(udx), hd, P(bhx), P(bdhy), P(dhx), cd,
                          P(bcx), P(bdcy), P(dcx), w.nbytes, P(w), ws.nbytes, P(ws), rs.nbytes, P(rs)),
               "cudnnRNNBackwardData_v8")
    fdnn.check(R.bwd_w(handle.ptr, rnn, 0, lens_c, xd, P(ux), hd, P(bhx), yd, P(uy), w.nbytes, P(dw), ws.nbytes,
                       P(ws), rs.nbytes, P(rs)), "cudnnRNNBackwardWeights_v8")

    ygot, valid = R.from_user(widen(uy, dt), layout, lens, T, B)
    dxgot, _ = R.from_user(widen(udx, dt), layout, lens, T, B)
    got = {"y": ygot, "hy": widen(hy, dt), "dx": dxgot, "dhx": widen(dhx, dt)}
    if cell == R.LSTM:
        got.update(cy=widen(cy, dt), dcx=widen(dcx, dt))
    for name, gate, is_bias, off in views:
        n = want[f"d{name}{gate}"].size
        got[f"d{name}{gate}"] = widen(dw[off:off + n], dt)
    sel = lambda k, a: a[valid] if k in ("y", "dx") else a  # noqa: E731
    worst, worst16 = 0.0, 0.0
    for k in want:
        g, wv = sel(k, got[k]), sel(k, want[k])
        if mp == FLOAT:
            prod = 2 * T * 2.0 ** -9 if bf16_products(dt) else 1e-4
            err = np.abs(g - wv) / (u * np.abs(wv) + prod * (1 + np.abs(wv)))
        else:
            err = np.abs(g - wv) / (4 * u * T * (1 + np.abs(wv)))
        e = float(np.max(err)) if err.size else 0.0
        res.check(np.isfinite(e) and e <= 1, f"{tag}: {k} off torch float64 ({e:.3g} of the tolerance)")
        rel = np.abs(g - wv) / (1 + np.abs(wv))
        worst = max(worst, float(np.max(rel)) if rel.size else 0.0)
        if ref16 is not None:
            r16 = np.abs(sel(k, ref16[k]) - wv) / (1 + np.abs(wv))
            worst16 = max(worst16, float(np.max(r16)) if r16.size else 0.0)
    res.check(bool(np.all(np.isnan(widen(uy, dt)[~valid_user(layout, lens, T, B)]))), f"{tag}: y padding untouched")
    if ref16 is not None:
        res.check(worst <= worst16 + u, f"{tag}: error {worst:.3g}, torch bfloat16's {worst16:.3g}")
    R.destroy_data(xd), R.destroy_data(yd), R.destroy_rnn(rnn)


def valid_user(layout, lens, T, B):
    """Mask of the user rows that are inside the sequences."""
    if layout == R.SEQ_PACKED:
        return np.ones(sum(lens), bool)
    m = np.array([[t < lens[b] for b in range(B)] for t in range(T)])
    return m if layout == R.SEQ_UNPACKED else m.T


_keep = []


def hdesc3(shape, dt):
    d = fdnn.vp()
    fdnn.check(fdnn._create_tensor(ctypes.byref(d)))
    dims = list(shape)
    fdnn.check(fdnn._set_nd(d, dt, 3, fdnn.int_array(dims), fdnn.int_array([dims[1] * dims[2], dims[2], 1])))
    _keep.append(d)
    return d


def main():
    res = fdnn.Results("oracle_rnn_half")
    rng = np.random.default_rng(16)
    h = fdnn.Handle(threads=2)
    for dt, mp in ((HALF, FLOAT), (HALF, HALF), (BF16, FLOAT)):
        for cell in (R.LSTM, R.GRU, R.TANH, R.RELU):
            run(res, h, rng, cell, 2, True, R.SEQ_UNPACKED, [5, 5, 5], 5, 4, 3, dt, mp, f"dt {dt}/{mp} cell {cell}")
            run(res, h, rng, cell, 1, False, R.BATCH_UNPACKED, [2, 6, 1, 4], 6, 7, 5, dt, mp,
                f"dt {dt}/{mp} cell {cell} varlen")
            run(res, h, rng, cell, 2, True, R.SEQ_PACKED, [4, 4, 2, 1], 4, 3, 4, dt, mp,
                f"dt {dt}/{mp} cell {cell} packed")
        run(res, h, rng, R.LSTM, 2, True, R.BATCH_UNPACKED, [3, 5, 1], 5, 4, 5, dt, mp, f"dt {dt}/{mp} proj",
            proj=3)
    for d in _keep:
        fdnn._destroy_tensor(d)
    res.finish()


if __name__ == "__main__":
    main()
