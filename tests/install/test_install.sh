#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The installed tree and the release archive, used as users use them.
#
#   prefix:  cmake --install into a temporary prefix; check the layout.
#   package: make the release archive (cmake/MakePackage.cmake), unpack it at
#            another path (which proves the pkg-config and CMake files are
#            relocatable), check the layout plus LICENSE and README; then
#            copy it into a CUDA-toolkit-like folder (lib64/) as
#            docs/install.md shows.
# The layout check: NVIDIA's 8.9.4 archive layout (real .so.8.9.4 files,
# .so.8 and .so links, sonames, version nodes, static archives, headers and
# their _v8 copies, pkg-config and CMake files).  Then tests/install/consumer.c
# is built against each tree three ways -- plain -I/-L flags, pkg-config,
# find_package(CUDNN) -- (and once from the static archives) and run.
#
# usage: test_install.sh prefix|package BINARY_DIR SOURCE_DIR CC CMAKE WORK_DIR HAVE_DOCTOR xz|none [EXTRA_FLAGS]
# (none: the package step writes an uncompressed .tar, for the sanitizer
# build whose archives are ten times larger)
set -eu
mode=$1 bin=$2 src=$3 cc=$4 cmake=$5 work=$6 have_doctor=$7 pack=$8 extra=${9:-}
name=$(cat "$bin/install/package-name.txt")
consumer=$src/tests/install/consumer.c
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

rm -rf "$work"
mkdir -p "$work"

check_layout() {
    t=$1
    for lib in cudnn cudnn_ops_infer cudnn_ops_train cudnn_cnn_infer cudnn_cnn_train cudnn_adv_infer cudnn_adv_train; do
        real=$t/lib/lib$lib.so.8.9.4
        { [ -f "$real" ] && [ ! -L "$real" ]; } || fail "$real is not a real file"
        [ "$(readlink "$t/lib/lib$lib.so.8")" = "lib$lib.so.8.9.4" ] || fail "lib$lib.so.8 does not link to lib$lib.so.8.9.4"
        [ "$(readlink "$t/lib/lib$lib.so")" = "lib$lib.so.8" ] || fail "lib$lib.so does not link to lib$lib.so.8"
        readelf -d "$real" | grep -q "SONAME.*\[lib$lib.so.8\]" || fail "soname of $real"
        static=$t/lib/lib${lib}_static.a
        { [ -f "$static" ] && [ ! -L "$static" ]; } || fail "$static missing"
        if [ "$lib" != cudnn ]; then
            [ "$(readlink "$t/lib/lib${lib}_static_v8.a")" = "lib${lib}_static.a" ] ||
                fail "lib${lib}_static_v8.a does not link to lib${lib}_static.a"
        fi
    done
    objdump -T "$t/lib/libcudnn.so.8.9.4" | grep -q "libcudnn.so.8 *cudnnCreate$" ||
        fail "cudnnCreate is not tagged with the version node libcudnn.so.8"
    objdump -T "$t/lib/libcudart.so.12" | grep -q "libcudart.so.12 *cudaMalloc$" ||
        fail "cudaMalloc is not tagged with the version node libcudart.so.12"
    [ "$(readlink "$t/lib/libcudart.so")" = "libcudart.so.12" ] || fail "libcudart.so link"
    [ -f "$t/lib/libcudart_static.a" ] || fail "libcudart_static.a missing"
    objdump -T "$t/lib/libcublas.so.12" | grep -q "libcublas.so.12 *cublasSgemm_v2$" ||
        fail "cublasSgemm_v2 is not tagged with the version node libcublas.so.12"
    readelf -d "$t/lib/libcublas.so.12" | grep -q "SONAME.*\[libcublas.so.12\]" || fail "soname of libcublas.so.12"
    [ "$(readlink "$t/lib/libcublas.so")" = "libcublas.so.12" ] || fail "libcublas.so link"
    for h in cudnn cudnn_version cudnn_ops_infer cudnn_ops_train cudnn_cnn_infer cudnn_cnn_train \
             cudnn_adv_infer cudnn_adv_train cudnn_backend; do
        [ -f "$t/include/$h.h" ] || fail "include/$h.h missing"
        cmp -s "$t/include/$h.h" "$t/include/${h}_v8.h" || fail "include/${h}_v8.h is not a copy of $h.h"
    done
    for h in cuda_runtime.h cuda_runtime_api.h driver_types.h cuda.h cuda_fp16.h cuda_bf16.h cuda_fp8.h library_types.h \
             host_defines.h vector_types.h vector_functions.h cuComplex.h cublas_v2.h cublas_api.h; do
        [ -f "$t/include/$h" ] || fail "include/$h missing"
    done
    grep -q "^#define CUDNN_MAJOR 8$" "$t/include/cudnn_version.h" || fail "CUDNN_MAJOR in cudnn_version.h"
    [ -f "$t/lib/pkgconfig/cudnn.pc" ] || fail "lib/pkgconfig/cudnn.pc missing"
    [ -f "$t/lib/cmake/CUDNN/CUDNNConfig.cmake" ] || fail "CUDNNConfig.cmake missing"
    [ -f "$t/lib/cmake/CUDNN/CUDNNConfigVersion.cmake" ] || fail "CUDNNConfigVersion.cmake missing"
    if [ "$have_doctor" = "1" ]; then
        [ -x "$t/bin/cudnn-doctor" ] || fail "bin/cudnn-doctor missing"
    fi
    ok "layout of $t"
}

run_consumer() { # label exe [env assignment]
    label=$1 exe=$2
    shift 2
    if out=$(env "$@" "$exe" 2>&1) && echo "$out" | grep -q "^consumer ok"; then
        ok "$label: $out"
    else
        fail "$label: $out"
    fi
}

