#!/bin/bash
# usage: abm.sh dir file rounds  -> per-shape medians of base/new
d=$1; f=$2; n=$3; out=$(mktemp)
for r in $(seq 1 $n); do
  FREEDNN_BENCH_CPU_TIME=1 ~/bwdbase/freednn-bench-base --no-dnnl --threads 1 --iters 5 --dir $d --file $f | grep -v '^#' | awk '{print "base", $1, $5}' >> $out
  FREEDNN_BENCH_CPU_TIME=1 /work/wt/bwdconv/build/tools/freednn-bench/freednn-bench --no-dnnl --threads 1 --iters 5 --dir $d --file $f | grep -v '^#' | awk '{print "new", $1, $5}' >> $out
done
python3 - $out <<'PY'
import sys,statistics as s,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    w,n,t=l.split(); d[(n,w)].append(float(t))
for n in sorted(set(k[0] for k in d)):
    b=s.median(d[(n,'base')]); a=s.median(d[(n,'new')])
    print(f"{n:32s} base {b:8.2f} new {a:8.2f}  speedup {b/a:.3f}  (base {' '.join('%.1f'%x for x in d[(n,'base')])} | new {' '.join('%.1f'%x for x in d[(n,'new')])})")
PY
uptime
