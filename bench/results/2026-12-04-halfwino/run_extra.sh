#!/bin/sh
# Two more alternations of the mb=1 sweep (runs 4 and 5), with build-new/
# holding 67fb324 (the split block).  Run from the worktree's root:
#   sh bench/results/2026-12-04-halfwino/run_extra.sh
# Tables, in this folder: python3 ../2026-12-04-halfconv/ab.py 1 (all 5 runs).
d=bench/results/2026-12-04-halfwino
for i in 4 5; do
  for b in base new; do
    sh bench/results/2026-12-04-halfconv/run.sh 1 build-$b > $d/mb1_${b}_$i.txt 2>&1
  done
done