run_client() { # label exe [env assignment]: a tests/clients program, which ends with "Test passed!"
    label=$1 exe=$2
    shift 2
    if out=$(env "$@" "$exe" 2>&1) && echo "$out" | grep -q "^Test passed!"; then
        ok "$label"
    else
        fail "$label: $out"
    fi
}

build_three_ways() { # tree tag [libdir name]
    t=$1 tag=$2 ld=${3:-lib}
    # 1. Plain flags, as NVIDIA's install guide does it.
    # shellcheck disable=SC2086
    $cc $extra -I"$t/include" "$consumer" -L"$t/$ld" -lcudnn -lcudart -o "$work/plain_$tag" &&
        run_consumer "$tag plain flags" "$work/plain_$tag" LD_LIBRARY_PATH="$t/$ld" ||
        fail "$tag plain flags: build"
    # A cuDNN program with a cuBLAS layer (tests/clients/cublas_fc.c), the
    # same way.
    # shellcheck disable=SC2086
    $cc $extra -I"$t/include" "$src/tests/clients/cublas_fc.c" -L"$t/$ld" -lcudnn -lcublas -lcudart -lm \
        -o "$work/cublas_$tag" && run_client "$tag cuBLAS client" "$work/cublas_$tag" LD_LIBRARY_PATH="$t/$ld" ||
        fail "$tag cuBLAS client: build"
    # Static archives (the same files in every tree: linked once, from the
    # unpacked archive): no FreeDNN library needed at run time.
    if [ "$tag" = archive ]; then
        # shellcheck disable=SC2086
        $cc $extra -I"$t/include" "$consumer" -L"$t/$ld" -Wl,-Bstatic -lcudnn_ops_infer_static -lcudart_static \
            -Wl,-Bdynamic -lpthread -lm -o "$work/static_$tag" &&
            run_consumer "$tag static archives" "$work/static_$tag" ||
            fail "$tag static archives: build"
    fi
    # 2. pkg-config.
    pc="env PKG_CONFIG_PATH=$t/$ld/pkgconfig pkg-config"
    if [ "$($pc --modversion cudnn)" = "8.9.4" ]; then
        libdir=$($pc --variable=libdir cudnn)
        # shellcheck disable=SC2046,SC2086
        $cc $extra $($pc --cflags cudnn) "$consumer" $($pc --libs cudnn) -o "$work/pkgconfig_$tag" &&
            run_consumer "$tag pkg-config" "$work/pkgconfig_$tag" LD_LIBRARY_PATH="$libdir" ||
            fail "$tag pkg-config: build"
    else
        fail "$tag pkg-config: cudnn.pc not found or wrong version"
    fi
    # 3. find_package(CUDNN); the build tree's RPATH finds the libraries.
    gen=""
    command -v ninja > /dev/null && gen="-G Ninja"
    # shellcheck disable=SC2086
    # Debian's CMake does not search lib64/ under a prefix: name the folder.
    where="-DCMAKE_PREFIX_PATH=$t"
    [ "$ld" = lib ] || where="-DCUDNN_DIR=$t/$ld/cmake/CUDNN"
    if "$cmake" -S "$src/tests/install/consumer" -B "$work/cmake_$tag" $gen "$where" \
            -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" > "$work/cmake_$tag.log" 2>&1 &&
        "$cmake" --build "$work/cmake_$tag" >> "$work/cmake_$tag.log" 2>&1; then
        for exe in consumer_shared consumer_sublib consumer_static; do
            run_consumer "$tag find_package $exe" "$work/cmake_$tag/$exe"
        done
    else
        cat "$work/cmake_$tag.log"
        fail "$tag find_package(CUDNN): configure or build"
    fi
}

if [ "$mode" = prefix ]; then
    "$cmake" --install "$bin" --prefix "$work/prefix" > /dev/null || fail "cmake --install"
    check_layout "$work/prefix"
    [ -f "$work/prefix/share/doc/FreeDNN/LICENSE" ] || fail "LICENSE not installed"
    build_three_ways "$work/prefix" prefix
else
    if [ "$pack" = xz ]; then
        how="-DCOMPRESSION_LEVEL=1" file=$name.tar.xz
    else
        how="-DCOMPRESSION=None" file=$name.tar
    fi
    "$cmake" -DBINARY_DIR="$bin" -DSOURCE_DIR="$src" -DNAME="$name" -DWORK_DIR="$work/stage" -DOUTPUT_DIR="$work" \
        "$how" -P "$src/cmake/MakePackage.cmake" > /dev/null || fail "MakePackage.cmake"
    mkdir -p "$work/unpacked"
    tar -C "$work/unpacked" -xf "$work/$file" || fail "unpacking $file"
    rm -rf "$work/stage"
    tree=$work/unpacked/$name
    check_layout "$tree"
    { [ -f "$tree/LICENSE" ] && grep -q "Apache License" "$tree/LICENSE"; } || fail "LICENSE at the top of the archive"
    [ -f "$tree/README.md" ] || fail "README.md at the top of the archive"
    build_three_ways "$tree" archive

    cuda=$work/cuda
    mkdir -p "$cuda/include" "$cuda/lib64"
    cp "$tree"/include/*.h "$cuda/include/" && cp -P "$tree"/lib/lib*.so* "$tree"/lib/lib*.a "$cuda/lib64/" &&
        cp -r "$tree/lib/pkgconfig" "$tree/lib/cmake" "$cuda/lib64/" || fail "copying into $cuda"
    build_three_ways "$cuda" cuda-toolkit lib64
fi

if [ $failures -ne 0 ]; then
    echo "test_install $mode: $failures failed"
    exit 1
fi
echo "test_install $mode: all passed"
