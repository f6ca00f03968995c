#!/usr/bin/env python3
"""Table of focus.sh's outputs: per layer, HALF / FP32 (FP32 time over
HALF time) of each base and new run, and each side's median HALF ms.
  python3 focus_ab.py   (in this folder)"""
import glob, re, statistics

def load(f):
    rows = {}
    for line in open(f):
        m = re.match(r'(f32|f16)\s+(\S+)\s+mb=\d+\s+fwd\s+algo=(\d+)\s+([\d.]+) ms', line)
        if m:
            rows.setdefault(m.group(2), {})[m.group(1)] = float(m.group(4))
            rows[m.group(2)]['algo'] = m.group(3)
    return rows

base = [load(f) for f in sorted(glob.glob('focus_base_*.txt'))]
new = [load(f) for f in sorted(glob.glob('focus_new_*.txt'))]
print('| layer | algo | base HALF / FP32, each run | new HALF / FP32, each run | base median | new median |')
print('| --- | ---: | --- | --- | ---: | ---: |')
for n in base[0]:
    b = [r[n]['f32'] / r[n]['f16'] for r in base]
    w = [r[n]['f32'] / r[n]['f16'] for r in new]
    print('| %s | %s | %s | %s | %.2fx | %.2fx |' % (n, base[0][n]['algo'], ' '.join('%.2f' % x for x in b),
          ' '.join('%.2f' % x for x in w), statistics.median(b), statistics.median(w)))
