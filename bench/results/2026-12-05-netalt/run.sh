#!/bin/sh
# The netalt measurements (2026-12-05 session 9): freednn-bench --net with
# FreeDNN's and oneDNN's steps alternated (F O, O F, ...), per-pair ratios,
# and the per-node profile.  Run from the worktree root after building
# (build/, Release).  Every output file starts and ends with `uptime`.
# PyTorch and oneDNN run without the OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
# overrides (the tool also unsets them for PyTorch).
#
# The host was at load average 12-17 all session (other engineers' builds,
# tests and benchmarks).  r50-train-2t-a.txt (wall clock) was stopped after
# its NCHW pairs: at that load one pair took ~90 s of wall time (FreeDNN
# 25 s, oneDNN 66 s a step, 8-20x the quiet host's).  The rest use --clock
# cpu (process CPU time at 2 threads, the thread's at 1), in this order.
set -u
B=${B:-build/tools/freednn-bench/freednn-bench}
D=$(dirname "$0")
run() {
    out=$1
    shift
    { date -u; uptime; echo "\$ $B $*"; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$B" "$@"; uptime; } >"$D/$out.txt" 2>&1
}
if [ "${WALL:-0}" = 1 ]; then
    # ResNet-50 training mb=32, 2 threads, both layouts, wall clock
    run r50-train-2t-a --net resnet50 --threads 2 --iters 7 --no-torch
fi
if [ "${CPU2T:-0}" = 1 ]; then
    # ResNet-50 training mb=32, 2 threads, both layouts, 7 pairs each, per-node
    # profile: stopped after its first pair (oneDNN's 2-thread CPU time 3x
    # inflated at load 16)
    run r50-train-2t-cpu-nodes --net resnet50 --threads 2 --iters 7 --no-torch --clock cpu --profile nodes
fi
# ResNet-50 training mb=32, 1 thread (thread CPU time: no barrier to wait at),
# both layouts, 7 pairs each, per-node profile
run r50-train-1t-cpu-nodes --net resnet50 --threads 1 --iters 7 --no-torch --clock cpu --profile nodes
# inference mb=1, 2 threads, with PyTorch
run infer-mb1-2t-cpu --net resnet50,mobilenet_v2 --infer --threads 2 --iters 7 --clock cpu
# MobileNet v2 training mb=32, 2 threads, per-node profile
run mnv2-train-2t-cpu-nodes --net mobilenet_v2 --threads 2 --iters 7 --no-torch --clock cpu --profile nodes
# at the session's end, load 2.6-3.4: ResNet-50 training mb=32, 2 threads, wall clock
if [ "${QUIET:-0}" = 1 ]; then
    run r50-train-2t-quiet --net resnet50 --threads 2 --iters 7 --no-torch
fi
