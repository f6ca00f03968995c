# SPDX-License-Identifier: Apache-2.0
"""cudnnCTCLoss / cudnnCTCLoss_v8 against torch.nn.functional.ctc_loss
(reduction='none', blank=0) and its autograd gradient.

cuDNN's conventions, as PyTorch sees them:
  SOFTMAX mode: probs are activations x; cost = ctc_loss(log_softmax(x));
                gradients = d cost / d x.
  NONE mode:    probs are p = softmax(x); cost = ctc_loss(log p);
                gradients = d cost / d z at z = log p through log_softmax(z)
                (the gradient with respect to the logits of p).
Impossible alignments: cost +inf; gradients NaN (PROPAGATE_NAN) or 0
(NOT_PROPAGATE_NAN = PyTorch's zero_infinity=True gradients).
Packed T x N x A, batch-major and padded layouts; 1 or 2 threads."""
import ctypes

import numpy as np
import torch

import fdnn

vp, c_int_p = fdnn.vp, fdnn.c_int_p
create_ctc = fdnn.proto("cudnnCreateCTCLossDescriptor", [ctypes.POINTER(vp)])
destroy_ctc = fdnn.proto("cudnnDestroyCTCLossDescriptor", [vp])
set_ctc = fdnn.proto("cudnnSetCTCLossDescriptor_v8", [vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int])
ws_v7 = fdnn.proto("cudnnGetCTCLossWorkspaceSize",
                   [vp, vp, vp, c_int_p, c_int_p, c_int_p, ctypes.c_int, vp, ctypes.POINTER(ctypes.c_size_t)])
ws_v8 = fdnn.proto("cudnnGetCTCLossWorkspaceSize_v8",
                   [vp, ctypes.c_int, vp, vp, vp, ctypes.POINTER(ctypes.c_size_t)])
loss_v7 = fdnn.proto("cudnnCTCLoss", [vp, vp, vp, c_int_p, c_int_p, c_int_p, vp, vp, vp, ctypes.c_int, vp, vp,
                                      ctypes.c_size_t])
loss_v8 = fdnn.proto("cudnnCTCLoss_v8", [vp, ctypes.c_int, vp, vp, vp, c_int_p, c_int_p, c_int_p, vp, vp, vp,
                                         ctypes.c_size_t, vp])
create_tensor = fdnn.proto("cudnnCreateTensorDescriptor", [ctypes.POINTER(vp)])
destroy_tensor = fdnn.proto("cudnnDestroyTensorDescriptor", [vp])
set_nd = fdnn.proto("cudnnSetTensorNdDescriptor", [vp, ctypes.c_int, ctypes.c_int, c_int_p, c_int_p])


