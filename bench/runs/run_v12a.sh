#!/bin/bash
# Session 16: the next-chunk L2 prefetch on and off (--prefetch none) for
# auto's picks at pool / paged 1 x 4096 (split-seq-run-14), 1 x 16384
# (split-seq-run-58) and 8 x 4096 (fused); then where run-14's kernels
# stall (ncu WarpStateStats, one launch each).
set -u
source bench/runs/lib.sh
A=artifacts-tiles/v12a
for round in 1 2; do
  for shp in "pool 16 32 4096" "paged 16 32 4096"; do
    shape_opts "$shp"; for s in r14 r14p0; do ev "r$round $shp $s" $A/$s; done
  done
  for shp in "pool 16 32 16384" "paged 16 32 16384"; do
    shape_opts "$shp"; for s in r58 r58p0; do ev "r$round $shp $s" $A/$s; done
  done
  shape_opts "pool 16 32 4096,4096,4096,4096,4096,4096,4096,4096"
  for s in fu fup0; do ev "r$round pool 8x4096 $s" $A/$s; done
done
shape_opts "pool 16 32 4096"
for s in r14 r14p0; do durations pool4096-$s $A/$s; done
for k in transition replay; do
  timeout 150 ncu --clock-control none -k regex:$k -c 1 --section WarpStateStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --page details \
    $RUN --backend cuda --artifacts $A/r14 $P --warmup 0 --repeat 1 > "$L/ncu-stalls-$k.txt" 2>&1
  echo "== ncu stalls $k rc $?"; grep -E "Cycles|Issued|Eligible|Throughput|Duration" "$L/ncu-stalls-$k.txt" | head -30
  timeout 150 ncu --clock-control none -k regex:$k -c 1 --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
    $RUN --backend cuda --artifacts $A/r14 $P --warmup 0 --repeat 1 > "$L/ncu-reasons-$k.txt" 2>&1
  echo "== ncu reasons $k rc $?"; grep -E "stalled" "$L/ncu-reasons-$k.txt" | awk '{print $1, $NF}' | sort -k2 -g -r | head -14
done
