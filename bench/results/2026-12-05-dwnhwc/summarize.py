#!/usr/bin/env python3
"""Tables of session 9 (dwnhwc) from the raw bench files.

  summarize.py align DIR   run.sh's files: malloc'd vs 64-byte aligned buffers (the branch point)
  summarize.py ab DIR      ab.sh's files: branch point (base) vs branch (new), malloc'd buffers

Per cell: ms = median over the rounds; ratio = median of the per-line
oneDNN / FreeDNN ratios (oneDNN measured beside each line)."""
import collections, glob, os, re, statistics, sys

LINE = re.compile(r'(\S+)\s+mb=(\d+)\s+(\S+)\s+algo=\d+\s+([\d.]+) ms.*onednn\s+([\d.]+) ms ratio ([\d.]+)')


def load(path):
    for line in open(path):
        m = LINE.match(line)
        if m:
            yield (m.group(1), int(m.group(2)), m.group(3)), float(m.group(4)), float(m.group(6))


def main():
    mode, d = sys.argv[1], sys.argv[2]
    sides = ('malloc', 'align64') if mode == 'align' else ('base', 'new')
    data = collections.defaultdict(lambda: collections.defaultdict(list))
    loads = []
    for f in sorted(glob.glob(os.path.join(d, 't1_*.txt'))):
        side = next(s for s in sides if '_%s_' % s in os.path.basename(f) or '_%s.' % s in os.path.basename(f))
        loads.append(open(f).readline().split('load:')[1].split()[0])
        for k, ms, ratio in load(f):
            data[k][side].append((ms, ratio))
    print('load average (1 min) at the start of each raw file:', ' '.join(loads))
    print()
    print('| layer | mb | dir | %s ms | %s ms | %s/%s | oneDNN/FreeDNN %s | oneDNN/FreeDNN %s |' % (
        sides[0], sides[1], sides[1], sides[0], sides[0], sides[1]))
    print('| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |')
    cls = collections.defaultdict(lambda: [0, 0, 0, [], []])
    for k in sorted(data, key=lambda k: (k[2], k[1], k[0])):
        a, b = data[k][sides[0]], data[k][sides[1]]
        if not a or not b:
            continue
        am, bm = statistics.median(x[0] for x in a), statistics.median(x[0] for x in b)
        ar, br = statistics.median(x[1] for x in a), statistics.median(x[1] for x in b)
        c = cls[(k[2], k[1])]
        c[0] += 1
        c[1] += ar >= 1.0
        c[2] += br >= 1.0
        c[3].append(ar)
        c[4].append(br)
        print('| %s | %d | %s | %.3f | %.3f | %.2f | %.2f | %.2f |' % (k[0], k[1], k[2], am, bm, bm / am, ar, br))
    print()
    print('| dir | mb | cells | >= 1.0x %s | >= 1.0x %s | median ratio %s | median ratio %s |' % (
        sides[0], sides[1], sides[0], sides[1]))
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for (dr, mb), c in sorted(cls.items()):
        print('| %s | %d | %d | %d | %d | %.2f | %.2f |' % (dr, mb, c[0], c[1], c[2], statistics.median(c[3]),
                                                          statistics.median(c[4])))


main()
