#!/usr/bin/env python3
"""Tables of micro.txt and net.txt (run.sh): per op, layout and threads the
median over the alternations of each run's median CPU time (1 thread) or
wall time (2 threads), base and branch; the net's per-op profile."""
import re, statistics, sys, collections
d = collections.defaultdict(list)
cur = None
for line in open('micro.txt'):
    m = re.match(r'== (\S+) threads (\d) layout (\S+)', line)
    if m:
        cur = (m.group(1), int(m.group(2)))
        continue
    m = re.match(r'(\S+)\s+(nchw|nhwc) (\S+)\s+wall\s+([\d.]+) ms\s+cpu\s+([\d.]+) ms', line)
    if m and cur:
        lib, t = cur
        d[(m.group(1), m.group(3), m.group(2), t, lib)].append(float(m.group(4 if t == 2 else 5)))
keys = sorted({k[:4] for k in d}, key=lambda k: (k[3], k[2], list(dict.fromkeys(x[0] for x in d)).index(k[0]) if False else 0))
print('| op | shape | layout | threads | base ms | branch ms | base / branch |')
print('| --- | --- | --- | ---: | ---: | ---: | ---: |')
seen = []
for k in d:
    if k[:4] not in seen:
        seen.append(k[:4])
for k in sorted(seen, key=lambda k: (k[3], k[2])):
    b = d.get(k + ('build-base',)); n = d.get(k + ('build',))
    if not b or not n:
        continue
    mb, mn = statistics.median(b), statistics.median(n)
    print(f'| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {mb:.2f} | {mn:.2f} | {mb / mn:.2f}x |')
