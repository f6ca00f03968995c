#!/usr/bin/env python3
"""Depthwise NHWC/transposes session: per-cell ratios pooled over runs.
Usage: table2.py BEFORE_DIR AFTER_DIR TAG... [--after-nchw32 TAG...]
(TAG "-" is the first run, "_r2" the second; the files are
t1_mb{1,32}_{nchw,nhwc}{TAG}.txt of run.sh; --after-nchw32: the after
runs to take for the mb=32 NCHW cells, which changed in the last commit).  A cell's ratio is the sum of its oneDNN medians over the runs
divided by the sum of its FreeDNN medians; "before -> after" per cell."""
import re, sys, os
pat = re.compile(r"^(\S+)\s+mb=(\d+)\s+(\S+)\s+algo=\d+\s+([\d.]+) ms.*onednn\s+([\d.]+) ms ratio ([\d.]+)")
def load(d, tags, nchw32=None):
    """Rows of the runs `tags`; the mb=32 NCHW cells from `nchw32` when given."""
    rows, order = {}, []
    for mb in ("1", "32"):
        for lay in ("nchw", "nhwc"):
            use = nchw32 if (nchw32 and mb == "32" and lay == "nchw") else tags
            for tag in use:
                f = os.path.join(d, f"t1_mb{mb}_{lay}{tag}.txt")
                if not os.path.exists(f):
                    continue
                for line in open(f):
                    m = pat.match(line)
                    if not m:
                        continue
                    name, _, dr, ms, dms, _ = m.groups()
                    key = (name, mb)
                    if key not in rows:
                        rows[key] = {}
                        order.append(key)
                    a = rows[key].setdefault((lay, dr), [0.0, 0.0, 0])
                    a[0] += float(ms); a[1] += float(dms); a[2] += 1
    return rows, order
args = sys.argv[3:]
n32 = None
if "--after-nchw32" in args:
    i = args.index("--after-nchw32")
    n32 = [t if t != "-" else "" for t in args[i + 1:]]
    args = args[:i]
bd, ad, tags = sys.argv[1], sys.argv[2], [t if t != "-" else "" for t in args] or [""]
b, _ = load(bd, tags)
a, order = load(ad, tags, n32)
cols = [(l, x) for l in ("nchw", "nhwc") for x in ("fwd", "bwd_d", "bwd_w")]
print("| layer | mb | " + " | ".join(f"{l.upper()} {x}" for l, x in cols) + " |")
print("| --- | ---: | " + " | ".join("---:" for _ in cols) + " |")
met = {"b": 0, "a": 0}; total = 0
for key in sorted(order, key=lambda k: (int(k[1]), order.index(k))):
    cells = []
    for c in cols:
        va, vb = a[key].get(c), b.get(key, {}).get(c)
        if va is None or vb is None:
            cells.append("-"); continue
        ra, rb = va[1] / va[0], vb[1] / vb[0]
        total += 1; met["a"] += ra >= 1.0; met["b"] += rb >= 1.0
        sa = f"**{ra:.2f}**" if ra >= 1.0 else f"{ra:.2f}"
        cells.append(f"{rb:.2f} -> {sa}")
    print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
print(f"\nAt or above 1.0x: before {met['b']} of {total}, after {met['a']} of {total}.\n")
print("| set | " + " | ".join(f"{l.upper()} {x}" for l, x in cols) + " |")
print("| --- | " + " | ".join("---:" for _ in cols) + " |")
for mb in ("1", "32"):
    cells = []
    for c in cols:
        r = []
        for rows in (b, a):
            fd = sum(rows[k][c][0] for k in rows if k[1] == mb and c in rows[k])
            od = sum(rows[k][c][1] for k in rows if k[1] == mb and c in rows[k])
            r.append(od / fd if fd else 0)
        cells.append(f"{r[0]:.2f} -> {r[1]:.2f}")
    print(f"| mb={mb} | " + " | ".join(cells) + " |")
