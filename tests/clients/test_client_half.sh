#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds tests/clients/half_types.c -- host code using <cuda_fp16.h> and
# <cuda_bf16.h> of compat/cudart, header-only -- as C11 and as C++11 with
# every compiler given (gcc, g++, clang, clang++; "-" skips one), with
# -Wall -Wextra -Werror -pedantic, then runs each build and requires
# "Test passed!".
#
# usage: test_client_half.sh PROGRAM.c SOURCE_DIR WORK_DIR "EXTRA_FLAGS" CC CXX CLANG|- CLANGXX|-
set -eu
prog=$1 src=$2 work=$3 extra=$4
shift 4
mkdir -p "$work"
inc="-I $src/compat/cudart/include"
warn="-Wall -Wextra -Werror -pedantic"
status=0
n=0
for compiler in "$@"; do
    n=$((n + 1))
    [ "$compiler" = "-" ] && continue
    case $n in
        1 | 3) lang="-x c -std=c11" ;;
        *) lang="-x c++ -std=c++11" ;;
    esac
    exe="$work/half_types_$n"
    # shellcheck disable=SC2086  # the flag lists are meant to split
    if ! $compiler $lang $warn $extra $inc "$prog" -x none -lm -o "$exe"; then
        echo "$compiler $lang: build FAILED"; status=1; continue
    fi
    if "$exe" > "$exe.out" 2>&1 && grep -q "^Test passed!" "$exe.out"; then
        echo "$compiler $lang: passed"
    else
        echo "$compiler $lang: FAILED"; cat "$exe.out"; status=1
    fi
done
exit $status
