#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every side-by-side measurement behind docs/performance.md, in one go, on a
# quiet machine; then bench/report.py turns the raw output into the bar
# tables and plots and rewrites the generated block of docs/performance.md.
#
#   bench/run-all.sh [BUILD_DIR [OUT_DIR]]
#   THREADS="1 2" ITERS=5 SKIP_MNIST=1 ONLY="conv rnn" bench/run-all.sh ...
#
# Stages (ONLY picks some; the report reads whatever files are there):
#   gemm ops conv wino dw lowp rnn net mnist
# Peers get their best honest setting in the same run: oneDNN the same
# thread count (OMP_NUM_THREADS) and the better of its layouts with reorders
# counted; PyTorch (Debian's python3-torch over OpenBLAS, which this script
# installs: the reference BLAS Debian falls back to is ~20x slower)
# torch.set_num_threads + OMP/OPENBLAS_NUM_THREADS, with OPENBLAS_CORETYPE
# and OPENBLAS_L2_SIZE unset for its command alone.  Every case runs FreeDNN
# then its peers in the same process (interleaved per case), ITERS timed
# runs each, medians reported; convolution cells within 10% of their bar are
# run twice more and the report takes the median of the three.  With one
# thread the tools time the calling thread's CPU time (a shared machine's
# descheduling is not counted); with more, wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-bench/results/$(date -u +%Y-%m-%d)}
threads=${THREADS:-1 2}
iters=${ITERS:-5}
only=${ONLY:-gemm ops conv wino dw lowp rnn net mnist}
mkdir -p "$out"
bench=$build/tools/freednn-bench/freednn-bench

need=()
for p in gnuplot-nox libopenblas0-pthread python3-torch libdnnl-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

