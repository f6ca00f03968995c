#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Linux on ARM64: cross-builds FreeDNN with Debian's gcc-aarch64-linux-gnu
# (cmake/toolchains/aarch64-linux-gnu.cmake) and runs the C tests under
# qemu-aarch64-static, then makes the linux-aarch64 archive (ninja package).  Used by
# scripts/test.sh (CI) and by hand (docs/platforms.md):
#
#   scripts/cross-arm64.sh [BUILD_DIR]        (default build-arm64)
#
# FreeDNN needs nothing outside glibc, so no arm64 -dev package (and no
# multiarch install, which on Debian 12 would remove amd64 packages) is
# involved: the cross compiler's own sysroot is the whole sysroot.  The
# tests that need the host (the PyTorch oracle, the cuDNN 9 cross-checks,
# the install/doctor tests that run host tools on the tree) are x86-only by
# construction and are left out; every other C test runs.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-arm64}"

need=()
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || need+=(g++-aarch64-linux-gnu)
command -v qemu-aarch64-static >/dev/null 2>&1 || need+=(qemu-user-static)
if [ "${#need[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "arm64: installing ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake "${launcher[@]}" >/dev/null
ninja -C "$build" -j"$(nproc)"
file "$build/libcudnn.so.8.9.4" | grep -q "ARM aarch64" || { echo "arm64: libcudnn.so.8.9.4 is not an AArch64 library"; exit 1; }

# The host-bound tests, by label or name (see above): they build client
# programs or run host tools and Python on the tree.
exclude='^(oracle_|test_desc_types_cudnn9|test_tensor_desc_cudnn9|install_|doctor$|shipped_lib|abi$|client_)'
# The six longest suites take 2 to 25 minutes each under QEMU on 2 cores
# (test_conv, test_conv_zero_workspace, test_pooling, test_fft,
# test_ctc_loss, test_conv_lowp_resnet); CI runs the rest (the same kernels
# are behind the shorter conv, pooling and CTC tests).  FDNN_ARM64_ALL=1
# runs them too.
[ "${FDNN_ARM64_ALL:-0}" = 1 ] ||
  exclude="${exclude%)}|test_conv_[0-9]+$|test_conv_zero_workspace|test_pooling$|test_fft|test_ctc_loss|test_conv_lowp_resnet)"
# The suites whose families have no NEON kernel (int8 and low-precision
# convolutions, the row conversions: see docs/platforms.md) run the
# portable kernels at every level on AArch64, and test_bf16_gemm and
# test_lowp_i8_gemm force each of their kernels (neon_bf16, neon,
# neon_i8mm, portable) by id at any level, so looping over the levels
# would run the same code twice under QEMU: they run once, at the scalar
# level.  Every other suite loops over
# scalar and neon, which checks the NEON kernels against the same bounds.
# QEMU's "max" CPU (Debian 12's default, made explicit) has FEAT_BF16 and
# FEAT_I8MM, so the BFMLAL and SUDOT kernels run.
export QEMU_CPU="${QEMU_CPU:-max}"
portable='^(test_conv_lowp|test_bf16_gemm|test_conv_int8|test_lowp_i8_gemm|test_convert_row|test_tensor_convert)$'
(cd "$build" && FREEDNN_NUM_THREADS=2 ctest --output-on-failure -j"$(nproc)" --timeout 900 -LE oracle -E "$exclude|$portable")
(cd "$build" && FREEDNN_NUM_THREADS=2 FREEDNN_MAX_ISA=scalar ctest --output-on-failure -j"$(nproc)" --timeout 900 -R "$portable" -E "$exclude")

# The linux-aarch64 archive (cmake/Install.cmake, the same layout as the
# x86-64 one): built by `ninja package`, checked to hold AArch64 code.
ninja -C "$build" package
archive=$(ls "$build"/freednn-*-linux-aarch64-cudnn8.9.4-archive.tar.xz)
stage="$build/package-stage/$(basename "$archive" .tar.xz)"
for f in lib/libcudnn.so.8.9.4 lib/libcudnn_ops_infer.so.8.9.4 lib/libcudart.so.12 bin/cudnn-doctor include/cudnn.h; do
  [ -e "$stage/$f" ] || { echo "arm64: $f missing from $archive"; exit 1; }
done
file -L "$stage/lib/libcudnn.so.8.9.4" | grep -q "ARM aarch64" || { echo "arm64: the archive's libcudnn is not AArch64"; exit 1; }
echo "arm64: $archive"
