#!/bin/bash
# /tmp/wg_lN.txt = line N of layers_1x1_14.txt (for L in 1 2 3 4 5 6; do sed -n ${L}p layers_1x1_14.txt > /tmp/wg_l$L.txt; done); build = main + not_kept_experiment_switches.patch
# usage: wg_t.sh LAYER config...   prints kernel-est ms per run (iters 5 + 1 warmup? -> divide by total runs)
L=$1; shift
for c in "$@"; do
  c2=$c; [ "$c" = new ] && c2=""
  out=$(env $(echo $c2 | tr , ' ') WG_T=1 OMP_NUM_THREADS=1 FREEDNN_BENCH_FLUSH_MB=64 /work/wt/wgrad1x1/build/tools/freednn-bench/freednn-bench --threads 1 --iters 5 --dir bwd_w --no-dnnl --file /tmp/wg_l$L.txt 2>&1)
  echo "$c $(echo "$out" | grep -v '^#' | awk "/mb=/{printf \"%s %s \", \$1, \$5} /WGT first/{printf \"first p50 %s cm %s \", \$9, \$13} /WGT rest/{printf \"rest p50 %s cm %s \", \$9, \$13} /est/{printf \"est %s\", \$4}" | tr '\n' ' ')"
done
