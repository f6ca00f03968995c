#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Compiles tests/clients/cudnn_sample.c, an ordinary cuDNN program, with
# nothing but -I include -I compat/cudart/include (as C99 and as C++11,
# warnings as errors), links it against the built libcudnn and libcudart,
# runs both builds and requires "Test passed!".
#
# usage: test_client_build.sh CC CXX SOURCE_DIR CUDNN_LIB_DIR CUDART_LIB_DIR WORK_DIR [EXTRA_FLAGS]
set -eu
cc=$1 cxx=$2 src=$3 cudnn_dir=$4 cudart_dir=$5 work=$6 extra=${7:-}
mkdir -p "$work"
inc="-I $src/include -I $src/compat/cudart/include"
libs="-L$cudnn_dir -L$cudart_dir -lcudnn -lcudart -Wl,-rpath,$cudnn_dir:$cudart_dir"

# shellcheck disable=SC2086  # the flag lists are meant to split
$cc -std=c99 -Wall -Wextra -Werror $extra $inc "$src/tests/clients/cudnn_sample.c" $libs -o "$work/sample_c"
# shellcheck disable=SC2086
$cxx -x c++ -std=c++11 -Wall -Wextra -Werror $extra $inc "$src/tests/clients/cudnn_sample.c" -x none $libs \
    -o "$work/sample_cxx"

status=0
for exe in sample_c sample_cxx; do
    if "$work/$exe" > "$work/$exe.out" 2>&1 && grep -q "^Test passed!" "$work/$exe.out"; then
        echo "$exe: passed"
    else
        echo "$exe: FAILED"; cat "$work/$exe.out"; status=1
    fi
done
[ $status -eq 0 ] && head -4 "$work/sample_c.out"
exit $status
