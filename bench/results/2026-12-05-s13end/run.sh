#!/bin/sh
# The merged tree of session 13 against main 188f8f9 (base, the session's
# start): the layers the session changed, base and new alternated per round
# (1 thread: thread CPU time; 2 threads: wall clock), oneDNN in the same
# runs; then ResNet-50 training steps at 2 threads and MobileNet v2 NHWC
# training steps at 1 thread (CPU time), base and new runs alternated (ABBA).
# From the repository root after `ninja -C build`.
d=bench/results/2026-12-05-s13end
new=${NEW:-build/tools/freednn-bench/freednn-bench}
base=${BASE:-/work/main/build-base/tools/freednn-bench/freednn-bench}
ROUNDS=${ROUNDS:-3}
layers() { # NAME THREADS LAYOUT DIR FILE
  for r in $(seq $ROUNDS); do
    for side in base new; do
      eval bin=\$$side
      echo "# round $r $side $(uptime)"
      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$2 FREEDNN_BENCH_CPU_TIME=$([ $2 = 1 ] && echo 1 || echo 0) \
        $bin --threads $2 --iters 5 --layout $3 --dir $4 --file $5 | grep -v '^#' | sed "s/^/$side /"
    done
  done > $d/$1.txt 2>&1
}
layers wino_nchw_t1 1 nchw bwd_w $d/wino.txt
layers wino_nchw_t2 2 nchw bwd_w $d/wino.txt
layers wino_nhwc_t1 1 nhwc bwd_w $d/wino.txt
layers wino_nhwc_t2 2 nhwc bwd_w $d/wino.txt
layers dw_nhwc_t1 1 nhwc all bench/dwconv_shapes.txt
layers dw_nhwc_t2 2 nhwc all bench/dwconv_shapes.txt
layers dw_nchw_t1 1 nchw all bench/dwconv_shapes.txt
layers narrow_nhwc_t1 1 nhwc bwd_w $d/narrow.txt
layers dw32_nhwc_t1 1 nhwc all $d/dw32.txt
[ "$NET" = 0 ] && exit 0
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
mbv2 mbv2_base_r1 $base
mbv2 mbv2_new_r1 $new
