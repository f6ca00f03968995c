#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds one client program of tests/clients the way users build theirs --
# a compiler, -I to include/, compat/cudart/include and compat/cublas/include,
# -L/-l to the built libraries, warnings as errors -- as C99 with CC, as
# C++11 with CXX and (when given) as C11 with CLANG, then runs each build and
# requires "Test passed!".
#
# usage: test_client_programs.sh PROGRAM.c CC CXX CLANG|- SOURCE_DIR WORK_DIR "EXTRA_FLAGS" LIBDIR... -- LIB...
#   e.g. ... build/compat/cudart build/compat/cublas -- cudnn cublas cudart
set -eu
prog=$1 cc=$2 cxx=$3 clang=$4 src=$5 work=$6 extra=$7
shift 7
libdirs="" rpath="" libs=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    libdirs="$libdirs -L$1"
    rpath="$rpath:$1"
    shift
done
[ $# -gt 0 ] && shift
for l in "$@"; do libs="$libs -l$l"; done
name=$(basename "$prog" .c)
mkdir -p "$work"
inc="-I $src/include -I $src/compat/cudart/include -I $src/compat/cublas/include"
link="$libdirs $libs -lm -Wl,-rpath,${rpath#:}"
warn="-Wall -Wextra -Werror"

builds=""
# shellcheck disable=SC2086  # the flag lists are meant to split
$cc -std=c99 $warn $extra $inc "$prog" $link -o "$work/${name}_c" && builds="$builds ${name}_c"
# shellcheck disable=SC2086
$cxx -x c++ -std=c++11 $warn $extra $inc "$prog" -x none $link -o "$work/${name}_cxx" && builds="$builds ${name}_cxx"
if [ "$clang" != "-" ]; then
    # shellcheck disable=SC2086
    $clang -std=c11 $warn $extra $inc "$prog" $link -o "$work/${name}_clang" && builds="$builds ${name}_clang"
fi

status=0
expected=3
[ "$clang" = "-" ] && expected=2
[ "$(echo $builds | wc -w)" -eq $expected ] || { echo "$name: a build failed"; status=1; }
for exe in $builds; do
    if "$work/$exe" > "$work/$exe.out" 2>&1 && grep -q "^Test passed!" "$work/$exe.out"; then
        echo "$exe: passed"
    else
        echo "$exe: FAILED"; cat "$work/$exe.out"; status=1
    fi
done
exit $status
