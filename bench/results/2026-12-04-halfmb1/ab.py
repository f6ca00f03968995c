#!/usr/bin/env python3
"""Tables of run.sh's outputs: per build (new = this branch, base = the
branch point) and mb, the per-layer minima over all its rounds of FP32 and
PSEUDO_HALF, HALF / FP32 (FP32 time over HALF time), the sums of the
minima, and every round's own sums.  Usage: ab.py [MB [TAG]] (default 1
new: the files mbMB_base_*.txt against mbMB_TAG_*.txt)."""
import glob
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
mb = sys.argv[1] if len(sys.argv) > 1 else '1'
tag = sys.argv[2] if len(sys.argv) > 2 else 'new'


def load(build):
    runs, order, rounds = {}, [], []
    for f in sorted(glob.glob(os.path.join(here, 'mb%s_%s_*.txt' % (mb, build)))):
        tag = os.path.basename(f)[:-4]
        for line in open(f):
            m = re.match(r'(f32|f16) r(\d+)\s+(\S+)\s+mb=\d+\s+fwd\s+algo=(\d+)\s+([\d.]+) ms', line)
            if not m:
                continue
            kind, rnd, name, algo, ms = m.group(1), tag + '/r' + m.group(2), m.group(3), m.group(4), float(m.group(5))
            if name not in order:
                order.append(name)
            if rnd not in rounds:
                rounds.append(rnd)
            runs.setdefault((kind, name), {})[rnd] = ms
            runs.setdefault(('algo', name), algo)
    return runs, order, rounds


data = {'base': load('base'), 'new': load(tag)}
order = data['new'][1] or data['base'][1]
print('mb=%s (new = %s): per-layer minima over all rounds (ms); HALF / FP32 = FP32 min / HALF min\n' % (mb, tag))
print('| layer | algo | base FP32 | base HALF | base HALF / FP32 | new FP32 | new HALF | new HALF / FP32 |')
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
tot = {}
for n in order:
    row = ['| %s | %s' % (n, data['new'][0].get(('algo', n), '?'))]
    for b in ('base', 'new'):
        runs = data[b][0]
        if ('f32', n) not in runs:
            row.append(' | | | ')
            continue
        a, h = min(runs[('f32', n)].values()), min(runs[('f16', n)].values())
        for key, v in (('f32', a), ('f16', h)):
            tot[(b, key, 'all')] = tot.get((b, key, 'all'), 0) + v
            part = '1x1' if '_1x1' in n else '3x3'
            tot[(b, key, part)] = tot.get((b, key, part), 0) + v
        row.append(' | %.3f | %.3f | %.2fx' % (a, h, a / h))
    print(''.join(row) + ' |')
for part, label in (('1x1', 'sum of the 1x1 layers'), ('3x3', 'sum of the 3x3 and 7x7 layers'),
                    ('all', '**sum of the minima**')):
    row = ['| %s | ' % label]
    for b in ('base', 'new'):
        a, h = tot.get((b, 'f32', part), 0), tot.get((b, 'f16', part), 1e-9)
        row.append(' | %.2f | %.2f | %.2fx' % (a, h, a / h))
    print(''.join(row) + ' |')
print()
for b in ('base', 'new'):
    runs, names, rounds = data[b]
    sums = []
    for r in rounds:
        a = sum(runs[('f32', n)].get(r, 0) for n in names)
        h = sum(runs[('f16', n)].get(r, 0) for n in names)
        sums.append('%s %.2f / %.2f ms %.2fx' % (r, a, h, a / max(h, 1e-9)))
    print('%s, per-round sums (FP32 / HALF, HALF / FP32): %s' % (b, '; '.join(sums)))
    print()
