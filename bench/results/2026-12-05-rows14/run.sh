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
# (the loop is bench/ab-layers.sh)
exec bench/ab-layers.sh "$1" "$2" "$3" "$4" "${5:-bench/results/2026-12-05-rows14/cells.txt}"
