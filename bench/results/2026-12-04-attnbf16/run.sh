#!/bin/sh
# attnbf16 branch against its branch point (build-base/: libcudnn*.so* and
# bench-rnn of 6104a91, copied before any change), alternated.  1 thread:
# bench-rnn's clock at 1 thread is the calling thread's CPU time; FreeDNN
# FP32 and BF16 (median and min of 9) and their ratio per row.  Every run
# is preceded by `date -u; uptime` in its output file.
# Usage: run.sh [ALTERNATIONS [FILTER [TAG [ORDER]]]]  (default 3, "mha",
# "", after-first); output in afterTAG.txt / beforeTAG.txt; ORDER
# "before-first" runs the branch point first in each alternation;
# summarize.py [TAG] prints the table.
cd "$(dirname "$0")/../../.." || exit 1
out=bench/results/2026-12-04-attnbf16
n=${1:-3}
f=${2:-mha}
tag=${3:-}
order=${4:-after-first}
E="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"
after() {
    { date -u; uptime; } >> $out/after$tag.txt
    $E build/tools/bench-rnn/bench-rnn --threads 1 --reps 9 --filter "$f" >> $out/after$tag.txt 2>&1
}
before() {
    { date -u; uptime; } >> $out/before$tag.txt
    $E LD_LIBRARY_PATH=build-base build-base/bench-rnn --threads 1 --reps 9 --filter "$f" >> $out/before$tag.txt 2>&1
}
for i in $(seq "$n"); do
    if [ "$order" = before-first ]; then before; after; else after; before; fi
done
