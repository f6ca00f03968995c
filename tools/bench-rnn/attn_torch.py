# SPDX-License-Identifier: Apache-2.0
"""bench-rnn --torch, the PyTorch side of the attention rows.

Times torch.nn.MultiheadAttention on the computation bench-rnn gives
cudnnMultiHeadAttnForward/Backward*: HEADS heads over EMBED-wide queries,
keys and values (distinct tensors), projections EMBED/HEADS per head, an
output projection back to EMBED, no projection biases, LEN query and key
steps, BATCH sequences, FP32.

  fwd:   eval mode, torch.no_grad(), need_weights=False (PyTorch's fastest
         inference call)
  train: forward with gradients on q, k, v and the weights, then backward
         of a fixed dout: the same products as cuDNN's forward + backward
         data + backward weights

Both sequence-first and batch-first layouts are timed; the faster is
reported on the last line:

    result MEDIAN_MS MIN_MS LAYOUT

With one thread the time is the calling thread's CPU time, as bench-rnn's
own; otherwise wall time.  Run by /usr/bin/python3 (Debian's python3-torch).
"""
import argparse
import statistics
import time

import torch
import torch.nn as nn


def clock(threads):
    return time.thread_time() if threads == 1 else time.perf_counter()


def time_layout(args, batch_first):
    torch.manual_seed(7)
    mha = nn.MultiheadAttention(args.embed, args.heads, bias=False, batch_first=batch_first)
    shape = (args.batch, args.len, args.embed) if batch_first else (args.len, args.batch, args.embed)
    q, k, v, dout = (torch.randn(shape) for _ in range(4))
    if args.train:
        mha.train()
        q.requires_grad_(), k.requires_grad_(), v.requires_grad_()

        def step():
            for t in (q, k, v, *mha.parameters()):
                t.grad = None
            out, _ = mha(q, k, v, need_weights=False)
            out.backward(dout)
    else:
        mha.eval()

        def step():
            with torch.no_grad():
                mha(q, k, v, need_weights=False)

    step()
    times = []
    for _ in range(args.iters):
        t0 = clock(args.threads)
        step()
        times.append((clock(args.threads) - t0) * 1e3)
    return statistics.median(times), min(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--heads", type=int, required=True)
    p.add_argument("--embed", type=int, required=True)
    p.add_argument("--len", type=int, required=True)
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--iters", type=int, default=7)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--train", action="store_true")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    best = None
    for batch_first in (False, True):
        med, lo = time_layout(args, batch_first)
        layout = "batch-first" if batch_first else "seq-first"
        print(f"# torch {torch.__version__} {layout}: median {med:.2f} ms min {lo:.2f} ms")
        if best is None or med < best[0]:
            best = (med, lo, layout)
    print(f"result {best[0]:.3f} {best[1]:.3f} {best[2]}")


if __name__ == "__main__":
    main()
