#!/bin/bash
# Session 14, the final compiler: the checkpoint's page looked up before
# the step (as s14d) and split-seq's extra chunk in segment 0 (s14e; the
# runtime launches ceil((chunk slots - 1) / segment) segments, so it is
# built anew: build-rt). s14 runs with the runtime it was built for
# (build-rt-old, 1b7b6a8). Matrix (memcheck + racecheck) on the s14e auto
# set; events s14 / s14e interleaved; s14e beside FLA.
set -u
source bench/runs/lib.sh
fla_install
matrix s14e $A/s14e 120
OLD=build-rt-old/bin/gdn-run
for round in 1 2; do
  for shp in "pool 16 32 4096" "paged 16 32 4096" "paged 16 32 16384" "pool 16 32 16384" "paged 16 32 16384,16384" "pool 2 8 32768"; do
    [ $round = 2 ] && [[ "$shp" != *" 4096" && "$shp" != "paged 16 32 16384" ]] && continue
    shape_opts "$shp"; read -r i h hv t <<< "$shp"
    RUN=$OLD ev "r$round $i H$h ${t:0:12} s14" $A/s14
    ev "r$round $i H$h ${t:0:12} s14e" $A/s14e
  done
done
wait
bench_python s14e 1x4096 1x16384 2x16384
