#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The import libraries with an MSVC-style link: msvc_client.c built for the
# MSVC ABI by clang, linked by lld-link against lib/x64/cudnn_ops_infer.lib,
# run (under Wine); it must exit 42.  Skips (exit 77) without clang or
# lld-link.
#   msvc_link.sh SOURCE_DIR BUILD_DIR RUNNER...
set -eu
src="$1" build="$2"
shift 2
command -v clang >/dev/null 2>&1 && command -v lld-link >/dev/null 2>&1 || { echo "skip: no clang/lld-link"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
clang --target=x86_64-pc-windows-msvc -O1 -c "$src/tests/windows/msvc_client.c" -o "$tmp/client.obj"
lld-link /nologo /entry:start /subsystem:console /nodefaultlib "$tmp/client.obj" \
         "$build/lib/x64/cudnn_ops_infer.lib" "/out:$tmp/client.exe"
set +e
"$@" "$tmp/client.exe"
rc=$?
set -e
[ "$rc" -eq 42 ] || { echo "FAILED: the MSVC-linked client exited $rc, not 42"; exit 1; }
echo "msvc_link: the lld-link client called cudnn_ops_infer64_8.dll -> cudnn64_8.dll"
