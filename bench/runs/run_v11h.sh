#!/bin/bash
# Session 15: the auto set with first-segment=run candidates (a15, K = V =
# 128 bf16). Events: the 2 x 16384, 2 x 4096 and 1 x 8192 picks against what auto picked
# before (candidates of the same set run directly); then the Python entry
# beside FLA on the benchmark shapes.
set -u
source bench/runs/lib.sh
A=artifacts-tiles/v11h
fla_install
S=$A/a15/k128_v128_bf16
for round in 1 2; do
  for shp in "pool 16 32 16384,16384" "paged 16 32 16384,16384" "pool 16 32 8192" "paged 16 32 8192" "pool 16 32 4096,4096"; do
    shape_opts "$shp"; read -r i h hv t <<< "$shp"
    case $t in
      8192) sets="split-seq-32 split-seq-run-29" ;;
      4096,4096) sets="fused-v-block-64 split-seq-run-29" ;;
      *) sets="split-seq-128 split-seq-run-116" ;;
    esac
    for s in $sets; do ev "r$round $i ${t:0:12} $s" $S/$s; done
  done
done
for shp in "pool 16 32 4096" "pool 16 32 16384" "pool 16 32 16384,16384" "pool 16 32 8192" "pool 16 32 4096,4096"; do
  shape_opts "$shp"; $RUN --backend cuda --artifacts $A/a15 $P --warmup 0 --repeat 1 2>&1 | grep "schedule: auto"
done
wait
bench_python a15 1x4096 1x16384 2x16384 1x8192 2x4096
