#!/bin/sh
# mb=32 A/B of the 3x3/7x7 layers only (the layers whose code path changed;
# the 1x1 layers only gained the f32->f16 row converter fix): run.sh on a
# shapes file holding those 8 lines, base then new, twice.
#   sh bench/results/2026-12-04-halfconv/mb32_3x3.sh
R=bench/results/2026-12-04-halfconv
f=$(mktemp)
grep '^conv r50_' ${SHAPES:-../shared/bench/shapes.txt} | grep 'mb=32 ' | grep -E '3x3|7x7' > "$f"
for i in 1 2; do
  SHAPES=$f sh $R/run.sh 32 build-base > $R/mb32_3x3_base_$i.txt 2>&1
  SHAPES=$f sh $R/run.sh 32 build-new > $R/mb32_3x3_new_$i.txt 2>&1
done
rm -f "$f"
