#!/usr/bin/env python3
"""Share of each leaf function in the samples whose call chain passes through
a function matching a regular expression (perf script output on stdin): where a layer's time goes,
without the bench's setup.  usage: perf script -i F | leafs.py REGEX"""
import re
import sys
func = sys.argv[1]
counts, total, chain = {}, 0, []


def flush():
    global total
    if chain and any(re.search(func, f) for f in chain):
        total += 1
        counts[chain[0]] = counts.get(chain[0], 0) + 1


for line in sys.stdin:
    s = line.strip()
    if not s:
        flush()
        chain = []
        continue
    if line[0] in ' \t':
        parts = s.split()
        if len(parts) >= 2:
            chain.append(parts[1].split('+')[0])
flush()
print(f"{total} samples under {func}")
for k, v in sorted(counts.items(), key=lambda kv: -kv[1])[:15]:
    print(f"{100.0 * v / max(total, 1):6.2f}%  {k}")
