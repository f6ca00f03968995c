#!/bin/bash
# ab.sh DIR LAYOUT MB BIN... : alternate bins R rounds (default 5); per layer: min median
dir=$1; lay=$2; mb=$3; shift 3
f=/work/wt/dwreg/bench/dwconv_shapes.txt
[ $mb = 32 ] && { sed 's/ mb=1 / mb=32 /' $f > /tmp/dw/s32.txt; f=/tmp/dw/s32.txt; }
[ -n "$MATCH" ] && { grep -E "$MATCH" $f > /tmp/dw/sm.$$; f=/tmp/dw/sm.$$; }
echo "# $dir $lay mb=$mb load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq ${R:-5}); do
 for b in "$@"; do
  FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 $b --threads 1 --file $f --dir $dir --iters 5 --layout $lay --no-dnnl 2>&1 | grep -v '^#' | awk -v b=$(basename $(dirname $b)) '{print b, $1, $5}'
 done
done | sort -k2,2 -k1,1 -k3,3n | awk '{k=$2" "$1; n[k]++; v[k,n[k]]=$3} END{for(k in n){printf "%-28s min %7.3f med %7.3f\n", k, v[k,1], v[k,int((n[k]+1)/2)]}}' | sort
echo "# end load $(cut -d' ' -f1-3 /proc/loadavg)"
