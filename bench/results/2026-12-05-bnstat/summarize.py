#!/usr/bin/env python3
"""Tables of micro.txt (run.sh): per op, shape, layout and threads the
median over the alternations of each run's median CPU time (1 thread) or
wall time (2 threads), base and branch.  Run in this folder."""
import re, statistics, collections
d = collections.defaultdict(list)
order = []
cur = None
for line in open('micro.txt'):
    m = re.match(r'== (\S+) threads (\d) layout (\S+)', line)
    if m:
        cur = (m.group(1), int(m.group(2)))
        continue
    m = re.match(r'(\S+)\s+(nchw|nhwc) (\S+)\s+wall\s+([\d.]+) ms\s+cpu\s+([\d.]+) ms', line)
    if m and cur:
        lib, t = cur
        k = (m.group(1), m.group(3), m.group(2), t)
        if k not in order:
            order.append(k)
        d[k + (lib,)].append(float(m.group(4 if t == 2 else 5)))
print('| op | shape | layout | threads | base ms | branch ms | base / branch | runs |')
print('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |')
for k in sorted(order, key=lambda k: (k[3], k[2], order.index(k))):
    b, n = d.get(k + ('build-base',)), d.get(k + ('build',))
    if not b or not n:
        continue
    mb, mn = statistics.median(b), statistics.median(n)
    print(f'| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {mb:.2f} | {mn:.2f} | {mb / mn:.2f}x | {len(b)}/{len(n)} |')
