#!/bin/sh
# The merged tree of session 14 against main 0a6f4c8 (base, the session's
# start): every ResNet-50 layer at mb=1 (NCHW and NHWC, every direction, 1
# and 2 threads) and at mb=32 (forward NHWC, every direction NCHW at 2
# threads), base and new alternated per round (1 thread: thread CPU time;
# 2 threads: wall clock), oneDNN in the same runs; then the ResNet-50
# inference step at mb=1 (both layouts, 1 and 2 threads) and the training
# step at 2 threads, base and new alternated.  From the repository root
# after `ninja -C build`.
d=bench/results/2026-12-06-s14end
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
net() { # NAME THREADS ARGS...
  name=$1 t=$2; shift 2
  for r in $(seq 2); do
    for side in base new; do
      eval bin=\$$side
      (uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$t \
        $bin --net resnet50 --threads $t --no-torch "$@"; uptime) > $d/${name}_${side}_r$r.txt 2>&1
    done
  done
}
if [ "${LAYERS:-1}" = 1 ]; then
  for t in 1 2; do
    layers mb1_nhwc_t$t $t nhwc all $d/r50_mb1.txt
    layers mb1_nchw_t$t $t nchw all $d/r50_mb1.txt
  done
  layers mb32_nhwc_fwd_t1 1 nhwc fwd $d/r50_mb32.txt
  layers mb32_nchw_t2 2 nchw all $d/r50_mb32.txt
fi
[ "${NET:-1}" = 0 ] && exit 0
net infer_nhwc_t1 1 --infer --layout nhwc --iters 9 --clock cpu
net infer_nchw_t1 1 --infer --iters 9 --clock cpu
net infer_nhwc_t2 2 --infer --layout nhwc --iters 9
net infer_nchw_t2 2 --infer --iters 9
net train_t2 2 --iters 5
