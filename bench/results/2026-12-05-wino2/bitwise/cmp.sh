#!/bin/sh
# Build: gcc -O1 -Iinclude -Icompat/cudart/include dump.c -o dump -Lbuild -lcudnn (from the repository root,
# output next to this script); compares build-base/ (branch point) and build/ outputs bitwise, 1 thread.
# cmp.sh: base vs new outputs, bitwise, on shapes covering tails
fail=0; export OMP_NUM_THREADS=1
for s in "2 64 64 56 56" "3 37 35 13 11" "2 128 256 9 9" "4 256 256 14 14" "1 20 4 7 9" "2 16 100 10 10" "2 40 17 12 12"; do
  for d in "0 6" "1 4" "2 5"; do
    LD_LIBRARY_PATH=build-base "$(dirname "$0")"/dump $s $d > /tmp/wino2_a.bin || fail=1
    LD_LIBRARY_PATH=build "$(dirname "$0")"/dump $s $d > /tmp/wino2_b.bin || fail=1
    if cmp -s /tmp/wino2_a.bin /tmp/wino2_b.bin; then echo "same: $s / $d"; else echo "DIFF: $s / $d"; fail=1; fi
  done
done
exit $fail
