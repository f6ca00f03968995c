#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Fashion-MNIST demo as a user meets it: a short training run on a
# subset (loss falls, accuracy far above chance), inference from the saved
# weights, bitwise-identical weights for 1 and 2 threads, and clear failures
# for a missing or truncated data file.
#   test_demo.sh DEMO_BINARY
set -u
demo=$1
data=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*" >&2; }

if [ ! -f "$data/train-images-idx3-ubyte.gz" ]; then
  echo "skip: Fashion-MNIST not installed in $data"; echo "demo: 0 passed, 0 failed"; exit 0
fi

# 1. Short training: 2 epochs on 1024 images, test on 1000.
out=$("$demo" --data "$data" --epochs 2 --train-limit 1024 --test-limit 1000 --batch 32 --threads 2 --quiet \
      --save "$tmp/w.bin" 2>&1) || bad "training run exited non-zero: $out"
loss1=$(echo "$out" | sed -n 's/^epoch 1: train loss \([0-9.]*\).*/\1/p')
loss2=$(echo "$out" | sed -n 's/^epoch 2: train loss \([0-9.]*\).*/\1/p')
acc=$(echo "$out" | sed -n 's/^epoch 2: .*test accuracy \([0-9.]*\)%.*/\1/p')
if [ -n "$loss1" ] && [ -n "$loss2" ] && awk "BEGIN{exit !($loss2 < $loss1)}"; then ok; else bad "loss did not fall ($loss1 -> $loss2)"; fi
if [ -n "$acc" ] && awk "BEGIN{exit !($acc > 55)}"; then ok; else bad "accuracy $acc% is not far above chance (10%)"; fi

# 2. Inference from the saved weights.
out=$("$demo" --data "$data" --infer "$tmp/w.bin" --image 3 2>&1) || bad "inference exited non-zero: $out"
echo "$out" | grep -q '^test image 3: predicted' && ok || bad "inference printed no prediction: $out"

# 3. Determinism: same seed, 1 and 2 threads, bitwise-identical weights.
h1=$("$demo" --data "$data" --epochs 1 --train-limit 256 --test-limit 100 --batch 32 --threads 1 --quiet --hash \
     --save "$tmp/a.bin" | sed -n 's/^parameter hash: //p')
h2=$("$demo" --data "$data" --epochs 1 --train-limit 256 --test-limit 100 --batch 32 --threads 2 --quiet --hash \
     --save "$tmp/b.bin" | sed -n 's/^parameter hash: //p')
if [ -n "$h1" ] && [ "$h1" = "$h2" ] && cmp -s "$tmp/a.bin" "$tmp/b.bin"; then ok; else bad "weights differ between 1 and 2 threads ($h1 vs $h2)"; fi

# 4. Missing and truncated data files: a clear message, non-zero exit, no crash.
mkdir "$tmp/empty"
out=$("$demo" --data "$tmp/empty" --epochs 1 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && echo "$out" | grep -q 'cannot open' && ok || bad "missing data: rc=$rc: $out"
mkdir "$tmp/trunc"
for f in train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do cp "$data/$f" "$tmp/trunc/"; done
gzip -dc "$data/train-images-idx3-ubyte.gz" | head -c 100000 > "$tmp/trunc/train-images-idx3-ubyte"
out=$("$demo" --data "$tmp/trunc" --epochs 1 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && echo "$out" | grep -q 'truncated' && ok || bad "truncated data: rc=$rc: $out"

echo "demo: $passed passed, $failed failed"
[ $failed -eq 0 ]
