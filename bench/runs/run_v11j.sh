#!/bin/bash
# Session 15, final check: the landed runtime (format gdn-artifact-3 for
# run-first plans) runs a freshly built split-seq-run-14 artifact, checked
# against the float64 reference at 1 x 4096 (pool and paged, prefix 1000)
# and a varlen paged batch, then timed.
set -u
source bench/runs/lib.sh
A=artifacts-tiles/v11j
for shp in "pool 16 32 4096" "paged 16 32 4096"; do
  shape_opts "$shp"; P=${P/--no-check/}
  timeout 120 $RUN --backend cuda --artifacts $A/run14 $P --warmup 1 --repeat 5 2>&1 | grep -E "format|error|o:|state:|verdict|median" | tr '\n' ' '; echo
done
timeout 120 $RUN --backend cuda --artifacts $A/run14 --heads 16 --value-heads 32 --head-dim 128 --interface paged --seqlens 1000,3000,64,0,5000 --prefixes 0,1000,64,128,300 --warmup 1 --repeat 5 2>&1 | grep -E "error|o:|state:|verdict|median" | tr '\n' ' '; echo
for shp in "pool 16 32 4096" "paged 16 32 4096"; do shape_opts "$shp"; ev "$shp run14" $A/run14; done
