#!/bin/bash
# A/B of the branch point (base: freednn-bench built at f89bd7e, rows14's branch point, and
# copied to build-base/ before any change) against this branch, oneDNN in
# every run, alternating base/new.  1 thread: the calling thread's CPU time
# (FREEDNN_BENCH_CPU_TIME=1); 2 threads: wall clock.  Run from the worktree root.
# usage: bench/results/2026-12-05-rows14/run.sh DIR(bwd_w|bwd_d) THREADS ROUNDS OUTFILE [SHAPEFILE]
# The kernel harness (kbench.c, kbench_0903.txt): build it twice, against the
# branch point's kernel objects (f32_gemm_a{ptrs,rows}_14x32__avx512.c.o of a
# build of f89bd7e) and this branch's, plus the packed 14x32 object:
#   O=build/CMakeFiles/fdnn_objects.dir/src/cpu/kernels
#   gcc -O2 -o kbench_new bench/results/2026-12-05-rows14/kbench.c \
#       $O/f32_gemm_a{ptrs,rows}_14x32__avx512.c.o $O/f32_gemm_14x32__avx512.c.o
#   ./kbench_new ptrs196 | ptrs245 | rows196 | packed196 | layer
# perf leaf shares (perf/leafs_*.txt):
#   perf record -g -o p.data build/tools/freednn-bench/freednn-bench --threads 1 --iters 20 --dir bwd_w --file ONE_LAYER
#   perf script -i p.data | bench/results/2026-12-05-rows14/leafs.py 'rows_|aptrs|arows|pack_t|store_dw|im2col|fdnn_conv|conv_gemm'
d=$1; t=$2; n=$3; out=$4
f=${5:-bench/results/2026-12-05-rows14/cells.txt}
BASE=${BASE:-build-base/freednn-bench}
NEW=${NEW:-build/tools/freednn-bench/freednn-bench}
cpu=$([ "$t" = 1 ] && echo 1 || echo 0)
: > $out
for r in $(seq 1 $n); do
  for who in base new; do
    b=$BASE; [ $who = new ] && b=$NEW
    echo "# round $r $who $(date -u +%H:%M:%S) $(uptime)" >> $out
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$t FREEDNN_BENCH_CPU_TIME=$cpu \
      $b --threads $t --iters 5 --dir $d --file $f | grep -v '^#' | sed "s/^/$who /" >> $out
  done
done
python3 bench/results/2026-12-05-trainbwd/table.py $out > ${out%.txt}_table.md
cat ${out%.txt}_table.md
