#!/bin/bash
# Session 14: paged checkpoints through shared memory and cp.async.bulk
# (s14b) against stores from registers (s14, the compiler of 1b7b6a8).
# Matrix (memcheck + racecheck) on the s14b auto set and on split-seq alone
# (m14b/split-seq); two interleaved rounds of events s14 / s14b, pool and
# paged (prefix 1000, page 256; page 4096 as the few-checkpoints bound);
# s14b beside FLA through the Python entry.
set -u
source bench/runs/lib.sh
fla_install
matrix s14b $A/s14b
matrix split-seq-b $A/m14b/split-seq
for round in 1 2; do
  for shp in "pool 16 32 4096" "paged 16 32 4096" "pool 16 32 16384" "paged 16 32 16384" "paged 16 32 16384,16384"; do
    shape_opts "$shp"; read -r i h hv t <<< "$shp"
    ev "r$round $i ${t:0:12} s14" $A/s14
    ev "r$round $i ${t:0:12} s14b" $A/s14b
  done
  shape_opts "paged 16 32 16384"; P="$P --page-size 4096"
  ev "r$round paged 16384 page 4096 s14" $A/s14
  ev "r$round paged 16384 page 4096 s14b" $A/s14b
done
wait
bench_python s14b 1x4096 8x4096 1x16384 2x16384
