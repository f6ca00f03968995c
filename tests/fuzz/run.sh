#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harnesses (FREEDNN_FUZZ=ON, clang) and runs each one
# for a bounded time from the committed seed corpus and dictionary, then
# replays every committed crash input.  Used by scripts/test.sh (CI) and by
# hand for longer runs (docs/reliability.md):
#
#   tests/fuzz/run.sh [BUILD_DIR [SECONDS_PER_HARNESS [HARNESS...]]]
#
# BUILD_DIR defaults to build-fuzz, SECONDS to 20, HARNESS to all of them.
# New corpus entries go to BUILD_DIR/fuzz-corpus/<harness> (the committed
# corpus is read, never written); crash inputs to
# BUILD_DIR/fuzz-artifacts/<harness>/.  Exit status 1 when a harness found
# a crash.  FDNN_FUZZ_JOBS=N runs N fuzzing processes per harness;
# FDNN_FUZZ_PARALLEL=N runs N harnesses at once (default: the CPU count).
# FDNN_FUZZ_RUNS=N runs exactly N inputs per harness from the fixed seed
# FDNN_FUZZ_SEED (default 1) instead of SECONDS: the same inputs every
# time, so CI's run cannot fail on a finding it did not find before (long
# random runs are for finding new bugs; docs/reliability.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-build-fuzz}"
seconds="${2:-20}"
# With a fixed number of inputs the time is only a guard.
[ -z "${FDNN_FUZZ_RUNS:-}" ] || seconds=3600
shift $(( $# > 2 ? 2 : $# ))
harnesses=("$@")
[ "${#harnesses[@]}" -gt 0 ] || harnesses=(tensor_ops conv pool_act_norm rnn attn ctc transform backend)

# clang and its libFuzzer/sanitizer runtimes (Debian 12: libclang-rt-14-dev).
need=()
command -v clang >/dev/null 2>&1 || need+=(clang)
clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null | grep -q / &&
  [ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ] || need+=(libclang-rt-14-dev)
if [ "${#need[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "fuzz: installing ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

cd "$root"
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFREEDNN_FUZZ=ON "${launcher[@]}" >/dev/null
ninja -C "$build" -j"${FDNN_FUZZ_BUILD_JOBS:-$(nproc)}" fuzz_harnesses

export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export FREEDNN_NUM_THREADS=1
# One harness: replay its committed crash inputs, then fuzz.  Prints its
# report; $artifacts/status stays behind on a finding, and on anything that
# ends the harness's run before its last line (so that counts as a failure).
fuzz_one() {
  local h=$1
  local exe="$build/tests/fuzz/fuzz_$h"
  local corpus="$build/fuzz-corpus/$h"
  local artifacts="$build/fuzz-artifacts/$h"
  mkdir -p "$corpus" "$artifacts"
  local failed=0
  echo unfinished >"$artifacts/status"
  # Committed crash inputs first: each must now run clean.
  if [ -d "$here/crashes/$h" ] && [ -n "$(ls -A "$here/crashes/$h")" ]; then
    "$exe" -runs=0 "$here/crashes/$h" >"$artifacts/replay.log" 2>&1 ||
      { failed=1; echo "fuzz: $h: a committed crash input fails again:"; tail -40 "$artifacts/replay.log"; }
  fi
  echo "== fuzz_$h: ${FDNN_FUZZ_RUNS:+${FDNN_FUZZ_RUNS} inputs from seed ${FDNN_FUZZ_SEED:-1}, at most }${seconds}s"
  # -timeout: one input running a second is a finding (the harness budgets
  # compute to milliseconds); -rss_limit_mb: a leak or a runaway allocation.
  local jobs=()
  [ "${FDNN_FUZZ_JOBS:-1}" -le 1 ] || jobs=(-jobs="$FDNN_FUZZ_JOBS" -workers="$FDNN_FUZZ_JOBS")
  [ -z "${FDNN_FUZZ_RUNS:-}" ] || jobs+=(-runs="$FDNN_FUZZ_RUNS" -seed="${FDNN_FUZZ_SEED:-1}")
  if ! "$exe" "$corpus" "$here/corpus/$h" -dict="$here/fuzz.dict" -max_total_time="$seconds" \
        -timeout=10 -rss_limit_mb=2048 -max_len=1024 -print_final_stats=1 "${jobs[@]}" \
        -artifact_prefix="$artifacts/" >"$artifacts/fuzz.log" 2>&1; then
    failed=1
    echo "fuzz: $h found a crash; input(s) in $artifacts:"
    ls "$artifacts"
    grep -A30 "ERROR\|runtime error\|deadly signal\|which no input may cause" "$artifacts/fuzz.log" | head -60 || true
  fi
  grep -aE "stat::number_of_executed_units|cov:.*ft:" "$artifacts/fuzz.log" | tail -2 || true
  [ "$failed" = 1 ] || rm -f "$artifacts/status"
}

# The harnesses run side by side, FDNN_FUZZ_PARALLEL at a time (default:
# the CPU count; each harness is one process on one thread), each report
# printed whole in the harnesses' order.  A fixed number of inputs from a
# fixed seed gives the same inputs whatever runs beside it.
parallel="${FDNN_FUZZ_PARALLEL:-$(nproc)}"
mkdir -p "$build/fuzz-artifacts"
for h in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  fuzz_one "$h" >"$build/fuzz-artifacts/$h.report" 2>&1 &
done
wait
status=0
for h in "${harnesses[@]}"; do
  cat "$build/fuzz-artifacts/$h.report"
  [ ! -f "$build/fuzz-artifacts/$h/status" ] || status=1
done
exit $status
