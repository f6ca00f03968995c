# SPDX-License-Identifier: Apache-2.0
"""cudnnMultiHeadAttnForward, and the training forward with
cudnnMultiHeadAttnBackwardData/Weights, against
torch.nn.functional.multi_head_attention_forward (separate Q/K/V projection
weights, biases, output projection) and its autograd, float64.

The weights are written the way an application does it: through the address
and the tensor descriptor (dims, strides) cudnnGetMultiHeadAttnWeights
returns, indexing [head, row, column] of each projection.  Attention windows
become torch's attn_mask, K/V sequence lengths its key_padding_mask; query
rows past their sequence length are not compared.  Residuals are added to
torch's output.  The backward: the gradients of sum(dout * out) over the
rows inside the lengths, for queries, keys, values and every weight and
bias (read back through the same descriptors), with NaN in every padding
row of the inputs and of dout (which must not reach a result) and NaN in the
gradients' padding rows (which must not be written); WGRAD_MODE_ADD on top
of SET doubles dweights.  1 and 2 threads.  The backward cases run again
in DOUBLE (dataType = computePrec = DOUBLE) to 1e-10.

Dropout (attnDropoutDesc and postDropoutDesc, DOUBLE): the gradients of
backward data and weights against central differences of training forwards
that replay the same masks (both descriptors set again with their seeds
before each forward), and the fraction of outputs the post dropout zeroes
(p within 4 standard deviations)."""
import ctypes

import numpy as np
import torch

import fdnn

vp, c_int_p, c_int = fdnn.vp, fdnn.c_int_p, ctypes.c_int
create_attn = fdnn.proto("cudnnCreateAttnDescriptor", [ctypes.POINTER(vp)])
destroy_attn = fdnn.proto("cudnnDestroyAttnDescriptor", [vp])
set_attn = fdnn.proto("cudnnSetAttnDescriptor", [vp, ctypes.c_uint, c_int, ctypes.c_double, c_int, c_int, c_int, vp,
                                                 vp] + [c_int] * 11)
buffers = fdnn.proto("cudnnGetMultiHeadAttnBuffers", [vp, vp, ctypes.POINTER(ctypes.c_size_t),
                                                      ctypes.POINTER(ctypes.c_size_t), vp])
get_w = fdnn.proto("cudnnGetMultiHeadAttnWeights", [vp, vp, c_int, ctypes.c_size_t, vp, vp, ctypes.POINTER(vp)])
create_seq = fdnn.proto("cudnnCreateSeqDataDescriptor", [ctypes.POINTER(vp)])
destroy_seq = fdnn.proto("cudnnDestroySeqDataDescriptor", [vp])
set_seq = fdnn.proto("cudnnSetSeqDataDescriptor", [vp, c_int, c_int, c_int_p, c_int_p, ctypes.c_size_t, c_int_p, vp])
create_tensor = fdnn.proto("cudnnCreateTensorDescriptor", [ctypes.POINTER(vp)])
get_nd = fdnn.proto("cudnnGetTensorNdDescriptor", [vp, c_int, c_int_p, c_int_p, c_int_p, c_int_p])
forward = fdnn.proto("cudnnMultiHeadAttnForward", [vp, vp, c_int, c_int_p, c_int_p, c_int_p, c_int_p, vp, vp, vp, vp,
                                                   vp, vp, vp, vp, vp, ctypes.c_size_t, vp, ctypes.c_size_t, vp,
                                                   ctypes.c_size_t, vp])
bwd_data = fdnn.proto("cudnnMultiHeadAttnBackwardData", [vp, vp, c_int_p, c_int_p, c_int_p, c_int_p, vp, vp, vp, vp, vp,
                                                         vp, vp, vp, vp, vp, vp, ctypes.c_size_t, vp, ctypes.c_size_t,
                                                         vp, ctypes.c_size_t, vp])
bwd_weights = fdnn.proto("cudnnMultiHeadAttnBackwardWeights", [vp, vp, c_int, vp, vp, vp, vp, vp, vp, vp, vp,
                                                               ctypes.c_size_t, vp, vp, ctypes.c_size_t, vp,
                                                               ctypes.c_size_t, vp])
