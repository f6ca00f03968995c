#!/usr/bin/env python3
"""Median over the alternated bench-graph runs: fused, node-by-node and oneDNN ms per shape and build."""
import glob, re, statistics, sys, collections
d = sys.argv[1]
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(d + "/graph-matmul-*-[0-9]*.txt")):
    build = re.search(r"graph-matmul-(\w+)-\d+\.txt", f).group(1)
    shape = None
    for line in open(f):
        m = re.match(r"matmul (M=\d+ N=\d+ K=\d+)", line)
        if m:
            shape = m.group(1)
        m = re.search(r"fused graph\s+([\d.]+) ms \| separate passes \(node by node\)\s+([\d.]+) ms.*oneDNN post-ops\s+([\d.]+) ms", line)
        if m and shape:
            rows[shape][build].append(tuple(float(x) for x in m.groups()))
print("median of %s alternated runs (each best of 5), 1 thread, CPU time" % "/".join(str(len(v)) for v in next(iter(rows.values())).values()))
print("%-22s %-5s %9s %9s %9s %10s %10s" % ("shape", "build", "fused", "nodes", "oneDNN", "nodes/fus", "oneDNN/fus"))
for shape, builds in rows.items():
    for b in ("base", "new"):
        v = builds.get(b)
        if not v:
            continue
        fu = statistics.median(x[0] for x in v); no = statistics.median(x[1] for x in v); on = statistics.median(x[2] for x in v)
        r1 = statistics.median(x[1] / x[0] for x in v); r2 = statistics.median(x[2] / x[0] for x in v)
        print("%-22s %-5s %8.2fms %8.2fms %8.2fms %9.2fx %9.2fx" % (shape, b, fu, no, on, r1, r2))
