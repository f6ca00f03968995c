#!/bin/sh
# The merged tree of session 12 against main 5c5ebaa (base, the session's
# start), quiet host: ResNet-50 training steps at 2 threads (NCHW and NHWC)
# and MobileNet v2 NHWC training steps at 1 thread (CPU time), FreeDNN and
# oneDNN alternated in each run, base and new runs alternated (ABBA).
# From the repository root after `ninja -C build`.
d=bench/results/2026-12-05-s12end
new=${NEW:-build/tools/freednn-bench/freednn-bench}
base=${BASE:-/work/main/build-base/tools/freednn-bench/freednn-bench}
r50() { # NAME BINARY
  (uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 \
    $2 --net resnet50 --threads 2 --iters 5 --no-torch --profile; uptime) > $d/$1.txt 2>&1
}
mbv2() { # NAME BINARY
  (uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 \
    $2 --net mobilenet_v2 --threads 1 --iters 5 --no-torch --layout nhwc --clock cpu --profile; uptime) > $d/$1.txt 2>&1
}
r50 r50_base_r1 $base
r50 r50_new_r1 $new
r50 r50_new_r2 $new
r50 r50_base_r2 $base
mbv2 mbv2_base_r1 $base
mbv2 mbv2_new_r1 $new
mbv2 mbv2_new_r2 $new
mbv2 mbv2_base_r2 $base
