#!/bin/bash
# usage: ab2.sh FILE ROUNDS THREADS DIR BIN_A BIN_B ; min/median ms per layer
f=$1; n=$2; t=$3; d=$4; A=$5; B=$6
cpu=$([ "$t" = 1 ] && echo 1 || echo 0)
out=/tmp/bwdw2t/ab2_$$.txt; : > $out
for r in $(seq 1 $n); do for who in A B; do
 b=$A; [ $who = B ] && b=$B
 env FREEDNN_BENCH_CPU_TIME=$cpu $b --threads $t --iters 5 --dir $d --no-dnnl --file $f | grep -v '^#' | awk -v w=$who '{print w, $1, $5}' >> $out
done; done
python3 - $out <<'PY'
import sys,collections
d=collections.defaultdict(list); order=[]
for l in open(sys.argv[1]):
    w,name,ms=l.split(); d[(name,w)].append(float(ms))
    if name not in order: order.append(name)
for nm in order:
    a=d[(nm,'A')]; b=d[(nm,'B')]
    print(f"{nm:30s} A min {min(a):8.3f} med {sorted(a)[len(a)//2]:8.3f}  B min {min(b):8.3f} med {sorted(b)[len(b)//2]:8.3f}  B/A(min) {min(b)/min(a):.3f}")
PY
uptime
