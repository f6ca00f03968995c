#!/usr/bin/env python3
"""Per run of net.txt (run.sh): the step times of both layouts, batch norm
and max pooling ms per step (fwd, bwd) from --profile, and oneDNN's step and
its batch_normalization / pooling ms per step.  Run in this folder."""
import re
runs = []
for line in open('net.txt'):
    if line.startswith('== '):
        runs.append({'who': 'base' if 'build-base' in line else 'branch',
                     'load': re.search(r'load average: ([\d.]+)', line).group(1), 'prof': []})
    elif line.startswith('# FreeDNN profile'):
        runs[-1]['prof'].append(dict((k, float(v)) for k, v in re.findall(r'(\w+\.\w+)=([\d.]+)', line)))
    elif re.match(r'# FreeDNN (NCHW|NHWC):', line):
        runs[-1][line.split()[2][:-1]] = float(line.split()[3])
    elif line.startswith('# oneDNN profile'):
        runs[-1]['oprof'] = dict((k, float(v)) for k, v in re.findall(r'(\w+\.\w+)=([\d.]+)', line))
    elif line.startswith('# oneDNN  '):
        runs[-1]['onednn'] = float(line.split()[2])
print('| run | build | load | NCHW step | NCHW BN fwd / bwd | NCHW maxpool fwd / bwd | NHWC step | NHWC BN fwd / bwd | '
      'NHWC maxpool fwd / bwd | oneDNN step | oneDNN BN fwd / bwd | oneDNN pool fwd / bwd |')
print('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for i, r in enumerate(runs):
    if len(r['prof']) < 2:
        continue
    a, b, o = r['prof'][0], r['prof'][1], r.get('oprof', {})
    f = lambda p, k: f"{p.get(k + '.fwd', 0):.1f} / {p.get(k + '.bwd_d', p.get(k + '.bwd', 0)):.1f}"
    print(f"| {i + 1} | {r['who']} | {r['load']} | {r['NCHW']:.0f} | {f(a, 'bn')} | {f(a, 'maxpool')} | "
          f"{r['NHWC']:.0f} | {f(b, 'bn')} | {f(b, 'maxpool')} | {r.get('onednn', float('nan')):.0f} | "
          f"{f(o, 'batch_normalization')} | {f(o, 'pooling_v2')} |")