stage() { [[ " $only " == *" $1 "* ]]; }
stamp() { echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"; }
clock_env() { [ "$1" = 1 ] && echo FREEDNN_BENCH_CPU_TIME=1 || echo FREEDNN_BENCH_CPU_TIME=0; }
shapes=shared/bench/shapes.txt
[ -f "$shapes" ] || shapes=../shared/bench/shapes.txt
{ echo "date: $(date -u)"; echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  lscpu | grep -E 'Model name|^CPU\(s\)|L1d|L2'; uptime; } > "$out/machine.txt"

if stage gemm; then
  echo "== GEMM core vs dnnl_sgemm; the FMA peak"
  OMP_NUM_THREADS=1 FREEDNN_NUM_THREADS=1 "$build/tools/bench-gemm/bench-gemm" | tee "$out/gemm.txt"
fi

if stage ops; then
  echo "== memory-bound ops vs oneDNN"
  "$build/tools/bench-ops/bench-ops" --threads "$(echo $threads | tr ' ' ,)" | tee "$out/ops.txt"
fi

# conv_<set>_<layout>_t<T>.txt: ResNet-50 (every direction) and VGG 3x3
# layers, NCHW and NHWC user tensors.
if stage conv; then
  for t in $threads; do
    for l in nchw nhwc; do
      for set in r50_ vgg_; do
        o="$out/conv_${set%_}_${l}_t${t}.txt"
        echo "== convolution $set, every direction, $l, $t thread(s)"
        { stamp; env $(clock_env "$t") OMP_NUM_THREADS="$t" "$bench" --file "$shapes" --match "$set" \
            --dir all --layout "$l" --threads "$t" --iters "$iters"; } 2>&1 | tee "$o" || true
        # cells near their bar, twice more
        python3 bench/report.py near "$o" "$shapes" > "$out/near.txt" || true
        if [ -s "$out/near.txt" ]; then
          for r in 1 2; do
            while read -r dir line; do
              env $(clock_env "$t") OMP_NUM_THREADS="$t" "$bench" --dir "$dir" --layout "$l" --threads "$t" \
                --iters "$iters" $line 2>&1 | grep -v '^#' || true
            done < "$out/near.txt" > "${o%.txt}.rerun$r.txt"
          done
        fi
      done
    done
  done
fi

# Winograd on the 3x3 stride-1 layers at mb=32 (issue #19 item 2):
# fwd WINOGRAD (6), bwd data WINOGRAD (4), bwd filter WINOGRAD_NONFUSED (5).
if stage wino; then
  grep -E '^conv (r50_res[234]_3x3_|vgg_3x3)' "$shapes" | grep 'mb=32' | grep -v 'sh=2' > "$out/wino_lines.txt" || true
  { stamp
    for d in "fwd 6" "bwd_d 4" "bwd_w 5"; do
      set -- $d
      env FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 "$bench" --file "$out/wino_lines.txt" --dir "$1" --algo "$2" \
        --threads 1 --iters "$iters" 2>&1 || true
    done; } | tee "$out/wino_t1.txt"
fi

# Depthwise (issue #19 item 4): MobileNet v1/v2, mb=1 and mb=32, NCHW/NHWC.
if stage dw; then
  sed 's/ mb=1 / mb=32 /' bench/dwconv_shapes.txt > "$out/dw_shapes_mb32.txt"
  for t in $threads; do
    for mb in 1 32; do
      f=bench/dwconv_shapes.txt; [ "$mb" = 32 ] && f=$out/dw_shapes_mb32.txt
      for l in nchw nhwc; do
        echo "== depthwise mb=$mb $l, $t thread(s)"
        { stamp; env $(clock_env "$t") OMP_NUM_THREADS="$t" "$bench" --file "$f" --dir all --layout "$l" \
            --threads "$t" --iters "$iters"; } 2>&1 | tee "$out/dw_mb${mb}_${l}_t${t}.txt" || true
      done
    done
  done
fi

# Reduced precision (issue #13): BF16 TENSOR_OP and PSEUDO_HALF against
# FP32 (the conv_r50 files) and oneDNN bf16; INT8.
if stage lowp; then
  { stamp; env FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 "$bench" --file "$shapes" --match r50_ --dir fwd \
      --dt bf16 --math tensor_op --threads 1 --iters "$iters"; } 2>&1 | tee "$out/lowp_bf16_t1.txt" || true
  { stamp; env FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 "$bench" --file "$shapes" --match r50_ --dir fwd \
      --dt f16 --threads 1 --iters "$iters"; } 2>&1 | tee "$out/lowp_f16_t1.txt" || true
  { stamp; OMP_NUM_THREADS=1 "$build/tools/bench-int8/bench-int8" --match r50 --threads 1 --iters "$iters"; } 2>&1 \
      | tee "$out/int8_t1.txt" || true
fi

# LSTM/GRU against oneDNN, attention against PyTorch (items 5 and 6).
if stage rnn; then
  for t in $threads; do
    echo "== RNN and attention, $t thread(s)"
    { stamp; OMP_NUM_THREADS="$t" "$build/tools/bench-rnn/bench-rnn" --threads "$t" --reps "$((iters + 2))" \
        --torch; } 2>&1 | tee "$out/rnn_t${t}.txt" || true
  done
fi

if stage net; then
  for t in $threads; do
    echo "== whole networks (issue #19): training step mb=32 and inference mb=1, $t thread(s)"
    { stamp; "$bench" --net resnet50,mobilenet_v2 --threads "$t" --iters "$iters" $([ "$t" = 1 ] && echo --clock cpu); } \
        2>&1 | tee "$out/net_train_t${t}.txt" || true
    { stamp; "$bench" --net resnet50,mobilenet_v2 --threads "$t" --infer --iters "$((iters + 4))" \
        $([ "$t" = 1 ] && echo --clock cpu); } 2>&1 | tee "$out/net_infer_t${t}.txt" || true
  done
fi

if stage mnist && [ -z "${SKIP_MNIST:-}" ]; then
  echo "== Fashion-MNIST: FreeDNN vs PyTorch, 1 epoch, 2 threads"
  examples/fashion_mnist/compare.sh "$build" 1 2 | tee "$out/fashion_mnist.txt" || true
fi

echo "== report"
python3 bench/report.py report "$out" --doc docs/performance.md
