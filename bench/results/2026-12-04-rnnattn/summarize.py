#!/usr/bin/env python3
"""Tables of run.sh's output (after_t{1,2}.txt, before_t{1,2}.txt).
RNN: per case, the median over the alternations of FreeDNN FP32 before and
after and of oneDNN, and the per-run ratios oneDNN / FreeDNN (median, range);
per-phase medians of the branch's training rows.
Attention: FreeDNN FP32 before / after (median over runs of each run's
median, and the smallest minimum), PyTorch (same, from the branch's runs),
and the ratios PyTorch / FreeDNN per run on medians and on minima (median
of the runs, range)."""
import re, statistics as st, os
d = os.path.dirname(os.path.abspath(__file__))
row = re.compile(r'^(\w+ h512 T50 mb32 \w+)\s+threads=(\d)\s+FP32\s+([\d.]+) ms.*oneDNN-FP32\s+([\d.]+) ms')
ph = re.compile(r'^(\w+ h512 T50 mb32 \w+)\s+threads=(\d)\s+phases FP32 fwd\s+([\d.]+) bwd-data\s+([\d.]+) '
                r'bwd-weights\s+([\d.]+) ms\s+oneDNN-FP32 fwd\s+([\d.]+) bwd\(data\+weights\)\s+([\d.]+)')
at = re.compile(r'^(mha [\w ]+?)\s+threads=(\d)\s+FP32\s+([\d.]+) ms \(min\s+([\d.]+)\).*PyTorch-FP32\s+([\d.]+) ms '
                r'\(min\s+([\d.]+)\)')
load_re = re.compile(r'load average: ([\d.]+)')
def load(name):
    rows, phases, attn, loads = {}, {}, {}, []
    p = os.path.join(d, name)
    if not os.path.exists(p):
        return rows, phases, attn, loads
    for line in open(p):
        m = row.match(line)
        if m:
            rows.setdefault((m[1], m[2]), []).append((float(m[3]), float(m[4])))
        m = ph.match(line)
        if m:
            phases.setdefault((m[1], m[2]), []).append([float(v) for v in m.groups()[2:]])
        m = at.match(line)
        if m:
            attn.setdefault((m[1].strip(), m[2]), []).append([float(v) for v in m.groups()[2:]])
        m = load_re.search(line)
        if m:
            loads.append(float(m[1]))
    return rows, phases, attn, loads
def rng(v):
    return f'{st.median(v):.2f}x ({min(v):.2f}-{max(v):.2f})'
for t in '12':
    a, aph, aat, la = load(f'after_t{t}.txt')
    b, _, bat, lb = load(f'before_t{t}.txt')
    if not a:
        continue
    print(f'threads={t}  runs: {len(next(iter(a.values())))} per build, load average {min(la+lb):.1f}-{max(la+lb):.1f}')
    print('| case | FreeDNN before | FreeDNN after | speedup | oneDNN (after runs) | oneDNN / FreeDNN before | oneDNN / FreeDNN after |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for k in a:
        fa = st.median(x[0] for x in a[k]); fb = st.median(x[0] for x in b[k])
        dn = st.median(x[1] for x in a[k])
        ra = [x[1] / x[0] for x in a[k]]; rb = [x[1] / x[0] for x in b[k]]
        print(f'| {k[0]} | {fb:.1f} ms | {fa:.1f} ms | {fb/fa:.2f}x | {dn:.1f} ms | {rng(rb)} | **{rng(ra)}** |')
    print()
    print('| training | FreeDNN fwd | bwd-data | bwd-weights | oneDNN fwd | oneDNN bwd (data+weights) | fwd ratio | bwd ratio |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for k, v in aph.items():
        m = [st.median(x[i] for x in v) for i in range(5)]
        print(f'| {k[0]} | {m[0]:.1f} | {m[1]:.1f} | {m[2]:.1f} | {m[3]:.1f} | {m[4]:.1f} | {m[3]/m[0]:.2f}x '
              f'| {m[4]/(m[1]+m[2]):.2f}x |')
    print()
    print('| attention | FreeDNN before med / min | FreeDNN after med / min | speedup (med) | PyTorch med / min (after runs) '
          '| PyTorch / FreeDNN after, medians | on minima |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for k in aat:
        va, vb = aat[k], bat.get(k, [])
        fam = st.median(x[0] for x in va); fan = min(x[1] for x in va)
        fbm = st.median(x[0] for x in vb) if vb else float('nan'); fbn = min(x[1] for x in vb) if vb else float('nan')
        tm = st.median(x[2] for x in va); tn = min(x[3] for x in va)
        rmed = [x[2] / x[0] for x in va]; rmin = [x[3] / x[1] for x in va]
        print(f'| {k[0]} | {fbm:.2f} / {fbn:.2f} ms | {fam:.2f} / {fan:.2f} ms | {fbm/fam:.2f}x | {tm:.2f} / {tn:.2f} ms '
              f'| {rng(rmed)} | {rng(rmin)} |')
    print()
