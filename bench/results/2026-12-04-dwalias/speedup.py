#!/usr/bin/env python3
"""FreeDNN against itself: per NHWC cell, the sum over the runs of the
branch point's FreeDNN medians over the sum of the branch's (> 1: the
branch is faster), from run.sh's raw files.
Usage: speedup.py BEFORE_DIR AFTER_DIR LAYOUT TAG... ("-" = no tag)"""
import os, re, sys
line_re = re.compile(r"^(\S+)\s+mb=(\d+)\s+(\S+)\s+algo=\d+\s+([\d.]+) ms")
def times(folder, layout, tags):
    out, order = {}, []
    for mb in ("1", "32"):
        for tag in tags:
            path = os.path.join(folder, f"t1_mb{mb}_{layout}{tag}.txt")
            if not os.path.exists(path):
                continue
            for text in open(path):
                m = line_re.match(text)
                if m is None:
                    continue
                layer, _, direction, ms = m.groups()
                key = (layer, mb)
                if key not in out:
                    out[key] = {}
                    order.append(key)
                out[key][direction] = out[key].get(direction, 0.0) + float(ms)
    return out, order
before_dir, after_dir, layout = sys.argv[1:4]
tags = ["" if t == "-" else t for t in sys.argv[4:]] or [""]
before, _ = times(before_dir, layout, tags)
after, order = times(after_dir, layout, tags)
dirs = ("fwd", "bwd_d", "bwd_w")
print(f"| layer | mb | {layout.upper()} " + f" | {layout.upper()} ".join(dirs) + " |")
print("| --- | ---: | ---: | ---: | ---: |")
for key in order:
    cells = []
    for d in dirs:
        b, a = before.get(key, {}).get(d), after[key].get(d)
        cells.append(f"{b / a:.2f}" if b and a else "-")
    print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
