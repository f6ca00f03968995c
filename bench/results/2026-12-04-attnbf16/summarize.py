#!/usr/bin/env python3
"""Table of run.sh's after.txt / before.txt: per row the median over runs of
each run's FP32 and BF16 medians, their ratio (FP32 / BF16), and the
per-run BF16 speed-up range."""
import re, statistics, sys, os
d = os.path.dirname(os.path.abspath(__file__))
pat = re.compile(r"^(mha \S+ \S+ \S+ \S+ \S+)\s+threads=1\s+FP32\s+([\d.]+) ms.*?BF16\s+([\d.]+) ms")
def load(name):
    rows = {}
    for line in open(os.path.join(d, name)):
        m = pat.match(line)
        if m:
            rows.setdefault(m.group(1), []).append((float(m.group(2)), float(m.group(3))))
    return rows
tag = sys.argv[1] if len(sys.argv) > 1 else ""
a, b = load(f"after{tag}.txt"), load(f"before{tag}.txt")
print("| case | FP32 before | FP32 after | BF16 before | BF16 after | BF16 speed-up before | after (per-run range) | runs |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for k in a:
    fa = statistics.median(x[0] for x in a[k]); ba = statistics.median(x[1] for x in a[k])
    fb = statistics.median(x[0] for x in b[k]); bb = statistics.median(x[1] for x in b[k])
    ra = [x[0] / x[1] for x in a[k]]
    print(f"| {k} | {fb:.2f} ms | {fa:.2f} ms | {bb:.2f} ms | {ba:.2f} ms | {fb/bb:.2f}x | {fa/ba:.2f}x ({min(ra):.2f}-{max(ra):.2f}) | {len(a[k])} |")
