#!/usr/bin/env python3
"""Tables from after_tT TAG.txt / before_tT TAG.txt (run.sh).  Usage:
summarize.py [TAG [THREADS]].  Per case: each side's median over runs of the
FreeDNN FP32 median and min; the per-alternation after / before FP32 ratio
(median over alternations, range); PyTorch (both sides' runs pooled: median
of medians, min of mins); PyTorch / FreeDNN per run on medians and on
minima (median over runs, range) for the branch and for the branch point;
BF16 medians before / after."""
import re
import statistics as st
import sys
from pathlib import Path

ROW = re.compile(r"^(mha \S+ \S+ \S+ \S+ \S+)\s+threads=\d+\s+FP32\s+([\d.]+) ms \(min\s+([\d.]+)\)\s+BF16\s+([\d.]+) ms"
                 r" \(min\s+([\d.]+)\).*PyTorch-FP32\s+([\d.]+) ms \(min\s+([\d.]+)\)")


def parse(path):
    runs = {}
    for line in Path(path).read_text().splitlines():
        m = ROW.match(line)
        if m:
            runs.setdefault(m.group(1), []).append([float(x) for x in m.groups()[1:]])
    return runs


def rng(v):
    return f"{st.median(v):.2f}x ({min(v):.2f}-{max(v):.2f})"


here = Path(__file__).parent
tag = sys.argv[1] if len(sys.argv) > 1 else ""
th = sys.argv[2] if len(sys.argv) > 2 else "1"
a, b = parse(here / f"after_t{th}{tag}.txt"), parse(here / f"before_t{th}{tag}.txt")
print(f"| {th} thread(s), {len(next(iter(a.values())))} alternations | FreeDNN before (median / min) | after |"
      " after/before time | PyTorch (median / min) | PyTorch / FreeDNN after, medians | on minima |"
      " PyTorch / FreeDNN before, medians | on minima | BF16 before / after |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for case in a:
    ra, rb = a[case], b.get(case, [])
    med = lambda rs, i: st.median(r[i] for r in rs)
    pt = ra + rb
    ab = [x[0] / y[0] for x, y in zip(ra, rb)]
    print(f"| {case} | {med(rb,0):.2f} / {med(rb,1):.2f} ms | {med(ra,0):.2f} / {med(ra,1):.2f} ms | {rng(ab)} | "
          f"{med(pt,4):.2f} / {min(r[5] for r in pt):.2f} ms | {rng([r[4] / r[0] for r in ra])} | "
          f"{rng([r[5] / r[1] for r in ra])} | {rng([r[4] / r[0] for r in rb])} | {rng([r[5] / r[1] for r in rb])} | "
          f"{med(rb,2):.2f} / {med(ra,2):.2f} ms |")
