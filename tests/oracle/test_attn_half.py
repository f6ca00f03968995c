# SPDX-License-Identifier: Apache-2.0
"""cudnnMultiHeadAttnForward (training), cudnnMultiHeadAttnBackwardData and
cudnnMultiHeadAttnBackwardWeights on HALF and BFLOAT16 data (compute FLOAT,
and HALF for HALF data) against torch.nn.functional.multi_head_attention_forward
and its autograd.

Torch runs in float64 on the inputs and weights rounded to the tested type;
FreeDNN's outputs (FP32 inside, rounded once) must be within
u |want| + 1e-4 (1 + |want|) for FLOAT compute (u = 2^-11 HALF, 2^-8
BFLOAT16) and 8 u (1 + |want|) for HALF compute (docs/numerics.md).  For
BFLOAT16 torch also runs in torch.bfloat16 on the CPU: FreeDNN's largest
error must be no larger than that run's plus u.  BFLOAT16 data on a CPU
with AVX512-BF16 takes its products in bfloat16 (docs/numerics.md): its
FLOAT-compute tolerance adds 24 2^-9 (1 + |want|) (the weight and value
gradients sum 140 terms here, through the softmax backward's
cancellation; worst seen 0.034, torch.bfloat16 0.041).  Padding rows of the inputs
hold NaN (must not reach a result); the gradients' padding rows must stay
untouched.  The setup (weights through cudnnGetMultiHeadAttnWeights'
descriptors, windows as attn_mask, lengths as key_padding_mask) is
test_attn.py's."""
import ctypes
import os

import numpy as np
import torch

import fdnn
import test_attn as A

HALF, BF16, FLOAT = 2, 9, 0
TORCH = {HALF: torch.float16, BF16: torch.bfloat16}
UNIT = {HALF: 2.0 ** -11, BF16: 2.0 ** -8}
NAN16 = 0xFFFF


