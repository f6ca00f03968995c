#!/usr/bin/env python3
"""Table of the alternated trainops rounds: per op, layout and shape, the
median CPU ms of each round (bench-trainops' own median of 9 calls), base
and new: min and median over the rounds, and base / new of the medians."""
import glob, os, re, statistics
d = os.path.dirname(os.path.abspath(__file__))
rows = {}
for f in sorted(glob.glob(os.path.join(d, "trainops_t1_*_r*.txt"))):
    lib = "base" if "_base_" in f else "new"
    for line in open(f):
        m = re.match(r"(\S+)\s+(\S+)\s+(\S+)\s+wall\s+([\d.]+) ms\s+cpu\s+([\d.]+) ms", line)
        if m:
            rows.setdefault((m.group(1), m.group(2), m.group(3)), {}).setdefault(lib, []).append(float(m.group(5)))
print("| op | layout | shape | base cpu ms (min / median) | new cpu ms (min / median) | base / new (medians) |")
print("| --- | --- | --- | ---: | ---: | ---: |")
for (op, lay, shape), v in rows.items():
    b, n = v.get("base", []), v.get("new", [])
    if not b or not n:
        continue
    mb, mn = statistics.median(b), statistics.median(n)
    print(f"| {op} | {lay} | {shape} | {min(b):.2f} / {mb:.2f} | {min(n):.2f} / {mn:.2f} | {mb / mn:.2f}x |")
