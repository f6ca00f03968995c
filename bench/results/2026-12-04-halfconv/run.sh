#!/bin/sh
# The halfconv A/B measurement (docs/performance.md "PSEUDO_HALF, round 3"):
# the halfpack script with the build folder as its second argument, so the
# branch point's copy (build-base/) and the branch's build run the same
# lines.  Per ResNet-50 layer, FP32 then PSEUDO_HALF (--dt f16), one
# thread, thread CPU time, median of 5.  Tables: halfpack/summary.py.
#   sh bench/results/2026-12-04-halfconv/run.sh MB BUILD_DIR > out.txt
exec sh "$(dirname "$0")/../2026-12-04-halfpack/run.sh" "${1:-1}" "${2:-build}"
