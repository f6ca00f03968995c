#!/usr/bin/env python3
"""Minimum DRAM bytes of each batch-norm case (forward: x read + y written
(+ the ReLU mask T/4); backward: x, dy read (+ mask) + dx written) and the
GB/s that the median CPU times of an ab.sh output give, base and new."""
import re, sys, statistics as st
d = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) (\S+)\s+(\S+) (\d+)x(\d+)x(\d+)x(\d+)\s+wall\s+(\S+) ms\s+cpu\s+(\S+) ms', line)
    if m:
        b, op, lay, n, c, h, w, wall, cpu = m.groups()
        d.setdefault((op, int(n), int(c), int(h), int(w)), {}).setdefault(b, []).append(float(cpu))
print('| op | shape | T MB | min bytes | base ms | base GB/s | new ms | new GB/s |')
print('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |')
for (op, n, c, h, w), v in d.items():
    T = n * c * h * w * 4
    k = (2 if op.startswith('bnfwd') else 3) + (0.25 if op.endswith('relu') else 0)
    b, nw = st.median(v['build-base']), st.median(v['build'])
    print('| %s | %dx%dx%dx%d | %.1f | %.2f T | %.2f | %.1f | %.2f | %.1f |' % (
        op, n, c, h, w, T / 1e6, k, b, k * T / b / 1e6, nw, k * T / nw / 1e6))
