#!/usr/bin/env python3
"""Per run of net.txt: the step times and the memory-bound ops' ms per step
(bn, relu, add, maxpool; fwd + bwd) of both layouts, and oneDNN's step."""
import re
runs = []
for line in open('net.txt'):
    if line.startswith('== '):
        runs.append({'who': 'base' if 'build-base' in line else 'branch',
                     'load': re.search(r'load average: ([\d.]+)', line).group(1), 'prof': []})
    elif line.startswith('# FreeDNN profile'):
        d = dict((k, float(v)) for k, v in re.findall(r'(\w+\.\w+)=([\d.]+)', line))
        runs[-1]['prof'].append(d)
    elif re.match(r'# FreeDNN (NCHW|NHWC):', line):
        runs[-1][line.split()[2][:-1]] = float(line.split()[3])
    elif line.startswith('# oneDNN  '):
        runs[-1]['onednn'] = float(line.split()[2])
keys = ['bn.fwd', 'bn.bwd_d', 'relu.fwd', 'relu.bwd_d', 'add.fwd', 'add.bwd_d', 'maxpool.fwd', 'maxpool.bwd_d']
print('| run | build | load | NCHW step | NCHW mem-bound ops | NHWC step | NHWC mem-bound ops | oneDNN step |')
print('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |')
for i, r in enumerate(runs):
    if 'NHWC' not in r:
        continue
    mem = [sum(p.get(k, 0) for k in keys) for p in r['prof']]
    print(f"| {i + 1} | {r['who']} | {r['load']} | {r['NCHW']:.0f} | {mem[0]:.0f} | {r['NHWC']:.0f} | {mem[1]:.0f} | "
          f"{r.get('onednn', float('nan')):.0f} |")
