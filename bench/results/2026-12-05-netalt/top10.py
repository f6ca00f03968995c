#!/usr/bin/env python3
# The top rows of each per-node table (freednn-bench --net --profile nodes)
# in a raw output, as markdown: where FreeDNN's step loses to oneDNN's.
# Usage: top10.py FILE [N]
import re
import sys

path = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 10
rows, title = [], None


def flush():
    if title is None:
        return
    print(f"\n{title}\n")
    print("| shape | n | FreeDNN ms | oneDNN ms | F - O | fwd F / O | bwd_data F / O | bwd_w F / O | O reord | FreeDNN algos | oneDNN fwd impl |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for r in rows[:top]:
        print("| " + " | ".join(r) + " |")


for line in open(path):
    m = re.match(r"# per-node profile, (.*?): ms per step", line)
    if m:
        flush()
        title, rows = m.group(1), []
        continue
    if title is None or not line.startswith("  ") or line.startswith("  all nodes"):
        continue
    left, fwd, bwd_d, bwd_w, aux, names = line.split("|")[:6]
    m = re.match(r"\s+(.*?)\s+(\d+)\s+([\d.]+)\s+([\d.-]+)\s+([\d.-]+)\s*$", left)
    if not m:
        continue
    shape, n, ft, ot, d = m.groups()

    def pair(c):
        v = c.split()
        return "-" if v[0] == "-" else f"{v[0]} / {v[1]}"

    aux = aux.split()[0]
    names = names.split()
    algos, impl = (names[0], names[1]) if len(names) >= 2 else ("-", "-")
    rows.append([shape, n, ft, ot, d, pair(fwd), pair(bwd_d), pair(bwd_w), aux, algos, impl])
flush()
