#!/usr/bin/env python3
"""Per-layer A/B table of run.sh outputs: HALF / FP32 (FP32 time over HALF
time) of every base and new run, the new runs' median, and the sums.
  python3 ab.py MB   (reads mbMB_base_I.txt and mbMB_new_I.txt)"""
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

mb = sys.argv[1]
base = [load(f) for f in sorted(glob.glob('mb%s_base_*.txt' % mb))]
new = [load(f) for f in sorted(glob.glob('mb%s_new_*.txt' % mb))]
print('| layer | algo | base HALF / FP32, each run | new HALF / FP32, each run | new median |')
print('| --- | ---: | --- | --- | ---: |')
for n in base[0]:
    b = [r[n]['f32'] / r[n]['f16'] for r in base]
    w = [r[n]['f32'] / r[n]['f16'] for r in new]
    print('| %s | %s | %s | %s | %.2fx |' % (n, base[0][n]['algo'], ' '.join('%.2f' % x for x in b),
                                             ' '.join('%.2f' % x for x in w), statistics.median(w)))
for label, runs in (('base', base), ('new', new)):
    for i, r in enumerate(runs):
        f32 = sum(v['f32'] for v in r.values()); f16 = sum(v['f16'] for v in r.values())
        o32 = sum(v['f32'] for k, v in r.items() if '_1x1' not in k); o16 = sum(v['f16'] for k, v in r.items() if '_1x1' not in k)
        print('| **sum, %s run %d** | | FP32 %.2f ms, HALF %.2f ms | 3x3/7x7 %.2fx, 1x1 %.2fx | **%.2fx** |' %
              (label, i + 1, f32, f16, o32 / o16, (f32 - o32) / (f16 - o16), f32 / f16))
