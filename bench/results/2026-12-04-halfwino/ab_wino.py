#!/usr/bin/env python3
"""The Winograd layers (algo 6) of run.sh's outputs: per layer and run, FP32
ms and PSEUDO_HALF ms of base and new, HALF / FP32 (FP32 time over HALF
time), and the medians over the runs; then the FP32 Winograd time of base
against new (the branch must leave it unchanged).
  python3 ab_wino.py MB   (reads mbMB_base_I.txt and mbMB_new_I.txt)"""
import glob, re, statistics, sys

def load(f):
    rows = {}
    for line in open(f):
        m = re.match(r'(f32|f16)\s+(\S+)\s+mb=\d+\s+fwd\s+algo=(\d+)\s+([\d.]+) ms', line)
        if m:
            r = rows.setdefault(m.group(2), {})
            r[m.group(1)] = float(m.group(4))
            r['algo'] = m.group(3)
    return rows

mb = sys.argv[1]  # a batch size, or focus1 / focus32 for focus.sh's files
base = [load(f) for f in sorted(glob.glob('mb%s_base_*.txt' % mb))]
new = [load(f) for f in sorted(glob.glob('mb%s_new_*.txt' % mb))]
layers = [n for n in base[0] if base[0][n]['algo'] == '6']
print('| layer | base HALF / FP32, each run | new HALF / FP32, each run | base median | new median | FP32 ms base / new (medians) | HALF ms base / new (medians) |')
print('| --- | --- | --- | ---: | ---: | --- | --- |')
tot = {'b32': 0, 'n32': 0, 'b16': 0, 'n16': 0}
for n in layers:
    b = [r[n]['f32'] / r[n]['f16'] for r in base]
    w = [r[n]['f32'] / r[n]['f16'] for r in new]
    m = {k: statistics.median([r[n][t] for r in runs]) for k, t, runs in
         (('b32', 'f32', base), ('n32', 'f32', new), ('b16', 'f16', base), ('n16', 'f16', new))}
    for k in tot:
        tot[k] += m[k]
    print('| %s | %s | %s | %.2fx | %.2fx | %.3f / %.3f | %.3f / %.3f |' % (
        n, ' '.join('%.2f' % x for x in b), ' '.join('%.2f' % x for x in w), statistics.median(b),
        statistics.median(w), m['b32'], m['n32'], m['b16'], m['n16']))
print('| **Winograd layers, sum of medians** | | | %.2fx | %.2fx | %.3f / %.3f | %.3f / %.3f |' % (
    tot['b32'] / tot['b16'], tot['n32'] / tot['n16'], tot['b32'], tot['n32'], tot['b16'], tot['n16']))