class Desc3:
    """A 3-D float tensor descriptor with the array's own strides."""

    def __init__(self, arr):
        self.ptr = vp()
        fdnn.check(create_tensor(ctypes.byref(self.ptr)))
        strides = [s // arr.itemsize for s in arr.strides]
        fdnn.check(set_nd(self.ptr, 0, 3, fdnn.int_array(list(arr.shape)), fdnn.int_array(strides)), "set_nd")

    def __del__(self):
        destroy_tensor(self.ptr)


def layout_array(shape, layout):
    """An uninitialised (NaN) float32 T x N x A array in the given layout."""
    t, n, a = shape
    if layout == "batch-major":
        return np.full((n, t, a), np.nan, np.float32).transpose(1, 0, 2)
    if layout == "padded":
        return np.full((t, n, a + 3), np.nan, np.float32)[:, :, :a]
    return np.full(shape, np.nan, np.float32)


def torch_ctc(x, softmax, labels, label_lengths, input_lengths):
    """Costs (inf where impossible) and the gradients of cuDNN's convention,
    with zero_infinity=False (NaN rows) and True (zero rows)."""
    out = []
    for zero_inf in (False, True):
        if softmax:
            leaf = torch.tensor(x, dtype=torch.float64, requires_grad=True)
            logp = torch.log_softmax(leaf, 2)
        else:
            leaf = torch.tensor(np.log(x.astype(np.float64)), requires_grad=True)
            logp = torch.log_softmax(leaf, 2)
        loss = torch.nn.functional.ctc_loss(logp, torch.tensor(labels, dtype=torch.long),
                                            torch.tensor(input_lengths, dtype=torch.long),
                                            torch.tensor(label_lengths, dtype=torch.long),
                                            blank=0, reduction="none", zero_infinity=zero_inf)
        loss.sum().backward()
        out.append((loss.detach().numpy(), leaf.grad.numpy()))
    return out[0][0], out[0][1], out[1][1]


def main():
    res = fdnn.Results("oracle_ctc")
    rng = np.random.default_rng(5)
    cases = []
    # network-like: speech characters (A = 29), varying lengths, repeats
    T, N, A = 50, 6, 29
    ll = [12, 0, 20, 5, 1, 17]
    il = [50, 10, 44, 5, 1, 50]  # sample 3: 5 labels in 5 steps; sample 4: 1 in 1
    labels = []
    for i, n in enumerate(ll):
        lab = list(rng.integers(1, A, size=n))
        if n >= 4:
            lab[1] = lab[2] = lab[3]  # a run of repeats
        if i == 3:
            lab = [1, 2, 3, 4, 5]
        labels += lab
    cases.append((T, N, A, labels, ll, il))
    # impossible alignments next to possible ones
    cases.append((4, 3, 5, [2, 2, 1, 3, 4, 3], [2, 1, 3], [2, 3, 4]))
    # N = 1, A = 2, T = 1
    cases.append((1, 1, 2, [1], [1], [1]))
    # empty labels only
    cases.append((7, 2, 3, [], [0, 0], [7, 3]))

    for threads in (1, 2):
        h = fdnn.Handle(threads=threads)
        for (T, N, A, labels, ll, il) in cases:
            for softmax in (True, False):
                act = rng.uniform(-3, 3, size=(T, N, A))
                if softmax:
                    x = act.astype(np.float32)
                else:
                    x = (np.exp(act) / np.exp(act).sum(2, keepdims=True)).astype(np.float32)
                want_c, grad_nan, grad_zero = torch_ctc(x, softmax, labels, ll, il)
                feasible = np.isfinite(want_c)
                for propagate in (False, True):
                    for layout in ("packed", "batch-major", "padded"):
                        for v8 in (False, True):
                            what = (f"threads {threads} T{T} N{N} A{A} {'softmax' if softmax else 'none'} "
                                    f"{'nan' if propagate else 'zero'} {layout} {'v8' if v8 else 'v7'}")
                            p = layout_array((T, N, A), layout)
                            p[...] = x
                            g = layout_array((T, N, A), "packed" if layout == "batch-major" else layout)
                            costs = np.full(N, np.nan, np.float32)
                            pd, gd = Desc3(p), Desc3(g)
                            d = vp()
                            fdnn.check(create_ctc(ctypes.byref(d)))
                            fdnn.check(set_ctc(d, 0, 1 if softmax else 0, 1 if propagate else 0, 0))
                            lab_a = fdnn.int_array(labels if labels else [0])
                            ll_a, il_a = fdnn.int_array(ll), fdnn.int_array(il)
                            size = ctypes.c_size_t()
                            if v8:
                                fdnn.check(ws_v8(h.ptr, 1, d, pd.ptr, gd.ptr, ctypes.byref(size)), "ws_v8")
                            else:
                                fdnn.check(ws_v7(h.ptr, pd.ptr, gd.ptr, lab_a, ll_a, il_a, 0, d,
                                                 ctypes.byref(size)), "ws_v7")
                            ws = np.empty(max(size.value // 8, 1), np.float64)
                            if v8:
                                st = loss_v8(h.ptr, 1, d, pd.ptr, fdnn.ptr(p), lab_a, ll_a, il_a, fdnn.ptr(costs),
                                             gd.ptr, fdnn.ptr(g), size.value, fdnn.ptr(ws))
                            else:
                                st = loss_v7(h.ptr, pd.ptr, fdnn.ptr(p), lab_a, ll_a, il_a, fdnn.ptr(costs), gd.ptr,
                                             fdnn.ptr(g), 0, d, fdnn.ptr(ws), size.value)
                            destroy_ctc(d)
                            res.check(st == fdnn.SUCCESS, f"status {st}: {what}")
                            c64 = costs.astype(np.float64)
                            res.check(np.array_equal(np.isinf(c64), ~feasible) and np.all(c64[~feasible] > 0),
                                      f"infinite costs where impossible: {what}")
                            res.close(2e-6, c64[feasible], want_c[feasible], "costs " + what)
                            g64 = np.ascontiguousarray(g).astype(np.float64)
                            want_g = grad_nan if propagate else grad_zero
                            # rows of impossible samples: PyTorch's NaN pattern is not a
                            # contract; ours: NaN on t < inputLength, 0 after
                            for b in range(N):
                                if feasible[b]:
                                    res.close(2e-5, g64[:, b], want_g[:, b], f"grads sample {b} {what}")
                                else:
                                    rows = g64[:il[b], b]
                                    ok = np.all(np.isnan(rows)) if propagate else np.all(rows == 0)
                                    res.check(ok and np.all(g64[il[b]:, b] == 0), f"grads impossible {b} {what}")
                            if layout == "padded":
                                res.check(np.all(np.isnan(g.base[:, :, A:])), f"padding untouched: {what}")
    res.finish()


if __name__ == "__main__":
    main()
