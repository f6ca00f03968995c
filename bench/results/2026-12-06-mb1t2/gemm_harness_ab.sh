#!/bin/bash
# ab.sh A B rounds shapes...: alternated runs, min per binary
A=$1; B=$2; R=$3; shift 3
for s in "$@"; do
  for T in 1 2; do
    ra=(); rb=()
    for i in $(seq $R); do
      ra+=($(./$A $(echo $s | tr x ' ') $T $([ $T = 1 ] && echo 200 || echo 600) | awk '{print $4}'))
      rb+=($(./$B $(echo $s | tr x ' ') $T $([ $T = 1 ] && echo 200 || echo 600) | awk '{print $4}'))
    done
    printf "%-14s T=%d %s min %s med %s | %s min %s med %s\n" $s $T $A $(printf "%s\n" "${ra[@]}" | sort -g | head -1) $(printf "%s\n" "${ra[@]}" | sort -g | sed -n "$(( (R+1)/2 ))p") $B $(printf "%s\n" "${rb[@]}" | sort -g | head -1) $(printf "%s\n" "${rb[@]}" | sort -g | sed -n "$(( (R+1)/2 ))p")
  done
done
