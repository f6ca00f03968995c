#!/bin/sh
# The whole-network runs of docs/performance.md "Whole networks on a quiet
# host" (issue #19 item 1): ResNet-50 training step mb=32 and inference
# mb=1, FreeDNN / PyTorch / oneDNN in one process tree, 1 thread, CPU time.
#   sh bench/results/2026-12-04-netquiet/run.sh [build] > out.txt
B=${1:-build}/tools/freednn-bench/freednn-bench
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
stamp() { echo "# load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u)"; }
stamp
$B --net resnet50 --threads 1 --iters 5 --clock cpu --layout nchw --profile
stamp
$B --net resnet50 --infer --mb 1 --threads 1 --iters 9 --clock cpu --layout nchw --profile
stamp
# The wall-clock runs (16:33-16:43 UTC; see the docs section for why the
# CPU-time clock above favours FreeDNN: it counts the peers' helper threads).
$B --net resnet50 --threads 2 --iters 5 --layout nchw --profile
stamp
$B --net resnet50 --threads 1 --iters 5 --layout nchw --no-torch --profile
stamp
$B --net resnet50 --threads 1 --iters 5 --layout nchw --no-dnnl
stamp
$B --net resnet50 --infer --mb 1 --threads 1 --iters 9 --layout nchw
stamp
