#!/usr/bin/env python3
"""Table of half_rounds.sh's output: per layer the minimum over the rounds
of FreeDNN FP32 and PSEUDO_HALF (ms) and their ratio (FP32 time over HALF
time: 1.0x = as fast), the sums of the minima, and each round's own sums."""
import re
import sys

runs = {}   # (kind, layer) -> [ms per round]
order = []
for line in open(sys.argv[1]):
    m = re.match(r'(f32|f16) r(\d+)\s+(\S+)\s+mb=\d+\s+fwd\s+algo=\d+\s+([\d.]+) ms', line)
    if not m:
        continue
    kind, rnd, name, ms = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
    if name not in order:
        order.append(name)
    runs.setdefault((kind, name), {})[rnd] = ms
print('| layer | FP32 min ms | PSEUDO_HALF min ms | HALF / FP32 |')
print('| --- | ---: | ---: | ---: |')
tot = {'f32': 0.0, 'f16': 0.0}
part = {'1x1': [0.0, 0.0], '3x3 and 7x7': [0.0, 0.0]}
for n in order:
    a, b = min(runs[('f32', n)].values()), min(runs[('f16', n)].values())
    tot['f32'] += a
    tot['f16'] += b
    g = part['1x1' if '_1x1' in n else '3x3 and 7x7']
    g[0] += a
    g[1] += b
    print('| %s | %.3f | %.3f | %.2fx |' % (n, a, b, a / b))
for k, (a, b) in part.items():
    print('| sum of the %s layers | %.2f | %.2f | %.2fx |' % (k, a, b, a / b))
print('| **sum of the minima** | %.2f | %.2f | **%.2fx** |' % (tot['f32'], tot['f16'], tot['f32'] / tot['f16']))
rounds = sorted({r for v in runs.values() for r in v})
print()
print('per-round sums (FP32 / HALF ms, ratio): ' + ', '.join(
    '%.1f / %.1f %.2fx' % (sum(runs[('f32', n)].get(r, 0) for n in order),
                           sum(runs[('f16', n)].get(r, 0) for n in order),
                           sum(runs[('f32', n)].get(r, 0) for n in order) /
                           max(1e-9, sum(runs[('f16', n)].get(r, 0) for n in order)))
    for r in rounds))
