#!/bin/sh
# The merged tree of session 15 against main c383439 (base, the session's
# start), on the layers the session changed: ResNet-50's 3x3 layers at
# mb=1 (channels-last backward filter and backward data, NCHW backward
# data), the MobileNet v1/v2 depthwise layers at mb=1 (NCHW backward data
# and filter), and at mb=32 the 3x3 channels-last backward filter and the
# NCHW depthwise backward (no slower?).  Base and new alternated per round
# (1 thread: thread CPU time; 2 threads: wall clock, each row labelled
# with its vCPU placement, rt=), oneDNN in the same runs.  From the
# repository root after `ninja -C build`.
d=${OUT:-bench/results/2026-12-06-s15end}
new=${NEW:-build/tools/freednn-bench/freednn-bench}
base=${BASE:-/work/main/build-base/tools/freednn-bench/freednn-bench}
ROUNDS=${ROUNDS:-3}
layers() { # NAME THREADS LAYOUT DIR FILE [ROUNDS]
  for r in $(seq ${6:-$ROUNDS}); do
    for side in base new; do
      eval bin=\$$side
      echo "# round $r $side $(uptime)"
      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$2 FREEDNN_BENCH_CPU_TIME=$([ $2 = 1 ] && echo 1 || echo 0) \
        $bin --threads $2 --iters 5 --layout $3 --dir $4 --file $5 | grep -v '^#' | sed "s/^/$side /"
    done
  done > $d/$1.txt 2>&1
}
for t in 1 2; do
  layers r50_mb1_nhwc_bwd_w_t$t $t nhwc bwd_w $d/r50_3x3_mb1.txt
  layers r50_mb1_nhwc_bwd_d_t$t $t nhwc bwd_d $d/r50_3x3_mb1.txt
  layers r50_mb1_nchw_bwd_d_t$t $t nchw bwd_d $d/r50_3x3_mb1.txt
  layers dw_mb1_nchw_bwd_d_t$t $t nchw bwd_d bench/dwconv_shapes.txt
  layers dw_mb1_nchw_bwd_w_t$t $t nchw bwd_w bench/dwconv_shapes.txt
done
layers r50_mb32_nhwc_bwd_w_t1 1 nhwc bwd_w $d/r50_3x3_mb32.txt 2
sed 's/ mb=1 / mb=32 /' bench/dwconv_shapes.txt > $d/dw_mb32.txt
layers dw_mb32_nchw_bwd_d_t1 1 nchw bwd_d $d/dw_mb32.txt 2
layers dw_mb32_nchw_bwd_w_t1 1 nchw bwd_w $d/dw_mb32.txt 2
