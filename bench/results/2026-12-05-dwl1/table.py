#!/usr/bin/env python3
"""Table of an ab.sh file: per layer min and median of base, new, oneDNN
(every run's oneDNN, both sides), in us, new/base (min) and oneDNN/new
(min/min).  usage: table.py FILE"""
import statistics as st, sys, collections
b, n, o = collections.defaultdict(list), collections.defaultdict(list), collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    if line.startswith('#'):
        continue
    f = line.split()
    who, name, d = f[0], f[1], f[3]
    key = (name, d)
    if key not in order:
        order.append(key)
    t = float(f[5]) * 1000
    (b if who == 'base' else n)[key].append(t)
    if 'onednn' in f:
        o[key].append(float(f[f.index('onednn') + 1]) * 1000)
print('| layer | dir | base us min / med | new us min / med | new/base (min) | oneDNN us min | oneDNN/new (min/min) |')
print('| --- | --- | ---: | ---: | ---: | ---: | ---: |')
for k in order:
    print(f'| {k[0]} | {k[1]} | {min(b[k]):.1f} / {st.median(b[k]):.1f} | {min(n[k]):.1f} / {st.median(n[k]):.1f} | '
          f'{min(n[k])/min(b[k]):.2f} | {min(o[k]):.1f} | {min(o[k])/min(n[k]):.2f} |')
