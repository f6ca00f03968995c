# SPDX-License-Identifier: Apache-2.0
"""freednn-bench --net, the PyTorch side.

Reads the node list that freednn-bench writes (net.h: one line per node,
"id op in0 in1 c h w k stride pad groups"), builds the same network from
torch.nn layers, and times its training step (forward, cross-entropy loss,
backward with weight gradients; no optimizer step, as on the other sides) or
its inference (eval mode, no_grad).  Runs contiguous and channels-last and
reports the faster as its last line:

    result MEDIAN_MS CHECK PEAK_RSS_KIB LAYOUT GRAD_NORM

GRAD_NORM is the 2-norm of every conv / FC weight gradient after the last
step (training; 0 for inference), as the other sides report it; PyTorch's
weights are its own random ones, so it is a sanity figure, not a check.

Run by /usr/bin/python3 (Debian's python3-torch); freednn-bench sets the
thread environment and passes --threads for torch.set_num_threads.
"""
import argparse
import resource
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class SpecNet(nn.Module):
    def __init__(self, nodes):
        super().__init__()
        self.nodes = nodes
        self.layers = nn.ModuleList()
        self.index = {}
        for n in nodes:
            op, i0 = n["op"], n["in0"]
            layer = None
            if op == "conv":
                cin = nodes[i0]["c"]
                layer = nn.Conv2d(cin, n["c"], n["k"], n["stride"], n["pad"], groups=n["groups"], bias=False)
            elif op == "bn":
                layer = nn.BatchNorm2d(n["c"])
            elif op == "fc":
                layer = nn.Linear(nodes[i0]["c"], n["c"])
            elif op == "maxpool":
                layer = nn.MaxPool2d(n["k"], n["stride"], n["pad"])
            if layer is not None:
                self.index[n["id"]] = len(self.layers)
                self.layers.append(layer)

    def forward(self, x):
        t = [x]
        for n in self.nodes[1:]:
            op, a = n["op"], t[n["in0"]]
            if op in ("conv", "bn", "maxpool"):
                y = self.layers[self.index[n["id"]]](a)
            elif op == "fc":
                y = self.layers[self.index[n["id"]]](torch.flatten(a, 1))
            elif op == "relu":
                y = F.relu(a)
            elif op == "relu6":
                y = F.relu6(a)
            elif op == "gap":
                y = F.adaptive_avg_pool2d(a, 1)
            elif op == "add":
                y = a + t[n["in1"]]
            else:
                raise ValueError("unknown op " + op)
            t.append(y)
        return t[-1]


def read_spec(path):
    keys = ["id", "op", "in0", "in1", "c", "h", "w", "k", "stride", "pad", "groups"]
    nodes = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != len(keys):
                continue
            n = dict(zip(keys, parts))
            for k in keys:
                if k != "op":
                    n[k] = int(n[k])
            nodes.append(n)
    return nodes


def time_layout(nodes, args, channels_last):
    # CPU time: the calling thread's at 1 thread (the process's would count
    # the idle OpenMP / BLAS / pool threads too), the process's at more.
    if args.cpu_clock:
        clock = time.thread_time if args.threads == 1 else time.process_time
    else:
        clock = time.perf_counter
    torch.manual_seed(0)
    model = SpecNet(nodes)
    inp = nodes[0]
    x = torch.rand(args.mb, inp["c"], inp["h"], inp["w"]) * 2 - 1
    classes = nodes[-1]["c"]
    labels = torch.tensor([(b * 37) % classes for b in range(args.mb)])
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    if args.train:
        model.train()
    else:
        model.eval()
    times, check, grad_norm = [], 0.0, 0.0
    for it in range(args.iters + 1):  # one warm-up step
        t0 = clock()
        if args.train:
            model.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), labels)
            loss.backward()
            check = float(loss)
        else:
            with torch.no_grad():
                check = float(model(x).mean())  # the mean logit, as the other sides report
        if it > 0:
            times.append((clock() - t0) * 1e3)
    if args.train:  # outside the timed steps
        grads = [m.weight.grad for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
        grad_norm = float(sum(float((g.double() ** 2).sum()) for g in grads)) ** 0.5
    return statistics.median(times), check, grad_norm


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--spec", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--mb", type=int, default=32)
    p.add_argument("--iters", type=int, default=5)
    p.add_argument("--train", action="store_true")
    p.add_argument("--infer", dest="train", action="store_false")
    p.add_argument("--cpu-clock", action="store_true", help="CPU time instead of wall time (the calling thread's at 1 thread)")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    nodes = read_spec(args.spec)
    best = None
    for channels_last in (False, True):
        ms, check, grad_norm = time_layout(nodes, args, channels_last)
        layout = "channels_last" if channels_last else "contiguous"
        print("# PyTorch %s %s: %.1f ms" % (torch.__version__, layout, ms))
        if best is None or ms < best[0]:
            best = (ms, check, layout, grad_norm)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("result %.3f %.6g %d %s %.7g" % (best[0], best[1], rss, best[2], best[3]))


if __name__ == "__main__":
    main()
