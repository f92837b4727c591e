#!/bin/bash
# Session 13, final compiler (flag-bound paged entries, split-seq in two
# kernels): the GPU matrix under each single schedule, memcheck and
# racecheck on its small case.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
for s in fused split-seq staged staged-bf16; do
  t0=$(date +%s)
  SANITIZE="memcheck racecheck" timeout 100 bench/gpu-matrix.sh $RUN $A/m13f/$s $L/m-$s > $L/matrix-$s.txt 2>&1
  echo "== matrix $s rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases" $L/matrix-$s.txt | tail -3
  grep -E "^\|" $L/matrix-$s.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
  grep -h "entry gdn_paged" $L/m-$s/*.log | grep -oE "entry gdn_paged_s[0-9]" | sort | uniq -c | tr '\n' ' '; echo
done
