#!/bin/bash
# /tmp/wg_lN.txt = line N of layers_1x1_14.txt (for L in 1 2 3 4 5 6; do sed -n ${L}p layers_1x1_14.txt > /tmp/wg_l$L.txt; done); build = main + not_kept_experiment_switches.patch
# usage: wg_grid.sh ROUNDS LAYERNUMS -- config1 config2 ...   (config: "A=1,B=2" or "base")
R=$1; shift; LS=$1; shift
cd /work/wt/wgrad1x1
for r in $(seq 1 $R); do
 for L in $LS; do
  for c in "$@"; do
    b=build/tools/freednn-bench/freednn-bench; envs=""
    if [ "$c" = base ]; then b=/work/main/build-base/tools/freednn-bench/freednn-bench; else envs=$(echo $c | tr , ' '); fi
    [ "$c" = new ] && envs=""
    env $envs OMP_NUM_THREADS=${T:-1} FREEDNN_BENCH_CPU_TIME=$([ "${T:-1}" = 1 ] && echo 1 || echo 0) FREEDNN_BENCH_FLUSH_MB=64 nice -n 0 $b --threads ${T:-1} --iters 5 --dir bwd_w --no-dnnl --file /tmp/wg_l$L.txt 2>&1 | grep -v "^#" | awk -v a="$c" '{print a, $1, $5}'
  done
 done
done | python3 -c '
import sys,collections,statistics
d=collections.OrderedDict()
for l in sys.stdin:
  c,n,t=l.split(); d.setdefault((n,c),[]).append(float(t))
for (n,c),v in d.items(): print("%-28s %-24s min %7.2f med %7.2f  %s"%(n,c,min(v),statistics.median(v)," ".join("%.1f"%x for x in v)))
'
