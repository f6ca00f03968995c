# Depthwise: oneDNN / FreeDNN per cell, the quiet base of 05:49 (main 9174262,
# bench/results/2026-12-05-dwreg/quiet_base) against the merged tree (dw_new).
#   python3 bench/results/2026-12-05-s8end/dw_table.py
import re, glob, os
here = os.path.dirname(os.path.abspath(__file__))
def load(d):
    rows = {}
    for f in sorted(glob.glob(os.path.join(d, 't1_mb*_*.txt'))):
        mb, lay = re.search(r'mb(\d+)_(\w+)\.txt', f).groups()
        for l in open(f):
            m = re.match(r'(\S+)\s+mb=\d+\s+(\S+)\s+algo=\S+\s+([\d.]+) ms.*onednn\s+([\d.]+) ms ratio ([\d.]+)', l)
            if m:
                rows[(m.group(1), mb, lay, m.group(2))] = float(m.group(5))
    return rows
b = load(os.path.join(here, '..', '2026-12-05-dwreg', 'quiet_base'))
n = load(os.path.join(here, 'dw_new'))
cols = [(l, d) for l in ('nchw', 'nhwc') for d in ('fwd', 'bwd_d', 'bwd_w')]
print('| layer | mb | ' + ' | '.join(f'{l.upper()} {d}' for l, d in cols) + ' |')
print('| --- | ---: |' + ' ---: |' * len(cols))
names = sorted(set((k[0], k[1]) for k in n), key=lambda x: (int(x[1]), x[0]))
cnt = {'b': 0, 'n': 0}
for name, mb in names:
    cells = []
    for l, d in cols:
        k = (name, mb, l, d)
        rb, rn = b.get(k), n.get(k)
        cnt['b'] += rb is not None and rb >= 1
        cnt['n'] += rn is not None and rn >= 1
        cells.append(f'{rb:.2f} -> ' + (f'**{rn:.2f}**' if rn >= 1 else f'{rn:.2f}'))
    print(f'| {name} | {mb} | ' + ' | '.join(cells) + ' |')
print(f'\nAt or above 1.0x: base {cnt["b"]} of {len(n)}, merged tree {cnt["n"]} of {len(n)}.')
for l, d in cols:
    for mb in ('1', '32'):
        ks = [k for k in n if k[1] == mb and k[2] == l and k[3] == d]
        print(f'{l} {d} mb={mb}: >=1.0 base {sum(b[k] >= 1 for k in ks)}, new {sum(n[k] >= 1 for k in ks)} of {len(ks)}; median ratio {sorted(b[k] for k in ks)[len(ks)//2]:.2f} -> {sorted(n[k] for k in ks)[len(ks)//2]:.2f}')
