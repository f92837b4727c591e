#!/bin/bash
# Session 16: segment lengths of split-seq first-segment=run without the
# next-chunk prefetch at 1 x 4096 (segment 0 / the others: 12/14, 13/14 =
# auto's split-seq-run-14, 14/14, 14/15), CUDA events and ncu durations.
set -u
source bench/runs/lib.sh
A=artifacts-tiles/v12d
for round in 1 2 3; do
  for shp in "pool 16 32 4096" "paged 16 32 4096"; do
    shape_opts "$shp"; for s in f12-14 f13-14 f14-14 f14-15; do ev "r$round $shp $s" $A/$s; done
  done
done
shape_opts "pool 16 32 4096"
for s in f12-14 f13-14 f14-14 f14-15; do durations pool4096-$s $A/$s; done
