#!/usr/bin/env python3
"""Tables for docs/performance.md from the raw outputs of run.sh."""
import glob, re, statistics, sys

LINE = re.compile(r'^(\S+)\s+mb=(\d+)\s+(fwd|bwd_d|bwd_w)\s+algo=(\d+)\s+([\d.]+) ms')
DNNL = re.compile(r'onednn\s+([\d.]+) ms')

def parse(path):
    out = {}
    for l in open(path):
        m = LINE.match(l)
        if m:
            o = DNNL.search(l)
            out[(m.group(1), m.group(3))] = (float(m.group(5)), float(o.group(1)) if o else None, m.group(4))
    return out

def ab(mb):
    reps = {s: [parse(f) for f in sorted(glob.glob(f'ab_mb{mb}_{s}_*.txt'))] for s in ('base', 'new')}
    if not reps['base'] or not reps['new']:
        return
    keys = [k for k in reps['base'][0] if all(k in r for r in reps['base'] + reps['new'])]
    print(f'| layer (mb={mb}, NHWC) | dir | base ms | new ms | new/base speedup |')
    print('| --- | --- | --- | --- | --- |')
    tot = {'base': 0, 'new': 0}
    for k in keys:
        b = statistics.median(r[k][0] for r in reps['base'])
        n = statistics.median(r[k][0] for r in reps['new'])
        tot['base'] += b; tot['new'] += n
        print(f'| {k[0]} | {k[1]} | {b:.2f} | {n:.2f} | {b/n:.2f}x |')
    print(f'| **sum** | all | {tot["base"]:.1f} | {tot["new"]:.1f} | {tot["base"]/tot["new"]:.2f}x |')

def vs_dnnl(path, title, over=None):
    r = parse(path)
    if over:
        r.update(parse(over))
    print(f'\n{title}\n')
    print('| layer | dir | algo | FreeDNN ms | oneDNN ms | ratio |')
    print('| --- | --- | --- | --- | --- | --- |')
    sums = {}
    for (name, d), (t, o, algo) in r.items():
        if o is None:
            continue
        grp = 'fwd' if d == 'fwd' else 'bwd'
        s = sums.setdefault(grp, [0.0, 0.0]); s[0] += t; s[1] += o
        print(f'| {name} | {d} | {algo} | {t:.2f} | {o:.2f} | {o/t:.2f} |')
    for g, (t, o) in sums.items():
        print(f'| **sum {g}** | | | {t:.1f} | {o:.1f} | **{o/t:.2f}** |')

if __name__ == '__main__':
    ab(32)
    vs_dnnl('layers_mb32_base.txt', 'This branch vs oneDNN NHWC, mb=32 (1x1 rows from layers_1x1_mb32_new.txt, the rest, whose code did not change, from the branch point run)', 'layers_1x1_mb32_new.txt')
    for p, t in [('layers_mb32_base.txt', 'Branch point vs oneDNN NHWC, mb=32'), ('layers_mb32_new.txt', 'This branch vs oneDNN NHWC, mb=32'),
                 ('layers_mb1_base.txt', 'Branch point vs oneDNN NHWC, mb=1'), ('layers_mb1_new.txt', 'This branch vs oneDNN NHWC, mb=1')]:
        try:
            vs_dnnl(p, t)
        except (FileNotFoundError, IndexError):
            pass
    for s in ('base', 'new'):
        try:
            vs_dnnl(f'layers_1x1_mb1_{s}.txt', f'mb=1, 1x1 layers, {s} vs oneDNN NHWC')
        except FileNotFoundError:
            pass
