#!/usr/bin/env python3
"""Table of run.sh's output: per layer FreeDNN FP32 and PSEUDO_HALF (ms),
HALF / FP32 as FP32 time over HALF time (1.0x = as fast), and the sums."""
import re
import sys

rows, order = {}, []
for line in open(sys.argv[1]):
    m = re.match(r'(f32|f16)\s+(\S+)\s+mb=\d+\s+fwd\s+algo=\d+\s+([\d.]+) ms', line)
    if not m:
        continue
    kind, name, ms = m.group(1), m.group(2), float(m.group(3))
    if name not in rows:
        rows[name] = {}
        order.append(name)
    rows[name][kind] = ms
print('| layer | FP32 ms | PSEUDO_HALF ms | HALF / FP32 |')
print('| --- | ---: | ---: | ---: |')
tot = {'f32': 0.0, 'f16': 0.0}
part = {'1x1': [0.0, 0.0], 'other': [0.0, 0.0]}
for n in order:
    r = rows[n]
    for k in tot:
        tot[k] += r[k]
    g = part['1x1' if '_1x1' in n else 'other']
    g[0] += r['f32']
    g[1] += r['f16']
    print('| %s | %.3f | %.3f | %.2fx |' % (n, r['f32'], r['f16'], r['f32'] / r['f16']))
for k, (a, b) in part.items():
    if b > 0:
        print('| sum of the %s layers | %.2f | %.2f | %.2fx |' % ('1x1' if k == '1x1' else '3x3 and 7x7', a, b, a / b))
print('| **sum** | %.2f | %.2f | **%.2fx** |' % (tot['f32'], tot['f16'], tot['f32'] / tot['f16']))
