#!/usr/bin/env python3
"""Per cell of run.sh's table: median FreeDNN ms of base and new over the
rounds, new/base, and each build's ratio to oneDNN as the median of the
per-line ratios (oneDNN measured next to it in the same run: the loaded
host's load changes between runs more than within one); how many cells
reach oneDNN (ratio >= 1.0) per class.  Usage: summarize.py AB_DIR"""
import glob, os, re, statistics, sys
from collections import defaultdict

ab = sys.argv[1]
t = defaultdict(lambda: defaultdict(list))
loads = []
for f in sorted(glob.glob(os.path.join(ab, "*_r*", "t1_mb*_*.txt"))):
    build = os.path.basename(os.path.dirname(f)).split("_r")[0]
    lay = re.search(r"_(nchw|nhwc)\.txt$", f).group(1)
    for line in open(f):
        if line.startswith("# 20"):
            loads.append(line.split("load:")[1].split()[0])
            continue
        m = re.match(r"(\S+)\s+mb=(\d+)\s+(\S+)\s+algo=\S+\s+([\d.]+) ms.*onednn\s+([\d.]+) ms", line)
        if not m:
            continue
        key = (lay, m.group(3), int(m.group(2)), m.group(1))
        t[key][build].append(float(m.group(4)))
        t[key][build + "_r"].append(float(m.group(5)) / float(m.group(4)))
med = statistics.median
print("load averages (1 min) at the start of each file: " + " ".join(loads))
print("| layout | dir | mb | layer | runs | base ms | new ms | new/base | oneDNN/base | oneDNN/new |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
cls = defaultdict(lambda: [0, 0, 0])
for key in sorted(t):
    c = t[key]
    if not c["base"] or not c["new"]:
        continue
    b, n, rb, rn = med(c["base"]), med(c["new"]), med(c["base_r"]), med(c["new_r"])
    k = cls[key[:3]]
    k[0] += 1
    k[1] += rn >= 1.0
    k[2] += rb >= 1.0
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {len(c['new'])} | {b:.3f} | {n:.3f} | {n / b:.2f} | {rb:.2f} | {rn:.2f} |")
print()
print("| layout | dir | mb | cells | >= 1.0x oneDNN, base | >= 1.0x, new |")
print("| --- | --- | --- | --- | --- | --- |")
tot = [0, 0, 0]
for k in sorted(cls):
    v = cls[k]
    tot = [a + b for a, b in zip(tot, v)]
    print(f"| {k[0]} | {k[1]} | {k[2]} | {v[0]} | {v[2]} | {v[1]} |")
print(f"| all | | | {tot[0]} | {tot[2]} | {tot[1]} |")
