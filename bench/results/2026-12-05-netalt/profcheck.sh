#!/bin/sh
# Does --profile change what it measures?  FreeDNN alone (no oneDNN, so no
# pairs), ResNet-50 training mb=8, 1 thread, thread CPU time, NCHW, 5 steps:
# unprofiled and --profile nodes alternately, 3 rounds.  Run from the
# worktree root; output in profcheck.txt.
B=${B:-build/tools/freednn-bench/freednn-bench}
D=$(dirname "$0")
{
    for r in 1 2 3; do
        for p in "" "--profile nodes"; do
            date -u +%H:%M:%S
            uptime
            echo "\$ $B --net resnet50 --mb 8 --threads 1 --iters 5 --no-dnnl --no-torch --layout nchw --clock cpu $p"
            "$B" --net resnet50 --mb 8 --threads 1 --iters 5 --no-dnnl --no-torch --layout nchw --clock cpu $p |
                grep -E "^# FreeDNN NCHW|^  all nodes"
        done
    done
    uptime
} >"$D/profcheck.txt" 2>&1
