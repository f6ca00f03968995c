#!/bin/sh
# Before (branch point 230c10b, build-base/b) and after (this branch, build/),
# interleaved; 1 thread, per-process CPU time, FreeDNN NCHW against oneDNN
# (PyTorch once at the end).  first-try/: the run with the branchy masked
# kernels (stopped; see docs/performance.md).
cd "$(dirname "$0")/../../.."
OUT=bench/results/2026-12-04-nettrain
OLD=build-base/b/tools/freednn-bench/freednn-bench
NEW=build/tools/freednn-bench/freednn-bench
T="--net resnet50 --mb 32 --threads 1 --clock cpu --no-torch --profile --iters 3 --layout nchw"
I="--net resnet50 --infer --mb 1 --threads 1 --clock cpu --no-torch --profile --iters 5 --layout nchw"
M="--net mobilenet_v2 --mb 32 --threads 1 --clock cpu --no-torch --profile --iters 3 --layout nchw"
run() { # name binary args...
    name=$1; shift; bin=$1; shift
    { date -u; uptime; echo "$bin $*"; "$bin" "$@"; uptime; } > "$OUT/$name.txt" 2>&1
}
run after_train_1 $NEW $T
run before_train_1 $OLD $T
run before_infer_1 $OLD $I
run after_infer_1 $NEW $I
run before_train_2 $OLD $T
run after_train_2 $NEW $T
run after_mnv2_1 $NEW $M
run before_mnv2_1 $OLD $M
run after_infer_torch $NEW --net resnet50 --infer --mb 1 --threads 1 --clock cpu --profile --iters 5 --layout nchw
