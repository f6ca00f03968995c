#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shipped libcudnn.so.8 carries no test code and exports only the API:
#  - no symbol of the float64 test oracle (src/ref, fdnn_ref_*) in any
#    symbol table: the oracle lives in fdnn_internal only;
#  - the dynamic symbol table exports cuDNN's names (cudnn*), FreeDNN's
#    extensions (freednn*) and the version nodes, nothing else;
#  - with max_bytes > 0 (release builds), the file is at most that large,
#    so growth is a decision, not an accident.
# Usage: shipped_lib.sh LIB MAX_BYTES
set -euo pipefail
lib=$1
max_bytes=$2
fail=0
oracle=$(nm -a "$lib" | grep 'fdnn_ref_' || true)
if [ -n "$oracle" ]; then
    echo "FAILED: $lib contains $(echo "$oracle" | wc -l) oracle symbols, e.g. $(echo "$oracle" | head -1)"
    fail=1
fi
extra=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' |
        grep -v -E '^(cudnn|freednn)[A-Za-z0-9_]*$|^FREEDNN_[0-9]+$|^libcudnn\.so\.8$' || true)
if [ -n "$extra" ]; then
    echo "FAILED: $lib exports more than the API:"; echo "$extra" | head -10
    fail=1
fi
size=$(stat -c %s "$(readlink -f "$lib")")
if [ "$max_bytes" -gt 0 ] && [ "$size" -gt "$max_bytes" ]; then
    echo "FAILED: $lib is $size bytes, more than the $max_bytes allowed (raise the bound in tests/CMakeLists.txt if intended)"
    fail=1
fi
echo "shipped_lib: $lib, $size bytes, $(nm -D --defined-only "$lib" | wc -l) dynamic symbols"
exit $fail
