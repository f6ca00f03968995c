#!/usr/bin/env python3
# Min-of-rounds table of a run.sh layers file: base, new, oneDNN (min over
# rounds), new/base and oneDNN/new.   table.py FILE...
import sys, collections
for f in sys.argv[1:]:
    t = collections.defaultdict(lambda: {'base': [], 'new': [], 'dnnl': []})
    for line in open(f):
        w = line.split()
        if len(w) < 12 or w[0] not in ('base', 'new') or 'ratio' not in w:
            continue
        key = (w[1], w[3])
        t[key][w[0]].append(float(w[5]))
        t[key]['dnnl'].append(float(w[w.index('onednn') + 1]))
    print(f'## {f}\n| layer | dir | base | new | new/base | oneDNN | oneDNN/new |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |')
    for k, v in t.items():
        if not v['base'] or not v['new']:
            continue
        b, n, o = min(v['base']), min(v['new']), min(v['dnnl'])
        print(f'| {k[0]} | {k[1]} | {b:.3f} | {n:.3f} | {n/b:.2f} | {o:.3f} | {o/n:.2f} |')