create_drop = fdnn.proto("cudnnCreateDropoutDescriptor", [ctypes.POINTER(vp)])
destroy_drop = fdnn.proto("cudnnDestroyDropoutDescriptor", [vp])
drop_states_size = fdnn.proto("cudnnDropoutGetStatesSize", [vp, ctypes.POINTER(ctypes.c_size_t)])
set_drop = fdnn.proto("cudnnSetDropoutDescriptor", [vp, vp, ctypes.c_float, vp, ctypes.c_size_t,
                                                    ctypes.c_ulonglong])
WGRAD_ADD, WGRAD_SET = 0, 1
TIME, BATCH, BEAM, VECT = 0, 1, 2, 3


def seq_desc(T, N, E, lens, dt=0):
    d = vp()
    fdnn.check(create_seq(ctypes.byref(d)))
    dims = [0] * 4
    dims[TIME], dims[BATCH], dims[BEAM], dims[VECT] = T, N, 1, E
    fdnn.check(set_seq(d, dt, 4, fdnn.int_array(dims), fdnn.int_array([TIME, BATCH, BEAM, VECT]), N,
                       fdnn.int_array(lens), None), "set_seq")
    return d


def weight_view(h, attn, wbuf, kind):
    """wbuf's part `kind` as [head, row, col], through the address and descriptor."""
    wd, addr = vp(), vp()
    fdnn.check(create_tensor(ctypes.byref(wd)))
    fdnn.check(get_w(h.ptr, attn, kind, wbuf.nbytes, fdnn.ptr(wbuf), wd, ctypes.byref(addr)), "get_w")
    dt, nd = c_int(), c_int()
    dims, strides = (c_int * 3)(), (c_int * 3)()
    fdnn.check(get_nd(wd, 3, ctypes.byref(dt), ctypes.byref(nd), dims, strides), "get_nd")
    es = wbuf.itemsize
    off = (addr.value - fdnn.ptr(wbuf).value) // es
    return np.lib.stride_tricks.as_strided(wbuf[off:], shape=tuple(dims), strides=tuple(es * s for s in strides))


def write_weight(h, attn, wbuf, kind, logical):
    view = weight_view(h, attn, wbuf, kind)
    assert view.shape == logical.shape, (view.shape, logical.shape)
    view[...] = logical


