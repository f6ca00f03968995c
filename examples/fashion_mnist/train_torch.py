#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The demo's network in PyTorch, for comparison: same layers, same
initialisation scheme (PyTorch's defaults, which the C program reproduces:
uniform +-1/sqrt(fan_in) for weights and biases, BN scale 1 and shift 0),
same input normalisation, batch, SGD with momentum, learning rate, epochs,
same dropped last partial batch.

    /usr/bin/python3 train_torch.py [--epochs 2] [--threads 2] [--data DIR] [--init FILE]

With --init FILE (written by `fashion_mnist --save-init FILE`), PyTorch starts
from FreeDNN's initial weights and replays the C program's shuffles, so the two
runs differ only by floating-point rounding.
"""
import argparse
import gzip
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def load(data, prefix):
    def read(name):
        path = os.path.join(data, name)
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            return f.read()
    imgs = read(f"{prefix}-images-idx3-ubyte.gz")
    labs = read(f"{prefix}-labels-idx1-ubyte.gz")
    x = np.frombuffer(imgs, np.uint8, offset=16).reshape(-1, 1, 28, 28).astype(np.float32)
    y = np.frombuffer(labs, np.uint8, offset=8).astype(np.int64)
    x = (x / 255.0 - 0.2860) / 0.3530
    return torch.from_numpy(x), torch.from_numpy(y)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(32)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(64)
        self.fc1 = nn.Conv2d(64, 128, 7)
        self.fc2 = nn.Conv2d(128, 10, 1)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = self.fc2(F.relu(self.fc1(x)))
        return F.log_softmax(x.flatten(1), dim=1)


MASK = (1 << 64) - 1


def load_init(net, path):
    """The C program's weight file: 8-byte magic, then every parameter as
    float32 in its order, then the batch-norm running statistics."""
    raw = open(path, "rb").read()
    if raw[:8] != b"FDNNFM01":
        raise SystemExit(f"{path}: not a fashion_mnist weight file")
    values = np.frombuffer(raw, np.float32, offset=8)
    tensors = [net.conv1.weight, net.bn1.weight, net.bn1.bias, net.conv2.weight, net.bn2.weight, net.bn2.bias,
               net.fc1.weight, net.fc1.bias, net.fc2.weight, net.fc2.bias,
               net.bn1.running_mean, net.bn1.running_var, net.bn2.running_mean, net.bn2.running_var]
    at = 0
    with torch.no_grad():
        for t in tensors:
            n = t.numel()
            t.copy_(torch.from_numpy(values[at:at + n].copy()).reshape(t.shape))
            at += n
    if at != values.size:
        raise SystemExit(f"{path}: {values.size} values, the network has {at}")


class CShuffle:
    """The C program's per-epoch Fisher-Yates shuffle with xorshift64."""

    def __init__(self, seed):
        self.state = (seed * 2654435761 + 1) & MASK

    def next(self):
        s = self.state
        s ^= (s << 13) & MASK
        s ^= s >> 7
        s ^= (s << 17) & MASK
        self.state = s
        return s

    def permutation(self, n):
        order = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.next() % (i + 1)
            order[i], order[j] = order[j], order[i]
        return torch.tensor(order)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--train-limit", type=int, default=0, help="use only the first N training images")
    ap.add_argument("--test-limit", type=int, default=0, help="test on the first N test images")
    ap.add_argument("--init", help="start from fashion_mnist --save-init's weights and replay its shuffles")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    xtr, ytr = load(args.data, "train")
    xte, yte = load(args.data, "t10k")
    if args.train_limit:
        xtr, ytr = xtr[:args.train_limit], ytr[:args.train_limit]
    if args.test_limit:
        xte, yte = xte[:args.test_limit], yte[:args.test_limit]
    net = Net()
    shuffle = None
    if args.init:
        load_init(net, args.init)
        shuffle = CShuffle(args.seed)
    opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=args.momentum)
    batches = len(xtr) // args.batch
    for epoch in range(1, args.epochs + 1):
        net.train()
        perm = shuffle.permutation(len(xtr)) if shuffle else torch.randperm(len(xtr))
        start = time.perf_counter()
        total = 0.0
        for b in range(batches):
            idx = perm[b * args.batch:(b + 1) * args.batch]
            opt.zero_grad()
            loss = F.nll_loss(net(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            total += loss.item()
        seconds = time.perf_counter() - start
        net.eval()
        with torch.no_grad():
            correct = sum(int((net(xte[i:i + 1000]).argmax(1) == yte[i:i + 1000]).sum())
                          for i in range(0, len(xte), 1000))
        print(f"epoch {epoch}: train loss {total / batches:.4f}, test accuracy {100.0 * correct / len(xte):.2f}%, "
              f"{seconds:.1f} s training ({batches * args.batch / seconds:.0f} img/s)", flush=True)


if __name__ == "__main__":
    main()