def bf16_products(dt):
    """The rule of fdnn_attn_bf16_products for the default math type."""
    if dt != BF16 or os.environ.get("FREEDNN_MAX_ISA", "").lower() not in ("", "avx512"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            return "avx512_bf16" in f.read()
    except OSError:
        return False


def rounded(a, dt):
    t = torch.tensor(np.asarray(a, np.float64)).to(torch.float32).to(TORCH[dt])
    return t.view(torch.int16).numpy().view(np.uint16).copy(), t.to(torch.float64).numpy()


def widen(bits, dt):
    return torch.from_numpy(np.ascontiguousarray(bits).view(np.int16)).view(TORCH[dt]).to(torch.float64).numpy()


def torch_attn(q, k, v, ws, lens, lo, hi, dout, tdtype):
    """out and the gradients of sum(out * dout * keep) in tdtype."""
    (wq, wk, wv, wo, bq, bk, bv, bo), (lq, lk) = ws, lens
    L, N, E = q.shape
    S = k.shape[0]
    t = lambda a: torch.tensor(a, dtype=tdtype, requires_grad=True)  # noqa: E731
    tq, tk, tv, twq, twk, twv, two, tbo = (t(a) for a in (q, k, v, wq, wk, wv, wo, bo))
    tb = t(np.concatenate([bq, bk, bv]))
    mask = torch.full((L, S), float("-inf"), dtype=tdtype)
    for i in range(L):
        mask[i, lo[i]:hi[i]] = 0
    pad = torch.tensor([[j >= lk[b] for j in range(S)] for b in range(N)])
    out, _ = torch.nn.functional.multi_head_attention_forward(
        tq, tk, tv, E, torch_attn.heads, None, tb, None, None, False, 0.0, two, tbo, training=True,
        key_padding_mask=pad, need_weights=False, attn_mask=mask, use_separate_proj_weight=True, q_proj_weight=twq,
        k_proj_weight=twk, v_proj_weight=twv)
    keep = torch.tensor([[[1.0] if i < lq[b] else [0.0] for b in range(N)] for i in range(L)], dtype=tdtype)
    (out * keep * torch.tensor(dout, dtype=tdtype)).sum().backward()
    f = lambda x: x.detach().to(torch.float64).numpy()  # noqa: E731
    gb = f(tb.grad)
    return {"out": f(out), "dq": f(tq.grad), "dk": f(tk.grad), "dv": f(tv.grad), "wq": f(twq.grad),
            "wk": f(twk.grad), "wv": f(twv.grad), "wo": f(two.grad), "bq": gb[:E], "bk": gb[E:2 * E],
            "bv": gb[2 * E:], "bo": f(tbo.grad)}


def case(res, rng, h, dt, cp, H, E, L, S, N):
    u, P = UNIT[dt], E // H
    rnd = lambda shape, r: rounded(rng.uniform(-r, r, shape), dt)[1]  # noqa: E731
    q, k, v = (rnd((T, N, E), 1) for T in (L, S, S))
    ws = [rnd((E, E), 0.4) for _ in range(4)] + [rnd(E, 0.2) for _ in range(4)]
    dout = rnd((L, N, E), 1)
    lq = [int(x) for x in rng.integers(1, L + 1, N)]
    lk = [int(x) for x in rng.integers(1, S + 1, N)]
    lo = [min(int(rng.integers(0, S)), min(lk) - 1) for _ in range(L)]
    hi = [int(rng.integers(lo[t] + 1, S + 1)) for t in range(L)]
    for b in range(N):
        q[lq[b]:, b] = dout[lq[b]:, b] = 0
        k[lk[b]:, b] = v[lk[b]:, b] = 0

    attn = A.vp()
    fdnn.check(A.create_attn(ctypes.byref(attn)))
    fdnn.check(A.set_attn(attn, 2, H, 1.0 / np.sqrt(P), dt, cp, 0, None, None, E, E, E, P, P, P, E, L, S, N, 1),
               "set_attn")
    wsize, wssize, rssize = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
    fdnn.check(A.buffers(h.ptr, attn, ctypes.byref(wsize), ctypes.byref(wssize), ctypes.byref(rssize)), "buffers")
    wbuf = np.full(wsize.value // 2, NAN16, np.uint16)
    wq, wk, wv, wo, bq, bk, bv, bo = (rounded(a, dt)[0] for a in ws)
    for kind, w in enumerate((wq, wk, wv)):
        A.write_weight(h, attn, wbuf, kind, w.reshape(H, P, E))
    A.write_weight(h, attn, wbuf, 3, wo.reshape(E, H, P).transpose(1, 0, 2))
    for kind, b in zip((4, 5, 6), (bq, bk, bv)):
        A.write_weight(h, attn, wbuf, kind, b.reshape(H, P, 1))
    A.write_weight(h, attn, wbuf, 7, bo.reshape(1, E, 1))

    def ours(a, lens):
        bits = rounded(a, dt)[0]
        for b in range(N):
            bits[lens[b]:, b] = NAN16
        return bits

    qf, kf, vf, df = ours(q, lq), ours(k, lk), ours(v, lk), ours(dout, lq)
    qd, kd, vd, od = (A.seq_desc(T, N, E, ln, dt) for T, ln in ((L, lq), (S, lk), (S, lk), (L, lq)))
    out = np.full((L, N, E), NAN16, np.uint16)
    wsp = np.empty(max(wssize.value // 4, 1), np.float32)
    rs = np.empty(rssize.value // 4 + 1, np.float32)
    dq, dk, dv = (np.full(a.shape, NAN16, np.uint16) for a in (q, k, v))
    dw = np.zeros(wbuf.shape, np.uint16)
    lo_a, hi_a, lq_a, lk_a = (fdnn.int_array(x) for x in (lo, hi, lq, lk))
    Pt = fdnn.ptr
    what = f"dt {dt}/{cp} H{H} E{E} L{L} S{S} N{N}"
    fdnn.check(A.forward(h.ptr, attn, -1, lo_a, hi_a, lq_a, lk_a, qd, Pt(qf), None, kd, Pt(kf), vd, Pt(vf), od,
                         Pt(out), wsize.value, Pt(wbuf), wssize.value, Pt(wsp), rssize.value, Pt(rs)), what)
    fdnn.check(A.bwd_data(h.ptr, attn, lo_a, hi_a, lq_a, lk_a, od, Pt(df), qd, Pt(dq), Pt(qf), kd, Pt(dk), Pt(kf), vd,
                          Pt(dv), Pt(vf), wsize.value, Pt(wbuf), wssize.value, Pt(wsp), rssize.value, Pt(rs)), what)
    fdnn.check(A.bwd_weights(h.ptr, attn, A.WGRAD_ADD, qd, Pt(qf), kd, Pt(kf), vd, Pt(vf), od, Pt(df), wsize.value,
                             Pt(wbuf), Pt(dw), wssize.value, Pt(wsp), rssize.value, Pt(rs)), what)

    torch_attn.heads = H
    want = torch_attn(q, k, v, ws, (lq, lk), lo, hi, dout, torch.float64)
    t16 = torch_attn(q, k, v, ws, (lq, lk), lo, hi, dout, torch.bfloat16) if dt == BF16 else None
    got = {"out": widen(out, dt), "dq": widen(dq, dt), "dk": widen(dk, dt), "dv": widen(dv, dt)}
    views = {"wq": (0, lambda g: g.reshape(E, E)), "wk": (1, lambda g: g.reshape(E, E)),
             "wv": (2, lambda g: g.reshape(E, E)), "wo": (3, lambda g: g.transpose(1, 0, 2).reshape(E, E)),
             "bq": (4, lambda g: g.reshape(E)), "bk": (5, lambda g: g.reshape(E)), "bv": (6, lambda g: g.reshape(E)),
             "bo": (7, lambda g: g.reshape(E))}
    for name, (kind, shape) in views.items():
        got[name] = shape(widen(np.ascontiguousarray(A.weight_view(h, attn, dw, kind)), dt))
    worst, worst16 = 0.0, 0.0
    for name in want:
        g, w = got[name], want[name]
        sel = None
        if name in ("out", "dq"):
            sel = np.array([[i < lq[b] for b in range(N)] for i in range(L)])
        elif name in ("dk", "dv"):
            sel = np.array([[i < lk[b] for b in range(N)] for i in range(S)])
        if sel is not None:
            if name != "out":
                res.check(bool(np.all(np.isnan(g[~sel]))), f"{what}: {name} padding rows untouched")
            g, w = g[sel], w[sel]
        if cp == FLOAT:
            prod = 24 * 2.0 ** -9 if bf16_products(dt) else 1e-4
            err = np.abs(g - w) / (u * np.abs(w) + prod * (1 + np.abs(w)))
        else:
            err = np.abs(g - w) / (8 * u * (1 + np.abs(w)))
        e = float(np.max(err))
        res.check(np.isfinite(e) and e <= 1, f"{what}: {name} off torch float64 ({e:.3g} of the tolerance)")
        worst = max(worst, float(np.max(np.abs(g - w) / (1 + np.abs(w)))))
        if t16 is not None:
            t = t16[name][sel] if sel is not None else t16[name]
            worst16 = max(worst16, float(np.max(np.abs(t - w) / (1 + np.abs(w)))))
    if t16 is not None:
        res.check(worst <= worst16 + u, f"{what}: error {worst:.3g}, torch bfloat16's {worst16:.3g}")
        if os.environ.get("FDNN_TEST_VERBOSE"):
            print(f"{what}: worst {worst:.3g}, torch bfloat16 {worst16:.3g}")
    for d in (qd, kd, vd, od):
        A.destroy_seq(d)
    A.destroy_attn(attn)


def main():
    res = fdnn.Results("oracle_attn_half")
    rng = np.random.default_rng(16)
    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        for dt, cp in ((HALF, FLOAT), (HALF, HALF), (BF16, FLOAT)):
            for (H, E, L, S, N) in ((4, 32, 10, 12, 3), (2, 8, 5, 7, 2), (8, 64, 70, 20, 2)):
                case(res, rng, h, dt, cp, H, E, L, S, N)
    res.finish()


if __name__ == "__main__":
    main()
