#!/usr/bin/env python3
"""Medians over the alternations of run.sh's raw files: FreeDNN FP32 base/new,
oneDNN, and the per-run oneDNN/FreeDNN ratios.  usage: summarize.py T TAG"""
import re, sys, statistics as st
T, TAG = sys.argv[1], sys.argv[2]
def load(v):
    rows = {}
    for line in open(f"{v}_t{T}_{TAG}.txt"):
        m = re.match(r"(\S+ h512 T50 mb32 \S+)\s+threads=\d+\s+FP32\s+([\d.]+) ms \(min\s+([\d.]+)\).*oneDNN-FP32\s+([\d.]+) ms \(min\s+([\d.]+)\)", line)
        if m:
            rows.setdefault(m.group(1), []).append(tuple(float(m.group(i)) for i in range(2, 6)))
    return rows
b, n = load("base"), load("new")
print(f"threads={T} tag={TAG}: case | base FP32 med [runs] | new FP32 med [runs] | new/base | oneDNN med | oneDNN/new med (range) | oneDNN/base med")
for k in b:
    bm = [r[0] for r in b[k]]; nm = [r[0] for r in n[k]]
    rn = [r[2] / r[0] for r in n[k]]; rb = [r[2] / r[0] for r in b[k]]
    od = [r[2] for r in n[k]]
    print(f"{k} | {st.median(bm):.1f} {bm} | {st.median(nm):.1f} {nm} | {st.median(nm)/st.median(bm):.3f} | "
          f"{st.median(od):.1f} | {st.median(rn):.2f}x ({min(rn):.2f}-{max(rn):.2f}) | {st.median(rb):.2f}x")
    bmin = min(r[1] for r in b[k]); nmin = min(r[1] for r in n[k]); omin = min(r[3] for r in n[k] + b[k])
    print(f"    minima: base {bmin:.1f} new {nmin:.1f} oneDNN {omin:.1f} -> oneDNN/new {omin/nmin:.2f}x")
