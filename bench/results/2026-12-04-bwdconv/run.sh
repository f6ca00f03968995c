#!/bin/bash
# A/B of the branch point (base: freednn-bench built at 230c10b, copied aside)
# against this branch, oneDNN in the same runs, alternating, 1 thread, CPU time.
# usage: run.sh DIR(bwd_w|bwd_d) SHAPEFILE ROUNDS OUTFILE [THREADS]
d=$1; f=$2; n=$3; out=$4; t=${5:-1}
BASE=${BASE:-$HOME/bwdbase/freednn-bench-base}
NEW=${NEW:-build/tools/freednn-bench/freednn-bench}
: > $out
for r in $(seq 1 $n); do
  echo "# round $r $(uptime)" >> $out
  OMP_NUM_THREADS=$t FREEDNN_BENCH_CPU_TIME=1 $BASE --threads $t --iters 5 --dir $d --file $f | grep -v '^#' | sed 's/^/base /' >> $out
  OMP_NUM_THREADS=$t FREEDNN_BENCH_CPU_TIME=1 $NEW --threads $t --iters 5 --dir $d --file $f | grep -v '^#' | sed 's/^/new /' >> $out
done
python3 - $out <<'PY'
import sys,statistics as st,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('#'): continue
    w=l.split(); who=w[0]; name=w[1]
    ms=float(w[5]); dn=float(w[w.index('onednn')+1]) if 'onednn' in w else None
    d[(name,who)].append(ms)
    if dn: d[(name,'dnnl')].append(dn)
print("| layer | base ms (median / min) | new ms (median / min) | oneDNN ms (median / min) | oneDNN / new (median, min/min) | oneDNN / base (median) |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for name in dict.fromkeys(k[0] for k in d):
    b=d[(name,'base')]; a=d[(name,'new')]; o=d[(name,'dnnl')]
    print(f"| {name} | {st.median(b):.1f} / {min(b):.1f} | {st.median(a):.1f} / {min(a):.1f} | {st.median(o):.1f} / {min(o):.1f} | {st.median(o)/st.median(a):.2f}, {min(o)/min(a):.2f} | {st.median(o)/st.median(b):.2f} |")
PY
