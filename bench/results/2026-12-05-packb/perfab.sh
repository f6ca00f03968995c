#!/bin/bash
# usage: pk_perfab.sh DIR FILE ROUNDS ; prints per run: who, samples in fdnn_ kernels, pack samples
d=$1; f=$2; n=$3
for r in $(seq 1 $n); do for who in base new; do
  b=build/tools/freednn-bench/freednn-bench; [ $who = base ] && b=/work/main/build-base/tools/freednn-bench/freednn-bench
  FREEDNN_BENCH_FLUSH_MB=64 nice -n 10 perf record -q -e cpu-clock:u -o /tmp/pk_ab.data $b --threads 1 --iters 20 --dir $d --no-dnnl --file $f >/dev/null 2>&1
  perf report -i /tmp/pk_ab.data -n --no-children --sort symbol --stdio 2>/dev/null | awk -v who=$who -v r=$r '/fdnn_|_f32|s_compute/ {tot+=$2} /pack_b49/ {pk+=$2} END {printf "%s r%d conv_samples %d pack %d (%.1f%%) load %s\n", who, r, tot, pk, 100*pk/tot, "'"$(cut -d' ' -f1 /proc/loadavg)"'"}'
done; done
