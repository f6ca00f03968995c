#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The halfmb1 branch's A/B (run from the repository root): half_rounds.sh
# (per ResNet-50 layer, ROUNDS alternations of FP32 then PSEUDO_HALF, each a
# freednn-bench median of 5 on the calling thread's CPU time) on this
# branch's build/ and on build-base/ (the branch point main 5e6985d: its
# freednn-bench, which links the library statically, and its
# libcudnn*.so*), alternated: mb=1 5 rounds x 2 per build, mb=32 3 rounds
# x 1 per build.  Then: python3 bench/results/2026-12-04-halfmb1/ab.py
d=bench/results/2026-12-04-halfmb1
S=bench/results/2026-12-04-s5quiet/half_rounds.sh
export SHAPES=${SHAPES:-/work/shared/bench/shapes.txt}
for i in 1 2; do
  sh $S 1 build 5 > $d/mb1_new_$i.txt
  sh $S 1 build-base 5 > $d/mb1_base_$i.txt
done
sh $S 32 build 3 > $d/mb32_new_1.txt
sh $S 32 build-base 3 > $d/mb32_base_1.txt
# Final code (after the ahalf kernel's next-strip prefetch): one more
# alternation at mb=1, tag "final" (ab.py 1 final).
sh $S 1 build 5 > $d/mb1_final_1.txt
sh $S 1 build-base 5 > $d/mb1_base_3.txt
sh $S 1 build 5 > $d/mb1_final_2.txt
sh $S 32 build 3 > $d/mb32_final_1.txt
