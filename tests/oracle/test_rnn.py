# SPDX-License-Identifier: Apache-2.0
"""cudnnRNNForward, cudnnRNNBackwardData_v8 and cudnnRNNBackwardWeights_v8
(FLOAT, and DOUBLE to 1e-10) against torch.nn.LSTM / GRU / RNN (float64,
autograd).  PyTorch's weights are
copied into the weight space through cudnnGetRNNWeightParams (gate order
LSTM i,f,g,o and GRU r,z,n in both libraries; bias_ih is the input bias,
bias_hh the recurrent one), and the weight gradients are read back through
the same addresses.  Variable lengths go through pack_padded_sequence.
Compared: y, hy, cy; dx, dhx, dcx; every weight and bias gradient.

The same cases run through the legacy *Ex calls (cudnnRNNForwardTrainingEx,
BackwardDataEx, BackwardWeightsEx: RNN data descriptors, a filter
descriptor over the weight space, dw accumulated onto zeros) with a padding
fill, checked in the padding of y and dx.

LSTM with a recurrent projection (projSize < hiddenSize) runs against
torch.nn.LSTM(proj_size=...): weight_hr is linLayerID 8 ([projSize,
hiddenSize], no bias), weight_hh is [4 hidden, projSize], h/y are projSize
wide and c hiddenSize wide."""
import ctypes

import numpy as np
import torch

import fdnn

vp, ci, sz = fdnn.vp, ctypes.c_int, ctypes.c_size_t
szp = ctypes.POINTER(sz)
create_rnn = fdnn.proto("cudnnCreateRNNDescriptor", [ctypes.POINTER(vp)])
destroy_rnn = fdnn.proto("cudnnDestroyRNNDescriptor", [vp])
set_rnn = fdnn.proto("cudnnSetRNNDescriptor_v8", [vp] + [ci] * 8 + [ci, ci, ci, ci, vp, ctypes.c_uint])
create_data = fdnn.proto("cudnnCreateRNNDataDescriptor", [ctypes.POINTER(vp)])
destroy_data = fdnn.proto("cudnnDestroyRNNDataDescriptor", [vp])
set_data = fdnn.proto("cudnnSetRNNDataDescriptor", [vp, ci, ci, ci, ci, ci, fdnn.c_int_p, vp])
wsize = fdnn.proto("cudnnGetRNNWeightSpaceSize", [vp, vp, szp])
tsizes = fdnn.proto("cudnnGetRNNTempSpaceSizes", [vp, vp, ci, vp, szp, szp])
wparams = fdnn.proto("cudnnGetRNNWeightParams", [vp, vp, ctypes.c_int32, sz, vp, ctypes.c_int32, vp,
                                                 ctypes.POINTER(vp), vp, ctypes.POINTER(vp)])
forward = fdnn.proto("cudnnRNNForward", [vp, vp, ci, fdnn.c_int_p, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp,
                                         sz, vp, sz, vp, sz, vp])
bwd_data = fdnn.proto("cudnnRNNBackwardData_v8", [vp, vp, fdnn.c_int_p, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp,
                                                  vp, vp, sz, vp, sz, vp, sz, vp])
bwd_w = fdnn.proto("cudnnRNNBackwardWeights_v8", [vp, vp, ci, fdnn.c_int_p, vp, vp, vp, vp, vp, vp, sz, vp, sz, vp,
                                                  sz, vp])
fwd_train_ex = fdnn.proto("cudnnRNNForwardTrainingEx", [vp] * 24 + [vp, sz, vp, sz])
bwd_data_ex = fdnn.proto("cudnnRNNBackwardDataEx", [vp] * 26 + [vp, sz, vp, sz])
bwd_w_ex = fdnn.proto("cudnnRNNBackwardWeightsEx", [vp] * 8 + [vp, sz, vp, vp, vp, sz])
create_filter = fdnn.proto("cudnnCreateFilterDescriptor", [ctypes.POINTER(vp)])
destroy_filter = fdnn.proto("cudnnDestroyFilterDescriptor", [vp])
set_filter = fdnn.proto("cudnnSetFilterNdDescriptor", [vp, ci, ci, ci, fdnn.c_int_p])

