#!/bin/bash
# Work per thread: perf cpu-clock samples (4 kHz) in the solver's kernels,
# per thread, base and new, 1 and 2 threads, --iters 30 of one layer line.
# usage: perf_work.sh SHAPEFILE LAYOUT [NEWBIN]
f=$1; lay=$2
BASE=/work/main/build-base/tools/freednn-bench/freednn-bench
NEW=${3:-build/tools/freednn-bench/freednn-bench}
for who in base new; do
  b=$BASE; [ $who = new ] && b=$NEW
  for t in 1 2; do
    echo "## $who threads $t $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')"
    perf record -q -e cpu-clock -o /tmp/wgw2t_pw.data env FREEDNN_BENCH_CPU_TIME=$([ $t = 1 ] && echo 1 || echo 0) \
      $b --no-dnnl --threads $t --iters 30 --dir bwd_w --layout $lay --file $f 2>&1 | grep -v "^#"
    perf report -i /tmp/wgw2t_pw.data -n --no-children --sort pid,symbol 2>/dev/null | grep -v "^#" |
      awk '$5 ~ /^(product|x_channels|dy_channel|finish_task|sum_task)$/ {split($3,a,":"); w[a[1]" "$5]+=$2; tot[a[1]]+=$2}
           END {for (k in w) print "  tid", k, w[k]; for (t in tot) print "  tid", t, "WORK", tot[t]}' | sort
  done
done