def backward(res, rng, h, threads, dtype=np.float32):
    """Training forward, backward data and weights vs torch autograd."""
    dt, es = (1, 8) if dtype == np.float64 else (0, 4)
    tol = 1e-10 if dt else 1e-4
    for (H, E, L, S, N) in ((4, 32, 10, 12, 3), (2, 8, 5, 7, 2), (1, 4, 1, 1, 1), (8, 64, 70, 20, 2)):
        P = E // H
        q, k, v = (rng.uniform(-1, 1, (T, N, E)) for T in (L, S, S))
        wq, wk, wv, wo = (rng.uniform(-0.4, 0.4, (E, E)) for _ in range(4))
        bq, bk, bv, bo = (rng.uniform(-0.2, 0.2, E) for _ in range(4))
        dout = rng.uniform(-1, 1, (L, N, E))
        lq = [int(x) for x in rng.integers(1, L + 1, N)]
        lk = [int(x) for x in rng.integers(1, S + 1, N)]
        lo = [min(int(rng.integers(0, S)), min(lk) - 1) for _ in range(L)]
        hi = [int(rng.integers(lo[t] + 1, S + 1)) for t in range(L)]
        for b in range(N):  # padding rows: zero for torch, NaN for FreeDNN (must not matter)
            q[lq[b]:, b] = 0
            dout[lq[b]:, b] = 0
            k[lk[b]:, b] = 0
            v[lk[b]:, b] = 0

        attn = vp()
        fdnn.check(create_attn(ctypes.byref(attn)))
        fdnn.check(set_attn(attn, 2, H, 1.0 / np.sqrt(P), dt, dt, 0, None, None, E, E, E, P, P, P, E, L, S, N, 1),
                   "set_attn")
        wsize, wssize, rssize = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
        fdnn.check(buffers(h.ptr, attn, ctypes.byref(wsize), ctypes.byref(wssize), ctypes.byref(rssize)), "buffers")
        res.check(rssize.value > 0, "a training reserve size")
        wbuf = np.full(wsize.value // es, np.nan, dtype)
        for kind, w in enumerate((wq, wk, wv)):
            write_weight(h, attn, wbuf, kind, w.reshape(H, P, E))
        write_weight(h, attn, wbuf, 3, wo.reshape(E, H, P).transpose(1, 0, 2))
        for kind, b in zip((4, 5, 6), (bq, bk, bv)):
            write_weight(h, attn, wbuf, kind, b.reshape(H, P, 1))
        write_weight(h, attn, wbuf, 7, bo.reshape(1, E, 1))

        def ours(a, lens):
            a = a.astype(dtype)
            for b in range(N):
                a[lens[b]:, b] = np.nan
            return a

        qf, kf, vf, df = ours(q, lq), ours(k, lk), ours(v, lk), ours(dout, lq)
        qd, kd, vd, od = (seq_desc(T, N, E, ln, dt) for T, ln in ((L, lq), (S, lk), (S, lk), (L, lq)))
        out = np.full((L, N, E), np.nan, dtype)
        ws = np.empty(max(wssize.value // 4, 1), np.float32)
        rs = np.full(rssize.value // 4, np.nan, np.float32)
        dq, dk, dv = (np.full(a.shape, np.nan, dtype) for a in (q, k, v))
        dw = np.full(wbuf.shape, np.nan, dtype)
        lo_a, hi_a, lq_a, lk_a = (fdnn.int_array(x) for x in (lo, hi, lq, lk))
        what = f"backward {np.dtype(dtype).name} threads {threads} H{H} E{E} L{L} S{S} N{N}"
        st = forward(h.ptr, attn, -1, lo_a, hi_a, lq_a, lk_a, qd, fdnn.ptr(qf), None, kd, fdnn.ptr(kf), vd,
                     fdnn.ptr(vf), od, fdnn.ptr(out), wsize.value, fdnn.ptr(wbuf), wssize.value, fdnn.ptr(ws),
                     rssize.value, fdnn.ptr(rs))
        res.check(st == fdnn.SUCCESS, f"training forward status {st}: {what}")
        st = bwd_data(h.ptr, attn, lo_a, hi_a, lq_a, lk_a, od, fdnn.ptr(df), qd, fdnn.ptr(dq), fdnn.ptr(qf), kd,
                      fdnn.ptr(dk), fdnn.ptr(kf), vd, fdnn.ptr(dv), fdnn.ptr(vf), wsize.value, fdnn.ptr(wbuf),
                      wssize.value, fdnn.ptr(ws), rssize.value, fdnn.ptr(rs))
        res.check(st == fdnn.SUCCESS, f"backward data status {st}: {what}")
        st = bwd_weights(h.ptr, attn, WGRAD_SET, qd, fdnn.ptr(qf), kd, fdnn.ptr(kf), vd, fdnn.ptr(vf), od,
                         fdnn.ptr(df), wsize.value, fdnn.ptr(wbuf), fdnn.ptr(dw), wssize.value, fdnn.ptr(ws),
                         rssize.value, fdnn.ptr(rs))
        res.check(st == fdnn.SUCCESS, f"backward weights status {st}: {what}")
        dw_set = dw.copy()
        st = bwd_weights(h.ptr, attn, WGRAD_ADD, qd, fdnn.ptr(qf), kd, fdnn.ptr(kf), vd, fdnn.ptr(vf), od,
                         fdnn.ptr(df), wsize.value, fdnn.ptr(wbuf), fdnn.ptr(dw), wssize.value, fdnn.ptr(ws),
                         rssize.value, fdnn.ptr(rs))
        res.check(st == fdnn.SUCCESS, f"backward weights (ADD) status {st}: {what}")

        # torch: the same model in float64 from the float32 values FreeDNN saw
        t = lambda a: torch.tensor(np.asarray(a, dtype), dtype=torch.float64, requires_grad=True)
        tq, tk, tv, twq, twk, twv, two, tbo = (t(a) for a in (q, k, v, wq, wk, wv, wo, bo))
        tb = t(np.concatenate([bq, bk, bv]))
        mask = torch.full((L, S), float("-inf"), dtype=torch.float64)
        for i in range(L):
            mask[i, lo[i]:hi[i]] = 0
        pad = torch.tensor([[j >= lk[b] for j in range(S)] for b in range(N)])
        want, _ = torch.nn.functional.multi_head_attention_forward(
            tq, tk, tv, E, H, None, tb, None, None, False, 0.0, two, tbo, training=True, key_padding_mask=pad,
            need_weights=False, attn_mask=mask, use_separate_proj_weight=True, q_proj_weight=twq, k_proj_weight=twk,
            v_proj_weight=twv)
        for b in range(N):  # the training forward's output as well
            res.close(tol * 0.2, out[:lq[b], b].astype(np.float64), want.detach().numpy()[:lq[b], b],
                      f"{what} out batch {b}")
        keep = torch.tensor([[[1.0] if i < lq[b] else [0.0] for b in range(N)] for i in range(L)], dtype=torch.float64)
        (want * keep * torch.tensor(np.asarray(dout, dtype), dtype=torch.float64)).sum().backward()
        for name, got, ref, lens in (("dq", dq, tq, lq), ("dk", dk, tk, lk), ("dv", dv, tv, lk)):
            g = ref.grad.numpy()
            for b in range(N):
                res.close(tol, got[:lens[b], b].astype(np.float64), g[:lens[b], b], f"{what} {name} batch {b}")
                res.check(np.isnan(got[lens[b]:, b]).all(), f"{what} {name} rows past the length untouched")
        gb = tb.grad.numpy()
        parts = ((0, twq.grad.numpy().reshape(H, P, E)), (1, twk.grad.numpy().reshape(H, P, E)),
                 (2, twv.grad.numpy().reshape(H, P, E)), (3, two.grad.numpy().reshape(E, H, P).transpose(1, 0, 2)),
                 (4, gb[:E].reshape(H, P, 1)), (5, gb[E:2 * E].reshape(H, P, 1)), (6, gb[2 * E:].reshape(H, P, 1)),
                 (7, tbo.grad.numpy().reshape(1, E, 1)))
        for kind, g in parts:
            got = weight_view(h, attn, dw_set, kind).astype(np.float64)
            res.close(tol, got, g, f"{what} weight kind {kind}")
            added = weight_view(h, attn, dw, kind).astype(np.float64)
            res.close(tol, added, 2 * g, f"{what} weight kind {kind} (ADD)")
        for d in (qd, kd, vd, od):
            destroy_seq(d)
        destroy_attn(attn)


class DropoutAttn:
    """A DOUBLE attention (Q/K/V/O projections with biases, full windows and
    lengths) with attention dropout pa and post dropout pp; forward()
    replays the same masks on every call."""

    def __init__(self, h, rng, H, E, L, S, N, pa, pp):
        self.h, self.L, self.S, self.N, self.E = h, L, S, N, E
        P = E // H
        ssize = ctypes.c_size_t()
        fdnn.check(drop_states_size(h.ptr, ctypes.byref(ssize)))
        self.drops, self.states, self.rates = [], [], (pa, pp)
        for i in range(2):
            d = vp()
            fdnn.check(create_drop(ctypes.byref(d)))
            st = np.zeros(ssize.value, np.uint8)
            self.drops.append(d), self.states.append(st)
        self.reset()
        self.attn = vp()
        fdnn.check(create_attn(ctypes.byref(self.attn)))
        fdnn.check(set_attn(self.attn, 2, H, 1.0 / np.sqrt(P), 1, 1, 0, self.drops[0], self.drops[1], E, E, E, P, P,
                            P, E, L, S, N, 1), "set_attn")
        wsize, wssize, rssize = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
        fdnn.check(buffers(h.ptr, self.attn, ctypes.byref(wsize), ctypes.byref(wssize), ctypes.byref(rssize)))
        self.w = rng.uniform(-0.5, 0.5, wsize.value // 8)
        self.ws = np.empty(max(wssize.value // 8, 1))
        self.rs = np.empty(rssize.value // 8 + 1)
        self.q, self.k, self.v = (rng.uniform(-1, 1, (T, N, E)) for T in (L, S, S))
        self.dout = rng.uniform(-1, 1, (L, N, E))
        self.lq, self.lk = fdnn.int_array([L] * N), fdnn.int_array([S] * N)
        self.lo, self.hi = fdnn.int_array([0] * L), fdnn.int_array([S] * L)
        self.qd, self.kd, self.vd, self.od = (seq_desc(T, N, E, [T] * N, 1) for T in (L, S, S, L))

    def reset(self):
        for d, st, p, seed in zip(self.drops, self.states, self.rates, (11, 12)):
            fdnn.check(set_drop(d, self.h.ptr, p, fdnn.ptr(st), st.nbytes, seed), "cudnnSetDropoutDescriptor")

    def forward(self):
        self.reset()
        out = np.full((self.L, self.N, self.E), np.nan)
        P = fdnn.ptr
        fdnn.check(forward(self.h.ptr, self.attn, -1, self.lo, self.hi, self.lq, self.lk, self.qd, P(self.q), None,
                           self.kd, P(self.k), self.vd, P(self.v), self.od, P(out), self.w.nbytes, P(self.w),
                           self.ws.nbytes, P(self.ws), self.rs.nbytes, P(self.rs)), "training forward")
        return out

    def loss(self):
        return float(np.sum(self.forward() * self.dout))

    def grads(self):
        self.forward()
        P = fdnn.ptr
        dq, dk, dv, dw = (np.full(a.shape, np.nan) for a in (self.q, self.k, self.v, self.w))
        fdnn.check(bwd_data(self.h.ptr, self.attn, self.lo, self.hi, self.lq, self.lk, self.od, P(self.dout),
                            self.qd, P(dq), P(self.q), self.kd, P(dk), P(self.k), self.vd, P(dv), P(self.v),
                            self.w.nbytes, P(self.w), self.ws.nbytes, P(self.ws), self.rs.nbytes, P(self.rs)))
        fdnn.check(bwd_weights(self.h.ptr, self.attn, WGRAD_SET, self.qd, P(self.q), self.kd, P(self.k), self.vd,
                               P(self.v), self.od, P(self.dout), self.w.nbytes, P(self.w), P(dw), self.ws.nbytes,
                               P(self.ws), self.rs.nbytes, P(self.rs)))
        return {"q": dq, "k": dk, "v": dv, "w": dw}

    def close(self):
        for d in (self.qd, self.kd, self.vd, self.od):
            destroy_seq(d)
        destroy_attn(self.attn)
        for d in self.drops:
            destroy_drop(d)


def dropout(res, rng, h, threads):
    a = DropoutAttn(h, rng, 2, 8, 5, 6, 2, 0.3, 0.4)
    g = a.grads()
    for name in ("q", "k", "v", "w"):
        x = getattr(a, name).reshape(-1)
        idx = rng.choice(x.size, size=min(x.size, 24), replace=False)
        want = []
        for i in idx:
            keep = x[i]
            x[i] = keep + 1e-6
            lp = a.loss()
            x[i] = keep - 1e-6
            lm = a.loss()
            x[i] = keep
            want.append((lp - lm) / 2e-6)
        res.close(1e-6, g[name].reshape(-1)[idx], np.array(want),
                  f"dropout threads {threads}: d{name} vs central differences")
    a.close()
    # The fraction of outputs the post dropout zeroes (no attention dropout).
    p = 0.3
    b = DropoutAttn(h, rng, 2, 16, 64, 8, 4, 0.0, p)
    out = b.forward()
    f, sd = np.mean(out == 0.0), np.sqrt(p * (1 - p) / out.size)
    res.check(abs(f - p) < 4 * sd, f"post dropout p {p}: fraction zeroed {f:.4f} ({out.size} outputs)")
    b.close()


def main():
    res = fdnn.Results("oracle_attn")
    rng = np.random.default_rng(3)
    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        for (H, E, L, S, N, resid) in ((4, 32, 10, 12, 3, True), (2, 8, 5, 7, 2, False), (1, 4, 1, 1, 1, True),
                                       (8, 64, 16, 16, 2, False)):
            P = E // H
            q = rng.uniform(-1, 1, (L, N, E)).astype(np.float32)
            k = rng.uniform(-1, 1, (S, N, E)).astype(np.float32)
            v = rng.uniform(-1, 1, (S, N, E)).astype(np.float32)
            wq, wk, wv, wo = (rng.uniform(-0.4, 0.4, (E, E)).astype(np.float32) for _ in range(4))
            bq, bk, bv, bo = (rng.uniform(-0.2, 0.2, E).astype(np.float32) for _ in range(4))
            lq = [int(x) for x in rng.integers(1, L + 1, N)]
            lk = [int(x) for x in rng.integers(1, S + 1, N)]
            lo = [int(rng.integers(0, S)) for _ in range(L)]
            hi = [int(rng.integers(lo[t] + 1, S + 1)) for t in range(L)]
            # every window must meet every sequence (torch gives NaN for empty rows)
            lo = [min(x, min(lk) - 1) for x in lo]

            attn = vp()
            fdnn.check(create_attn(ctypes.byref(attn)))
            fdnn.check(set_attn(attn, 2, H, 1.0 / np.sqrt(P), 0, 0, 0, None, None, E, E, E, P, P, P, E, L, S, N, 1),
                       "set_attn")
            wsize, wssize = ctypes.c_size_t(), ctypes.c_size_t()
            fdnn.check(buffers(h.ptr, attn, ctypes.byref(wsize), ctypes.byref(wssize), None), "buffers")
            wbuf = np.full(wsize.value // 4, np.nan, np.float32)
            for kind, w in enumerate((wq, wk, wv)):
                write_weight(h, attn, wbuf, kind, w.reshape(H, P, E))
            write_weight(h, attn, wbuf, 3, wo.reshape(E, H, P).transpose(1, 0, 2))
            for kind, b in zip((4, 5, 6), (bq, bk, bv)):
                write_weight(h, attn, wbuf, kind, b.reshape(H, P, 1))
            write_weight(h, attn, wbuf, 7, bo.reshape(1, E, 1))
            res.check(not np.isnan(wbuf).any(), "every weight element written through the descriptors")

            qd, kd, vd, od = seq_desc(L, N, E, lq), seq_desc(S, N, E, lk), seq_desc(S, N, E, lk), seq_desc(L, N, E, lq)
            out = np.full((L, N, E), np.nan, np.float32)
            ws = np.empty(max(wssize.value // 4, 1), np.float32)
            r = rng.uniform(-1, 1, (L, N, E)).astype(np.float32) if resid else None
            st = forward(h.ptr, attn, -1, fdnn.int_array(lo), fdnn.int_array(hi), fdnn.int_array(lq),
                         fdnn.int_array(lk), qd, fdnn.ptr(q), fdnn.ptr(r) if resid else None, kd, fdnn.ptr(k), vd,
                         fdnn.ptr(v), od, fdnn.ptr(out), wsize.value, fdnn.ptr(wbuf), wssize.value, fdnn.ptr(ws), 0,
                         None)
            what = f"threads {threads} H{H} E{E} L{L} S{S} N{N}"
            res.check(st == fdnn.SUCCESS, f"status {st}: {what}")

            t = lambda a: torch.tensor(a, dtype=torch.float64)
            mask = torch.full((L, S), float("-inf"), dtype=torch.float64)
            for i in range(L):
                mask[i, lo[i]:hi[i]] = 0
            pad = torch.tensor([[j >= lk[b] for j in range(S)] for b in range(N)])
            want, _ = torch.nn.functional.multi_head_attention_forward(
                t(q), t(k), t(v), E, H, None, torch.cat([t(bq), t(bk), t(bv)]), None, None, False, 0.0, t(wo), t(bo),
                training=False, key_padding_mask=pad, need_weights=False, attn_mask=mask,
                use_separate_proj_weight=True, q_proj_weight=t(wq), k_proj_weight=t(wk), v_proj_weight=t(wv))
            want = want.numpy() + (r.astype(np.float64) if resid else 0)
            for b in range(N):
                res.close(2e-5, out[:lq[b], b].astype(np.float64), want[:lq[b], b], f"{what} batch {b}")
                res.check(np.isnan(out[lq[b]:, b]).all(), f"rows past the sequence untouched: {what} batch {b}")
            for d in (qd, kd, vd, od):
                destroy_seq(d)
            destroy_attn(attn)
        backward(res, rng, h, threads)
        backward(res, rng, h, threads, np.float64)
        dropout(res, rng, h, threads)
    res.finish()


if __name__ == "__main__":
    main()
