#!/usr/bin/env python3
"""Tables of run.sh's output: per case and thread count, the median over the
alternations of FreeDNN FP32 before/after, oneDNN, and the per-run ratios
oneDNN / FreeDNN (median, range); per-phase medians of the branch."""
import re, statistics as st, sys, os
d = os.path.dirname(os.path.abspath(__file__))
row = re.compile(r'^(\w+ h512 T50 mb32 \w+)\s+threads=(\d)\s+FP32\s+([\d.]+) ms.*oneDNN-FP32\s+([\d.]+) ms')
ph = re.compile(r'^(\w+ h512 T50 mb32 \w+)\s+threads=(\d)\s+phases FP32 fwd\s+([\d.]+) bwd-data\s+([\d.]+) '
                r'bwd-weights\s+([\d.]+) ms\s+oneDNN-FP32 fwd\s+([\d.]+) bwd\(data\+weights\)\s+([\d.]+)')
def load(name):
    rows, phases = {}, {}
    for line in open(os.path.join(d, name)):
        m = row.match(line)
        if m:
            rows.setdefault((m[1], m[2]), []).append((float(m[3]), float(m[4])))
        m = ph.match(line)
        if m:
            phases.setdefault((m[1], m[2]), []).append([float(v) for v in m.groups()[2:]])
    return rows, phases
for t in '12':
    a, aph = load(f'after_t{t}.txt')
    b, _ = load(f'before_t{t}.txt')
    print(f'threads={t}')
    print('| case | FreeDNN before | FreeDNN after | speedup | oneDNN (after runs) | ratio before | ratio after |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for k in a:
        fa = st.median(x[0] for x in a[k]); fb = st.median(x[0] for x in b[k])
        dn = st.median(x[1] for x in a[k])
        ra = [x[1] / x[0] for x in a[k]]; rb = [x[1] / x[0] for x in b[k]]
        print(f'| {k[0]} | {fb:.1f} ms | {fa:.1f} ms | {fb/fa:.2f}x | {dn:.1f} ms | {st.median(rb):.2f}x '
              f'({min(rb):.2f}-{max(rb):.2f}) | **{st.median(ra):.2f}x** ({min(ra):.2f}-{max(ra):.2f}) |')
    print()
    print('| case | FreeDNN fwd | bwd-data | bwd-weights | oneDNN fwd | oneDNN bwd (data+weights) | fwd ratio | bwd ratio |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for k, v in aph.items():
        m = [st.median(x[i] for x in v) for i in range(5)]
        print(f'| {k[0]} | {m[0]:.1f} | {m[1]:.1f} | {m[2]:.1f} | {m[3]:.1f} | {m[4]:.1f} | {m[3]/m[0]:.2f}x '
              f'| {m[4]/(m[1]+m[2]):.2f}x |')
    print()
