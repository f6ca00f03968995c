#!/bin/bash
# Patched freednn-bench: base objects with this branch's depthwise files.
set -e
S=${S:-/tmp/dwbwd-src}; B=/tmp/dwbwd-base; O=/tmp/dwbwd-new
cp $B/libfdnn_internal.a $O/lib.a
F="-I$S/include -I$S/compat/cudart/include -I$S/src -I$B/generated -O3 -DNDEBUG -fPIC -Wall -Wextra -fno-strict-aliasing -include $S/cmake/glibc_pins.h -std=c11"
A512="-mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -mf16c"
nice -n 10 cc $F -c $S/src/cpu/conv/conv_depthwise_cb.c -o $O/conv_depthwise_cb.c.o &
nice -n 10 cc $F $A512 -c $S/src/cpu/kernels/f32_dwconv_cb__avx512.c -o $O/f32_dwconv_cb__avx512.c.o &
nice -n 10 cc $F -mavx2 -mfma -mf16c -c $S/src/cpu/kernels/f32_dwconv_cb__avx2.c -o $O/f32_dwconv_cb__avx2.c.o &
nice -n 10 cc $F -c $S/src/cpu/kernels/f32_dwconv_cb__scalar.c -o $O/f32_dwconv_cb__scalar.c.o &
wait
ar r $O/lib.a $O/conv_depthwise_cb.c.o $O/f32_dwconv_cb__avx512.c.o $O/f32_dwconv_cb__avx2.c.o $O/f32_dwconv_cb__scalar.c.o
D=$B/tools/freednn-bench/CMakeFiles/freednn-bench.dir
cc -O3 -DNDEBUG $D/bench_conv.c.o $D/parse.c.o $D/net_main.c.o $D/net_models.c.o $D/net_cudnn.c.o $D/net_child.c.o $D/net_nodes.c.o $D/onednn_conv.c.o $D/net_onednn.c.o -o $O/freednn-bench $O/lib.a -lm /usr/lib/x86_64-linux-gnu/libdnnl.so /usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so /usr/lib/x86_64-linux-gnu/libpthread.a
echo built $O/freednn-bench
