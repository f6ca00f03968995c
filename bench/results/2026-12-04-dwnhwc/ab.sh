#!/bin/bash
# ab.sh DIR LAYOUT(0 nchw, 1 nhwc) MB ITERS: every layer of bench/dwconv_shapes.txt through
# ab_drv on the library in $NEW and the one in $BASE, alternating, from the tree root.
# DRV: the ab_drv binary.
# cmp.sh DIR LAYOUT MB ITERS : new (build) vs base, min and med
d=$1; l=$2; mb=$3; it=${4:-200}
grep "^conv" bench/dwconv_shapes.txt | while read _ name _ ic _ _ ih rest; do
  c=${ic#ic=}; h=${ih#ih=}; s=1; [[ $name == *s2 ]] && s=2
  n=$(LD_LIBRARY_PATH=$NEW $DRV $mb $c $h $s $d $l $it | sed 's/.*med \([0-9.]*\) min \([0-9.]*\).*/\1 \2/')
  b=$(LD_LIBRARY_PATH=$BASE $DRV $mb $c $h $s $d $l $it | sed 's/.*med \([0-9.]*\) min \([0-9.]*\).*/\1 \2/')
  echo "$name new $n base $b" | awk '{printf "%-20s new %s/%s base %s/%s  min-ratio(base/new) %.2f\n",$1,$3,$4,$6,$7,$7/$4}'
done