RELU, TANH, LSTM, GRU = 0, 1, 2, 3
GATES = {RELU: 1, TANH: 1, LSTM: 4, GRU: 3}
SEQ_UNPACKED, SEQ_PACKED, BATCH_UNPACKED = 0, 1, 2
PADDED_IO = 1


def torch_module(cell, inp, hidden, layers, bidir, proj=0):
    kw = dict(num_layers=layers, bidirectional=bidir, dtype=torch.float64)
    if cell == LSTM:
        return torch.nn.LSTM(inp, hidden, proj_size=proj, **kw)
    if cell == GRU:
        return torch.nn.GRU(inp, hidden, **kw)
    return torch.nn.RNN(inp, hidden, nonlinearity="relu" if cell == RELU else "tanh", **kw)


def weight_views(handle, rnn, layers, dirs, cell, wbuf, proj=False):
    """(torch parameter name, gate, is_bias, numpy view into wbuf) for every
    matrix and bias, from cudnnGetRNNWeightParams (and the projection,
    linLayerID 8, when proj)."""
    g = GATES[cell]
    out = []
    md, bd = fdnn.TensorDesc(np.zeros((1, 1, 1, 1), wbuf.dtype)), fdnn.TensorDesc(np.zeros((1, 1, 1, 1), wbuf.dtype))
    base = wbuf.ctypes.data
    for layer in range(layers):
        for d in range(dirs):
            suffix = f"_l{layer}" + ("_reverse" if d else "")
            for lin in range(2 * g):
                ma, ba = vp(), vp()
                fdnn.check(wparams(handle.ptr, rnn, layer * dirs + d, wbuf.nbytes, fdnn.ptr(wbuf), lin, md.ptr,
                                   ctypes.byref(ma), bd.ptr, ctypes.byref(ba)), "cudnnGetRNNWeightParams")
                kind = "ih" if lin < g else "hh"
                gate = lin % g
                for name, addr, is_bias in ((f"weight_{kind}{suffix}", ma.value, False),
                                            (f"bias_{kind}{suffix}", ba.value, True)):
                    out.append((name, gate, is_bias, (addr - base) // wbuf.itemsize))
            if proj:
                ma, ba = vp(), vp()
                fdnn.check(wparams(handle.ptr, rnn, layer * dirs + d, wbuf.nbytes, fdnn.ptr(wbuf), 8, md.ptr,
                                   ctypes.byref(ma), bd.ptr, ctypes.byref(ba)), "cudnnGetRNNWeightParams")
                assert ba.value is None, "the projection has no bias"
                out.append((f"weight_hr{suffix}", 0, False, (ma.value - base) // wbuf.itemsize))
    return out


def data_desc(layout, T, B, V, lens, dt=0, fill=None):
    d = vp()
    fdnn.check(create_data(ctypes.byref(d)))
    f = None if fill is None else ctypes.byref(ctypes.c_double(fill) if dt else ctypes.c_float(fill))
    fdnn.check(set_data(d, dt, layout, T, B, V, fdnn.int_array(lens), f), "cudnnSetRNNDataDescriptor")
    return d


def to_user(arr_tbv, layout, lens, dtype=np.float32):
    """[T][B][V] time-major padded to the user layout."""
    T, B, V = arr_tbv.shape
    if layout == SEQ_UNPACKED:
        return np.ascontiguousarray(arr_tbv, dtype)
    if layout == BATCH_UNPACKED:
        return np.ascontiguousarray(arr_tbv.transpose(1, 0, 2), dtype)
    rows = [arr_tbv[t, b] for t in range(T) for b in range(B) if t < lens[b]]
    return np.ascontiguousarray(np.stack(rows), dtype)


def from_user(user, layout, lens, T, B):
    V = user.shape[-1]
    out = np.zeros((T, B, V))
    valid = np.zeros((T, B), bool)
    r = 0
    for t in range(T):
        for b in range(B):
            if t < lens[b]:
                valid[t, b] = True
                if layout == SEQ_UNPACKED:
                    out[t, b] = user[t, b]
                elif layout == BATCH_UNPACKED:
                    out[t, b] = user[b, t]
                else:
                    out[t, b] = user[r]
                    r += 1
    return out, valid


def padding_is(user, layout, lens, T, fill):
    """Whether every padding vector of an unpacked user buffer holds fill."""
    pad = [user[t, b] if layout == SEQ_UNPACKED else user[b, t] for b in range(len(lens)) for t in range(lens[b], T)]
    return all(np.all(v == fill) for v in pad)


def run(res, handle, rng, cell, layers, bidir, layout, lens, T, inp, hidden, tag, dtype=np.float32, ex=False,
        proj=0):
    """ex: through the *Ex calls (with a padding fill of -3.5 in x/y);
    proj: LSTM projSize (0: none)."""
    B, dirs, g = len(lens), 2 if bidir else 1, GATES[cell]
    Ph = proj if proj else hidden
    dt = 1 if dtype == np.float64 else 0
    tol_f, tol_b = (1e-11, 1e-10) if dt else (2e-5, 1e-4)
    torch.manual_seed(int(rng.integers(1 << 30)))
    mod = torch_module(cell, inp, hidden, layers, bidir, proj)
    rnn = vp()
    fdnn.check(create_rnn(ctypes.byref(rnn)))
    fdnn.check(set_rnn(rnn, 0, cell, 2, 1 if bidir else 0, 0, dt, dt, 0, inp, hidden, Ph, layers, None, PADDED_IO),
               "cudnnSetRNNDescriptor_v8")
    wbytes, wsb, rsb = sz(), sz(), sz()
    fdnn.check(wsize(handle.ptr, rnn, ctypes.byref(wbytes)))
    fill = -3.5 if ex else None
    xd, yd = data_desc(layout, T, B, inp, lens, dt, fill), data_desc(layout, T, B, dirs * Ph, lens, dt, fill)
    fdnn.check(tsizes(handle.ptr, rnn, 1, xd, ctypes.byref(wsb), ctypes.byref(rsb)))
    w = np.full(wbytes.value // np.dtype(dtype).itemsize, np.nan, dtype)
    views = weight_views(handle, rnn, layers, dirs, cell, w, proj > 0)
    params = dict(mod.named_parameters())
    for name, gate, is_bias, off in views:
        p = params[name].detach().numpy()
        blk = p[gate * hidden:(gate + 1) * hidden]
        w[off:off + blk.size] = blk.reshape(-1)
    res.check(not np.isnan(w).any(), f"{tag}: weight space fully covered by the torch parameters")
    for p in params.values():  # torch computes with the weights rounded to the tested type
        p.data = torch.tensor(p.detach().numpy().astype(dtype).astype(np.float64))

    x = rng.uniform(-1, 1, (T, B, inp)).astype(dtype).astype(np.float64)
    hx = rng.uniform(-1, 1, (layers * dirs, B, Ph)).astype(dtype).astype(np.float64)
    cx = rng.uniform(-1, 1, (layers * dirs, B, hidden)).astype(dtype).astype(np.float64)
    dy = rng.uniform(-1, 1, (T, B, dirs * Ph)).astype(dtype).astype(np.float64)
    dhy = rng.uniform(-1, 1, hx.shape).astype(dtype).astype(np.float64)
    dcy = rng.uniform(-1, 1, cx.shape).astype(dtype).astype(np.float64)
    xt = torch.tensor(x, requires_grad=True)
    ht = torch.tensor(hx, requires_grad=True)
    ct = torch.tensor(cx, requires_grad=True)
    packed = torch.nn.utils.rnn.pack_padded_sequence(xt, torch.tensor(lens), enforce_sorted=False)
    out, st = mod(packed, (ht, ct) if cell == LSTM else ht)
    yt, _ = torch.nn.utils.rnn.pad_packed_sequence(out, total_length=T)
    hyt, cyt = (st if cell == LSTM else (st, None))
    mask = torch.tensor(np.array([[t < l for l in lens] for t in range(T)])[:, :, None], dtype=torch.float64)
    loss = (yt * mask * torch.tensor(dy)).sum() + (hyt * torch.tensor(dhy)).sum()
    if cell == LSTM:
        loss = loss + (cyt * torch.tensor(dcy)).sum()
    loss.backward()

    f32 = lambda a: np.ascontiguousarray(a, dtype)  # noqa: E731
    ux, udy = to_user(x, layout, lens, dtype), to_user(dy, layout, lens, dtype)
    uy = np.full((ux.shape[0], ux.shape[1], dirs * Ph) if ux.ndim == 3 else (ux.shape[0], dirs * Ph), np.nan, dtype)
    hy, cy = fdnn.poisoned(hx.shape, dtype), fdnn.poisoned(cx.shape, dtype)
    ws = np.empty(max(wsb.value // 4, 1), np.float32)
    rs = np.empty(max(rsb.value // 4, 1), np.float32)
    fhx, fcx, fdhy, fdcy = f32(hx), f32(cx), f32(dhy), f32(dcy)
    lens_c = fdnn.int_array(lens)
    P = fdnn.ptr
    hd, cd = hdesc3(hx.shape, dt), hdesc3(cx.shape, dt)
    wd = vp()
    if ex:
        fdnn.check(create_filter(ctypes.byref(wd)))
        fdnn.check(set_filter(wd, dt, 0, 3, fdnn.int_array([w.size, 1, 1])), "cudnnSetFilterNdDescriptor")
        fdnn.check(fwd_train_ex(handle.ptr, rnn, xd, P(ux), hd, P(fhx), cd, P(fcx), wd, P(w), yd, P(uy), hd, P(hy),
                                cd, P(cy), *([None] * 8), P(ws), ws.nbytes, P(rs), rs.nbytes),
                   "cudnnRNNForwardTrainingEx")
    else:
        fdnn.check(forward(handle.ptr, rnn, 1, lens_c, xd, P(ux), yd, P(uy), hd, P(fhx), P(hy), cd, P(fcx), P(cy),
                           w.nbytes, P(w), ws.nbytes, P(ws), rs.nbytes, P(rs)), "cudnnRNNForward")
    ygot, valid = from_user(uy, layout, lens, T, B)
    ywant = yt.detach().numpy()
    res.close(tol_f, ygot[valid], ywant[valid], f"{tag}: y")
    res.close(tol_f, hy.astype(np.float64), hyt.detach().numpy(), f"{tag}: hy")
    if cell == LSTM:
        res.close(tol_f, cy.astype(np.float64), cyt.detach().numpy(), f"{tag}: cy")

    udx = np.full(ux.shape, np.nan, dtype)
    dhx, dcx = fdnn.poisoned(hx.shape, dtype), fdnn.poisoned(cx.shape, dtype)
    if ex:
        fdnn.check(bwd_data_ex(handle.ptr, rnn, yd, P(uy), yd, P(udy), None, None, hd, P(fdhy), cd, P(fdcy), wd, P(w),
                               hd, P(fhx), cd, P(fcx), xd, P(udx), hd, P(dhx), cd, P(dcx), None, None, P(ws),
                               ws.nbytes, P(rs), rs.nbytes), "cudnnRNNBackwardDataEx")
        res.check(padding_is(uy, layout, lens, T, fill) and padding_is(udx, layout, lens, T, fill),
                  f"{tag}: padding fill of y and dx")
    else:
        fdnn.check(bwd_data(handle.ptr, rnn, lens_c, yd, P(uy), P(udy), xd, P(udx), hd, P(fhx), P(fdhy), P(dhx), cd,
                            P(fcx), P(fdcy), P(dcx), w.nbytes, P(w), ws.nbytes, P(ws), rs.nbytes, P(rs)),
                   "cudnnRNNBackwardData_v8")
    dxgot, _ = from_user(udx, layout, lens, T, B)
    res.close(tol_b, dxgot[valid], xt.grad.numpy()[valid], f"{tag}: dx")
    res.close(tol_b, dhx.astype(np.float64), ht.grad.numpy(), f"{tag}: dhx")
    if cell == LSTM:
        res.close(tol_b, dcx.astype(np.float64), ct.grad.numpy(), f"{tag}: dcx")

    if ex:  # the *Ex call adds to dw
        dw = np.zeros(w.shape, dtype)
        fdnn.check(bwd_w_ex(handle.ptr, rnn, xd, P(ux), hd, P(fhx), yd, P(uy), P(ws), ws.nbytes, wd, P(dw), P(rs),
                            rs.nbytes), "cudnnRNNBackwardWeightsEx")
        destroy_filter(wd)
    else:
        dw = np.full(w.shape, np.nan, dtype)
        fdnn.check(bwd_w(handle.ptr, rnn, 1, lens_c, xd, P(ux), hd, P(fhx), yd, P(uy), w.nbytes, P(dw), ws.nbytes,
                         P(ws), rs.nbytes, P(rs)), "cudnnRNNBackwardWeights_v8")
    worst = 0.0
    for name, gate, is_bias, off in views:
        gr = params[name].grad.numpy()[gate * hidden:(gate + 1) * hidden].reshape(-1)
        got = dw[off:off + gr.size].astype(np.float64)
        err = np.max(np.abs(got - gr) / (1 + np.abs(gr)))
        worst = max(worst, err if np.isfinite(err) else np.inf)
    res.check(worst <= tol_b, f"{tag}: weight gradients, max rel error {worst:.3g}")
    destroy_data(xd), destroy_data(yd), destroy_rnn(rnn)


_keep = []


def hdesc3(shape, dt=0):
    d = vp()
    fdnn.check(fdnn._create_tensor(ctypes.byref(d)))
    dims = list(shape)
    fdnn.check(fdnn._set_nd(d, dt, 3, fdnn.int_array(dims), fdnn.int_array([dims[1] * dims[2], dims[2], 1])))
    _keep.append(d)
    return d


def main():
    res = fdnn.Results("oracle_rnn")
    rng = np.random.default_rng(5)
    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        for cell in (LSTM, GRU, TANH, RELU):
            run(res, h, rng, cell, 2, True, SEQ_UNPACKED, [5, 5, 5], 5, 4, 3, f"cell {cell} t{threads} bidir 2L")
            run(res, h, rng, cell, 1, False, BATCH_UNPACKED, [2, 6, 1, 4], 6, 7, 5, f"cell {cell} t{threads} varlen")
            run(res, h, rng, cell, 2, True, SEQ_PACKED, [4, 4, 2, 1], 4, 3, 4, f"cell {cell} t{threads} packed")
            if threads == 2:
                run(res, h, rng, cell, 2, True, BATCH_UNPACKED, [3, 5, 1], 5, 4, 3, f"cell {cell} double",
                    np.float64)
        # The *Ex calls: variable lengths in BATCH_MAJOR_UNPACKED (torch takes no 0).
        for cell in (LSTM, GRU):
            run(res, h, rng, cell, 2, True, BATCH_UNPACKED, [3, 6, 1, 4], 6, 5, 4, f"cell {cell} t{threads} Ex",
                ex=True)
            run(res, h, rng, cell, 2, True, BATCH_UNPACKED, [3, 6, 1, 4], 6, 5, 4, f"cell {cell} t{threads} Ex double",
                np.float64, ex=True)
        # Recurrent projection (torch.nn.LSTM proj_size), v8 and *Ex.
        run(res, h, rng, LSTM, 2, True, BATCH_UNPACKED, [3, 5, 1], 5, 4, 5, f"proj t{threads}", proj=3)
        run(res, h, rng, LSTM, 1, False, SEQ_PACKED, [4, 4, 2], 4, 3, 6, f"proj t{threads} packed", proj=2)
        run(res, h, rng, LSTM, 2, True, BATCH_UNPACKED, [3, 6, 1, 4], 6, 5, 4, f"proj t{threads} Ex double",
            np.float64, ex=True, proj=3)
    for d in _keep:
        fdnn._destroy_tensor(d)
    res.finish()


if __name__ == "__main__":
    main()
