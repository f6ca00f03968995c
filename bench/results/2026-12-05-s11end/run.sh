#!/bin/sh
# The merged tree of session 11 (packb's 1x1 changes) against main 5533203
# (base), quiet host: ResNet-50 training steps at 2 threads, FreeDNN and
# oneDNN alternated (ABBA pairs) in each run, base and new runs alternated
# (ABBA).  From the repository root after `ninja -C build`.
d=bench/results/2026-12-05-s11end
new=${NEW:-build/tools/freednn-bench/freednn-bench}
base=${BASE:-/work/main/build-base/tools/freednn-bench/freednn-bench}
run() { # NAME BINARY
  (uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 \
    $2 --net resnet50 --threads 2 --iters 5 --no-torch --profile; uptime) > $d/$1.txt 2>&1
}
run r50_base_r1 $base
run r50_new_r1 $new
run r50_new_r2 $new
run r50_base_r2 $base
