#!/usr/bin/env python3
"""Median over rounds of each (build, op, shape) line of ab.sh output:
wall, cpu, min cpu; and base/new ratios."""
import re, sys, statistics as st
d = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) (\S+)\s+(\S+) (\S+)\s+wall\s+(\S+) ms\s+cpu\s+(\S+) ms\s+\(min cpu\s+(\S+)\)', line)
    if not m:
        continue
    b, op, lay, shp, w, c, mc = m.groups()
    d.setdefault((op, lay, shp), {}).setdefault(b, []).append((float(w), float(c), float(mc)))
print('| op | layout | shape | base wall | new wall | base cpu | new cpu | base min cpu | new min cpu | cpu base/new | wall base/new |')
print('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for k, v in d.items():
    if 'build-base' not in v or 'build' not in v:
        continue
    bs = [st.median(x[i] for x in v['build-base']) for i in range(3)]
    ns = [st.median(x[i] for x in v['build']) for i in range(3)]
    print('| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2fx | %.2fx |' % (
        k[0], k[1], k[2], bs[0], ns[0], bs[1], ns[1], bs[2], ns[2], bs[1] / ns[1], bs[0] / ns[0]))
