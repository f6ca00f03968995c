#!/usr/bin/env python3
"""Table of run.sh's output: per layer FreeDNN FP32, BF16 TENSOR_OP,
PSEUDO_HALF and oneDNN bf16 (ms), the ratios, and the sums."""
import re
import sys

rows, order = {}, []
for line in open(sys.argv[1]):
    m = re.match(r'(f32|bf16|f16)\s+(\S+)\s+mb=\d+\s+fwd\s+algo=\d+\s+([\d.]+) ms(.*)', line)
    if not m:
        continue
    kind, name, ms, rest = m.group(1), m.group(2), float(m.group(3)), m.group(4)
    if name not in rows:
        rows[name] = {}
        order.append(name)
    rows[name][kind] = ms
    d = re.search(r'onednn\s+([\d.]+) ms', rest)
    if d:
        rows[name]['dnnl_' + kind] = float(d.group(1))
print('| layer | FP32 ms | PSEUDO_HALF ms | BF16 TENSOR_OP ms | oneDNN bf16 ms | HALF / FP32 | BF16 vs FP32 | BF16 vs oneDNN bf16 |')
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
tot = {'f32': 0, 'f16': 0, 'bf16': 0, 'dnnl_bf16': 0}
for n in order:
    r = rows[n]
    for k in tot:
        tot[k] += r.get(k, 0)
    print('| %s | %.3f | %.3f | %.3f | %.3f | %.2fx | %.2fx | %.2fx |' % (
        n, r['f32'], r['f16'], r['bf16'], r['dnnl_bf16'], r['f32'] / r['f16'], r['f32'] / r['bf16'],
        r['dnnl_bf16'] / r['bf16']))
print('| **sum** | %.2f | %.2f | %.2f | %.2f | **%.2fx** | **%.2fx** | **%.2fx** |' % (
    tot['f32'], tot['f16'], tot['bf16'], tot['dnnl_bf16'], tot['f32'] / tot['f16'], tot['f32'] / tot['bf16'],
    tot['dnnl_bf16'] / tot['bf16']))
