#!/bin/sh
# Attention against PyTorch (issue #19 item 6), 1 thread, CPU time:
#   sh bench/results/2026-12-04-attn/run.sh BUILD_DIR > OUT
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $1/tools/bench-rnn/bench-rnn --threads 1 --reps 9 --filter mha --torch"
"$1/tools/bench-rnn/bench-rnn" --threads 1 --reps 9 --filter mha --torch
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
