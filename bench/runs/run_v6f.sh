#!/bin/bash
# Session 9: the GPU matrix (30 cases) with memcheck + racecheck under each
# single schedule built with the landed compiler (stage-early changes touch
# every kernel): fused, staged, staged-bf16, split-seq (replay=recompute).
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
for s in fused staged staged-bf16 split-seq; do
  t0=$(date +%s)
  SANITIZE="memcheck racecheck" timeout 130 bench/gpu-matrix.sh $RUN $A/m-$s $L/m-$s > $L/matrix-$s.txt 2>&1
  echo "== $s rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases" $L/matrix-$s.txt | tail -3
  echo -n "   max o err: "; grep -E "^\|" $L/matrix-$s.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
done
