#!/bin/sh
# The merged tree of session 10 against main 37b0900 (base), quiet host:
# training steps at 2 threads, FreeDNN and oneDNN alternated (ABBA pairs)
# in each run, base and new runs alternated.  From the repository root
# after `ninja -C build`; BASE is a freednn-bench built from 37b0900.
d=bench/results/2026-12-05-s10end
new=build/tools/freednn-bench/freednn-bench
base=${BASE:-/work/main/build-base/tools/freednn-bench/freednn-bench}
run() { # NAME BINARY NET ITERS
  (uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 \
    $2 --net $3 --threads 2 --iters $4 --no-torch --profile; uptime) > $d/$1.txt 2>&1
}
run mbv2_base_r1 $base mobilenet_v2 5
run mbv2_new_r1 $new mobilenet_v2 5
run r50_new_r1 $new resnet50 5
run r50_base_r1 $base resnet50 5
run mbv2_new_r2 $new mobilenet_v2 5
run mbv2_base_r2 $base mobilenet_v2 5
run r50_base_r2 $base resnet50 5
run r50_new_r2 $new resnet50 5
