#!/bin/sh
# Before/after on the same host state, alternated.  build-base/ holds the
# branch point's libcudnn.so.8 and bench-rnn (commit in build-base/COMMIT),
# copied from build/ before any change of this branch.
#   1 thread: the calling thread's CPU time (bench-rnn's clock at 1 thread);
#   2 threads: wall clock (bench-rnn's clock at 2 threads).
# RNN rows: FreeDNN FP32 / BF16 and oneDNN 2.6 FP32 interleaved per case by
# bench-rnn, median of 7 after a warm-up, --phases for the training split.
# Attention rows: FreeDNN FP32 / BF16 then torch.nn.MultiheadAttention
# (--torch, OpenBLAS, same thread count), median and min of 9.
# Every run is preceded by `date -u; uptime` in its output file.
# Usage: run.sh [ALTERNATIONS [THREAD_COUNTS]]  (default 3, "1 2"); then
# summarize.py prints the tables.
cd "$(dirname "$0")/../../.." || exit 1
out=bench/results/2026-12-04-rnnattn
n=${1:-3}
E="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"
for t in ${2:-1 2}; do
    # 2 threads: the 128-step attention rows only (PyTorch takes ~1 min per
    # run on the 512-step ones).
    af=mha; [ "$t" = 2 ] && af="mha h8 e512 L128"
    for i in $(seq "$n"); do
        { date -u; uptime; } >> $out/after_t$t.txt
        $E build/tools/bench-rnn/bench-rnn --threads $t --reps 7 --phases --filter h512 >> $out/after_t$t.txt 2>&1
        { date -u; uptime; } >> $out/before_t$t.txt
        $E LD_LIBRARY_PATH=build-base build-base/bench-rnn --threads $t --reps 7 --phases --filter h512 \
            >> $out/before_t$t.txt 2>&1
        { date -u; uptime; } >> $out/after_t$t.txt
        $E build/tools/bench-rnn/bench-rnn --threads $t --reps 9 --filter "$af" --torch >> $out/after_t$t.txt 2>&1
        { date -u; uptime; } >> $out/before_t$t.txt
        $E LD_LIBRARY_PATH=build-base build-base/bench-rnn --threads $t --reps 9 --filter "$af" --torch \
            >> $out/before_t$t.txt 2>&1
    done
done
