#!/usr/bin/env python3
"""Depthwise round 2: the per-layer table of docs/performance.md from the raw
freednn-bench outputs in this folder (t{T}_mb{1,32}_{nchw,nhwc}.txt).
Usage: table.py DIR [THREADS [TAG...]]: the rows of t{T}_mb{mb}_{layout}{TAG}.txt
(later runs of some directions) replace those of the first run."""
import re, sys, os
d = sys.argv[1]; t = sys.argv[2] if len(sys.argv) > 2 else "1"; tags = [""] + sys.argv[3:]
rows, order = {}, []
pat = re.compile(r"^(\S+)\s+mb=(\d+)\s+(\S+)\s+algo=\d+\s+([\d.]+) ms.*onednn\s+([\d.]+) ms ratio ([\d.]+)")
for tag, mb, lay in [(g, m, l) for g in tags for m in ("1", "32") for l in ("nchw", "nhwc")]:
        f = os.path.join(d, f"t{t}_mb{mb}_{lay}{tag}.txt")
        if not os.path.exists(f):
            continue
        for line in open(f):
            m = pat.match(line)
            if not m:
                continue
            name, _, dr, ms, dms, r = m.groups()
            key = (name, mb)
            if key not in rows:
                rows[key] = {}
                order.append(key)
            rows[key][(lay, dr)] = (float(ms), float(dms), float(r))
cols = [(l, x) for l in ("nchw", "nhwc") for x in ("fwd", "bwd_d", "bwd_w")]
print("| layer | mb | " + " | ".join(f"{l.upper()} {x}" for l, x in cols) + " |")
print("| --- | ---: | " + " | ".join("---:" for _ in cols) + " |")
met = total = 0
for key in sorted(order, key=lambda k: (int(k[1]), order.index(k))):
    cells = []
    for c in cols:
        v = rows[key].get(c)
        if v is None:
            cells.append("-")
            continue
        total += 1
        met += v[2] >= 1.0
        cells.append(f"**{v[2]:.2f}**" if v[2] >= 1.0 else f"{v[2]:.2f}")
    print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
print(f"\n{met} of {total} cells at or above 1.0x.")
for mb in ("1", "32"):
    for c in cols:
        fd = sum(rows[k][c][0] for k in order if k[1] == mb and c in rows[k])
        od = sum(rows[k][c][1] for k in order if k[1] == mb and c in rows[k])
        if fd:
            print(f"set mb={mb} {c[0]} {c[1]}: FreeDNN {fd:.3f} ms, oneDNN {od:.3f} ms, ratio {od / fd:.2f}")
